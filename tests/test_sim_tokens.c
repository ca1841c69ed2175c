/* test_sim_tokens.c - padding-free encoders (--set tokens_mean=N): the
 * token-wise work (linear layers, norms, element-wise ops) costs the real
 * tokens, attention the padded length, and a run without it is the padded
 * one, bit for bit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sim_fixture.h"
#include "graph/ops/tokens.h"

#define BERT "zoo:bert:preset=bert-base"

/* bert-base at batch 4, seq 128, with tokens real tokens per sequence (0:
 * padded). */
static struct graph *bert(int64_t tokens)
{
    struct graph *g = fixture_build(BERT, 4, "seq", 128);
    struct diag d = {0};
    if (graph_tokens_set(g, tokens, &d) || graph_infer(g, &d))
        fail_msg("tokens_mean=%lld: %s", (long long)tokens, d.msg);
    return g;
}

static bool weight_matmul(const struct graph *g, const struct node *n)
{
    return n->op == OP_MatMul && n->n_in == 2 && (g->values[n->in[1]].flags & VAL_INIT);
}

static void test_tokenwise_work_halves(void **state)
{
    (void)state;
    struct graph *p = bert(0), *h = bert(64);
    struct sim_result rp = fixture_run(p, "A100-SXM4-80GB", RT_PYTORCH, 4);
    struct sim_result rh = fixture_run(h, "A100-SXM4-80GB", RT_PYTORCH, 4);
    int linear = 0, attention = 0, norms = 0;
    for (int i = 0; i < p->n_nodes; i++) {
        const struct node *n = &p->nodes[i];
        double fp = rp.nodes[i].flops, fh = rh.nodes[i].flops;
        if (weight_matmul(p, n)) { /* Q, K, V, output, intermediate, output dense */
            if (!(fp > 0 && fh == fp / 2))
                fail_msg("%s: %g FLOPs padded, %g at half the tokens", n->name, fp, fh);
            linear++;
        } else if (n->op == OP_MatMul || n->op == OP_Softmax) { /* scores, context */
            if (!(fp > 0 && fh == fp))
                fail_msg("%s: %g FLOPs padded, %g at half the tokens", n->name, fp, fh);
            attention++;
        } else if (n->op == OP_LayerNormalization) {
            assert_true(fp > 0 && fh == fp / 2);
            norms++;
        }
    }
    /* the pooler reads one token per sequence */
    int pooler = fixture_node(p, "pooler.dense");
    assert_true(rp.nodes[pooler].flops > 0 && rh.nodes[pooler].flops == rp.nodes[pooler].flops);
    assert_int_equal(linear, 12 * 6);
    assert_int_equal(attention, 12 * 3);
    assert_int_equal(norms, 12 * 2 + 1);
    /* the live activations follow, the weights do not; so does the time of
     * an engine (eager PyTorch at this batch waits on its host) */
    assert_true(rh.act_peak_mib < rp.act_peak_mib);
    assert_true(rh.weights_mib == rp.weights_mib);
    struct sim_result tp = fixture_run(p, "A100-SXM4-80GB", RT_TENSORRT, 4);
    struct sim_result th = fixture_run(h, "A100-SXM4-80GB", RT_TENSORRT, 4);
    if (!(th.latency_ms < tp.latency_ms))
        fail_msg("tensorrt: %.3f ms padded, %.3f ms at half the tokens", tp.latency_ms,
                 th.latency_ms);
    sim_result_fini(&tp);
    sim_result_fini(&th);
    /* nothing left the padded shapes the report shows */
    assert_int_equal(h->syms[graph_sym_find(h, "seq")].val, 128);
    sim_result_fini(&rp);
    sim_result_fini(&rh);
    graph_free(p);
    graph_free(h);
}

/* tokens_mean = seq, or set and cleared: the padded run exactly. */
static void test_no_padding_is_padded_run(void **state)
{
    (void)state;
    struct graph *p = bert(0), *f = bert(128), *c = bert(64);
    struct diag d = {0};
    assert_int_equal(graph_tokens_set(c, 0, &d), ST_OK);
    assert_true(graph_infer_stale(c));
    assert_int_equal(graph_infer(c, &d), ST_OK);
    enum runtime rts[] = {RT_PYTORCH, RT_TENSORRT, RT_PYTORCH_SDPA};
    for (int k = 0; k < 3; k++) {
        struct sim_result a = fixture_run(p, "A100-SXM4-80GB", rts[k], 4);
        struct sim_result b = fixture_run(f, "A100-SXM4-80GB", rts[k], 4);
        struct sim_result e = fixture_run(c, "A100-SXM4-80GB", rts[k], 4);
        assert_true(a.latency_ms == b.latency_ms && a.latency_ms == e.latency_ms);
        assert_true(a.energy_j == b.energy_j && a.memory_mib == e.memory_mib);
        assert_true(a.memory_mib == b.memory_mib);
        sim_result_fini(&a);
        sim_result_fini(&b);
        sim_result_fini(&e);
    }
    graph_free(p);
    graph_free(f);
    graph_free(c);
}

static void expect_refused(struct graph *g, int64_t tokens, enum status want, const char *what)
{
    struct diag d = {0};
    assert_int_equal(graph_tokens_set(g, tokens, &d), want);
    if (!strstr(d.msg, "tokens_mean") || !strstr(d.msg, what))
        fail_msg("tokens_mean=%lld: '%s' lacks '%s'", (long long)tokens, d.msg, what);
}

static void test_refusals(void **state)
{
    (void)state;
    struct graph *g = fixture_build(BERT, 1, "seq", 128);
    expect_refused(g, 129, ST_ERANGE, "exceeds seq=128");
    expect_refused(g, -1, ST_ERANGE, "expected a token count");
    assert_int_equal(g->tokens, 0);
    /* a sequence rebound below the tokens is refused at inference */
    struct diag d = {0};
    assert_int_equal(graph_tokens_set(g, 100, &d), ST_OK);
    g->syms[graph_sym_find(g, "seq")].val = 64;
    assert_int_equal(graph_infer(g, &d), ST_ERANGE);
    assert_non_null(strstr(d.msg, "tokens_mean=100 exceeds seq=64"));
    graph_free(g);
    struct graph *cnn = fixture_build("zoo:resnet", 1, NULL, 0);
    expect_refused(cnn, 8, ST_EUSAGE, "no sequence symbol");
    graph_free(cnn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tokenwise_work_halves),
        cmocka_unit_test(test_no_padding_is_padded_run),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
