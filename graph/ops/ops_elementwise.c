/* ops_elementwise.c - shape functions of unary, binary (broadcasting),
 * variadic, comparison and Where ops, normalisations, softmax and casts,
 * with constant folding of the small integer arithmetic that shape
 * subgraphs use (Add/Sub/Mul/Div/Mod/Equal/Where/Cast/...). */
#include <math.h>
#include <string.h>

#include "graph/ops/op_infer.h"

/* ---- folding helpers --------------------------------------------------- */

/* Index into k (right-aligned, size-1 dims broadcast) of output element e. */
static int64_t bcast_index(const struct shape *out, const struct tconst *k, int64_t e)
{
    int64_t idx = 0, stride = 1;
    for (int i = out->rank - 1, j = k->rank - 1; i >= 0; i--, j--) {
        int64_t coord = e % out->d[i];
        e /= out->d[i];
        if (j >= 0) {
            if (k->dims[j] != 1)
                idx += coord * stride;
            stride *= k->dims[j];
        }
    }
    return idx;
}

static double fold_binop(enum op op, double x, double y, bool is_int, bool fmod_mode)
{
    switch (op) {
    case OP_Add: case OP_Sum: return x + y;
    case OP_Sub: return x - y;
    case OP_Mul: return x * y;
    case OP_Div:
        if (is_int)
            return y != 0.0 ? trunc(x / y) : 0.0;
        return x / y;
    case OP_Mod:
        if (y == 0.0)
            return 0.0;
        if (fmod_mode || !is_int)
            return fmod(x, y);
        else {
            double r = fmod(x, y);
            return r != 0.0 && ((r < 0) != (y < 0)) ? r + y : r;
        }
    case OP_Pow: return pow(x, y);
    case OP_Max: return x > y ? x : y;
    case OP_Min: return x < y ? x : y;
    case OP_Equal: return x == y;
    case OP_Greater: return x > y;
    case OP_GreaterOrEqual: return x >= y;
    case OP_Less: return x < y;
    case OP_LessOrEqual: return x <= y;
    case OP_And: return (x != 0.0) && (y != 0.0);
    case OP_Or: return (x != 0.0) || (y != 0.0);
    case OP_Xor: return (x != 0.0) != (y != 0.0);
    default: return 0.0;
    }
}

enum int_fold { INT_DONE, INT_OVERFLOW, INT_NOT_ARITH };

/* Integer a OP b, exact: INT_OVERFLOW when the result leaves int64
 * (INT64_MIN / -1 included). Division by zero, undefined in ONNX, folds to 0;
 * Mod takes the divisor's sign unless fmod_mode. INT_NOT_ARITH for ops folded
 * in double (comparisons, logic, Pow). */
static enum int_fold fold_binop_int(enum op op, int64_t x, int64_t y, bool fmod_mode,
                                    int64_t *r)
{
    switch (op) {
    case OP_Add: case OP_Sum: return __builtin_add_overflow(x, y, r) ? INT_OVERFLOW : INT_DONE;
    case OP_Sub: return __builtin_sub_overflow(x, y, r) ? INT_OVERFLOW : INT_DONE;
    case OP_Mul: return __builtin_mul_overflow(x, y, r) ? INT_OVERFLOW : INT_DONE;
    case OP_Div:
    case OP_Mod:
        *r = 0;
        if (y == 0)
            return INT_DONE;
        if (x == INT64_MIN && y == -1) /* the remainder is 0; the quotient overflows */
            return op == OP_Mod ? INT_DONE : INT_OVERFLOW;
        if (op == OP_Div) {
            *r = x / y;
        } else {
            int64_t m = x % y;
            *r = !fmod_mode && m != 0 && ((m < 0) != (y < 0)) ? m + y : m;
        }
        return INT_DONE;
    case OP_Max: *r = x > y ? x : y; return INT_DONE;
    case OP_Min: *r = x < y ? x : y; return INT_DONE;
    default: return INT_NOT_ARITH;
    }
}

/* Folds out = a OP b when both inputs are known. Integer inputs are folded
 * exactly in int64; an overflow marks the result (reported by the driver). */
static void fold_binary(struct infer_ctx *c, const struct shape *os, enum dtype dt)
{
    const struct tconst *a = in_k(c, 0), *b = in_k(c, 1);
    if (!a || !b)
        return;
    struct tconst *k = k_new(c, dt, os->rank, os->d);
    if (!k)
        return;
    bool is_int = dtype_is_int(in_dt(c, 0)) || (!a->f64 && !b->f64);
    bool fm = node_attr_int(c->n, "fmod", 0) != 0;
    enum op op = c->n->op;
    for (int64_t e = 0; e < k->n; e++) {
        int64_t ia = bcast_index(os, a, e), ib = bcast_index(os, b, e), r;
        enum int_fold f = is_int && !k->f64
                              ? fold_binop_int(op, k_geti(a, ia), k_geti(b, ib), fm, &r)
                              : INT_NOT_ARITH;
        if (f == INT_DONE)
            k_seti(k, e, r);
        else if (f == INT_OVERFLOW)
            k->overflow = true;
        else
            k_set(k, e, fold_binop(op, k_getf(a, ia), k_getf(b, ib), is_int, fm));
    }
    out_fold(c, 0, k);
}

static enum dtype first_dt(const struct infer_ctx *c)
{
    for (int i = 0; i < c->n->n_in; i++)
        if (in_dt(c, i) != DT_UNDEFINED)
            return in_dt(c, i);
    return DT_UNDEFINED;
}

/* ---- unary ------------------------------------------------------------- */

static bool fold_unary(struct infer_ctx *c, enum dtype dt)
{
    const struct tconst *a = in_k(c, 0);
    if (!a)
        return false;
    struct tconst *k = k_new(c, dt, a->rank, a->dims);
    if (!k)
        return false;
    bool to_int = dtype_is_int(dt);
    for (int64_t e = 0; e < a->n; e++) {
        double x = k_getf(a, e), y;
        switch (c->n->op) {
        case OP_Identity: case OP_Cast: case OP_Dropout: y = x; break;
        case OP_Neg: y = -x; break;
        case OP_Abs: y = fabs(x); break;
        case OP_Floor: y = floor(x); break;
        case OP_Ceil: y = ceil(x); break;
        case OP_Round: y = nearbyint(x); break;
        case OP_Sqrt: y = sqrt(x); break;
        case OP_Relu: y = x > 0 ? x : 0; break;
        case OP_Sign: y = (x > 0) - (x < 0); break;
        case OP_Not: y = x == 0.0; break;
        case OP_Reciprocal: y = 1.0 / x; break;
        case OP_Exp: y = exp(x); break;
        case OP_Log: y = log(x); break;
        default: return false;
        }
        if (to_int && c->n->op == OP_Cast)
            y = trunc(y);
        k_set(k, e, y);
    }
    out_fold(c, 0, k);
    return true;
}

enum status shape_unary(struct infer_ctx *c)
{
    out_like(c, 0, in_s(c, 0), in_dt(c, 0));
    fold_unary(c, in_dt(c, 0));
    return ST_OK;
}

enum status shape_not(struct infer_ctx *c)
{
    out_like(c, 0, in_s(c, 0), DT_BOOL);
    fold_unary(c, DT_BOOL);
    return ST_OK;
}

enum status shape_isnan(struct infer_ctx *c)
{
    out_like(c, 0, in_s(c, 0), DT_BOOL);
    return ST_OK;
}

enum status shape_cast(struct infer_ctx *c)
{
    int64_t to = node_attr_int(c->n, "to", -1);
    const struct attr *sat = node_attr(c->n, "to");
    if (sat && sat->type == ATTR_STRING) { /* opset 1-5 wrote the type name */
        enum dtype named;
        char low[32];
        size_t i = 0;
        for (; sat->s[i] && i < sizeof low - 1; i++)
            low[i] = (char)(sat->s[i] >= 'A' && sat->s[i] <= 'Z' ? sat->s[i] + 32 : sat->s[i]);
        low[i] = 0;
        to = dtype_from_name(low, &named) ? (int64_t)named : -1;
    }
    if (to <= 0 || to >= DT__COUNT)
        return shape_fail(c, "attribute 'to' is %lld, expected an ONNX data type code",
                          (long long)to);
    out_like(c, 0, in_s(c, 0), (enum dtype)to);
    fold_unary(c, (enum dtype)to);
    return ST_OK;
}

enum status shape_dropout(struct infer_ctx *c)
{
    out_like(c, 0, in_s(c, 0), in_dt(c, 0));
    out_like(c, 1, in_s(c, 0), c->opset >= 10 ? DT_BOOL : in_dt(c, 0));
    fold_unary(c, in_dt(c, 0));
    return ST_OK;
}

enum status shape_clip(struct infer_ctx *c)
{
    for (int i = 1; i < 3; i++)
        if (in_v(c, i) && in_s(c, i)->rank != 0 && numel(in_s(c, i)) != 1)
            return shape_fail(c, "input %d (%s) has %lld elements, expected a scalar", i,
                              i == 1 ? "min" : "max", (long long)numel(in_s(c, i)));
    out_like(c, 0, in_s(c, 0), in_dt(c, 0));
    return ST_OK;
}

enum status shape_prelu(struct infer_ctx *c)
{
    struct shape b;
    enum status st = broadcast(c, in_s(c, 0), in_s(c, 1), &b);
    if (st)
        return st;
    if (b.rank != in_s(c, 0)->rank || memcmp(b.d, in_s(c, 0)->d, sizeof(int64_t) * b.rank))
        return shape_fail(c, "slope does not broadcast to the input's shape (unidirectional)");
    out_like(c, 0, in_s(c, 0), in_dt(c, 0));
    return ST_OK;
}

enum status shape_quantize(struct infer_ctx *c)
{
    enum dtype dt = in_v(c, 2) ? in_dt(c, 2) : DT_UINT8;
    int64_t od = node_attr_int(c->n, "output_dtype", 0);
    if (od > 0 && od < DT__COUNT)
        dt = (enum dtype)od;
    out_like(c, 0, in_s(c, 0), dt);
    return ST_OK;
}

enum status shape_dequantize(struct infer_ctx *c)
{
    enum dtype dt = in_dt(c, 1);
    out_like(c, 0, in_s(c, 0), dtype_is_float(dt) ? dt : DT_FLOAT);
    return ST_OK;
}

enum status shape_randomlike(struct infer_ctx *c)
{
    int64_t dt = node_attr_int(c->n, "dtype", in_dt(c, 0));
    out_like(c, 0, in_s(c, 0), dt > 0 && dt < DT__COUNT ? (enum dtype)dt : DT_FLOAT);
    return ST_OK;
}

/* ---- binary, variadic, Where ------------------------------------------- */

/* Output 0 of dtype dt: inputs 0 and 1 broadcast, folded when both are known. */
static enum status broadcast_out(struct infer_ctx *c, enum dtype dt)
{
    struct shape o;
    enum status st = broadcast(c, in_s(c, 0), in_s(c, 1), &o);
    if (st)
        return st;
    out_like(c, 0, &o, dt);
    fold_binary(c, &o, dt);
    return ST_OK;
}

enum status shape_binary(struct infer_ctx *c)
{
    return broadcast_out(c, first_dt(c));
}

enum status shape_compare(struct infer_ctx *c)
{
    return broadcast_out(c, DT_BOOL);
}

enum status shape_variadic(struct infer_ctx *c)
{
    struct shape o = *in_s(c, 0);
    enum status st;
    for (int i = 1; i < c->n->n_in; i++)
        if (in_v(c, i) && (st = broadcast(c, &o, in_s(c, i), &o)))
            return st;
    enum dtype dt = first_dt(c);
    out_like(c, 0, &o, dt);
    /* fold Max/Min/Sum/Mean of known inputs */
    for (int i = 0; i < c->n->n_in; i++)
        if (!in_k(c, i))
            return ST_OK;
    struct tconst *k = k_new(c, dt, o.rank, o.d);
    if (!k)
        return ST_OK;
    for (int64_t e = 0; e < k->n; e++) {
        const struct tconst *a = in_k(c, 0);
        double acc = k_getf(a, bcast_index(&o, a, e));
        for (int i = 1; i < c->n->n_in; i++) {
            const struct tconst *b = in_k(c, i);
            acc = fold_binop(c->n->op == OP_Mean ? OP_Add : c->n->op, acc,
                             k_getf(b, bcast_index(&o, b, e)), false, false);
        }
        if (c->n->op == OP_Mean)
            acc /= c->n->n_in;
        k_set(k, e, acc);
    }
    out_fold(c, 0, k);
    return ST_OK;
}

enum status shape_where(struct infer_ctx *c)
{
    struct shape o;
    enum status st = broadcast(c, in_s(c, 0), in_s(c, 1), &o);
    if (!st)
        st = broadcast(c, &o, in_s(c, 2), &o);
    if (st)
        return st;
    enum dtype dt = in_dt(c, 1) != DT_UNDEFINED ? in_dt(c, 1) : in_dt(c, 2);
    out_like(c, 0, &o, dt);
    const struct tconst *cond = in_k(c, 0), *x = in_k(c, 1), *y = in_k(c, 2);
    if (cond && x && y) {
        struct tconst *k = k_new(c, dt, o.rank, o.d);
        if (k) {
            for (int64_t e = 0; e < k->n; e++)
                k_set(k, e, k_getf(cond, bcast_index(&o, cond, e)) != 0.0
                                ? k_getf(x, bcast_index(&o, x, e))
                                : k_getf(y, bcast_index(&o, y, e)));
            out_fold(c, 0, k);
        }
    }
    return ST_OK;
}

/* ---- normalisation, softmax, cumsum ------------------------------------ */

enum status shape_batchnorm(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    if (x->rank < 2)
        return shape_fail(c, "input 0 '%s' has rank %d, expected at least 2 (N, C, ...)",
                          in_v(c, 0)->name, x->rank);
    int64_t ch = x->d[1];
    static const char *const names[] = {"X", "scale", "B", "mean", "var"};
    for (int i = 1; i < 5; i++) {
        const struct shape *s = in_s(c, i);
        if (s && numel(s) != ch)
            return shape_fail(c, "input %d (%s) '%s' has %lld elements, expected %lld (the "
                              "channel count of input 0)", i, names[i], in_v(c, i)->name,
                              (long long)numel(s), (long long)ch);
    }
    out_like(c, 0, x, in_dt(c, 0));
    int64_t cd[1] = {ch};
    for (int j = 1; j < c->n->n_out; j++)
        out_shape(c, j, 1, cd, in_dt(c, 1));
    return ST_OK;
}

enum status shape_layernorm(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int axis;
    enum status st = norm_axis(c, node_attr_int(c->n, "axis", -1), x->rank, &axis);
    if (st)
        return st;
    /* scale and bias must broadcast to the normalised dims */
    struct shape tail = {.known = true, .rank = x->rank - axis};
    for (int i = axis; i < x->rank; i++)
        tail.d[i - axis] = x->d[i];
    for (int i = 1; i < 3; i++) {
        struct shape b;
        if (in_s(c, i) && (st = broadcast(c, &tail, in_s(c, i), &b)))
            return st;
    }
    out_like(c, 0, x, in_dt(c, 0));
    int64_t md[IR_MAX_RANK];
    for (int i = 0; i < x->rank; i++)
        md[i] = i < axis ? x->d[i] : 1;
    int64_t stash = node_attr_int(c->n, "stash_type", DT_FLOAT);
    for (int j = 1; j < c->n->n_out; j++)
        out_shape(c, j, x->rank, md, stash > 0 && stash < DT__COUNT ? (enum dtype)stash
                                                                      : DT_FLOAT);
    return ST_OK;
}

enum status shape_softmax(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int axis;
    enum status st = norm_axis(c, node_attr_int(c->n, "axis", c->opset >= 13 ? -1 : 1), x->rank,
                               &axis);
    if (st)
        return st;
    out_like(c, 0, x, in_dt(c, 0));
    return ST_OK;
}

enum status shape_cumsum(struct infer_ctx *c)
{
    const struct shape *a = in_s(c, 1);
    if (numel(a) != 1)
        return shape_fail(c, "input 1 (axis) has %lld elements, expected a scalar",
                          (long long)numel(a));
    out_like(c, 0, in_s(c, 0), in_dt(c, 0));
    return ST_OK;
}

/* ---- fused activations and norms ---------------------------------------- */

/* FastGelu / BiasGelu: X plus an optional bias broadcast along the last dim. */
enum status shape_biasact(struct infer_ctx *c)
{
    struct shape o = *in_s(c, 0);
    if (in_v(c, 1)) {
        enum status st = broadcast(c, in_s(c, 0), in_s(c, 1), &o);
        if (st)
            return st;
    }
    out_like(c, 0, &o, in_dt(c, 0));
    return ST_OK;
}

/* GeGelu: the last dim holds [a, b]; out = gelu(a) * b, half as wide. */
enum status shape_geglu(struct infer_ctx *c)
{
    struct shape o = *in_s(c, 0);
    if (o.rank < 1 || o.d[o.rank - 1] % 2)
        return shape_fail(c, "last dim %lld is not even (gate and value halves)",
                          (long long)(o.rank ? o.d[o.rank - 1] : 0));
    o.d[o.rank - 1] /= 2;
    out_like(c, 0, &o, in_dt(c, 0));
    return ST_OK;
}

/* SkipLayerNormalization: input + skip (+ bias), normalised over the last
 * dim; optional outputs mean, inv_std_var, input_skip_bias_sum. */
enum status shape_skipln(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    struct shape o;
    enum status st = broadcast(c, x, in_s(c, 1), &o);
    if (st)
        return st;
    if (o.rank != x->rank)
        return shape_fail(c, "skip does not broadcast to the input");
    int64_t hidden = x->rank ? x->d[x->rank - 1] : 1;
    if (numel(in_s(c, 2)) != hidden)
        return shape_fail(c, "gamma has %lld elements, expected %lld (hidden size)",
                          (long long)numel(in_s(c, 2)), (long long)hidden);
    out_like(c, 0, x, in_dt(c, 0));
    int64_t md[IR_MAX_RANK];
    for (int i = 0; i < x->rank; i++)
        md[i] = i < x->rank - 1 ? x->d[i] : 1;
    out_shape(c, 1, x->rank, md, DT_FLOAT);
    out_shape(c, 2, x->rank, md, DT_FLOAT);
    out_like(c, 3, x, in_dt(c, 0));
    return ST_OK;
}
