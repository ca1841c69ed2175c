/* config.c - names of precisions, runtimes and quantisation schemes,
 * defaults. */
#include "core/config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>


static const struct {
    const char *name;
    int bytes;
} precs[] = {
#define X(id, name, bytes) {name, bytes},
    PRECISION_LIST(X)
#undef X
};
_Static_assert(sizeof precs / sizeof precs[0] == PREC__COUNT, "precision table");

/* A compute mode over another precision's storage, not a type tensors are
 * stored in (a KV cache's precision is one that is). */
static const bool prec_compute_only[PREC__COUNT] = {[PREC_TF32] = true};

/* The other names precision_parse takes, space-separated. */
static const char *const prec_aliases[PREC__COUNT] = {
    [PREC_FP32] = "float32 float", [PREC_FP16] = "float16 half", [PREC_BF16] = "bfloat16"};

static const char *const runtimes[] = {
#define X(id, name) name,
    RUNTIME_LIST(X)
#undef X
};
_Static_assert(sizeof runtimes / sizeof runtimes[0] == RT__COUNT, "runtime table");

/* The order lists show runtimes in, as a user meets them: eager, eager with
 * fused attention, torch.compile and its CUDA graphs, ONNX Runtime and its
 * CUDA graphs, the engine, the engine as a CUDA graph, the serving engine.
 * Every runtime once (tests/test_config.c). */
static const enum runtime rt_order[] = {
    RT_PYTORCH,          RT_PYTORCH_SDPA, RT_INDUCTOR,       RT_INDUCTOR_GRAPH, RT_ONNXRUNTIME,
    RT_ONNXRUNTIME_GRAPH, RT_TENSORRT,    RT_TENSORRT_GRAPH, RT_VLLM};
_Static_assert(sizeof rt_order / sizeof rt_order[0] == RT__COUNT, "runtime list order");

/* The other names runtime_parse takes, space-separated. */
static const char *const rt_aliases[RT__COUNT] = {
    [RT_PYTORCH] = "eager torch", [RT_PYTORCH_SDPA] = "sdpa pytorch2", [RT_TENSORRT] = "trt",
    [RT_TENSORRT_GRAPH] = "trt-graph tensorrt-cudagraph",
    [RT_INDUCTOR] = "torch-compile compile",
    [RT_INDUCTOR_GRAPH] = "reduce-overhead inductor-cudagraph torch-compile-graph",
    [RT_ONNXRUNTIME] = "ort onnxruntime-cuda ort-cuda",
    [RT_ONNXRUNTIME_GRAPH] = "ort-graph onnxruntime-cudagraph ort-cudagraph"};

/* The lists for messages, made once from the tables. */
static char prec_list[128], prec_storage_list[128], rt_list[192];
static pthread_once_t lists_once = PTHREAD_ONCE_INIT;

/* Appends name as item i of n: "a", ", b", " or c". */
static void list_add(char *buf, size_t size, const char *name, int i, int n)
{
    size_t len = strlen(buf);
    snprintf(buf + len, size - len, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", name);
}

static void lists_make(void)
{
    int n_storage = 0;
    for (int p = 0; p < PREC__COUNT; p++)
        n_storage += !prec_compute_only[p];
    for (int p = 0, k = 0; p < PREC__COUNT; p++) {
        list_add(prec_list, sizeof prec_list, precs[p].name, p, PREC__COUNT);
        if (!prec_compute_only[p])
            list_add(prec_storage_list, sizeof prec_storage_list, precs[p].name, k++, n_storage);
    }
    for (int i = 0; i < RT__COUNT; i++)
        list_add(rt_list, sizeof rt_list, runtimes[rt_order[i]], i, RT__COUNT);
}

/* Whether s is one of the space-separated names in aliases (any case). */
static bool alias_of(const char *s, const char *aliases)
{
    size_t n = strlen(s);
    for (const char *a = aliases ? aliases : ""; *a;) {
        size_t len = strcspn(a, " ");
        if (len == n && strncasecmp(a, s, n) == 0)
            return true;
        a += len;
        a += *a == ' ';
    }
    return false;
}

const char *precision_name(enum precision p)
{
    return (unsigned)p < PREC__COUNT ? precs[p].name : "?";
}

int precision_bytes(enum precision p)
{
    return (unsigned)p < PREC__COUNT ? precs[p].bytes : 4;
}

bool precision_storage(enum precision p)
{
    return (unsigned)p < PREC__COUNT && !prec_compute_only[p];
}

bool precision_parse(const char *s, enum precision *out)
{
    for (int i = 0; i < PREC__COUNT; i++)
        if (strcasecmp(s, precs[i].name) == 0) {
            *out = (enum precision)i;
            return true;
        }
    for (int i = 0; i < PREC__COUNT; i++)
        if (alias_of(s, prec_aliases[i])) {
            *out = (enum precision)i;
            return true;
        }
    return false;
}

const char *precision_names(void)
{
    pthread_once(&lists_once, lists_make);
    return prec_list;
}

const char *precision_storage_names(void)
{
    pthread_once(&lists_once, lists_make);
    return prec_storage_list;
}

const char *runtime_name(enum runtime r)
{
    return (unsigned)r < RT__COUNT ? runtimes[r] : "?";
}

bool runtime_parse(const char *s, enum runtime *out)
{
    for (int i = 0; i < RT__COUNT; i++)
        if (strcasecmp(s, runtimes[i]) == 0) {
            *out = (enum runtime)i;
            return true;
        }
    for (int i = 0; i < RT__COUNT; i++)
        if (alias_of(s, rt_aliases[i])) {
            *out = (enum runtime)i;
            return true;
        }
    return false;
}

const char *runtime_names(void)
{
    pthread_once(&lists_once, lists_make);
    return rt_list;
}

static const struct {
    const char *name;
    int bits, scale_bytes;
    enum precision act;
    int opts;
} quants[] = {
#define X(id, name, bits, scale_bytes, act, opts) {name, bits, scale_bytes, act, opts},
    QUANT_LIST(X)
#undef X
};
_Static_assert(sizeof quants / sizeof quants[0] == QUANT__COUNT, "quantisation table");

/* The default options of each scheme: GPTQ's and AWQ's group of 128 for
 * int4 (their checkpoints' usual q_group_size), one scale per output
 * channel for int8 weight-only (TensorRT-LLM's int8 weight-only), static
 * activation scales for W8A8 (SmoothQuant as TensorRT-LLM builds it) and
 * per-tensor scales for FP8 (TensorRT-LLM's and ModelOpt's FP8). */
static const struct quant quant_defaults[QUANT__COUNT] = {
    [QUANT_W4A16] = {QUANT_W4A16, 128, false, false},
    [QUANT_W8A16] = {QUANT_W8A16, 0, false, false},
    [QUANT_W8A8] = {QUANT_W8A8, 0, false, false},
    [QUANT_FP8] = {QUANT_FP8, 0, false, true},
};

/* The largest group size :gN takes (a group never spans more than K). */
#define QUANT_GROUP_MAX 65536

const char *quant_name(enum quant_scheme q)
{
    return (unsigned)q < QUANT__COUNT ? quants[q].name : "?";
}

int quant_bits(enum quant_scheme q)
{
    return (unsigned)q < QUANT__COUNT ? quants[q].bits : 0;
}

int quant_scale_bytes(enum quant_scheme q)
{
    return (unsigned)q < QUANT__COUNT ? quants[q].scale_bytes : 0;
}

enum precision quant_act_precision(enum quant_scheme q)
{
    return (unsigned)q < QUANT__COUNT ? quants[q].act : PREC_FP32;
}

bool quant_weight_only(enum quant_scheme q)
{
    return q != QUANT_NONE && (unsigned)q < QUANT__COUNT && precision_bytes(quants[q].act) == 2;
}

bool quant_precision_ok(enum quant_scheme q, enum precision p)
{
    return q == QUANT_NONE || p == quant_act_precision(q) ||
           (quant_weight_only(q) && p == PREC_BF16);
}

bool config_set_quant(struct config *c, const struct quant *q)
{
    c->quant = *q;
    if (quant_precision_ok(q->scheme, c->prec))
        return false;
    c->prec = quant_act_precision(q->scheme);
    return true;
}

/* The options of a scheme, as its forms list them. */
static const char *quant_opt_form(int opts)
{
    if (opts & QUANT_OPT_GROUP)
        return "[:gN|:row]";
    if (opts & QUANT_OPT_ACT)
        return "[:static|:dynamic]";
    return opts & QUANT_OPT_ROW ? "[:tensor|:row]" : "";
}

static char quant_list[256];
static pthread_once_t quant_once = PTHREAD_ONCE_INIT;

static void quant_list_make(void)
{
    for (int q = 0; q < QUANT__COUNT; q++) {
        char item[64];
        snprintf(item, sizeof item, "%s%s", quants[q].name, quant_opt_form(quants[q].opts));
        list_add(quant_list, sizeof quant_list, item, q, QUANT__COUNT);
    }
}

const char *quant_forms(void)
{
    pthread_once(&quant_once, quant_list_make);
    return quant_list;
}

/* Applies one option word (after a colon) of scheme q to out: false if q
 * does not take it. */
static bool quant_option(const char *w, size_t len, int opts, struct quant *out)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, w, len);
    buf[len] = '\0';
    if ((opts & QUANT_OPT_GROUP) && (buf[0] == 'g' || buf[0] == 'G') && buf[1]) {
        char *end;
        errno = 0;
        long g = strtol(buf + 1, &end, 10);
        if (errno || *end || g < 8 || g > QUANT_GROUP_MAX || (g & (g - 1)))
            return false;
        out->group = (int)g;
        return true;
    }
    if ((opts & (QUANT_OPT_GROUP | QUANT_OPT_ROW)) && !strcasecmp(buf, "row")) {
        out->group = 0;
        out->per_tensor = false;
        out->dynamic = (opts & QUANT_OPT_ROW) != 0; /* fp8:row: per-token activations */
        return true;
    }
    if ((opts & QUANT_OPT_ROW) && !strcasecmp(buf, "tensor")) {
        out->per_tensor = true;
        out->dynamic = false;
        return true;
    }
    if ((opts & QUANT_OPT_ACT) && (!strcasecmp(buf, "static") || !strcasecmp(buf, "dynamic"))) {
        out->dynamic = !strcasecmp(buf, "dynamic");
        return true;
    }
    return false;
}

/* The error for option word w (n characters) that scheme q does not take. */
static enum status quant_option_error(const char *s, int q, const char *w, size_t n,
                                      struct diag *d)
{
    int opts = quants[q].opts;
    char group[80] = "";
    if (opts & QUANT_OPT_GROUP)
        snprintf(group, sizeof group, " (gN: a power of two from 8 to %d weights per scale)",
                 QUANT_GROUP_MAX);
    return diag_set(d, ST_EUSAGE, "--quant '%s': %s takes %s, not '%.*s'%s; expected %s", s,
                    quants[q].name, opts ? quant_opt_form(opts) : "no option", (int)n, w, group,
                    quant_forms());
}

enum status quant_parse(const char *s, struct quant *out, struct diag *d)
{
    size_t len = strcspn(s, ":");
    int q = 0;
    while (q < QUANT__COUNT &&
           !(strlen(quants[q].name) == len && !strncasecmp(s, quants[q].name, len)))
        q++;
    if (q == QUANT__COUNT)
        return diag_set(d, ST_EUSAGE, "--quant '%s': unknown scheme '%.*s'; expected %s", s,
                        (int)len, s, quant_forms());
    *out = quant_defaults[q];
    out->scheme = (enum quant_scheme)q;
    for (const char *w = s + len; *w == ':';) {
        w++;
        size_t n = strcspn(w, ":");
        if (!quant_option(w, n, quants[q].opts, out))
            return quant_option_error(s, q, w, n, d);
        w += n;
    }
    return ST_OK;
}

bool quant_equal(const struct quant *x, const struct quant *y)
{
    return x->scheme == y->scheme && x->group == y->group && x->dynamic == y->dynamic &&
           x->per_tensor == y->per_tensor;
}

void quant_format(const struct quant *q, char *buf, size_t size)
{
    const char *name = quant_name(q->scheme);
    int opts = (unsigned)q->scheme < QUANT__COUNT ? quants[q->scheme].opts : 0;
    if (opts & QUANT_OPT_GROUP) {
        if (q->group > 0)
            snprintf(buf, size, "%s:g%d", name, q->group);
        else
            snprintf(buf, size, "%s:row", name);
    } else if (opts & QUANT_OPT_ACT) {
        snprintf(buf, size, "%s:%s", name, q->dynamic ? "dynamic" : "static");
    } else if (opts & QUANT_OPT_ROW) {
        snprintf(buf, size, "%s:%s", name, q->per_tensor ? "tensor" : "row");
    } else {
        snprintf(buf, size, "%s", name);
    }
}

const char *config_prec_label(const struct config *cfg, char *buf, size_t size)
{
    if (cfg->quant.scheme == QUANT_NONE) {
        snprintf(buf, size, "%s", precision_name(cfg->prec));
        return buf;
    }
    char q[64];
    quant_format(&cfg->quant, q, sizeof q);
    snprintf(buf, size, "%s, %s weights", precision_name(cfg->prec), q);
    return buf;
}

void config_default(struct config *c)
{
    *c = (struct config){.gpu = CONFIG_DEFAULT_GPU, .mig = -1, .prec = PREC_FP32,
                         .rt = RT_PYTORCH, .batch = 1};
}
