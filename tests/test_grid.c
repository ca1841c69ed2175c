/* test_grid.c - the two-dimensional sweep (core/grid.h): every cell is the
 * prediction of its configuration (the MIG advisor's for a slice), a
 * precision the runtime cannot run is a cell with a reason, not an error,
 * and bad arguments are refused; the one-dimensional sweep (core/sweep.h)
 * hands over each batch's prediction or its reason, in order, until told
 * to stop; and the largest-batch search (core/max_batch.h) finds the edge
 * of any threshold. Teacher only (no
 * weights needed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/fit.h"
#include "core/gpu.h"
#include "core/grid.h"
#include "core/max_batch.h"
#include "core/sweep.h"
#include "graph/json/json_graph.h"

static struct graph *tiny(void)
{
    char path[4096];
    const char *dir = getenv("SAMPLES_DIR");
    snprintf(path, sizeof path, "%s/tiny_cnn.json", dir ? dir : "samples");
    struct diag d = {0};
    struct graph *g = json_graph_load(path, &d);
    assert_non_null(g);
    return g;
}

static const int64_t batches[] = {1, 8, 1024};

static void expect_cell(struct graph *g, const struct config *c, const struct grid_cell *gc)
{
    struct prediction pr;
    struct diag d = {0};
    assert_int_equal(predict_run(NULL, g, c, &pr, &d), ST_OK);
    assert_true(gc->ok);
    assert_true(gc->latency_ms == pr.latency_ms);
    assert_true(gc->throughput == pr.throughput);
    prediction_fini(&pr);
}

static void test_precision_cells(void **state)
{
    (void)state;
    struct graph *g = tiny();
    struct config cfg;
    config_default(&cfg);
    struct grid *gr = malloc(sizeof *gr);
    struct diag d = {0};
    assert_int_equal(grid_run(NULL, g, &cfg, GRID_PRECISION, batches, 3, 0.1, gr, &d), ST_OK);
    assert_int_equal(gr->n_rows, 3);
    assert_int_equal(gr->n_cols, PREC__COUNT);
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < PREC__COUNT; k++) {
            struct config c = gr->col[k];
            c.batch = batches[r];
            if (k == PREC_INT8 || k == PREC_FP8) { /* eager PyTorch has no int8 or fp8 path */
                assert_false(gr->cell[r][k].ok);
                continue;
            }
            expect_cell(g, &c, &gr->cell[r][k]);
        }
    assert_non_null(strstr(gr->col_why[PREC_INT8], "int8"));
    assert_string_equal(gr->col_why[PREC_FP32], "");
    free(gr);
    graph_free(g);
}

static void test_slice_cells(void **state)
{
    (void)state;
    struct graph *g = tiny();
    struct config cfg;
    config_default(&cfg);
    struct grid *gr = malloc(sizeof *gr);
    struct diag d = {0};
    assert_int_equal(grid_run(NULL, g, &cfg, GRID_SLICE, batches, 3, 0.1, gr, &d), ST_OK);
    const struct gpu_spec *gs = gpu_get(cfg.gpu);
    int idx[MIG_MAX_PROFILES];
    int n = mig_profile_order(gs, idx);
    assert_int_equal(gr->n_cols, n + 1);
    assert_string_equal(gr->col_name[n], "full GPU");
    for (int r = 0; r < 3; r++) {
        struct config c = cfg;
        c.batch = batches[r];
        struct mig_advice adv;
        assert_int_equal(mig_advise(NULL, g, &c, 0.1, 0, &adv, &d), ST_OK);
        for (int k = 0; k < n; k++) {
            assert_string_equal(gr->col_name[k], gs->mig[idx[k]].name);
            c.mig = idx[k];
            expect_cell(g, &c, &gr->cell[r][k]);
            assert_true(gr->cell[r][k].memory_mib == adv.opts[k].memory_mib);
            assert_true(gr->cell[r][k].fits == adv.opts[k].fits);
        }
        c.mig = -1;
        expect_cell(g, &c, &gr->cell[r][n]);
    }
    free(gr);
    graph_free(g);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    struct graph *g = tiny();
    struct config cfg;
    config_default(&cfg);
    struct grid *gr = malloc(sizeof *gr);
    struct diag d = {0};
    assert_int_equal(grid_run(NULL, g, &cfg, GRID_SLICE, batches, 0, 0.1, gr, &d), ST_ERANGE);
    assert_non_null(strstr(d.msg, "batches"));
    assert_int_equal(grid_run(NULL, g, &cfg, GRID__AXES, batches, 3, 0.1, gr, &d), ST_ERANGE);
    cfg.gpu = 9999;
    assert_int_equal(grid_run(NULL, g, &cfg, GRID_SLICE, batches, 3, 0.1, gr, &d), ST_ERANGE);
    free(gr);
    graph_free(g);
}

/* What the sweep handed over: each point's batch, status, latency. */
struct seen {
    int n, stop_after;
    int64_t batch[4];
    enum status st[4];
    double latency_ms[4];
    char why[4][DIAG_MSG_MAX];
};

static bool see(void *ctx, const struct sweep_point *pt)
{
    struct seen *s = ctx;
    assert_int_equal(pt->i, s->n);
    s->batch[s->n] = pt->batch;
    s->st[s->n] = pt->st;
    s->latency_ms[s->n] = pt->pass.latency_ms;
    snprintf(s->why[s->n], sizeof s->why[0], "%s", pt->why.msg);
    return ++s->n != s->stop_after;
}

static void test_sweep_batches(void **state)
{
    (void)state;
    struct graph *g = tiny();
    struct config cfg;
    config_default(&cfg);
    struct sweep_job job = {.w = WORKLOAD_PASS, .g = g, .cfg = &cfg};
    struct seen s = {0};
    sweep_batches(&job, batches, 3, see, &s);
    assert_int_equal(s.n, 3);
    for (int i = 0; i < 3; i++) {
        struct config c = cfg;
        c.batch = batches[i];
        struct prediction pr;
        struct diag d = {0};
        assert_int_equal(predict_run(NULL, g, &c, &pr, &d), ST_OK);
        assert_int_equal(s.batch[i], batches[i]);
        assert_int_equal(s.st[i], ST_OK);
        assert_true(s.latency_ms[i] == pr.latency_ms);
        prediction_fini(&pr);
    }
    cfg.prec = PREC_INT8; /* eager PyTorch has no int8 path: each point says why */
    s = (struct seen){.stop_after = 2};
    sweep_batches(&job, batches, 3, see, &s);
    assert_int_equal(s.n, 2);
    assert_int_not_equal(s.st[0], ST_OK);
    assert_non_null(strstr(s.why[1], "int8"));
    graph_free(g);
}

/* Accepts the batches up to edge; fails with ST_ENOMEM at batch boom. */
struct edge_probe {
    int64_t edge, boom;
    int calls;
};

static enum status edge_probe(void *ctx, int64_t b, bool *ok, struct diag *d)
{
    struct edge_probe *e = ctx;
    e->calls++;
    if (b == e->boom)
        return diag_set(d, ST_ENOMEM, "boom at %lld", (long long)b);
    *ok = b <= e->edge;
    return ST_OK;
}

static void test_max_batch_find(void **state)
{
    (void)state;
    const int64_t edges[] = {1, 2, 3, 5, 64, 100, 1000, 999};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) {
        struct edge_probe e = {edges[i], -1, 0};
        int64_t best, fail;
        struct diag d = {0};
        assert_int_equal(max_batch_find(1024, edge_probe, &e, &best, &fail, &d), ST_OK);
        assert_int_equal(best, edges[i]);
        if (edges[i] < 1024)
            assert_int_equal(fail, edges[i] + 1);
        assert_true(e.calls <= 21); /* doubling then bisection, not a scan */
    }
    struct edge_probe none = {0, -1, 0}, all = {1 << 30, -1, 0}, err = {100, 96, 0};
    int64_t best, fail;
    struct diag d = {0};
    assert_int_equal(max_batch_find(1024, edge_probe, &none, &best, &fail, &d), ST_OK);
    assert_int_equal(best, 0);
    assert_int_equal(fail, 1);
    assert_int_equal(none.calls, 1);
    assert_int_equal(max_batch_find(1024, edge_probe, &all, &best, &fail, &d), ST_OK);
    assert_int_equal(best, 1024);
    assert_int_equal(max_batch_find(1024, edge_probe, &err, &best, &fail, &d), ST_ENOMEM);
    assert_non_null(strstr(d.msg, "boom at 96"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_precision_cells),
        cmocka_unit_test(test_slice_cells),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_sweep_batches),
        cmocka_unit_test(test_max_batch_find),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
