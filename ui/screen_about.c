/* screen_about.c - where the figures come from: the weights (or their
 * absence), how their labels were made (the calibrated analytic teacher,
 * simulated, not measured) and their accuracy against measurements, from
 * predictor_describe, the weights' manifest and the reports beside it. */
#include "ui/screen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/datafile.h"
#include "util/fileio.h"
#include "core/predict.h"
#include "ui/md_text.h"

/* The body of section `heading` ("## Summary", or the start of one) of
 * the markdown file dir/name, up to the next "## " heading: malloc'd
 * markdown, or NULL. */
static char *read_section(const char *dir, const char *name, const char *heading)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text;
    size_t len;
    if (file_read_all(path, 4 << 20, &text, &len, NULL) != ST_OK)
        return NULL;
    char *start = strstr(text, heading);
    if (!start) {
        free(text);
        return NULL;
    }
    start = strchr(start, '\n');
    char *end = start ? strstr(start, "\n## ") : NULL;
    if (end)
        *end = '\0';
    char *out = start ? strdup(start + 1) : NULL;
    free(text);
    return out;
}

/* What the screen shows from files, read once for the weights in use (and
 * again only when other weights are loaded): the manifest beside the .dpw
 * file ("dippm-gnn.json" for "dippm-gnn.dpw", as `make weights` and
 * `dippm train` write it; without weights, the shipped weights' manifest),
 * and the calibration summary and accuracy table of the reports beside it. */
static struct {
    bool loaded;
    char key[1100];                /* the manifest's path, "" if there is none */
    char dir[1100];                /* its directory */
    char *manifest, *cal, *acc, *tuned; /* malloc'd, NULL when missing */
} about;

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
    free(about.cal);
    free(about.acc);
    free(about.tuned);
    about.manifest = about.cal = about.acc = about.tuned = NULL;
    about.loaded = true;
    snprintf(about.key, sizeof about.key, "%s", path);
    size_t len;
    if (!path[0] || file_read_all(path, 1 << 16, &about.manifest, &len, NULL) != ST_OK) {
        about.manifest = NULL;
        return;
    }
    snprintf(about.dir, sizeof about.dir, "%s", path);
    char *slash = strrchr(about.dir, '/');
    if (slash)
        *slash = '\0';
    about.cal = read_section(about.dir, "calibration.md", "## Goals");
    about.acc = read_section(about.dir, "README.md", "## Accuracy on measurements");
    about.tuned = read_section(about.dir, "README.md", "### Fine-tuned on measured end-to-end rows");
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

/* A title (format and arguments) over the markdown text as plain text
 * (md_plain) drawn as LINES_OF does, or the dim note missing where there
 * is no text. */
#define SECTION(text, missing, ...)                                     \
    do {                                                                \
        char *t_ = (text) ? md_plain(text, r.w - 2) : NULL;             \
        LINE(UI_STYLE_TITLE, __VA_ARGS__);                              \
        if (t_)                                                         \
            LINES_OF(t_, UI_STYLE_NORMAL);                              \
        else                                                            \
            LINE(UI_STYLE_DIM, "%s", missing);                          \
        free(t_);                                                       \
    } while (0)

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
    LINE(UI_STYLE_NORMAL, "the first table below, on measurements no fit used. How the GNN fine-tuned");
    LINE(UI_STYLE_NORMAL, "on measured rows compares with the teacher, and why the shipped weights are");
    LINE(UI_STYLE_NORMAL, "the teacher-trained ones, follows in weights/README.md's own words.");
    LINE(UI_STYLE_NORMAL, "The roofline bound beside the latency is the sum of per-layer ideal times.");
    LINE(UI_STYLE_NORMAL, " ");
    about_load(a->p);
    if (about.manifest) {
        SECTION(about.acc, "  accuracy table not found",
                "Accuracy on measurements (%s/README.md):", about.dir);
        LINE(UI_STYLE_NORMAL, " ");
        SECTION(about.tuned, "  the fine-tuning experiment's section was not found",
                "Fine-tuned on measured end-to-end rows (%s/README.md):", about.dir);
        LINE(UI_STYLE_NORMAL, " ");
        SECTION(about.cal, "  calibration report not found",
                "Teacher vs published measurements (%s/calibration.md):", about.dir);
        LINE(UI_STYLE_NORMAL, " ");
        LINE(UI_STYLE_TITLE, "Weights manifest: %s", about.key);
        char *m = strdup(about.manifest); /* LINES_OF cuts the text it draws into lines */
        LINES_OF(m, UI_STYLE_NORMAL);
        free(m);
    } else {
        LINE(UI_STYLE_DIM, "No weights manifest found (a .json file beside the .dpw file),");
        LINE(UI_STYLE_DIM, "so there is no measured accuracy to show.");
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
