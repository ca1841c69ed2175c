/*
 * cli_opts.h - declarative option tables of the subcommands: each option is
 * declared once (long name, optional short name, argument name, help text,
 * id); the parser builds getopt_long's table from it and the option list of
 * `dippm SUB --help`, and the bash completion lists it (`dippm __complete
 * options SUB`).
 *
 * A subcommand picks the common options it accepts by flag (CLI_C_*) and
 * declares its own in up to CLI_OPT_GROUPS tables (its own, and the groups it
 * shares with another subcommand). An option it does not declare is unknown
 * to it: a usage error, exit 2.
 */
#ifndef DIPPM_CLI_OPTS_H
#define DIPPM_CLI_OPTS_H

#include <stdio.h>

/* Ids of the common options ('o' is -o/--output). */
enum {
    CLI_OPT_BATCH = 1000, CLI_OPT_SET, CLI_OPT_GPU, CLI_OPT_PRECISION, CLI_OPT_RUNTIME,
    CLI_OPT_WEIGHTS, CLI_OPT_JSON, CLI_OPT_CSV, CLI_OPT_FORCE, CLI_OPT_HELP, CLI_OPT_DISPATCH,
    CLI_OPT_PRICE, CLI_OPT_PRICE_OF, CLI_OPT_QUANT,
    CLI_OPT__OWN = 1100 /* subcommands number their own options from here */
};

/* The common options a subcommand accepts. */
enum {
    CLI_C_BATCH = 1 << 0,
    CLI_C_SET = 1 << 1,
    CLI_C_GPU = 1 << 2,
    CLI_C_PRECISION = 1 << 3,
    CLI_C_RUNTIME = 1 << 4,
    CLI_C_WEIGHTS = 1 << 5,
    CLI_C_JSON = 1 << 6,
    CLI_C_CSV = 1 << 7,
    CLI_C_OUTPUT = 1 << 8,
    CLI_C_FORCE = 1 << 9,
    CLI_C_DISPATCH = 1 << 10, /* --dispatch-us */
    CLI_C_PRICE = 1 << 11,    /* --price-per-hour, --price-of */
    CLI_C_QUANT = 1 << 12,    /* --quant */
};
/* --batch and --set: the options that bind a model's symbols */
#define CLI_C_SYMBOLS (CLI_C_BATCH | CLI_C_SET)
/* --gpu, --precision, --quant, --runtime and --weights: what a prediction runs on */
#define CLI_C_CONFIG (CLI_C_GPU | CLI_C_PRECISION | CLI_C_QUANT | CLI_C_RUNTIME | CLI_C_WEIGHTS)
/* --dispatch-us, --price-per-hour and --price-of: the host and the price of a
 * deployment (predict and sweep) */
#define CLI_C_DEPLOY (CLI_C_DISPATCH | CLI_C_PRICE)

struct cli_opt {
    const char *name; /* long name without "--"; NULL ends a table */
    int short_name;   /* e.g. 'o'; 0: none */
    const char *arg;  /* argument name ("N", "FILE"); NULL: takes none */
    const char *help; /* one sentence, wrapped when printed */
    int id;           /* a common id (its handling, another help) or CLI_OPT__OWN + k */
};

#define CLI_OPT_GROUPS 3

struct cli_cmd {
    const char *name;     /* the subcommand */
    const char *usage;    /* synopsis line(s), printed after "Usage: " */
    const char *about;    /* prose printed before the options; NULL: none */
    const char *after;    /* prose printed after the options; NULL: none */
    unsigned common;      /* CLI_C_* */
    const struct cli_opt *groups[CLI_OPT_GROUPS]; /* NULL-name terminated; unused: NULL */
};

/* Handles option id with argument arg (NULL for a flag): -1 to go on,
 * CLI_OPTS_COMMON to leave a common option to the common handler (see
 * cli_parse in cli.h), else the exit code to stop with (messages printed). */
#define CLI_OPTS_COMMON (-2)
typedef int (*cli_opt_fn)(void *ctx, int id, const char *arg);

/* Parses the options of argv (argv[0] the subcommand) with cmd's table,
 * calling fn for each. -h/--help prints the help. Returns -1 with optind at
 * the first operand (operands are permuted to the end), 0 after the help,
 * else the exit code (2 for a usage error). */
int cli_opts_parse(const struct cli_cmd *cmd, int argc, char **argv, cli_opt_fn fn, void *ctx);

/* The help of cmd: usage, prose and the generated option list. */
void cli_opts_help(const struct cli_cmd *cmd, FILE *f);
/* Every option cmd accepts, one per line: "--NAME" or "--NAME ARG" (and
 * "-C" or "-C ARG" for a short name), for the completion. */
void cli_opts_list(const struct cli_cmd *cmd, FILE *f);

/* printf-style error: "dippm: ..." on stderr. Every message that echoes a
 * value from the command line or a file name goes through this (or
 * cli_usage_error, or a diag): its control characters (ESC, BEL, ...) and
 * invalid UTF-8 are written as \xNN (text_sanitize), so an argument such as
 * --gpu $'\e]0;title\a' cannot drive the terminal. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* printf-style usage error: "dippm: ...\nTry 'dippm SUB --help'." exit 2,
 * escaped as by cli_error. */
int cli_usage_error(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
