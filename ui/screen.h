/*
 * screen.h - one file per screen, each filling a struct screen_ops (tig's
 * view_ops, ncdu's X_draw/X_key). A screen reads struct app and draws into
 * the canvas; it changes only view state (a->st) itself and asks the
 * controller's app_* calls for anything that touches the model.
 */
#ifndef DIPPM_UI_SCREEN_H
#define DIPPM_UI_SCREEN_H

#include <stdbool.h>

#include "ui/app.h"
#include "ui/draw.h"
#include "ui/keymap.h"

/* Reaction flags (htop's Htop_Reaction). 0 = not handled. */
enum ui_reaction {
    UI_HANDLED = 1u << 0,
    UI_REDRAW = 1u << 1,
    UI_RELAYOUT = 1u << 2,
    UI_QUIT = 1u << 3,
    UI_PROMPT_JUMP = 1u << 4, /* controller: open the "goto" prompt */
    UI_PROMPT_EDIT = 1u << 5, /* controller: open the command line with a->st.status as text */
};

struct screen_ops {
    const char *name;
    /* Called when the tab becomes active / inactive (may be NULL). */
    void (*enter)(struct app *a);
    void (*leave)(struct app *a);
    /* Draws the screen into r. */
    void (*draw)(struct app *a, struct ui_canvas *c, struct ui_rect r);
    /* Handles an action; returns reaction flags, 0 if not handled (the
     * controller then applies its global meaning). */
    unsigned (*on_action)(struct app *a, enum ui_action act, struct ui_rect r);
    /* A mouse click at y,x inside r (dbl: double click). May be NULL. */
    unsigned (*on_click)(struct app *a, struct ui_rect r, int y, int x, bool dbl);
};

extern const struct screen_ops screen_layers_ops, screen_graph_ops, screen_sweep_ops,
    screen_params_ops, screen_detail_ops, screen_help_ops, screen_about_ops, screen_compare_ops,
    screen_log_ops;

/* The screen for a tab (never NULL for a valid tab). */
const struct screen_ops *screen_get(enum ui_tab t);

/* Shared by list screens: moves a->st.list[tab] for the movement actions
 * (up, down, page, home, end) over n rows shown in `visible` lines.
 * Returns reaction flags, 0 if act is not a movement. */
unsigned screen_list_move(struct ui_list *l, enum ui_action act, int n, int visible);

/* The layer detail (cost formula, intensity, roofline) for node ni into r;
 * used by the detail tab and the side pane on wide terminals. */
void screen_detail_draw_node(struct app *a, int ni, struct ui_canvas *c, struct ui_rect r);

/* The Layers tab's op-type view (a->st.op_types; screen_optypes.c): the
 * table into r, and how many rows it has. */
void screen_optypes_draw(struct app *a, struct ui_canvas *c, struct ui_rect r);
int screen_optypes_count(const struct app *a);
/* Enter on the op-type view: the layers of the selected type (filter
 * op=TYPE), back in the layer view. */
unsigned screen_optypes_enter(struct app *a);

/* The Sweep tab's heat map (a->st.heat; screen_heat.c): drawn into r, and
 * its movement, m and Enter (0 when act is not one of them). */
void screen_heat_draw(struct app *a, struct ui_canvas *c, struct ui_rect r);
unsigned screen_heat_action(struct app *a, enum ui_action act);

#endif
