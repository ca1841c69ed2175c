/* cli_training.c - the training options of dippm train and dippm eval: one
 * table of name, argument, range, default and help. */
#include "cli/cli_training.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/gnn.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* --order-pairs's default (train_prepare takes the share as an argument). */
#define PAIRS_DEFAULT 0.25

/* The numeric options: id, name, argument, integer?, lowest, highest,
 * default, help; the help printed gains "(default D; LO to HI)" from the
 * same columns, and the parser takes exactly that range. */
#define CLI_TRAINING_NUMBERS(X)                                                                \
    X(CLI_OPT_TRAIN_SEED, "seed", "S", true, 0, 100000000, TRAIN_DEFAULT_SEED,                 \
      "random seed of the training")                                                           \
    X(CLI_OPT_TRAIN_TEACHER_WEIGHT, "teacher-weight", "W", false, 0, 10,                       \
      TRAIN_DEFAULT_TEACHER_WEIGHT,                                                            \
      "loss weight of teacher-labelled rows when measured rows are present: the teacher as "   \
      "a regulariser")                                                                         \
    X(CLI_OPT_TRAIN_ORDER_WEIGHT, "order-weight", "W", false, 0, 1000,                         \
      TRAIN_DEFAULT_ORDER_WEIGHT,                                                              \
      "weight of the ordering penalty, 0 to leave it out")                                     \
    X(CLI_OPT_TRAIN_ORDER_PAIRS, "order-pairs", "F", false, 0, 1, PAIRS_DEFAULT,               \
      "fraction of rows given an ordering partner: the same model at half the batch, the "     \
      "whole GPU or the next bigger slice, a lower precision, the next faster runtime or a "   \
      "newer GPU, which must not be predicted slower")

const struct cli_opt cli_training_opts[] = {
#define X(id, name, arg, integer, lo, hi, def, help) \
    {name, 0, arg, help " (default " STR(def) "; " STR(lo) " to " STR(hi) ")", id},
    CLI_TRAINING_NUMBERS(X)
#undef X
    {"order-kinds", 0, "K", "basic (default: half the batch, the whole GPU, a lower "
     "precision, TensorRT) or all (also the next bigger slice, the next faster runtime, a "
     "newer GPU, and the next higher precision for int8 and fp8 rows)", CLI_OPT_TRAIN_ORDER_KINDS},
    {"only", 0, "TARGET", "fine-tune only TARGET's output weights (latency, energy or "
     "memory); the rest of the network is frozen, so the other figures stay exactly as they "
     "were", CLI_OPT_TRAIN_ONLY},
    {NULL, 0, NULL, NULL, 0},
};

static const struct number {
    int id;
    const char *name;
    bool integer;
    double lo, hi;
} numbers[] = {
#define X(id, name, arg, integer, lo, hi, def, help) {id, name, integer, lo, hi},
    CLI_TRAINING_NUMBERS(X)
#undef X
};

void cli_training_init(struct cli_training *t)
{
    memset(t, 0, sizeof *t);
    train_opts_default(&t->o);
    t->pair_frac = PAIRS_DEFAULT;
}

/* arg as a number of n's range into *x; false if it is not one. */
static bool parse_number(const struct number *n, const char *arg, double *x)
{
    if (n->integer) {
        int64_t v;
        if (cli_parse_int(arg, (int64_t)n->lo, (int64_t)n->hi, &v))
            return false;
        *x = (double)v;
        return true;
    }
    char *end;
    *x = strtod(arg, &end);
    return end != arg && !*end && *x >= n->lo && *x <= n->hi;
}

int cli_training_opt(struct cli_training *t, const char *sub, int c, const char *arg)
{
    if (c == CLI_OPT_TRAIN_ORDER_KINDS) {
        if (strcmp(arg, "basic") && strcmp(arg, "all"))
            return cli_usage_error(sub, "--order-kinds '%s': expected basic or all", arg);
        t->all_kinds = !strcmp(arg, "all");
        return -1;
    }
    if (c == CLI_OPT_TRAIN_ONLY) {
        if ((t->o.only_target = gnn_target_parse(arg)) < 0)
            return cli_usage_error(sub, "--only '%s': expected latency, energy or memory", arg);
        return -1;
    }
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        const struct number *n = &numbers[i];
        double x;
        if (n->id != c)
            continue;
        if (!parse_number(n, arg, &x))
            return cli_usage_error(sub, "--%s '%s': expected %s from %.15g to %.15g", n->name,
                                   arg, n->integer ? "an integer" : "a number", n->lo, n->hi);
        switch (c) {
        case CLI_OPT_TRAIN_SEED: t->o.seed = (uint64_t)x; break;
        case CLI_OPT_TRAIN_TEACHER_WEIGHT: t->o.teacher_weight = (float)x; break;
        case CLI_OPT_TRAIN_ORDER_WEIGHT: t->o.order_weight = (float)x; break;
        default: t->pair_frac = x; break;
        }
        return -1;
    }
    return CLI_OPTS_COMMON;
}
