/* bench_ui.c - benchmark (not a test): the explorer's key-to-redraw time,
 * headless. Drives the controller the way ui/ui.c's loop does for one key
 * (keymap_lookup -> the screen's on_action, else the global meaning: for
 * + and - that is app_set_batch, which re-runs shape inference, the teacher
 * and the GNN) and then renders the whole frame into a 40x140 canvas with
 * the screens' draw functions and frame_draw, and serialises the canvas to
 * text (what a terminal flush would walk). No terminal is involved, so the
 * figure excludes curses output and the terminal's own drawing.
 * The MIG advice that ui.c computes after the redraw when no key is waiting
 * is timed separately (it is not on the key-to-redraw path). The compare
 * tab cases pin two configurations first, so every + and - recomputes the
 * per-layer deltas (matched by name) as well. Goal: <= 3 ms per key for a
 * 2,000-node model (llama 36 layers), compare view included.
 *
 *   bench_ui SAMPLES_DIR [TSV_OUT]      (OPENBLAS_NUM_THREADS=1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/app.h"
#include "bench_common.h"
#include "ui/draw.h"
#include "ui/frame.h"
#include "ui/keymap.h"
#include "ui/layout.h"
#include "ui/screen.h"
#include "util/xalloc.h"

#define ROWS 40
#define COLS 140

struct uctx {
    struct app a;
    struct ui_canvas c;
    struct ui_layout l;
    enum ui_tab shown;
    const int *keys; /* cycled */
    int n_keys, pos;
    struct diag d;
};

/* ui.c's render() without the terminal flush. */
static void render(struct uctx *u)
{
    struct ui_layout_opts o = {.side_pane = u->a.st.tab == UI_TAB_LAYERS ||
                                            u->a.st.tab == UI_TAB_GRAPH};
    ui_layout_compute(ROWS, COLS, &o, &u->l);
    draw_clear(&u->c, (struct ui_rect){0, 0, ROWS, COLS}, UI_STYLE_NORMAL);
    screen_get(u->a.st.tab)->draw(&u->a, &u->c, u->l.r[UI_R_BODY]);
    struct ui_rect side = u->l.r[UI_R_SIDE];
    if (side.w > 0) {
        draw_vline(&u->c, side.y, side.x, side.h, UI_STYLE_DIM);
        side.x += 2;
        side.w -= 2;
        screen_detail_draw_node(&u->a, u->a.st.detail_node, &u->c, side);
    }
    struct frame_input in = {0};
    frame_draw(&u->a, &u->c, &u->l, &in);
    free(draw_canvas_text(&u->c));
}

/* ui.c's handle_key for the keys used here. */
static int key(void *v)
{
    struct uctx *u = v;
    int k = u->keys[u->pos++ % u->n_keys];
    enum ui_action act = keymap_lookup(k);
    const struct screen_ops *s = screen_get(u->a.st.tab);
    unsigned f = s->on_action ? s->on_action(&u->a, act, u->l.r[UI_R_BODY]) : 0;
    if (!f) {
        if (act == UI_ACT_BATCH_UP || act == UI_ACT_BATCH_DOWN) {
            int64_t b = act == UI_ACT_BATCH_UP ? u->a.cfg.batch * 2 : u->a.cfg.batch / 2;
            if (b >= 1 && app_set_batch(&u->a, b, &u->d))
                return 1;
        } else if (act == UI_ACT_TAB_SWEEP || act == UI_ACT_TAB_LAYERS ||
                   act == UI_ACT_TAB_COMPARE) {
            ui_state_tab_set(&u->a.st, act == UI_ACT_TAB_SWEEP     ? UI_TAB_SWEEP
                                       : act == UI_ACT_TAB_COMPARE ? UI_TAB_COMPARE
                                                                   : UI_TAB_LAYERS);
        }
    }
    if (u->a.st.tab != u->shown) {
        const struct screen_ops *old = screen_get(u->shown), *now = screen_get(u->a.st.tab);
        if (old->leave)
            old->leave(&u->a);
        if (now->enter)
            now->enter(&u->a);
        u->shown = u->a.st.tab;
    }
    render(u);
    return 0;
}

static int mig(void *v)
{
    struct uctx *u = v;
    u->a.mig_stale = true;
    app_update_mig(&u->a);
    return 0;
}

static const int k_batch[] = {'+', '+', '-', '-'};
static const int k_move[] = {'j', 'j', 'j', 'k'};
static const int k_sweep_batch[] = {'+', '-'};
static const int k_compare_move[] = {'j', 'j', 'k', UI_KEY_RIGHT};

static int bench_model(FILE *tsv, const char *spec, const char *label)
{
    struct uctx *u = calloc(1, sizeof *u);
    int rc = 1;
    if (!u || !draw_canvas_init(&u->c, ROWS, COLS, true))
        goto out;
    if (app_init(&u->a, spec, &u->d)) {
        fprintf(stderr, "bench_ui: %s\n", u->d.msg);
        goto out;
    }
    u->shown = u->a.st.tab;
    render(u);
    struct {
        const char *what;
        const int *keys;
        int n;
        enum ui_tab tab;
    } cases[] = {
        {"batch +/- (layers tab)", k_batch, 4, UI_TAB_LAYERS},
        {"cursor j/k (layers tab)", k_move, 4, UI_TAB_LAYERS},
        {"batch +/- (sweep tab)", k_sweep_batch, 2, UI_TAB_SWEEP},
        {"batch +/- (compare tab, 2 pins)", k_batch, 4, UI_TAB_COMPARE},
        {"scroll/column (compare tab)", k_compare_move, 4, UI_TAB_COMPARE},
    };
    for (int i = 0; i < 5; i++) {
        if (cases[i].tab == UI_TAB_COMPARE && u->a.n_pins == 0) {
            /* two pins: this configuration and one at batch 8, fp16 */
            struct config c = u->a.cfg;
            app_pin(&u->a);
            c.prec = PREC_FP16;
            c.batch = graph_batch_sym(u->a.g) >= 0 ? 8 : 1;
            if (app_set_config(&u->a, &c, &u->d) == ST_OK)
                app_pin(&u->a);
        }
        ui_state_tab_set(&u->a.st, cases[i].tab);
        u->keys = cases[i].keys;
        u->n_keys = cases[i].n;
        u->pos = 0;
        struct bstats s;
        if (bench_run(key, u, 20, 400, 0.6, &s)) {
            fprintf(stderr, "bench_ui: %s: %s\n", label, u->d.msg);
            goto out;
        }
        char name[160];
        snprintf(name, sizeof name, "%s: %s", label, cases[i].what);
        printf("  %-46s %5d nodes ", name, u->a.g->n_nodes);
        bench_print(stdout, &s);
        putchar('\n');
        bench_tsv(tsv, "ui_key", name, u->a.g->n_nodes, &s);
    }
    struct bstats s;
    bench_run(mig, u, 5, 50, 0.5, &s);
    char name[160];
    snprintf(name, sizeof name, "%s: MIG advice after redraw", label);
    printf("  %-46s %5d nodes ", name, u->a.g->n_nodes);
    bench_print(stdout, &s);
    putchar('\n');
    bench_tsv(tsv, "ui_mig", name, u->a.g->n_nodes, &s);
    rc = 0;
out:
    if (u) {
        app_fini(&u->a);
        draw_canvas_fini(&u->c);
        free(u);
    }
    return rc;
}

int main(int argc, char **argv)
{
    xalloc_init();
    const char *samples = argc > 1 ? argv[1] : "samples";
    FILE *tsv = NULL;
    if (argc > 2 && !(tsv = fopen(argv[2], "w"))) {
        perror(argv[2]);
        return 1;
    }
    char path[1024];
    printf("explorer key-to-redraw, headless (%dx%d canvas, no terminal output)\n", ROWS, COLS);
    snprintf(path, sizeof path, "%s/resnet50.onnx", samples);
    int rc = bench_model(tsv, path, "resnet50.onnx");
    snprintf(path, sizeof path, "%s/bert_base.onnx", samples);
    rc |= bench_model(tsv, path, "bert_base.onnx");
    rc |= bench_model(tsv, "zoo:llama:layers=36", "llama 36 layers"); /* 2,013 nodes */
    if (tsv)
        fclose(tsv);
    return rc;
}
