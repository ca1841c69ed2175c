/*
 * keras_impl.h - internals shared by the Keras / TF.js readers (keras*.c).
 * Not a public header: only graph/keras/keras*.c include it.
 *
 * Layout convention. Keras and TF default to channels-last (NHWC, NWC,
 * NDHWC); the IR's ONNX ops (Conv, pools, BatchNormalization, Resize, Pad)
 * are channels-first. Every Keras tensor is tracked as a `struct ktensor`
 * with its Keras-order dims plus up to two materialised IR values: `vn`
 * holds the tensor in Keras order and `vcf` its channels-first permutation
 * (axes [0, r-1, 1, ..., r-2]). A layer asks for the layout its ONNX op
 * needs and a Transpose is inserted once, on demand, and reused. Graph
 * inputs are declared in Keras order (so --set names the dims the user
 * sees in Keras); a channels-last image model thus starts with one
 * Transpose to NCHW and stays channels-first through its conv stack, as
 * tf2onnx converts it. Weights are declared in the ONNX layout their op
 * takes (Conv OIHW, Gemm [in,out], LSTM [1,4u,in]) with the same element
 * count as Keras's, so summed initializer elements equal count_params().
 *
 * cJSON types are forward-declared here; only keras*.c include cJSON.
 */
#ifndef DIPPM_KERAS_IMPL_H
#define DIPPM_KERAS_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/ir/ir.h"

struct cJSON;
struct strmap;

#define KMAX_IO 64 /* inputs or outputs of one layer call */

/* A Keras tensor: Keras-order dims (dims[i].v < 0 and sym < 0 = unknown). */
struct ktensor {
    int rank;
    struct dim dims[IR_MAX_RANK];
    enum dtype dt;
    int vn;  /* IR value in Keras order, or -1 */
    int vcf; /* IR value in channels-first order, or -1 */
};

/* One weightsManifest entry (TF.js). */
struct kweight {
    const char *name;
    enum dtype dt;
    int rank;
    int64_t dims[IR_MAX_RANK];
    int64_t n;
    bool used;
    bool quantized;  /* stored as a quantized dtype ("quantization") */
    int group;       /* weightsManifest group holding it */
    int64_t offset;  /* byte offset in the group's shard stream, -1 if unknown */
    int64_t nbytes;  /* bytes stored there */
};

struct kctx {
    struct graph *g;
    const char *file;
    struct diag *d;
    bool keras3;            /* "module"/"registered_name" seen */
    struct kweight *w;      /* manifest entries (malloc'd), NULL if none */
    int n_w;
    struct strmap *wmap;    /* manifest name -> index */
    bool graph_model;       /* TF.js graph model (manifest holds all Consts) */
    const struct cJSON *manifest; /* the weightsManifest array (borrowed), or NULL */
    const char *dir;        /* directory of the model file (its shards), NULL: none */
    const unsigned char *shard_mem; /* or every group's shard bytes in memory */
    size_t shard_len;
    struct kshard_sizes *sizes; /* each group's shard sizes, learnt once (dir only) */
};

/* The layer being mapped: its JSON, its path for messages and its names. */
struct klayer {
    const char *name;        /* layer name as in the file */
    const char *cls;         /* class_name */
    const struct cJSON *cfg; /* its "config" object */
    const char *path;        /* JSON path of the layer object */
    const char *nprefix;     /* node-name prefix ("" or "outer/", per call) */
    const char *wprefix;     /* weight-name prefix ("" or "outer/") */
};

/* A call's named tensor arguments beside the positional ones (MHA value/key). */
struct kkwargs {
    int n;
    const char *name[8];
    struct ktensor *t[8];
};

/* ---- keras.c: errors and config readers ----------------------------------- */

/* "FILE: PATH: message" as ST_EPARSE. */
enum status kerr(struct kctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "FILE: layer 'NAME' (class CLS): message" with status st. */
enum status klerr(struct kctx *c, const struct klayer *L, enum status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
const char *kjtype(const struct cJSON *j);
bool kj_is_int(const struct cJSON *j);

/* Config readers: key absent or null -> *out = def and ST_OK (required:
 * an error naming PATH.config.KEY). Wrong type -> error naming the path. */
enum status kcfg_int(struct kctx *c, const struct klayer *L, const char *key, bool required,
                     int64_t def, int64_t *out);
enum status kcfg_float(struct kctx *c, const struct klayer *L, const char *key, double def,
                       double *out);
enum status kcfg_bool(struct kctx *c, const struct klayer *L, const char *key, bool def,
                      bool *out);
/* String (borrowed from the JSON tree) or def. */
enum status kcfg_str(struct kctx *c, const struct klayer *L, const char *key, const char *def,
                     const char **out);
/* An int or a list of n ints (Keras tuples); an int fills all n. */
enum status kcfg_ints(struct kctx *c, const struct klayer *L, const char *key, int n,
                      int64_t def, int64_t *out);
/* A list of 0..max ints into out, count in *n (absent: *n = 0). */
enum status kcfg_intlist(struct kctx *c, const struct klayer *L, const char *key, int max,
                         int64_t *out, int *n);

/* ---- keras_emit.c: IR construction ---------------------------------------- */

/* Unique value/node name "<nprefix><layer>[/suffix]". */
const char *kx_name(struct kctx *c, const struct klayer *L, const char *suffix);
/* Adds node op with inputs in[] and one fresh output; returns the output value. */
int kx_op(struct kctx *c, enum op op, const char *name, const int *in, int n_in);
/* Node index of the producer of value v (after kx_op). */
int kx_producer(struct kctx *c, int v);
/* Constant node holding int64 data (not a parameter); returns its value. */
int kx_const_i64(struct kctx *c, const char *name, const int64_t *vals, int n);
/* Constant node holding float data of the given dims. */
int kx_const_f(struct kctx *c, const char *name, const double *vals, int rank,
               const int64_t *dims);
/* Declares weight `wname` of layer L as an initializer with IR dims[rank];
 * shared across calls of the layer. With a weightsManifest the entry
 * "<layer>/<wname>" must exist with the same element count (error otherwise).
 * Returns the value index or -1 with diag set. */
int kx_weight(struct kctx *c, const struct klayer *L, const char *wname, int rank,
              const int64_t *dims, enum dtype dt);
/* The IR value of t in channels-first (cf) or Keras order, inserting and
 * caching a Transpose when needed. */
int kx_val(struct kctx *c, struct ktensor *t, bool cf, const char *name);
/* Keras axis -> axis in the channels-first permutation. */
int kx_cf_axis(int axis, int rank);
/* New tensor of rank r (dims unknown) whose IR value v is in `cf` order. */
void kx_tensor(struct ktensor *t, int rank, int v, bool cf);
/* Applies a Keras activation name ("relu", "swish", ...) to value v as a
 * separate IR node; "linear"/NULL return v. axis is the softmax axis in the
 * value's own layout. -1 with diag on an unknown activation. */
int kx_activation(struct kctx *c, const struct klayer *L, const char *act, int v, int axis);
/* Reads a layer's "activation" entry (string or Keras 3 object). */
enum status kx_activation_name(struct kctx *c, const struct klayer *L, const char **out);

/* ---- keras_layers.c / keras_layers_seq.c: layer -> IR --------------------- */

/* Maps one call of layer L (not a model, not InputLayer) on in[0..n_in) to
 * out[0..*n_out). ST_EUNSUPPORTED for unknown classes. */
enum status keras_layer_emit(struct kctx *c, const struct klayer *L, struct ktensor *in,
                             int n_in, const struct kkwargs *kw, struct ktensor *out,
                             int *n_out);
/* Sequence and attention layers (Embedding, LSTM, GRU, SimpleRNN,
 * MultiHeadAttention); ST_ENOTFOUND if cls is not one of them. */
enum status keras_layer_emit_seq(struct kctx *c, const struct klayer *L, struct ktensor *in,
                                 int n_in, const struct kkwargs *kw, struct ktensor *out,
                                 int *n_out);

/* ---- keras_model.c: Sequential / Functional / nested ---------------------- */

/* Builds model object obj ({class_name, config}) at JSON path `path`. At top
 * level (in == NULL) its InputLayers become graph inputs and its outputs graph
 * outputs; nested, in[] feed its inputs. */
enum status keras_model_build(struct kctx *c, const struct cJSON *obj, const char *path,
                              const char *nprefix, const char *wprefix, struct ktensor *in,
                              int n_in, struct ktensor *out, int *n_out);

/* ---- keras_tfjs_graph.c: TF.js graph models -------------------------------- */

enum status keras_tfjs_graph_build(struct kctx *c, const struct cJSON *topology,
                                   const char *path);

/* ---- keras.c: manifest ------------------------------------------------------ */

/* Index of manifest entry name (exact, else "<...>/name" suffix), or -1. */
int keras_manifest_find(struct kctx *c, const char *name);

/* ---- keras_shard.c: integer constants from the weight shards ---------------- */

#define KSHARD_MAX_INTS 4096
/* Bytes manifest entry `entry` (dtype dt, n elements) takes in its shard
 * stream, or -1 when its layout is unknown (strings, unknown quantization). */
int64_t kshard_entry_bytes(const struct cJSON *entry, enum dtype dt, int64_t n);
/* Reads int32 manifest entry wi (at most KSHARD_MAX_INTS elements) from the
 * shards beside the model into out. False if they cannot be read. */
bool kshard_ints(const struct kctx *c, int wi, int64_t *out);
/* The (first) shard file named for manifest entry wi's group. */
const char *kshard_name(const struct kctx *c, int wi);
/* The shard sizes of every group of the manifest, each stat-ed once when
 * first needed, so a constant opens only the shard(s) holding it; free
 * with kshard_sizes_free (NULL is a no-op). */
struct kshard_sizes *kshard_sizes_new(const struct cJSON *manifest);
void kshard_sizes_free(struct kshard_sizes *s);
/* Shard files opened so far by this process (a debug counter: tests bound
 * the work of reading many constants with it). */
unsigned long kshard_opens(void);

#endif
