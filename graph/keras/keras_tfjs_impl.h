/*
 * keras_tfjs_impl.h - internals shared by the TF.js graph-model reader
 * (keras_tfjs_graph.c: parsing, attributes, constants, the driver), its
 * op emitters (keras_tfjs_ops.c, _shape.c, _detect.c) and while loops
 * (keras_tfjs_control.c, _loop.c). Only those files include it.
 */
#ifndef DIPPM_KERAS_TFJS_IMPL_H
#define DIPPM_KERAS_TFJS_IMPL_H

#include "graph/keras/keras_impl.h"

struct strmap;
struct tfuncs;

struct gnode {
    const struct cJSON *j;
    const char *name, *op;
    const struct cJSON *attr;
    const char *in[16];
    int n_in;
    bool done, is_const, float_const;
    int mw;             /* manifest index of a Const, or -1 */
    struct ktensor t;   /* output 0 */
    struct ktensor *xt; /* outputs 1 .. n_xt (malloc'd), for multi-output ops */
    int n_xt;
    int64_t *iv;        /* an integer Const's values (malloc'd) once read */
    signed char iv_state; /* 0 unread, 1 known (iv), -1 not readable */
    char path[48];
    const char *ctl;    /* first control input ("^name" without the caret), or NULL */
    int frame;          /* while-loop frame it runs in (index into gctx.fr), -1: top level */
    bool scan_var;      /* an Enter or Merge of a TensorList filled one item per iteration */
};

/* A TF1 while-loop frame (Enter .. Exit), mapped to one IR Loop. */
struct tframe {
    const char *name;   /* frame_name (decoded; malloc'd) */
    int parent;         /* enclosing frame, -1: top level, -2: not known yet */
    int enter;          /* one of its Enter nodes (for messages) */
    bool emitted;
};

struct gctx {
    struct kctx *c;
    struct gnode *n;
    int nn;
    struct strmap *byname;
    int *cons_off, *cons; /* consumers of node i: cons[cons_off[i] .. cons_off[i+1]) */
    struct tframe *fr;    /* while-loop frames (keras_tfjs_control.c) */
    int nfr;
    /* After tg_frames: the nodes of each frame f at mem[mem_off[f + 1] ..
     * mem_off[f + 2]) (the top level at 0), the frames nested directly in
     * it likewise in kids/kid_off, both in index order; unit: scratch of
     * tg_emit_scope, -1 outside it. */
    int *mem_off, *mem, *kid_off, *kids, *unit;
    int frame;            /* frame being emitted, -1: top level */
    const struct cJSON *lib;  /* modelTopology.library.function (borrowed), or NULL */
    struct tfuncs *funcs; /* lib by function name (tg_funcs_index; shared by the bodies) */
    const char *prefix;   /* IR name prefix of a function body ("W/body/"), or NULL */
    int depth;            /* function bodies being emitted around this one */
    int64_t *budget;      /* nodes read from function bodies so far (shared), or NULL */
};

/* Attribute readers ("s" attributes are base64 in GraphDef JSON). */
const struct cJSON *tg_gattr(const struct gnode *node, const char *key);
const char *tg_decode_s(const char *s, char *buf, size_t size);
const char *tg_attr_s(const struct gnode *node, const char *key, const char *def, char *buf,
                      size_t size);
enum status tg_attr_ints(struct gctx *G, const struct gnode *node, const char *key, int want,
                         int64_t *out, bool required);
bool tg_attr_b(const struct gnode *node, const char *key);
double tg_attr_f(const struct gnode *node, const char *key, double def);
enum status tg_unsupported(struct gctx *G, const struct gnode *node, const char *why);
struct gnode *tg_input_node(struct gctx *G, const struct gnode *node, int i);
/* Input i as written (tg_input_node also sees through an Enter of a Const). */
struct gnode *tg_raw_input(struct gctx *G, const struct gnode *node, int i);
struct gnode *tg_node_named(struct gctx *G, const char *name);
/* The output index an input string names, -1 if malformed. */
int tg_out_index(const char *s);
int tg_gweight(struct gctx *G, struct gnode *k, const int64_t *dims, int rank, const char *role);
int tg_const_value(struct gctx *G, struct gnode *k);
int tg_const_bcast(struct gctx *G, struct gnode *k, int r, bool cf);
const char *tg_gname(struct gctx *G, const struct gnode *node, const char *sfx);
struct ktensor *tg_tin(struct gctx *G, struct gnode *node, int i);
void tg_set_out(struct gnode *node, int rank, int v, bool cf);
/* Output k (0-based) of node as its consumers see it; grows node->xt. */
struct ktensor *tg_out(struct gnode *node, int k);
/* The values of integer Const k (read from the shards once): their count,
 * or -1 if k is not such a Const or they cannot be read. */
int64_t tg_const_ints(struct gctx *G, struct gnode *k, const int64_t **vals);
/* Input i of node as an integer constant with at most max values: ST_OK with
 * out/n filled, else an "unsupported" error naming what (e.g. "its axis"). */
enum status tg_input_ints(struct gctx *G, struct gnode *node, int i, const char *what,
                          int64_t max, int64_t *out, int64_t *n);
/* Layout a tensor is held in without a Transpose: channels-first only. */
bool tg_is_cf(const struct ktensor *x);

/* The driver's steps (keras_tfjs_graph.c), reused for function bodies:
 * parse nodes (extra: slots kept free after them), check and link them and
 * emit the top level, free G's arrays. */
enum status tg_parse_nodes(struct gctx *G, const struct cJSON *nodes, const char *path, int extra);
enum status tg_link(struct gctx *G);
void tg_free(struct gctx *G);
/* Input i of node as an IR value in TF order (a Const's value or the tensor),
 * and its ktensor with vn = v (keras_tfjs_loop.c). */
int tg_in_value(struct gctx *G, struct gnode *node, int i);
struct ktensor tg_in_tensor(struct gctx *G, struct gnode *node, int i, int v);
/* TF2 functional While/StatelessWhile and If/StatelessIf with bodies in
 * library.function (keras_tfjs_func.c). */
enum status tg_emit_func(struct gctx *G, struct gnode *node);
/* Indexes G->lib by function name once (the first of equal names wins), so
 * a call finds its function without scanning the library; freed by
 * tg_funcs_free. */
void tg_funcs_index(struct gctx *G);
void tg_funcs_free(struct gctx *G);
/* Library entries looked at so far by this process (a debug counter: tests
 * bound the work of many calls into a large library with it). */
unsigned long tg_funcs_looked_at(void);

/* keras_tfjs_control.c: TF1 while loops. tg_frames assigns every node its
 * frame and checks the loop structure; tg_emit_scope emits the nodes of a
 * frame (-1: the top level) in dependency order, each inner frame as one
 * IR Loop; tg_emit_control maps Switch, Merge, LoopCond, NextIteration and
 * the TensorList ops (ST_ENOTFOUND for other ops). */
enum status tg_frames(struct gctx *G);
/* The value node passes on through Identity and Switch nodes. */
struct gnode *tg_through(struct gctx *G, struct gnode *node);
/* A loop value's Merge: its Enter (*e) and NextIteration (*ni) inputs. */
bool tg_loop_merge(struct gctx *G, struct gnode *m, struct gnode **e, struct gnode **ni);
/* Folds the loop condition node of frame f: true if it folds to a trip count
 * (*bound); otherwise *bound is a known upper bound or -1. */
bool tg_fold_trips(struct gctx *G, int f, struct gnode *node, int64_t *bound, int depth);
enum status tg_emit_scope(struct gctx *G, int scope);
/* Nodes the while-loop code has looked at so far in this process (a debug
 * counter: tests bound the work of many frames with it). */
unsigned long tg_frame_visits(void);
/* Counts n node visits (keras_tfjs_control.c and _loop.c). */
void tg_frame_visit(unsigned long n);
enum status tg_emit_control(struct gctx *G, struct gnode *node);
/* The driver's check and emission of one node (keras_tfjs_graph.c), and
 * the check alone: each input names an output its producer has. */
enum status tg_emit_one(struct gctx *G, struct gnode *node);
enum status tg_check_outputs(struct gctx *G, struct gnode *node);

/* Maps node (inputs all done) to IR ops and sets node->t. */
enum status keras_tfjs_emit_node(struct gctx *G, struct gnode *node);
/* The shape, index and multi-output ops (keras_tfjs_shape.c): ST_ENOTFOUND
 * if node->op is not one of them. */
enum status keras_tfjs_emit_shape(struct gctx *G, struct gnode *node);
/* Detection and loop bookkeeping ops (keras_tfjs_detect.c): ST_ENOTFOUND
 * if node->op is not one of them. */
enum status keras_tfjs_emit_detect(struct gctx *G, struct gnode *node);
/* An op of no list: kept, uncovered, when it declares its output shapes
 * (attr _output_shapes); else the "not supported" error naming it. */
enum status tg_opaque(struct gctx *G, struct gnode *node);

#endif
