/* cli.c - option handling shared by the subcommands. */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/textsafe.h"
#include "core/gpu.h"
#include "core/price.h"
#include "graph/load.h"
#include "graph/ops/tokens.h"

void cli_common_init(struct cli_common *co)
{
    memset(co, 0, sizeof *co);
}

int cli_parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* A finite number above 0 and at most max: 0, else -1. */
static int parse_positive(const char *arg, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (errno || end == arg || *end || !(v > 0) || v > max)
        return -1;
    *out = v;
    return 0;
}

int cli_common_opt(struct cli_common *co, int c, const char *arg)
{
    switch (c) {
    case CLI_OPT_BATCH:
        if (cli_parse_int(arg, 1, 1 << 20, &co->batch)) {
            cli_error("--batch '%s': expected an integer from 1 to 1048576", arg);
            return -1;
        }
        return 1;
    case CLI_OPT_SET: {
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg) {
            cli_error("--set '%s': expected NAME=VALUE, e.g. --set seq=384", arg);
            return -1;
        }
        if (co->n_sets == CLI_MAX_SETS) {
            fprintf(stderr, "dippm: too many --set options (at most %d)\n", CLI_MAX_SETS);
            return -1;
        }
        int64_t v;
        if (cli_parse_int(eq + 1, 1, (int64_t)1 << 31, &v)) {
            cli_error("--set '%s': value must be an integer from 1 to 2147483648", arg);
            return -1;
        }
        if ((size_t)(eq - arg) >= sizeof co->set_name[0]) {
            cli_error("--set '%s': name longer than %zu characters", arg,
                      sizeof co->set_name[0] - 1);
            return -1;
        }
        memcpy(co->set_name[co->n_sets], arg, (size_t)(eq - arg));
        co->set_name[co->n_sets][eq - arg] = '\0';
        co->set_val[co->n_sets++] = v;
        return 1;
    }
    case CLI_OPT_GPU: co->gpu = arg; return 1;
    case CLI_OPT_PRECISION: co->precision = arg; return 1;
    case CLI_OPT_QUANT: co->quant = arg; return 1;
    case CLI_OPT_RUNTIME: co->runtime = arg; return 1;
    case CLI_OPT_WEIGHTS: co->weights = arg; return 1;
    case CLI_OPT_JSON: co->json = true; return 1;
    case CLI_OPT_CSV: co->csv = true; return 1;
    case CLI_OPT_FORCE: co->force = true; return 1;
    case 'o': co->output = arg; return 1;
    case CLI_OPT_DISPATCH:
        if (parse_positive(arg, CLI_DISPATCH_US_MAX, &co->dispatch_us)) {
            cli_error("--dispatch-us '%s': expected microseconds above 0 and at most %.0f", arg,
                      CLI_DISPATCH_US_MAX);
            return -1;
        }
        return 1;
    case CLI_OPT_PRICE:
        if (parse_positive(arg, PRICE_PER_HOUR_MAX, &co->price_per_hour)) {
            cli_error("--price-per-hour '%s': expected a price above 0 and at most %.0f", arg,
                      PRICE_PER_HOUR_MAX);
            return -1;
        }
        return 1;
    case CLI_OPT_PRICE_OF:
        if (strcmp(arg, "gpu") && strcmp(arg, "slice")) {
            cli_error("--price-of '%s': expected gpu or slice", arg);
            return -1;
        }
        co->price_of_gpu = strcmp(arg, "gpu") == 0;
        co->price_of_set = true;
        return 1;
    default: return 0;
    }
}

int cli_fail(const struct diag *d)
{
    fprintf(stderr, "dippm: %s\n", d->msg[0] ? d->msg : status_str(d->code));
    return status_exit_code(d->code);
}

/* What cli_parse hands cli_opts_parse. */
struct parse_ctx {
    struct cli_common *co;
    cli_opt_fn fn;
    void *ctx;
};

static int parse_one(void *p, int id, const char *arg)
{
    struct parse_ctx *pc = p;
    int r = pc->fn ? pc->fn(pc->ctx, id, arg) : CLI_OPTS_COMMON;
    if (r != CLI_OPTS_COMMON)
        return r;
    r = cli_common_opt(pc->co, id, arg);
    if (r == 0)
        fprintf(stderr, "dippm: option %d is declared but not handled\n", id);
    return r > 0 ? -1 : 2;
}

int cli_parse(const struct cli_cmd *cmd, struct cli_common *co, int argc, char **argv,
              cli_opt_fn fn, void *ctx)
{
    struct parse_ctx pc = {co, fn, ctx};
    return cli_opts_parse(cmd, argc, argv, parse_one, &pc);
}

struct graph *cli_load_model_diag(const char *spec, const struct cli_common *co,
                                  struct diag *d)
{
    struct graph *g = model_load(spec, d);
    if (!g)
        return NULL;
    int64_t tokens = 0;
    for (int i = 0; i < co->n_sets; i++) {
        if (!strcmp(co->set_name[i], GRAPH_TOKENS_NAME)) {
            tokens = co->set_val[i]; /* once every symbol is bound */
            continue;
        }
        if (graph_sym_set(g, co->set_name[i], co->set_val[i], d)) {
            graph_free(g);
            return NULL;
        }
    }
    if (tokens && graph_tokens_set(g, tokens, d)) {
        diag_prefix(d, "--set %s", GRAPH_TOKENS_NAME);
        graph_free(g);
        return NULL;
    }
    if (co->batch) {
        int bs = graph_batch_sym(g);
        if (bs < 0) {
            diag_set(d, ST_EUSAGE, "%s: --batch given but the model has no batch dimension "
                     "(its inputs have fixed sizes)", tsafe(spec));
            graph_free(g);
            return NULL;
        }
        g->syms[bs].val = co->batch;
    }
    return g;
}

struct graph *cli_load_model(const char *spec, const struct cli_common *co, int *rc)
{
    struct diag d = {0};
    struct graph *g = cli_load_model_diag(spec, co, &d);
    *rc = g ? 0 : cli_fail(&d);
    return g;
}

/* --quant into cfg: the scheme, and the precision its activations run in
 * (--precision, when given, must be that one; a weight-only scheme takes
 * fp16 or bf16). Prints the error; 0 or -1. */
static int cli_quant(const struct cli_common *co, struct config *cfg)
{
    struct diag d = {0};
    if (quant_parse(co->quant, &cfg->quant, &d)) {
        cli_error("%s", d.msg);
        return -1;
    }
    enum quant_scheme q = cfg->quant.scheme;
    if (q == QUANT_NONE)
        return 0;
    enum precision act = quant_act_precision(q);
    if (!co->precision) {
        cfg->prec = act;
        return 0;
    }
    if (!quant_precision_ok(q, cfg->prec)) {
        char name[64];
        quant_format(&cfg->quant, name, sizeof name);
        cli_error("--quant %s runs its activations in %s%s, not --precision %s (leave "
                  "--precision out)", name, precision_name(act),
                  quant_weight_only(q) ? " or bf16" : "", precision_name(cfg->prec));
        return -1;
    }
    return 0;
}

int cli_config(const struct cli_common *co, const struct graph *g, struct config *cfg)
{
    config_default(cfg);
    if (co->gpu) {
        struct diag gd = {0};
        int mig;
        if (gpu_target_parse(co->gpu, -1, &cfg->gpu, &mig, &gd)) {
            cli_error("--gpu: %s", gd.msg);
            return 2;
        }
        cfg->mig = mig == GPU_MIG_UNSET ? -1 : mig;
    }
    if (co->precision && !precision_parse(co->precision, &cfg->prec)) {
        cli_error("--precision '%s': expected %s", co->precision, precision_names());
        return 2;
    }
    if (co->quant && cli_quant(co, cfg))
        return 2;
    if (co->runtime && !runtime_parse(co->runtime, &cfg->rt)) {
        cli_error("--runtime '%s': expected %s", co->runtime, runtime_names());
        return 2;
    }
    if (co->dispatch_us > 0 && !runtime_eager(cfg->rt)) {
        cli_error("--dispatch-us: only the eager runtimes (pytorch, pytorch-sdpa) dispatch "
                  "every op from the host; %s does not", runtime_name(cfg->rt));
        return 2;
    }
    cfg->dispatch_us = co->dispatch_us;
    struct diag sd = {0};
    if (config_supported(cfg, &sd)) {
        fprintf(stderr, "dippm: %s\n", sd.msg);
        return 2;
    }
    int bs = graph_batch_sym(g);
    cfg->batch = co->batch ? co->batch : bs >= 0 ? g->syms[bs].val : 1;
    return 0;
}

int cli_emit(const struct cli_common *co, const char *text, size_t len)
{
    if (!co->output || strcmp(co->output, "-") == 0) {
        if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
            fprintf(stderr, "dippm: cannot write to standard output: %s\n", strerror(errno));
            return 3;
        }
        return 0;
    }
    struct diag d = {0};
    if (file_write_atomic(co->output, text, len, co->force, &d))
        return cli_fail(&d);
    return 0;
}
