/*
 * commands.h - the `:` command line: one table of commands (name, usage,
 * help, handler) that the parser, the completion, the help screen and
 * ui/README-keys.md all use. Curses-free.
 */
#ifndef DIPPM_UI_COMMANDS_H
#define DIPPM_UI_COMMANDS_H

#include <stdbool.h>

#include "ui/app.h"

enum cmd_flag {
    CMD_QUIT = 1u << 0, /* leave the explorer */
    CMD_DUMP = 1u << 1, /* write the screen to out->path (the caller owns the screen) */
    CMD_HELP = 1u << 2, /* show the help tab */
    CMD_TOUR = 1u << 3, /* start the tour */
    CMD_LOG = 1u << 4,  /* show the message log */
};

struct cmd_out {
    unsigned flags;
    char path[512];
};

struct cmd_info {
    const char *name, *usage, *help;
};

/* The command table (for help and docs): cmd_get(0 .. cmd_count()-1). */
int cmd_count(void);
const struct cmd_info *cmd_get(int i);

/* Runs one command line (without the ':'). On success writes a short
 * confirmation into the status line through a->st; on failure returns the
 * status with diag naming the command and what was expected. The model and
 * configuration are left as they were on failure. */
enum status cmd_execute(struct app *a, const char *line, struct cmd_out *out, struct diag *d);

/* Completion candidates for the word that starts at byte `start` of line:
 * command names for the first word, then by command: GPU names and
 * GPU:PROFILE pairs, precisions, runtimes, symbol and hyperparameter names
 * ("seq="), node names, csv/json. add() is called once per candidate (not
 * filtered by prefix); returns false if the word takes file names. */
bool cmd_complete(const struct app *a, const char *line, int start,
                  void (*add)(void *ctx, const char *cand), void *ctx);

#endif
