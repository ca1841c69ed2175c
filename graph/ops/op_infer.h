/*
 * op_infer.h - internal interface between the inference driver (shape.c),
 * the per-family shape functions (ops_*.c) and the cost model (cost.c).
 * Not a public header: only graph/ uses it.
 *
 * A shape function reads its node's inputs (shapes, dtypes, folded
 * constants) through the in_* helpers, writes every output with out_shape /
 * out_like (and out_fold when the contents are known), and returns:
 *   ST_OK           outputs set;
 *   ST_ESHAPE       a genuine inconsistency (shape_fail: "node 'N' (Op): ...");
 *   ST_ERANGE       the bindings ask for what the model cannot take (shape_refuse);
 *   ST_EUNSUPPORTED the shape cannot be determined here (e.g. a Reshape
 *                   target computed from run-time data); shape_unsupported
 *                   records why and the node is reported as not covered.
 * The driver has already checked that every present input has a known shape.
 *
 * A cost function fills macs and flops of a node whose outputs are known;
 * the driver has set params, bytes read/written and out_bytes beforehand and
 * the cost function may override them (views move nothing, Gather reads only
 * the rows it gathers). Conventions are documented at the top of cost.c.
 */
#ifndef DIPPM_OP_INFER_H
#define DIPPM_OP_INFER_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/ir/ir.h"

struct arena;

/* Per-element arithmetic costs in FLOPs (onnx-tool's convention). */
#define FL_ADD 1
#define FL_CMP 1
#define FL_MUL 1
#define FL_DIV 4
#define FL_SQRT 24
#define FL_EXP 32
#define FL_POW 32
#define FL_SIN 39
#define FL_LOG 43
#define FL_TANH (FL_EXP + 2 * FL_ADD + FL_DIV)
#define FL_ERF FL_TANH
#define FL_SIGMOID (FL_EXP + FL_ADD + FL_DIV)
/* softmax: running max, subtract, exp, sum, divide */
#define FL_SOFTMAX (FL_CMP + FL_ADD + FL_EXP + FL_ADD + FL_DIV)
/* layer/instance/group norm per element: mean (add), centre (sub), square
 * and sum (mul+add), scale by 1/std (mul), affine (mul+add); the per-group
 * sqrt and divide are added by cost_norm. */
#define FL_NORM (FL_ADD + FL_ADD + FL_MUL + FL_ADD + FL_MUL + FL_MUL + FL_ADD)

/* Folding limit: tensors with more elements are not folded (shape
 * subgraphs are tiny; large constants only need their shapes). */
#define FOLD_MAX_ELEMS 4096

struct infer_ctx {
    struct graph *g;
    struct node *n;
    struct diag *d;
    struct arena *a; /* g->scratch */
    int opset;
    const char *note; /* set by shape_unsupported */
    enum status *first_err; /* graph_infer's first genuine error */
};

typedef enum status (*shape_fn)(struct infer_ctx *c);
typedef void (*cost_fn)(const struct infer_ctx *c, struct node_cost *nc);

struct op_impl {
    shape_fn shape;
    cost_fn cost;
    double flops_per_elem;
};

/* Shape/cost functions and FLOPs column for op; NULL for OP__UNKNOWN. */
const struct op_impl *op_impl_get(enum op op);

#define X(name, min_in, max_in, cls, sfn, cfn, fl, flags)                   \
    enum status sfn(struct infer_ctx *c);                                   \
    void cfn(const struct infer_ctx *c, struct node_cost *nc);
#include "graph/ir/ops.def"
#undef X

/* ---- input access (shape.c) ------------------------------------------ */

/* Input i's value, or NULL when absent (i >= n_in or an omitted optional). */
const struct value *in_v(const struct infer_ctx *c, int i);
/* Input i's inferred shape, or NULL when absent. */
const struct shape *in_s(const struct infer_ctx *c, int i);
/* Input i's element type (DT_UNDEFINED when absent). */
enum dtype in_dt(const struct infer_ctx *c, int i);
/* Input i's folded contents (values known), or NULL. */
const struct tconst *in_k(const struct infer_ctx *c, int i);
/* Output j's value. */
struct value *out_v(const struct infer_ctx *c, int j);
/* Element count of a shape (1 for rank 0). */
int64_t numel(const struct shape *s);

/* ---- output writing ---------------------------------------------------- */

void out_shape(struct infer_ctx *c, int j, int rank, const int64_t *d, enum dtype dt);
void out_like(struct infer_ctx *c, int j, const struct shape *s, enum dtype dt);
/* Records known contents of output j (also sets its shape and dtype). */
void out_fold(struct infer_ctx *c, int j, struct tconst *k);

/* New tensor in the scratch arena with zeroed i64 (integer/bool dtypes)
 * or f64 (float dtypes) contents; NULL if n > FOLD_MAX_ELEMS. */
struct tconst *k_new(struct infer_ctx *c, enum dtype dt, int rank, const int64_t *dims);
/* Element e of k as double / int64 whatever the storage. */
double k_getf(const struct tconst *k, int64_t e);
int64_t k_geti(const struct tconst *k, int64_t e);
/* Stores v; into integer storage it is truncated, and a value outside the
 * int64 range (or NaN) marks k->overflow, which the driver reports. */
void k_set(struct tconst *k, int64_t e, double v);
void k_seti(struct tconst *k, int64_t e, int64_t v);
/* true and *out = v when v (NaN fails) is within the int64 range. */
bool f64_to_i64(double v, int64_t *out);
bool dtype_is_int(enum dtype dt);

/* ---- errors ------------------------------------------------------------ */

/* ST_ESHAPE with "node 'NAME' (Op): " + message. */
enum status shape_fail(struct infer_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* ST_ERANGE with the message alone: a configuration the model cannot run
 * (a sequence longer than its position table), not a broken graph. */
enum status shape_refuse(struct infer_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* ST_EUNSUPPORTED; the message is kept as the node's note. */
enum status shape_unsupported(struct infer_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- shared helpers ---------------------------------------------------- */

/* Element count of the integer Range(start, limit, delta), delta != 0:
 * ceil((limit - start) / delta) or 0, exact over the whole int64 range. */
uint64_t range_count_i64(int64_t start, int64_t limit, int64_t delta);

/* Checks the attributes common to many ops (transB, strides, pads, axis, ...)
 * for type and range (ops_attrs.c); ST_ESHAPE naming the node on failure. */
enum status attrs_check(struct infer_ctx *c);

/* Normalises axis into [0, rank) (negative counts from the end). */
enum status norm_axis(struct infer_ctx *c, int64_t axis, int rank, int *out);
/* The optional 'axis' attribute of Compress and Unique, normalised into *a;
 * -1 when absent (the flattened input). *len: x's elements along it. */
enum status optional_axis(struct infer_ctx *c, const struct shape *x, int *a, int64_t *len);
/* Output 0 (input 0's dtype): x with n elements along axis a, or, a < 0, a
 * list of n (Compress, Unique). */
void out_along_axis(struct infer_ctx *c, const struct shape *x, int a, int64_t n);
/* Multidirectional (numpy) broadcast of a and b into out. */
enum status broadcast(struct infer_ctx *c, const struct shape *a, const struct shape *b,
                      struct shape *out);
/* An int list given either as input `in_idx` (opset >= input_opset; must be
 * foldable) or as attribute `attr`. Returns ST_OK with *n = -1 when neither
 * is present. max bounds the length. */
enum status ints_arg(struct infer_ctx *c, int in_idx, const char *attr, int64_t *buf, int max,
                     int *n);
/* Input i as a constant int list (rank <= 1). ST_EUNSUPPORTED if not
 * foldable, ST_ESHAPE if too long. */
enum status const_ints(struct infer_ctx *c, int i, const char *what, int64_t *buf, int max,
                       int *n);
/* Input i as a constant int list of one value per dim of input 0 (Tile's
 * repeats, MaxUnpool's output_shape); note ends the message of a miscount. */
enum status const_ints_per_dim(struct infer_ctx *c, int i, const char *what, int64_t *buf,
                               const char *note);
/* Input i, a constant int list, as the shape s (Expand's and
 * ConstantOfShape's target shape). */
enum status const_shape(struct infer_ctx *c, int i, struct shape *s);
/* Attribute ints copied into buf (at most max); returns count, 0 if absent. */
int attr_ints(const struct node *n, const char *name, int64_t *buf, int max);
/* Checks input i has a rank in [lo, hi]. */
enum status need_rank(struct infer_ctx *c, int i, int lo, int hi);

/* Size of an Einsum's iteration space (product of every index size), the
 * MAC count of the contraction; 0 if the equation does not parse. */
double einsum_iterations(const struct infer_ctx *c);
/* Linear index e of shape s into coordinates co[rank]. */
void unravel(int64_t e, const struct shape *s, int64_t *co);

/* Infers node c->n (shape, state, note, cost): the driver's step, also used
 * by control ops (ops_control.c) to infer their bodies. */
void shape_infer_node(struct infer_ctx *c);
/* If, Loop, Scan: ops whose bodies are inferred by their shape function. */
bool op_is_control(enum op op);

/* ---- cost (cost.c) ---------------------------------------------------- */

/* Parameter elements/bytes of c->n's initializer inputs into c->n->cost. */
void cost_params(struct infer_ctx *c);
/* Default params/bytes for node c->n, then its op's cost function. */
void cost_node(struct infer_ctx *c, const struct op_impl *im);
/* Graph totals: unique params, sums, liveness peak. */
void cost_totals(struct graph *g);

#endif
