/*
 * kbench.c - measured single kernels: the reader, the predictions of the
 * teacher and the GNN, and MAPE with a bootstrap interval (kbench.h).
 */
#include "lab/kbench.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/dataset.h"
#include "core/gpu.h"
#include "core/predict.h"
#include "core/sim_impl.h"
#include "graph/zoo/zoo.h"
#include "util/fileio.h"
#include "util/stats.h"
#include "util/xalloc.h"

#define KBENCH_MAX_BYTES ((size_t)256 << 20)
#define KBENCH_MAX_DIM ((int64_t)1 << 24)

const char *kbench_group_name(enum kbench_group g)
{
    static const char *const names[] = {
#define X(id, name, desc) name,
        KBENCH_GROUP_LIST(X)
#undef X
    };
    return (unsigned)g < KG__COUNT ? names[g] : "?";
}

static const struct {
    const char *op;
    enum kbench_group group;
} kbench_ops[] = {
    {"matmul", KG_MATMUL},      {"linear", KG_LINEAR},         {"add", KG_ELEMENTWISE},
    {"add_scalar", KG_ELEMENTWISE}, {"mul", KG_ELEMENTWISE},   {"mul_scalar", KG_ELEMENTWISE},
    {"div", KG_ELEMENTWISE},    {"div_scalar", KG_ELEMENTWISE}, {"pow", KG_ELEMENTWISE},
    {"pow_scalar", KG_ELEMENTWISE}, {"gelu", KG_ELEMENTWISE},  {"relu", KG_ELEMENTWISE},
    {"tanh", KG_ELEMENTWISE},   {"layernorm", KG_LAYERNORM},   {"softmax", KG_SOFTMAX},
};

static int op_find(const char *op)
{
    if (!strcmp(op, "bmm")) /* PyTorch's name for a batched matmul */
        op = "matmul";
    for (size_t i = 0; i < sizeof kbench_ops / sizeof kbench_ops[0]; i++)
        if (!strcmp(kbench_ops[i].op, op))
            return (int)i;
    return -1;
}

/* Operators the measured files hold that zoo:kernel does not build: their
 * rows are counted, not loaded. */
static bool op_unmodelled(const char *op)
{
    return !strcmp(op, "conv");
}

static bool parse_dim(const char *s, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s || *end || x < 1 || x > KBENCH_MAX_DIM)
        return false;
    *v = x;
    return true;
}

/* Splits line into at most max tab-separated fields (in place). */
static int split_tabs(char *line, char **f, int max)
{
    int n = 0;
    f[n++] = line;
    for (char *p = line; *p && n < max; p++)
        if (*p == '\t') {
            *p = '\0';
            f[n++] = p + 1;
        }
    return n;
}

static enum status parse_row(const char *path, int line, char **f, struct kbench_row *r,
                             struct diag *d)
{
    static const char *const dim_names[4] = {"b", "m", "n", "k"};
    memset(r, 0, sizeof *r);
    r->line = line;
    if (strcmp(f[0], "train") && strcmp(f[0], "test"))
        return diag_set(d, ST_EPARSE, "%s:%d: field 'split': '%s', expected train or test", path,
                        line, f[0]);
    r->test = !strcmp(f[0], "test");
    int oi = op_find(f[2]);
    if (oi < 0)
        return diag_set(d, ST_EPARSE, "%s:%d: field 'op': unknown operator '%s' (expected a "
                        "zoo:kernel op such as matmul, linear, add, layernorm, softmax)",
                        path, line, f[2]);
    snprintf(r->op, sizeof r->op, "%s", kbench_ops[oi].op);
    r->group = kbench_ops[oi].group;
    int64_t *dims[4] = {&r->b, &r->m, &r->n, &r->k};
    for (int i = 0; i < 4; i++)
        if (!parse_dim(f[3 + i], dims[i]))
            return diag_set(d, ST_EPARSE, "%s:%d: field '%s': '%s', expected an integer from 1 "
                            "to %lld", path, line, dim_names[i], f[3 + i],
                            (long long)KBENCH_MAX_DIM);
    char *end;
    r->measured_us = strtod(f[7], &end);
    if (end == f[7] || *end || !(r->measured_us > 0 && r->measured_us < 1e9))
        return diag_set(d, ST_EPARSE, "%s:%d: field 'latency_us': '%s', expected a positive "
                        "number of microseconds", path, line, f[7]);
    return ST_OK;
}

enum status kbench_load(const char *path, struct kbench_set *out, struct diag *d)
{
    memset(out, 0, sizeof *out);
    char *buf;
    size_t len;
    enum status st = file_read_all(path, KBENCH_MAX_BYTES, &buf, &len, d);
    if (st)
        return st;
    int cap = 0, line = 0;
    char *save = NULL;
    for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        line++;
        size_t ll = strlen(l);
        if (ll && l[ll - 1] == '\r')
            l[ll - 1] = '\0';
        if (line == 1 || !*l)
            continue; /* the header */
        char *f[10];
        if (split_tabs(l, f, 10) != 10) {
            st = diag_set(d, ST_EPARSE, "%s:%d: expected at least 10 tab-separated fields "
                          "(split gpu op b m n k latency_us kernel grid)", path, line);
            break;
        }
        int gpu = gpu_find(f[1]);
        if (gpu < 0 || op_unmodelled(f[2])) {
            ++*(gpu < 0 ? &out->n_other_gpu : &out->n_other_op);
            continue;
        }
        if (out->n == cap) {
            cap = cap ? 2 * cap : 1024;
            out->rows = xreallocarray(out->rows, (size_t)cap, sizeof *out->rows);
        }
        if ((st = parse_row(path, line, f, &out->rows[out->n], d)))
            break;
        out->rows[out->n++].gpu = gpu;
    }
    free(buf);
    if (st)
        kbench_fini(out);
    return st;
}

void kbench_fini(struct kbench_set *s)
{
    free(s->rows);
    memset(s, 0, sizeof *s);
}

void kbench_spec(const struct kbench_row *r, char *buf, size_t size)
{
    snprintf(buf, size, "zoo:kernel:op=%s:m=%lld:n=%lld:k=%lld", r->op, (long long)r->m,
             (long long)r->n, (long long)r->k);
}

/* The row's one-kernel graph (NULL with d set) and its configuration: the
 * row's GPU, fp32, eager PyTorch on a host that dispatches an op in
 * dispatch_us, batch b. */
static struct graph *row_graph(const struct kbench_row *r, double dispatch_us,
                               struct config *cfg, struct diag *d)
{
    char spec[160];
    kbench_spec(r, spec, sizeof spec);
    config_default(cfg);
    cfg->gpu = r->gpu;
    cfg->mig = -1;
    cfg->prec = PREC_FP32;
    cfg->rt = RT_PYTORCH;
    cfg->batch = r->b;
    cfg->dispatch_us = dispatch_us;
    return zoo_build_spec(spec, d);
}

/* params on the benchmark's host: its dispatch per eager op. */
static struct sim_params harness_params(const struct sim_params *params, double dispatch_us)
{
    struct sim_params hp = *params;
    hp.dispatch_us[RT_PYTORCH] = dispatch_us;
    return hp;
}

enum status kbench_predict(const struct kbench_set *s, const struct sim_params *params,
                           double dispatch_us, struct predictor *p, double *teacher_us,
                           double *gnn_us, struct diag *d)
{
    struct sim_params hp;
    if (params)
        hp = harness_params(params, dispatch_us);
    for (int i = 0; i < s->n; i++) {
        struct config cfg;
        struct graph *g = row_graph(&s->rows[i], dispatch_us, &cfg, d);
        if (!g)
            return ST_EPARSE;
        struct prediction pr;
        enum status st = predict_run(p, g, &cfg, &pr, d);
        if (!st && params) {
            struct sim_result sr;
            st = sim_run_params(g, &cfg, &hp, &sr, d);
            pr.sim.latency_ms = sr.latency_ms;
            sim_result_fini(&sr);
        }
        double call = sim_call_ms(params, RT_PYTORCH);
        if (!st) {
            teacher_us[i] = (pr.sim.latency_ms - call) * 1e3;
            if (gnn_us)
                gnn_us[i] = (pr.latency_ms - call) * 1e3;
        }
        prediction_fini(&pr);
        graph_free(g);
        if (st)
            return st;
    }
    return ST_OK;
}

int kbench_to_dataset(const struct kbench_set *s, bool test, int exclude_gpu,
                      struct dataset *ds, int *too_big)
{
    int added = 0;
    *too_big = 0;
    for (int i = 0; i < s->n; i++) {
        const struct kbench_row *r = &s->rows[i];
        if (r->test != test || r->gpu == exclude_gpu)
            continue;
        if (r->b > DATASET_MAX_BATCH) {
            ++*too_big;
            continue;
        }
        struct dataset_row dr = {.label = DATASET_MEASURED, .prec = PREC_FP32,
                                 .rt = RT_PYTORCH, .batch = r->b};
        kbench_spec(r, dr.spec, sizeof dr.spec);
        snprintf(dr.family, sizeof dr.family, "kernel:%s", kbench_group_name(r->group));
        snprintf(dr.gpu, sizeof dr.gpu, "%s", gpu_get(r->gpu)->name);
        dr.target[GNN_T_LATENCY] = r->measured_us * 1e-3 + sim_call_ms(NULL, RT_PYTORCH);
        dr.target[GNN_T_ENERGY] = dr.target[GNN_T_MEMORY] = NAN;
        dataset_add(ds, &dr);
        added++;
    }
    return added;
}

static double ape(double pred, double meas)
{
    return fabs(pred - meas) / meas * 100.0;
}

void kbench_mape(const struct kbench_set *s, const double *pred_us, const bool *sel,
                 struct kbench_stat *out)
{
    int n = 0;
    double *e = xmalloc(sizeof(double) * (size_t)(s->n > 0 ? s->n : 1));
    for (int i = 0; i < s->n; i++)
        if (!sel || sel[i])
            e[n++] = ape(pred_us[i], s->rows[i].measured_us);
    out->n = n;
    stats_mean_ci95(e, n, &out->mape, &out->lo, &out->hi);
    free(e);
}

/* ---- fit ------------------------------------------------------------------ */

struct fit_ctx {
    struct sim_prep **prep;
    double *meas_us;
    const struct kbench_row **row; /* the row of each prepared one */
    int n, n_gemm;                 /* GEMM rows (both GEMM groups) first, then the others */
    int n_bmm;                     /* of them in FG_BMM */
    int off[KG__COUNT + 2];        /* rows of fit group k: [off[k], off[k + 1]) */
    int lo, hi;                    /* the rows fit_loss scores */
    struct sim_params *p;          /* its dispatch_us[RT_PYTORCH] is the harness's during the fit */
};

/* The order of the fit's row groups: what each fits (kbench_fit). FG_BMM:
 * batched matmuls on a family whose library runs them on one tile
 * (sim_board.batched_sgemm_tile); FG_GEMM: the other matmul and linear rows;
 * FG_HOST: rows of any op short enough for the host's dispatch to dominate
 * (the other groups take longer ones). */
enum { FG_GEMM, FG_BMM, FG_ELEM, FG_NORM, FG_SOFTMAX, FG_HOST, FG__COUNT };
_Static_assert(FG__COUNT <= KG__COUNT + 1, "fit_ctx.off holds every fit group");

static double fit_pred_us(const struct fit_ctx *c, int i)
{
    struct sim_totals t;
    sim_run_prepared(c->prep[i], c->p, &t);
    return (t.latency_ms - sim_call_ms(c->p, RT_PYTORCH)) * 1e3;
}

/* Mean squared log error over rows lo..hi (the group a constant moves). */
static double fit_loss(const struct fit_ctx *c)
{
    double sum = 0;
    for (int i = c->lo; i < c->hi; i++) {
        double e = log(fit_pred_us(c, i) / c->meas_us[i]);
        sum += e * e;
    }
    return sum / (c->hi > c->lo ? c->hi - c->lo : 1);
}

/* Golden-section search of *v in [lo, hi] (the loss is unimodal enough in
 * one constant at a time). */
static void fit_one(struct fit_ctx *c, double *v, double lo, double hi)
{
    const double g = 0.6180339887498949;
    double a = lo, b = hi, x1 = b - g * (b - a), x2 = a + g * (b - a);
    *v = x1;
    double f1 = fit_loss(c);
    *v = x2;
    double f2 = fit_loss(c);
    for (int it = 0; it < 40 && b - a > 1e-4 * (hi - lo); it++) {
        if (f1 < f2) {
            b = x2, x2 = x1, f2 = f1, x1 = b - g * (b - a);
            *v = x1;
            f1 = fit_loss(c);
        } else {
            a = x1, x1 = x2, f1 = f2, x2 = a + g * (b - a);
            *v = x2;
            f2 = fit_loss(c);
        }
    }
    *v = f1 < f2 ? x1 : x2;
}

static enum status fit_add(struct fit_ctx *c, const struct kbench_row *r, struct diag *d)
{
    struct config cfg;
    struct graph *g = row_graph(r, c->p->dispatch_us[RT_PYTORCH], &cfg, d);
    if (!g)
        return ST_EPARSE;
    struct hw hw;
    enum status st = predict_prepare(g, &cfg, &hw, d);
    if (!st)
        st = sim_prepare(g, &cfg, &c->prep[c->n], d);
    graph_free(g);
    if (!st) {
        c->meas_us[c->n] = r->measured_us;
        c->row[c->n++] = r;
    }
    return st;
}

/* The fit group of a row (FG__COUNT: none) and the least time it needs. */
static int fit_group(const struct kbench_row *r, double *min_us)
{
    *min_us = KBENCH_FIT_BW_MIN_US;
    if (r->measured_us < KBENCH_FIT_HOST_MAX_US) {
        *min_us = 0;
        return FG_HOST;
    }
    switch (r->group) {
    case KG_MATMUL: case KG_LINEAR: {
        struct hw hw = {.gpu = gpu_get(r->gpu)};
        *min_us = KBENCH_FIT_MIN_US;
        return r->group == KG_MATMUL && r->b > 1 && sim_board_of(&hw)->batched_sgemm_tile >= 0
                   ? FG_BMM : FG_GEMM;
    }
    case KG_ELEMENTWISE: return FG_ELEM;
    case KG_LAYERNORM: return FG_NORM;
    case KG_SOFTMAX: return FG_SOFTMAX;
    default: return FG__COUNT;
    }
}

/* The train-split rows the fit uses, group by group: matmul and linear ones
 * of at least KBENCH_FIT_MIN_US (n_gemm), then element-wise, layer norm
 * and softmax ones of at least KBENCH_FIT_BW_MIN_US. */
static enum status fit_prepare(const struct kbench_set *s, struct fit_ctx *c, struct diag *d)
{
    c->prep = xcalloc((size_t)s->n + 1, sizeof *c->prep);
    c->meas_us = xcalloc((size_t)s->n + 1, sizeof *c->meas_us);
    c->row = xcalloc((size_t)s->n + 1, sizeof *c->row);
    enum status st = ST_OK;
    for (int fg = 0; fg < FG__COUNT && !st; fg++) {
        c->off[fg] = c->n;
        for (int i = 0; i < s->n && !st; i++) {
            double min_us;
            if (!s->rows[i].test && fit_group(&s->rows[i], &min_us) == fg &&
                s->rows[i].measured_us >= min_us)
                st = fit_add(c, &s->rows[i], d);
        }
    }
    c->off[FG__COUNT] = c->n;
    c->n_gemm = c->off[FG_ELEM];
    c->n_bmm = c->off[FG_ELEM] - c->off[FG_BMM];
    return st;
}

/* The first GPU of the table in gi's family. */
static int family_head(int gi)
{
    for (int j = 0; j < gi; j++)
        if (!strcmp(gpu_get(j)->family, gpu_get(gi)->family))
            return j;
    return gi;
}

/* Each family's constants (kbench.h), in its first GPU's entry. */
static void fit_boards(const struct fit_ctx *c, struct kbench_board_fit *out)
{
    int ng = gpu_count();
    for (int gi = 0; gi < ng; gi++)
        out[gi] = (struct kbench_board_fit){.gpu = gi};
    double *sum = xcalloc((size_t)ng * 2, sizeof *sum);
    for (int i = 0; i < c->off[FG_NORM]; i++) { /* GEMM and element-wise rows */
        if (i >= c->off[FG_BMM] && i < c->off[FG_ELEM])
            continue; /* batched_sgemm_eff's */
        int gi = family_head(c->row[i]->gpu), k = i < c->n_gemm ? 0 : 1;
        sum[gi * 2 + k] += log(fit_pred_us(c, i) / c->meas_us[i]);
        ++*(k == 0 ? &out[gi].n_gemm : &out[gi].n_elem);
    }
    for (int gi = 0; gi < ng; gi++) {
        struct hw hw = {.gpu = gpu_get(gi)};
        const struct sim_board *b = sim_board_of(&hw);
        out[gi].fp32_keep = b->fp32_keep * (out[gi].n_gemm ? exp(sum[gi * 2] / out[gi].n_gemm) : 1);
        out[gi].bw_keep = b->bw_keep * (out[gi].n_elem ? exp(sum[gi * 2 + 1] / out[gi].n_elem) : 1);
        /* a share past the DRAM peak cannot be seen (sim_kernel.c caps the
         * kernel there): fitting on would only drift */
        if (out[gi].bw_keep * c->p->bw_eff > 1)
            out[gi].bw_keep = 1 / c->p->bw_eff;
    }
    free(sum);
}

/* cuda_eff and the families' fp32_keep only fit as products (every GEMM
 * row belongs to a family): cuda_eff is made their geometric mean, each
 * keep its family's deviation from it, so that a GPU without rows (H100, L4)
 * takes the fitted families' mean and repeated fits do not drift. */
static void norm_boards(struct kbench_board_fit *b, double *cuda_eff)
{
    double sum = 0;
    int n = 0;
    for (int gi = 0; gi < gpu_count(); gi++)
        if (b[gi].n_gemm) {
            sum += log(b[gi].fp32_keep);
            n++;
        }
    if (!n)
        return;
    double g = exp(sum / n);
    *cuda_eff *= g;
    for (int gi = 0; gi < gpu_count(); gi++)
        if (b[gi].n_gemm)
            b[gi].fp32_keep /= g;
}

enum status kbench_fit(const struct kbench_set *s, struct sim_params *params,
                       double *dispatch_us, int *n_fit, struct kbench_board_fit *boards,
                       struct diag *d)
{
    /* the fit runs on the benchmark's host; the calibrated dispatch comes
     * back at the end */
    double calibrated = params->dispatch_us[RT_PYTORCH];
    params->dispatch_us[RT_PYTORCH] = KBENCH_DISPATCH_US;
    struct fit_ctx c = {.p = params};
    enum status st = fit_prepare(s, &c, d);
    if (!st && c.n_gemm == 0)
        st = diag_set(d, ST_EPARSE, "no train-split matmul or linear row of at least %.0f us to "
                      "fit the FP32 matrix-product constants to", KBENCH_FIT_MIN_US);
    /* the host first: the shortest rows are its time with little else */
    c.lo = c.off[FG_HOST];
    c.hi = c.off[FG_HOST + 1];
    if (!st && c.hi > c.lo)
        fit_one(&c, &params->dispatch_us[RT_PYTORCH], 1.0, 80.0);
    *dispatch_us = params->dispatch_us[RT_PYTORCH];
    /* the two constants trade off (both lower a small-K GEMM's speed):
     * alternate until the loss stops moving */
    double prev = INFINITY;
    c.lo = c.off[FG_GEMM];
    c.hi = c.off[FG_BMM];
    for (int round = 0; !st && round < 30; round++) {
        fit_one(&c, &params->cuda_eff, 0.3, 1.0);
        fit_one(&c, &params->simt_k_half, 0.0, 256.0);
        double now = fit_loss(&c);
        if (prev - now < 1e-12)
            break;
        prev = now;
    }
    /* the one-tile batched SGEMMs, norms and softmax: one share each, on
     * their own rows */
    static const int groups[3] = {FG_BMM, FG_NORM, FG_SOFTMAX};
    double *effs[3] = {&params->batched_sgemm_eff, &params->norm_bw_eff,
                       &params->softmax_thread_bpc};
    for (int k = 0; k < 3 && !st; k++) {
        c.lo = c.off[groups[k]];
        c.hi = c.off[groups[k] + 1];
        if (c.hi > c.lo)
            {
            static const double lo[3] = {0.2, 0.2, 0.0002}, hi[3] = {1.5, 1.0, 0.01};
            fit_one(&c, effs[k], lo[k], hi[k]);
        }
        /* the norms' rows cross the caches' edge (their lengths run to
         * 4096): the share of the caches their re-reads find and how sharp
         * the edge is, with their bandwidth; no softmax row reaches it */
        for (int round = 0; groups[k] == FG_NORM && c.hi > c.lo && round < 6; round++) {
            fit_one(&c, &params->row_cache, 0.05, 1.0);
            fit_one(&c, &params->row_cache_soft, 0.1, 4.0);
            fit_one(&c, effs[k], 0.2, 1.0);
        }
    }
    if (!st && boards) {
        fit_boards(&c, boards);
        norm_boards(boards, &params->cuda_eff);
    }
    *n_fit = c.n_gemm;
    for (int i = 0; i < c.n; i++)
        sim_prep_free(c.prep[i]);
    free(c.prep);
    free(c.meas_us);
    free(c.row);
    params->dispatch_us[RT_PYTORCH] = calibrated;
    return st;
}
