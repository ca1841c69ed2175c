/*
 * cli.h - subcommands and the option handling they share.
 *
 * Every subcommand is `int cli_NAME(int argc, char **argv)` with argv[0] the
 * subcommand name; it returns a process exit code (status_exit_code) and
 * prints errors as "dippm: message" on stderr.
 *
 * Options are declared in a table per subcommand (struct cli_cmd, see
 * cli_opts.h) and parsed by cli_parse. The common options, handled by
 * cli_common_opt, are picked by flag:
 *   --batch N  --set NAME=VALUE  --gpu NAME  --precision P  --runtime R
 *   --weights FILE  --json  --csv  -o/--output FILE  --force
 *   --dispatch-us US  --price-per-hour X  --price-of gpu|slice  --quant SCHEME
 */
#ifndef DIPPM_CLI_H
#define DIPPM_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli/cli_opts.h"
#include "core/config.h"
#include "graph/ir/ir.h"
#include "util/status.h"

#define CLI_MAX_SETS 64
#define CLI_DISPATCH_US_MAX 1e5 /* --dispatch-us: at most 0.1 s per op */

struct cli_common {
    int64_t batch; /* 0 = model default */
    int n_sets;
    char set_name[CLI_MAX_SETS][256]; /* symbol names as long as the explorer keeps */
    int64_t set_val[CLI_MAX_SETS];
    const char *gpu, *precision, *runtime, *weights, *output, *quant;
    bool json, csv, force;
    double dispatch_us;    /* --dispatch-us; 0: the calibrated one */
    double price_per_hour; /* --price-per-hour; 0: the price table's, if any */
    bool price_of_gpu;     /* --price-of gpu */
    bool price_of_set;     /* --price-of given */
};

void cli_common_init(struct cli_common *co);
/* Handles one getopt_long result c with optarg arg. Returns 1 if handled,
 * 0 if c is not a common option, -1 on a bad value (message printed). */
int cli_common_opt(struct cli_common *co, int c, const char *arg);

/* cli_opts_parse with the common options handled into co: fn (or NULL)
 * sees every option first and returns CLI_OPTS_COMMON for those it leaves
 * to cli_common_opt. -1 to go on (optind at the first operand), else the
 * exit code (0 after --help). */
int cli_parse(const struct cli_cmd *cmd, struct cli_common *co, int argc, char **argv,
              cli_opt_fn fn, void *ctx);

/* Loads MODEL (a file or a zoo:FAMILY[:k=v...] spec), prints the error on
 * failure. The graph is finalized and symbols bound from co (--batch,
 * --set); NULL on error with *rc set to the exit code. */
struct graph *cli_load_model(const char *spec, const struct cli_common *co, int *rc);
/* The same without printing: NULL with the error in d (ST_ERANGE: a value
 * the model cannot take, such as seq beyond its positions). */
struct graph *cli_load_model_diag(const char *spec, const struct cli_common *co,
                                  struct diag *d);

/* Builds the configuration from co; prints errors. Returns exit code. */
int cli_config(const struct cli_common *co, const struct graph *g, struct config *cfg);

/* Prints "dippm: msg" for d on stderr and returns its exit code. */
int cli_fail(const struct diag *d);

/* Writes text to co->output (atomically, refusing to overwrite without
 * --force) or stdout when no output is set. Returns exit code. */
int cli_emit(const struct cli_common *co, const char *text, size_t len);

/* Parses "1..1024" style ranges, "a,b,c" lists or a single number. */
int cli_parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out);

#define CLI_SUBCOMMANDS(X)                                                              \
    X(info, "info MODEL", "summary: format, nodes, edges, inputs, outputs, symbols, ops")  \
    X(layers, "layers MODEL", "per-node table: shapes, params, MACs, FLOPs, memory, time") \
    X(predict, "predict MODEL", "latency, throughput, energy, memory and MIG suggestion") \
    X(sweep, "sweep MODEL", "predictions over batch sizes or any symbol")                 \
    X(convert, "convert MODEL -o OUT.json", "write the model as a dippm JSON graph")      \
    X(zoo, "zoo list|show|FAMILY", "architecture templates with hyperparameters")         \
    X(dataset, "dataset -o FILE", "sample graphs and configurations, label with the teacher") \
    X(train, "train --data FILE", "train the GNN (or fine-tune with --init)")            \
    X(eval, "eval", "accuracy of the GNN: random and leave-one-family-out splits")       \
    X(calibrate, "calibrate", "fit the teacher's constants to published measurements")

/* Each subcommand's entry point and option table (cli_NAME.c). */
#define X(name, usage, help)                 \
    int cli_##name(int argc, char **argv); \
    extern const struct cli_cmd cli_cmd_##name;
CLI_SUBCOMMANDS(X)
#undef X

/* `dippm __complete WHAT`: the lists the bash completion offers (hidden). */
int cli_complete(int argc, char **argv);

#endif
