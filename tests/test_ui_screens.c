/* test_ui_screens.c - the controller and screens without curses: live
 * what-if changes on samples/tiny_cnn.json (expected shapes and MACs worked
 * out by hand from the file), last-good-configuration on errors, sorting,
 * filtering, commands, export, the graph lanes of the skip connection, the
 * chart widget (positions worked out by hand), the strict reader of the
 * About screen's weights/accuracy.tsv, and a headless run of the whole explorer with a key script and :dump-screen. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ui/accuracy.h"
#include "ui/app.h"
#include "ui/commands.h"
#include "ui/draw.h"
#include "util/fileio.h"
#include "ui/frame.h"
#include "ui/graph_lanes.h"
#include "ui/screen.h"
#include "graph/ops/shape.h"
#include "ui/w_plot.h"
#include "ui/ui.h"
#include "gpu_targets.h"

static char tiny[1024];

static int setup(void **state)
{
    const char *dir = getenv("SAMPLES_DIR");
    snprintf(tiny, sizeof tiny, "%s/tiny_cnn.json", dir ? dir : "../samples");
    struct app *a = calloc(1, sizeof *a);
    struct diag d = {0};
    if (app_init(a, tiny, &d) != ST_OK) {
        fprintf(stderr, "app_init: %s\n", d.msg);
        app_fini(a);
        free(a);
        return -1;
    }
    *state = a;
    return 0;
}

static int teardown(void **state)
{
    app_fini(*state);
    free(*state);
    return 0;
}

static const char *out_shape(struct app *a, const char *node, char *buf)
{
    int ni = app_node_find(a, node);
    assert_true(ni >= 0);
    return shape_str(&a->g->values[a->g->nodes[ni].out[0]].shape, buf, 64);
}

static void test_what_if(void **state)
{
    struct app *a = *state;
    char b[64];
    assert_int_equal(a->g->n_nodes, 8);
    assert_true(a->have_pred);
    assert_int_equal(a->cfg.batch, 1);
    assert_string_equal(out_shape(a, "conv1", b), "[1, 16, 32, 32]");
    /* conv1: 16 out channels * 32*32 positions * 3 in channels * 3*3 kernel */
    int c1 = app_node_find(a, "conv1");
    assert_true(a->g->nodes[c1].cost.macs == 16.0 * 32 * 32 * 3 * 3 * 3);
    unsigned gen = a->gen;
    struct diag d = {0};
    assert_int_equal(app_set_batch(a, 2, &d), ST_OK);
    assert_true(a->gen > gen);
    assert_string_equal(out_shape(a, "conv1", b), "[2, 16, 32, 32]");
    assert_true(a->g->nodes[c1].cost.macs == 2 * 16.0 * 32 * 32 * 3 * 3 * 3);
    /* invalid values keep the last good configuration */
    assert_int_not_equal(app_set_batch(a, 0, &d), ST_OK);
    assert_true(strstr(d.msg, "batch") != NULL);
    assert_int_equal(a->cfg.batch, 2);
    assert_string_equal(out_shape(a, "conv1", b), "[2, 16, 32, 32]");
    diag_clear(&d);
    assert_int_equal(app_set_param(a, "height", "64", &d), ST_OK);
    assert_string_equal(out_shape(a, "relu2", b), "[2, 16, 64, 32]");
    diag_clear(&d);
    assert_int_equal(app_set_param(a, "depth", "3", &d), ST_ENOTFOUND);
    assert_true(strstr(d.msg, "height") && strstr(d.msg, "width")); /* lists the symbols */
    diag_clear(&d);
    assert_int_not_equal(app_set_param(a, "width", "abc", &d), ST_OK);
    assert_true(strstr(d.msg, "integer") != NULL);
    diag_clear(&d);
    int gpu = a->cfg.gpu;
    assert_int_equal(app_set_gpu(a, "no-such-gpu", &d), ST_ENOTFOUND);
    assert_true(strstr(d.msg, "no-such-gpu") != NULL);
    assert_int_equal(a->cfg.gpu, gpu);
    diag_clear(&d);
    assert_int_equal(app_set_gpu(a, ":3g.20gb", &d), ST_OK);
    assert_true(a->cfg.mig >= 0);
    assert_int_equal(app_set_gpu(a, ":full", &d), ST_OK);
    assert_int_equal(a->cfg.mig, -1);
}

static void test_rows(void **state)
{
    struct app *a = *state;
    struct diag d = {0};
    /* eager PyTorch at this small batch: the GPU waits for the host's
     * dispatch of the flatten view, which takes that time and is shown */
    assert_int_equal(a->cfg.rt, RT_PYTORCH);
    app_rows_update(a);
    assert_int_equal(a->n_rows, 8);
    assert_int_equal(a->n_idle_hidden, 0);
    /* an engine issues its kernels ahead of the GPU: the view takes no time
     * there and gives way until asked for */
    struct config eager = a->cfg, engine = a->cfg;
    engine.rt = RT_TENSORRT;
    assert_int_equal(app_set_config(a, &engine, &d), ST_OK);
    a->rows_dirty = true;
    app_rows_update(a);
    assert_int_equal(a->n_rows, 7);
    assert_int_equal(a->n_idle_hidden, 1);
    for (int r = 0; r < a->n_rows; r++)
        assert_true(app_node_share(a, a->rows[r]) > 0);
    a->st.show_idle = true;
    a->rows_dirty = true;
    app_rows_update(a);
    assert_int_equal(a->n_rows, 8);
    assert_int_equal(a->n_idle_hidden, 0);
    assert_string_equal(a->g->nodes[a->rows[0]].name, "conv1"); /* graph order */
    /* MACs at batch 1: conv2 16*16*9*1024 = 2359296 > conv1 442368 > fc 160 */
    ui_state_sort_by(&a->st, UI_COL_MACS);
    a->rows_dirty = true;
    app_rows_update(a);
    assert_string_equal(a->g->nodes[a->rows[0]].name, "conv2");
    assert_string_equal(a->g->nodes[a->rows[1]].name, "conv1");
    assert_string_equal(a->g->nodes[a->rows[2]].name, "fc");
    ui_state_sort_by(&a->st, UI_COL_MACS); /* inverted: smallest first, ties in graph order */
    a->rows_dirty = true;
    app_rows_update(a);
    assert_string_equal(a->g->nodes[a->rows[7]].name, "conv2");
    snprintf(a->st.filter, sizeof a->st.filter, "relu");
    a->rows_dirty = true;
    app_rows_update(a);
    assert_int_equal(a->n_rows, 2);
    snprintf(a->st.filter, sizeof a->st.filter, "conv|FC");
    a->rows_dirty = true;
    app_rows_update(a);
    assert_int_equal(a->n_rows, 3);
    a->st.filter[0] = 0;
    a->rows_dirty = true;
    app_rows_update(a);
    char b[64];
    assert_string_equal(app_cell_text(a, app_node_find(a, "conv2"), UI_COL_PARAMS, b, 64),
                        "2.32 k"); /* 16*16*9 + 16 = 2320 */
    assert_string_equal(app_cell_text(a, app_node_find(a, "fc"), UI_COL_SHAPE, b, 64), "[2,10]"); /* batch 2 from test_what_if */
    assert_int_equal(app_set_config(a, &eager, &d), ST_OK);
}

static void test_commands(void **state)
{
    struct app *a = *state;
    struct cmd_out out;
    struct diag d = {0};
    assert_int_equal(cmd_execute(a, "batch 4", &out, &d), ST_OK);
    assert_int_equal(a->cfg.batch, 4);
    assert_int_equal(cmd_execute(a, "prec fp16", &out, &d), ST_OK); /* unique prefix */
    assert_int_equal(a->cfg.prec, PREC_FP16);
    assert_int_not_equal(cmd_execute(a, "precision fp64", &out, &d), ST_OK);
    assert_int_equal(a->cfg.prec, PREC_FP16);
    diag_clear(&d);
    assert_int_not_equal(cmd_execute(a, "batch", &out, &d), ST_OK);
    assert_true(strstr(d.msg, "usage: batch N") != NULL);
    diag_clear(&d);
    assert_int_not_equal(cmd_execute(a, "frobnicate", &out, &d), ST_OK);
    assert_true(strstr(d.msg, "unknown command") != NULL);
    diag_clear(&d);
    assert_int_equal(cmd_execute(a, "set height=16 width=8", &out, &d), ST_OK);
    assert_int_equal(a->g->syms[graph_sym_find(a->g, "width")].val, 8);
    assert_int_equal(cmd_execute(a, "runtime tensorrt", &out, &d), ST_OK);
    assert_int_equal(a->cfg.rt, RT_TENSORRT);
    assert_int_equal(cmd_execute(a, "goto relu2", &out, &d), ST_OK);
    assert_int_equal(a->st.detail_node, app_node_find(a, "relu2"));
    /* unsaved what-if changes: the first :q warns, the second quits */
    assert_int_not_equal(cmd_execute(a, "q", &out, &d), ST_OK);
    assert_true(strstr(d.msg, "unsaved what-if changes") != NULL);
    assert_false(out.flags & CMD_QUIT);
    diag_clear(&d);
    assert_int_equal(cmd_execute(a, "q", &out, &d), ST_OK);
    assert_true(out.flags & CMD_QUIT);
    assert_int_not_equal(cmd_execute(a, "compare", &out, &d), ST_OK); /* nothing pinned */
    diag_clear(&d);
    assert_int_equal(cmd_execute(a, "pin", &out, &d), ST_OK);
    assert_int_equal(cmd_execute(a, "compare", &out, &d), ST_OK);
    assert_true(a->st.compare);
    /* export: atomic, refuses to overwrite without '!' */
    char path[] = "/tmp/dippm-ui-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    char line[128];
    snprintf(line, sizeof line, "export csv %s", path);
    assert_int_equal(cmd_execute(a, line, &out, &d), ST_OK);
    assert_int_equal(cmd_execute(a, line, &out, &d), ST_EEXIST);
    assert_true(strstr(d.msg, "export!") != NULL);
    diag_clear(&d);
    snprintf(line, sizeof line, "export! json %s", path);
    assert_int_equal(cmd_execute(a, line, &out, &d), ST_OK);
    char *text;
    size_t len;
    assert_int_equal(file_read_all(path, 1 << 20, &text, &len, NULL), ST_OK);
    assert_true(strstr(text, "\"name\": \"conv2\"") != NULL);
    assert_true(strstr(text, "teacher") || strstr(text, "gnn"));
    free(text);
    unlink(path);
}

static void cand(void *ctx, const char *s)
{
    int *n = ctx;
    if (!strcmp(s, "relu1") || !strcmp(s, "height=") || !strcmp(s, "fp16") ||
        !strcmp(s, "export"))
        (*n)++;
}

static void test_complete(void **state)
{
    struct app *a = *state;
    int n = 0;
    cmd_complete(a, "goto re", 5, cand, &n);
    assert_int_equal(n, 1);
    n = 0;
    cmd_complete(a, "set h", 4, cand, &n);
    assert_int_equal(n, 1);
    n = 0;
    cmd_complete(a, "precision ", 10, cand, &n);
    assert_int_equal(n, 1);
    n = 0;
    cmd_complete(a, "ex", 0, cand, &n);
    assert_int_equal(n, 1);
    n = 0;
    assert_false(cmd_complete(a, "export csv ", 11, cand, &n)); /* a file name */
}

/* :quant parses as --quant does, brings the scheme's activation precision,
 * and the precision then refuses what the scheme's activations do not run
 * in; a refused change leaves the configuration as it was. */
static void test_quant(void **state)
{
    struct app *a = *state;
    struct config keep = a->cfg, c = a->cfg;
    struct cmd_out out;
    struct diag d = {0};
    c.prec = PREC_FP32;
    c.rt = RT_PYTORCH;
    assert_int_equal(app_set_config(a, &c, &d), ST_OK);
    assert_int_equal(cmd_execute(a, "quant w4a16", &out, &d), ST_OK);
    assert_int_equal(a->cfg.quant.scheme, QUANT_W4A16);
    assert_int_equal(a->cfg.quant.group, 128);
    assert_int_equal(a->cfg.prec, PREC_FP16);
    assert_non_null(strstr(a->st.status, "quant w4a16:g128: precision fp16"));
    char want[512];
    snprintf(want, sizeof want, "quant 'w9': unknown scheme 'w9'; expected %s", quant_forms());
    assert_int_equal(cmd_execute(a, "quant w9", &out, &d), ST_EUSAGE);
    assert_string_equal(d.msg, want);
    diag_clear(&d);
    assert_int_not_equal(cmd_execute(a, "quant w4a16:g7", &out, &d), ST_OK);
    assert_non_null(strstr(d.msg, "w4a16 takes [:gN|:row], not 'g7'"));
    diag_clear(&d);
    assert_int_not_equal(cmd_execute(a, "precision fp32", &out, &d), ST_OK);
    assert_string_equal(d.msg, "quant w4a16:g128 runs its activations in fp16 or bf16, not "
                               "precision fp32 (:quant none clears the scheme)");
    diag_clear(&d);
    assert_int_equal(a->cfg.prec, PREC_FP16);
    assert_int_equal(cmd_execute(a, "precision bf16", &out, &d), ST_OK);
    /* int8 activations: eager PyTorch has no int8 path, so nothing changes */
    assert_int_not_equal(cmd_execute(a, "quant w8a8:dynamic", &out, &d), ST_OK);
    diag_clear(&d);
    assert_int_equal(a->cfg.quant.scheme, QUANT_W4A16);
    assert_int_equal(a->cfg.prec, PREC_BF16);
    assert_int_equal(cmd_execute(a, "quant none", &out, &d), ST_OK);
    assert_int_equal(a->cfg.quant.scheme, QUANT_NONE);
    assert_int_equal(a->cfg.prec, PREC_BF16);
    /* "q" stays vi's quit beside quant; "qu" could be either */
    assert_int_not_equal(cmd_execute(a, "qu", &out, &d), ST_OK);
    assert_string_equal(d.msg, "ambiguous command 'qu': quant, quit");
    diag_clear(&d);
    assert_int_equal(app_set_config(a, &keep, &d), ST_OK);
}

static void test_graph_lanes(void **state)
{
    struct app *a = *state;
    struct graph_rows gr;
    graph_rows_build(a->g, false, &gr);
    assert_int_equal(gr.n, 8);
    struct ui_canvas c;
    draw_canvas_init(&c, 1, 8, true);
    char text[64];
    /* relu1's output feeds conv2 and the residual add: conv2 branches off
     * into a new lane, add merges that lane back */
    int conv2 = gr.row_of_node[app_node_find(a, "conv2")];
    int add = gr.row_of_node[app_node_find(a, "add")];
    for (int k = 0; k < 3; k++)
        draw_put_glyph(&c, 0, k, gr.rows[conv2].glyph[k], UI_STYLE_NORMAL);
    assert_string_equal(draw_row_text(&c, 0, text, sizeof text), "\u251c\u2500\u25cf");
    for (int k = 0; k < 3; k++)
        draw_put_glyph(&c, 0, k, gr.rows[add].glyph[k], UI_STYLE_NORMAL);
    assert_string_equal(draw_row_text(&c, 0, text, sizeof text), "\u25cf\u2500\u2518");
    graph_rows_fini(&gr);
    /* collapsed: conv2, add, relu2 share block "body" -> one row */
    graph_rows_build(a->g, true, &gr);
    assert_int_equal(gr.n, 6);
    assert_int_equal(gr.rows[gr.row_of_node[app_node_find(a, "add")]].n_nodes, 3);
    graph_rows_fini(&gr);
    draw_canvas_fini(&c);
}

static const char *row_glyphs(const struct graph_rows *gr, int row, int n, char *buf, int size)
{
    struct ui_canvas c;
    draw_canvas_init(&c, 1, n, true);
    for (int k = 0; k < n; k++)
        draw_put_glyph(&c, 0, k, gr->rows[row].glyph[k], UI_STYLE_NORMAL);
    draw_row_text(&c, 0, buf, size);
    draw_canvas_fini(&c);
    return buf;
}

/* A three-way merge draws ┴ where it passes a lane that ends on the same
 * row; a Constant gets no row (it is folded into its user's) and no lane. */
static void test_graph_lanes_merge(void **state)
{
    (void)state;
    struct graph *g = graph_new("merge");
    struct dim dm[2] = {{1, -1}, {4, -1}};
    int x = graph_value_get(g, "x");
    graph_value_set_type(g, x, DT_FLOAT, 2, dm);
    graph_input_add(g, x);
    const char *xin[] = {"x"}, *ka[] = {"k"};
    const char *a_out[] = {"a"}, *b_out[] = {"b"}, *c_out[] = {"c"}, *k_out[] = {"k"};
    int kn = graph_node_add_named(g, OP_Constant, "k", NULL, 0, k_out, 1);
    double one = 1;
    struct tconst t = {.dt = DT_FLOAT, .n = 1, .f64 = &one};
    graph_attr_tensor(g, kn, "value", &t);
    graph_node_add_named(g, OP_Relu, "ra", xin, 1, a_out, 1);
    graph_node_add_named(g, OP_Relu, "rb", xin, 1, b_out, 1);
    graph_node_add_named(g, OP_Relu, "rc", xin, 1, c_out, 1);
    const char *cat_in[] = {"a", "b", "c"}, *cat_out[] = {"y"}, *add_in[] = {"y", "k"},
               *add_out[] = {"z"};
    int cn = graph_node_add_named(g, OP_Concat, "cat", cat_in, 3, cat_out, 1);
    graph_attr_int(g, cn, "axis", 1);
    graph_node_add_named(g, OP_Add, "add", add_in, 2, add_out, 1);
    graph_output_add(g, graph_value_get(g, "z"));
    struct diag d = {0};
    assert_int_equal(graph_finalize(g, &d), ST_OK);
    struct graph_rows gr;
    graph_rows_build(g, false, &gr);
    char buf[64];
    int ni_k = -1, ni_cat = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        if (!strcmp(g->nodes[i].name, "k"))
            ni_k = i;
        if (!strcmp(g->nodes[i].name, "cat"))
            ni_cat = i;
    }
    assert_string_equal(row_glyphs(&gr, gr.row_of_node[ni_cat], 5, buf, sizeof buf),
                        "\u25cf\u2500\u2534\u2500\u2518");
    /* the Constant: no row of its own (the Add's row, the last), no lane */
    int ni_add = -1;
    for (int i = 0; i < g->n_nodes; i++)
        if (!strcmp(g->nodes[i].name, "add"))
            ni_add = i;
    assert_int_equal(gr.n_hidden, 1);
    assert_int_equal(gr.n, g->n_nodes - 1);
    assert_int_equal(gr.row_of_node[ni_k], gr.row_of_node[ni_add]);
    assert_true(gr.lanes_used <= 3);
    graph_rows_fini(&gr);
    graph_free(g);
    (void)ka;
}

static bool canvas_has(const struct ui_canvas *c, const char *s)
{
    char *t = draw_canvas_text(c);
    bool r = strstr(t, s) != NULL;
    free(t);
    return r;
}

static void test_screens_draw(void **state)
{
    struct app *a = *state;
    struct ui_canvas c;
    struct ui_rect r = {0, 0, 20, 100};
    draw_canvas_init(&c, 20, 100, false); /* ASCII fallback */
    for (int t = 0; t < UI_TAB__COUNT; t++) {
        a->st.detail_node = app_node_find(a, "conv1");
        draw_clear(&c, r, UI_STYLE_NORMAL);
        screen_get((enum ui_tab)t)->draw(a, &c, r);
        for (int y = 0; y < c.rows; y++)
            for (int x = 0; x < c.cols; x++)
                assert_true(c.cells[y * c.cols + x].ch < 127); /* ASCII only */
    }
    draw_clear(&c, r, UI_STYLE_NORMAL);
    screen_get(UI_TAB_LAYERS)->draw(a, &c, r);
    assert_true(canvas_has(&c, "conv1"));
    /* a long op name is cut in the middle, keeping both ends */
    assert_true(canvas_has(&c, "GlobalAveragePool") ||
                (canvas_has(&c, "Glob") && canvas_has(&c, "Pool")));
    draw_clear(&c, r, UI_STYLE_NORMAL);
    a->st.detail_node = app_node_find(a, "conv1"); /* the table drives the current node */
    screen_get(UI_TAB_DETAIL)->draw(a, &c, r);
    /* conv1 at the configuration of the earlier tests: the formula shows
     * its factors: N, Cout=16, H, W, Cin=3, groups=1, kH=kW=3 */
    assert_true(canvas_has(&c, "MACs = N*Cout*Hout*Wout*(Cin/groups)*kH*kW"));
    assert_true(canvas_has(&c, "*16*") && canvas_has(&c, "(3/1)*3*3"));
    assert_true(canvas_has(&c, "intensity"));
    draw_clear(&c, r, UI_STYLE_NORMAL);
    screen_get(UI_TAB_HELP)->draw(a, &c, r);
    assert_true(canvas_has(&c, "F10, q"));
    assert_true(canvas_has(&c, "Quit the explorer"));
    draw_canvas_fini(&c);
}

/* Mouse: header clicks sort, row clicks select, double clicks open the
 * detail; tab-bar and F-key-bar columns map to tabs and keys. */
static void test_mouse(void **state)
{
    struct app *a = *state;
    struct ui_rect r = {7, 0, 16, 100};
    a->st.filter[0] = 0;
    a->st.sort_col = UI_COL_INDEX;
    a->st.sort_desc = false;
    a->rows_dirty = true;
    ui_state_tab_set(&a->st, UI_TAB_LAYERS);
    const struct screen_ops *s = screen_get(UI_TAB_LAYERS);
    struct ui_canvas c;
    draw_canvas_init(&c, 30, 100, true);
    s->draw(a, &c, r);
    /* find the MACs header cell on the canvas and click it */
    char row[512];
    draw_row_text(&c, r.y, row, sizeof row);
    const char *m = strstr(row, "MACs");
    assert_non_null(m);
    int x = draw_strwidth(row) - draw_strwidth(m);
    assert_true(s->on_click(a, r, r.y, x, false) & UI_HANDLED);
    assert_int_equal(a->st.sort_col, UI_COL_MACS);
    assert_true(a->st.sort_desc);
    s->on_click(a, r, r.y, x, false);
    assert_false(a->st.sort_desc); /* again: inverted */
    a->rows_dirty = true;
    app_rows_update(a);
    assert_true(s->on_click(a, r, r.y + 2, 5, false) & UI_HANDLED); /* second data row */
    assert_int_equal(a->st.list[UI_TAB_LAYERS].sel, 1);
    assert_int_equal(a->st.detail_node, a->rows[1]);
    s->on_click(a, r, r.y + 3, 5, true);
    assert_int_equal(a->st.tab, UI_TAB_DETAIL);
    assert_int_equal(a->st.detail_node, a->rows[2]);
    assert_int_equal(s->on_click(a, r, r.y + 15, 5, false), 0); /* past the last row */
    ui_state_back(&a->st);
    /* tab bar " 1 Layers   2 Graph ..." and F-key bar "F1Help   F2Setup ..." */
    assert_int_equal(frame_tab_at(100, 1), UI_TAB_LAYERS);
    assert_int_equal(frame_tab_at(100, 13), UI_TAB_GRAPH);
    assert_int_equal(frame_tab_at(100, 99), -1);
    assert_int_equal(frame_fkey_at(a, 100, 0), UI_KEY_F1);
    assert_int_equal(frame_fkey_at(a, 100, 10), UI_KEY_F2);
    assert_int_equal(frame_fkey_at(a, 100, 99), 0);
    draw_canvas_fini(&c);
}

static void test_headless_run(void **state)
{
    (void)state;
    char keys[] = "/tmp/dippm-ui-keys-XXXXXX", dump[] = "/tmp/dippm-ui-dump-XXXXXX";
    int fd = mkstemp(keys), fd2 = mkstemp(dump);
    assert_true(fd >= 0 && fd2 >= 0);
    close(fd2);
    char script[512];
    /* mkstemp made the file: plain dump-screen refuses, dump-screen! writes */
    int n = snprintf(script, sizeof script,
                     "++<F6>:dump-screen %s<Enter>:dump-screen! %s<Enter>q", dump, dump);
    assert_int_equal(write(fd, script, (size_t)n), n);
    close(fd);
    setenv("DIPPM_NO_DISPLAY", "1", 1);
    setenv("DIPPM_SCRIPT", keys, 1);
    setenv("DIPPM_COLS", "80", 1);
    setenv("DIPPM_ROWS", "24", 1);
    char state_dir[] = "/tmp/dippm-ui-state-XXXXXX";
    assert_non_null(mkdtemp(state_dir));
    setenv("XDG_STATE_HOME", state_dir, 1);
    assert_int_equal(ui_main(tiny), 0);
    /* a key script is not the user typing: no history file written */
    char hist[600];
    snprintf(hist, sizeof hist, "%s/dippm/history", state_dir);
    assert_false(file_exists(hist));
    snprintf(hist, sizeof hist, "%s/dippm", state_dir);
    rmdir(hist);
    rmdir(state_dir);
    char *text;
    size_t len;
    assert_int_equal(file_read_all(dump, 1 << 20, &text, &len, NULL), ST_OK);
    assert_true(strstr(text, "batch 4") != NULL);       /* two doublings */
    assert_true(strstr(text, "[4,16,32,32]") != NULL);  /* shapes follow */
    assert_true(strstr(text, "F10Quit") != NULL);       /* F-key bar at 80x24 */
    assert_true(strstr(text, "Name\u25b2") || strstr(text, "Name^")); /* F6: sorted by name */
    free(text);
    unlink(keys);
    unlink(dump);
}

/* The canvas records a text cut inside a word or number (the layout
 * tests' DIPPM_CUTS), not a cut at a space nor the deliberate cuts with an
 * ellipsis, and forgets a cut that is cleared away. */
static void test_cut_record(void **state)
{
    (void)state;
    struct ui_canvas c;
    assert_true(draw_canvas_init(&c, 3, 20, true));
    draw_text(&c, 0, 0, 8, UI_STYLE_NORMAL, "latency 12.5 ms"); /* "latency |12.5": a space */
    assert_int_equal(c.n_cuts, 0);
    draw_text(&c, 0, 0, 10, UI_STYLE_NORMAL, "latency 12.5 ms"); /* "latency 12|.5" */
    assert_int_equal(c.n_cuts, 1);
    assert_int_equal(c.cuts[0].y, 0);
    assert_string_equal(c.cuts[0].text, "latency 12|.5 ms");
    draw_text(&c, 1, 15, 10, UI_STYLE_NORMAL, "memory 3 GiB"); /* the canvas edge cuts */
    assert_int_equal(c.n_cuts, 2);
    draw_text_words(&c, 2, 0, 10, UI_STYLE_NORMAL, "latency 12.5 ms");
    draw_text_mid(&c, 2, 10, 8, UI_STYLE_NORMAL, "layer1.0.conv1");
    assert_int_equal(c.n_cuts, 2);
    draw_clear(&c, (struct ui_rect){0, 0, 1, 20}, UI_STYLE_NORMAL);
    assert_int_equal(c.n_cuts, 1);
    assert_int_equal(c.cuts[0].y, 1);
    draw_canvas_fini(&c);
}

/* The chart widget on a 12 x 40 ASCII canvas: batch 1..8 on a log x axis,
 * 10..80 on a linear y axis from 0 (ymin hint). Positions worked out by
 * hand from the layout: y labels 2 wide ("84" = 80 + 5% headroom), plot
 * area from column 3, 37 wide, rows 1..9 under the title; a point at
 * column 3 + round(log(x)/log(8) * 36), row 9 - round(y / 84 * 8). */
static void test_plot(void **state)
{
    (void)state;
    static const double xs[4] = {1, 2, 4, 8}, ys[4] = {10, 20, 40, 80};
    struct w_plot p = {.title = "T", .logx = true, .xmark = NAN, .ymin_hint = 0, .n_series = 1};
    p.series[0] = (struct w_plot_series){.x = xs, .y = ys, .n = 4, .mark = 'x',
                                         .style = UI_STYLE_VALUE};
    struct ui_canvas c;
    assert_true(draw_canvas_init(&c, 12, 40, false));
    w_plot_draw(&p, &c, (struct ui_rect){0, 0, 12, 40});
    assert_int_equal(draw_cell(&c, 0, 0)->ch, 'T');
    assert_int_equal(draw_cell(&c, 1, 0)->ch, '8');
    assert_int_equal(draw_cell(&c, 1, 1)->ch, '4');
    assert_int_equal(draw_cell(&c, 5, 0)->ch, '4');
    assert_int_equal(draw_cell(&c, 5, 1)->ch, '2');
    assert_int_equal(draw_cell(&c, 9, 1)->ch, '0');
    for (int y = 1; y <= 9; y++)
        assert_int_equal(draw_cell(&c, y, 2)->ch, '|');
    assert_int_equal(draw_cell(&c, 10, 2)->ch, '+');
    assert_int_equal(draw_cell(&c, 10, 3)->ch, '-');
    assert_int_equal(draw_cell(&c, 10, 39)->ch, '-');
    static const int row[4] = {8, 7, 5, 1}, col[4] = {3, 15, 27, 39};
    static const char tick[4] = {'1', '2', '4', '8'};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(draw_cell(&c, row[i], col[i])->ch, 'x');
        assert_int_equal(draw_cell(&c, 11, col[i])->ch, tick[i]);
    }
    int marks = 0;
    for (int y = 0; y < 12; y++)
        for (int x = 0; x < 40; x++)
            marks += draw_cell(&c, y, x)->ch == 'x';
    assert_int_equal(marks, 4);
    /* no valid point, and a rectangle too small for axes */
    p.series[0].n = 0;
    w_plot_draw(&p, &c, (struct ui_rect){0, 0, 12, 40});
    char *t = draw_canvas_text(&c);
    assert_non_null(strstr(t, "(no data)"));
    free(t);
    p.series[0].n = 4;
    w_plot_draw(&p, &c, (struct ui_rect){0, 0, 12, 20});
    t = draw_canvas_text(&c);
    assert_non_null(strstr(t, "(too small")); /* clipped to the 20 columns */
    free(t);
    draw_canvas_fini(&c);
}

/* :gpu on every row of tests/data/gpu-targets.tsv: the GPU and slice, or the
 * whole message, the core parser gives (test_gpu) and --gpu (cli/gpu_targets.sh). */
static void test_gpu_targets(void **state)
{
    struct app *a = *state;
    struct gpu_target_row rows[GPU_TARGETS_MAX];
    int n = gpu_targets_load(rows, GPU_TARGETS_MAX);
    assert_true(n >= 15);
    struct config saved = a->cfg;
    struct cmd_out out;
    struct diag d = {0};
    assert_int_equal(cmd_execute(a, "precision fp32", &out, &d), ST_OK);
    for (int i = 0; i < n; i++) {
        const struct gpu_target_row *r = &rows[i];
        char cmd[128];
        snprintf(cmd, sizeof cmd, "gpu %s", r->spec);
        assert_int_equal(cmd_execute(a, "gpu a100:full", &out, &d), ST_OK);
        enum status st = cmd_execute(a, cmd, &out, &d);
        if (!strcmp(r->gpu, "error")) {
            assert_int_equal(st, ST_ENOTFOUND);
            assert_string_equal(d.msg, r->profile);
            assert_string_equal(gpu_get(a->cfg.gpu)->name, "A100-SXM4-40GB"); /* kept */
            assert_int_equal(a->cfg.mig, -1);
            diag_clear(&d);
            continue;
        }
        assert_int_equal(st, ST_OK);
        assert_string_equal(gpu_get(a->cfg.gpu)->name, r->gpu);
        if (!strcmp(r->profile, "-") || !strcmp(r->profile, "full"))
            assert_int_equal(a->cfg.mig, -1);
        else
            assert_string_equal(gpu_get(a->cfg.gpu)->mig[a->cfg.mig].name, r->profile);
    }
    assert_int_equal(app_set_config(a, &saved, &d), ST_OK);
}

/* acc_read on text written here: a good file's figures field by field, and
 * each kind of malformed file refused with its line and field named. */
static void test_accuracy_read(void **state)
{
    (void)state;
    char path[] = "/tmp/dippm-acc-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    const char *head = "# comment\ntable\tlabel\tmethod\trows\tmape\tlow\thigh\tgoal\n";
    struct acc_file f;
    char err[512], text[1024];
    snprintf(text, sizeof text, "%s%s", head,
             "measured\tNeuSight rows\tdippm\t40\t4.4\t3.1\t6.2\t-\n"
             "goals\tlatency\tLOMO\t446\t9.6\t-\t-\t15.0\n");
    assert_int_equal(file_write_atomic(path, text, strlen(text), true, NULL), ST_OK);
    assert_int_equal(acc_read(path, &f, err, sizeof err), 0);
    assert_int_equal(f.n, 2);
    assert_string_equal(f.fig[0].table, "measured");
    assert_string_equal(f.fig[0].label, "NeuSight rows");
    assert_string_equal(f.fig[0].method, "dippm");
    assert_int_equal(f.fig[0].rows, 40);
    assert_true(f.fig[0].mape == 4.4 && f.fig[0].low == 3.1 && f.fig[0].high == 6.2);
    assert_true(f.fig[0].goal == ACC_NONE);
    assert_true(f.fig[1].low == ACC_NONE && f.fig[1].high == ACC_NONE && f.fig[1].goal == 15.0);
    acc_free(&f);
    static const struct {
        const char *body, *says;
    } bad[] = {
        {"m\tl\tdippm\t40\t4.4\t3.1\t6.2\n", ":3: 7 tab-separated fields, not 8"},
        {"m\tl\tdippm\t40\t4.4\t3.1\t6.2\t-\t-\n", ":3: more than 8 tab-separated fields"},
        {"m\tl\tdippm\t40\tx4.4\t3.1\t6.2\t-\n", ":3: field mape is not a percentage: 'x4.4'"},
        {"m\tl\tdippm\t40\t-\t3.1\t6.2\t-\n", ":3: field mape is not a percentage: '-'"},
        {"m\tl\tdippm\t4o\t4.4\t3.1\t6.2\t-\n", ":3: field rows is not a row count: '4o'"},
        {"m\tl\tdippm\t40\t4.4\t3.1\t-\t-\n", ":3: field high is not a percentage: '-'"},
        {"m\t\tdippm\t40\t4.4\t3.1\t6.2\t-\n", ":3: field label is empty"},
        {"", ":2: no figures"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "%s%s", head, bad[i].body);
        assert_int_equal(file_write_atomic(path, text, strlen(text), true, NULL), ST_OK);
        assert_int_equal(acc_read(path, &f, err, sizeof err), -1);
        assert_int_equal(f.n, 0);
        if (!strstr(err, bad[i].says) || strncmp(err, path, strlen(path)))
            fail_msg("case %zu: '%s' does not say '%s'", i, err, bad[i].says);
    }
    const char *nohead = "measured\tl\tdippm\t40\t4.4\t3.1\t6.2\t-\n";
    assert_int_equal(file_write_atomic(path, nohead, strlen(nohead), true, NULL), ST_OK);
    assert_int_equal(acc_read(path, &f, err, sizeof err), -1);
    assert_non_null(strstr(err, ":1: the header is not"));
    unlink(path);
    assert_int_equal(acc_read(path, &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot be read"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_what_if),      cmocka_unit_test(test_rows),
        cmocka_unit_test(test_commands),     cmocka_unit_test(test_complete),
        cmocka_unit_test(test_quant),
        cmocka_unit_test(test_graph_lanes),  cmocka_unit_test(test_graph_lanes_merge),
        cmocka_unit_test(test_plot),         cmocka_unit_test(test_cut_record),
        cmocka_unit_test(test_screens_draw), cmocka_unit_test(test_mouse),
        cmocka_unit_test(test_headless_run), cmocka_unit_test(test_gpu_targets),
        cmocka_unit_test(test_accuracy_read),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
