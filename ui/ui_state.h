/*
 * ui_state.h - the explorer's view state as plain data:
 * active tab, per-tab selection and scroll, sort, search and filter text,
 * the focus stack. No curses, no model pointers: the transitions below are
 * pure and unit-tested (tests/test_ui_state.c).
 */
#ifndef DIPPM_UI_STATE_H
#define DIPPM_UI_STATE_H

#include <stdbool.h>

/* X(id, title, short title) in tab-bar order. */
#define UI_TAB_LIST(X)                              \
    X(UI_TAB_LAYERS, "Layers", "Layers")            \
    X(UI_TAB_GRAPH, "Graph", "Graph")               \
    X(UI_TAB_SWEEP, "Sweep", "Sweep")               \
    X(UI_TAB_PARAMS, "Setup", "Setup")              \
    X(UI_TAB_DETAIL, "Detail", "Detail")            \
    X(UI_TAB_HELP, "Help", "Help")                  \
    X(UI_TAB_ABOUT, "About", "About")              \
    X(UI_TAB_COMPARE, "Compare", "Compare")        \
    X(UI_TAB_LOG, "Log", "Log")

enum ui_tab {
#define X(id, title, short_title) id,
    UI_TAB_LIST(X)
#undef X
    UI_TAB__COUNT
};
const char *ui_tab_title(enum ui_tab t);

/* Layer table columns, in display order: X(id, title, min width, numeric). */
#define UI_COL_LIST(X)                        \
    X(UI_COL_INDEX, "#", 4, true)             \
    X(UI_COL_NAME, "Name", 12, false)         \
    X(UI_COL_OP, "Op", 8, false)              \
    X(UI_COL_SHAPE, "Output shape", 14, false) \
    X(UI_COL_PARAMS, "Params", 7, true)       \
    X(UI_COL_MACS, "MACs", 7, true)           \
    X(UI_COL_MEM, "Memory", 9, true)          \
    X(UI_COL_SHARE, "Time share", 12, true)   \
    X(UI_COL_BOUND, "Bound", 8, false)

enum ui_col {
#define X(id, title, width, numeric) id,
    UI_COL_LIST(X)
#undef X
    UI_COL__COUNT
};
const char *ui_col_title(enum ui_col c);
int ui_col_min_width(enum ui_col c);
bool ui_col_numeric(enum ui_col c);

/* A scrolled list: selected row and first visible row. */
struct ui_list {
    int sel, top;
};

/* Moves the selection by delta within n rows and keeps it visible in a
 * window of `visible` rows. Empty lists keep sel = top = 0. */
void ui_list_move(struct ui_list *l, int delta, int n, int visible);
/* Sets the selection to row (clamped) and scrolls it into view. */
void ui_list_select(struct ui_list *l, int row, int n, int visible);
/* Re-clamps after n or visible changed (filtering, resize). */
void ui_list_clamp(struct ui_list *l, int n, int visible);

/* What the status line is being used for. */
enum ui_input {
    UI_INPUT_NONE,
    UI_INPUT_SEARCH, /* `/`: incremental, applied on every key */
    UI_INPUT_FILTER, /* `\`: applied on every key */
};

#define UI_TEXT_MAX 128
#define UI_FOCUS_MAX 8
#define UI_STATUS_MAX 512
#define UI_LOG_MAX 100

enum ui_sweep_metric {
    UI_METRIC_LATENCY, UI_METRIC_THROUGHPUT, UI_METRIC_MEMORY,
    UI_METRIC_TTFT, UI_METRIC_TOKENS, /* a decoder's generation (batch sweeps) */
    UI_METRIC_MIG, /* not a chart: the per-MIG-profile table */
    UI_METRIC__COUNT
};

struct ui_state {
    enum ui_tab tab;
    enum ui_tab focus[UI_FOCUS_MAX]; /* tabs to return to with Back */
    int n_focus;
    struct ui_list list[UI_TAB__COUNT];
    enum ui_col sort_col;
    bool sort_desc;
    int hscroll; /* layer table: columns after the name scrolled out */
    bool sort_explicit; /* a sort was chosen (else graph order) */
    char search[UI_TEXT_MAX];
    char filter[UI_TEXT_MAX];
    enum ui_input input;
    char input_saved[UI_TEXT_MAX]; /* the text before the input began (Esc restores) */
    int input_origin;              /* selection when a search began */
    int detail_node;               /* node shown in the detail tab, -1 none */
    bool collapse;                 /* graph view: repeated blocks collapsed */
    bool op_types;                 /* layers tab: the op-type view instead of the layers */
    bool show_idle;                /* layers tab: also the layers that take no time (Z) */
    struct ui_list op_list;        /* its selection and scroll */
    int follow_origin;             /* graph view: node the last p/c started from, -1 */
    int follow_dir;                /* -1 producers, +1 consumers */
    int follow;                    /* index among that node's producers/consumers */
    enum ui_sweep_metric metric;
    int heat;                      /* Sweep tab: 0 the charts, 1 + enum grid_axis a heat map */
    int heat_row, heat_col;        /* the heat map's selected cell */
    bool compare;                  /* show deltas vs the pinned configuration */
    bool quit;
    char status[UI_STATUS_MAX];
    bool status_error;
    /* every message shown in the status line, oldest first (ring) */
    char log[UI_LOG_MAX][UI_STATUS_MAX];
    bool log_error[UI_LOG_MAX];
    int log_n, log_head; /* count, index of the oldest */
};

void ui_state_init(struct ui_state *s);
/* Switches to tab t; detail, help and about push the current tab so Back
 * returns to it. */
void ui_state_tab_set(struct ui_state *s, enum ui_tab t);
/* Back: pops the focus stack (or stays). Returns true if the tab changed. */
bool ui_state_back(struct ui_state *s);
/* Next/previous tab in bar order (wraps). */
void ui_state_tab_cycle(struct ui_state *s, int dir);
/* Sort by the next/previous column (wraps); numeric columns start
 * descending (biggest first), text columns ascending. */
void ui_state_sort_cycle(struct ui_state *s, int dir);
/* Sorts by column c; choosing the current column inverts the order (from
 * graph order, # sorts by node number ascending). */
void ui_state_sort_by(struct ui_state *s, enum ui_col c);
/* False while the table is in graph (topological) order, the start-up
 * order that no column's sort indicator describes. */
bool ui_state_sorted(const struct ui_state *s);
/* The k-th logged message (0 = oldest), NULL past the end. */
const char *ui_state_log_get(const struct ui_state *s, int k, bool *error);
/* Writes an information (error = false) or error message to the status
 * line and appends it to the log. */
void ui_state_message(struct ui_state *s, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Case-insensitive match of name/op against a filter: terms separated by
 * '|' are OR-ed; each term is a substring. An empty filter matches all. */
bool ui_filter_match(const char *filter, const char *name, const char *op);
/* Case-insensitive substring test (empty needle matches). */
bool ui_str_icontains(const char *hay, const char *needle);

/* Line editing for the search/filter input: applies key to buf (printable
 * keys append, Backspace deletes one code point, Ctrl-U clears). Returns
 * true if buf changed. */
bool ui_line_edit(char *buf, int size, int key);

#endif
