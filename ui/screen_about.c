/* screen_about.c - where the figures come from: the weights (or their
 * absence), how their labels were made (the calibrated analytic teacher,
 * simulated, not measured) and their accuracy against measurements, from
 * predictor_describe, weights/accuracy.tsv (tools/accuracy_tables.py writes
 * it with weights/README.md's tables) and the weights' manifest. */
#include "ui/screen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/datafile.h"
#include "util/fileio.h"
#include "core/predict.h"
#include "ui/accuracy.h"

#define ACC_FILE "accuracy.tsv"

/* The tables of weights/accuracy.tsv the screen shows, in order. */
static const struct {
    const char *name, *title;
} tables[] = {
    {"measured", "Accuracy on measurements no fit used (MAPE, bootstrap 95% interval):"},
    {"finetune", "Fine-tuned GNN vs the teacher, each model held out in turn (MAPE):"},
    {"goals", "Calibration goals: teacher vs published rows (MAPE; LOMO: model left out):"},
};
#define N_TABLES ((int)(sizeof tables / sizeof tables[0]))

/* What the screen shows from files, read once for the weights in use (and
 * again only when other weights are loaded): the manifest beside the .dpw
 * file ("dippm-gnn.json" for "dippm-gnn.dpw", as `make weights` and
 * `dippm train` write it; without weights, the shipped weights' manifest),
 * and the shipped accuracy figures (weights/accuracy.tsv, found as the
 * other data files are). */
static struct {
    bool loaded;
    char key[1100];      /* the manifest's path, "" if there is none */
    char *manifest;      /* malloc'd, NULL when missing */
    char acc_path[1100]; /* accuracy.tsv's path, "" when not found */
    struct acc_file acc; /* empty when missing or malformed (acc_err says why) */
    char acc_err[1400];
} about;

/* about.acc read, each figure's table one the screen knows and each table
 * there; else acc_err says why and about.acc is empty. */
static void figures_load(void)
{
    acc_free(&about.acc);
    about.acc_err[0] = '\0';
    if (!datafile_find(DATAFILE_WEIGHTS, ACC_FILE, about.acc_path, sizeof about.acc_path)) {
        char where[1000];
        snprintf(about.acc_err, sizeof about.acc_err, "%s not found (searched %s)", ACC_FILE,
                 datafile_searched(DATAFILE_WEIGHTS, ACC_FILE, where, sizeof where));
        return;
    }
    if (acc_read(about.acc_path, &about.acc, about.acc_err, sizeof about.acc_err))
        return;
    int seen[N_TABLES] = {0};
    for (int i = 0; i < about.acc.n; i++) {
        int t = 0;
        while (t < N_TABLES && strcmp(tables[t].name, about.acc.fig[i].table))
            t++;
        if (t == N_TABLES) {
            snprintf(about.acc_err, sizeof about.acc_err, "%s: unknown table '%.40s'",
                     about.acc_path, about.acc.fig[i].table);
            acc_free(&about.acc);
            return;
        }
        seen[t] = 1;
    }
    for (int t = 0; t < N_TABLES; t++)
        if (!seen[t]) {
            snprintf(about.acc_err, sizeof about.acc_err, "%s: no figures of table '%s'",
                     about.acc_path, tables[t].name);
            acc_free(&about.acc);
            return;
        }
}

static void about_load(const struct predictor *p)
{
    char path[1100] = "";
    if (p) {
        snprintf(path, sizeof path, "%s", predictor_path(p));
        size_t n = strlen(path);
        if (n > 4 && !strcmp(path + n - 4, ".dpw"))
            snprintf(path + n - 4, sizeof path - (n - 4), ".json");
        else
            path[0] = '\0';
    } else {
        datafile_find(DATAFILE_WEIGHTS, "dippm-gnn.json", path, sizeof path);
    }
    if (about.loaded && !strcmp(path, about.key))
        return;
    free(about.manifest);
    about.manifest = NULL;
    about.loaded = true;
    snprintf(about.key, sizeof about.key, "%s", path);
    figures_load();
    size_t len;
    if (!path[0] || file_read_all(path, 1 << 16, &about.manifest, &len, NULL) != ST_OK)
        about.manifest = NULL;
}

/* Draws text line by line, indented. */
#define LINES_OF(text, style)                                           \
    do {                                                                \
        for (char *p_ = (text); p_ && *p_;) {                           \
            char *nl_ = strchr(p_, '\n');                               \
            if (nl_)                                                    \
                *nl_ = 0;                                               \
            LINE(style, "  %s", p_);                                    \
            if (!nl_)                                                   \
                break;                                                  \
            p_ = nl_ + 1;                                               \
        }                                                               \
    } while (0)

#define MAX_ROWS 64
#define MAX_COLS 8 /* rows, the methods, then goal and met */
#define CELL 40

/* The figures of one table as a grid of cell texts. */
struct acc_grid {
    const char *label[MAX_ROWS], *head[MAX_COLS];
    char cell[MAX_ROWS][MAX_COLS][CELL], goal[MAX_ROWS][CELL], met[MAX_ROWS][CELL];
    int nr, nc;
    bool goals;
};

/* Table `name`'s figures into g: a row per label in file order, a column
 * per method in order of appearance; a figure's MAPE with its interval
 * ("4.4% [3.1, 6.2]") or alone ("9.6%"), and where it has a goal, the goal
 * and whether the figure meets it. */
static void grid_fill(struct acc_grid *g, const char *name)
{
    memset(g, 0, sizeof *g);
    g->head[g->nc++] = "rows";
    for (int i = 0; i < about.acc.n; i++) {
        const struct acc_figure *f = &about.acc.fig[i];
        if (strcmp(f->table, name))
            continue;
        int r = 0, c = 1;
        while (r < g->nr && strcmp(g->label[r], f->label))
            r++;
        while (c < g->nc && strcmp(g->head[c], f->method))
            c++;
        if (r == MAX_ROWS || c == MAX_COLS - 2)
            continue; /* more than the screen lays out: the shipped file has fewer */
        if (r == g->nr)
            g->label[g->nr++] = f->label;
        if (c == g->nc)
            g->head[g->nc++] = f->method;
        snprintf(g->cell[r][0], CELL, "%ld", f->rows);
        if (f->low == ACC_NONE)
            snprintf(g->cell[r][c], CELL, "%.1f%%", f->mape);
        else
            snprintf(g->cell[r][c], CELL, "%.1f%% [%.1f, %.1f]", f->mape, f->low, f->high);
        if (f->goal != ACC_NONE) {
            g->goals = true;
            snprintf(g->goal[r], CELL, "<= %.0f%%", f->goal);
            snprintf(g->met[r], CELL, "%s", f->mape <= f->goal ? "yes" : "NO");
        }
    }
    if (g->goals) {
        g->head[g->nc++] = "goal";
        g->head[g->nc++] = "met";
        for (int r = 0; r < g->nr; r++) {
            memcpy(g->cell[r][g->nc - 2], g->goal[r], CELL);
            memcpy(g->cell[r][g->nc - 1], g->met[r], CELL);
        }
    }
    for (int r = 0; r < g->nr; r++)
        for (int c = 0; c < g->nc; c++)
            if (!g->cell[r][c][0])
                snprintf(g->cell[r][c], CELL, "-");
}

/* Table `name` as plain text lines ('\n'-separated, malloc'd) in aligned
 * columns under their heads. A row whose label does not fit beside its
 * cells in width columns puts the label on a line of its own, the cells
 * under it. */
static char *table_text(const char *name, int width)
{
    static struct acc_grid g;
    grid_fill(&g, name);
    int lw = 0, cw[MAX_COLS], total = 0;
    for (int r = 0; r < g.nr; r++)
        lw = (int)strlen(g.label[r]) > lw ? (int)strlen(g.label[r]) : lw;
    for (int c = 0; c < g.nc; c++) {
        cw[c] = (int)strlen(g.head[c]);
        for (int r = 0; r < g.nr; r++)
            cw[c] = (int)strlen(g.cell[r][c]) > cw[c] ? (int)strlen(g.cell[r][c]) : cw[c];
        total += cw[c] + 2;
    }
    bool beside = lw + total <= width;
    int indent = beside ? lw + 2 : 2;
    size_t cap = (size_t)(2 * g.nr + 1) * (size_t)(lw + total + 8) + 1, len = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
#define PUT(...) (len += (size_t)snprintf(out + len, cap - len, __VA_ARGS__))
    PUT("%*s", indent, "");
    for (int c = 0; c < g.nc; c++)
        PUT("%-*s%s", cw[c], g.head[c], c + 1 < g.nc ? "  " : "\n");
    for (int r = 0; r < g.nr; r++) {
        if (beside)
            PUT("%-*s  ", lw, g.label[r]);
        else
            PUT("%s\n%*s", g.label[r], indent, "");
        for (int c = 0; c < g.nc; c++)
            PUT("%-*s%s", cw[c], g.cell[r][c], c + 1 < g.nc ? "  " : "\n");
    }
#undef PUT
    return out;
}

static void draw(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    draw_clear(c, r, UI_STYLE_NORMAL);
    int y = r.y - a->st.list[UI_TAB_ABOUT].top, yend = r.y + r.h;
#define LINE(st, ...)                                                   \
    do {                                                                \
        if (y >= r.y && y < yend)                                       \
            draw_textf_words(c, y, r.x, r.w, st, __VA_ARGS__);          \
        y++;                                                            \
    } while (0)
    LINE(UI_STYLE_TITLE, "Where the numbers come from");
    if (app_teacher_only(a)) {
        LINE(UI_STYLE_WARN, "No GNN weights are loaded: every figure is the teacher's estimate.");
        int used = draw_text_wrap(c, y, r.x + 2, r.w - 2, y >= r.y ? yend - y : 0, UI_STYLE_DIM,
                                  a->weights_note);
        y += used ? used : 1;
    } else {
        LINE(UI_STYLE_GOOD, "GNN weights:");
        int used = draw_text_wrap(c, y, r.x + 2, r.w - 2, y >= r.y ? yend - y : 0, UI_STYLE_NORMAL,
                                  a->weights_note);
        y += used ? used : 1;
    }
    LINE(UI_STYLE_NORMAL, " ");
    LINE(UI_STYLE_NORMAL, "Labels: the GNN is trained on labels simulated by the teacher, an analytic");
    LINE(UI_STYLE_NORMAL, "GPU model (roofline with size-dependent efficiency, launch overhead, fusion,");
    LINE(UI_STYLE_NORMAL, "memory = context + weights + peak activations + workspace) whose constants");
    LINE(UI_STYLE_NORMAL, "are fitted to published measurements (A100, A100 MIG slices, H100, H200)");
    LINE(UI_STYLE_NORMAL, "and to NeuSight's measured single kernels (A100 PCIe, T4, V100). The GNN");
    LINE(UI_STYLE_NORMAL, "reproduces the teacher, so against real GPUs its error is the teacher's:");
    LINE(UI_STYLE_NORMAL, "the first table below, on measurements no fit used. Fine-tuned on measured");
    LINE(UI_STYLE_NORMAL, "rows, the GNN is no closer than the teacher on models it never saw (the");
    LINE(UI_STYLE_NORMAL, "second table), so the shipped weights are the teacher-trained ones");
    LINE(UI_STYLE_NORMAL, "(weights/README.md says why). The third: the teacher's calibration goals.");
    LINE(UI_STYLE_NORMAL, "The roofline bound beside the latency is the sum of per-layer ideal times.");
    LINE(UI_STYLE_NORMAL, " ");
    about_load(a->p);
    if (about.acc.n) {
        for (int t = 0; t < N_TABLES; t++) {
            char *text = table_text(tables[t].name, r.w - 2);
            LINE(UI_STYLE_TITLE, "%s", tables[t].title);
            LINES_OF(text, UI_STYLE_NORMAL);
            free(text);
            LINE(UI_STYLE_NORMAL, " ");
        }
        LINE(UI_STYLE_DIM, "Written by tools/accuracy_tables.py with weights/README.md's tables:");
        LINE(UI_STYLE_DIM, "  %s", about.acc_path);
    } else {
        LINE(UI_STYLE_WARN, "No accuracy figures to show:");
        int used = draw_text_wrap(c, y, r.x + 2, r.w - 2, y >= r.y ? yend - y : 0, UI_STYLE_DIM,
                                  about.acc_err);
        y += used ? used : 1;
    }
    LINE(UI_STYLE_NORMAL, " ");
    if (about.manifest) {
        LINE(UI_STYLE_TITLE, "Weights manifest: %s", about.key);
        char *m = strdup(about.manifest); /* LINES_OF cuts the text it draws into lines */
        LINES_OF(m, UI_STYLE_NORMAL);
        free(m);
    } else {
        LINE(UI_STYLE_DIM, "No weights manifest found (a .json file beside the .dpw file).");
    }
#undef LINE
}

static unsigned on_action(struct app *a, enum ui_action act, struct ui_rect r)
{
    struct ui_list *l = &a->st.list[UI_TAB_ABOUT];
    if (act == UI_ACT_UP && l->top > 0)
        l->top--;
    else if (act == UI_ACT_DOWN && l->top < 400)
        l->top++;
    else if (act == UI_ACT_HOME)
        l->top = 0;
    else
        return 0;
    return UI_HANDLED | UI_REDRAW;
}

const struct screen_ops screen_about_ops = {
    .name = "about", .draw = draw, .on_action = on_action,
};
