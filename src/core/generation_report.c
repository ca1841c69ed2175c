/* generation_report.c - the generation block of `dippm predict`: text and
 * JSON (fields documented in man/dippm.1). */
#include <stdio.h>

#include "core/generation.h"
#include "util/jsonw.h"
#include "core/report.h"
#include "util/fmt.h"

void gen_report_text(FILE *f, const struct gen_result *r, double headroom)
{
    char a[32], b[32], c[32], e[32], t[32], u[32];
    const struct gen_memory *m = &r->mem;
    fprintf(f, "generation  %lld input + %lld output tokens, batch %lld, KV cache %s (%s)\n",
            (long long)r->input_tokens, (long long)r->output_tokens, (long long)r->batch,
            precision_name(r->kv_prec), r->from_gnn ? "GNN per pass" : "teacher per pass");
    fprintf(f, "  ttft      %s (prefill of the batch)\n", fmt_ms(r->ttft_ms, a, sizeof a));
    fprintf(f, "  tpot      %s per output token (mean over the growing KV cache)\n",
            fmt_ms(r->tpot_ms, a, sizeof a));
    fprintf(f, "  e2e       %s\n", fmt_ms(r->e2e_ms, a, sizeof a));
    fprintf(f, "  tokens/s  %s output tokens/s (whole batch)\n",
            fmt_num(r->output_tokens_per_s, a, sizeof a));
    fprintf(f, "  energy    %s per output token\n",
            fmt_joules(r->energy_j_per_output_token, a, sizeof a));
    fprintf(f, "  KV cache  %s at %lld tokens (%s per token per sequence)\n",
            fmt_mib(r->kv_cache_mib, a, sizeof a), (long long)(r->input_tokens + r->output_tokens),
            fmt_bytes(r->kv_bytes_per_token, b, sizeof b));
    fprintf(f, "  memory    weights %s + KV %s + activations %s + context %s = %s of %s usable: ",
            fmt_mib(m->weights_mib, a, sizeof a), fmt_mib(m->kv_cache_mib, b, sizeof b),
            fmt_mib(m->activations_mib, c, sizeof c), fmt_mib(m->context_mib, e, sizeof e),
            fmt_mib(m->total_mib, t, sizeof t), fmt_mib(m->capacity_mib, u, sizeof u));
    if (m->fits)
        fprintf(f, "fits with %.0f%% headroom\n", headroom * 100);
    else
        fprintf(f, "DOES NOT FIT: %s over with %.0f%% headroom\n",
                fmt_mib(m->over_mib, a, sizeof a), headroom * 100);
    if (r->max_batch > 0)
        fprintf(f, "  max batch %lld (%s output tokens/s at it)\n", (long long)r->max_batch,
                fmt_num(r->max_output_tokens_per_s, a, sizeof a));
    else
        fprintf(f, "  max batch 0 (not one sequence fits)\n");
    if (r->active_params < r->params)
        fprintf(f, "  params    %s, %s active per token\n", fmt_si(r->params, a, sizeof a),
                fmt_si(r->active_params, b, sizeof b));
    if (r->tp > 1)
        fprintf(f, "  tp        %d GPUs: all-reduces %s of the ttft and %s of each output "
                   "token; memory, KV cache, params and max batch per GPU, energy of all %d\n",
                r->tp, fmt_ms(r->ttft_comm_ms, a, sizeof a), fmt_ms(r->tpot_comm_ms, b, sizeof b),
                r->tp);
}

void gen_report_json_timing(struct jsonw *w, const struct gen_result *r)
{
    jsonw_key_int(w, "input_tokens", r->input_tokens);
    jsonw_key_int(w, "output_tokens", r->output_tokens);
    jsonw_key_int(w, "batch", r->batch);
    jsonw_key_fixed(w, "ttft_ms", r->ttft_ms, 4);
    jsonw_key_fixed(w, "tpot_ms", r->tpot_ms, 4);
    jsonw_key_fixed(w, "e2e_ms", r->e2e_ms, 3);
    jsonw_key_fixed(w, "output_tokens_per_s", r->output_tokens_per_s, 2);
}

void gen_report_json(struct jsonw *w, const struct gen_result *r, double headroom)
{
    const struct gen_memory *m = &r->mem;
    jsonw_key(w, "generation");
    jsonw_obj_begin(w);
    gen_report_json_timing(w, r);
    jsonw_key_fixed(w, "kv_cache_mib", r->kv_cache_mib, 2);
    jsonw_key_int(w, "max_batch", r->max_batch);
    jsonw_key_fixed(w, "max_output_tokens_per_s", r->max_output_tokens_per_s, 2);
    jsonw_key_fixed(w, "energy_j_per_output_token", r->energy_j_per_output_token, 6);
    if (r->tp > 1) {
        jsonw_key_int(w, "tp", r->tp);
        jsonw_key_fixed(w, "ttft_allreduce_ms", r->ttft_comm_ms, 4);
        jsonw_key_fixed(w, "tpot_allreduce_ms", r->tpot_comm_ms, 4);
    }
    jsonw_obj_end(w);
    jsonw_key(w, "generation_memory");
    jsonw_obj_begin(w);
    jsonw_key_str(w, "kv_precision", precision_name(r->kv_prec));
    jsonw_key_fixed(w, "kv_bytes_per_token", r->kv_bytes_per_token, 1);
    jsonw_key_fixed(w, "weights_mib", m->weights_mib, 1);
    jsonw_key_fixed(w, "kv_cache_mib", m->kv_cache_mib, 1);
    jsonw_key_fixed(w, "activations_mib", m->activations_mib, 1);
    jsonw_key_fixed(w, "context_mib", m->context_mib, 1);
    jsonw_key_fixed(w, "total_mib", m->total_mib, 1);
    jsonw_key_fixed(w, "capacity_mib", m->capacity_mib, 1);
    jsonw_key_fixed(w, "headroom", headroom, 3);
    jsonw_key_bool(w, "fits", m->fits);
    jsonw_key_fixed(w, "over_mib", m->over_mib, 1);
    jsonw_key_int(w, "params", (int64_t)r->params);
    jsonw_key_int(w, "active_params", (int64_t)r->active_params);
    jsonw_obj_end(w);
}
