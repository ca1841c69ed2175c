/*
 * generation.h - LLM generation on top of the per-pass predictor: time to
 * first token (the prefill of the batch), mean time per output token over
 * the growing KV cache, end-to-end time, output tokens/s, KV-cache memory,
 * the largest batch that fits the GPU or MIG slice with its KV cache, and
 * the serving capacity at that batch.
 *
 * A decoder is a pair of graphs: the prefill (N prompt tokens at once) and
 * one decode step (1 token over a cache of P tokens). For the zoo decoder
 * templates (gpt, llama, moe) both are built from the template with
 * phase=prefill and phase=decode ("seq" = tokens, resp. cached tokens). For
 * an exported decoder with KV-cache inputs (names containing "past" unless
 * told otherwise) the one graph serves both: its token-count symbol (on the
 * integer inputs) and its past-length symbol (on the cache inputs) are bound
 * per phase, other symbols of the inputs to their sum (attention masks); the
 * prefill runs over a one-token cache, as such graphs cannot take an empty
 * one.
 *
 * Every pass goes through predict_run, so the numbers are the GNN's (or the
 * teacher's without weights) and are simulated, never measured. The decode
 * step is evaluated at a few cache lengths from N to N + M - 2 and the
 * linear interpolation between them is averaged over every step.
 */
#ifndef DIPPM_GENERATION_H
#define DIPPM_GENERATION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/config.h"
#include "graph/ir/ir.h"
#include "core/predict.h"

/* Tokens one serving step prefills at most (chunked prefill: TensorRT-LLM's
 * default max_num_tokens); sets the activations of max_batch. */
#define GEN_STEP_TOKENS 8192

/* Cache lengths at which the decode step is predicted (at most). */
#define GEN_DECODE_POINTS 5

struct gen_model; /* opaque: the prefill and decode graphs */

struct gen_request {
    int64_t input_tokens;  /* N >= 1 */
    int64_t output_tokens; /* M >= 1 */
    int64_t batch;         /* sequences generated together */
    enum precision kv_prec; /* KV-cache element type */
    double headroom;       /* memory fraction kept free for max_batch, e.g. 0.10 */
};

/* Memory of the generation at one batch: what max_batch adds up. */
struct gen_memory {
    double weights_mib, kv_cache_mib, activations_mib, context_mib; /* context: + workspace */
    double total_mib, capacity_mib;
    bool fits;        /* total * (1 + headroom) <= capacity */
    double over_mib;  /* total * (1 + headroom) - capacity when it does not fit, else 0 */
};

struct gen_result {
    int64_t input_tokens, output_tokens, batch;
    double ttft_ms, tpot_ms, e2e_ms, output_tokens_per_s;
    double kv_cache_mib;           /* at input + output tokens, whole batch */
    int64_t max_batch;             /* 0: not even one sequence fits */
    double max_output_tokens_per_s;/* at max_batch (0 when it is 0) */
    double serve_step_act_mib;     /* gen_run: activations of one serving step (a chunk) */
    double serve_seq_mib;          /* gen_run: KV cache + decode activations per sequence */
    double energy_j;               /* prefill + every decode step, whole batch */
    double energy_j_per_output_token;
    double kv_bytes_per_token;     /* one sequence, all layers, at the KV precision */
    double params, active_params;  /* active: without resident (unrouted) experts */
    enum precision kv_prec;
    struct gen_memory mem;         /* at the requested batch */
    bool from_gnn;
    /* Tensor parallelism (tp.h): with tp > 1 the memory, KV cache and max
     * batch are one GPU's, the times and tokens/s the group's, the energy
     * all tp GPUs'. */
    int tp;                        /* GPUs of the group; 1 = one GPU */
    double ttft_comm_ms;           /* the prefill's all-reduces (in ttft_ms) */
    double tpot_comm_ms;           /* one decode step's all-reduces (in tpot_ms) */
};

/* Recognises g as a decoder. kv_inputs: substring naming the cache inputs
 * of an exported graph (NULL: "past"). Borrows g (which must outlive the
 * model) for exported graphs; builds its own graphs for templates.
 * ST_EUSAGE with a diag saying what is missing when g is not a decoder. */
enum status gen_model_open(struct graph *g, const char *kv_inputs, struct gen_model **out,
                           struct diag *d);
/* The same for tp GPUs of a tensor-parallel group (1, 2, 4 or 8): builds
 * one GPU's shard of a template decoder (tp.h); ST_EUSAGE naming the model
 * and why for an exported graph or a template that cannot be split. */
enum status gen_model_open_tp(struct graph *g, const char *kv_inputs, int tp,
                              struct gen_model **out, struct diag *d);
void gen_model_free(struct gen_model *m);
/* GPUs of m's tensor-parallel group. */
int gen_model_tp(const struct gen_model *m);
/* Milliseconds of one pass's all-reduces over m's group on cfg's GPU
 * (0 for one GPU). */
double gen_model_comm_ms(const struct gen_model *m, const struct config *cfg, int64_t batch,
                         int64_t tokens);
/* Quick test for the explorer: a decoder template, or a graph with an input
 * whose name contains "past". Does not validate what gen_model_open checks. */
bool gen_is_decoder(const struct graph *g);
/* Cache elements per token of one sequence (all layers, keys and values). */
double gen_model_kv_elems(const struct gen_model *m);

/* Predicts the generation rq on cfg (cfg->batch is ignored: rq->batch is
 * used); fills out. p may be NULL (teacher only). An export's symbol
 * bindings are restored afterwards, its shapes left to re-infer (the next
 * predict_run does). */
enum status gen_run(struct predictor *p, struct gen_model *m, const struct config *cfg,
                    const struct gen_request *rq, struct gen_result *out, struct diag *d);

/* ST_ERANGE unless m can run rq: tokens and batch of at least 1, a storage
 * precision for the cache, and for a template input + output tokens within
 * the model's context (the message names both counts and the limit). */
enum status gen_request_check(const struct gen_model *m, const struct gen_request *rq,
                              struct diag *d);

/* Latency-only variant for sweeps: TTFT, TPOT, e2e, tokens/s, energy and
 * memory at rq->batch, without the max_batch search. */
enum status gen_run_batch(struct predictor *p, struct gen_model *m, const struct config *cfg,
                          const struct gen_request *rq, struct gen_result *out, struct diag *d);

/* The generation block of the text report, and the "generation" and
 * "generation_memory" JSON objects (keys written into an open object). */
struct jsonw;
void gen_report_text(FILE *f, const struct gen_result *r, double headroom);
void gen_report_json(struct jsonw *w, const struct gen_result *r, double headroom);
/* The fields of a generation row: tokens, batch, TTFT, TPOT, end to end
 * and output tokens/s (gen_report_json's and the sweep's). */
void gen_report_json_timing(struct jsonw *w, const struct gen_result *r);

#endif
