/*
 * gnn.h - the graph neural network: forward, backward and Adam, on OpenBLAS.
 *
 * The network is anchored on the teacher (sim.h): it predicts bounded log
 * corrections to the analytic estimate, not the figures themselves, so the
 * physics the teacher models (roofline, waves, launch and host floors,
 * memory parts) is kept and what is learnt is what the analytic model
 * misses. With every correction zero the output IS the teacher's.
 *
 * Input per node: x_i = [normalised node features, normalised graph features]
 * and w_i, the teacher's share of the graph's time in node i (sums to 1).
 * Per graph: a_g, the log of the teacher's latency (ms), energy (J per
 * batch) and memory (MiB).
 *   h0_i  = relu(x_i We + be)
 *   hl_i  = relu([h_i, mean_{j in pred(i)} h_j, mean_{j in succ(i)} h_j] Wl + bl) + h_i
 *           (GraphSAGE-style mean aggregation along edges in both directions,
 *            residual; `layers` such layers)
 *   c_i   = Bn tanh((relu(hL_i Wn1 + bn1) wn2 + bn2) / Bn)
 *           node i's log time factor, |c_i| < Bn = node_bound
 *   S_g   = log sum_i w_i exp(c_i)     (the summed node corrections)
 *   share_i = w_i exp(c_i) / sum_j w_j exp(c_j)   (predicted time shares)
 *   r_g   = [mean_i hL_i, max_i hL_i, S_g, graph features]
 *   o_g   = MLP(r_g) + r_g Wskip: two relu layers of head_hidden, 3 outputs
 *   y_lat = a_lat + S_g + B0 tanh(o_0 / B0)
 *   y_en  = a_en  + S_g + B1 tanh(o_1 / B1)
 *   y_mem = a_mem       + B2 tanh(o_2 / B2)      (B = bound[], log units)
 * Outputs are natural logs of ms, J and MiB. The node head's last layer and
 * the graph head's last layer and skip start at zero: an untrained model
 * reproduces the teacher exactly.
 *
 * Training (gnn_train.h) minimises a loss over graphs. Everything is
 * deterministic given the seed of gnn_model_init.
 *
 * Ownership: a model owns its parameter and normalisation arrays; a work
 * struct owns grow-only scratch buffers reused across calls (no per-call
 * allocation once it has grown to the largest batch).
 */
#ifndef DIPPM_GNN_H
#define DIPPM_GNN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gnn_classes.h"
#include "util/status.h"

enum gnn_target { GNN_T_LATENCY, GNN_T_ENERGY, GNN_T_MEMORY, GNN_T__COUNT };
/* "latency", "energy", "memory". */
const char *gnn_target_name(int t);
/* The inverse: the target named s, or -1. */
int gnn_target_parse(const char *s);

struct gnn_arch {
    int fn, fg;      /* node and graph feature counts */
    int hidden;      /* node embedding width */
    int layers;      /* message-passing layers */
    int head_hidden; /* width of the head MLP */
};

#define GNN_MAX_LAYERS 16
_Static_assert(GNN_MAX_LAYERS < GNN_CLASS_LEVELS, "gnn_classes holds layers + 1 levels");
#define GNN_MAX_TENSORS (8 + 2 * GNN_MAX_LAYERS + 8)
#define GNN_MAX_WIDTH 4096
#define GNN_MAX_FEATURES 4096

struct gnn_tensor {
    char name[16];
    int rows, cols;
    size_t off; /* into gnn_model.w */
};

struct gnn_model {
    struct gnn_arch arch;
    int n_tensors;
    struct gnn_tensor t[GNN_MAX_TENSORS];
    size_t n_params;
    float *w;                       /* n_params */
    float *node_mean, *node_std;    /* fn each */
    float *graph_mean, *graph_std;  /* fg each */
    float bound[GNN_T__COUNT];      /* graph correction bounds B (log units) */
    float node_bound;               /* node correction bound Bn (log units) */
};

/* Default bounds: latency and energy within x/÷ 4 of the teacher, memory
 * within x/÷ 2, each node within x/÷ 4. */
#define GNN_BOUND_TIME 1.3862944f
#define GNN_BOUND_MEMORY 0.6931472f
#define GNN_BOUND_NODE 1.3862944f

/* Checks arch limits (ST_ERANGE with diag otherwise), lays out the tensors,
 * allocates parameters (zeroed) and identity normalisation. */
enum status gnn_model_alloc(struct gnn_model *m, const struct gnn_arch *a, struct diag *d);
/* He-uniform initialisation from seed (deterministic). */
void gnn_model_init(struct gnn_model *m, uint64_t seed);
/* Parameter count of an architecture without allocating; 0 if invalid. */
size_t gnn_arch_params(const struct gnn_arch *a);
void gnn_model_fini(struct gnn_model *m);
/* Deep copy of src into dst (dst uninitialised). */
void gnn_model_copy(struct gnn_model *dst, const struct gnn_model *src);

/* A mini-batch of graphs; node arrays are concatenated, indices global. */
struct gnn_batch {
    int n_graphs, n_nodes;
    const int *goff;             /* n_graphs + 1 node offsets */
    const float *xn;             /* n_nodes x fn, normalised */
    const float *xg;             /* n_graphs x fg, normalised */
    const int *pred_off, *pred;  /* CSR, n_nodes + 1 */
    const int *succ_off, *succ;
    const float *w0;             /* n_nodes teacher time shares (sum 1 per graph) */
    const float *anchor;         /* n_graphs x 3 log teacher figures (ms, J, MiB) */
};

/* The per-node arrays (a0, h, m, z, u) hold one row per class: per node
 * after gnn_loss (whose backward pass needs them), per class of
 * gnn_classes_build after gnn_forward. */
struct gnn_work {
    size_t cap_n, cap_g;
    struct gnn_classes cl;
    uint64_t cl_key; /* the key of gnn_forward_keyed cl was built for (0: none) */
    int cl_levels;   /* and its levels */
    float *xc;  /* the level-0 classes' feature rows */
    double *ec; /* exp(c) per last-level class */
    float *gb, *a0, *h, *m, *z, *u, *s, *c, *r, *z1, *z2, *a1, *a2, *o, *out, *p;
    float *dh, *dhp, *dm, *dz, *du, *ds, *dr, *dz1, *dz2, *da, *dout, *dO, *dgb;
};

void gnn_work_init(struct gnn_work *w);
void gnn_work_fini(struct gnn_work *w);

/* Forward pass. Afterwards w->out holds n_graphs x 3 predicted logs (ms, J,
 * MiB), w->c the node log factors and w->p the per-node time shares. The
 * layers run once per class of nodes with the same computation
 * (gnn_classes.h; w->cl), so w's per-node arrays hold one row per class. */
void gnn_forward(const struct gnn_model *m, const struct gnn_batch *b, struct gnn_work *w);
/* The same, where key is 0 or a key of what the classes are made from
 * (node and graph counts, goff, xn, the CSR arrays): two batches with the
 * same nonzero key have the same, so the classes w built for that key in
 * its last forward are reused instead of built again (the keys of
 * gnn_features_batch, gnn_features.h). */
void gnn_forward_keyed(const struct gnn_model *m, const struct gnn_batch *b, uint64_t key,
                       struct gnn_work *w);

/* Normalises raw features in place: (x - mean) / std for n rows. */
void gnn_normalize_nodes(const struct gnn_model *m, float *x, size_t n);
void gnn_normalize_graph(const struct gnn_model *m, float *x, size_t n);

#endif
