/*
 * tp.h - tensor parallelism (Megatron-style) for the decoder templates: one
 * GPU's shard of the model and the all-reduces between the GPUs.
 *
 * Each of N GPUs holds heads/N query heads (and kv_heads/N key/value heads;
 * one, replicated, when there are fewer than N), intermediate/N of the MLP
 * (column-parallel up/gate, row-parallel down; an MoE's every expert split
 * the same way) and vocab/N of the token embedding and of the LM head
 * (vocabulary-parallel), so its weights and KV cache are about 1/N of the
 * model's; the norms are replicated. A pass sums its partial activations
 * (batch x tokens x hidden) twice per layer (after the attention output
 * projection and after the MLP down projection) and once after the
 * embedding lookup: 2 * layers + 1 ring all-reduces. The gather of the
 * last position's logits is left out (batch x vocab x 2 bytes, a few
 * hundred KiB). The shard is built from the template's arguments and timed
 * by the same predictor as any model.
 */
#ifndef DIPPM_TP_H
#define DIPPM_TP_H

#include <stdbool.h>

#include "core/config.h"
#include "core/gpu.h"
#include "graph/ir/ir.h"
#include "graph/zoo/zoo.h"
#include "util/status.h"

/* The GPU counts --tp takes: 1, 2, 4, 8 (one node). */
#define TP_MAX 8
bool tp_valid(int n);

/* The link the group's all-reduces take: NVLink where the GPU has it, else
 * its host PCIe link. */
struct tp_link {
    const char *name;  /* "NVLink" or "PCIe" */
    double bw_bytes;   /* per direction, bytes/s: half the datasheet's both-directions figure */
    double latency_s;  /* per all-reduce call */
};
void tp_link_of(const struct gpu_spec *g, struct tp_link *l);

/* Seconds of one ring all-reduce of `bytes` over n GPUs: each GPU sends and
 * receives 2 (n - 1) / n of the buffer, plus the per-call latency; 0 for
 * n = 1. */
double tp_allreduce_s(const struct tp_link *l, int n, double bytes);

/* Bytes per activation element an all-reduce sums at precision p: 4 for
 * the 32-bit precisions, else 2 (8-bit engines reduce in 16 bits). */
double tp_act_bytes(enum precision p);

/* Milliseconds of one pass's all-reduces: 2 * layers + 1 of
 * batch x tokens x hidden activations. */
double tp_pass_ms(const struct tp_link *l, int n, int layers, int hidden, double batch,
                  double tokens, enum precision p);

/* Turns a's decoder template (llama or moe) into one GPU's shard of n;
 * a no-op for n = 1. ST_EUSAGE with a diag naming the family, parameter
 * and n when the template cannot be split that way. */
enum status tp_shard_args(struct zoo_args *a, int n, struct diag *d);

/* ST_EUSAGE: --tp n on model (not a zoo template), with why. */
enum status tp_refuse_export(const char *model, int n, struct diag *d);

/* One GPU's shard of n of the template graph g (its spec, g->path), with
 * g's symbol values; layers and hidden receive the model's. NULL with a
 * diag when g is no template or cannot be split (tp_shard_args). */
struct graph *tp_shard_graph(const struct graph *g, int n, int *layers, int *hidden,
                             struct diag *d);

/* A tensor-parallel pass: the group, its link and its all-reduces. */
struct tp_group {
    int n;             /* GPUs */
    struct tp_link link;
    int allreduces;    /* per pass: 2 * layers + 1 */
    double pass_ms;    /* their time in the pass */
};
/* Adds the all-reduces of a pass of the shard (batch cfg->batch, tokens per
 * sequence) to pr, the shard's prediction: latency and throughput of the
 * group, energy of its n GPUs (each drawing at least its idle power while
 * they run); fills t. */
struct prediction;
void tp_pass_apply(struct prediction *pr, const struct config *cfg, int n, int layers,
                   int hidden, double tokens, struct tp_group *t);

#endif
