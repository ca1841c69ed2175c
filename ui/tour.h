/*
 * tour.h - the teaching tour (dippm --tour, :tour): a dozen steps on the
 * bundled zoo models, each changing the live screen through ordinary
 * commands (open a model, set the batch, switch tab, select a layer) and
 * explaining what changed with the figures before and after. n advances,
 * N goes back, Esc or q leaves and restores the state from before the
 * tour. Curses-free: it draws into the canvas like a screen.
 */
#ifndef DIPPM_UI_TOUR_H
#define DIPPM_UI_TOUR_H

#include <stdbool.h>

#include "ui/app.h"
#include "ui/draw.h"

#define TOUR_NOTE_MAX 512

struct tour {
    bool active;
    int step;                   /* 0-based */
    struct app_whatif before;   /* the state to restore when it ends */
    /* figures before the current step's change, for "what changed" */
    double prev_latency, prev_tput, prev_mem, prev_macs;
    char note[TOUR_NOTE_MAX];   /* what changed, or why the step failed */
    char said[TOUR_NOTE_MAX];   /* the step's sentence on the figures shown, "" if none */
};

int tour_step_count(void);
/* The title of step k ("What a MAC is"), NULL past the end. */
const char *tour_step_title(int k);

/* Starts at step 0 (remembers the current state). */
void tour_start(struct tour *t, struct app *a);
/* Leaves the tour and restores the state from before it. */
void tour_stop(struct tour *t, struct app *a);
/* Goes to step k: runs its commands and fills t->note. */
void tour_goto(struct tour *t, struct app *a, int k);
/* The tour's own keys (n, N, Esc); true if the key was used. */
bool tour_key(struct tour *t, struct app *a, int key);
/* The explanation panel over the lower part of r. */
void tour_draw(const struct tour *t, const struct app *a, struct ui_canvas *c, struct ui_rect r);

#endif
