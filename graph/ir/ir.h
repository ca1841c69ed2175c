/*
 * ir.h - the model IR: a real dataflow DAG of ONNX-style nodes and tensor
 * values whose dims may be symbolic (batch, sequence, height, width, or any
 * name a file uses).
 *
 * Ownership: one arena per graph holds all names, attributes and dims; the
 * node and value arrays are owned by the graph. Everything dies with
 * graph_free. Builders refer to nodes and values by index (arrays grow while
 * building, so pointers are only stable after graph_finalize).
 *
 * Flow: graph_new -> values/nodes/attrs -> graph_finalize (links producers
 * and consumers, topological order, validation) -> graph_sym_set (bind
 * symbols) -> graph_infer (shape.h: shapes + costs, re-run after every
 * binding change).
 */
#ifndef DIPPM_IR_H
#define DIPPM_IR_H

#include <stdbool.h>
#include <stdint.h>

#include "util/status.h"
#include "graph/ir/ops.h"

struct arena;
struct strmap;

#define IR_MAX_RANK 8

/* Element types use ONNX TensorProto.DataType numbering. */
enum dtype {
    DT_UNDEFINED = 0, DT_FLOAT = 1, DT_UINT8 = 2, DT_INT8 = 3, DT_UINT16 = 4, DT_INT16 = 5,
    DT_INT32 = 6, DT_INT64 = 7, DT_STRING = 8, DT_BOOL = 9, DT_FLOAT16 = 10, DT_DOUBLE = 11,
    DT_UINT32 = 12, DT_UINT64 = 13, DT_COMPLEX64 = 14, DT_COMPLEX128 = 15, DT_BFLOAT16 = 16,
    DT_FLOAT8E4M3FN = 17, DT_FLOAT8E4M3FNUZ = 18, DT_FLOAT8E5M2 = 19, DT_FLOAT8E5M2FNUZ = 20,
    DT_UINT4 = 21, DT_INT4 = 22, DT_FLOAT4E2M1 = 23,
    DT__COUNT
};

/* Bytes per element (fractional types round up to 1; string counts 8). */
int dtype_size(enum dtype dt);
/* Lower-case name ("float32", "int64", ...); "undefined" for unknown codes. */
const char *dtype_name(enum dtype dt);
/* Parses a name from dtype_name (and a few aliases: "float", "fp16", "half"). */
bool dtype_from_name(const char *s, enum dtype *out);
bool dtype_is_float(enum dtype dt);

/* A declared dim: sym < 0 means a fixed value v (v < 0: unknown, e.g. an
 * unnamed dynamic dim); sym >= 0 names graph symbol syms[sym]. */
struct dim {
    int64_t v;
    int32_t sym;
};

/* A named symbol with a default (from the file or the "symbols" section)
 * and the value bound for the current configuration. A template that knows
 * what the model can take (position embeddings, context, image sizes its
 * layers divide) sets the limits with graph_sym_limit: 0 = none. */
struct symbol {
    const char *name;
    int64_t def;
    int64_t val;
    int64_t min, max, multiple;
    const char *why; /* what sets the limits, for the refusal (arena) */
};

/* A constant tensor whose contents are known (Constant node values, small
 * initializers such as Reshape targets, folded shape subgraphs). Integer
 * types are widened to i64, float types to f64; the other array is NULL.
 * Either array may be NULL when only dtype and dims are known. */
struct tconst {
    enum dtype dt;
    int rank;
    int64_t dims[IR_MAX_RANK];
    int64_t n; /* element count */
    int64_t *i64;
    double *f64;
    bool overflow; /* folding produced an integer beyond int64 (shape.c rejects it) */
};

enum attr_type {
    ATTR_INT, ATTR_FLOAT, ATTR_STRING, ATTR_INTS, ATTR_FLOATS, ATTR_STRINGS, ATTR_TENSOR,
    ATTR_GRAPH, /* a subgraph (If/Loop/Scan body); its contents are not kept */
    ATTR__COUNT
};
const char *attr_type_name(enum attr_type t);

struct attr {
    const char *name;
    enum attr_type type;
    int n; /* element count of list attributes */
    int64_t i;
    double f;
    const char *s;
    int64_t *ints;
    double *floats;
    const char **strings;
    struct tconst *t;
};

/* Inferred (concrete) shape of a value for the current symbol bindings. */
struct shape {
    bool known;
    int rank;
    int64_t d[IR_MAX_RANK];
};

enum value_flag {
    VAL_INPUT = 1u << 0,  /* graph input (fed at run time) */
    VAL_OUTPUT = 1u << 1, /* graph output */
    VAL_INIT = 1u << 2,   /* initializer / weight (a parameter) */
    VAL_BODY_INPUT = 1u << 3, /* formal input of an If/Loop/Scan body (set by the control node) */
};

struct value {
    const char *name;
    enum dtype dtype;   /* declared element type (DT_UNDEFINED if unknown) */
    int rank;           /* declared rank, -1 if not declared */
    struct dim *dims;   /* declared dims (rank entries) */
    unsigned flags;     /* enum value_flag */
    struct tconst *data; /* known contents from the file, or NULL */
    int producer;       /* node index, -1 for inputs/initializers */
    int n_consumers;
    int *consumers;     /* node indices (arena) */
    /* Results of graph_infer; valid until the next graph_infer. */
    struct shape shape;
    enum dtype idtype;     /* inferred element type */
    struct tconst *folded; /* constant-folded contents (scratch arena) or NULL */
    bool is_const; /* computed from initializers/constants only: runtimes fold it at load, so
                      it is a weight, not an activation (graph_infer) */
    /* A padding-free run (graph_tokens_set): how many of the value's dims
     * follow the sequence (0: none; 1: token-wise, [B, S, D]; 2 or more:
     * per sequence, attention scores [B, H, S, S]) and the share of its
     * elements the real tokens fill (token-wise values: tokens / seq; 1 for
     * the others, and for every value of a padded run). */
    int seq_dims;
    double tok_scale;
};

/* Per-node cost for the current bindings (graph_infer). Conventions:
 * 1 MAC = one multiply-accumulate; FLOPs count every arithmetic op (a MAC is
 * 2 FLOPs). Params count elements of initializer inputs; shared initializers
 * are counted once in graph totals. Bytes use each tensor's element type. */
struct node_cost {
    double macs;
    double flops;
    double params;        /* parameter elements read by this node */
    double param_bytes;
    double bytes_read;    /* activations + parameters read */
    double bytes_written; /* outputs written */
    double out_bytes;     /* output activation bytes (same as written for most ops) */
    double runs;          /* times the node runs per inference: the product of the trip
                             counts of the Loops and Scans around it (1 at top level, 0 when
                             it does not run); the other fields are already totals over them */
};

enum node_state {
    NODE_OK = 0,        /* shapes inferred and cost counted */
    NODE_UNSUPPORTED,   /* op not in the catalogue or lacks a shape function */
    NODE_UNKNOWN_INPUT, /* an input's shape is unknown (upstream unsupported op) */
    NODE_NOT_RUN,       /* in an If branch that is not taken (or not the costed one) */
};

/* One subgraph of a control node (If then/else branch, Loop/Scan body),
 * flattened into the graph: its nodes are ordinary graph nodes whose parent
 * is the control node. in/out are the body's formal inputs (values flagged
 * VAL_BODY_INPUT) and outputs; nodes lists the body's direct nodes in
 * topological order (filled by graph_finalize). */
struct body {
    const char *attr; /* attribute name: "then_branch", "else_branch", "body" */
    const char *label; /* short name used in node names: "then", "else", "body" */
    int n_in, n_out, n_nodes;
    int *in, *out, *nodes;
};

struct node {
    const char *name;
    const char *op_type; /* as written in the file */
    const char *domain;  /* "" for the default ONNX domain */
    enum op op;          /* catalogue id, OP__UNKNOWN if not in ops.def */
    int n_in, n_out;
    int *in;  /* value indices; -1 for an omitted optional input */
    int *out; /* value indices */
    int n_attr;
    struct attr *attrs;
    const char *block; /* optional repeated-block label ("layer1.0"), or NULL */
    int parent;        /* control node whose body holds this node, -1 at top level */
    int branch;        /* index into the parent's bodies */
    int n_body;        /* subgraphs of a control node (If: 2, Loop/Scan: 1) */
    struct body *body;
    /* Results of graph_infer. */
    enum node_state state;
    struct node_cost cost;
    const char *note; /* why the node is not counted (graph_infer, scratch arena) or NULL */
};

struct graph_totals {
    double macs, flops;
    double params, param_bytes; /* unique initializers */
    double bytes_read, bytes_written;
    double act_bytes;      /* sum of all activation outputs */
    double peak_act_bytes; /* peak of live activations over the topological order */
    double input_bytes, output_bytes;
    int n_counted;
    int n_unsupported;     /* ops without shape/cost support */
    int n_unknown;         /* nodes whose inputs were unknown */
    int n_not_run;         /* nodes in If branches that are not costed */
};

struct graph {
    struct arena *arena;
    const char *name;
    const char *format; /* "onnx", "dippm-json", "keras", "tfjs", "zoo" */
    const char *path;   /* source file or template spec, or NULL */
    int opset;
    int n_nodes, cap_nodes;
    struct node *nodes;
    int n_values, cap_values;
    struct value *values;
    int n_syms, cap_syms;
    struct symbol *syms;
    int n_inputs, n_outputs;
    int *inputs, *outputs; /* value indices (graph-owned arrays) */
    int *topo;             /* node indices in topological order (after finalize) */
    struct strmap *names;  /* value name -> index */
    struct strmap *sym_names; /* symbol name -> index */
    bool finalized;
    /* Weight tensors a Keras .keras/.h5 file declares (shapes read, values
     * never): count and total elements; 0 when the file has none. */
    int n_file_weights;
    double file_weight_elems;
    /* graph_infer state */
    struct arena *scratch;
    bool inferred;
    /* the symbol values of the last graph_infer that succeeded (n_syms of
     * them then; graph_infer_stale compares them), malloc'd */
    int64_t *infer_syms;
    int infer_n_syms;
    /* A padding-free run: the real tokens per sequence of the sequence
     * symbol tokens_sym (graph_tokens_set); 0: padded (the default) */
    int64_t tokens;
    int tokens_sym;
    int64_t infer_tokens; /* tokens of the last graph_infer that succeeded */
    struct graph_totals totals;
};

/* ---- construction ---------------------------------------------------- */

/* New empty graph; name may be NULL. Aborts only on out-of-memory. */
struct graph *graph_new(const char *name);
/* Frees the graph and everything in its arena. NULL is a no-op. */
void graph_free(struct graph *g);

/* Grows the node and value arrays (and the name map) to hold at least
 * nodes and values entries, so a loader that knows its counts builds
 * without repeated reallocation. Never shrinks. */
void graph_reserve(struct graph *g, int nodes, int values);

/* Copy of s in the graph's arena (lives as long as g). */
const char *graph_strdup(struct graph *g, const char *s);

/* Index of the value called name, creating it (untyped, rank -1) if absent. */
int graph_value_get(struct graph *g, const char *name);
/* Index of the value called name, or -1. */
int graph_value_find(const struct graph *g, const char *name);
/* Declares dtype and dims of value vi (dims copied; rank -1 = unknown). */
void graph_value_set_type(struct graph *g, int vi, enum dtype dt, int rank,
                          const struct dim *dims);
/* Attaches known contents (copied into the arena). */
void graph_value_set_data(struct graph *g, int vi, const struct tconst *t);
void graph_input_add(struct graph *g, int vi);
void graph_output_add(struct graph *g, int vi);
/* Marks vi as an initializer (weight). */
void graph_init_add(struct graph *g, int vi);

/* Adds a node of catalogue op `op` (its op_type is the catalogue name, its
 * domain ""); in[] may contain -1 for omitted optional inputs. name may be
 * NULL (one is generated from the op's name). Returns the node index.
 * Builders name their ops here, so a misspelt op fails to compile. */
int graph_node_add(struct graph *g, enum op op, const char *name, const int *in, int n_in,
                   const int *out, int n_out);
/* The same for an op named by a file (ONNX, dippm JSON, TF.js): op_type is
 * looked up in the catalogue (domain "" or "ai.onnx"; "com.microsoft" and
 * "dippm" ops are looked up too); any other is kept as written and not
 * covered. */
int graph_node_add_type(struct graph *g, const char *op_type, const char *domain,
                        const char *name, const int *in, int n_in, const int *out, int n_out);
/* Convenience: node with inputs/outputs given by value names (NULL or "" =
 * omitted optional input). */
int graph_node_add_named(struct graph *g, enum op op, const char *name, const char *const *in,
                         int n_in, const char *const *out, int n_out);

void graph_attr_int(struct graph *g, int node, const char *name, int64_t v);
void graph_attr_float(struct graph *g, int node, const char *name, double v);
void graph_attr_string(struct graph *g, int node, const char *name, const char *v);
void graph_attr_ints(struct graph *g, int node, const char *name, const int64_t *v, int n);
void graph_attr_floats(struct graph *g, int node, const char *name, const double *v, int n);
void graph_attr_strings(struct graph *g, int node, const char *name, const char *const *v, int n);
void graph_attr_tensor(struct graph *g, int node, const char *name, const struct tconst *t);
void graph_attr_graph(struct graph *g, int node, const char *name);

/* Adds an empty subgraph to control node `node` and returns its index in
 * node->body; graph_body_* fill it. */
int graph_body_add(struct graph *g, int node, const char *attr, const char *label);
void graph_body_input(struct graph *g, int node, int body, int vi);
void graph_body_output(struct graph *g, int node, int body, int vi);
/* Marks node child as a direct node of body `body` of control node parent. */
void graph_body_node(struct graph *g, int parent, int body, int child);
/* Number of enclosing control nodes of node ni (0 at top level). */
int graph_node_depth(const struct graph *g, int ni);

/* Adds symbol name with default def (returns its index); if it exists, the
 * existing index is returned and its default left unchanged. */
int graph_sym_add(struct graph *g, const char *name, int64_t def);
int graph_sym_find(const struct graph *g, const char *name);

/* Links producers and consumers, computes the topological order and
 * validates: duplicate node names, values produced twice, dangling inputs
 * (neither produced, graph input nor initializer), cycles, arity outside the
 * catalogue's range, graph outputs never produced. Unknown ops are not an
 * error here (they are reported as not covered). diag names the node. */
enum status graph_finalize(struct graph *g, struct diag *d);
/* The peak of live activation bytes over the topological order (as
 * totals.peak_act_bytes, which is this with hidden NULL), leaving out the
 * values hidden[vi] marks: those a runtime never allocates (a fused
 * kernel keeps them on chip). A finalized graph only. */
double graph_peak_act_bytes(const struct graph *g, const bool *hidden);

/* ---- queries --------------------------------------------------------- */

const struct attr *node_attr(const struct node *n, const char *name);
int64_t node_attr_int(const struct node *n, const char *name, int64_t def);
double node_attr_float(const struct node *n, const char *name, double def);
/* Borrowed string or def. */
const char *node_attr_str(const struct node *n, const char *name, const char *def);
/* Number of ints (0 if absent), *out borrowed. */
int node_attr_ints(const struct node *n, const char *name, const int64_t **out);

/* Binds symbol `name` to v (v >= 1 and <= 1<<31). Unknown names give
 * ST_EUSAGE (exit 2) with the list of known symbols in diag; a value outside
 * the symbol's limits gives ST_ERANGE with a one-line reason naming the value
 * and the limit ("seq=513 exceeds the maximum 512: ..."), and the symbol keeps
 * its value. Invalidates inference. */
enum status graph_sym_set(struct graph *g, const char *name, int64_t v, struct diag *d);
/* ST_OK when symbol si can take v, else ST_ERANGE and graph_sym_set's message. */
enum status graph_sym_check(const struct graph *g, int si, int64_t v, struct diag *d);
/* Limits what symbol `name` (if the graph has it) can take: min, max and a
 * divisor (0: none) and why, a phrase naming what sets them ("the model has
 * 512 position embeddings (max_position)"; printf-style). */
void graph_sym_limit(struct graph *g, const char *name, int64_t min, int64_t max,
                     int64_t multiple, const char *why, ...) __attribute__((format(printf, 6, 7)));
/* Resets every symbol to its default. */
void graph_sym_reset(struct graph *g);
/* The batch symbol: one named "batch" (or "N", "batch_size"), else the
 * symbol in dim 0 of the first graph input; -1 if none. */
int graph_batch_sym(const struct graph *g);
/* Resolves a declared dim under the current bindings (-1 if unknown). */
int64_t graph_dim_value(const struct graph *g, const struct dim *dm);

/* Histogram helper: number of nodes per op_type, sorted by count desc.
 * Fills up to max entries; returns the number of distinct op types. */
struct op_count {
    const char *op_type;
    int count;
};
int graph_op_histogram(const struct graph *g, struct op_count *out, int max);

/* Number of edges (value -> consumer links, including initializer edges). */
int graph_edge_count(const struct graph *g);

#endif
