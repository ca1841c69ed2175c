/* cli_opts.c - the option tables of the subcommands turned into getopt_long's
 * table, the option list of their help, and the completion's list. */
#include "cli/cli_opts.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/textsafe.h"
#include "util/xalloc.h"

#define MAX_OPTS 64
#define HELP_WIDTH 79 /* the help is wrapped to this many columns */
#define HELP_COL 26   /* where option descriptions start, at most */

/* The common options, in the order the help lists them. */
static const struct {
    unsigned flag;
    struct cli_opt opt;
} common[] = {
    {CLI_C_BATCH, {"batch", 0, "N", "batch size: binds the model's batch symbol", CLI_OPT_BATCH}},
    {CLI_C_SET, {"set", 0, "NAME=VALUE", "binds any symbol (sequence length, image size, ...); "
                 "repeatable; tokens_mean=N: the runtime removes padding and a sequence holds "
                 "N real tokens (token-wise ops cost N, attention the padded seq)", CLI_OPT_SET}},
    {CLI_C_GPU, {"gpu", 0, "NAME[:PROFILE]", "the GPU or a MIG slice of it, e.g. "
                 "A100-SXM4-80GB, h100, h200, a100:3g.20gb (default A100-SXM4-40GB)",
                 CLI_OPT_GPU}},
    {CLI_C_PRECISION, {"precision", 0, "P", "fp32 (default), tf32, fp16, bf16, int8 or fp8",
                       CLI_OPT_PRECISION}},
    {CLI_C_QUANT, {"quant", 0, "SCHEME", "the weights' quantisation: none (default), "
                   "w8a16[:gN|:row] or w4a16[:gN|:row] (weight-only, fp16 activations; "
                   "w4a16 default g128: one fp16 scale per 128 weights), w8a8[:static|:dynamic] "
                   "(int8 GEMMs) or fp8[:tensor|:row]; sets --precision to the activations' "
                   "type", CLI_OPT_QUANT}},
    {CLI_C_RUNTIME, {"runtime", 0, "R", "pytorch (eager, default), pytorch-sdpa (eager with "
                     "fused attention, as PyTorch 2 models run it), inductor (torch.compile: "
                     "fused generated kernels between library GEMMs), inductor-graph "
                     "(torch.compile mode=\"reduce-overhead\": the same as a CUDA graph), "
                     "onnxruntime (ONNX Runtime's CUDA execution provider: its pattern "
                     "fusions, each kernel launched from C++), onnxruntime-graph (the same "
                     "with enable_cuda_graph), "
                     "tensorrt (fused engine), tensorrt-graph (the engine replayed as a CUDA "
                     "graph) or vllm (a serving "
                     "engine: CUDA graphs, host work per sequence each decode step)",
                     CLI_OPT_RUNTIME}},
    {CLI_C_WEIGHTS, {"weights", 0, "FILE", "GNN weight file to use instead of the default",
                     CLI_OPT_WEIGHTS}},
    {CLI_C_DISPATCH, {"dispatch-us", 0, "US", "the host's dispatch per op of an eager runtime "
                      "in microseconds (default: the calibrated one, from a Python-heavy "
                      "harness; predict --json shows it as dispatch_us)", CLI_OPT_DISPATCH}},
    {CLI_C_PRICE, {"price-per-hour", 0, "X", "the price of the GPU or MIG slice per hour, in "
                   "any currency: adds the cost per 1,000 samples, per million output tokens "
                   "or per 1,000 images (default: the price table "
                   "$XDG_CONFIG_HOME/dippm/prices)", CLI_OPT_PRICE}},
    {CLI_C_PRICE, {"price-of", 0, "gpu|slice", "what --price-per-hour prices: the slice run on "
                   "(default) or the whole GPU, of which a MIG slice costs its compute "
                   "slices' share (1g: 1/7)", CLI_OPT_PRICE_OF}},
    {CLI_C_JSON, {"json", 0, NULL, "JSON output", CLI_OPT_JSON}},
    {CLI_C_CSV, {"csv", 0, NULL, "CSV output", CLI_OPT_CSV}},
    {CLI_C_OUTPUT, {"output", 'o', "FILE", "write to FILE, atomically ('-o -': standard "
                    "output)", 'o'}},
    {CLI_C_FORCE, {"force", 0, NULL, "let -o replace an existing file", CLI_OPT_FORCE}},
};

static const struct cli_opt help_opt = {"help", 'h', NULL, "this help", CLI_OPT_HELP};

/* The option of cmd's groups with this id, or NULL. */
static const struct cli_opt *redeclared(const struct cli_cmd *cmd, int id)
{
    for (int g = 0; g < CLI_OPT_GROUPS; g++)
        for (const struct cli_opt *p = cmd->groups[g]; p && p->name; p++)
            if (p->id == id)
                return p;
    return NULL;
}

/* Every option cmd accepts, in help order: its own (its groups' options
 * with ids of its own), the common options it picks or declares again with
 * another help, and --help. */
static int collect(const struct cli_cmd *cmd, const struct cli_opt **out)
{
    int n = 0;
    for (int g = 0; g < CLI_OPT_GROUPS; g++)
        for (const struct cli_opt *p = cmd->groups[g]; p && p->name && n < MAX_OPTS - 1; p++)
            if (p->id >= CLI_OPT__OWN)
                out[n++] = p;
    for (size_t i = 0; i < sizeof common / sizeof common[0] && n < MAX_OPTS - 1; i++) {
        const struct cli_opt *re = redeclared(cmd, common[i].opt.id);
        if (re || (cmd->common & common[i].flag))
            out[n++] = re ? re : &common[i].opt;
    }
    out[n++] = &help_opt;
    return n;
}

/* "dippm: MESSAGE" on stderr, its control characters escaped. */
static void verror(const char *fmt, va_list ap)
{
    struct strbuf b = STRBUF_INIT;
    strbuf_vprintf(&b, fmt, ap);
    size_t size = 4 * b.len + 1; /* every byte may become \xNN */
    char *safe = xmalloc(size);
    text_sanitize(safe, size, b.s ? b.s : "", true);
    fprintf(stderr, "dippm: %s\n", safe);
    free(safe);
    strbuf_fini(&b);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(fmt, ap);
    va_end(ap);
}

int cli_usage_error(const char *sub, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(fmt, ap);
    va_end(ap);
    if (sub && *sub)
        fprintf(stderr, "Try 'dippm %s --help'.\n", sub);
    else
        fprintf(stderr, "Try 'dippm --help'.\n");
    return 2;
}

/* The usage error for what getopt_long refused (c '?' or ':'). */
static int refused(const struct cli_cmd *cmd, int c, const char *word,
                   const struct cli_opt *const *opts, int n)
{
    char name[64];
    if (optopt > 0 && optopt < 128 && word[1] != '-')
        snprintf(name, sizeof name, "-%c", optopt);
    else
        snprintf(name, sizeof name, "%.*s", (int)strcspn(word, "="), word);
    if (c == ':')
        return cli_usage_error(cmd->name, "option '%s' needs an argument", name);
    if (optopt && name[1] == '-')
        return cli_usage_error(cmd->name, "option '%s' takes no argument", name);
    int prefixed = 0;
    for (int i = 0; name[1] == '-' && i < n; i++)
        prefixed += strncmp(opts[i]->name, name + 2, strlen(name + 2)) == 0;
    if (prefixed > 1)
        return cli_usage_error(cmd->name, "option '%s' is ambiguous", name);
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
        if (name[1] == '-' && !strcmp(common[i].opt.name, name + 2))
            return cli_usage_error(cmd->name, "option '%s' not valid for '%s'", name, cmd->name);
    return cli_usage_error(cmd->name, "unknown option '%s'", name);
}

int cli_opts_parse(const struct cli_cmd *cmd, int argc, char **argv, cli_opt_fn fn, void *ctx)
{
    const struct cli_opt *opts[MAX_OPTS];
    int n = collect(cmd, opts);
    struct option *lo = xcalloc((size_t)n + 1, sizeof *lo);
    char shorts[2 * MAX_OPTS + 2] = ":";
    for (int i = 0; i < n; i++) {
        lo[i] = (struct option){opts[i]->name, opts[i]->arg ? required_argument : no_argument,
                                NULL, opts[i]->id};
        if (opts[i]->short_name) {
            size_t l = strlen(shorts);
            shorts[l++] = (char)opts[i]->short_name;
            if (opts[i]->arg)
                shorts[l++] = ':';
            shorts[l] = '\0';
        }
    }
    int c, rc = -1;
    opterr = 0;
    optind = 1;
    while (rc < 0 && (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
        if (c == '?' || c == ':') {
            rc = refused(cmd, c, argv[optind - 1], opts, n);
            break;
        }
        for (int i = 0; i < n; i++)
            if (opts[i]->short_name == c && c)
                c = opts[i]->id;
        if (c == CLI_OPT_HELP) {
            cli_opts_help(cmd, stdout);
            rc = 0;
        } else {
            rc = fn(ctx, c, optarg);
        }
    }
    free(lo);
    return rc;
}

/* Prints text from column at, wrapped to HELP_WIDTH, its continuation
 * lines starting at column col. */
static void wrap(FILE *f, const char *text, int col, int at)
{
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        int len = (int)strcspn(p, " ");
        if (at > col && at + 1 + len > HELP_WIDTH) {
            fprintf(f, "\n%*s", col, "");
            at = col;
        } else if (at > col) {
            fputc(' ', f);
            at++;
        }
        fwrite(p, 1, (size_t)len, f);
        at += len;
        p += len;
    }
    fputc('\n', f);
}

/* "  -o, --output FILE" into buf; its length. */
static int left_part(const struct cli_opt *o, char *buf, size_t size)
{
    char sh[8] = "";
    if (o->short_name)
        snprintf(sh, sizeof sh, "-%c, ", o->short_name);
    return snprintf(buf, size, "  %s--%s%s%s", sh, o->name, o->arg ? " " : "",
                    o->arg ? o->arg : "");
}

void cli_opts_help(const struct cli_cmd *cmd, FILE *f)
{
    const struct cli_opt *opts[MAX_OPTS];
    int n = collect(cmd, opts);
    char left[128];
    int col = 0;
    for (int i = 0; i < n; i++) {
        int l = left_part(opts[i], left, sizeof left) + 2;
        if (l > col && l <= HELP_COL)
            col = l;
    }
    fprintf(f, "Usage: %s\n", cmd->usage);
    if (cmd->about)
        fprintf(f, "\n%s\n", cmd->about);
    fprintf(f, "\nOptions:\n");
    for (int i = 0; i < n; i++) {
        int at = left_part(opts[i], left, sizeof left);
        fputs(left, f);
        if (at + 2 > col) {
            fprintf(f, "\n%*s", col, "");
            at = col;
        } else {
            at += fprintf(f, "%*s", col - at, "");
        }
        wrap(f, opts[i]->help, col, at);
    }
    if (cmd->after)
        fprintf(f, "\n%s\n", cmd->after);
}

void cli_opts_list(const struct cli_cmd *cmd, FILE *f)
{
    const struct cli_opt *opts[MAX_OPTS];
    int n = collect(cmd, opts);
    for (int i = 0; i < n; i++) {
        const char *sp = opts[i]->arg ? " " : "", *arg = opts[i]->arg ? opts[i]->arg : "";
        if (opts[i]->short_name)
            fprintf(f, "-%c%s%s\n", opts[i]->short_name, sp, arg);
        fprintf(f, "--%s%s%s\n", opts[i]->name, sp, arg);
    }
}
