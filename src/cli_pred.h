/*
 * cli_pred.h - helpers shared by the predict and sweep subcommands.
 */
#ifndef DIPPM_CLI_PRED_H
#define DIPPM_CLI_PRED_H

#include "cli.h"
#include "predict.h"

/* "10" or "10%" -> 0.10; -1 if not a percentage from 0 to 1000. */
int cli_pred_parse_pct(const char *arg, double *out);
/* Milliseconds > 0; -1 on error. */
int cli_pred_parse_ms(const char *arg, double *out);
/* Loads --weights (an error if given and bad) or the default weights; with
 * no default weights, prints a note and returns NULL with *rc = 0 (the
 * teacher's estimate is then shown, labelled as such). */
struct predictor *cli_pred_predictor(const struct cli_common *co, int *rc);

#endif
