/* test_sim_moe.c - the teacher's routed experts and board power, by hand:
 * an expert MatMul marked routed_experts = [E, k] reads the weights of every
 * expert a batch of M tokens touches, E (1 - (1 - k/E)^M), and the MoE
 * template's decode step slows as the batch touches more experts (a serving
 * engine runs each layer's experts as grouped GEMMs); a running
 * kernel's power is idle + (TDP - idle) (p_active + p_compute uc + p_memory
 * um), capped at TDP. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "core/gpu.h"
#include "graph/load.h"
#include "graph/ops/shape.h"
#include "core/sim.h"
#include "sim_graphs.h"

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static struct config cfg_h100(int64_t batch)
{
    struct config c;
    config_default(&c);
    c.gpu = gpu_find("H100-SXM5-80GB");
    c.prec = PREC_BF16;
    c.rt = RT_TENSORRT;
    c.batch = batch;
    return c;
}

static struct sim_result run(const struct graph *g, const struct config *c)
{
    struct sim_result r;
    struct diag d = {0};
    if (sim_run(g, c, &r, &d))
        fail_msg("sim_run: %s", d.msg);
    return r;
}

static void test_routed_bytes_by_hand(void **state)
{
    (void)state;
    const int64_t k = 2048, n = 768;
    for (int64_t m = 1; m <= 256; m *= 4) {
        struct graph *plain = sg_gemm(m, k, n), *routed = sg_gemm(m, k, n);
        const int64_t re[2] = {128, 8};
        graph_attr_ints(routed, 0, "routed_experts", re, 2);
        struct config c = cfg_h100(1);
        struct sim_result a = run(plain, &c), b = run(routed, &c);
        double w = 2.0 * (double)(k * n); /* bf16 weight bytes */
        double touched = 128 * (1 - pow(1 - 8.0 / 128, (double)m));
        double extra = touched > 8 ? w * (touched / 8 - 1) : 0;
        assert_near(b.nodes[0].bytes - a.nodes[0].bytes, extra, 1.0);
        /* the FLOPs do not change: only which weights are read */
        assert_near(b.nodes[0].flops, a.nodes[0].flops, 0.0);
        if (m == 1)
            assert_near(b.latency_ms, a.latency_ms, 1e-12);
        else
            assert_true(b.latency_ms > a.latency_ms);
        sim_result_fini(&a);
        sim_result_fini(&b);
        graph_free(plain);
        graph_free(routed);
    }
    /* malformed marks are ignored, never trusted */
    struct graph *g = sg_gemm(64, k, n), *h = sg_gemm(64, k, n);
    const int64_t bad[2] = {4, 8}; /* top_k above the expert count */
    graph_attr_ints(h, 0, "routed_experts", bad, 2);
    struct config c = cfg_h100(1);
    struct sim_result a = run(g, &c), b = run(h, &c);
    assert_near(b.nodes[0].bytes, a.nodes[0].bytes, 0.0);
    sim_result_fini(&a);
    sim_result_fini(&b);
    graph_free(g);
    graph_free(h);
}

/* The MoE template's decode step: every expert MatMul is marked, and a batch
 * that touches all experts reads about experts/top_k times the weights. */
static void test_moe_template_decode(void **state)
{
    (void)state;
    const char *spec = "zoo:moe:layers=2:hidden=512:heads=8:kv_heads=2:head_dim=64:experts=16:"
                       "top_k=2:expert_inter=1024:vocab=1000:phase=decode:logits=last";
    struct diag d = {0};
    double lat[3];
    const int64_t batches[3] = {1, 8, 256};
    for (int i = 0; i < 3; i++) {
        struct graph *g = model_load(spec, &d);
        assert_non_null(g);
        int marked = 0;
        for (int ni = 0; ni < g->n_nodes; ni++) {
            const int64_t *re;
            if (node_attr_ints(&g->nodes[ni], "routed_experts", &re) == 2) {
                assert_int_equal(re[0], 16);
                assert_int_equal(re[1], 2);
                marked++;
            }
        }
        /* gate, up and down of top_k experts in each of 2 layers */
        assert_int_equal(marked, 2 * 2 * 3);
        assert_int_equal(graph_sym_set(g, "batch", batches[i], &d), ST_OK);
        assert_int_equal(graph_sym_set(g, "seq", 64, &d), ST_OK);
        assert_int_equal(graph_infer(g, &d), ST_OK);
        struct config c = cfg_h100(batches[i]);
        struct sim_result r = run(g, &c);
        lat[i] = r.latency_ms;
        /* a serving engine launches a layer's experts as grouped GEMMs: one
         * for the gate and up projections, one for the down projections;
         * eager PyTorch launches every expert's */
        c.rt = RT_PYTORCH;
        struct sim_result e = run(g, &c);
        int engine_kernels = 0, eager_kernels = 0;
        for (int ni = 0; ni < g->n_nodes; ni++) {
            const int64_t *re;
            if (node_attr_ints(&g->nodes[ni], "routed_experts", &re) != 2)
                continue;
            engine_kernels += r.nodes[ni].kernel;
            eager_kernels += e.nodes[ni].kernel;
        }
        assert_int_equal(engine_kernels, 2 * 2);
        assert_int_equal(eager_kernels, 2 * 2 * 3);
        sim_result_fini(&e);
        double spread = 16 * (1 - pow(1 - 2.0 / 16, (double)batches[i])) / 2;
        for (int ni = 0; ni < g->n_nodes; ni++) {
            const int64_t *re;
            if (node_attr_ints(&g->nodes[ni], "routed_experts", &re) != 2)
                continue;
            const struct value *w = &g->values[g->nodes[ni].in[1]];
            double wb = 2.0 * (double)w->shape.d[0] * (double)w->shape.d[1];
            double base = (g->nodes[ni].cost.bytes_read + g->nodes[ni].cost.bytes_written) *
                          0.5; /* the costs are counted at fp32, the run is bf16 */
            assert_near(r.nodes[ni].bytes, base + wb * (spread - 1), 1.0 + base * 1e-9);
        }
        sim_result_fini(&r);
        graph_free(g);
    }
    assert_true(lat[1] > lat[0]);
    assert_true(lat[2] > lat[1]);
}

/* Average power of one big streaming kernel, by hand from the constants. */
static void test_power_by_hand(void **state)
{
    (void)state;
    struct graph *g = sg_gemm(8, 8192, 8192); /* a matrix-vector product: memory-bound */
    struct config c = cfg_h100(1);
    struct sim_result r = run(g, &c);
    struct hw hw;
    assert_int_equal(hw_from_config(&c, &hw, NULL), ST_OK);
    const struct sim_params *p = sim_params_default();
    const struct sim_node *s = &r.nodes[0];
    /* the kernel's run: its work plus the fixed per-kernel cost (time_s
     * also holds the wait for the host to issue it) */
    double hi = fmax(s->compute_s, s->memory_s), lo = fmin(s->compute_s, s->memory_s);
    double work = lo > 0.02 * hi ? hi * pow(1 + pow(lo / hi, p->overlap_p), 1 / p->overlap_p) : hi;
    double kt = work + p->kernel_us[RT_TENSORRT] * 1e-6;
    /* math use against the rate the best GEMMs reach on the peak an H100
     * sustains: tc_eff (or cuda_eff) x hopper_clock x the table's */
    double peak = (s->tensor_core ? hw.peak_flops : hw.peak_fp32_flops) * p->hopper_clock *
                  (s->tensor_core ? p->tc_eff[RT_TENSORRT] : p->cuda_eff);
    double uc = s->kflops / (peak * kt);
    double um = s->kbytes / (hw.bw_bytes * kt);
    double frac = p->p_active + 1.0 * uc + p->p_memory * um;
    frac = frac > 1 ? 1 : frac;
    double lat = r.latency_ms * 1e-3;
    double e = hw.idle_w * lat + (hw.tdp_w - hw.idle_w) * frac * kt;
    assert_near(r.energy_j, e, e * 1e-9);
    assert_true(r.avg_power_w > hw.idle_w && r.avg_power_w <= hw.tdp_w);
    sim_result_fini(&r);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routed_bytes_by_hand),
        cmocka_unit_test(test_moe_template_decode),
        cmocka_unit_test(test_power_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
