/*
 * sim.c - the teacher: walks an inferred graph in topological order, decides
 * which nodes launch kernels (and, for the fused runtime, which are folded
 * into a producer's kernel), times each kernel (sim_kernel.c), replays the
 * host/GPU queue to get latency, then memory and energy.
 *
 * Runtimes:
 *   pytorch  - eager: every op is dispatched from the host (dispatch_us each,
 *              views - reshapes and permute/transpose - at a fraction, shape
 *              arithmetic free) and launches one kernel, except the bias Add
 *              of an exported nn.Linear (one addmm); the GPU waits when the
 *              host falls behind, so small batches sit on a CPU floor.
 *   tensorrt - fused engine: BatchNorm, activations, elementwise ops and
 *              elementwise-epilogue reductions fold into the producing
 *              kernel when the intermediate has no other consumer; Linear
 *              layers reading the same input merge into one GEMM (QKV);
 *              attention (scores MatMul, Softmax, context MatMul) is one
 *              kernel; views, transposes and concats are free (layout is
 *              chosen at build time); kernels are enqueued back to back.
 *   tensorrt-graph - the same engine replayed as a CUDA graph: no host work
 *              per kernel, and a smaller GPU-side cost per kernel.
 *   inductor - torch.compile: eager's GEMMs and convolutions, every
 *              element-wise/normalisation/reduction chain between them one
 *              kernel, SDPA attention, free views, a lighter host cost per
 *              kernel (its generated wrapper); inductor-graph replays those
 *              kernels as a CUDA graph like tensorrt-graph.
 *   onnxruntime - ONNX Runtime's CUDA execution provider: the patterns its
 *              graph transformers fuse (conv with BatchNorm, bias and ReLU,
 *              a Linear's bias, an activation or norm written out as
 *              element-wise ops, the residual Add with its LayerNorm, QKV
 *              and attention), every other op a kernel, launched from
 *              its C++ executor; onnxruntime-graph replays them as a CUDA
 *              graph.
 * All figures are simulated, not measured.
 */
#include "core/sim.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ir/ops.h"
#include "graph/ops/tokens.h"
#include "util/xalloc.h"
#include "core/sim_impl.h"

const char *bound_name(enum bound b)
{
    static const char *const names[] = {
#define X(id, name) name,
        BOUND_LIST(X)
#undef X
    };
    _Static_assert(sizeof names / sizeof names[0] == BOUND__COUNT, "bound names");
    return (unsigned)b < BOUND__COUNT ? names[b] : "?";
}

static enum status check_config(const struct config *cfg, struct diag *d)
{
    if ((unsigned)cfg->rt >= RT__COUNT)
        return diag_set(d, ST_ERANGE, "runtime %d out of range", (int)cfg->rt);
    if ((unsigned)cfg->prec >= PREC__COUNT)
        return diag_set(d, ST_ERANGE, "precision %d out of range", (int)cfg->prec);
    if (cfg->batch < 1)
        return diag_set(d, ST_ERANGE, "batch %lld: expected at least 1", (long long)cfg->batch);
    return config_supported(cfg, d);
}

/* A MatMul/Gemm whose second input is a weight (a Linear layer). */
/* A fused kernel's time, energy and roofline are shared over its members
 * (the root and every node folded into it) in proportion to each member's
 * own ideal time, max(FLOPs / peak, bytes / bandwidth), so the per-layer
 * table shows the Softmax of a fused attention its part, not 0%. */
static void share_fused(struct sim_result *r, const struct hw *hw)
{
    int n = r->n_nodes;
    double *w = calloc(n > 0 ? (size_t)n : 1, 2 * sizeof *w);
    if (!w)
        return; /* attribution only: the totals are already right */
    double *sum = w + n;
    for (int i = 0; i < n; i++) {
        const struct sim_node *sn = &r->nodes[i];
        double tc = hw->peak_flops > 0 ? sn->flops / hw->peak_flops : 0;
        double tm = hw->bw_bytes > 0 ? sn->bytes / hw->bw_bytes : 0;
        w[i] = (tc > tm ? tc : tm) + 1e-15;
        int root = sn->fused_into >= 0 ? sn->fused_into : i;
        if (sn->fused_into >= 0 || sn->kernel)
            sum[root] += w[i];
    }
    for (int i = 0; i < n; i++) {
        struct sim_node *sn = &r->nodes[i];
        if (sn->fused_into < 0)
            continue;
        const struct sim_node *rs = &r->nodes[sn->fused_into];
        double f = sum[sn->fused_into] > 0 ? w[i] / sum[sn->fused_into] : 0;
        sn->time_s = rs->time_s * f;
        sn->energy_j = rs->energy_j * f;
        sn->roofline_s = rs->roofline_s * f;
    }
    for (int i = 0; i < n; i++) {
        struct sim_node *sn = &r->nodes[i];
        if (sn->fused_into >= 0 || !sn->kernel || sum[i] <= w[i])
            continue;
        double f = w[i] / sum[i];
        sn->time_s *= f;
        sn->energy_j *= f;
        sn->roofline_s *= f;
    }
    free(w);
}

/* Bytes (in the file's dtypes) of the graph's inputs and outputs that are
 * activations: persistent buffers of one inference call. */
static double persistent_bytes(const struct graph *g)
{
    double b = 0;
    for (int pass = 0; pass < 2; pass++) {
        int cnt = pass ? g->n_outputs : g->n_inputs;
        const int *ix = pass ? g->outputs : g->inputs;
        for (int i = 0; i < cnt; i++) {
            const struct value *v = &g->values[ix[i]];
            if (v->flags & VAL_INIT)
                continue;
            double e = sim_value_numel(v) * (v->seq_dims == 1 ? v->tok_scale : 1);
            enum dtype dt = sim_value_dtype(v);
            if (e > 0)
                b += e * (dt == DT_UNDEFINED ? 4 : dtype_size(dt));
        }
    }
    return b;
}

/* One step of the time pass: the host cost of an eager view, or a kernel
 * with its work and GEMM view (everything that does not depend on the
 * constants being fitted). */
struct sim_step {
    int node;
    bool view;
    bool pre; /* a quantisation pass: its time and energy count to the next step's node */
    double runs; /* launches: a Loop or Scan body's trip count (graph's cost.runs), >= 1 */
    struct sim_kernel_in kin;
    double kflops, kbytes;
};

/* A run made ready for many evaluations with different constants. */
struct sim_prep {
    struct config cfg;
    struct hw hw;
    int n_steps;
    struct sim_step *steps;
    double wbytes, act_ratio, persist, peak; /* what the memory figure needs */
};

/* Eager PyTorch's row-wise kernels that read a row again after a first
 * pass (sim_kernel_in.reread_bytes): layer norm (statistics, then
 * normalise; 128 threads a row) and a softmax over rows of more than 1024
 * (cunn_SoftMaxForward: max, sum, output; its block of half the row's
 * float4 loads rounded up to a power of two, at least a warp, at most
 * 512), as ATen 2.x launches them. A softmax over up to 1024 keeps its row
 * in registers (softmax_warp_forward). */
static void row_rereads(const struct graph *g, const struct node *n, const struct config *cfg,
                        struct sim_kernel_in *k)
{
    bool ln = n->op == OP_LayerNormalization;
    if ((!ln && n->op != OP_Softmax && n->op != OP_LogSoftmax) || !runtime_eager(cfg->rt) ||
        n->n_in < 1 || n->in[0] < 0)
        return;
    const struct shape *s = &g->values[n->in[0]].shape;
    if (!s->known || s->rank < 1)
        return;
    int64_t axis = node_attr_int(n, "axis", -1);
    if (axis < 0)
        axis += s->rank;
    if (axis < 0 || axis >= s->rank)
        return;
    double row = 1, numel = 1;
    for (int i = 0; i < s->rank; i++) {
        numel *= (double)s->d[i];
        if (i >= axis && (ln || i == axis))
            row *= (double)s->d[i];
    }
    if (!ln && (axis != s->rank - 1 || row <= 1024))
        return;
    double eb = precision_bytes(cfg->prec);
    int block = 128;
    if (!ln) {
        double want = fmin(row / (16 / eb), 1024) / 2;
        for (block = 32; block < want && block < 512; block *= 2)
            ;
    }
    /* ATen's block softmax loads float4-wide (16 bytes) while a whole
     * block's worth of them fits the row, then the rest (and any row not
     * 16-byte aligned) element by element */
    double vec = 16 / eb;
    k->row_tail = !ln && (fmod(row, vec) != 0 || fmod(row, vec * block) != 0);
    k->row_bytes = row * eb;
    k->reread_bytes = (ln ? 1 : 2) * numel * graph_node_tok_scale(g, n) * eb;
    k->row_block = block;
}

/* The steps of the time pass, in issue order, after pass_fuse; n_steps
 * steps are written to out (room for 2 g->n_nodes: a quantised GEMM may
 * bring a quantisation pass of its own). */
static int build_steps(const struct graph *g, const struct config *cfg,
                       const struct sim_result *r, struct sim_step *out)
{
    int n_steps = 0;
    for (int t = 0; t < g->n_nodes; t++) {
        int i = g->topo ? g->topo[t] : t;
        const struct node *n = &g->nodes[i];
        const struct sim_node *sn = &r->nodes[i];
        enum node_kind kind = sim_node_kind(g, n, cfg->rt);
        if (kind == NK_CONST || sn->fused || n->state == NODE_NOT_RUN)
            continue;
        struct sim_step *st = &out[n_steps];
        memset(st, 0, sizeof *st);
        st->node = i;
        st->runs = n->cost.runs > 1 ? n->cost.runs : 1;
        if (kind == NK_VIEW && !sn->kernel) {
            if (!runtime_eager(cfg->rt))
                continue;
            st->view = true;
            n_steps++;
            continue;
        }
        struct sim_kernel_in kin = {
            .cls = n->op == OP__UNKNOWN ? OPC_OTHER : op_class_of(n->op),
            .flops = sn->kflops - sn->kflops_vec, .vec_flops = sn->kflops_vec,
            .bytes = sn->kbytes, .batches = 1};
        if (n->state == NODE_OK)
            sim_gemm_view(g, n, kin.cls, &kin);
        kin.m *= graph_node_tok_scale(g, n); /* the real tokens' rows */
        if (kin.gemm && sn->attention) {
            /* A fused attention kernel keeps a query block's score rows
             * on chip, so its CTAs split the queries: 64 per CTA in an
             * engine (TensorRT's fused MHA spreads a sequence's 64-row
             * steps over CTAs when sequences x heads cannot fill the GPU),
             * 128 in flash attention; the keys only when those CTAs are
             * too few (split-KV, sim_kernel.c). ONNX Runtime's Attention
             * runs TensorRT's fused MHA kernels where they apply. */
            kin.attention = true;
            kin.q_block = runtime_engine(cfg->rt) || runtime_onnxruntime(cfg->rt) ? 64 : 128;
        }
        double spread = kin.gemm ? sim_routed_spread(g, n) : 1;
        if (spread > 1) { /* the grouped GEMM: fewer rows per expert, more experts */
            kin.m /= spread;
            kin.batches *= spread;
        }
        if (kin.gemm && sn->merged > 0)
            kin.n *= sn->merged + 1; /* merged siblings: one wider GEMM */
        if (n->state == NODE_OK)
            row_rereads(g, n, cfg, &kin);
        struct sim_kernel_in pass;
        if (n->state == NODE_OK && sim_quant_kernel(g, n, cfg, &kin, &pass)) {
            /* the dynamic quantisation of its input: a kernel of its own,
             * whose time the GEMM's node shows */
            *st = (struct sim_step){.node = i, .pre = true, .runs = st->runs, .kin = pass,
                                    .kflops = pass.flops, .kbytes = pass.bytes};
            st = &out[++n_steps];
            memset(st, 0, sizeof *st);
            st->node = i;
            st->runs = n->cost.runs > 1 ? n->cost.runs : 1;
        }
        st->kin = kin;
        st->kflops = sn->kflops;
        st->kbytes = sn->kbytes;
        n_steps++;
    }
    return n_steps;
}

/* The host's time issuing view step st (no kernel: a share of an op's
 * dispatch, each run). */
static double view_host_s(const struct sim_step *st, double dispatch)
{
    return dispatch * sim_fixed.view_dispatch_frac * st->runs;
}

/* Charges the GPU's idle time `wait` before the kernel of step k (k ==
 * n_steps: before the end of the pass) to the host work it waited for: the
 * view steps [lo, k), each in proportion to its host time (`dispatch` per
 * op), and the kernel's own dispatch `own` (0 at the end). wait never exceeds that host
 * work (the GPU was busy until the host issued the previous kernel), so a
 * view is charged at most its own host time. Returns what the views got;
 * the rest is the kernel's. */
static double charge_views(const struct sim_prep *sp, struct sim_result *r, int lo, int k,
                           double wait, double dispatch, double own, double idle_w)
{
    double views = 0;
    for (int j = lo; j < k; j++)
        views += view_host_s(&sp->steps[j], dispatch);
    if (wait <= 0 || views <= 0)
        return 0;
    double scale = wait / (views + own);
    if (scale > 1)
        scale = 1;
    double given = 0;
    for (int j = lo; j < k; j++) {
        const struct sim_step *st = &sp->steps[j];
        struct sim_node *sn = &r->nodes[st->node];
        double t = view_host_s(st, dispatch) * scale;
        sn->time_s += t;
        sn->bound = BOUND_OVERHEAD;
        sn->energy_j += idle_w * t;
        given += t;
    }
    return given;
}

/* Pass 2: time the kernels and replay the host -> GPU queue. The host
 * issues ops in order (dispatch each); a kernel starts when both the GPU is
 * free and the host has issued it. Sets latency and energy, and the
 * per-node times when r->nodes is not NULL. */
static void pass_time(const struct sim_prep *sp, const struct sim_params *p,
                      struct sim_result *r)
{
    const struct config *cfg = &sp->cfg;
    const struct hw *hw = &sp->hw;
    double host = 0, gpu = 0, busy = 0, dyn_energy = 0;
    enum runtime prt = runtime_base(cfg->rt);
    double dispatch = p->dispatch_us[prt] * 1e-6, koh = p->kernel_us[prt] * 1e-6;
    if (runtime_graph(cfg->rt)) {
        /* one graph launch (part of call_us) issues every kernel: no host
         * work per kernel, and the GPU starts each node without a stream
         * launch */
        dispatch = 0;
        koh = p->graph_kernel_us * 1e-6;
    }
    double dyn_w = hw->tdp_w - hw->idle_w;
    int pend0 = 0; /* the views issued since the last kernel: steps [pend0, k) */
    double pre_t = 0, pre_j = 0, pre_r = 0; /* a quantisation pass's, for its GEMM's node */
    for (int k = 0; k < sp->n_steps; k++) {
        const struct sim_step *st = &sp->steps[k];
        if (st->view) {
            host += view_host_s(st, dispatch);
            continue;
        }
        /* a loop body's kernel: its work is already the total over the
         * trips; every trip dispatches and launches it again. The first
         * launch waits for its own dispatch, the last for the host's last. */
        double first = host + dispatch;
        host += dispatch * st->runs;
        struct sim_kernel_out ko;
        sim_kernel_time(hw, cfg, p, &st->kin, &ko);
        double work = sim_overlap(ko.compute_s, ko.memory_s, p->overlap_p);
        double kt = work + koh * st->runs;
        double start = gpu > first ? gpu : first;
        double wait = start - gpu;
        double last = host + kt / st->runs;
        gpu = start + kt > last ? start + kt : last;
        busy += kt;
        r->n_kernels = r->n_kernels + st->runs < INT_MAX ? r->n_kernels + (int)st->runs : INT_MAX;
        /* Math utilisation over the kernel's run time, against the rate
         * the library's best kernels reach (tc_eff or cuda_eff) on the peak
         * the kernel runs on (TF32 tensor cores for an fp32 convolution)
         * as the board sustains it (Hopper's clock drops because it is at
         * its power limit): a GEMM at that rate keeps every math pipe as
         * busy as the board allows, however far below the datasheet peak. */
        double best = ko.tc ? p->tc_eff[prt] : p->cuda_eff;
        double uc = kt > 0 && ko.peak > 0 && best > 0
                        ? st->kflops / (ko.peak * ko.clock * best * kt) : 0;
        double um = kt > 0 ? st->kbytes / (hw->bw_bytes * kt) : 0;
        double frac = p->p_active + sim_fixed.p_compute * uc + p->p_memory * um;
        if (frac > 1)
            frac = 1;
        double ej = dyn_w * frac * kt;
        dyn_energy += ej;
        r->roofline_ms += ko.roofline_s * 1e3;
        if (!r->nodes) {
            pend0 = k + 1;
            continue;
        }
        wait -= charge_views(sp, r, pend0, k, wait, dispatch, dispatch, hw->idle_w);
        pend0 = k + 1;
        if (st->pre) {
            pre_t += wait + kt;
            pre_j += ej;
            pre_r += ko.roofline_s;
            continue;
        }
        struct sim_node *sn = &r->nodes[st->node];
        sn->time_s = wait + kt + pre_t;
        sn->roofline_s = ko.roofline_s + pre_r;
        sn->compute_s = ko.compute_s;
        sn->memory_s = ko.memory_s;
        sn->efficiency = ko.eff;
        sn->tensor_core = ko.tc;
        if (wait > kt || koh * st->runs > work)
            sn->bound = BOUND_OVERHEAD;
        else
            sn->bound = ko.compute_s >= ko.memory_s ? BOUND_COMPUTE : BOUND_MEMORY;
        sn->energy_j = ej + pre_j + hw->idle_w * sn->time_s;
        pre_t = pre_j = pre_r = 0;
    }
    if (r->nodes && host > gpu) /* the views after the last kernel */
        charge_views(sp, r, pend0, sp->n_steps, host - gpu, dispatch, 0, hw->idle_w);
    double end = gpu > host ? gpu : host;
    double lat = end + sim_call_ms(p, prt) * 1e-3;
    r->latency_ms = lat * 1e3;
    r->gpu_busy_ms = busy * 1e3;
    r->host_ms = host * 1e3;
    r->energy_j = hw->idle_w * lat + dyn_energy;
    r->avg_power_w = lat > 0 ? r->energy_j / lat : hw->idle_w;
}

/* Values a fused kernel keeps on chip, never allocated: produced inside a
 * kernel and read only by nodes fused into that same kernel (fused
 * attention's scores and probabilities, a GEMM's output before the bias
 * and activation of its epilogue). NULL when there is none. */
static bool *hidden_values(const struct graph *g, const struct sim_result *r)
{
    bool *hidden = NULL;
    for (int vi = 0; vi < g->n_values; vi++) {
        const struct value *v = &g->values[vi];
        if (v->producer < 0 || v->n_consumers < 1 || (v->flags & VAL_OUTPUT))
            continue;
        const struct sim_node *pn = &r->nodes[v->producer];
        int k = pn->fused_into >= 0 ? pn->fused_into : v->producer;
        if (!r->nodes[k].kernel && !pn->fused)
            continue;
        bool inside = true;
        for (int c = 0; c < v->n_consumers && inside; c++)
            inside = r->nodes[v->consumers[c]].fused_into == k;
        if (!inside)
            continue;
        if (!hidden)
            hidden = xcalloc((size_t)g->n_values, sizeof *hidden);
        hidden[vi] = true;
    }
    return hidden;
}

/* What the memory figure needs from the graph at cfg's precision, after
 * the fusion of r. */
static void memory_inputs(const struct graph *g, const struct config *cfg,
                          const struct sim_result *r, struct sim_prep *sp)
{
    int pb = precision_bytes(cfg->prec);
    double wbytes = 0;
    for (int vi = 0; vi < g->n_values; vi++) {
        const struct value *v = &g->values[vi];
        if (!(v->flags & VAL_INIT) || v->n_consumers == 0)
            continue;
        double b = sim_weight_bytes(g, cfg, vi, pb);
        if (b < 0 && v->rank >= 0) {
            double e = 1;
            for (int k = 0; k < v->rank; k++)
                e *= v->dims[k].v > 0 ? (double)v->dims[k].v : 1;
            enum dtype dt = v->dtype;
            b = e * (dt == DT_UNDEFINED || dtype_is_float(dt) ? pb : dtype_size(dt));
        }
        if (b > 0)
            wbytes += b;
    }
    /* Activations: the shape engine's liveness peak, scaled from the
     * graph's float size to the configured precision. */
    double act_ratio = pb / 4.0;
    if (g->n_inputs > 0) {
        enum dtype dt = sim_value_dtype(&g->values[g->inputs[0]]);
        if (dtype_is_float(dt))
            act_ratio = (double)pb / dtype_size(dt);
    }
    sp->wbytes = wbytes;
    sp->act_ratio = act_ratio;
    sp->persist = persistent_bytes(g);
    bool *hidden = hidden_values(g, r);
    sp->peak = hidden ? graph_peak_act_bytes(g, hidden) : g->totals.peak_act_bytes;
    free(hidden);
}

/* Pass 3: memory as NVML reports it for the process. The allocator factor
 * applies to the transient tensors only: graph inputs and outputs (a
 * decoder's KV cache in and out, the batch itself) are persistent buffers
 * the runtime allocates once at their exact size. */
static void pass_memory(const struct sim_prep *sp, const struct sim_params *p,
                        struct sim_result *r)
{
    enum runtime rt = runtime_base(sp->cfg.rt);
    double transient = sp->peak > sp->persist ? sp->peak - sp->persist : 0;
    const double mib = 1048576.0;
    r->context_mib = p->context_mib[rt] + p->context_sm_mib * sp->hw.sms;
    r->workspace_mib = p->workspace_mib[rt];
    r->weights_mib = sp->wbytes / mib;
    r->act_live_bytes = sp->peak;
    r->act_peak_mib =
        (transient * p->act_factor + (sp->peak - transient)) * sp->act_ratio / mib;
    r->memory_mib = r->context_mib + r->weights_mib + r->act_peak_mib + r->workspace_mib;
}

/* Checks cfg and g, fills sp's configuration and hardware and r->nodes
 * (pass 1). */
static enum status prepare(const struct graph *g, const struct config *cfg, struct sim_prep *sp,
                           struct sim_result *r, struct diag *d)
{
    memset(r, 0, sizeof *r);
    sp->cfg = *cfg;
    enum status st = check_config(cfg, d);
    if (st || (st = hw_from_config(cfg, &sp->hw, d)))
        return st;
    if (!g->finalized)
        return diag_set(d, ST_EGRAPH, "%s: graph is not finalized", g->name ? g->name : "model");
    r->n_nodes = g->n_nodes;
    r->nodes = calloc(g->n_nodes > 0 ? (size_t)g->n_nodes : 1, sizeof *r->nodes);
    sp->steps = malloc((g->n_nodes > 0 ? 2 * (size_t)g->n_nodes : 1) * sizeof *sp->steps);
    if (!r->nodes || !sp->steps) {
        free(sp->steps);
        sp->steps = NULL;
        return diag_set(d, ST_ENOMEM, "teacher: no memory for %d nodes", g->n_nodes);
    }
    sim_pass_fuse(g, cfg, r);
    sp->n_steps = build_steps(g, cfg, r, sp->steps);
    memory_inputs(g, cfg, r, sp);
    return ST_OK;
}

enum status sim_prepare(const struct graph *g, const struct config *cfg, struct sim_prep **out,
                        struct diag *d)
{
    *out = NULL;
    struct sim_prep *sp = calloc(1, sizeof *sp);
    if (!sp)
        return diag_set(d, ST_ENOMEM, "teacher: out of memory");
    struct sim_result r;
    enum status st = prepare(g, cfg, sp, &r, d);
    sim_result_fini(&r);
    if (st) {
        sim_prep_free(sp);
        return st;
    }
    *out = sp;
    return ST_OK;
}

void sim_run_prepared(const struct sim_prep *sp, const struct sim_params *p,
                      struct sim_totals *out)
{
    struct sim_result r = {0};
    pass_time(sp, p ? p : sim_params_default(), &r);
    pass_memory(sp, p ? p : sim_params_default(), &r);
    out->latency_ms = r.latency_ms;
    out->energy_j = r.energy_j;
    out->avg_power_w = r.avg_power_w;
    out->memory_mib = r.memory_mib;
}

void sim_prep_free(struct sim_prep *sp)
{
    if (!sp)
        return;
    free(sp->steps);
    free(sp);
}

enum status sim_run_params(const struct graph *g, const struct config *cfg,
                           const struct sim_params *p, struct sim_result *r, struct diag *d)
{
    if (!p)
        p = sim_params_default();
    struct sim_prep sp = {0};
    enum status st = prepare(g, cfg, &sp, r, d);
    if (st) {
        free(sp.steps);
        sim_result_fini(r);
        return st;
    }
    pass_time(&sp, p, r);
    double lat = r->latency_ms * 1e-3;
    share_fused(r, &sp.hw);
    /* Shares; fused nodes report their kernel's bound. */
    for (int i = 0; i < g->n_nodes; i++) {
        struct sim_node *sn = &r->nodes[i];
        if (sn->fused_into >= 0)
            sn->bound = r->nodes[sn->fused_into].bound;
        sn->time_share = lat > 0 ? sn->time_s / lat : 0;
        sn->energy_share = r->energy_j > 0 ? sn->energy_j / r->energy_j : 0;
    }
    pass_memory(&sp, p, r);
    free(sp.steps);
    return ST_OK;
}

enum status sim_run(const struct graph *g, const struct config *cfg, struct sim_result *r,
                    struct diag *d)
{
    return sim_run_params(g, cfg, NULL, r, d);
}

void sim_result_fini(struct sim_result *r)
{
    if (!r)
        return;
    free(r->nodes);
    r->nodes = NULL;
}

double sim_call_ms(const struct sim_params *params, enum runtime rt)
{
    const struct sim_params *p = params ? params : sim_params_default();
    return p->call_us[runtime_base(rt)] * 1e-3;
}

double sim_request_ms(const struct sim_params *params, enum runtime rt)
{
    const struct sim_params *p = params ? params : sim_params_default();
    return p->request_us[runtime_base(rt)] * 1e-3;
}

double sim_decode_host_ms(const struct sim_params *params, enum runtime rt, int64_t batch)
{
    const struct sim_params *p = params ? params : sim_params_default();
    /* the serving engine's step loop has its own cost; the others share
     * their base runtime's */
    enum runtime k = rt == RT_VLLM ? RT_VLLM : runtime_base(rt);
    return (double)batch * p->seq_step_us[k] * 1e-3;
}

double sim_decode_host_w(const struct sim_params *params, enum runtime rt, double idle_w,
                         double tdp_w)
{
    const struct sim_params *p = params ? params : sim_params_default();
    if (rt != RT_VLLM)
        return idle_w;
    return idle_w + (tdp_w - idle_w) * p->p_active;
}
