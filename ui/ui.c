/* ui.c - the explorer's main loop: input -> action -> app/screen ->
 * relayout/redraw (htop's ScreenManager, nvtop's loop). Also the headless
 * mode for tests: DIPPM_NO_DISPLAY=1 draws into the canvas only, keys come
 * from DIPPM_SCRIPT, and :dump-screen FILE writes the canvas as text. */
#include "ui/ui.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/app.h"
#include "ui/commands.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "ui/frame.h"
#include "ui/keymap.h"
#include "ui/layout.h"
#include "ui/prompt.h"
#include "ui/screen.h"
#include "ui/prefs.h"
#include "ui/session.h"
#include "ui/term.h"
#include "ui/tour.h"
#include "util/xalloc.h"

#define SCRIPT_MAX 8192

struct ui {
    struct app a;
    struct ui_canvas canvas;
    struct ui_layout layout;
    struct term *term; /* NULL when headless */
    bool headless;
    int hl_rows, hl_cols; /* headless size */
    int script[SCRIPT_MAX];
    int n_script, pos_script;
    bool force;
    enum ui_tab shown_tab;
    struct frame_input input;
    char hint[512];
    bool pending_g;    /* 'g' pressed: gg goes to the first row, g NAME jumps */
    int key;           /* the key being handled (q closes Help, F10 quits) */
    struct tour tour;  /* the teaching tour, when active */
};

/* ================================================================== */
/* drawing                                                             */
/* ================================================================== */

static void render(struct ui *u)
{
    int rows, cols;
    if (u->term)
        term_size(u->term, &rows, &cols);
    else
        rows = u->hl_rows, cols = u->hl_cols;
    if (rows != u->canvas.rows || cols != u->canvas.cols)
        draw_canvas_resize(&u->canvas, rows, cols);
    struct ui_layout_opts opts = {
        .side_pane = u->a.st.tab == UI_TAB_LAYERS || u->a.st.tab == UI_TAB_GRAPH,
        .decoder = u->a.workload != WORKLOAD_PASS};
    ui_layout_compute(rows, cols, &opts, &u->layout);
    draw_clear(&u->canvas, (struct ui_rect){0, 0, rows, cols}, UI_STYLE_NORMAL);
    u->canvas.n_cuts = 0;
    int cy = -1, cx = -1;
    if (u->layout.too_small) {
        draw_textf(&u->canvas, 0, 0, cols, UI_STYLE_WARN, "dippm needs %dx%d, this is %dx%d",
                   UI_MIN_COLS, UI_MIN_ROWS, cols, rows);
        if (rows > 1)
            draw_text(&u->canvas, 1, 0, cols, UI_STYLE_DIM, "enlarge the window or press q");
    } else {
        const struct screen_ops *s = screen_get(u->a.st.tab);
        s->draw(&u->a, &u->canvas, u->layout.r[UI_R_BODY]);
        struct ui_rect side = u->layout.r[UI_R_SIDE];
        if (side.w > 0) {
            draw_vline(&u->canvas, side.y, side.x, side.h, UI_STYLE_DIM);
            side.x += 2;
            side.w -= 2;
            screen_detail_draw_node(&u->a, u->a.st.detail_node, &u->canvas, side);
        }
        if (u->tour.active)
            tour_draw(&u->tour, &u->a, &u->canvas, u->layout.r[UI_R_BODY]);
        struct frame_input in = u->input;
        const struct ui_state *st = &u->a.st;
        if (!in.active && st->input != UI_INPUT_NONE) {
            const char *text = st->input == UI_INPUT_SEARCH ? st->search : st->filter;
            in = (struct frame_input){true,
                                      st->input == UI_INPUT_SEARCH ? "Search: " : "Filter: ",
                                      text, (int)strlen(text),
                                      st->status[0] ? st->status : NULL};
        }
        cx = frame_draw(&u->a, &u->canvas, &u->layout, &in);
        if (cx >= 0)
            cy = u->layout.r[UI_R_STATUS].y;
    }
    if (u->term)
        term_flush(u->term, &u->canvas, cy, cx, u->force);
    u->force = false;
}

/* ================================================================== */
/* input sources                                                       */
/* ================================================================== */

/* The next event: script keys first, then the terminal. false when the
 * script is exhausted in headless mode (time to quit). */
static bool next_event(struct ui *u, struct term_event *ev)
{
    memset(ev, 0, sizeof *ev);
    while (u->pos_script < u->n_script) {
        int k = u->script[u->pos_script++];
        if (k == 0) /* <sleep>: let a real terminal show the state */
            continue;
        if (k == UI_KEY_ESC) { /* a script's keys arrive at once, as a sequence's bytes do */
            int used, key = keymap_decode_esc(u->script + u->pos_script - 1,
                                              u->n_script - u->pos_script + 1, &used);
            if (key >= 0) {
                u->pos_script += used - 1;
                if (key == 0)
                    continue; /* a sequence of no key we know: dropped */
                k = key;
            }
        }
        ev->key = k;
        return true;
    }
    if (!u->term)
        return false;
    while (!term_poll(u->term, -1, ev))
        ;
    return true;
}

static int prompt_get_key(void *ctx)
{
    struct ui *u = ctx;
    struct term_event ev;
    for (;;) {
        if (!next_event(u, &ev))
            return -2;
        if (u->term && term_quit_requested())
            return term_interrupt_take() ? UI_KEY_CTRL('c') : -2; /* Ctrl-C cancels the line */
        if (ev.key == UI_KEY_RESIZE) {
            render(u);
            return -1;
        }
        if (ev.key != UI_KEY_MOUSE)
            return ev.key;
    }
}

static void prompt_redisplay(void *ctx, const char *prompt, const char *line, int point,
                             const char *hint)
{
    struct ui *u = ctx;
    u->input = (struct frame_input){true, prompt, line, point, hint};
    render(u);
}

/* ================================================================== */
/* the command line                                                    */
/* ================================================================== */

/* DIPPM_CUTS (the layout tests): FILE.cuts lists every text of the frame
 * cut inside a word or number, one per line ("row R col C: TEXT|REST"). */
static void dump_cuts(struct ui *u, const char *path)
{
    struct strbuf b = STRBUF_INIT;
    for (int i = 0; i < u->canvas.n_cuts; i++)
        strbuf_printf(&b, "row %d col %d: %s\n", u->canvas.cuts[i].y + 1, u->canvas.cuts[i].x + 1,
                      u->canvas.cuts[i].text);
    size_t len;
    char *text = strbuf_take(&b, &len), cpath[1100];
    struct diag d = {0};
    snprintf(cpath, sizeof cpath, "%s.cuts", path);
    if (file_write_atomic(cpath, text, len, true, &d))
        ui_state_message(&u->a.st, true, "dump-screen: %s", d.msg);
    free(text);
}

static void dump_screen(struct ui *u, const char *path)
{
    struct diag d = {0};
    app_update_mig(&u->a);
    render(u);
    char *text = draw_canvas_text(&u->canvas);
    if (file_write_atomic(path, text, strlen(text), true, &d))
        ui_state_message(&u->a.st, true, "dump-screen: %s", d.msg);
    else
        ui_state_message(&u->a.st, false, "screen written to %s", path);
    free(text);
    if (getenv("DIPPM_CUTS") && *getenv("DIPPM_CUTS"))
        dump_cuts(u, path);
}

static void run_command(struct ui *u, const char *raw)
{
    char line[1024];
    snprintf(line, sizeof line, "%s", raw);
    for (size_t n = strlen(line); n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'); n--)
        line[n - 1] = 0;
    struct cmd_out out;
    struct diag d = {0};
    unsigned gen = u->a.gen;
    char before[UI_STATUS_MAX];
    bool before_err = u->a.st.status_error;
    memcpy(before, u->a.st.status, sizeof before);
    u->a.st.status[0] = 0;
    enum status st = cmd_execute(&u->a, line, &out, &d);
    if (!st && (out.flags & CMD_DUMP)) {
        /* the screen as it was: the dump does not clear the message */
        memcpy(u->a.st.status, before, sizeof before);
        u->a.st.status_error = before_err;
    }
    if (st) {
        ui_state_message(&u->a.st, true, "%s", d.msg);
        return;
    }
    if (!u->a.st.status[0] && u->a.gen != gen)
        ui_state_message(&u->a.st, false, "%s: re-inferred and predicted in %.1f ms", line,
                         u->a.recompute_ms);
    if (out.flags & CMD_QUIT)
        u->a.st.quit = true;
    if (out.flags & CMD_HELP)
        ui_state_tab_set(&u->a.st, UI_TAB_HELP);
    if (out.flags & CMD_DUMP)
        dump_screen(u, out.path);
    if (out.flags & CMD_LOG) {
        u->a.st.list[UI_TAB_LOG].top = 0;
        ui_state_tab_set(&u->a.st, UI_TAB_LOG);
    }
    if (out.flags & CMD_TOUR)
        tour_start(&u->tour, &u->a);
}

static void run_prompt(struct ui *u, const char *initial)
{
    struct prompt_io io = {prompt_get_key, prompt_redisplay, u, &u->a};
    char *line = prompt_read(&io, ":", initial);
    u->input.active = false;
    if (line)
        run_command(u, line);
    free(line);
}

/* ================================================================== */
/* search and filter (status-line input, applied on every key)         */
/* ================================================================== */

static bool search_from(struct ui *u, int start, int dir, bool inclusive)
{
    struct app *a = &u->a;
    app_rows_update(a);
    int n = a->n_rows;
    if (!a->st.search[0] || n == 0)
        return false;
    for (int k = inclusive ? 0 : 1; k <= n; k++) {
        int r = ((start + dir * k) % n + n) % n;
        const struct node *nd = &a->g->nodes[a->rows[r]];
        if (ui_str_icontains(nd->name, a->st.search) || ui_str_icontains(nd->op_type, a->st.search)) {
            a->st.list[UI_TAB_LAYERS].sel = r;
            a->st.detail_node = a->rows[r];
            return true;
        }
    }
    ui_state_message(&a->st, true, "no layer matches '%s'", a->st.search);
    return false;
}

static void input_begin(struct ui *u, enum ui_input mode)
{
    struct ui_state *s = &u->a.st;
    if (s->tab != UI_TAB_LAYERS && s->tab != UI_TAB_GRAPH)
        ui_state_tab_set(s, UI_TAB_LAYERS);
    s->input = mode;
    s->status[0] = 0; /* the input line's hint shows only what this input says */
    char *text = mode == UI_INPUT_SEARCH ? s->search : s->filter;
    snprintf(s->input_saved, sizeof s->input_saved, "%s", text);
    if (mode == UI_INPUT_SEARCH)
        text[0] = 0;
    app_rows_update(&u->a);
    s->input_origin = s->list[UI_TAB_LAYERS].sel;
}

static void input_apply(struct ui *u)
{
    struct ui_state *s = &u->a.st;
    s->status[0] = 0;
    if (s->input == UI_INPUT_SEARCH) {
        search_from(u, s->input_origin, 1, true);
    } else {
        u->a.rows_dirty = true;
        app_rows_update(&u->a);
        ui_list_clamp(&s->list[UI_TAB_LAYERS], u->a.n_rows, 1);
        /* no row, no current layer: the detail must not show a stale one */
        s->detail_node = u->a.n_rows > 0 ? u->a.rows[s->list[UI_TAB_LAYERS].sel] : -1;
        ui_state_message(s, u->a.n_rows == 0, "%d of %d layers match", u->a.n_rows,
                         u->a.g ? u->a.g->n_nodes : 0);
    }
}

static void input_key(struct ui *u, int key)
{
    struct ui_state *s = &u->a.st;
    char *text = s->input == UI_INPUT_SEARCH ? s->search : s->filter;
    if (key == UI_KEY_ESC || key == UI_KEY_CTRL('c') || key == UI_KEY_CTRL('g')) {
        snprintf(text, UI_TEXT_MAX, "%s", s->input_saved);
        if (s->input == UI_INPUT_SEARCH)
            s->list[UI_TAB_LAYERS].sel = s->input_origin;
        else
            u->a.rows_dirty = true;
        s->input = UI_INPUT_NONE;
        s->status[0] = 0;
        return;
    }
    if (key == UI_KEY_ENTER || key == '\r') {
        s->input = UI_INPUT_NONE;
        return;
    }
    if (s->input == UI_INPUT_SEARCH && (key == UI_KEY_F3 || key == UI_KEY_DOWN)) {
        search_from(u, s->list[UI_TAB_LAYERS].sel, 1, false);
        return;
    }
    if (s->input == UI_INPUT_SEARCH && (key == UI_KEY_SHIFT_F3 || key == UI_KEY_UP)) {
        search_from(u, s->list[UI_TAB_LAYERS].sel, -1, false);
        return;
    }
    if (ui_line_edit(text, UI_TEXT_MAX, key))
        input_apply(u);
}

/* ================================================================== */
/* actions                                                             */
/* ================================================================== */

static void change_batch(struct ui *u, int dir)
{
    struct app *a = &u->a;
    double old = a->pred.latency_ms;
    int64_t b = dir > 0 ? a->cfg.batch * 2 : a->cfg.batch / 2;
    struct diag d = {0};
    if (b < 1) {
        ui_state_message(&a->st, true, "batch is already 1");
        return;
    }
    if (app_set_batch(a, b, &d)) {
        ui_state_message(&a->st, true, "%s", d.msg);
        return;
    }
    char t[160];
    ui_state_message(&a->st, false, "batch %lld: latency %.3g -> %.3g ms (%s), updated in %.2f ms",
                     (long long)a->cfg.batch, old, a->pred.latency_ms,
                     app_config_label(a, &a->cfg, t, sizeof t), a->recompute_ms);
}

static void global_action(struct ui *u, enum ui_action act)
{
    struct app *a = &u->a;
    struct ui_state *s = &a->st;
    struct diag d = {0};
    switch (act) {
    case UI_ACT_QUIT:
        if (u->key == 'q' &&
            (s->tab == UI_TAB_HELP || s->tab == UI_TAB_ABOUT || s->tab == UI_TAB_LOG)) {
            ui_state_back(s); /* q closes Help and About like Esc; F10 quits */
        } else if (u->tour.active) {
            tour_stop(&u->tour, a);
        } else if (app_quit_check(a, u->key == 'q' ? "q" : "F10", &d)) {
            ui_state_message(s, true, "%s", d.msg);
        } else {
            s->quit = true;
        }
        break;
    case UI_ACT_UNDO: run_command(u, "undo"); break;
    case UI_ACT_REDO: run_command(u, "redo"); break;
    case UI_ACT_TAB_COMPARE: ui_state_tab_set(s, UI_TAB_COMPARE); break;
    case UI_ACT_LOG: run_command(u, "messages"); break;
    case UI_ACT_SUSPEND:
        if (u->term)
            term_suspend(u->term);
        u->force = true;
        break;
    case UI_ACT_HELP: ui_state_tab_set(s, UI_TAB_HELP); break;
    case UI_ACT_SETUP:
    case UI_ACT_TAB_PARAMS: ui_state_tab_set(s, UI_TAB_PARAMS); break;
    case UI_ACT_TAB_LAYERS: ui_state_tab_set(s, UI_TAB_LAYERS); break;
    case UI_ACT_TAB_GRAPH: ui_state_tab_set(s, UI_TAB_GRAPH); break;
    case UI_ACT_TAB_SWEEP: ui_state_tab_set(s, UI_TAB_SWEEP); break;
    case UI_ACT_TAB_DETAIL: ui_state_tab_set(s, UI_TAB_DETAIL); break;
    case UI_ACT_TAB_ABOUT: ui_state_tab_set(s, UI_TAB_ABOUT); break;
    case UI_ACT_TAB_NEXT: ui_state_tab_cycle(s, 1); break;
    case UI_ACT_TAB_PREV: ui_state_tab_cycle(s, -1); break;
    case UI_ACT_BACK:
        if (!ui_state_back(s))
            s->status[0] = 0;
        break;
    case UI_ACT_SEARCH: input_begin(u, UI_INPUT_SEARCH); break;
    case UI_ACT_FILTER: input_begin(u, UI_INPUT_FILTER); break;
    case UI_ACT_SEARCH_NEXT:
    case UI_ACT_SEARCH_PREV:
        if (!s->search[0])
            ui_state_message(s, true, "no search yet: press / and type part of a name");
        else
            search_from(u, s->list[UI_TAB_LAYERS].sel, act == UI_ACT_SEARCH_NEXT ? 1 : -1, false);
        break;
    case UI_ACT_TOGGLE_VIEW:
        /* as the F-key bar says: Table from the graph, Graph from anywhere else */
        ui_state_tab_set(s, s->tab == UI_TAB_GRAPH ? UI_TAB_LAYERS : UI_TAB_GRAPH);
        break;
    case UI_ACT_SORT_NEXT:
    case UI_ACT_SORT_PREV:
    case UI_ACT_SORT_INVERT:
    case UI_ACT_SORT_INDEX:
        ui_state_tab_set(s, UI_TAB_LAYERS);
        if (act == UI_ACT_SORT_INDEX)
            ui_state_sort_by(s, UI_COL_INDEX);
        else if (act == UI_ACT_SORT_INVERT)
            s->sort_desc = !s->sort_desc;
        else
            ui_state_sort_cycle(s, act == UI_ACT_SORT_NEXT ? 1 : -1);
        a->rows_dirty = true;
        s->list[UI_TAB_LAYERS] = (struct ui_list){0, 0}; /* a new order starts at its top */
        ui_state_message(s, false, "sorted by %s, %s", ui_col_title(s->sort_col),
                         s->sort_desc ? "descending" : "ascending");
        break;
    case UI_ACT_BATCH_UP: change_batch(u, 1); break;
    case UI_ACT_BATCH_DOWN: change_batch(u, -1); break;
    case UI_ACT_PROMPT: run_prompt(u, ""); break;
    case UI_ACT_JUMP: run_prompt(u, "goto "); break;
    case UI_ACT_PIN: run_command(u, "pin"); break;
    case UI_ACT_MAX_BATCH: run_command(u, "maxbatch"); break;
    case UI_ACT_COMPARE: run_command(u, "compare"); break;
    case UI_ACT_REDRAW: u->force = true; break;
    case UI_ACT_METRIC: ui_state_tab_set(s, UI_TAB_SWEEP); break;
    case UI_ACT_HEATMAP:
        ui_state_tab_set(s, UI_TAB_SWEEP);
        if (!s->heat) {
            s->heat = 1;
            s->heat_row = -1;
        }
        break;
    case UI_ACT_SHOW_IDLE:
        s->show_idle = !s->show_idle;
        a->rows_dirty = true;
        app_rows_update(a);
        ui_state_tab_set(s, UI_TAB_LAYERS);
        s->op_types = false;
        ui_state_message(s, false, "%s", s->show_idle ? "every layer shown (Z hides those taking no time)"
                                                      : "layers taking no time hidden (Z shows them)");
        break;
    case UI_ACT_OP_TYPES:
        /* from any tab: the Layers tab, in the other view */
        s->op_types = s->tab != UI_TAB_LAYERS || !s->op_types;
        ui_state_tab_set(s, UI_TAB_LAYERS);
        ui_state_message(s, false, "%s", s->op_types ? "predicted time by op type (o: the layers)"
                                                     : "the layers (o: time by op type)");
        break;
    case UI_ACT_PRODUCER:
    case UI_ACT_CONSUMER:
    case UI_ACT_COLLAPSE:
        /* graph actions from another tab: go to the graph and do it there */
        ui_state_tab_set(s, UI_TAB_GRAPH);
        screen_get(UI_TAB_GRAPH)->on_action(a, act, u->layout.r[UI_R_BODY]);
        break;
    default: break;
    }
}

static void handle_reaction(struct ui *u, unsigned f)
{
    if (f & UI_QUIT)
        u->a.st.quit = true;
    if (f & UI_PROMPT_JUMP)
        run_prompt(u, "goto ");
    if (f & UI_PROMPT_EDIT) {
        char initial[UI_STATUS_MAX];
        snprintf(initial, sizeof initial, "%s", u->a.st.status);
        u->a.st.status[0] = 0;
        run_prompt(u, initial);
    }
}

/* 'g' waits for the next key: g again goes to the first row, Esc cancels,
 * anything else opens the jump prompt with that key typed. */
static bool pending_g_key(struct ui *u, int key)
{
    u->pending_g = false;
    if (key == 'g') {
        const struct screen_ops *s = screen_get(u->a.st.tab);
        unsigned f = s->on_action ? s->on_action(&u->a, UI_ACT_HOME, u->layout.r[UI_R_BODY]) : 0;
        (void)f;
        u->a.st.status[0] = 0;
        return true;
    }
    if (key == UI_KEY_ESC) {
        u->a.st.status[0] = 0;
        return true;
    }
    char initial[32] = "goto ";
    if (key >= 32 && key < 127)
        initial[5] = (char)key;
    else if (key != UI_KEY_ENTER && key != '\r')
        return false; /* a special key: handle it normally */
    run_prompt(u, initial);
    return true;
}

static void handle_key_inner(struct ui *u, int key)
{
    u->key = key;
    if (u->a.st.input != UI_INPUT_NONE) {
        input_key(u, key);
        return;
    }
    if (u->pending_g && pending_g_key(u, key))
        return;
    if (u->tour.active && tour_key(&u->tour, &u->a, key))
        return;
    enum ui_action act = keymap_lookup(key);
    if (act == UI_ACT_JUMP) {
        u->pending_g = true;
        ui_state_message(&u->a.st, false, "g: g again = first row, or type a node name");
        return;
    }
    if (act == UI_ACT_NONE) {
        char k[24];
        if (key != UI_KEY_RESIZE)
            ui_state_message(&u->a.st, false, "%s: not bound (F1 or ? for help)",
                             keymap_key_name(key, k, sizeof k));
        return;
    }
    if (u->layout.too_small) {
        if (act == UI_ACT_QUIT)
            u->a.st.quit = true;
        return;
    }
    const struct screen_ops *s = screen_get(u->a.st.tab);
    unsigned f = s->on_action ? s->on_action(&u->a, act, u->layout.r[UI_R_BODY]) : 0;
    if (f)
        handle_reaction(u, f);
    else
        global_action(u, act);
}

/* Every key goes through here: a configuration change it makes becomes
 * one undo step (undo and redo themselves move along the history). */
static void handle_key(struct ui *u, int key)
{
    struct app_whatif before;
    app_whatif_get(&u->a, &before);
    int nu = u->a.n_undo, nr = u->a.n_redo;
    handle_key_inner(u, key);
    if (u->a.n_undo == nu && u->a.n_redo == nr)
        app_history_note(&u->a, &before);
}

static void handle_mouse(struct ui *u, const struct term_event *ev)
{
    if (u->layout.too_small)
        return;
    if (ev->mouse == TERM_MOUSE_WHEEL_UP || ev->mouse == TERM_MOUSE_WHEEL_DOWN) {
        for (int i = 0; i < 3; i++)
            handle_key(u, ev->mouse == TERM_MOUSE_WHEEL_UP ? UI_KEY_UP : UI_KEY_DOWN);
        return;
    }
    switch (ui_layout_hit(&u->layout, ev->y, ev->x)) {
    case UI_R_TABS: {
        int t = frame_tab_at(u->layout.cols, ev->x);
        if (t >= 0)
            ui_state_tab_set(&u->a.st, (enum ui_tab)t);
        break;
    }
    case UI_R_FKEYS: {
        int key = frame_fkey_at(&u->a, u->layout.cols, ev->x);
        if (key)
            handle_key(u, key);
        break;
    }
    case UI_R_BODY: {
        const struct screen_ops *s = screen_get(u->a.st.tab);
        if (s->on_click)
            handle_reaction(u, s->on_click(&u->a, u->layout.r[UI_R_BODY], ev->y, ev->x,
                                           ev->mouse == TERM_MOUSE_DOUBLE));
        break;
    }
    default: break;
    }
}

/* ================================================================== */
/* entry point                                                         */
/* ================================================================== */

static void load_script(struct ui *u)
{
    const char *path = getenv("DIPPM_SCRIPT");
    char *text;
    size_t len;
    if (!path || !*path)
        return;
    struct diag d = {0};
    if (file_read_all(path, 1 << 20, &text, &len, &d)) {
        ui_state_message(&u->a.st, true, "DIPPM_SCRIPT: %s", d.msg);
        return;
    }
    /* newlines separate lines of the script file; keys are spelled out */
    for (char *p = text; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = '\x01';
    char *w = text;
    for (char *p = text; *p; p++)
        if (*p != '\x01')
            *w++ = *p;
    *w = 0;
    int bad = 0;
    u->n_script = keymap_parse_script(text, u->script, SCRIPT_MAX, &bad);
    if (u->n_script < 0) {
        ui_state_message(&u->a.st, true, "DIPPM_SCRIPT %s: unknown key name at byte %d", path, bad);
        u->n_script = 0;
    }
    free(text);
}

int ui_main(const char *model)
{
    struct ui_opts o = {model, NULL, false};
    return ui_main_opts(&o);
}

int ui_main_opts(const struct ui_opts *o)
{
    setlocale(LC_ALL, "");
    struct ui *u = xcalloc(1, sizeof *u);
    struct diag d = {0};
    int rc = 0;
    /* a session names its own model: read it first so a missing or broken
     * file is reported before the terminal is taken */
    struct prefs pf;
    if (prefs_load(&pf, &d) || app_init(&u->a, o->model, &d) ||
        (!o->session && prefs_apply(&u->a, &pf, &d)) ||
        (o->session && session_load(&u->a, o->session, &d))) {
        fprintf(stderr, "dippm: %s\n", d.msg);
        rc = status_exit_code(d.code);
        goto out;
    }
    u->headless = getenv("DIPPM_NO_DISPLAY") && *getenv("DIPPM_NO_DISPLAY");
    bool ascii = getenv("DIPPM_ASCII") && *getenv("DIPPM_ASCII");
    if (u->headless) {
        const char *r = getenv("DIPPM_ROWS"), *c = getenv("DIPPM_COLS");
        u->hl_rows = r ? atoi(r) : 30;
        u->hl_cols = c ? atoi(c) : 100;
        if (u->hl_rows < 1 || u->hl_rows > 1000 || u->hl_cols < 1 || u->hl_cols > 1000) {
            fprintf(stderr, "dippm: DIPPM_ROWS/DIPPM_COLS must be 1..1000\n");
            rc = 2;
            goto out;
        }
        draw_canvas_init(&u->canvas, u->hl_rows, u->hl_cols, !ascii);
    } else {
        u->term = term_open(ascii, !pf.mono, &d);
        if (!u->term) {
            fprintf(stderr, "dippm: %s\n", d.msg);
            rc = 2;
            goto out;
        }
        int rows, cols;
        term_size(u->term, &rows, &cols);
        draw_canvas_init(&u->canvas, rows, cols, term_utf8(u->term));
    }
    if (!u->a.st.status[0] && u->a.have_pred)
        ui_state_message(&u->a.st, false, "%s in %.1f ms.  F1 help  : commands  + - batch%s",
                         app_teacher_only(&u->a) ? "teacher estimate (no GNN weights)"
                                                 : "GNN prediction",
                         u->a.recompute_ms, u->headless ? "" : "  q quit");
    load_script(u);
    prompt_init();
    if (o->tour)
        tour_start(&u->tour, &u->a);
    u->shown_tab = u->a.st.tab;
    app_update_mig(&u->a);
    render(u);
    struct term_event ev;
    while (!u->a.st.quit && next_event(u, &ev)) {
        if (u->term && term_quit_requested()) {
            if (u->a.st.input != UI_INPUT_NONE && term_interrupt_take()) {
                ev.key = UI_KEY_CTRL('c'); /* cancels the search or filter line */
            } else {
                rc = 128 + term_quit_signal(); /* 130 SIGINT, 143 SIGTERM, 129 SIGHUP */
                break;
            }
        }
        if (ev.key == UI_KEY_MOUSE) {
            struct app_whatif before;
            app_whatif_get(&u->a, &before);
            int nu = u->a.n_undo, nr = u->a.n_redo;
            handle_mouse(u, &ev);
            if (u->a.n_undo == nu && u->a.n_redo == nr)
                app_history_note(&u->a, &before);
        }
        else if (ev.key != UI_KEY_RESIZE)
            handle_key(u, ev.key);
        if (u->a.st.tab != u->shown_tab) {
            const struct screen_ops *old = screen_get(u->shown_tab), *now = screen_get(u->a.st.tab);
            if (old->leave)
                old->leave(&u->a);
            if (now->enter)
                now->enter(&u->a);
            u->shown_tab = u->a.st.tab;
        }
        if (!u->a.st.quit)
            render(u);
        /* the MIG advice (one prediction per slice) after the redraw, unless
         * more keys are already waiting: a held key stays responsive */
        if (u->a.mig_stale && !u->a.st.quit && (!u->term || !term_input_pending(u->term))) {
            app_update_mig(&u->a);
            render(u);
        }
    }
    /* a key script is not the user typing: keep it out of the history */
    prompt_fini(!u->headless && u->n_script == 0);
out:
    term_close(u->term);
    draw_canvas_fini(&u->canvas);
    app_fini(&u->a);
    free(u);
    return rc;
}
