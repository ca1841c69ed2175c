/* ops_matmul.c - shape functions of matrix products: Gemm (transA/transB,
 * unidirectional C), MatMul with numpy batch broadcasting and 1-D
 * promotion, the integer/quantised variants, Einsum equations with
 * ellipsis, recurrent layers and the fused attention ops. */
#include <ctype.h>
#include <string.h>

#include "graph/ops/op_infer.h"
#include "graph/ops/shape.h"

enum status shape_gemm(struct infer_ctx *c)
{
    const struct shape *a = in_s(c, 0), *b = in_s(c, 1);
    enum status st;
    if ((st = need_rank(c, 0, 2, 2)) || (st = need_rank(c, 1, 2, 2)))
        return st;
    bool ta = node_attr_int(c->n, "transA", 0) != 0, tb = node_attr_int(c->n, "transB", 0) != 0;
    int64_t m = ta ? a->d[1] : a->d[0], ka = ta ? a->d[0] : a->d[1];
    int64_t kb = tb ? b->d[1] : b->d[0], n = tb ? b->d[0] : b->d[1];
    if (ka != kb)
        return shape_fail(c, "A is %lldx%lld%s and B is %lldx%lld%s: inner dims %lld and %lld, "
                          "expected equal", (long long)a->d[0], (long long)a->d[1],
                          ta ? " (transA)" : "", (long long)b->d[0], (long long)b->d[1],
                          tb ? " (transB)" : "", (long long)ka, (long long)kb);
    struct shape o = {.known = true, .rank = 2, .d = {m, n}};
    if (in_v(c, 2)) {
        struct shape bc;
        if ((st = broadcast(c, &o, in_s(c, 2), &bc)))
            return st;
        if (bc.rank != 2 || bc.d[0] != m || bc.d[1] != n)
            return shape_fail(c, "C does not broadcast to the %lldx%lld result", (long long)m,
                              (long long)n);
    }
    out_like(c, 0, &o, in_dt(c, 0));
    return ST_OK;
}

/* numpy matmul of inputs ai, bi. */
static enum status matmul_core(struct infer_ctx *c, int ai, int bi, enum dtype dt)
{
    struct shape a = *in_s(c, ai), b = *in_s(c, bi);
    if (a.rank == 0 || b.rank == 0)
        return shape_fail(c, "MatMul of a scalar, expected inputs of rank >= 1");
    bool a1 = a.rank == 1, b1 = b.rank == 1;
    if (a1) {
        a.rank = 2;
        a.d[1] = a.d[0];
        a.d[0] = 1;
    }
    if (b1) {
        b.rank = 2;
        b.d[1] = 1;
    }
    int64_t m = a.d[a.rank - 2], k = a.d[a.rank - 1], k2 = b.d[b.rank - 2], n = b.d[b.rank - 1];
    if (k != k2) {
        char sa[160], sb[160];
        return shape_fail(c, "%s x %s: inner dims %lld and %lld, expected equal",
                          shape_str(in_s(c, ai), sa, sizeof sa),
                          shape_str(in_s(c, bi), sb, sizeof sb), (long long)k, (long long)k2);
    }
    struct shape ba = {.known = true, .rank = a.rank - 2}, bb = {.known = true, .rank = b.rank - 2};
    memcpy(ba.d, a.d, sizeof(int64_t) * ba.rank);
    memcpy(bb.d, b.d, sizeof(int64_t) * bb.rank);
    struct shape o;
    enum status st = broadcast(c, &ba, &bb, &o);
    if (st)
        return st;
    if (!a1)
        o.d[o.rank++] = m;
    if (!b1)
        o.d[o.rank++] = n;
    out_like(c, 0, &o, dt);
    return ST_OK;
}

enum status shape_matmul(struct infer_ctx *c)
{
    return matmul_core(c, 0, 1, c->n->op == OP_MatMulInteger ? DT_INT32 : in_dt(c, 0));
}

enum status shape_qlinearmatmul(struct infer_ctx *c)
{
    return matmul_core(c, 0, 3, in_dt(c, 7) != DT_UNDEFINED ? in_dt(c, 7) : in_dt(c, 0));
}

/* ---- Einsum ------------------------------------------------------------ */

struct einsum {
    int64_t size[128]; /* per letter, -1 unused */
    int n_ell;         /* ellipsis rank (broadcast over inputs) */
    int64_t ell[IR_MAX_RANK];
    int out_rank;
    int64_t out[IR_MAX_RANK];
};

/* Parses the equation against the input shapes. */
static enum status einsum_parse(struct infer_ctx *c, struct einsum *e)
{
    const char *eq = node_attr_str(c->n, "equation", NULL);
    if (!eq)
        return shape_fail(c, "attribute 'equation' is missing");
    for (int i = 0; i < 128; i++)
        e->size[i] = -1;
    e->n_ell = 0;
    struct shape ell = {.known = true, .rank = 0};
    int count[128] = {0};
    const char *p = eq;
    int term = 0;
    bool has_ell = false;
    for (;;) {
        char letters[IR_MAX_RANK + 1];
        int nl = 0, ell_at = -1;
        while (*p && *p != ',' && *p != '-') {
            if (*p == '.') {
                if (strncmp(p, "...", 3) || ell_at >= 0)
                    return shape_fail(c, "equation '%s': bad ellipsis, expected '...'", eq);
                ell_at = nl;
                p += 3;
                continue;
            }
            if (isalpha((unsigned char)*p)) {
                if (nl >= IR_MAX_RANK)
                    return shape_fail(c, "equation '%s': term %d has too many indices", eq, term);
                letters[nl++] = *p;
            } else if (*p != ' ') {
                return shape_fail(c, "equation '%s': unexpected character '%c'", eq, *p);
            }
            p++;
        }
        if (term >= c->n->n_in || !in_v(c, term))
            return shape_fail(c, "equation '%s' has more terms than the %d inputs", eq,
                              c->n->n_in);
        const struct shape *s = in_s(c, term);
        int n_e = ell_at >= 0 ? s->rank - nl : 0;
        if ((ell_at < 0 && s->rank != nl) || n_e < 0)
            return shape_fail(c, "equation '%s': term %d has %d indices but input %d has rank %d",
                              eq, term, nl, term, s->rank);
        int dim = 0;
        for (int i = 0; i <= nl; i++) {
            if (i == ell_at) {
                struct shape es = {.known = true, .rank = n_e};
                memcpy(es.d, s->d + dim, sizeof(int64_t) * n_e);
                enum status st = broadcast(c, &ell, &es, &ell);
                if (st)
                    return st;
                dim += n_e;
                has_ell = true;
            }
            if (i == nl)
                break;
            int l = (unsigned char)letters[i];
            int64_t v = s->d[dim++];
            if (e->size[l] >= 0 && e->size[l] != v && e->size[l] != 1 && v != 1)
                return shape_fail(c, "equation '%s': index '%c' is %lld in one input and %lld "
                                  "in another, expected equal", eq, l, (long long)e->size[l],
                                  (long long)v);
            if (e->size[l] < 0 || e->size[l] == 1)
                e->size[l] = v;
            count[l]++;
        }
        term++;
        if (*p == ',') {
            p++;
            continue;
        }
        break;
    }
    if (term != c->n->n_in)
        return shape_fail(c, "equation '%s' has %d terms, expected %d (one per input)", eq, term,
                          c->n->n_in);
    e->n_ell = ell.rank;
    memcpy(e->ell, ell.d, sizeof(int64_t) * ell.rank);
    e->out_rank = 0;
    if (*p == '-') {
        if (p[1] != '>')
            return shape_fail(c, "equation '%s': expected '->'", eq);
        for (p += 2; *p; p++) {
            if (*p == ' ')
                continue;
            if (*p == '.') {
                if (strncmp(p, "...", 3))
                    return shape_fail(c, "equation '%s': bad ellipsis in output", eq);
                for (int i = 0; i < ell.rank && e->out_rank < IR_MAX_RANK; i++)
                    e->out[e->out_rank++] = ell.d[i];
                p += 2;
                continue;
            }
            int l = (unsigned char)*p;
            if (!isalpha(l) || e->size[l] < 0)
                return shape_fail(c, "equation '%s': output index '%c' is not in any input", eq,
                                  *p);
            if (e->out_rank >= IR_MAX_RANK)
                return shape_fail(c, "equation '%s': output rank above %d", eq, IR_MAX_RANK);
            e->out[e->out_rank++] = e->size[l];
        }
    } else {
        /* implicit output: ellipsis dims, then letters used once, sorted */
        if (has_ell)
            for (int i = 0; i < ell.rank; i++)
                e->out[e->out_rank++] = ell.d[i];
        for (int l = 'A'; l <= 'z'; l++)
            if (count[l] == 1 && e->out_rank < IR_MAX_RANK)
                e->out[e->out_rank++] = e->size[l];
    }
    return ST_OK;
}

enum status shape_einsum(struct infer_ctx *c)
{
    struct einsum e;
    enum status st = einsum_parse(c, &e);
    if (st)
        return st;
    out_shape(c, 0, e.out_rank, e.out, in_dt(c, 0));
    return ST_OK;
}

double einsum_iterations(const struct infer_ctx *c)
{
    struct einsum e;
    struct diag d = {0};
    struct infer_ctx cc = *c;
    cc.d = &d;
    enum status st = einsum_parse(&cc, &e);
    if (st)
        return 0.0;
    double it = 1.0;
    for (int l = 0; l < 128; l++)
        if (e.size[l] >= 0)
            it *= (double)e.size[l];
    for (int i = 0; i < e.n_ell; i++)
        it *= (double)e.ell[i];
    return it;
}

/* ---- recurrent --------------------------------------------------------- */

enum status shape_rnn(struct infer_ctx *c)
{
    enum status st;
    if ((st = need_rank(c, 0, 3, 3)) || (st = need_rank(c, 1, 3, 3)) ||
        (st = need_rank(c, 2, 3, 3)))
        return st;
    const struct shape *x = in_s(c, 0), *w = in_s(c, 1), *r = in_s(c, 2);
    int gates = c->n->op == OP_LSTM ? 4 : c->n->op == OP_GRU ? 3 : 1;
    int64_t layout = node_attr_int(c->n, "layout", 0);
    const char *dir = node_attr_str(c->n, "direction", "forward");
    int64_t dirs = !strcmp(dir, "bidirectional") ? 2 : 1;
    int64_t h = node_attr_int(c->n, "hidden_size", r->d[2]);
    int64_t seq = layout ? x->d[1] : x->d[0], batch = layout ? x->d[0] : x->d[1];
    if (w->d[0] != dirs || r->d[0] != dirs)
        return shape_fail(c, "W/R have %lld/%lld directions, expected %lld (direction '%s')",
                          (long long)w->d[0], (long long)r->d[0], (long long)dirs, dir);
    if (w->d[1] != gates * h || r->d[1] != gates * h || r->d[2] != h)
        return shape_fail(c, "W/R gate dims %lld/%lld x %lld, expected %lld x %lld (%d gates x "
                          "hidden %lld)", (long long)w->d[1], (long long)r->d[1],
                          (long long)r->d[2], (long long)(gates * h), (long long)h, gates,
                          (long long)h);
    if (w->d[2] != x->d[2])
        return shape_fail(c, "W has input size %lld but X has %lld features",
                          (long long)w->d[2], (long long)x->d[2]);
    int64_t y[4] = {seq, dirs, batch, h}, yl[4] = {batch, seq, dirs, h};
    int64_t hs[3] = {dirs, batch, h}, hsl[3] = {batch, dirs, h};
    out_shape(c, 0, 4, layout ? yl : y, in_dt(c, 0));
    out_shape(c, 1, 3, layout ? hsl : hs, in_dt(c, 0));
    out_shape(c, 2, 3, layout ? hsl : hs, in_dt(c, 0));
    return ST_OK;
}

/* ---- fused attention ---------------------------------------------------- */

/* Microsoft contrib form: input [B,S,Din], weights [Din, q+k+v], bias,
 * mask_index, past [2,B,heads,P,hd]. ONNX (opset 23) form: Q, K, V rank 3
 * ([B,S,heads*hd]) or rank 4 ([B,heads,S,hd]). */
enum status shape_attention(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int64_t heads = node_attr_int(c->n, "num_heads", node_attr_int(c->n, "q_num_heads", 0));
    if (in_v(c, 1) && in_s(c, 1)->rank == 2) {
        const struct shape *w = in_s(c, 1);
        enum status st = need_rank(c, 0, 3, 3);
        if (st)
            return st;
        if (heads < 1)
            return shape_fail(c, "attribute num_heads is missing or < 1");
        if (w->d[0] != x->d[2])
            return shape_fail(c, "weights have %lld rows, expected %lld (input hidden size)",
                              (long long)w->d[0], (long long)x->d[2]);
        int64_t qkv[3];
        if (attr_ints(c->n, "qkv_hidden_sizes", qkv, 3) != 3) {
            if (w->d[1] % 3)
                return shape_fail(c, "weights have %lld columns, expected a multiple of 3",
                                  (long long)w->d[1]);
            qkv[0] = qkv[1] = qkv[2] = w->d[1] / 3;
        }
        if (qkv[0] % heads || qkv[2] % heads)
            return shape_fail(c, "hidden sizes %lld/%lld not divisible by %lld heads",
                              (long long)qkv[0], (long long)qkv[2], (long long)heads);
        int64_t od[3] = {x->d[0], x->d[1], qkv[2]};
        out_shape(c, 0, 3, od, in_dt(c, 0));
        int64_t past = 0;
        if (in_v(c, 4) && in_s(c, 4)->rank == 5)
            past = in_s(c, 4)->d[3];
        int64_t pd[5] = {2, x->d[0], heads, past + x->d[1], qkv[0] / heads};
        out_shape(c, 1, 5, pd, in_dt(c, 0));
        return ST_OK;
    }
    if (!in_v(c, 1) || !in_v(c, 2))
        return shape_fail(c, "expected Q, K, V inputs (or input and 2-D weights)");
    const struct shape *k = in_s(c, 1), *v = in_s(c, 2);
    if (x->rank != k->rank || x->rank != v->rank || (x->rank != 3 && x->rank != 4))
        return shape_fail(c, "Q, K, V have ranks %d, %d, %d, expected all 3 or all 4", x->rank,
                          k->rank, v->rank);
    if (x->rank == 4) {
        int64_t od[4] = {x->d[0], x->d[1], x->d[2], v->d[3]};
        if (x->d[3] != k->d[3] || k->d[2] != v->d[2])
            return shape_fail(c, "Q/K head sizes %lld/%lld or K/V lengths %lld/%lld differ",
                              (long long)x->d[3], (long long)k->d[3], (long long)k->d[2],
                              (long long)v->d[2]);
        out_shape(c, 0, 4, od, in_dt(c, 0));
        for (int j = 1; j < 3; j++) {
            const struct shape *p = in_s(c, 3 + j); /* past_key, past_value */
            int64_t pd[4] = {k->d[0], k->d[1], k->d[2] + (p && p->rank == 4 ? p->d[2] : 0),
                             j == 1 ? k->d[3] : v->d[3]};
            out_shape(c, j, 4, pd, in_dt(c, 0));
        }
        int64_t qk[4] = {x->d[0], x->d[1], x->d[2], k->d[2]};
        out_shape(c, 3, 4, qk, in_dt(c, 0));
        return ST_OK;
    }
    int64_t kvh = node_attr_int(c->n, "kv_num_heads", heads);
    if (heads < 1 || kvh < 1)
        return shape_fail(c, "3-D Q/K/V need attributes q_num_heads and kv_num_heads");
    if (k->d[1] != v->d[1] || v->d[2] % kvh)
        return shape_fail(c, "K/V lengths %lld/%lld differ or V hidden %lld not divisible by "
                          "%lld heads", (long long)k->d[1], (long long)v->d[1],
                          (long long)v->d[2], (long long)kvh);
    int64_t od[3] = {x->d[0], x->d[1], heads * (v->d[2] / kvh)};
    out_shape(c, 0, 3, od, in_dt(c, 0));
    for (int j = 1; j < 3; j++) {
        const struct shape *p = in_s(c, 3 + j);
        int64_t pd[4] = {k->d[0], kvh, k->d[1] + (p && p->rank == 4 ? p->d[2] : 0),
                         (j == 1 ? k->d[2] : v->d[2]) / kvh};
        out_shape(c, j, 4, pd, in_dt(c, 0));
    }
    int64_t qk[4] = {x->d[0], heads, x->d[1], k->d[1]};
    out_shape(c, 3, 4, qk, in_dt(c, 0));
    return ST_OK;
}

enum status shape_sdpa(struct infer_ctx *c)
{
    const struct shape *q = in_s(c, 0), *k = in_s(c, 1), *v = in_s(c, 2);
    if (q->rank < 2 || k->rank != q->rank || v->rank != q->rank)
        return shape_fail(c, "Q, K, V have ranks %d, %d, %d, expected equal ranks >= 2", q->rank,
                          k->rank, v->rank);
    int r = q->rank;
    if (q->d[r - 1] != k->d[r - 1])
        return shape_fail(c, "Q head size %lld and K head size %lld, expected equal",
                          (long long)q->d[r - 1], (long long)k->d[r - 1]);
    if (k->d[r - 2] != v->d[r - 2])
        return shape_fail(c, "K length %lld and V length %lld, expected equal",
                          (long long)k->d[r - 2], (long long)v->d[r - 2]);
    struct shape bq = {.known = true, .rank = r - 2}, bk = bq, bv = bq, o;
    memcpy(bq.d, q->d, sizeof(int64_t) * (r - 2));
    memcpy(bk.d, k->d, sizeof(int64_t) * (r - 2));
    memcpy(bv.d, v->d, sizeof(int64_t) * (r - 2));
    if (r >= 3 && k->d[r - 3] == v->d[r - 3] && k->d[r - 3] > 0 &&
        q->d[r - 3] % k->d[r - 3] == 0) {
        /* grouped-query (GQA) and multi-query (MQA) attention: each K/V
         * head serves q_heads / kv_heads query heads */
        bk.d[r - 3] = bv.d[r - 3] = q->d[r - 3];
    }
    enum status st = broadcast(c, &bq, &bk, &o);
    if (!st)
        st = broadcast(c, &o, &bv, &o);
    if (st)
        return st;
    o.d[o.rank++] = q->d[r - 2];
    o.d[o.rank++] = v->d[r - 1];
    if (in_v(c, 3)) {
        struct shape scores = o, m;
        scores.d[scores.rank - 1] = k->d[r - 2];
        if ((st = broadcast(c, &scores, in_s(c, 3), &m)))
            return st;
    }
    out_like(c, 0, &o, in_dt(c, 0));
    return ST_OK;
}

/* Microsoft contrib MultiHeadAttention: query [B,S,D], key/value [B,L,D]
 * (or packed / pre-split forms, which are not supported), num_heads. */
enum status shape_mha(struct infer_ctx *c)
{
    const struct shape *q = in_s(c, 0);
    int64_t heads = node_attr_int(c->n, "num_heads", 0);
    if (heads < 1)
        return shape_fail(c, "attribute num_heads is missing or < 1");
    if (q->rank != 3 || !in_v(c, 1) || !in_v(c, 2) || in_s(c, 1)->rank != 3 ||
        in_s(c, 2)->rank != 3)
        return shape_unsupported(c, "only the unpacked form (query, key, value of rank 3) is "
                                 "supported");
    const struct shape *k = in_s(c, 1), *v = in_s(c, 2);
    if (k->d[1] != v->d[1] || q->d[2] != k->d[2] || q->d[2] % heads || v->d[2] % heads)
        return shape_fail(c, "query/key/value hidden sizes %lld/%lld/%lld and lengths do not "
                          "match %lld heads", (long long)q->d[2], (long long)k->d[2],
                          (long long)v->d[2], (long long)heads);
    int64_t od[3] = {q->d[0], q->d[1], v->d[2]};
    out_shape(c, 0, 3, od, in_dt(c, 0));
    int64_t pk[4] = {q->d[0], heads, k->d[1], k->d[2] / heads};
    int64_t pv[4] = {q->d[0], heads, v->d[1], v->d[2] / heads};
    out_shape(c, 1, 4, pk, in_dt(c, 0));
    out_shape(c, 2, 4, pv, in_dt(c, 0));
    return ST_OK;
}
