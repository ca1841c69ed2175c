/* pb.c - a tiny protobuf encoder for the ONNX reader's tests, written from
 * the wire-format specification (independent of graph/onnx/onnx_wire.c), and
 * builders for small ONNX models. */
#include "pb.h"

#include <stdlib.h>
#include <string.h>

void pb_raw(struct pb *b, const void *data, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            abort();
    }
    if (n)
        memcpy(b->p + b->n, data, n);
    b->n += n;
}

void pb_free(struct pb *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void pb_varint(struct pb *b, uint64_t v)
{
    uint8_t t[10];
    int k = 0;
    do {
        t[k++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        v >>= 7;
    } while (v);
    pb_raw(b, t, (size_t)k);
}

void pb_key(struct pb *b, unsigned field, unsigned wt)
{
    pb_varint(b, (uint64_t)field << 3 | wt);
}

void pb_int(struct pb *b, unsigned field, int64_t v)
{
    pb_key(b, field, 0);
    pb_varint(b, (uint64_t)v);
}

void pb_bytes(struct pb *b, unsigned field, const void *data, size_t n)
{
    pb_key(b, field, 2);
    pb_varint(b, n);
    pb_raw(b, data, n);
}

void pb_str(struct pb *b, unsigned field, const char *s)
{
    pb_bytes(b, field, s, strlen(s));
}

/* Appends child as a length-delimited field and frees it. */
void pb_msg(struct pb *b, unsigned field, struct pb *child)
{
    pb_bytes(b, field, child->p, child->n);
    free(child->p);
    memset(child, 0, sizeof *child);
}

/* TensorProto with dims, data_type, name and optional raw payload. */
void pb_tensor(struct pb *t, const char *name, int dt, const int64_t *dims, int rank,
               const void *raw, size_t raw_n)
{
    for (int i = 0; i < rank; i++)
        pb_int(t, 1, dims[i]);
    pb_int(t, 2, dt);
    pb_str(t, 8, name);
    if (raw)
        pb_bytes(t, 9, raw, raw_n);
}

/* ValueInfoProto name: float tensor of the given dims ("" = neither value nor
 * param, a non-digit string = dim_param). */
void pb_value_info(struct pb *vi, const char *name, const char *const *dims, int rank)
{
    struct pb shape = {0}, tt = {0}, type = {0};
    for (int i = 0; i < rank; i++) {
        struct pb dm = {0};
        if (dims[i][0] == '-' || (dims[i][0] >= '0' && dims[i][0] <= '9'))
            pb_int(&dm, 1, strtoll(dims[i], NULL, 10));
        else if (dims[i][0])
            pb_str(&dm, 2, dims[i]);
        pb_msg(&shape, 1, &dm);
    }
    pb_int(&tt, 1, 1);
    pb_msg(&tt, 2, &shape);
    pb_msg(&type, 1, &tt);
    pb_str(vi, 1, name);
    pb_msg(vi, 2, &type);
}

void pb_node(struct pb *g, const char *op, const char *name, const char *const *in, int n_in,
             const char *const *out, int n_out, struct pb *attrs, int n_attr)
{
    struct pb nd = {0};
    for (int i = 0; i < n_in; i++)
        pb_str(&nd, 1, in[i]);
    for (int i = 0; i < n_out; i++)
        pb_str(&nd, 2, out[i]);
    if (name)
        pb_str(&nd, 3, name);
    pb_str(&nd, 4, op);
    for (int i = 0; i < n_attr; i++)
        pb_msg(&nd, 5, &attrs[i]);
    pb_msg(g, 1, &nd);
}

void pb_model(struct pb *m, struct pb *graph, int opset)
{
    struct pb os = {0};
    pb_int(m, 1, 8);
    pb_str(m, 2, "test_onnx");
    if (graph)
        pb_msg(m, 7, graph);
    pb_str(&os, 1, "");
    pb_int(&os, 2, opset);
    pb_msg(m, 8, &os);
}

/* The reference model: x[batch, 12, ?] -> Reshape(x, shape) -> r -> MatMul(r, w)
 * -> y, plus a Constant with int64_data; "shape" (old IR) also listed as an
 * input; w carries a full 48 KB payload the reader must skip. */
struct pb pb_ref_model_ex(int opset, bool payload)
{
    struct pb g = {0}, t = {0}, vi = {0}, a = {0}, m = {0};
    const char *xin[] = {"x", "shape"}, *rout[] = {"r"};
    pb_node(&g, "Reshape", "/block/layer.3/Reshape", xin, 2, rout, 1, NULL, 0);
    const char *min[] = {"r", "w"}, *yout[] = {"y"};
    pb_node(&g, "MatMul", NULL, min, 2, yout, 1, NULL, 0);
    /* Constant with value = int64 [3] {4, -5, 6} given as packed int64_data */
    struct pb ct = {0}, packed = {0};
    pb_int(&ct, 1, 3);
    pb_int(&ct, 2, 7);
    pb_varint(&packed, 4);
    pb_varint(&packed, (uint64_t)-5);
    pb_varint(&packed, 6);
    pb_msg(&ct, 7, &packed);
    pb_str(&a, 1, "value");
    pb_int(&a, 20, 4);
    pb_msg(&a, 5, &ct);
    const char *cout[] = {"k"};
    pb_node(&g, "Constant", "c0", NULL, 0, cout, 1, &a, 1);
    pb_str(&g, 2, "ref");
    int64_t shape_dims[] = {2}, shape_val[] = {-1, 12};
    pb_tensor(&t, "shape", 7, shape_dims, 1, shape_val, sizeof shape_val);
    pb_msg(&g, 5, &t);
    int64_t wd[] = {12, 1000};
    float *w = calloc(12000, sizeof *w);
    pb_tensor(&t, "w", 1, wd, 2, payload ? w : NULL, 12000 * sizeof *w);
    free(w);
    pb_msg(&g, 5, &t);
    const char *xd[] = {"batch", "12", ""};
    pb_value_info(&vi, "x", xd, 3);
    pb_msg(&g, 11, &vi);
    const char *sd[] = {"2"};
    pb_value_info(&vi, "shape", sd, 1);
    pb_msg(&g, 11, &vi);
    const char *yd[] = {"batch", "1000"};
    pb_value_info(&vi, "y", yd, 2);
    pb_msg(&g, 12, &vi);
    const char *kd[] = {"3"};
    pb_value_info(&vi, "k", kd, 1);
    pb_msg(&g, 12, &vi);
    const char *rd[] = {"batch", "12"};
    pb_value_info(&vi, "r", rd, 2);
    pb_msg(&g, 13, &vi);
    pb_model(&m, &g, opset);
    return m;
}

struct pb pb_ref_model(int opset)
{
    return pb_ref_model_ex(opset, true);
}
