/*
 * test_corpus.c - the real-model corpus (tests/models/corpus, listed with
 * source and licence in SOURCES): every file loads, every node is counted,
 * and the counts equal reference figures computed without dippm by
 * tools/export_corpus.py (expected.json): node count and initializer
 * elements from python onnx (subgraphs included), MACs of the Conv/Linear
 * modules from torch forward hooks, torchvision's published parameter count.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "graph/ir/ir.h"
#include "graph/onnx/onnx_load.h"
#include "graph/ops/shape.h"

static cJSON *expected;

/* Input sizes a model needs beyond the symbols' defaults: silero-vad takes
 * 512 samples per call at 16 kHz (the defaults give a window shorter than
 * its STFT kernel, which dippm rightly refuses). */
static const struct {
    const char *model, *sym;
    int64_t v;
} binds[] = {
    {"silero_vad_legacy", "sequence", 512},
    {"silero_vad_v5", "input.1", 512},
};

static const char *top(void)
{
    const char *t = getenv("TOP_SRCDIR");
    return t ? t : ".";
}

static double init_elems(const struct graph *g)
{
    double sum = 0;
    for (int vi = 0; vi < g->n_values; vi++) {
        const struct value *v = &g->values[vi];
        if (!(v->flags & VAL_INIT))
            continue;
        double e = 1;
        for (int i = 0; i < v->rank; i++)
            e *= (double)v->dims[i].v;
        sum += e;
    }
    return sum;
}

static double num(const cJSON *m, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static void check_model(const cJSON *m)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/models/corpus/%s.onnx", top(), m->string);
    struct diag d;
    diag_clear(&d);
    struct graph *g = onnx_load_file(path, &d);
    if (!g)
        fail_msg("%s", d.msg);
    if (g->n_nodes != num(m, "nodes"))
        fail_msg("%s: %d nodes, python onnx counts %.0f", m->string, g->n_nodes, num(m, "nodes"));
    if (init_elems(g) != num(m, "init_elems"))
        fail_msg("%s: %.0f initializer elements, python onnx counts %.0f", m->string,
                 init_elems(g), num(m, "init_elems"));
    for (size_t i = 0; i < sizeof binds / sizeof binds[0]; i++)
        if (!strcmp(binds[i].model, m->string) && graph_sym_set(g, binds[i].sym, binds[i].v, &d))
            fail_msg("%s: %s", m->string, d.msg);
    /* sizes the reference figures were computed at ("bind" in expected.json) */
    const cJSON *bind = cJSON_GetObjectItemCaseSensitive(m, "bind");
    for (const cJSON *b = bind ? bind->child : NULL; b; b = b->next)
        if (graph_sym_set(g, b->string, (int64_t)b->valuedouble, &d))
            fail_msg("%s: %s", m->string, d.msg);
    if (graph_infer(g, &d))
        fail_msg("%s: %s", m->string, d.msg);
    const struct graph_totals *t = &g->totals;
    if (t->n_unsupported + t->n_unknown)
        fail_msg("%s: %d nodes not covered, %d with unknown inputs", m->string, t->n_unsupported,
                 t->n_unknown);
    for (int i = 0; i < g->n_outputs; i++)
        if (!g->values[g->outputs[i]].shape.known)
            fail_msg("%s: output '%s' has no shape", m->string, g->values[g->outputs[i]].name);
    double macs = num(m, "torch_macs");
    if (macs > 0 && fabs(t->macs - macs) > 0.001 * macs)
        fail_msg("%s: %.0f MACs, torch hooks count %.0f", m->string, t->macs, macs);
    double params = num(m, "num_params");
    if (params > 0 && t->params != params)
        fail_msg("%s: %.0f parameters, torchvision publishes %.0f", m->string, t->params, params);
    graph_free(g);
}

static void test_corpus(void **state)
{
    (void)state;
    int n = 0;
    for (const cJSON *m = expected->child; m; m = m->next, n++)
        check_model(m);
    assert_true(n >= 10);
}

int main(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/models/corpus/expected.json", top());
    size_t len;
    struct diag d;
    char *text = NULL;
    if (file_read_all(path, 1 << 22, &text, &len, &d) || !(expected = cJSON_Parse(text))) {
        fprintf(stderr, "test_corpus: cannot read %s\n", path);
        return 1;
    }
    free(text);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_corpus)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cJSON_Delete(expected);
    return rc;
}
