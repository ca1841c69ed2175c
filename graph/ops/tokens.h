/*
 * tokens.h - padding-free runs of an encoder: a batch of sequences padded to
 * seq tokens whose runtime removes the padding (FasterTransformer's
 * remove-padding / EFF-FT, NVIDIA's MLPerf BERT harness, ByteTransformer)
 * does the token-wise work (the linear layers, norms, element-wise ops) on
 * the real tokens only, while attention (scores, softmax, context) still
 * runs per sequence at the padded length.
 *
 * graph_tokens_set binds the mean real tokens per sequence; graph_infer then
 * infers the graph once at that many tokens and once at seq, and marks each
 * value with how many of its dims follow the sequence (value.seq_dims) and
 * the share of it the real tokens fill (value.tok_scale): shapes and costs
 * stay those of the padded binding, and the teacher scales the token-wise
 * work by these (src/core/sim_fuse.c).
 */
#ifndef DIPPM_TOKENS_H
#define DIPPM_TOKENS_H

#include "graph/ir/ir.h"

/* The name --set and the calibration give the real tokens (--set
 * tokens_mean=N). */
#define GRAPH_TOKENS_NAME "tokens_mean"

/* The sequence-length symbol: "seq" (or "sequence", "seq_len",
 * "sequence_length", "seq_length", "S", "tokens"), else the symbol of dim 1
 * of the first input unless it is the batch; -1 if none. */
int graph_seq_sym(const struct graph *g);

/* Binds the mean real tokens per sequence (0: padded, the default). Errors
 * name GRAPH_TOKENS_NAME: ST_EUSAGE when g has no sequence symbol, ST_ERANGE
 * when tokens exceeds the sequence's current length. Invalidates inference. */
enum status graph_tokens_set(struct graph *g, int64_t tokens, struct diag *d);

/* graph_infer of a padding-free graph (g->tokens > 0): both passes, then
 * each value's seq_dims and tok_scale and the liveness peak of the real
 * tokens. ST_ERANGE when the sequence symbol was rebound below g->tokens. */
enum status graph_tokens_infer(struct graph *g, struct diag *d);
/* One inference pass at the current bindings (shape.c). */
enum status graph_infer_pass(struct graph *g, struct diag *d);

/* Does node n run per sequence at the padded length (one of its tensors
 * has the sequence in two dims: attention scores)? false in a padded run. */
bool graph_node_per_seq(const struct graph *g, const struct node *n);
/* The share of node n's work the real tokens leave: tokens / seq for a
 * token-wise node (a tensor with the sequence in one dim, none with it in
 * two), else 1 (and 1 for every node of a padded run). */
double graph_node_tok_scale(const struct graph *g, const struct node *n);
/* The share of value v node n touches: v's tok_scale, or 1 when n runs per
 * sequence. */
double graph_value_tok_scale(const struct graph *g, const struct node *n,
                             const struct value *v);

#endif
