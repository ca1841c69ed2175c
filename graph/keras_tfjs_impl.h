/*
 * keras_tfjs_impl.h - internals shared by the TF.js graph-model reader
 * (keras_tfjs_graph.c: parsing, attributes, constants, the driver) and its
 * op emitters (keras_tfjs_ops.c). Only those two files include it.
 */
#ifndef DIPPM_KERAS_TFJS_IMPL_H
#define DIPPM_KERAS_TFJS_IMPL_H

#include "keras_impl.h"

struct strmap;

struct gnode {
    const struct cJSON *j;
    const char *name, *op;
    const struct cJSON *attr;
    const char *in[16];
    int n_in;
    bool done, is_const, float_const;
    int mw;             /* manifest index of a Const, or -1 */
    struct ktensor t;   /* output 0 */
    char path[48];
};

struct gctx {
    struct kctx *c;
    struct gnode *n;
    int nn;
    struct strmap *byname;
    int *cons_off, *cons; /* consumers of node i: cons[cons_off[i] .. cons_off[i+1]) */
};

/* Attribute readers ("s" attributes are base64 in GraphDef JSON). */
const struct cJSON *tg_gattr(const struct gnode *g, const char *key);
const char *tg_decode_s(const char *s, char *buf, size_t size);
const char *tg_attr_s(const struct gnode *g, const char *key, const char *def, char *buf, size_t size);
enum status tg_attr_ints(struct gctx *G, const struct gnode *g, const char *key, int want, int64_t *out, bool required);
bool tg_attr_b(const struct gnode *g, const char *key);
double tg_attr_f(const struct gnode *g, const char *key, double def);
enum status tg_unsupported(struct gctx *G, const struct gnode *g, const char *why);
struct gnode *tg_input_node(struct gctx *G, const struct gnode *g, int i);
int tg_gweight(struct gctx *G, struct gnode *k, const int64_t *dims, int rank, const char *role);
int tg_const_value(struct gctx *G, struct gnode *k);
int tg_const_bcast(struct gctx *G, struct gnode *k, int r, bool cf);
const char *tg_gname(struct gctx *G, const struct gnode *g, const char *sfx);
struct ktensor *tg_tin(struct gctx *G, struct gnode *g, int i);
void tg_set_out(struct gnode *g, int rank, int v, bool cf);

/* Maps node g (inputs all done) to IR ops and sets g->t. */
enum status keras_tfjs_emit_node(struct gctx *G, struct gnode *g);

#endif
