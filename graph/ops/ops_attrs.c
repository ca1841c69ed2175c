/* ops_attrs.c - checks of the attributes whose meaning is the same in every
 * op that has them: an attribute of the wrong type, or out of its range, is an
 * error naming the node, never silently replaced by the default (a float
 * transB of 1.5, strides of -1 or 0, a string where an int belongs). */
#include <math.h>
#include <string.h>

#include "graph/ops/op_infer.h"

enum attr_range {
    R_ANY,
    R_BOOL,     /* 0 or 1 */
    R_POS,      /* >= 1 */
    R_NONNEG,   /* >= 0 */
};

struct attr_rule {
    const char *name;
    enum attr_type type;
    enum attr_range range;
};

static const struct attr_rule rules[] = {
    {"transA", ATTR_INT, R_BOOL},         {"transB", ATTR_INT, R_BOOL},
    {"keepdims", ATTR_INT, R_BOOL},       {"ceil_mode", ATTR_INT, R_BOOL},
    {"count_include_pad", ATTR_INT, R_BOOL}, {"fmod", ATTR_INT, R_BOOL},
    {"allowzero", ATTR_INT, R_BOOL},      {"noop_with_empty_axes", ATTR_INT, R_BOOL},
    {"axis", ATTR_INT, R_ANY},            {"group", ATTR_INT, R_POS},
    {"to", ATTR_INT, R_ANY},              {"blocksize", ATTR_INT, R_POS},
    {"strides", ATTR_INTS, R_POS},        {"dilations", ATTR_INTS, R_POS},
    {"kernel_shape", ATTR_INTS, R_POS},   {"pads", ATTR_INTS, R_NONNEG},
    {"output_padding", ATTR_INTS, R_NONNEG}, {"perm", ATTR_INTS, R_NONNEG},
    {"alpha", ATTR_FLOAT, R_ANY},         {"beta", ATTR_FLOAT, R_ANY},
    {"epsilon", ATTR_FLOAT, R_ANY},       {"auto_pad", ATTR_STRING, R_ANY},
};

static bool in_range(int64_t v, enum attr_range r)
{
    switch (r) {
    case R_BOOL: return v == 0 || v == 1;
    case R_POS: return v >= 1;
    case R_NONNEG: return v >= 0;
    default: return true;
    }
}

static const char *range_text(enum attr_range r)
{
    return r == R_BOOL ? " 0 or 1" : r == R_POS ? " >= 1" : r == R_NONNEG ? " >= 0" : "";
}

static enum status check_one(struct infer_ctx *c, const struct attr *a,
                             const struct attr_rule *r)
{
    /* an integral float is what some exporters write for an int */
    if (r->type == ATTR_INT && a->type == ATTR_FLOAT) {
        if (a->f != floor(a->f) || !(fabs(a->f) < 9e15))
            return shape_fail(c, "attribute %s is the float %g, expected an integer%s", a->name,
                              a->f, range_text(r->range));
        if (!in_range((int64_t)a->f, r->range))
            return shape_fail(c, "attribute %s is %g, expected%s", a->name, a->f,
                              range_text(r->range));
        return ST_OK;
    }
    if (r->type == ATTR_FLOAT && a->type == ATTR_INT)
        return ST_OK;
    if (a->type != r->type)
        return shape_fail(c, "attribute %s is of type %s, expected %s", a->name,
                          attr_type_name(a->type), attr_type_name(r->type));
    if (r->type == ATTR_INT && !in_range(a->i, r->range))
        return shape_fail(c, "attribute %s is %lld, expected%s", a->name, (long long)a->i,
                          range_text(r->range));
    if (r->type == ATTR_INTS)
        for (int k = 0; k < a->n; k++)
            if (!in_range(a->ints[k], r->range))
                return shape_fail(c, "attribute %s[%d] is %lld, expected%s", a->name, k,
                                  (long long)a->ints[k], range_text(r->range));
    if (r->type == ATTR_FLOAT && !isfinite(a->f) && strcmp(a->name, "alpha") &&
        strcmp(a->name, "beta"))
        return shape_fail(c, "attribute %s is %g, expected a finite number", a->name, a->f);
    return ST_OK;
}

enum status attrs_check(struct infer_ctx *c)
{
    const struct node *n = c->n;
    for (int i = 0; i < n->n_attr; i++) {
        const struct attr *a = &n->attrs[i];
        for (size_t k = 0; k < sizeof rules / sizeof rules[0]; k++) {
            /* the first letters first: this runs for every attribute of
             * every node on every graph_infer */
            if (a->name[0] != rules[k].name[0] || strcmp(a->name, rules[k].name))
                continue;
            enum status st = check_one(c, a, &rules[k]);
            if (st)
                return st;
            break;
        }
    }
    return ST_OK;
}
