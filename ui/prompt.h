/*
 * prompt.h - the `:` command line. With GNU readline (HAVE_READLINE), in
 * tig's manner: readline's input and redisplay are hooked into the curses
 * status line (rl_getc/rl_redisplay via the callback interface), readline
 * never touches the terminal itself (no prep/deprep, rl_catch_signals and
 * rl_catch_sigwinch = 0, output to /dev/null); history persists in
 * $XDG_STATE_HOME/dippm/history (default ~/.local/state/dippm/history); Tab
 * completes commands, node names and GPU names (ui/commands.c). Without
 * readline, a plain line editor with the same history file.
 *
 * Readline's API is process-global, so this module keeps its hooks in
 * file-static variables while a line is being read; nothing else does.
 */
#ifndef DIPPM_UI_PROMPT_H
#define DIPPM_UI_PROMPT_H

#include <stdbool.h>

#include "ui/app.h"

struct prompt_io {
    /* Blocking: the next key (ui_key). Returns -1 when the terminal was
     * resized (the caller has re-laid out and redrawn), -2 when a quit
     * signal arrived (the line is cancelled). */
    int (*get_key)(void *ctx);
    /* Shows prompt + line with the cursor at byte `point`; hint is a list
     * of completion matches or NULL. */
    void (*redisplay)(void *ctx, const char *prompt, const char *line, int point,
                      const char *hint);
    void *ctx;
    const struct app *app; /* for completion */
};

/* Loads the history file (missing is fine). */
void prompt_init(void);
/* Saves the history atomically when save (not after a key script) and
 * releases readline state. */
void prompt_fini(bool save);
/* Reads one line with initial text. Returns a malloc'd line (added to the
 * history when not empty), or NULL when cancelled (Esc, Ctrl-C, Ctrl-G,
 * or a quit signal). */
char *prompt_read(const struct prompt_io *io, const char *prompt, const char *initial);
/* The history file path ($XDG_STATE_HOME/dippm/history or
 * ~/.local/state/dippm/history) into buf; false if neither is set or the path does not fit. */
bool prompt_history_path(char *buf, int size);
/* Which editor is built in: "readline" or "plain". */
const char *prompt_backend(void);

#endif
