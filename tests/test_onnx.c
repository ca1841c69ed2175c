/*
 * test_onnx.c - the ONNX reader: every sample loads with the node,
 * initializer and input counts recorded by tools/export_samples.py from the
 * ONNX file itself (samples/samples.json, written at export time); the
 * initializer dims reproduce torch's own parameter count; hand-encoded
 * models check symbols, small integer contents and old-IR inputs; corrupted
 * buffers (truncated at every offset, wrong wire types, huge lengths, absurd
 * dims, deep nesting, random byte flips) fail with a status and a message.
 * With shape inference: every output shape resolves, params equal
 * torchvision's published count, MACs within 3% of its published GFLOPS.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "graph/ir/ir.h"
#include "graph/onnx/onnx_load.h"
#include "graph/ops/shape.h"
#include "pb.h"

static struct graph *load(const struct pb *b, struct diag *d)
{
    diag_clear(d);
    return onnx_load_buffer(b->p, b->n, "t.onnx", d);
}

/* Expects failure with code st and a message containing needle. */
static void expect_fail(const struct pb *b, enum status st, const char *needle)
{
    struct diag d;
    struct graph *g = load(b, &d);
    if (g || d.code != st || !strstr(d.msg, needle))
        fail_msg("expected %s with '%s', got %s: %s", status_str(st), needle,
                 g ? "success" : status_str(d.code), d.msg);
}

/* ---- hand-built models --------------------------------------------------- */

static void test_reference_model(void **state)
{
    (void)state;
    struct pb m = pb_ref_model(13);
    struct diag d;
    struct graph *g = load(&m, &d);
    if (!g)
        fail_msg("%s", d.msg);
    assert_string_equal(g->format, "onnx");
    assert_int_equal(g->opset, 13);
    assert_int_equal(g->n_nodes, 3);
    assert_int_equal(g->n_inputs, 1); /* "shape" is an initializer, not an input */
    const struct value *x = &g->values[g->inputs[0]];
    assert_string_equal(x->name, "x");
    assert_int_equal(x->rank, 3);
    assert_string_equal(g->syms[x->dims[0].sym].name, "batch");
    assert_int_equal(x->dims[1].sym, -1);
    assert_int_equal(x->dims[1].v, 12);
    assert_true(x->dims[2].sym >= 0); /* neither value nor param: generated symbol */
    assert_int_equal(graph_batch_sym(g), x->dims[0].sym);

    const struct value *s = &g->values[graph_value_find(g, "shape")];
    assert_true(s->flags & VAL_INIT);
    assert_false(s->flags & VAL_INPUT);
    assert_non_null(s->data);
    assert_non_null(s->data->i64);
    assert_int_equal(s->data->n, 2);
    assert_int_equal(s->data->i64[0], -1);
    assert_int_equal(s->data->i64[1], 12);

    const struct value *w = &g->values[graph_value_find(g, "w")];
    assert_true(w->flags & VAL_INIT);
    assert_null(w->data); /* 12,000 floats: payload never kept */
    assert_int_equal(w->rank, 2);
    assert_int_equal(w->dims[0].v, 12);
    assert_int_equal(w->dims[1].v, 1000);
    assert_int_equal(w->dtype, DT_FLOAT);

    const struct value *r = &g->values[graph_value_find(g, "r")];
    assert_int_equal(r->rank, 2); /* from value_info */
    assert_int_equal(r->dims[0].sym, x->dims[0].sym);

    const struct node *c = NULL, *rs = NULL;
    for (int i = 0; i < g->n_nodes; i++) {
        if (!strcmp(g->nodes[i].op_type, "Constant"))
            c = &g->nodes[i];
        if (!strcmp(g->nodes[i].op_type, "Reshape"))
            rs = &g->nodes[i];
    }
    assert_non_null(c);
    const struct attr *a = node_attr(c, "value");
    assert_non_null(a);
    assert_int_equal(a->type, ATTR_TENSOR);
    assert_int_equal(a->t->n, 3);
    assert_non_null(a->t->i64);
    assert_int_equal(a->t->i64[0], 4);
    assert_int_equal(a->t->i64[1], -5);
    assert_int_equal(a->t->i64[2], 6);
    assert_non_null(rs);
    assert_string_equal(rs->block, "layer.3");
    graph_free(g);
    pb_free(&m);
}

static void test_subgraph_attr(void **state)
{
    (void)state;
    struct pb g = {0}, body = {0}, a = {0}, m = {0}, vi = {0};
    /* the body reads the outer input "c" (outer-scope reference) */
    const char *bin[] = {"c"}, *bout[] = {"z"};
    pb_node(&body, "Relu", "r", bin, 1, bout, 1, NULL, 0);
    pb_value_info(&vi, "z", NULL, 0);
    pb_msg(&body, 12, &vi);
    pb_str(&a, 1, "then_branch");
    pb_int(&a, 20, 5);
    pb_msg(&a, 6, &body);
    const char *in[] = {"c"}, *out[] = {"y"};
    pb_node(&g, "If", "if0", in, 1, out, 1, &a, 1);
    const char *cd[] = {"1"};
    pb_value_info(&vi, "c", cd, 1);
    pb_msg(&g, 11, &vi);
    pb_value_info(&vi, "y", cd, 1);
    pb_msg(&g, 12, &vi);
    pb_model(&m, &g, 17);
    struct diag d;
    struct graph *gr = load(&m, &d);
    if (!gr)
        fail_msg("%s", d.msg);
    const struct attr *at = node_attr(&gr->nodes[0], "then_branch");
    assert_non_null(at);
    assert_int_equal(at->type, ATTR_GRAPH);
    /* the body is flattened into the graph under the If's name */
    assert_int_equal(gr->n_nodes, 2);
    assert_int_equal(gr->nodes[0].n_body, 1);
    assert_string_equal(gr->nodes[1].name, "if0/then/r");
    assert_int_equal(gr->nodes[1].parent, 0);
    assert_string_equal(gr->values[gr->nodes[1].in[0]].name, "c");
    assert_string_equal(gr->values[gr->nodes[1].out[0]].name, "if0/then/z");
    /* an If needs both branches: inference must not claim the node */
    struct diag e;
    diag_clear(&e);
    assert_int_equal(graph_infer(gr, &e), ST_ESHAPE);
    assert_int_equal(gr->nodes[0].state, NODE_UNSUPPORTED);
    assert_non_null(strstr(e.msg, "expected 2"));
    graph_free(gr);
    pb_free(&m);
}

static void test_opset_range_and_forms(void **state)
{
    (void)state;
    for (int opset = 7; opset <= 21; opset += 14) {
        struct pb m = pb_ref_model(opset);
        struct diag d;
        struct graph *g = load(&m, &d);
        if (!g)
            fail_msg("opset %d: %s", opset, d.msg);
        assert_int_equal(g->opset, opset);
        graph_free(g);
        pb_free(&m);
    }
    /* packed dims, external data, and a sparse initializer */
    struct pb g = {0}, t = {0}, m = {0}, packed = {0}, ext = {0}, sp = {0}, vals = {0};
    pb_varint(&packed, 64);
    pb_varint(&packed, 32);
    pb_msg(&t, 1, &packed);
    pb_int(&t, 2, 1);
    pb_str(&t, 8, "ext_w");
    pb_str(&ext, 1, "location");
    pb_str(&ext, 2, "weights.bin");
    pb_msg(&t, 13, &ext);
    pb_int(&t, 14, 1);
    pb_msg(&g, 5, &t);
    int64_t nnz[] = {5};
    pb_tensor(&vals, "sp_w", 1, nnz, 1, NULL, 0);
    pb_msg(&sp, 1, &vals);
    pb_int(&sp, 3, 100);
    pb_int(&sp, 3, 10);
    pb_msg(&g, 15, &sp);
    pb_model(&m, &g, 13);
    struct diag d;
    struct graph *gr = load(&m, &d);
    if (!gr)
        fail_msg("%s", d.msg);
    const struct value *w = &gr->values[graph_value_find(gr, "ext_w")];
    assert_true(w->flags & VAL_INIT);
    assert_int_equal(w->rank, 2);
    assert_int_equal(w->dims[0].v, 64);
    assert_int_equal(w->dims[1].v, 32);
    assert_null(w->data);
    const struct value *s = &gr->values[graph_value_find(gr, "sp_w")];
    assert_true(s->flags & VAL_INIT);
    assert_int_equal(s->rank, 2); /* the dense shape */
    assert_int_equal(s->dims[0].v, 100);
    assert_int_equal(s->dims[1].v, 10);
    graph_free(gr);
    pb_free(&m);
}

static void test_field_order_and_names(void **state)
{
    (void)state;
    /* raw_data before dims and data_type: the contents are still kept */
    struct pb g = {0}, t = {0}, m = {0}, vi = {0};
    int64_t vals[] = {7, 8, 9};
    pb_bytes(&t, 9, vals, sizeof vals);
    pb_str(&t, 8, "axes");
    pb_int(&t, 1, 3);
    pb_int(&t, 2, 7);
    pb_msg(&g, 5, &t);
    /* two nodes with the same name (ONNX does not require unique names) */
    const char *in1[] = {"x"}, *out1[] = {"a"}, *in2[] = {"a"}, *out2[] = {"b"};
    pb_node(&g, "Relu", "same", in1, 1, out1, 1, NULL, 0);
    pb_node(&g, "Relu", "same", in2, 1, out2, 1, NULL, 0);
    const char *xd[] = {"N", "4"};
    pb_value_info(&vi, "x", xd, 2);
    pb_msg(&g, 11, &vi);
    pb_value_info(&vi, "b", xd, 2);
    pb_msg(&g, 12, &vi);
    pb_model(&m, &g, 11);
    struct diag d;
    struct graph *gr = load(&m, &d);
    if (!gr)
        fail_msg("%s", d.msg);
    const struct value *a = &gr->values[graph_value_find(gr, "axes")];
    assert_non_null(a->data);
    assert_non_null(a->data->i64);
    assert_int_equal(a->data->i64[2], 9);
    assert_string_equal(gr->nodes[0].name, "same");
    assert_string_equal(gr->nodes[1].name, "same#2");
    assert_int_equal(graph_batch_sym(gr), graph_sym_find(gr, "N"));
    graph_free(gr);
    pb_free(&m);
}

/* ---- corrupted inputs ---------------------------------------------------- */

static void expect_truncated(const struct pb *m, size_t cut)
{
    struct diag d;
    diag_clear(&d);
    struct graph *g = onnx_load_buffer(m->p, cut, "t.onnx", &d);
    if (g)
        fail_msg("truncated at %zu of %zu bytes: loaded anyway", cut, m->n);
    if (d.code != ST_EPARSE || !d.msg[0])
        fail_msg("truncated at %zu: %s '%s'", cut, status_str(d.code), d.msg);
    if (cut == 0)
        assert_non_null(strstr(d.msg, "empty"));
}

static void test_truncation_every_offset(void **state)
{
    (void)state;
    /* every offset of the model without the weight payload ... */
    struct pb m = pb_ref_model_ex(13, false);
    for (size_t cut = 0; cut < m.n; cut++)
        expect_truncated(&m, cut);
    pb_free(&m);
    /* ... and every 97th offset of the one with a 48 KB payload */
    m = pb_ref_model(13);
    for (size_t cut = 0; cut < m.n; cut += 97)
        expect_truncated(&m, cut);
    expect_truncated(&m, m.n - 1);
    pb_free(&m);
}

static void test_wire_types(void **state)
{
    (void)state;
    struct pb m = pb_ref_model(13);
    /* ModelProto field 7 (graph) key is 0x3a; make it 32-bit, then a group. */
    uint8_t *k = memchr(m.p, 0x3a, m.n);
    assert_non_null(k);
    *k = 7 << 3 | 5;
    expect_fail(&m, ST_EPARSE, "wire type 5");
    *k = 7 << 3 | 3;
    expect_fail(&m, ST_EPARSE, "group");
    *k = 7 << 3 | 7;
    expect_fail(&m, ST_EPARSE, "wire type 7");
    pb_free(&m);

    /* ir_version (a varint) sent as length-delimited */
    struct pb b = {0};
    pb_str(&b, 1, "eight");
    expect_fail(&b, ST_EPARSE, "ir_version");
    pb_free(&b);
}

static void test_huge_length(void **state)
{
    (void)state;
    struct pb b = {0};
    pb_int(&b, 1, 8);
    pb_key(&b, 7, 2);
    pb_varint(&b, (uint64_t)1 << 40);
    pb_raw(&b, "abcdefgh", 8);
    expect_fail(&b, ST_EPARSE, "declares 1099511627776 bytes");
    pb_free(&b);
    /* an 11-byte varint */
    struct pb v = {0};
    pb_key(&v, 1, 0);
    pb_raw(&v, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
    expect_fail(&v, ST_EPARSE, "malformed varint");
    pb_free(&v);
}

static struct pb one_init_model(const int64_t *dims, int rank, int dt, const void *raw,
                                size_t raw_n)
{
    struct pb g = {0}, t = {0}, m = {0};
    pb_tensor(&t, "t0", dt, dims, rank, raw, raw_n);
    pb_msg(&g, 5, &t);
    pb_model(&m, &g, 13);
    return m;
}

static void test_bad_dims(void **state)
{
    (void)state;
    int64_t neg[] = {3, -5};
    struct pb m = one_init_model(neg, 2, 1, NULL, 0);
    expect_fail(&m, ST_EPARSE, "dim 1 = -5");
    pb_free(&m);
    int64_t huge[] = {1 << 30, 1 << 30, 4};
    m = one_init_model(huge, 3, 1, NULL, 0);
    expect_fail(&m, ST_EPARSE, "2^40");
    pb_free(&m);
    int64_t small[] = {2};
    int64_t vals[] = {1, 2};
    m = one_init_model(small, 1, 7, vals, 12); /* 12 bytes for 2 int64 */
    expect_fail(&m, ST_EPARSE, "raw_data holds 12 bytes, expected 16");
    pb_free(&m);
    m = one_init_model(small, 1, 99, NULL, 0);
    expect_fail(&m, ST_EPARSE, "data_type 99");
    pb_free(&m);

    struct pb g = {0}, vi = {0};
    const char *xd[] = {"1", "-7"};
    pb_value_info(&vi, "x", xd, 2);
    pb_msg(&g, 11, &vi);
    pb_model(&m, &g, 13);
    expect_fail(&m, ST_EPARSE, "dim 1 = -7");
    pb_free(&m);
}

static void test_structure_errors(void **state)
{
    (void)state;
    struct pb m = {0}, g = {0};
    pb_model(&m, NULL, 13);
    expect_fail(&m, ST_EPARSE, "no graph");
    pb_free(&m);

    const char *in[] = {"x"}, *out[] = {"y"};
    pb_node(&g, "", "n0", in, 1, out, 1, NULL, 0);
    pb_model(&m, &g, 13);
    expect_fail(&m, ST_EPARSE, "empty op_type");
    pb_free(&m);

    m = pb_ref_model(5);
    expect_fail(&m, ST_EUNSUPPORTED, "opset 5");
    pb_free(&m);
    m = pb_ref_model(22);
    expect_fail(&m, ST_EUNSUPPORTED, "opset 22");
    pb_free(&m);

    /* graph without opset_import */
    struct pb g2 = {0};
    pb_node(&g2, "Relu", NULL, in, 1, out, 1, NULL, 0);
    pb_msg(&m, 7, &g2);
    expect_fail(&m, ST_EPARSE, "opset_import");
    pb_free(&m);

    /* a dangling node input is the IR's error, prefixed with the file */
    pb_node(&g, "Relu", "r0", in, 1, out, 1, NULL, 0);
    pb_model(&m, &g, 13);
    expect_fail(&m, ST_EGRAPH, "t.onnx");
    pb_free(&m);
}

static void test_deep_nesting(void **state)
{
    (void)state;
    /* Graph -> Node -> Attribute(g) -> Graph ... 40 times: 120 levels. */
    struct pb inner = {0};
    for (int i = 0; i < 40; i++) {
        struct pb a = {0}, g = {0};
        pb_str(&a, 1, "body");
        pb_int(&a, 20, 5);
        pb_msg(&a, 6, &inner);
        const char *in[] = {"x"}, *out[] = {"y"};
        pb_node(&g, "Loop", NULL, in, 1, out, 1, &a, 1);
        inner = g;
    }
    struct pb m = {0};
    pb_model(&m, &inner, 13);
    expect_fail(&m, ST_EPARSE, "nested deeper than 64");
    pb_free(&m);
}

static void test_not_onnx(void **state)
{
    (void)state;
    const char *texts[] = {"hello, this is not a model\n", "{\"format\": \"dippm-graph\"}",
                           "\x89PNG\r\n\x1a\n\0\0\0\rIHDR"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        struct pb b = {0};
        pb_raw(&b, texts[i], strlen(texts[i]) + (i == 2 ? 8 : 0));
        struct diag d;
        struct graph *g = load(&b, &d);
        if (g || d.code != ST_EPARSE || !d.msg[0])
            fail_msg("text %zu: %s", i, g ? "loaded" : d.msg);
        pb_free(&b);
    }
    struct diag d;
    diag_clear(&d);
    const char *dir = getenv("SAMPLES_DIR") ? getenv("SAMPLES_DIR") : ".";
    assert_null(onnx_load_file(dir, &d));
    assert_non_null(strstr(d.msg, "directory"));
    diag_clear(&d);
    assert_null(onnx_load_file("/nonexistent/model.onnx", &d));
    assert_int_equal(d.code, ST_ENOTFOUND);
}

static void test_random_flips(void **state)
{
    (void)state;
    struct pb m = pb_ref_model_ex(13, false); /* flips land in structure, not payload */
    uint8_t *copy = malloc(m.n);
    uint32_t seed = 12345;
    int loaded = 0;
    for (int it = 0; it < 3000; it++) {
        memcpy(copy, m.p, m.n);
        for (int k = 0; k < 1 + it % 4; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % m.n;
            seed = seed * 1103515245u + 12345u;
            copy[at] ^= (uint8_t)(1u << ((seed >> 16) % 8));
        }
        struct diag d;
        diag_clear(&d);
        struct graph *g = onnx_load_buffer(copy, m.n, "f.onnx", &d);
        if (g) {
            loaded++;
            graph_free(g);
        } else if (d.code == ST_OK || !d.msg[0]) {
            fail_msg("iteration %d: failed without a message", it);
        }
    }
    print_message("random flips: %d of 3000 still loaded\n", loaded);
    free(copy);
    pb_free(&m);
}

/* ---- samples ------------------------------------------------------------- */

static cJSON *samples_meta(void)
{
    const char *dir = getenv("SAMPLES_DIR");
    if (!dir)
        dir = "samples";
    char path[1024];
    snprintf(path, sizeof path, "%s/samples.json", dir);
    char *text;
    size_t len;
    struct diag d;
    if (file_read_all(path, 1 << 22, &text, &len, &d))
        fail_msg("%s", d.msg);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    return root;
}

static struct graph *load_sample(const cJSON *s)
{
    const char *dir = getenv("SAMPLES_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "samples",
             cJSON_GetObjectItem(s, "file")->valuestring);
    struct diag d;
    diag_clear(&d);
    struct graph *g = onnx_load_file(path, &d);
    if (!g)
        fail_msg("%s", d.msg);
    return g;
}

static int count_op(const struct graph *g, const char *op)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++)
        n += !strcmp(g->nodes[i].op_type, op);
    return n;
}

static void test_samples_load(void **state)
{
    (void)state;
    cJSON *root = samples_meta();
    const cJSON *s;
    int n = 0;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(root, "samples"))
    {
        const char *name = cJSON_GetObjectItem(s, "name")->valuestring;
        struct graph *g = load_sample(s);
        n++;
        assert_int_equal(g->opset, cJSON_GetObjectItem(s, "opset")->valueint);
        assert_int_equal(g->n_nodes, cJSON_GetObjectItem(s, "nodes")->valueint);
        int n_init = 0;
        for (int i = 0; i < g->n_values; i++)
            n_init += (g->values[i].flags & VAL_INIT) != 0;
        assert_int_equal(n_init, cJSON_GetObjectItem(s, "initializers")->valueint);
        const cJSON *ops = cJSON_GetObjectItem(s, "op_counts"), *op;
        cJSON_ArrayForEach(op, ops)
        {
            if (count_op(g, op->string) != op->valueint)
                fail_msg("%s: %d %s nodes, export recorded %d", name, count_op(g, op->string),
                         op->string, op->valueint);
        }
        /* inputs: names and dims (symbol names or fixed values) */
        const cJSON *ins = cJSON_GetObjectItem(s, "inputs"), *in;
        assert_int_equal(g->n_inputs, cJSON_GetArraySize(ins));
        int k = 0;
        cJSON_ArrayForEach(in, ins)
        {
            const struct value *v = &g->values[g->inputs[k++]];
            assert_string_equal(v->name, cJSON_GetObjectItem(in, "name")->valuestring);
            const cJSON *shape = cJSON_GetObjectItem(in, "shape"), *dm;
            assert_int_equal(v->rank, cJSON_GetArraySize(shape));
            int j = 0;
            cJSON_ArrayForEach(dm, shape)
            {
                if (cJSON_IsString(dm)) {
                    assert_true(v->dims[j].sym >= 0);
                    assert_string_equal(g->syms[v->dims[j].sym].name, dm->valuestring);
                } else {
                    assert_int_equal(v->dims[j].sym, -1);
                    assert_int_equal(v->dims[j].v, dm->valueint);
                }
                j++;
            }
        }
        /* float initializer elements, less BN running statistics, from the
         * IR's dims must equal torch's sum(p.numel()) */
        double params = 0;
        for (int i = 0; i < g->n_values; i++) {
            const struct value *v = &g->values[i];
            if (!(v->flags & VAL_INIT) || !dtype_is_float(v->dtype))
                continue;
            bool bn_stat = false;
            for (int c = 0; c < v->n_consumers; c++) {
                const struct node *nd = &g->nodes[v->consumers[c]];
                if (!strcmp(nd->op_type, "BatchNormalization") && nd->n_in >= 5 &&
                    (nd->in[3] == i || nd->in[4] == i))
                    bn_stat = true;
            }
            double e = 1;
            for (int j = 0; j < v->rank; j++)
                e *= (double)v->dims[j].v;
            params += bn_stat ? 0 : e;
        }
        double want = cJSON_GetObjectItem(s, "torch_params")->valuedouble;
        if (params != want)
            fail_msg("%s: %.0f parameters from initializer dims, torch counted %.0f", name, params,
                     want);
        /* small integer initializers and small Constant tensors keep contents */
        const cJSON *kept = cJSON_GetObjectItem(s, "kept_int_initializers"), *kn;
        cJSON_ArrayForEach(kn, kept)
        {
            int vi = graph_value_find(g, kn->valuestring);
            assert_true(vi >= 0);
            assert_non_null(g->values[vi].data);
            assert_non_null(g->values[vi].data->i64);
        }
        for (int i = 0; i < g->n_nodes; i++) {
            if (strcmp(g->nodes[i].op_type, "Constant"))
                continue;
            const struct attr *a = node_attr(&g->nodes[i], "value");
            assert_non_null(a);
            if (a->t->n <= 16 && a->t->n > 0 && !a->t->i64 && !a->t->f64)
                fail_msg("%s: Constant '%s' lost its contents", name, g->nodes[i].name);
        }
        graph_free(g);
    }
    assert_true(n >= 6);
    cJSON_Delete(root);
}

/* Needs graph/ops/shape.c (graph_infer) and its cost model. */
static void test_samples_infer(void **state)
{
    (void)state;
    cJSON *root = samples_meta();
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(root, "samples"))
    {
        const char *name = cJSON_GetObjectItem(s, "name")->valuestring;
        struct graph *g = load_sample(s);
        struct diag d;
        diag_clear(&d);
        enum status st = graph_infer(g, &d);
        if (st)
            fail_msg("%s: graph_infer: %s", name, d.msg);
        for (int i = 0; i < g->n_outputs; i++)
            if (!g->values[g->outputs[i]].shape.known)
                fail_msg("%s: output '%s' shape unresolved (%d unsupported, %d unknown)", name,
                         g->values[g->outputs[i]].name, g->totals.n_unsupported,
                         g->totals.n_unknown);
        const cJSON *tp = cJSON_GetObjectItem(s, "torchvision_params");
        const cJSON *gf = cJSON_GetObjectItem(s, "torchvision_gflops");
        if (tp && g->totals.params != tp->valuedouble)
            fail_msg("%s: params %.0f, torchvision publishes %.0f", name, g->totals.params,
                     tp->valuedouble);
        if (gf) {
            double want = gf->valuedouble * 1e9, got = g->totals.macs;
            if (fabs(got - want) > 0.03 * want)
                fail_msg("%s: %.4g MACs at batch 1, torchvision publishes %.4g (over 3%% off)",
                         name, got, want);
            print_message("%-20s params %.0f  MACs %.4g G (published %.3f G, %+.2f%%)\n", name,
                          g->totals.params, got / 1e9, gf->valuedouble, 100 * (got - want) / want);
        }
        graph_free(g);
    }
    cJSON_Delete(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_model),
        cmocka_unit_test(test_subgraph_attr),
        cmocka_unit_test(test_opset_range_and_forms),
        cmocka_unit_test(test_field_order_and_names),
        cmocka_unit_test(test_truncation_every_offset),
        cmocka_unit_test(test_wire_types),
        cmocka_unit_test(test_huge_length),
        cmocka_unit_test(test_bad_dims),
        cmocka_unit_test(test_structure_errors),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_not_onnx),
        cmocka_unit_test(test_random_flips),
        cmocka_unit_test(test_samples_load),
        cmocka_unit_test(test_samples_infer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
