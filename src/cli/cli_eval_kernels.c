/* cli_eval_kernels.c - `dippm eval --kernels FILE`: how well the teacher
 * and the GNN predict measured single kernels (lab/kbench.h), per operator
 * group and GPU, as a markdown table or JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_eval_kernels.h"
#include "core/gpu.h"
#include "lab/kbench.h"
#include "core/predict.h"
#include "lab/sim_fitted_write.h"
#include "util/fileio.h"
#include "util/jsonw.h"
#include "util/xalloc.h"

/* One line of the report: the rows of a group (or every group, -1) on a
 * GPU (or every GPU, -1) in a split. */
struct kline {
    int group, gpu;
    bool test_only;
    struct kbench_stat teacher, gnn;
};

static void select_rows(const struct kbench_set *s, const struct kline *l, bool *sel)
{
    for (int i = 0; i < s->n; i++) {
        const struct kbench_row *r = &s->rows[i];
        sel[i] = (l->group < 0 || (int)r->group == l->group) && (l->gpu < 0 || r->gpu == l->gpu) &&
                 (!l->test_only || r->test);
    }
}

/* Every (group, GPU) pair with rows, then each group over every GPU, then
 * every row; in the test split and over all rows. */
static int build_lines(const struct kbench_set *s, const double *t_us, const double *g_us,
                       struct kline **out)
{
    int cap = 2 * (KG__COUNT + 1) * (gpu_count() + 1), n = 0;
    struct kline *ls = xcalloc((size_t)cap, sizeof *ls);
    bool *sel = xmalloc((size_t)(s->n > 0 ? s->n : 1));
    for (int split = 0; split < 2; split++)
        for (int grp = -1; grp < KG__COUNT; grp++)
            for (int gpu = -1; gpu < gpu_count(); gpu++) {
                struct kline *l = &ls[n];
                *l = (struct kline){.group = grp, .gpu = gpu, .test_only = split == 0};
                select_rows(s, l, sel);
                kbench_mape(s, t_us, sel, &l->teacher);
                if (l->teacher.n == 0)
                    continue;
                if (g_us)
                    kbench_mape(s, g_us, sel, &l->gnn);
                n++;
            }
    free(sel);
    *out = ls;
    return n;
}

static const char *gpu_label(int gpu)
{
    return gpu < 0 ? "all" : gpu_get(gpu)->name;
}

static void render_text(FILE *f, const char *path, const struct kbench_set *s,
                        const struct kline *ls, int n, const char *weights)
{
    fprintf(f, "Measured single kernels: %s (%d rows; not loaded: %d on GPUs the table lacks, "
            "%d convolutions)\n", path, s->n, s->n_other_gpu, s->n_other_op);
    fprintf(f, "Eager PyTorch FP32 (TF32 off), CUDA-event timed; predictions as zoo:kernel at "
            "fp32/pytorch, GPU-timed.\nMAPE %% with a bootstrap 95%% interval over rows.%s%s\n\n",
            weights ? " GNN: " : "", weights ? weights : "");
    fprintf(f, "| split | op group | GPU | rows | teacher MAPE [95%% CI] |%s\n",
            weights ? " GNN MAPE [95% CI] |" : "");
    fprintf(f, "|---|---|---|---|---|%s\n", weights ? "---|" : "");
    for (int i = 0; i < n; i++) {
        const struct kline *l = &ls[i];
        fprintf(f, "| %s | %s | %s | %d | %.1f [%.1f, %.1f] |", l->test_only ? "test" : "all",
                l->group < 0 ? "all" : kbench_group_name((enum kbench_group)l->group),
                gpu_label(l->gpu), l->teacher.n, l->teacher.mape, l->teacher.lo, l->teacher.hi);
        if (weights)
            fprintf(f, " %.1f [%.1f, %.1f] |", l->gnn.mape, l->gnn.lo, l->gnn.hi);
        fputc('\n', f);
    }
}

static void stat_json(struct jsonw *w, const char *key, const struct kbench_stat *st)
{
    jsonw_key(w, key);
    jsonw_obj_begin(w);
    jsonw_key_fixed(w, "mape", st->mape, 2);
    jsonw_key_fixed(w, "ci95_low", st->lo, 2);
    jsonw_key_fixed(w, "ci95_high", st->hi, 2);
    jsonw_obj_end(w);
}

static char *render_json(const char *path, const struct kbench_set *s, const struct kline *ls,
                         int n, const char *weights, size_t *len)
{
    struct jsonw w;
    jsonw_init(&w, true);
    jsonw_obj_begin(&w);
    jsonw_key_str(&w, "kernels", path);
    jsonw_key_int(&w, "rows", s->n);
    jsonw_key_int(&w, "rows_other_gpus", s->n_other_gpu);
    jsonw_key_int(&w, "rows_conv", s->n_other_op);
    if (weights)
        jsonw_key_str(&w, "weights", weights);
    jsonw_key(&w, "lines");
    jsonw_arr_begin(&w, false);
    for (int i = 0; i < n; i++) {
        const struct kline *l = &ls[i];
        jsonw_obj_begin(&w);
        jsonw_key_str(&w, "split", l->test_only ? "test" : "all");
        jsonw_key_str(&w, "group", l->group < 0 ? "all"
                                                : kbench_group_name((enum kbench_group)l->group));
        jsonw_key_str(&w, "gpu", gpu_label(l->gpu));
        jsonw_key_int(&w, "rows", l->teacher.n);
        stat_json(&w, "teacher", &l->teacher);
        if (weights)
            stat_json(&w, "gnn", &l->gnn);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);
    return jsonw_take(&w, len);
}

/* Every row with its predictions, as CSV, written atomically (replacing an
 * existing file only with force). */
static int write_rows(const char *csv, bool force, const struct kbench_set *s,
                      const double *t_us, const double *g_us)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return status_exit_code(ST_ENOMEM);
    fprintf(f, "line,split,gpu,op,b,m,n,k,measured_us,teacher_us,gnn_us\n");
    for (int i = 0; i < s->n; i++) {
        const struct kbench_row *r = &s->rows[i];
        fprintf(f, "%d,%s,%s,%s,%lld,%lld,%lld,%lld,%.6g,%.6g,", r->line,
                r->test ? "test" : "train", gpu_get(r->gpu)->name, r->op, (long long)r->b,
                (long long)r->m, (long long)r->n, (long long)r->k, r->measured_us, t_us[i]);
        if (g_us)
            fprintf(f, "%.6g", g_us[i]);
        fputc('\n', f);
    }
    fclose(f);
    struct diag d = {0};
    enum status st = file_write_atomic(csv, buf, len, force, &d);
    free(buf);
    return st ? cli_fail(&d) : 0;
}

/* --fit: the FP32 matrix-product constants fitted to the train split, and
 * the board constants of each GPU family with train rows, on stderr and, in
 * the families' order of sim_fitted_write.h, in boards (a family without
 * rows keeps its compiled-in shares). */
static enum status fit(const struct kbench_set *s, struct sim_params *p, double *dispatch_us,
                       struct sim_fitted_board *boards, struct diag *d)
{
    int n, ng = gpu_count();
    struct kbench_board_fit *b = xcalloc((size_t)ng, sizeof *b);
    enum status st = kbench_fit(s, p, dispatch_us, &n, b, d);
    if (!st) {
        fprintf(stderr, "dippm: the benchmark host's dispatch per op, fitted on train-split rows "
                "under %.0f us (src/lab/kbench.h):\n#define KBENCH_DISPATCH_US %.2f\n",
                KBENCH_FIT_HOST_MAX_US, *dispatch_us);
        fprintf(stderr, "dippm: fitted on %d train-split matmul and linear rows of at least "
                "%.0f us (norms and softmax: their rows of at least %.0f us):\n"
                "    .cuda_eff = %.4f,\n    .simt_k_half = %.2f,\n    .batched_sgemm_eff = %.4f,\n"
                "    .norm_bw_eff = %.4f,\n"
                "    .softmax_thread_bpc = %.6f,\n"
                "    .row_cache = %.4f,\n    .row_cache_soft = %.4f,\n", n,
                KBENCH_FIT_MIN_US, KBENCH_FIT_BW_MIN_US, p->cuda_eff, p->simt_k_half,
                p->batched_sgemm_eff, p->norm_bw_eff, p->softmax_thread_bpc, p->row_cache,
                p->row_cache_soft);
        fprintf(stderr, "dippm: GPU family constants (fp32_keep from GEMM rows, bw_keep from "
                "element-wise rows of at least %.0f us):\n", KBENCH_FIT_BW_MIN_US);
        for (int gi = 0; gi < ng; gi++)
            if (b[gi].n_gemm || b[gi].n_elem)
                fprintf(stderr, "    {\"%s\", %.4f, %.4f}, /* %d GEMM, %d element-wise rows */\n",
                        gpu_get(gi)->family, b[gi].fp32_keep, b[gi].bw_keep, b[gi].n_gemm,
                        b[gi].n_elem);
        sim_fitted_boards_compiled(boards);
        for (int f = 0; f < SIM_FITTED_FAMILIES; f++)
            for (int gi = 0; gi < ng; gi++)
                if (!strcmp(gpu_get(gi)->family, sim_fitted_families[f]) && b[gi].n_gemm) {
                    boards[f] = (struct sim_fitted_board){b[gi].fp32_keep, b[gi].bw_keep};
                    break;
                }
    }
    free(b);
    return st;
}

int cli_eval_kernels(const struct cli_common *co, const char *path, bool teacher_only,
                     const char *rows_csv, bool refit, const char *params_out)
{
    struct diag d = {0};
    struct kbench_set s;
    if (kbench_load(path, &s, &d))
        return cli_fail(&d);
    struct predictor *p = NULL;
    if (!teacher_only && !(p = predictor_new(co->weights, &d))) {
        kbench_fini(&s);
        return cli_fail(&d);
    }
    double *t_us = xcalloc((size_t)s.n + 1, sizeof(double));
    double *g_us = p ? xcalloc((size_t)s.n + 1, sizeof(double)) : NULL;
    int rc = 0;
    struct sim_params fitted = *sim_params_default();
    double dispatch_us = KBENCH_DISPATCH_US;
    struct sim_fitted_board boards[SIM_FITTED_FAMILIES];
    if ((refit && fit(&s, &fitted, &dispatch_us, boards, &d)) ||
        (params_out &&
         sim_fitted_write(params_out, co->force, &fitted, boards, dispatch_us, &d)) ||
        kbench_predict(&s, refit ? &fitted : NULL, dispatch_us, p, t_us, g_us, &d)) {
        rc = cli_fail(&d);
    } else if (!rows_csv || !(rc = write_rows(rows_csv, co->force, &s, t_us, g_us))) {
        struct kline *ls;
        int n = build_lines(&s, t_us, g_us, &ls);
        /* the weights as named (a committed report holds no machine path) */
        const char *wname = !p ? NULL : co->weights ? co->weights : predictor_path(p);
        char *buf = NULL;
        size_t len = 0;
        if (co->json) {
            buf = render_json(path, &s, ls, n, wname, &len);
        } else {
            FILE *f = open_memstream(&buf, &len);
            if (f) {
                render_text(f, path, &s, ls, n, wname);
                fclose(f);
            }
        }
        rc = buf ? cli_emit(co, buf, len) : status_exit_code(ST_ENOMEM);
        free(buf);
        free(ls);
    }
    free(t_us);
    free(g_us);
    predictor_free(p);
    kbench_fini(&s);
    return rc;
}
