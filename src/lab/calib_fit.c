/*
 * calib_fit.c - the fitted knobs (a few global constants of struct
 * sim_params, no per-model factors), the objective, the coordinate-search
 * fit and the leave-one-model-out cross-validation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/calib_impl.h"
#include "util/xalloc.h"

/* The fitted parameters, their search ranges, which objective they move
 * and which runtime's rows they can change (-1: any). */
/* The objective a knob moves: time targets, memory, or average power. */
enum group { G_TIME, G_MEMORY, G_POWER, G__COUNT };

struct knob {
    const char *name;
    double init, lo, hi; /* the search starts at init, whatever is compiled in */
    enum group group;
    int rt;
    int only; /* SEL_FP32 / SEL_CONV: the only rows the knob can change, 0 = any */
    double *(*field)(struct sim_params *p);
};

#define FIELD(fn, expr) \
    static double *fn(struct sim_params *p) { return &(expr); }
FIELD(f_tc_pt, p->tc_eff[RT_PYTORCH])
FIELD(f_tc_trt, p->tc_eff[RT_TENSORRT])
FIELD(f_bw, p->bw_eff)
FIELD(f_kernel_pt, p->kernel_us[RT_PYTORCH])
FIELD(f_kernel_trt, p->kernel_us[RT_TENSORRT])
FIELD(f_kernel_graph, p->graph_kernel_us)
FIELD(f_disp_pt, p->dispatch_us[RT_PYTORCH])
FIELD(f_disp_trt, p->dispatch_us[RT_TENSORRT])
FIELD(f_call_pt, p->call_us[RT_PYTORCH])
FIELD(f_call_trt, p->call_us[RT_TENSORRT])
FIELD(f_ctx_pt, p->context_mib[RT_PYTORCH])
FIELD(f_ctx_trt, p->context_mib[RT_TENSORRT])
FIELD(f_ctx_sm, p->context_sm_mib)
FIELD(f_act, p->act_factor)
FIELD(f_conv_pt, p->conv_eff[RT_PYTORCH])
FIELD(f_conv_trt, p->conv_eff[RT_TENSORRT])
FIELD(f_dw_pt, p->dw_bw_eff[RT_PYTORCH])
FIELD(f_dw_trt, p->dw_bw_eff[RT_TENSORRT])
FIELD(f_seq_trt, p->seq_step_us[RT_TENSORRT])
FIELD(f_seq_vllm, p->seq_step_us[RT_VLLM])
FIELD(f_req_trt, p->request_us[RT_TENSORRT])
FIELD(f_overlap, p->overlap_p)
FIELD(f_k_half, p->k_half)
FIELD(f_hopper, p->hopper_clock)
FIELD(f_p_active, p->p_active)
FIELD(f_p_memory, p->p_memory)
#undef FIELD

/* Starting points are the documented a-priori values (sim_params.c
 * comments), so the fit is reproducible whatever the compiled-in constants. */
static const struct knob knobs[] = {
    {"tc_eff[pytorch]", 0.80, 0.3, 0.95, G_TIME, RT_PYTORCH, 0, f_tc_pt},
    {"tc_eff[tensorrt]", 0.80, 0.3, 0.95, G_TIME, RT_TENSORRT, 0, f_tc_trt},
    {"bw_eff", 0.85, 0.4, 0.95, G_TIME, -1, 0, f_bw},
    {"kernel_us[pytorch]", 3.0, 0.5, 10, G_TIME, RT_PYTORCH, 0, f_kernel_pt},
    {"kernel_us[tensorrt]", 3.0, 0.5, 10, G_TIME, RT_TENSORRT, 0, f_kernel_trt},
    {"graph_kernel_us", 2.0, 0.5, 10, G_TIME, RT_TENSORRT_GRAPH, 0, f_kernel_graph},
    {"dispatch_us[pytorch]", 25, 2, 80, G_TIME, RT_PYTORCH, 0, f_disp_pt},
    {"dispatch_us[tensorrt]", 1.5, 0.2, 10, G_TIME, RT_TENSORRT, 0, f_disp_trt},
    {"call_us[pytorch]", 100, 5, 2000, G_TIME, RT_PYTORCH, 0, f_call_pt},
    {"call_us[tensorrt]", 30, 2, 500, G_TIME, RT_TENSORRT, 0, f_call_trt},
    {"conv_eff[pytorch]", 0.8, 0.3, 1.0, G_TIME, RT_PYTORCH, SEL_CONV, f_conv_pt},
    {"conv_eff[tensorrt]", 0.8, 0.3, 1.0, G_TIME, RT_TENSORRT, SEL_CONV, f_conv_trt},
    {"dw_bw_eff[pytorch]", 0.5, 0.1, 1.0, G_TIME, RT_PYTORCH, SEL_CONV, f_dw_pt},
    {"dw_bw_eff[tensorrt]", 0.5, 0.1, 1.0, G_TIME, RT_TENSORRT, SEL_CONV, f_dw_trt},
    {"seq_step_us[tensorrt]", 5, 0, 200, G_TIME, RT_TENSORRT, 0, f_seq_trt},
    {"seq_step_us[vllm]", 30, 0, 300, G_TIME, RT_VLLM, 0, f_seq_vllm},
    {"request_us[tensorrt]", 500, 0, 20000, G_TIME, RT_TENSORRT, 0, f_req_trt},
    {"context_mib[pytorch]", 1200, 300, 4000, G_MEMORY, RT_PYTORCH, 0, f_ctx_pt},
    {"context_mib[tensorrt]", 1200, 300, 4000, G_MEMORY, RT_TENSORRT, 0, f_ctx_trt},
    {"context_sm_mib", 2, 0, 20, G_MEMORY, -1, 0, f_ctx_sm},
    {"act_factor", 1.3, 1.0, 3.0, G_MEMORY, -1, 0, f_act},
    {"overlap_p", 4.0, 1.5, 30, G_TIME, -1, 0, f_overlap},
    {"k_half", 96, 8, 512, G_TIME, -1, 0, f_k_half},
    {"hopper_clock", 1.0, 0.6, 1.0, G_TIME, -1, 0, f_hopper},
    {"p_active", 0.2, 0.0, 0.9, G_POWER, -1, 0, f_p_active},
    {"p_memory", 0.6, 0.05, 1.0, G_POWER, -1, 0, f_p_memory},
};
#define N_KNOBS ((int)(sizeof knobs / sizeof knobs[0]))

int calib_knob_count(void)
{
    return N_KNOBS;
}

const char *calib_knob_name(int k)
{
    return knobs[k].name;
}

void calib_knob_range(int k, double *lo, double *hi)
{
    *lo = knobs[k].lo;
    *hi = knobs[k].hi;
}

double calib_knob_value(const struct sim_params *p, int k)
{
    struct sim_params c = *p;
    return *knobs[k].field(&c);
}

static bool time_target(enum calib_target t)
{
    return t == CT_LATENCY || t == CT_THROUGHPUT || t == CT_GEN_TPUT;
}

/* The objective a row's target belongs to (energy rows belong to none: they
 * combine time and power, and are the check of both). */
static int target_group(enum calib_target t)
{
    return t == CT_MEMORY ? G_MEMORY : t == CT_POWER ? G_POWER : time_target(t) ? G_TIME : -1;
}

/* Mean absolute log error over the fitted rows of one objective (time,
 * memory or power): the mean of the source families' means. Each family is
 * one harness (its timing loop, its kernels, its host work), so each counts
 * once: a sweep of 164 rows from one harness says no more about the next
 * harness than two rows from another (with weights sqrt(rows) the big sweeps
 * pulled the shared engine constants away from the small engine families,
 * FasterTransformer and TensorRT PTQ, to 21% and 32% leave-one-model-out). */
static double objective(const struct calib_set *set, int group)
{
    char fam[64][32];
    double sum[64] = {0};
    int cnt[64] = {0}, nf = 0;
    for (int i = 0; i < set->n_rows; i++) {
        const struct calib_row *r = &set->rows[i];
        if (r->use != CU_FIT || r->held_out || r->n_run == 0)
            continue;
        if (target_group(r->target) != group)
            continue;
        if (r->pred <= 0 || r->measured <= 0)
            continue;
        int f = 0;
        while (f < nf && strcmp(fam[f], r->family))
            f++;
        if (f == nf) {
            if (nf == 64)
                f = 63;
            else
                snprintf(fam[nf++], sizeof fam[0], "%s", r->family);
        }
        sum[f] += fabs(log(r->pred / r->measured));
        cnt[f]++;
    }
    double s = 0, w = 0;
    for (int f = 0; f < nf; f++) {
        s += sum[f] / cnt[f];
        w += 1;
    }
    return w > 0 ? s / w : 0;
}

static int knob_sel(const struct knob *kb)
{
    int sel = SEL_FIT_ONLY | kb->only |
              (kb->group == G_MEMORY ? SEL_MEMORY : kb->group == G_POWER ? SEL_POWER : SEL_TIME);
    if (kb->rt >= 0)
        sel |= (kb->rt + 1) << SEL_RT_SHIFT;
    return sel;
}

/* Does the teacher's figure for row r depend on knob kb? */
static bool row_uses(const struct calib_graphs *cg, const struct calib_row *r,
                     const struct knob *kb)
{
    if (r->n_run == 0 || r->use == CU_SKIP || (int)kb->group != target_group(r->target))
        return false;
    if (kb->rt >= 0 && !calib_runtime_uses(r->cfg.rt, kb->rt))
        return false;
    if ((kb->only & SEL_FP32) && r->cfg.prec != PREC_FP32)
        return false;
    return !(kb->only & SEL_CONV) || cg->b[cg->r[r->run[0]].bi].has_conv;
}

/* In a cross-validation fold, a knob that none of the held-out rows depends
 * on keeps the full fit's value: leaving the model out moves it only through
 * its coupling with the other knobs, a second-order change. */
static bool fold_moves(const struct calib_set *set, const struct calib_graphs *cg,
                       const struct knob *kb)
{
    bool any_held = false;
    for (int i = 0; i < set->n_rows; i++) {
        const struct calib_row *r = &set->rows[i];
        if (!r->held_out || r->n_run == 0 || r->use == CU_SKIP)
            continue;
        any_held = true;
        if (row_uses(cg, r, kb))
            return true;
    }
    return !any_held;
}

/* In a fold, is any fitted row left that depends on knob kb? A knob only
 * the held-out model's rows pinned down goes back to its a-priori value:
 * the full fit's value would carry that model's own rows into its
 * prediction. */
static bool fold_informed(const struct calib_set *set, const struct calib_graphs *cg,
                          const struct knob *kb)
{
    for (int i = 0; i < set->n_rows; i++) {
        const struct calib_row *r = &set->rows[i];
        if (r->use == CU_FIT && !r->held_out && row_uses(cg, r, kb))
            return true;
    }
    return false;
}

static void keep_preds(const struct calib_set *set, double *kept)
{
    for (int i = 0; i < set->n_rows; i++)
        kept[i] = set->rows[i].pred;
}

enum status calib_fit(struct calib_set *set, struct calib_graphs *cg,
                      const struct sim_params *start, bool from_start, int rounds,
                      struct sim_params *out, struct diag *d)
{
    double *kept = malloc(((size_t)set->n_rows + 1) * sizeof *kept);
    if (!kept)
        return diag_set(d, ST_ENOMEM, "calibration: out of memory");
    struct sim_params cur = *start;
    for (int k = 0; k < N_KNOBS; k++)
        if (!from_start || !fold_informed(set, cg, &knobs[k]))
            *knobs[k].field(&cur) = knobs[k].init;
    enum status st = calib_eval_sel(set, cg, &cur, SEL_FIT_ONLY | SEL_TIME | SEL_MEMORY,
                                    -1, d);
    if (st) {
        free(kept);
        return st;
    }
    double obj[G__COUNT];
    for (int gi = 0; gi < G__COUNT; gi++)
        obj[gi] = objective(set, gi);
    /* Coordinate search in log space: each round tries each knob at a
     * geometric grid around its value, shrinking the step every round. */
    double step = from_start ? 0.2 : 0.5; /* log-space half width */
    int pts = from_start ? 2 : 3;          /* grid points each side */
    for (int round = 0; round < rounds; round++, step *= 0.55) {
        for (int k = 0; k < N_KNOBS; k++) {
            const struct knob *kb = &knobs[k];
            if (!fold_moves(set, cg, kb))
                continue;
            double *fv = kb->field(&cur);
            /* power rows divide energy by time: the time knobs before this
             * one moved them, so their baseline is taken afresh */
            if (kb->group == G_POWER) {
                if ((st = calib_eval_sel(set, cg, &cur, knob_sel(kb), -1, d)))
                    goto out;
                obj[G_POWER] = objective(set, G_POWER);
            }
            double base = *fv, best = base, best_obj = obj[kb->group];
            keep_preds(set, kept);
            for (int j = -pts; j <= pts; j++) {
                if (j == 0)
                    continue;
                double v = base * exp(step * j / pts);
                if (v < kb->lo) v = kb->lo;
                if (v > kb->hi) v = kb->hi;
                *fv = v;
                if ((st = calib_eval_sel(set, cg, &cur, knob_sel(kb), -1, d)))
                    goto out;
                double o = objective(set, kb->group);
                if (o < best_obj - 1e-12) {
                    best_obj = o;
                    best = v;
                    keep_preds(set, kept);
                }
            }
            *fv = best;
            obj[kb->group] = best_obj;
            /* the rows' predictions at the kept value (rows the knob does not
             * move were not re-evaluated and already match it) */
            for (int i = 0; i < set->n_rows; i++)
                set->rows[i].pred = kept[i];
        }
    }
    *out = cur;
out:
    free(kept);
    return st;
}

/* The row's key of a fold kind. */
static const char *fold_key(const struct calib_row *r, enum calib_fold fold)
{
    return fold == CF_FAMILY ? r->family : r->model_id;
}

enum status calib_folds(struct calib_set *set, struct calib_graphs *cg,
                        const struct sim_params *fitted, int rounds, enum calib_fold fold,
                        struct diag *d)
{
    enum status st = ST_OK;
    bool *done = xcalloc((size_t)set->n_rows + 1, sizeof *done);
    for (int i = 0; i < set->n_rows; i++)
        *(fold == CF_FAMILY ? &set->rows[i].pred_losfo : &set->rows[i].pred_lomo) = -1;
    for (int i = 0; i < set->n_rows && !st; i++) {
        const struct calib_row *m = &set->rows[i];
        if (m->use != CU_FIT || m->n_run == 0 || done[i])
            continue;
        /* fold: hold out every row of this model or source family */
        const char *key = fold_key(m, fold);
        for (int j = 0; j < set->n_rows; j++) {
            set->rows[j].held_out = !strcmp(fold_key(&set->rows[j], fold), key);
            done[j] = done[j] || set->rows[j].held_out;
        }
        struct sim_params fp;
        st = calib_fit(set, cg, fitted, true, rounds, &fp, d);
        if (!st)
            st = calib_eval_sel(set, cg, &fp, SEL_HELD_OUT | SEL_TIME | SEL_MEMORY, (int)fold, d);
    }
    for (int j = 0; j < set->n_rows; j++)
        set->rows[j].held_out = false;
    free(done);
    return st;
}
