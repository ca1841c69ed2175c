/*
 * session.h - saving and restoring the explorer's work: the model, the
 * configuration, the latency target, the symbol values and every pinned
 * configuration, as a small text file under $XDG_STATE_HOME/dippm/sessions
 * (~/.local/state/dippm/sessions without it). Curses-free.
 *
 * File format, one "KEY VALUE" per line (VALUE is the rest of the line):
 *
 *   dippm-session 1
 *   [current]            the state to open; each [pin] after it is one pin
 *   model zoo:resnet:depth=34   or a file's absolute path (written so)
 *   gpu A100-SXM4-40GB
 *   mig 3g.20gb          or "full"; a profile of the section's gpu, after it
 *   precision fp16
 *   runtime tensorrt
 *   batch 8
 *   slo 5                milliseconds, 0 = none
 *   sym seq 512          one line per model symbol other than batch
 */
#ifndef DIPPM_UI_SESSION_H
#define DIPPM_UI_SESSION_H

#include <stdbool.h>

#include "ui/app.h"

/* The file of session `name` into buf. Names are 1-48 characters of
 * letters, digits, '.', '_' and '-' (not starting with '.'); anything else
 * is ST_EUSAGE with a diag. */
enum status session_path(const char *name, char *buf, int size, struct diag *d);

/* Writes the current state and the pins as session `name` atomically.
 * An existing file is overwritten only when force or when it is the
 * session currently open (a->session); otherwise ST_EEXIST-like refusal
 * (ST_EUSAGE) naming the file. On success a->session = name and the state
 * counts as saved. */
enum status session_save(struct app *a, const char *name, bool force, struct diag *d);

/* Reads session `name` and makes it current (model, configuration, pins).
 * A malformed file gives ST_EPARSE naming the file, the line and what was
 * expected, and changes nothing; a state that cannot be applied (a model
 * file gone) leaves the configuration as it was. */
enum status session_load(struct app *a, const char *name, struct diag *d);

/* Calls add(ctx, name) for every saved session (for completion). */
void session_list(void (*add)(void *ctx, const char *name), void *ctx);

#endif
