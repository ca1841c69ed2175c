/* cli_generation.c - generation options shared by `dippm predict` and
 * `dippm sweep`: --input-tokens, --output-tokens, --kv-inputs and the KV
 * cache precision (--kv-precision P or --set kv=P). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_pred.h"

static int parse_kv(struct cli_gen *gen, const char *arg, const char *opt)
{
    if (!precision_parse(arg, &gen->kv) || gen->kv == PREC_TF32) {
        fprintf(stderr, "dippm: %s '%s': expected a KV-cache precision: fp32, fp16, bf16, "
                        "int8 or fp8\n", opt, arg);
        return -1;
    }
    gen->kv_set = true;
    return 1;
}

int cli_gen_opt(struct cli_gen *gen, int c, const char *arg)
{
    switch (c) {
    case CLI_OPT_GEN_IN:
    case CLI_OPT_GEN_OUT: {
        int64_t *v = c == CLI_OPT_GEN_IN ? &gen->in : &gen->out;
        if (cli_parse_int(arg, 1, (int64_t)1 << 24, v)) {
            fprintf(stderr, "dippm: --%s '%s': expected a token count from 1 to 16777216\n",
                    c == CLI_OPT_GEN_IN ? "input-tokens" : "output-tokens", arg);
            return -1;
        }
        return 1;
    }
    case CLI_OPT_GEN_KVIN:
        if (!*arg) {
            fprintf(stderr, "dippm: --kv-inputs: expected a substring of the cache inputs' "
                            "names, e.g. past_key_values\n");
            return -1;
        }
        gen->kv_inputs = arg;
        return 1;
    case CLI_OPT_GEN_KVPREC: return parse_kv(gen, arg, "--kv-precision");
    case CLI_OPT_SET:
        if (strncmp(arg, "kv=", 3) == 0)
            return parse_kv(gen, arg + 3, "--set kv");
        return 0;
    default: return 0;
    }
}

bool cli_gen_wanted(const struct cli_gen *gen, const char *sub, int *rc)
{
    *rc = 0;
    if (!gen->in && !gen->out) {
        if (gen->kv_set || gen->kv_inputs) {
            *rc = cli_usage_error(sub, "the KV-cache options need --input-tokens and "
                                       "--output-tokens");
        }
        return false;
    }
    if (!gen->in || !gen->out) {
        *rc = cli_usage_error(sub, "generation needs both --input-tokens N and "
                                   "--output-tokens M");
        return false;
    }
    return true;
}

int cli_gen_prepare(const struct cli_gen *gen, struct graph *g, const struct config *cfg,
                    double headroom, struct gen_model **m, struct gen_request *rq)
{
    struct diag d = {0};
    if (gen_model_open(g, gen->kv_inputs, m, &d))
        return cli_fail(&d);
    *rq = (struct gen_request){.input_tokens = gen->in, .output_tokens = gen->out,
                               .batch = cfg->batch, .kv_prec = gen->kv_set ? gen->kv : cfg->prec,
                               .headroom = headroom};
    if (rq->kv_prec == PREC_TF32)
        rq->kv_prec = PREC_FP32; /* tf32 is a compute mode: the cache is stored as fp32 */
    return 0;
}
