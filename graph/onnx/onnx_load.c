/*
 * onnx_load.c - ONNX ModelProto -> IR. The file is mapped, decoded and
 * validated by onnx_wire.c into protobuf-c's structures (payloads left out)
 * and copied into the graph's arena; the tree is freed before return.
 *
 * Dims: dim_value -> fixed; dim_param on a graph input -> graph symbol (the
 * same name everywhere is the same symbol); dim_param elsewhere -> that
 * symbol if an input declared it, else an unknown dim; a graph-input dim with
 * neither -> a generated symbol "<input>.<axis>" (default 1) so the user can
 * bind it; elsewhere -> unknown; dim_value -1 (a convention of some
 * converters) -> unknown. Symbol defaults: batch-like names 1, names with
 * "seq"/"token" 128, "height"/"width" 224, others 1.
 */
#include "graph/onnx/onnx_load.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/arena.h"
#include "onnx.pb-c.h"
#include "graph/onnx/onnx_impl.h"
#include "graph/onnx/onnx_load_impl.h"
#include "util/strmap.h"
#include "util/xalloc.h"

#define MIN_OPSET 7
#define MAX_OPSET 21

/* ---- symbols and dims ---------------------------------------------------- */

static bool contains_ci(const char *s, const char *word)
{
    for (size_t n = strlen(word); *s; s++)
        if (strncasecmp(s, word, n) == 0)
            return true;
    return false;
}

static int64_t sym_default(const char *s)
{
    static const char *const batch[] = {"batch", "N", "batch_size", "batch_dim", "b", "bs"};
    for (size_t i = 0; i < sizeof batch / sizeof batch[0]; i++)
        if (strcmp(s, batch[i]) == 0)
            return 1;
    if (contains_ci(s, "seq") || contains_ci(s, "token"))
        return 128;
    if (contains_ci(s, "height") || contains_ci(s, "width"))
        return 224;
    return 1;
}

/* Fills dims from a TensorShapeProto. is_input: symbols may be created. */
static enum status shape_dims(struct lctx *c, const char *what, const char *vname,
                              const Onnx__TensorShapeProto *sp, bool is_input, struct dim *dims,
                              int *rank)
{
    if (sp->n_dim > IR_MAX_RANK)
        return diag_set(c->d, ST_EUNSUPPORTED, "%s: %s '%s' has rank %zu, more than %d", c->name,
                        what, vname, sp->n_dim, IR_MAX_RANK);
    double numel = 1;
    for (size_t i = 0; i < sp->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *dm = sp->dim[i];
        dims[i].v = -1;
        dims[i].sym = -1;
        if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            int64_t v = dm->dim_value;
            if (v < -1 || v > ONNX_MAX_ELEMENTS)
                return diag_set(c->d, ST_EPARSE,
                                "%s: %s '%s': dim %zu = %lld, expected 0 to 2^40 or a symbol",
                                c->name, what, vname, i, (long long)v);
            dims[i].v = v;
            if (v >= 0)
                numel *= (double)v;
        } else if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                   dm->dim_param[0]) {
            dims[i].sym = is_input ? graph_sym_add(c->g, dm->dim_param, sym_default(dm->dim_param))
                                   : graph_sym_find(c->g, dm->dim_param);
        } else if (is_input) {
            char *s = arena_printf(c->g->arena, "%s.%zu", vname, i);
            dims[i].sym = graph_sym_add(c->g, s, 1);
        }
    }
    if (numel > (double)ONNX_MAX_ELEMENTS)
        return diag_set(c->d, ST_EPARSE, "%s: %s '%s' declares %.3g elements, more than 2^40",
                        c->name, what, vname, numel);
    *rank = (int)sp->n_dim;
    return ST_OK;
}

enum status onnx_set_value_type(struct lctx *c, const char *what, int vi,
                                const Onnx__TypeProto *tp, bool is_input)
{
    const char *vname = c->g->values[vi].name;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
        return ST_OK; /* sequence/map/optional types: no declared tensor type */
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    int32_t et = tt->has_elem_type ? tt->elem_type : 0;
    enum dtype dt = et > 0 && et < DT__COUNT ? (enum dtype)et : DT_UNDEFINED;
    struct dim dims[IR_MAX_RANK];
    int rank = -1;
    if (tt->shape) {
        enum status st = shape_dims(c, what, vname, tt->shape, is_input, dims, &rank);
        if (st)
            return st;
    }
    graph_value_set_type(c->g, vi, dt, rank, rank > 0 ? dims : NULL);
    return ST_OK;
}

/* ---- tensors ------------------------------------------------------------- */

static double half_to_double(uint16_t h, bool bf16)
{
    if (bf16) {
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0    ? m / 1024.0 / 16384.0
               : e == 31 ? (m ? 0.0 / 0.0 : 1.0 / 0.0)
                         : (1 + m / 1024.0) * (double)(1 << e) / 32768.0;
    return (h & 0x8000) ? -v : v;
}

/* Little-endian element i of raw bytes as int64 / double. */
static int64_t raw_int(const uint8_t *p, int size, bool is_signed)
{
    uint64_t u = 0;
    for (int b = 0; b < size; b++)
        u |= (uint64_t)p[b] << (8 * b);
    if (is_signed && size < 8 && (u >> (8 * size - 1)) & 1)
        u |= ~(uint64_t)0 << (8 * size);
    return (int64_t)u;
}

/* Converts a TensorProto to a tconst in the graph's arena: dtype and dims
 * always, contents when the payload was kept. what/tname name it in errors. */
static enum status tensor_to_tconst(struct lctx *c, const char *what, const char *tname,
                                    const Onnx__TensorProto *t, struct tconst *out)
{
    memset(out, 0, sizeof *out);
    int32_t dt = t->has_data_type ? t->data_type : 0;
    if (dt <= 0 || dt >= DT__COUNT)
        return diag_set(c->d, ST_EPARSE,
                        "%s: %s '%s': data_type %d is not a known ONNX "
                        "element type",
                        c->name, what, tname, (int)dt);
    if (t->n_dims > IR_MAX_RANK)
        return diag_set(c->d, ST_EUNSUPPORTED, "%s: %s '%s' has rank %zu, more than %d", c->name,
                        what, tname, t->n_dims, IR_MAX_RANK);
    int64_t n = 1;
    for (size_t i = 0; i < t->n_dims; i++) {
        int64_t v = t->dims[i];
        if (v < 0 || v > ONNX_MAX_ELEMENTS || (v && n > ONNX_MAX_ELEMENTS / v))
            return diag_set(c->d, ST_EPARSE, "%s: %s '%s': dim %zu = %lld%s", c->name, what, tname,
                            i, (long long)v,
                            v < 0 ? ", expected >= 0"
                                  : ": more than 2^40 elements in all, not a real tensor");
        out->dims[i] = v;
        n *= v;
    }
    out->dt = (enum dtype)dt;
    out->rank = (int)t->n_dims;
    out->n = n;

    int esize = dtype_size(out->dt);
    bool is_int = onnx_dtype_is_int(dt);
    bool is_half = dt == DT_FLOAT16 || dt == DT_BFLOAT16;
    size_t have = t->has_raw_data    ? t->raw_data.len
                  : t->n_int64_data  ? t->n_int64_data
                  : t->n_int32_data  ? t->n_int32_data
                  : t->n_float_data  ? t->n_float_data
                  : t->n_double_data ? t->n_double_data
                                     : t->n_uint64_data;
    if (have == 0 || n == 0)
        return ST_OK; /* payload stripped, external, or empty */
    if (is_int ? n > ONNX_KEEP_INT_MAX : n > ONNX_KEEP_FLOAT_MAX)
        return ST_OK; /* not kept (onnx_wire leaves such payloads out) */
    if (!is_int && dt != DT_FLOAT && dt != DT_DOUBLE && !is_half)
        return ST_OK; /* complex, string, float8: contents never folded */

    const char *field = t->has_raw_data    ? "raw_data"
                        : t->n_int64_data  ? "int64_data"
                        : t->n_int32_data  ? "int32_data"
                        : t->n_float_data  ? "float_data"
                        : t->n_double_data ? "double_data"
                                           : "uint64_data";
    size_t want = t->has_raw_data ? (size_t)n * (size_t)esize : (size_t)n;
    if (have != want)
        return diag_set(c->d, ST_EPARSE,
                        "%s: %s '%s': %s holds %zu %s, expected %zu for %lld "
                        "%s element(s)",
                        c->name, what, tname, field, have, t->has_raw_data ? "bytes" : "values",
                        want, (long long)n, dtype_name(out->dt));
    int64_t *iv = is_int ? arena_alloc(c->g->arena, sizeof(int64_t) * (size_t)n) : NULL;
    double *fv = is_int ? NULL : arena_alloc(c->g->arena, sizeof(double) * (size_t)n);
    bool is_signed =
        dt != DT_UINT8 && dt != DT_UINT16 && dt != DT_UINT32 && dt != DT_UINT64 && dt != DT_BOOL;
    for (int64_t i = 0; i < n; i++) {
        if (t->has_raw_data) {
            const uint8_t *p = t->raw_data.data + (size_t)i * (size_t)esize;
            if (is_int) {
                iv[i] = raw_int(p, esize, is_signed);
            } else if (is_half) {
                fv[i] = half_to_double((uint16_t)raw_int(p, 2, false), dt == DT_BFLOAT16);
            } else if (dt == DT_FLOAT) {
                float f;
                memcpy(&f, p, sizeof f);
                fv[i] = f;
            } else {
                memcpy(&fv[i], p, sizeof(double));
            }
        } else if (t->n_int64_data) {
            if (is_int)
                iv[i] = t->int64_data[i];
            else
                fv[i] = (double)t->int64_data[i];
        } else if (t->n_int32_data) {
            if (is_int)
                iv[i] = t->int32_data[i];
            else
                fv[i] = is_half ? half_to_double((uint16_t)t->int32_data[i], dt == DT_BFLOAT16)
                                : t->int32_data[i];
        } else if (t->n_float_data || t->n_double_data) {
            double v = t->n_float_data ? (double)t->float_data[i] : t->double_data[i];
            if (!is_int)
                fv[i] = v;
            else if (!(v >= -9.2e18 && v <= 9.2e18)) /* NaN fails too */
                return diag_set(c->d, ST_EPARSE, "%s: %s '%s': %s[%lld] = %g is not an "
                                "integer (the tensor is %s)", c->name, what, tname, field,
                                (long long)i, v, dtype_name(out->dt));
            else
                iv[i] = (int64_t)v;
        } else {
            if (is_int)
                iv[i] = (int64_t)t->uint64_data[i];
            else
                fv[i] = (double)t->uint64_data[i];
        }
    }
    out->i64 = iv;
    out->f64 = fv;
    return ST_OK;
}

enum status onnx_add_initializer(struct lctx *c, const Onnx__TensorProto *t,
                                 const int64_t *sparse_dims, size_t n_sparse_dims, size_t idx)
{
    const char *tname = t->name && t->name[0] ? t->name : NULL;
    if (!tname)
        return diag_set(c->d, ST_EPARSE, "%s: initializer #%zu has no name", c->name, idx);
    if (graph_value_find(c->g, tname) >= 0)
        return diag_set(c->d, ST_EGRAPH, "%s: initializer '%s' is defined twice", c->name, tname);
    struct tconst tc;
    Onnx__TensorProto dense = *t;
    if (sparse_dims) { /* a sparse initializer: the dense shape is the value's shape */
        dense.n_dims = n_sparse_dims;
        dense.dims = (int64_t *)sparse_dims;
        dense.has_raw_data = 0;
        dense.n_float_data = dense.n_int32_data = dense.n_int64_data = 0;
        dense.n_double_data = dense.n_uint64_data = 0;
    }
    enum status st =
        tensor_to_tconst(c, sparse_dims ? "sparse initializer" : "initializer", tname, &dense, &tc);
    if (st)
        return st;
    int vi = graph_value_get(c->g, tname);
    struct dim dims[IR_MAX_RANK];
    for (int i = 0; i < tc.rank; i++) {
        dims[i].v = tc.dims[i];
        dims[i].sym = -1;
    }
    graph_value_set_type(c->g, vi, tc.dt, tc.rank, tc.rank ? dims : NULL);
    graph_init_add(c->g, vi);
    if (tc.i64 || tc.f64)
        graph_value_set_data(c->g, vi, &tc);
    return ST_OK;
}

/* ---- nodes --------------------------------------------------------------- */

/* The first path component of a scoped torch name that looks like a repeated
 * block ("/layer1/layer1.0/conv1/Conv" -> "layer1.0"), or NULL. */
static const char *block_label(struct graph *g, const char *name)
{
    const char *p = name;
    while (*p == '/') {
        const char *s = p + 1, *e = strchr(s, '/');
        if (!e)
            return NULL; /* the last component is the op itself */
        const char *q = e;
        while (q > s && q[-1] >= '0' && q[-1] <= '9')
            q--;
        if (q < e && q > s + 1 && (q[-1] == '.' || q[-1] == '_'))
            return arena_strndup(g->arena, s, (size_t)(e - s));
        p = e;
    }
    return NULL;
}

static const char *unique_node_name(struct lctx *c, const char *name, const char *op, int idx)
{
    const char *base = name && name[0] ? name : NULL;
    char *s = base ? arena_strdup(c->g->arena, base) : arena_printf(c->g->arena, "%s_%d", op, idx);
    int k = 2;
    if (!strmap_add(c->node_names, s, idx, NULL)) {
        /* resume where the last duplicate of this base stopped: linear in
         * the number of nodes, however many share a name */
        const char *key = base ? base : op;
        if (!strmap_get(c->name_next, key, &k))
            key = arena_strdup(c->g->arena, key);
        do
            s = arena_printf(c->g->arena, "%s#%d", base ? base : op, k++);
        while (!strmap_add(c->node_names, s, idx, NULL));
        strmap_put(c->name_next, key, k);
    }
    return s;
}

static enum status add_attr(struct lctx *c, int ni, const char *nname,
                            const Onnx__AttributeProto *a)
{
    struct graph *g = c->g;
    const char *an = a->name ? a->name : "";
    if (!an[0])
        return diag_set(c->d, ST_EPARSE, "%s: node '%s': attribute without a name", c->name, nname);
    int type = a->has_type ? (int)a->type : 0;
    if (!type) /* IR < 3 files may omit the type: use the field that is set */
        type = a->has_f       ? 1
               : a->has_i     ? 2
               : a->has_s     ? 3
               : a->t         ? 4
               : a->g         ? 5
               : a->n_floats  ? 6
               : a->n_ints    ? 7
               : a->n_strings ? 8
               : a->n_tensors ? 9
               : a->n_graphs  ? 10
                              : 0;
    if (a->n_ints > INT32_MAX || a->n_floats > INT32_MAX || a->n_strings > INT32_MAX)
        return diag_set(c->d, ST_EPARSE, "%s: node '%s': attribute '%s' is too long", c->name,
                        nname, an);
    switch (type) {
    case 1:
        graph_attr_float(g, ni, an, a->f);
        break;
    case 2:
        graph_attr_int(g, ni, an, a->i);
        break;
    case 3: {
        char *s = arena_strndup(g->arena, a->has_s ? (const char *)a->s.data : "",
                                a->has_s ? a->s.len : 0);
        graph_attr_string(g, ni, an, s);
        break;
    }
    case 4: {
        if (!a->t)
            return diag_set(c->d, ST_EPARSE,
                            "%s: node '%s': tensor attribute '%s' has no "
                            "tensor",
                            c->name, nname, an);
        struct tconst tc;
        enum status st = tensor_to_tconst(c, "tensor attribute of node", nname, a->t, &tc);
        if (st)
            return st;
        graph_attr_tensor(g, ni, an, &tc);
        break;
    }
    case 5:
    case 10:
        graph_attr_graph(g, ni, an);
        return onnx_load_body(c, ni, nname, a);
    case 6: {
        double *f = arena_alloc(g->arena, sizeof(double) * (a->n_floats + 1));
        for (size_t i = 0; i < a->n_floats; i++)
            f[i] = a->floats[i];
        graph_attr_floats(g, ni, an, f, (int)a->n_floats);
        break;
    }
    case 7:
        graph_attr_ints(g, ni, an, a->ints, (int)a->n_ints);
        break;
    case 8: {
        const char **s = arena_alloc(g->arena, sizeof(char *) * (a->n_strings + 1));
        for (size_t i = 0; i < a->n_strings; i++)
            s[i] = arena_strndup(g->arena, (const char *)a->strings[i].data, a->strings[i].len);
        graph_attr_strings(g, ni, an, s, (int)a->n_strings);
        break;
    }
    default:
        /* tensor lists, sparse tensors and type protos: no IR form; no
         * operator in the coverage list takes them. */
        break;
    }
    return ST_OK;
}

enum status onnx_add_node(struct lctx *c, const Onnx__NodeProto *np, int idx)
{
    struct graph *g = c->g;
    if (!np->op_type || !np->op_type[0])
        return diag_set(c->d, ST_EPARSE, "%s: node #%d%s%s%s has an empty op_type", c->name, idx,
                        np->name && np->name[0] ? " ('" : "", np->name ? np->name : "",
                        np->name && np->name[0] ? "')" : "");
    if (np->n_input > 4096 || np->n_output > 4096)
        return diag_set(c->d, ST_EUNSUPPORTED,
                        "%s: node #%d (%s) has %zu inputs and %zu "
                        "outputs, more than 4096",
                        c->name, idx, np->op_type, np->n_input, np->n_output);
    const char *nname = unique_node_name(c, np->name, np->op_type, idx);
    int *in = xmalloc(sizeof(int) * (np->n_input + 1));
    int *out = xmalloc(sizeof(int) * (np->n_output + 1));
    for (size_t i = 0; i < np->n_input; i++)
        in[i] = np->input[i][0] ? graph_value_get(g, np->input[i]) : -1;
    for (size_t i = 0; i < np->n_output; i++) {
        /* An omitted optional output still needs a value of its own. */
        const char *on =
            np->output[i][0] ? np->output[i] : arena_printf(g->arena, "%s:unused%zu", nname, i);
        out[i] = graph_value_get(g, on);
    }
    int ni = graph_node_add_type(g, np->op_type, np->domain, nname, in, (int)np->n_input, out,
                            (int)np->n_output);
    free(in);
    free(out);
    g->nodes[ni].block = block_label(g, nname);
    for (size_t i = 0; i < np->n_attribute; i++) {
        enum status st = add_attr(c, ni, nname, np->attribute[i]);
        if (st)
            return st;
    }
    return ST_OK;
}

/* ---- model --------------------------------------------------------------- */

static bool default_domain(const char *dom)
{
    return !dom || !dom[0] || strcmp(dom, "ai.onnx") == 0;
}

static enum status read_opset(struct lctx *c, const Onnx__ModelProto *m)
{
    int64_t v = -1;
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = m->opset_import[i];
        if (default_domain(o->domain))
            v = o->has_version ? o->version : -1;
    }
    if (m->n_opset_import == 0)
        return diag_set(c->d, ST_EPARSE,
                        "%s: no opset_import (ModelProto field 8): a model from before ONNX "
                        "IR version 3, or a truncated file",
                        c->name);
    if (v < 0) {
        /* Only other domains imported (e.g. ai.onnx.preview.training): fine as
         * long as no node uses the default domain. */
        const Onnx__GraphProto *gp = m->graph;
        for (size_t i = 0; gp && i < gp->n_node; i++)
            if (default_domain(gp->node[i]->domain))
                return diag_set(c->d, ST_EPARSE,
                                "%s: node #%zu (%s) is in the default ONNX domain but the "
                                "model imports no opset for it",
                                c->name, i, gp->node[i]->op_type ? gp->node[i]->op_type : "?");
        c->g->opset = 0;
        return ST_OK;
    }
    /* every node's domain must be imported (the spec's rule; an undeclared
     * domain means the ops' semantics are unknown) */
    const Onnx__GraphProto *gp = m->graph;
    for (size_t i = 0; gp && i < gp->n_node; i++) {
        const char *dom = gp->node[i]->domain;
        if (default_domain(dom))
            continue;
        size_t k = 0;
        while (k < m->n_opset_import &&
               strcmp(m->opset_import[k]->domain ? m->opset_import[k]->domain : "", dom))
            k++;
        if (k == m->n_opset_import)
            return diag_set(c->d, ST_EPARSE,
                            "%s: node #%zu (%s) is in domain '%s', which the model does not "
                            "import (opset_import)",
                            c->name, i, gp->node[i]->op_type ? gp->node[i]->op_type : "?", dom);
    }
    if (v < MIN_OPSET || v > MAX_OPSET)
        return diag_set(c->d, ST_EUNSUPPORTED,
                        "%s: opset %lld is not supported (dippm reads opsets %d to %d)", c->name,
                        (long long)v, MIN_OPSET, MAX_OPSET);
    c->g->opset = (int)v;
    return ST_OK;
}

static enum status convert(struct lctx *c, const Onnx__ModelProto *m)
{
    const Onnx__GraphProto *gp = m->graph;
    enum status st;
    if (!gp)
        return diag_set(c->d, ST_EPARSE,
                        "%s: no graph (ModelProto field 7 missing: not an "
                        "ONNX model, or a truncated file)",
                        c->name);
    if ((st = read_opset(c, m)))
        return st;
    /* typical exports have about one new value per node output plus the
     * initializers and inputs; reserving avoids regrowing big arrays */
    if (gp->n_node < (1u << 24) && gp->n_initializer < (1u << 24))
    {
        graph_reserve(c->g, (int)gp->n_node,
                      (int)(2 * gp->n_node + gp->n_initializer + gp->n_input + 16));
        strmap_reserve(c->node_names, gp->n_node);
    }
    for (size_t i = 0; i < gp->n_initializer; i++)
        if ((st = onnx_add_initializer(c, gp->initializer[i], NULL, 0, i)))
            return st;
    for (size_t i = 0; i < gp->n_sparse_initializer; i++) {
        const Onnx__SparseTensorProto *sp = gp->sparse_initializer[i];
        if (!sp->values)
            return diag_set(c->d, ST_EPARSE, "%s: sparse initializer #%zu has no values tensor",
                            c->name, i);
        if ((st = onnx_add_initializer(c, sp->values, sp->dims, sp->n_dims, i)))
            return st;
    }
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        if (!vi->name || !vi->name[0])
            return diag_set(c->d, ST_EPARSE, "%s: graph input #%zu has no name", c->name, i);
        int v = graph_value_get(c->g, vi->name);
        if (c->g->values[v].flags & VAL_INIT)
            continue; /* IR < 4 lists initializers as inputs too; they are weights */
        if (c->g->values[v].flags & VAL_INPUT)
            return diag_set(c->d, ST_EGRAPH, "%s: graph input '%s' is listed twice", c->name,
                            vi->name);
        if ((st = onnx_set_value_type(c, "graph input", v, vi->type, true)))
            return st;
        graph_input_add(c->g, v);
    }
    for (size_t i = 0; i < gp->n_node; i++)
        if ((st = onnx_add_node(c, gp->node[i], (int)i)))
            return st;
    for (size_t i = 0; i < gp->n_output; i++) {
        const Onnx__ValueInfoProto *vi = gp->output[i];
        if (!vi->name || !vi->name[0])
            return diag_set(c->d, ST_EPARSE, "%s: graph output #%zu has no name", c->name, i);
        int v = graph_value_get(c->g, vi->name);
        if ((st = onnx_set_value_type(c, "graph output", v, vi->type, false)))
            return st;
        graph_output_add(c->g, v);
    }
    for (size_t i = 0; i < gp->n_value_info; i++) {
        const Onnx__ValueInfoProto *vi = gp->value_info[i];
        int v = vi->name ? graph_value_find(c->g, vi->name) : -1;
        if (v < 0 || (c->g->values[v].flags & (VAL_INIT | VAL_INPUT)))
            continue; /* annotations of values the graph does not use */
        if ((st = onnx_set_value_type(c, "value_info", v, vi->type, false)))
            return st;
    }
    return ST_OK;
}

static const char *stem(struct arena *a, const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 5 && strcasecmp(b + n - 5, ".onnx") == 0)
        n -= 5;
    return arena_strndup(a, b, n ? n : strlen(b));
}

/* ---- the decoder's allocator --------------------------------------------- */

/* The decoder (onnx_wire.c) makes several small allocations per node and
 * frees none; a bump pool makes them cheap and frees the whole tree at once. */
struct bump_chunk {
    struct bump_chunk *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

struct bump {
    struct bump_chunk *head;
};

static void *bump_alloc(void *pool_data, size_t size)
{
    struct bump *b = pool_data;
    size = (size + 15) & ~(size_t)15;
    struct bump_chunk *c = b->head;
    if (!c || c->cap - c->used < size) {
        size_t cap = size > ((size_t)1 << 16) ? size : (size_t)1 << 16;
        c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->cap = cap;
        c->used = 0;
        c->next = b->head;
        b->head = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    return p;
}

static void bump_release(struct bump *b)
{
    while (b->head) {
        struct bump_chunk *n = b->head->next;
        free(b->head);
        b->head = n;
    }
}

struct graph *onnx_load_buffer(const void *buf, size_t len, const char *name, struct diag *d)
{
    if (!name)
        name = "<buffer>";
    struct bump pool = {0};
    ProtobufCAllocator alloc = {.alloc = bump_alloc, .allocator_data = &pool}; /* no free */
    Onnx__ModelProto *m = onnx_wire_decode(buf, len, name, &alloc, d);
    if (!m) {
        bump_release(&pool);
        return NULL;
    }
    struct graph *g = graph_new(NULL);
    g->name = stem(g->arena, name);
    g->path = graph_strdup(g, name);
    g->format = "onnx";
    struct lctx c = {.g = g, .name = name, .d = d, .node_names = strmap_new(),
                     .name_next = strmap_new()};
    enum status st = convert(&c, m);
    strmap_free(c.node_names);
    strmap_free(c.name_next);
    bump_release(&pool); /* frees the whole decoded tree at once */
    if (!st && (st = graph_finalize(g, d)))
        diag_prefix(d, "%s", name);
    if (st) {
        graph_free(g);
        return NULL;
    }
    return g;
}

struct graph *onnx_load_file(const char *path, struct diag *d)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        diag_set(d, errno == ENOENT ? ST_ENOTFOUND : ST_EIO, "%s: cannot open: %s", path,
                 strerror(errno));
        return NULL;
    }
    struct stat sb;
    struct graph *g = NULL;
    if (fstat(fd, &sb) < 0) {
        diag_set(d, ST_EIO, "%s: cannot stat: %s", path, strerror(errno));
    } else if (S_ISDIR(sb.st_mode)) {
        diag_set(d, ST_EIO, "%s: is a directory, expected an ONNX model file", path);
    } else if (!S_ISREG(sb.st_mode)) {
        diag_set(d, ST_EIO, "%s: not a regular file", path);
    } else if (sb.st_size == 0) {
        diag_set(d, ST_EPARSE, "%s: empty file (0 bytes), not an ONNX model", path);
    } else if ((uint64_t)sb.st_size > (uint64_t)SIZE_MAX / 2) {
        diag_set(d, ST_ENOMEM, "%s: file too large to map", path);
    } else {
        /* Mapped, not read: payload pages are skipped by length and never
         * faulted in, so a 500 MB model costs its metadata only. */
        size_t len = (size_t)sb.st_size;
        void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            diag_set(d, ST_EIO, "%s: cannot map: %s", path, strerror(errno));
        } else {
            madvise(p, len, MADV_RANDOM);
            g = onnx_load_buffer(p, len, path, d);
            munmap(p, len);
        }
    }
    close(fd);
    return g;
}
