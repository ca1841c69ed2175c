/*
 * cli_training.h - the training options `dippm train` and `dippm eval` share
 * (eval trains for --lofo and fine-tunes for --lomo): --seed,
 * --teacher-weight, --order-weight, --order-pairs, --order-kinds and --only.
 * One table (cli_training.c) gives each its name, argument, range, default
 * and help; both subcommands list it as an option group, so their --help,
 * completion and accepted values are the same.
 */
#ifndef DIPPM_CLI_TRAINING_H
#define DIPPM_CLI_TRAINING_H

#include <stdbool.h>

#include "cli/cli_opts.h"
#include "lab/train.h"

enum { CLI_OPT_TRAIN_SEED = 1400, CLI_OPT_TRAIN_TEACHER_WEIGHT, CLI_OPT_TRAIN_ORDER_WEIGHT,
       CLI_OPT_TRAIN_ORDER_PAIRS, CLI_OPT_TRAIN_ORDER_KINDS, CLI_OPT_TRAIN_ONLY };

/* The option group (struct cli_cmd's groups). */
extern const struct cli_opt cli_training_opts[];

/* What the shared options set. */
struct cli_training {
    struct train_opts o; /* train_opts_default's, then seed, teacher_weight, order_weight
                            and only_target from the options */
    double pair_frac;    /* --order-pairs: the share of rows given an ordering partner */
    bool all_kinds;      /* --order-kinds all */
};

/* The defaults: train_opts_default and the table's. */
void cli_training_init(struct cli_training *t);

/* Handles option c of subcommand sub (for its usage message) in the
 * cli_opt_fn convention: -1 when taken, the exit code (2, message printed)
 * for a value out of the option's range, CLI_OPTS_COMMON when c is not one
 * of the shared options. */
int cli_training_opt(struct cli_training *t, const char *sub, int c, const char *arg);

#endif
