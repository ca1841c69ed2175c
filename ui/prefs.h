/*
 * prefs.h - the explorer's persisted preferences, as htop and btop keep
 * theirs: $XDG_CONFIG_HOME/dippm/explorer (~/.config/dippm/explorer
 * without it), one "KEY VALUE" per line, # starts a comment:
 *
 *   theme mono          color (the default) or mono: no colours, as NO_COLOR
 *   gpu h100            the GPU (GPU:PROFILE for a MIG slice) to open models on
 *   precision fp16      the precision to open models at
 *   runtime tensorrt    the runtime to open models with
 *
 * A session (--session) brings its own configuration, which wins. A
 * missing file is no error; a malformed one names the file, the line and
 * what was expected. Curses-free.
 */
#ifndef DIPPM_UI_PREFS_H
#define DIPPM_UI_PREFS_H

#include <stdbool.h>

#include "ui/app.h"

struct prefs {
    char path[1100]; /* the file read; "" when there is none */
    bool mono;       /* theme mono */
    char gpu[96];    /* "" when not set */
    char prec[16], rt[16];
    int gpu_line, prec_line, rt_line; /* where each was set, for errors */
};

/* The preferences file's path into buf; NULL without XDG_CONFIG_HOME and
 * HOME (or when it does not fit). */
const char *prefs_path(char *buf, int size);
/* Reads the file (its absence leaves *p empty: ST_OK). */
enum status prefs_load(struct prefs *p, struct diag *d);
/* Opens the model of a at the preferred GPU, precision and runtime, and
 * counts that as the saved state (nothing to undo, nothing unsaved). */
enum status prefs_apply(struct app *a, const struct prefs *p, struct diag *d);

#endif
