/* dataset_gen.c - sampling graphs and configurations, labelled by the teacher. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab/dataset.h"
#include "core/gpu.h"
#include "graph/load.h"
#include "graph/ops/shape.h"
#include "core/sim.h"
#include "util/xalloc.h"
#include "graph/zoo/zoo.h"

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double unit(uint64_t *s)
{
    *s = mix64(*s);
    return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static int pick(uint64_t *s, int n)
{
    int v = (int)(unit(s) * n);
    return v < n ? v : n - 1;
}

static bool in_list(const char *list, const char *name)
{
    if (!list)
        return true;
    size_t l = strlen(name);
    for (const char *p = list; *p;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        if (n == l && strncmp(p, name, l) == 0)
            return true;
        if (!c)
            break;
        p = c + 1;
    }
    return false;
}

struct sources {
    int n_fam;
    int fam[64];
    int n_files;
    char **files;
    char (*file_family)[DATASET_NAME_MAX];
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static enum status sources_build(const struct dataset_gen_opts *o, struct sources *s,
                                 struct diag *d)
{
    memset(s, 0, sizeof *s);
    for (int f = 0; f < zoo_family_count() && s->n_fam < 64; f++)
        if (in_list(o->families, zoo_family_name(f)))
            s->fam[s->n_fam++] = f;
    if (o->families) { /* every listed name must be known */
        for (const char *p = o->families; *p;) {
            const char *c = strchr(p, ',');
            char nm[DATASET_NAME_MAX];
            snprintf(nm, sizeof nm, "%.*s", (int)(c ? (size_t)(c - p) : strlen(p)), p);
            if (zoo_family_find(nm) < 0 && strcmp(nm, "samples") != 0) {
                char buf[512];
                return diag_set(d, ST_EUSAGE, "--families: unknown family '%s' (known: %s, samples)",
                                nm, zoo_family_list(buf, sizeof buf));
            }
            if (!c)
                break;
            p = c + 1;
        }
    }
    if (o->samples_dir) {
        DIR *dir = opendir(o->samples_dir);
        if (!dir)
            return diag_set(d, ST_EIO, "%s: cannot open the samples directory", o->samples_dir);
        struct dirent *e;
        int cap = 0;
        while ((e = readdir(dir))) {
            size_t l = strlen(e->d_name);
            if (l < 6 || strcmp(e->d_name + l - 5, ".onnx") != 0)
                continue;
            char fam[DATASET_NAME_MAX];
            dataset_file_family(e->d_name, fam, sizeof fam);
            if (o->families && !in_list(o->families, fam) && !in_list(o->families, "samples"))
                continue;
            if (s->n_files == cap) {
                cap = cap ? cap * 2 : 16;
                s->files = xreallocarray(s->files, (size_t)cap, sizeof *s->files);
            }
            size_t pl = strlen(o->samples_dir) + l + 2;
            s->files[s->n_files] = xmalloc(pl);
            snprintf(s->files[s->n_files], pl, "%s/%s", o->samples_dir, e->d_name);
            s->n_files++;
        }
        closedir(dir);
        if (s->n_files)
            qsort(s->files, (size_t)s->n_files, sizeof *s->files, cmp_str);
        s->file_family = xcalloc((size_t)(s->n_files ? s->n_files : 1), DATASET_NAME_MAX);
        for (int i = 0; i < s->n_files; i++)
            dataset_file_family(s->files[i], s->file_family[i], DATASET_NAME_MAX);
    }
    if (s->n_fam == 0 && s->n_files == 0)
        return diag_set(d, ST_EUSAGE, "no model source selected (families '%s')",
                        o->families ? o->families : "");
    return ST_OK;
}

static void sources_fini(struct sources *s)
{
    for (int i = 0; i < s->n_files; i++)
        free(s->files[i]);
    free(s->files);
    free(s->file_family);
}

/* Labels g (already built) under cfg into r; false (and a reason in d) if
 * the configuration is not valid for the model. */
static bool label_row(struct graph *g, const struct config *cfg, struct dataset_row *r,
                      struct diag *d)
{
    int bs = graph_batch_sym(g);
    if (bs >= 0 && graph_sym_set(g, g->syms[bs].name, cfg->batch, d))
        return false;
    if (graph_infer(g, d))
        return false;
    struct sim_result sr;
    if (sim_run(g, cfg, &sr, d)) {
        sim_result_fini(&sr);
        return false;
    }
    r->target[GNN_T_LATENCY] = sr.latency_ms;
    r->target[GNN_T_ENERGY] = sr.energy_j;
    r->target[GNN_T_MEMORY] = sr.memory_mib;
    double tot = 0;
    for (int i = 0; i < sr.n_nodes; i++)
        tot += sr.nodes[i].time_s;
    r->n_shares = 0;
    if (tot > 0 && sr.n_nodes == g->n_nodes) {
        r->n_shares = sr.n_nodes;
        r->shares = xmalloc(sizeof(float) * (size_t)sr.n_nodes);
        for (int i = 0; i < sr.n_nodes; i++)
            r->shares[i] = (float)(sr.nodes[i].time_s / tot);
    }
    bool ok = sr.latency_ms > 0 && sr.energy_j > 0 && sr.memory_mib > 0;
    if (!ok) {
        diag_set(d, ST_ERANGE, "teacher returned a non-positive target");
        free(r->shares);
        r->shares = NULL;
        r->n_shares = 0;
    }
    sim_result_fini(&sr);
    return ok;
}

enum status dataset_generate(const struct dataset_gen_opts *o, FILE *f, long *written,
                             struct diag *d)
{
    struct sources src;
    *written = 0;
    enum status st = sources_build(o, &src, d);
    if (st) {
        sources_fini(&src);
        return st;
    }
    int k = o->configs_per_graph > 0 ? o->configs_per_graph : 4;
    int n_shards = o->n_shards > 0 ? o->n_shards : 1;
    long draws = (o->n + k - 1) / k, skipped = 0;
    int n_src = src.n_fam + (src.n_files ? 1 : 0);
    for (long j = 0; j < draws && !st; j++) {
        if (j % n_shards != o->shard)
            continue;
        /* Each draw has its own stream: shards reproduce the unsharded rows. */
        uint64_t rng = mix64(o->seed * 0x100000001b3ull ^ mix64((uint64_t)j + 1));
        int si = pick(&rng, n_src);
        struct dataset_row r;
        memset(&r, 0, sizeof r);
        struct diag gd = {0};
        struct graph *g = NULL;
        if (si < src.n_fam) {
            uint64_t zs = rng | 1;
            char sp[DATASET_SPEC_MAX - 8];
            if (zoo_sample_spec(src.fam[si], &zs, sp, sizeof sp, &gd) == ST_OK) {
                snprintf(r.spec, sizeof r.spec, "%s%s", strncmp(sp, "zoo:", 4) ? "zoo:" : "",
                         sp);
                g = zoo_build_spec(r.spec, &gd);
            }
            snprintf(r.family, sizeof r.family, "%s", zoo_family_name(src.fam[si]));
        } else {
            int fi = pick(&rng, src.n_files);
            snprintf(r.spec, sizeof r.spec, "%s", src.files[fi]);
            snprintf(r.family, sizeof r.family, "%s", src.file_family[fi]);
            g = model_load(r.spec, &gd);
        }
        if (!g) {
            diag_set(d, gd.code ? gd.code : ST_EINTERNAL, "draw %ld (%s): %s", j, r.spec, gd.msg);
            st = d ? d->code : ST_EINTERNAL;
            break;
        }
        long rows = o->n - j * k < k ? o->n - j * k : k;
        for (long c = 0; c < rows; c++) {
            struct config cfg;
            config_default(&cfg);
            cfg.gpu = pick(&rng, gpu_count());
            const struct gpu_spec *gs = gpu_get(cfg.gpu);
            cfg.mig = gs->n_mig > 0 && unit(&rng) < 0.35 ? pick(&rng, gs->n_mig) : -1;
            do { /* a combination the runtime can run on this GPU */
                cfg.prec = (enum precision)pick(&rng, PREC__COUNT);
                cfg.rt = (enum runtime)pick(&rng, RT__FEATURED); /* the GNN's runtimes */
            } while (config_supported(&cfg, NULL) != ST_OK);
            cfg.batch = graph_batch_sym(g) >= 0 ? (int64_t)floor(pow(2.0, unit(&rng) * 10.0) + 0.5)
                                                : 1;
            snprintf(r.gpu, sizeof r.gpu, "%s", gs->name);
            snprintf(r.mig, sizeof r.mig, "%s", cfg.mig >= 0 ? gs->mig[cfg.mig].name : "");
            r.prec = cfg.prec;
            r.rt = cfg.rt;
            r.batch = cfg.batch;
            r.label = DATASET_TEACHER;
            r.shares = NULL;
            struct diag ld = {0};
            if (!label_row(g, &cfg, &r, &ld)) {
                skipped++;
                continue;
            }
            st = dataset_write_row(f, &r, o->jsonl, d);
            free(r.shares);
            r.shares = NULL;
            if (st)
                break;
            (*written)++;
            if (o->progress && *written % 500 == 0)
                fprintf(stderr, "dippm dataset: %ld rows\n", *written);
        }
        graph_free(g);
    }
    if (o->progress && skipped)
        fprintf(stderr, "dippm dataset: %ld configurations skipped (shape inference or teacher "
                        "rejected them)\n", skipped);
    sources_fini(&src);
    return st;
}
