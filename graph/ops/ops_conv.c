/* ops_conv.c - shape functions of convolutions and pooling: kernel, strides,
 * dilations, explicit pads or auto_pad (SAME_UPPER / SAME_LOWER / VALID),
 * ceil_mode, groups, ConvTranspose output_padding / output_shape. */
#include <string.h>

#include "graph/ops/op_infer.h"

struct window {
    int n; /* spatial dims */
    int64_t k[IR_MAX_RANK], s[IR_MAX_RANK], dil[IR_MAX_RANK];
    int64_t pb[IR_MAX_RANK], pe[IR_MAX_RANK];
    const char *auto_pad;
};

/* Reads kernel (from attr or, when given, the weight's trailing dims),
 * strides, dilations, pads and auto_pad for n spatial dims. */
static enum status window_read(struct infer_ctx *c, int n, const struct shape *w,
                               struct window *win)
{
    const struct node *nd = c->n;
    memset(win, 0, sizeof *win);
    win->n = n;
    int64_t buf[2 * IR_MAX_RANK];
    int nk = attr_ints(nd, "kernel_shape", buf, IR_MAX_RANK);
    if (nk) {
        if (nk != n)
            return shape_fail(c, "kernel_shape has %d values, expected %d (spatial dims)", nk, n);
        if (w) {
            for (int i = 0; i < n; i++)
                if (w->d[2 + i] != buf[i])
                    return shape_fail(c, "kernel_shape[%d] = %lld but the weight has %lld", i,
                                      (long long)buf[i], (long long)w->d[2 + i]);
        }
        for (int i = 0; i < n; i++)
            win->k[i] = buf[i];
    } else if (w) {
        for (int i = 0; i < n; i++)
            win->k[i] = w->d[2 + i];
    } else {
        return shape_fail(c, "attribute kernel_shape is missing");
    }
    for (int i = 0; i < n; i++) {
        win->s[i] = 1;
        win->dil[i] = 1;
        if (win->k[i] < 1)
            return shape_fail(c, "kernel dim %d is %lld, expected >= 1", i, (long long)win->k[i]);
    }
    int ns = attr_ints(nd, "strides", buf, IR_MAX_RANK);
    if (ns && ns != n)
        return shape_fail(c, "strides has %d values, expected %d", ns, n);
    for (int i = 0; i < ns; i++)
        win->s[i] = buf[i];
    int nd_ = attr_ints(nd, "dilations", buf, IR_MAX_RANK);
    if (nd_ && nd_ != n)
        return shape_fail(c, "dilations has %d values, expected %d", nd_, n);
    for (int i = 0; i < nd_; i++)
        win->dil[i] = buf[i];
    for (int i = 0; i < n; i++)
        if (win->s[i] < 1 || win->dil[i] < 1)
            return shape_fail(c, "strides and dilations must be >= 1 (dim %d: %lld, %lld)", i,
                              (long long)win->s[i], (long long)win->dil[i]);
    int np = attr_ints(nd, "pads", buf, 2 * IR_MAX_RANK);
    if (np && np != 2 * n)
        return shape_fail(c, "pads has %d values, expected %d (begin and end per spatial dim)",
                          np, 2 * n);
    for (int i = 0; i < n && np; i++) {
        win->pb[i] = buf[i];
        win->pe[i] = buf[n + i];
    }
    win->auto_pad = node_attr_str(nd, "auto_pad", "NOTSET");
    if (strcmp(win->auto_pad, "NOTSET") && strcmp(win->auto_pad, "VALID") &&
        strcmp(win->auto_pad, "SAME_UPPER") && strcmp(win->auto_pad, "SAME_LOWER"))
        return shape_fail(c, "auto_pad '%s', expected NOTSET, VALID, SAME_UPPER or SAME_LOWER",
                          win->auto_pad);
    return ST_OK;
}

/* Output spatial size of a forward window (conv or pool). */
static enum status window_out(struct infer_ctx *c, const struct window *w, const int64_t *in,
                              bool ceil_mode, int64_t *out)
{
    for (int i = 0; i < w->n; i++) {
        int64_t ek = (w->k[i] - 1) * w->dil[i] + 1;
        if (!strcmp(w->auto_pad, "SAME_UPPER") || !strcmp(w->auto_pad, "SAME_LOWER")) {
            out[i] = (in[i] + w->s[i] - 1) / w->s[i];
        } else if (!strcmp(w->auto_pad, "VALID")) {
            if (in[i] < ek)
                return shape_fail(c, "spatial dim %d is %lld, smaller than the effective kernel "
                                  "%lld (VALID padding)", i, (long long)in[i], (long long)ek);
            out[i] = (in[i] - ek) / w->s[i] + 1;
        } else {
            int64_t span = in[i] + w->pb[i] + w->pe[i] - ek;
            if (span < 0)
                return shape_fail(c, "spatial dim %d is %lld (+ pads %lld, %lld), smaller than "
                                  "the effective kernel %lld", i, (long long)in[i],
                                  (long long)w->pb[i], (long long)w->pe[i], (long long)ek);
            out[i] = (ceil_mode ? (span + w->s[i] - 1) / w->s[i] : span / w->s[i]) + 1;
            /* the last window must start inside the input or left padding
             * (PyTorch and ONNX Runtime) */
            if (ceil_mode && (out[i] - 1) * w->s[i] >= in[i] + w->pb[i])
                out[i]--;
        }
    }
    return ST_OK;
}

/* Checks input i is laid out N, C, then at least min - 2 spatial dims. */
static enum status need_nc(struct infer_ctx *c, int i, int min)
{
    const struct shape *s = in_s(c, i);
    if (s->rank < min)
        return shape_fail(c, "input %d '%s' has rank %d, expected at least %d (N, C, %s)", i,
                          in_v(c, i)->name, s->rank, min, min > 2 ? "spatial..." : "...");
    return ST_OK;
}

/* The output dims od of a sliding window over x: N, then ch channels, then
 * the spatial dims (kernel from the weight w of a Conv, NULL for pooling). */
static enum status window_dims(struct infer_ctx *c, const struct shape *x,
                               const struct shape *w, int64_t ch, bool ceil_mode, int64_t *od)
{
    struct window win;
    enum status st = window_read(c, x->rank - 2, w, &win);
    if (st)
        return st;
    od[0] = x->d[0];
    od[1] = ch;
    return window_out(c, &win, x->d + 2, ceil_mode, od + 2);
}

/* Checks the input x at xi (N, C, spatial...) and the weight at wi of its rank. */
static enum status conv_inputs(struct infer_ctx *c, int xi, int wi)
{
    const struct shape *x = in_s(c, xi), *w = in_s(c, wi);
    enum status st = need_nc(c, xi, 3);
    if (st)
        return st;
    if (w->rank != x->rank)
        return shape_fail(c, "weight '%s' has rank %d, expected %d (the input's rank)",
                          in_v(c, wi)->name, w->rank, x->rank);
    return ST_OK;
}

/* Conv family: x at xi, weight at wi, optional bias at bi (-1: none). */
static enum status conv_core(struct infer_ctx *c, int xi, int wi, int bi, enum dtype dt)
{
    const struct shape *x = in_s(c, xi), *w = in_s(c, wi);
    enum status st = conv_inputs(c, xi, wi);
    if (st)
        return st;
    int64_t group = node_attr_int(c->n, "group", 1);
    if (group < 1 || w->d[0] % group)
        return shape_fail(c, "group %lld does not divide the %lld output channels",
                          (long long)group, (long long)w->d[0]);
    if (x->d[1] != w->d[1] * group)
        return shape_fail(c, "input has %lld channels but weight '%s' expects %lld (%lld per "
                          "group x %lld groups)", (long long)x->d[1], in_v(c, wi)->name,
                          (long long)(w->d[1] * group), (long long)w->d[1], (long long)group);
    if (bi >= 0 && in_v(c, bi) && numel(in_s(c, bi)) != w->d[0])
        return shape_fail(c, "bias '%s' has %lld elements, expected %lld (output channels)",
                          in_v(c, bi)->name, (long long)numel(in_s(c, bi)), (long long)w->d[0]);
    int64_t od[IR_MAX_RANK];
    if ((st = window_dims(c, x, w, w->d[0], false, od)))
        return st;
    out_shape(c, 0, x->rank, od, dt);
    return ST_OK;
}

enum status shape_conv(struct infer_ctx *c)
{
    return conv_core(c, 0, 1, c->n->op == OP_Conv ? 2 : -1,
                     c->n->op == OP_ConvInteger ? DT_INT32 : in_dt(c, 0));
}

enum status shape_qlinearconv(struct infer_ctx *c)
{
    return conv_core(c, 0, 3, 8, in_v(c, 7) ? in_dt(c, 7) : in_dt(c, 0));
}

enum status shape_convtranspose(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0), *w = in_s(c, 1);
    enum status st = conv_inputs(c, 0, 1);
    if (st)
        return st;
    int64_t group = node_attr_int(c->n, "group", 1);
    if (group < 1 || x->d[1] != w->d[0])
        return shape_fail(c, "input has %lld channels but weight '%s' has %lld input channels",
                          (long long)x->d[1], in_v(c, 1)->name, (long long)w->d[0]);
    if (w->d[0] % group)
        return shape_fail(c, "group %lld does not divide the %lld input channels",
                          (long long)group, (long long)w->d[0]);
    int64_t m = w->d[1] * group;
    if (in_v(c, 2) && numel(in_s(c, 2)) != m)
        return shape_fail(c, "bias has %lld elements, expected %lld (output channels)",
                          (long long)numel(in_s(c, 2)), (long long)m);
    struct window win;
    if ((st = window_read(c, x->rank - 2, w, &win)))
        return st;
    int n = win.n;
    int64_t od[IR_MAX_RANK], opad[IR_MAX_RANK] = {0}, oshape[IR_MAX_RANK];
    int nop = attr_ints(c->n, "output_padding", opad, IR_MAX_RANK);
    if (nop && nop != n)
        return shape_fail(c, "output_padding has %d values, expected %d", nop, n);
    int nos = attr_ints(c->n, "output_shape", oshape, IR_MAX_RANK);
    od[0] = x->d[0];
    od[1] = m;
    for (int i = 0; i < n; i++) {
        if (nos) {
            if (nos != n && nos != n + 2)
                return shape_fail(c, "output_shape has %d values, expected %d", nos, n);
            od[2 + i] = oshape[nos - n + i];
        } else if (!strcmp(win.auto_pad, "SAME_UPPER") || !strcmp(win.auto_pad, "SAME_LOWER")) {
            od[2 + i] = x->d[2 + i] * win.s[i];
        } else {
            int64_t ek = (win.k[i] - 1) * win.dil[i] + 1;
            bool valid = !strcmp(win.auto_pad, "VALID");
            od[2 + i] = win.s[i] * (x->d[2 + i] - 1) + opad[i] + ek -
                        (valid ? 0 : win.pb[i] + win.pe[i]);
        }
        if (od[2 + i] < 0)
            return shape_fail(c, "output spatial dim %d would be %lld, expected >= 0", i,
                              (long long)od[2 + i]);
    }
    out_shape(c, 0, x->rank, od, in_dt(c, 0));
    return ST_OK;
}

/* ---- pooling ----------------------------------------------------------- */

enum status shape_pool(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int64_t od[IR_MAX_RANK];
    enum status st = need_nc(c, 0, 3);
    if (!st)
        st = window_dims(c, x, NULL, x->d[1], node_attr_int(c->n, "ceil_mode", 0) != 0, od);
    if (st)
        return st;
    out_shape(c, 0, x->rank, od, in_dt(c, 0));
    out_shape(c, 1, x->rank, od, DT_INT64); /* MaxPool indices */
    return ST_OK;
}

enum status shape_globalpool(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    enum status st = need_nc(c, 0, 2);
    if (st)
        return st;
    int64_t od[IR_MAX_RANK];
    for (int i = 0; i < x->rank; i++)
        od[i] = i < 2 ? x->d[i] : 1;
    out_shape(c, 0, x->rank, od, in_dt(c, 0));
    return ST_OK;
}

enum status shape_roialign(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0), *rois = in_s(c, 1), *idx = in_s(c, 2);
    enum status st;
    if ((st = need_rank(c, 0, 4, 4)) || (st = need_rank(c, 1, 2, 2)) ||
        (st = need_rank(c, 2, 1, 1)))
        return st;
    if (rois->d[1] != 4)
        return shape_fail(c, "rois has %lld columns, expected 4", (long long)rois->d[1]);
    if (idx->d[0] != rois->d[0])
        return shape_fail(c, "batch_indices has %lld entries, expected %lld (one per roi)",
                          (long long)idx->d[0], (long long)rois->d[0]);
    int64_t od[4] = {rois->d[0], x->d[1], node_attr_int(c->n, "output_height", 1),
                     node_attr_int(c->n, "output_width", 1)};
    out_shape(c, 0, 4, od, in_dt(c, 0));
    return ST_OK;
}

enum status shape_gridsample(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0), *grid = in_s(c, 1);
    if (x->rank < 3 || grid->rank != x->rank)
        return shape_fail(c, "input ranks %d and %d, expected equal ranks >= 3 (N, C, spatial) "
                          "and (N, spatial..., %d)", x->rank, grid->rank, x->rank - 2);
    if (grid->d[0] != x->d[0] || grid->d[grid->rank - 1] != x->rank - 2)
        return shape_fail(c, "grid has shape with batch %lld and last dim %lld, expected batch "
                          "%lld and last dim %d", (long long)grid->d[0],
                          (long long)grid->d[grid->rank - 1], (long long)x->d[0], x->rank - 2);
    int64_t od[IR_MAX_RANK];
    od[0] = x->d[0];
    od[1] = x->d[1];
    for (int i = 2; i < x->rank; i++)
        od[i] = grid->d[i - 1];
    out_shape(c, 0, x->rank, od, in_dt(c, 0));
    return ST_OK;
}
