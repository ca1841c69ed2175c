/* generation_report.c - the generation block of `dippm predict`: text and
 * JSON (fields documented in man/dippm.1). */
#include <stdio.h>

#include "core/generation.h"
#include "util/jsonw.h"
#include "core/report.h"

void gen_report_text(FILE *f, const struct gen_result *r, double headroom)
{
    char a[32], b[32];
    const struct gen_memory *m = &r->mem;
    fprintf(f, "generation  %lld input + %lld output tokens, batch %lld, KV cache %s (%s)\n",
            (long long)r->input_tokens, (long long)r->output_tokens, (long long)r->batch,
            precision_name(r->kv_prec), r->from_gnn ? "GNN per pass" : "teacher per pass");
    fprintf(f, "  ttft      %.3f ms (prefill of the batch)\n", r->ttft_ms);
    fprintf(f, "  tpot      %.3f ms per output token (mean over the growing KV cache)\n",
            r->tpot_ms);
    fprintf(f, "  e2e       %.3f ms\n", r->e2e_ms);
    fprintf(f, "  tokens/s  %.1f output tokens/s (whole batch)\n", r->output_tokens_per_s);
    fprintf(f, "  energy    %.4f J per output token\n", r->energy_j_per_output_token);
    fprintf(f, "  KV cache  %.1f MiB at %lld tokens (%.1f KiB per token per sequence)\n",
            r->kv_cache_mib, (long long)(r->input_tokens + r->output_tokens),
            r->kv_bytes_per_token / 1024.0);
    fprintf(f, "  memory    weights %.0f + KV %.0f + activations %.0f + context %.0f = %.0f MiB "
               "of %.0f MiB usable: ", m->weights_mib, m->kv_cache_mib, m->activations_mib,
            m->context_mib, m->total_mib, m->capacity_mib);
    if (m->fits)
        fprintf(f, "fits with %.0f%% headroom\n", headroom * 100);
    else
        fprintf(f, "DOES NOT FIT: %.0f MiB (%.1f GiB) over with %.0f%% headroom\n", m->over_mib,
                m->over_mib / 1024, headroom * 100);
    if (r->max_batch > 0)
        fprintf(f, "  max batch %lld (%.1f output tokens/s at it)\n", (long long)r->max_batch,
                r->max_output_tokens_per_s);
    else
        fprintf(f, "  max batch 0 (not one sequence fits)\n");
    if (r->active_params < r->params)
        fprintf(f, "  params    %s, %s active per token\n", report_si(r->params, a, sizeof a),
                report_si(r->active_params, b, sizeof b));
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
