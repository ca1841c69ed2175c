/* test_zoo_space.c - the zoo's parameter space and interfaces: every family
 * at defaults and at the corners of each parameter, error messages, presets
 * and canonical specs, the seeded sampler, symbol rebinding without a
 * rebuild, sizes a model cannot take, the JSON round trip and `dippm zoo`. */
#include <sys/wait.h>
#include <unistd.h>

#include "test_zoo_util.h"

/* ---- every family at defaults and at the corners of each parameter --------- */

static void corner_value(const struct zoo_param *p, int which, char *buf, size_t size)
{
    switch (p->type) {
    case ZOO_PT_INT:
        if (p->n_choices)
            snprintf(buf, size, "%s", p->choices[which ? p->n_choices - 1 : 0]);
        else
            snprintf(buf, size, "%.0f", which ? p->max - fmod(p->max - p->min,
                                                               p->step > 1 ? p->step : 1)
                                              : p->min);
        break;
    case ZOO_PT_FLOAT: snprintf(buf, size, "%g", which ? p->max : p->min); break;
    case ZOO_PT_ENUM: snprintf(buf, size, "%s", p->choices[which % p->n_choices]); break;
    case ZOO_PT_INTS: {
        size_t off = 0;
        int step = p->step > 1 ? p->step : 1;
        double v = which ? p->max - fmod(p->max - p->min, step) : p->min;
        for (int k = 0; k < p->n_items; k++)
            off += (size_t)snprintf(buf + off, size - off, "%s%.0f", k ? "," : "", v);
        break;
    }
    default: break;
    }
}

static void test_corners(void **state)
{
    (void)state;
    int built = 0, rejected = 0;
    for (int f = 0; f < zoo_family_count(); f++) {
        for (int i = -1; i < zoo_param_count(f); i++) {
            int n_corner = 1;
            if (i >= 0)
                n_corner = zoo_param_get(f, i)->type == ZOO_PT_ENUM
                               ? zoo_param_get(f, i)->n_choices : 2;
            for (int which = 0; which < n_corner; which++) {
                struct zoo_args a;
                struct diag d = {0};
                zoo_args_init(&a, f);
                if (i >= 0) {
                    const struct zoo_param *p = zoo_param_get(f, i);
                    char v[256];
                    corner_value(p, which, v, sizeof v);
                    if (zoo_args_set(&a, p->name, v, &d))
                        fail_msg("%s: %s=%s rejected: %s", zoo_family_name(f), p->name, v,
                                 d.msg);
                }
                if (zoo_args_check(&a, &d) != ST_OK) {
                    /* a corner may break a constraint between parameters: it must be
                     * named, never crash the build */
                    assert_int_equal(d.code, ST_ERANGE);
                    assert_non_null(strstr(d.msg, zoo_family_name(f)));
                    rejected++;
                    continue;
                }
                struct graph *g = zoo_build(&a, &d);
                if (!g)
                    fail_msg("%s: %s", zoo_family_name(f), d.msg);
                assert_true(g->finalized);
                assert_string_equal(g->format, "zoo");
                assert_true(graph_sym_find(g, "batch") >= 0);
                if (infer_real(g)) {
                    if (g->totals.n_unsupported || g->totals.n_unknown)
                        fail_msg("%s: %d unsupported, %d unknown nodes", g->path,
                                 g->totals.n_unsupported, g->totals.n_unknown);
                    /* zoo:kernel's element-wise ops, norms and softmax
                     * have FLOPs but no MACs */
                    assert_true(g->totals.macs > 0 || g->totals.flops > 0);
                    assert_true(g->totals.params == count_params(g));
                }
                graph_free(g);
                built++;
            }
        }
    }
    printf("# corners: %d built, %d rejected by cross-parameter checks\n", built, rejected);
    assert_true(built > 100);
}

/* ---- errors --------------------------------------------------------------- */

static void expect_error(const char *spec, enum status code, const char *needle)
{
    struct diag d = {0};
    struct graph *g = zoo_build_spec(spec, &d);
    if (g)
        fail_msg("%s: built, expected an error", spec);
    if (d.code != code || !strstr(d.msg, needle))
        fail_msg("%s: got [%s] '%s', expected [%s] containing '%s'", spec, status_str(d.code),
                 d.msg, status_str(code), needle);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("zoo:resnet:depth=20", ST_ERANGE,
                 "zoo:resnet: depth=20 is not one of 18, 34, 50, 101, 152");
    expect_error("resnet:width=9", ST_ERANGE, "width=9 is not a number from 0.25 to 4");
    expect_error("resnet:width=abc", ST_ERANGE, "width=abc is not a number");
    expect_error("resnet:depth=", ST_ERANGE, "depth= is not one of");
    expect_error("zoo:resnet:depth=18:groups=32", ST_ERANGE, "basic blocks");
    expect_error("zoo:rsenet", ST_ENOTFOUND, "known: resnet, vgg, mobilenet_v2");
    expect_error("zoo:", ST_EUSAGE, "no template family given; known: resnet");
    expect_error("zoo:resnet:colour=red", ST_ENOTFOUND,
                 "unknown parameter 'colour'; parameters: preset, depth, width");
    expect_error("zoo:resnet:depth", ST_EUSAGE, "'depth' is not KEY=VALUE");
    expect_error("zoo:vit:dim=100:heads=10", ST_ERANGE,
                 "dim=100 is not an integer from 32 to 4096 in steps of 32");
    expect_error("zoo:vit:dim=800:heads=12", ST_ERANGE, "dim=800 is not a multiple of heads=12");
    expect_error("zoo:vit:image=200", ST_ERANGE, "image=200 is not a multiple of patch=16");
    expect_error("zoo:convnext:depths=3,3,9", ST_ERANGE,
                 "depths=3,3,9 is not 4 comma-separated integers from 1 to 64");
    expect_error("zoo:convnext:depths=3,3,9,3,1", ST_ERANGE, "depths=3,3,9,3,1 is not");
    expect_error("zoo:swin:resolution=256", ST_ERANGE, "multiple of patch x 8 x window = 224");
    expect_error("zoo:gpt:phase=train", ST_ERANGE, "phase=train is not one of prefill, decode");
    expect_error("zoo:bert:seq=1024", ST_ERANGE, "seq=1024 exceeds the maximum 512");
    expect_error("zoo:mlp:layers=0", ST_ERANGE, "layers=0 is not an integer from 1 to 128");
    expect_error("zoo:dit:heads=12:hidden=1088", ST_ERANGE,
                 "hidden=1088 is not a multiple of heads=12");
    expect_error("zoo:dit:latent=96:patch=5", ST_ERANGE, "latent=96 is not a multiple of patch=5");
    expect_error("zoo:dit:preset=pixart-alpha-xl2-1024:hidden=1024", ST_ERANGE,
                 "size_cond=1 needs hidden=1024 to be a multiple of 3");
    expect_error("zoo:dit:pos_max=96", ST_ERANGE, "pooled_dim and pos_max apply to arch=mmdit");
    expect_error("zoo:dit:preset=sd3-medium:size_cond=1", ST_ERANGE, "size_cond=1 is PixArt's");
    expect_error("zoo:dit:preset=sd3-medium:latent=512", ST_ERANGE,
                 "latent=512 / patch=2 is more than pos_max=192 positions a side");
}

/* ---- presets and canonical specs ------------------------------------------- */

static void test_presets(void **state)
{
    (void)state;
    struct graph *g = build("zoo:resnet:preset=resnext50_32x4d");
    assert_string_equal(g->name, "resnext50_32x4d");
    assert_string_equal(g->path, "zoo:resnet:preset=resnext50_32x4d:depth=50:width=1:groups=32:"
                                 "width_per_group=4:se=0:classes=1000:resolution=224");
    graph_free(g);
    /* explicit keys override the preset whatever their order */
    g = build("zoo:resnet:depth=101:preset=resnet50");
    assert_string_equal(g->name, "resnet101");
    graph_free(g);
    g = build("zoo:resnet:preset=resnet50:groups=2");
    assert_string_equal(g->name, "resnet");
    assert_non_null(strstr(g->path, "preset=custom"));
    /* the canonical spec rebuilds the same graph */
    struct graph *g2 = build(g->path);
    assert_string_equal(g2->path, g->path);
    assert_int_equal(g2->n_nodes, g->n_nodes);
    assert_true(count_params(g2) == count_params(g));
    graph_free(g2);
    graph_free(g);
    /* floats keep every digit they need, and no more */
    g = build("resnet:width=1.2345678:preset=custom");
    assert_non_null(strstr(g->path, ":width=1.2345678:"));
    graph_free(g);
    g = build("resnet:width=0.5");
    assert_non_null(strstr(g->path, ":width=0.5:"));
    graph_free(g);
    g = build("efficientnet:variant=b3");
    assert_string_equal(g->name, "efficientnet_b3");
    char fam[32];
    assert_string_equal(zoo_graph_family(g, fam, sizeof fam), "efficientnet");
    graph_free(g);
    struct graph *plain = graph_new("x");
    assert_null(zoo_graph_family(plain, fam, sizeof fam));
    graph_free(plain);
    /* the most specific preset names a configuration: CLIP ViT-L/14's text
     * encoder has GPT-2's sizes, but not its head, context or vocabulary */
    g = build("gpt:preset=clip-l");
    assert_string_equal(g->name, "clip-l");
    graph_free(g);
    g = build("gpt:preset=gpt2:head=none");
    assert_string_equal(g->name, "gpt");
    graph_free(g);
    /* SD3's MMDiT has PixArt's parameter names but not its arch: neither
     * preset names the other's configuration */
    g = build("dit:preset=sd3-medium");
    assert_string_equal(g->name, "sd3-medium");
    assert_non_null(strstr(g->path, ":arch=mmdit"));
    graph_free(g);
    g = build("dit:arch=mmdit");
    assert_string_equal(g->name, "dit");
    graph_free(g);
    g = build("dit:preset=sd3-medium:arch=pixart");
    assert_string_equal(g->name, "dit");
    graph_free(g);
    /* an unsampled parameter is in the canonical spec only off its default */
    g = build("gpt");
    assert_null(strstr(g->path, "head="));
    graph_free(g);
    g = build("t5:stack=encoder");
    assert_non_null(strstr(g->path, ":stack=encoder"));
    assert_null(strstr(g->path, "version="));
    g2 = build(g->path);
    assert_int_equal(g2->n_nodes, g->n_nodes);
    graph_free(g2);
    graph_free(g);
}

/* ---- sampler ----------------------------------------------------------------- */

static void test_sampler(void **state)
{
    (void)state;
    uint64_t s1 = 42, s2 = 42, s3 = 43;
    int differ = 0;
    for (int f = 0; f < zoo_family_count(); f++) {
        for (int k = 0; k < 5; k++) {
            char a[1024], b[1024], c[1024];
            assert_int_equal(zoo_sample_spec(f, &s1, a, sizeof a, NULL), ST_OK);
            assert_int_equal(zoo_sample_spec(f, &s2, b, sizeof b, NULL), ST_OK);
            assert_int_equal(zoo_sample_spec(f, &s3, c, sizeof c, NULL), ST_OK);
            assert_string_equal(a, b);
            differ += strcmp(a, c) != 0;
        }
    }
    assert_true(differ > zoo_family_count() * 4);

    /* 60 samples per family: all parse, round-trip, build and infer */
    uint64_t s = 7;
    int per_family_distinct[32] = {0};
    char prev[32][1024];
    memset(prev, 0, sizeof prev);
    for (int k = 0; k < 60 * zoo_family_count(); k++) {
        int f = k % zoo_family_count();
        char spec[1024];
        struct diag d = {0};
        assert_int_equal(zoo_sample_spec(f, &s, spec, sizeof spec, &d), ST_OK);
        struct zoo_args a;
        if (zoo_args_parse(spec, &a, &d))
            fail_msg("sampled '%s' does not parse: %s", spec, d.msg);
        char again[1024];
        zoo_args_spec(&a, again, sizeof again);
        assert_string_equal(again, spec);
        struct graph *g = zoo_build(&a, &d);
        if (!g)
            fail_msg("sampled '%s' does not build: %s", spec, d.msg);
        if (g->n_nodes > 5000)
            fail_msg("sampled '%s' has %d nodes", spec, g->n_nodes);
        char fam[32];
        assert_string_equal(zoo_graph_family(g, fam, sizeof fam), zoo_family_name(f));
        if (infer_real(g) && (g->totals.n_unsupported || g->totals.n_unknown))
            fail_msg("sampled '%s': %d unsupported, %d unknown nodes", spec,
                     g->totals.n_unsupported, g->totals.n_unknown);
        /* unsampled parameters keep their defaults, so stay out of the spec */
        for (int i = 0; i < zoo_param_count(f); i++) {
            char key[64];
            snprintf(key, sizeof key, ":%s=", zoo_param_get(f, i)->name);
            if (zoo_param_get(f, i)->unsampled && strstr(spec, key))
                fail_msg("sampled '%s' sets unsampled %s", spec, key);
        }
        per_family_distinct[f] += strcmp(prev[f], spec) != 0;
        snprintf(prev[f], sizeof prev[f], "%s", spec);
        graph_free(g);
    }
    for (int f = 0; f < zoo_family_count(); f++)
        assert_true(per_family_distinct[f] > 50);
}

/* ---- symbols: batch, image size and sequence rebinding without rebuild ------ */

static void test_symbols(void **state)
{
    (void)state;
    struct diag d = {0};
    struct graph *g = build("resnet:depth=18");
    assert_true(graph_sym_find(g, "height") >= 0 && graph_sym_find(g, "width") >= 0);
    assert_int_equal(graph_batch_sym(g), graph_sym_find(g, "batch"));
    if (infer_real(g)) {
        double m1 = g->totals.macs;
        assert_int_equal(graph_sym_set(g, "batch", 8, &d), ST_OK);
        assert_true(infer_real(g));
        assert_true(fabs(g->totals.macs - 8 * m1) < 1e-6 * m1);
        assert_int_equal(graph_sym_set(g, "batch", 1, &d), ST_OK);
        assert_int_equal(graph_sym_set(g, "height", 448, &d), ST_OK);
        assert_int_equal(graph_sym_set(g, "width", 448, &d), ST_OK);
        assert_true(infer_real(g));
        /* every feature map doubles on both axes: 4x the convolution MACs;
         * only the final Gemm (512x1000) stays the same */
        double fc = 512.0 * 1000;
        assert_true(fabs((g->totals.macs - fc) - 4 * (m1 - fc)) < 1e-6 * m1);
    }
    graph_free(g);

    g = build("swin");
    if (infer_real(g)) {
        double m1 = g->totals.macs;
        assert_int_equal(graph_sym_set(g, "height", 448, &d), ST_OK);
        assert_int_equal(graph_sym_set(g, "width", 448, &d), ST_OK);
        if (graph_infer(g, &d))
            fail_msg("swin at 448: %s", d.msg);
        assert_int_equal(g->totals.n_unknown, 0);
        /* windows keep their size, so MACs scale with the pixel count */
        assert_true(g->totals.macs > 3.9 * m1 && g->totals.macs < 4.1 * m1);
    }
    graph_free(g);

    /* decode reads a KV cache of seq tokens: attention grows with seq, the rest not */
    g = build("gpt:phase=decode:context=2048");
    assert_true(graph_sym_find(g, "seq") >= 0);
    int n_past = 0;
    for (int i = 0; i < g->n_inputs; i++)
        n_past += strncmp(g->values[g->inputs[i]].name, "past_", 5) == 0;
    assert_int_equal(n_past, 24); /* 12 layers x (key, value) */
    assert_int_equal(g->n_outputs, 25);
    assert_int_equal(graph_sym_set(g, "seq", 1023, &d), ST_OK);
    if (infer_real(g)) {
        double m1 = g->totals.macs;
        /* per layer: q.K and attn.V, each 768 MACs per cached token (plus the new one) */
        assert_int_equal(graph_sym_set(g, "seq", 2047, &d), ST_OK);
        assert_true(infer_real(g));
        assert_true(fabs((g->totals.macs - m1) - 12.0 * 2 * 768 * 1024) < 1);
    }
    graph_free(g);
    g = build("gpt");
    if (infer_real(g)) {
        double m1 = g->totals.macs;
        assert_int_equal(graph_sym_set(g, "seq", 512, &d), ST_OK);
        assert_true(infer_real(g));
        assert_true(g->totals.macs < 0.5 * m1); /* linear layers halve, attention quarters */
    }
    graph_free(g);
}

/* Every family's default graph survives a dippm JSON write/read unchanged. */
static void test_json_roundtrip(void **state)
{
    (void)state;
    for (int f = 0; f < zoo_family_count(); f++) {
        struct graph *g = build(zoo_family_name(f));
        size_t len;
        char *text = json_graph_write(g, &len);
        struct diag d = {0};
        struct graph *h = json_graph_parse(text, len, zoo_family_name(f), &d);
        if (!h)
            fail_msg("%s: JSON round trip: %s", zoo_family_name(f), d.msg);
        assert_int_equal(h->n_nodes, g->n_nodes);
        assert_int_equal(h->n_syms, g->n_syms);
        assert_true(count_params(h) == count_params(g));
        if (infer_real(g) && infer_real(h))
            assert_true(h->totals.macs == g->totals.macs);
        free(text);
        graph_free(h);
        graph_free(g);
    }
}

/* The symbol of spec refuses v with a message holding want, keeps its
 * value, and takes ok (and infers at it). */
static void expect_limit(const char *spec, const char *sym, int64_t v, const char *want,
                         int64_t ok)
{
    struct graph *g = build(spec);
    struct diag d = {0};
    int si = graph_sym_find(g, sym);
    assert_true(si >= 0);
    int64_t before = g->syms[si].val;
    assert_int_equal(graph_sym_set(g, sym, v, &d), ST_ERANGE);
    if (!strstr(d.msg, want))
        fail_msg("%s %s=%lld: '%s' lacks '%s'", spec, sym, (long long)v, d.msg, want);
    assert_int_equal(g->syms[si].val, before);
    d = (struct diag){0};
    assert_int_equal(graph_sym_set(g, sym, ok, &d), ST_OK);
    if (!strcmp(sym, "height"))
        assert_int_equal(graph_sym_set(g, "width", ok, &d), ST_OK);
    if (graph_infer(g, &d))
        fail_msg("%s at %s=%lld: %s", spec, sym, (long long)ok, d.msg);
    graph_free(g);
}

/* Sizes a template cannot take are refused when bound, naming the value
 * and the limit: ViT's position embedding is made for one image size (as
 * torchvision asserts), VGG's classifier for 7x7 features, Swin's windows
 * tile every stage, the DiTs' position tables are constants for their
 * latent, a UNet joins skips of every level, and sequences stay within the
 * position table or the context. */
static void test_fixed_sizes(void **state)
{
    (void)state;
    expect_limit("vit:preset=b_32", "height", 256,
                 "height=256: the model takes only 224: the model's 50 position embeddings", 224);
    expect_limit("vgg", "height", 256, "height=256 is outside 224..255", 255);
    expect_limit("swin", "height", 256, "height=256 is not a multiple of 224", 448);
    expect_limit("dit:preset=pixart-sigma-xl2-512", "height", 72,
                 "height=72: the model takes only 64", 64);
    expect_limit("dit:preset=sd3-medium", "height", 256, "made for latent=128", 128);
    /* SDXL halves its latent twice (3 levels), SD 1.5 three times (4 levels) */
    expect_limit("unet:preset=sdxl", "height", 129, "height=129 is not a multiple of 4", 132);
    expect_limit("unet", "height", 132, "height=132 is not a multiple of 8", 136);
    /* conv0 and pool0 leave 8 of 29 pixels for three 2x2 pools */
    expect_limit("densenet", "height", 28, "height=28 is below the minimum 29", 29);
    expect_limit("convnext", "height", 31, "height=31 is below the minimum 32", 32);
    expect_limit("bert", "seq", 513,
                 "seq=513 exceeds the maximum 512: the model has 512 position embeddings "
                 "(max_position)", 512);
    expect_limit("bart", "tgt", 1025, "tgt=1025 exceeds the maximum 1024", 1024);
    expect_limit("gpt", "seq", 1025, "the model's context holds 1024 tokens (context)", 1024);
    expect_limit("llama:layers=2", "seq", 2049, "seq=2049 exceeds the maximum 2048", 2048);
    expect_limit("llama:layers=2:phase=decode", "seq", 2048, "seq=2048 exceeds the maximum 2047",
                 2047);
    struct graph *g = NULL;
    /* VGG at 448: the adaptive pool becomes a 2x2 average pool; the convolutions
     * cost 4x, the classifier the same (torchvision vgg16 at 448: 4 x 15.35 G
     * convolutions + 0.12 G classifier) */
    g = build("vgg:resolution=448");
    struct graph *g224 = build("vgg");
    if (infer_real(g) && infer_real(g224)) {
        double fc = 25088.0 * 4096 + 4096.0 * 4096 + 4096.0 * 1000;
        assert_int_equal(g->totals.n_unknown, 0);
        assert_true(fabs((g->totals.macs - fc) - 4 * (g224->totals.macs - fc)) <
                    1e-9 * g->totals.macs);
    }
    graph_free(g224);
    graph_free(g);
    expect_error("vgg:resolution=300", ST_ERANGE,
                 "resolution=300 is not an integer from 224 to 2240 in steps of 224");
    g = build("vit:preset=b_32:image=256");
    if (infer_real(g))
        assert_int_equal(g->totals.n_unknown, 0);
    graph_free(g);
    /* the DiT's latent parameter sets the size (and the output follows it) */
    g = build("dit:preset=pixart-sigma-xl2-512:latent=96");
    if (infer_real(g)) {
        const struct value *o = &g->values[g->outputs[0]];
        assert_int_equal(g->totals.n_unknown, 0);
        assert_true(o->shape.known && o->shape.rank == 4 && o->shape.d[1] == 8 &&
                    o->shape.d[2] == 96 && o->shape.d[3] == 96);
    }
    graph_free(g);
}

/* ---- the CLI (when the built binary is available) ---------------------------- */

/* Runs cmd with stdout+stderr into out (malloc'd); returns the exit status. */
static int run(const char *cmd, char **out)
{
    char full[2048];
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, len = 0;
    *out = malloc(cap);
    size_t n;
    while ((n = fread(*out + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (len + 1 == cap)
            *out = realloc(*out, cap *= 2);
    }
    (*out)[len] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_cli(void **state)
{
    (void)state;
    const char *dippm = getenv("DIPPM");
    FILE *f = dippm ? fopen(dippm, "rb") : NULL;
    if (!f) {
        printf("# DIPPM binary not available, CLI checks skipped\n");
        return;
    }
    fclose(f);
    char cmd[1536], *out;
    char dir[] = "/tmp/test_zoo.XXXXXX";
    assert_non_null(mkdtemp(dir));

    snprintf(cmd, sizeof cmd, "%s zoo list", dippm);
    assert_int_equal(run(cmd, &out), 0);
    for (int fam = 0; fam < zoo_family_count(); fam++)
        assert_non_null(strstr(out, zoo_family_name(fam)));
    free(out);

    snprintf(cmd, sizeof cmd, "%s zoo show swin --json", dippm);
    assert_int_equal(run(cmd, &out), 0);
    assert_non_null(strstr(out, "\"name\": \"window\""));
    free(out);

    snprintf(cmd, sizeof cmd, "%s zoo resnet depth=20", dippm);
    assert_int_equal(run(cmd, &out), 2);
    assert_non_null(strstr(out, "dippm: zoo:resnet: depth=20 is not one of 18, 34, 50, 101, 152"));
    free(out);

    snprintf(cmd, sizeof cmd, "%s zoo nosuch", dippm);
    assert_int_equal(run(cmd, &out), 3);
    assert_non_null(strstr(out, "known: resnet"));
    free(out);

    /* -o writes a dippm JSON graph, refuses to overwrite without --force */
    char path[512];
    snprintf(path, sizeof path, "%s/mlp.json", dir);
    snprintf(cmd, sizeof cmd, "%s zoo mlp layers=4 width=256 -o %s", dippm, path);
    assert_int_equal(run(cmd, &out), 0);
    free(out);
    assert_int_equal(run(cmd, &out), 9);
    assert_non_null(strstr(out, "already exists"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s zoo mlp layers=4 width=256 -o %s --force", dippm, path);
    assert_int_equal(run(cmd, &out), 0);
    free(out);
    struct diag d = {0};
    struct graph *back = model_load(path, &d);
    if (!back)
        fail_msg("%s: %s", path, d.msg);
    struct graph *g = build("mlp:layers=4:width=256");
    assert_int_equal(back->n_nodes, g->n_nodes);
    assert_true(count_params(back) == count_params(g));
    assert_true(count_params(g) == 784.0 * 256 + 256 + 3 * (256.0 * 256 + 256) + 256 * 10 + 10);
    graph_free(g);
    graph_free(back);
    remove(path);

    /* the same seed gives the same samples */
    char *again;
    snprintf(cmd, sizeof cmd, "%s zoo sample all --seed 5 --count 2", dippm);
    assert_int_equal(run(cmd, &out), 0);
    assert_int_equal(run(cmd, &again), 0);
    assert_string_equal(out, again);
    assert_true(strlen(out) > 200);
    free(out);
    free(again);

    snprintf(cmd, sizeof cmd, "%s zoo gpt phase=decode --batch 2 --json", dippm);
    assert_int_equal(run(cmd, &out), 0);
    assert_non_null(strstr(out, "\"params\": 124439808"));
    assert_non_null(strstr(out, "\"batch\": 2"));
    assert_non_null(strstr(out, "\"family\": \"gpt\""));
    free(out);

    /* a template spec is a MODEL for every command */
    snprintf(cmd, sizeof cmd, "%s info zoo:densenet:preset=densenet169", dippm);
    assert_int_equal(run(cmd, &out), 0);
    assert_non_null(strstr(out, "densenet169"));
    free(out);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corners),     cmocka_unit_test(test_errors),
        cmocka_unit_test(test_presets),     cmocka_unit_test(test_sampler),
        cmocka_unit_test(test_symbols),     cmocka_unit_test(test_fixed_sizes),
        cmocka_unit_test(test_json_roundtrip), cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
