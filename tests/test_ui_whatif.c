/* test_ui_whatif.c - the explorer's what-if layer without curses: undo and
 * redo, all-or-none :set, sessions (round trip, refusal to overwrite, a
 * broken file named by line), per-layer deltas of the compare view, MIG
 * slice matching across GPUs, number formats, and every tour step running. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ui/app.h"
#include "ui/commands.h"
#include "util/fileio.h"
#include "ui/prompt.h"
#include "core/gpu.h"
#include "ui/session.h"
#include "ui/tour.h"

static char tiny[1024], state_dir[] = "/tmp/dippm-whatif-XXXXXX";

static int setup(void **state)
{
    const char *dir = getenv("SAMPLES_DIR");
    snprintf(tiny, sizeof tiny, "%s/tiny_cnn.json", dir ? dir : "../samples");
    if (!mkdtemp(state_dir))
        return -1;
    setenv("XDG_STATE_HOME", state_dir, 1);
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
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", state_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* One user action as ui.c wraps it: the change becomes one undo step. */
static enum status act(struct app *a, const char *line)
{
    struct app_whatif before;
    struct cmd_out out;
    struct diag d = {0};
    app_whatif_get(a, &before);
    enum status st = cmd_execute(a, line, &out, &d);
    app_history_note(a, &before);
    return st;
}

static void test_undo_redo(void **state)
{
    struct app *a = *state;
    struct diag d = {0};
    assert_int_equal(act(a, "batch 4"), ST_OK);
    assert_int_equal(act(a, "set height=64"), ST_OK);
    assert_int_equal(act(a, "precision fp16"), ST_OK);
    assert_int_equal(act(a, "batch 0"), ST_ERANGE); /* a failed change is no step */
    assert_int_equal(a->n_undo, 3);
    assert_int_equal(app_undo(a, &d), ST_OK);
    assert_int_equal(a->cfg.prec, PREC_FP32);
    assert_int_equal(app_undo(a, &d), ST_OK);
    assert_int_equal(a->g->syms[graph_sym_find(a->g, "height")].val, 32);
    assert_int_equal(a->cfg.batch, 4);
    assert_int_equal(app_redo(a, &d), ST_OK);
    assert_int_equal(a->g->syms[graph_sym_find(a->g, "height")].val, 64);
    assert_int_equal(app_undo(a, &d), ST_OK);
    assert_int_equal(app_undo(a, &d), ST_OK);
    assert_int_equal(a->cfg.batch, 1);
    assert_int_equal(app_undo(a, &d), ST_ENOTFOUND);
    assert_true(strstr(d.msg, "nothing to undo") != NULL);
    /* a new change after undo drops the redo steps */
    assert_true(a->n_redo > 0);
    assert_int_equal(act(a, "batch 2"), ST_OK);
    assert_int_equal(a->n_redo, 0);
    assert_int_equal(app_undo(a, &d), ST_OK);
    assert_int_equal(a->cfg.batch, 1);
    assert_false(app_dirty(a));
}

static void test_set_all_or_none(void **state)
{
    struct app *a = *state;
    struct cmd_out out;
    struct diag d = {0};
    int h = graph_sym_find(a->g, "height"), w = graph_sym_find(a->g, "width");
    assert_int_equal(cmd_execute(a, "set height=48 width=abc", &out, &d), ST_ERANGE);
    assert_true(strstr(d.msg, "nothing changed") != NULL);
    assert_int_equal(a->g->syms[h].val, 32);
    diag_clear(&d);
    assert_int_equal(cmd_execute(a, "set width=abc height=48", &out, &d), ST_ERANGE);
    assert_int_equal(a->g->syms[h].val, 32);
    diag_clear(&d);
    assert_int_equal(cmd_execute(a, "set height=48 width=40", &out, &d), ST_OK);
    assert_int_equal(a->g->syms[h].val, 48);
    assert_int_equal(a->g->syms[w].val, 40);
    assert_int_equal(cmd_execute(a, "set height=32 width=32", &out, &d), ST_OK);
}

static void test_sessions(void **state)
{
    struct app *a = *state;
    struct diag d = {0};
    assert_int_equal(session_path("../x", (char[64]){0}, 64, &d), ST_EUSAGE);
    diag_clear(&d);
    assert_int_equal(act(a, "batch 8"), ST_OK);
    app_pin(a);
    assert_int_equal(act(a, "gpu h100"), ST_OK);
    assert_int_equal(session_save(a, "one", false, &d), ST_OK);
    assert_false(app_dirty(a));
    /* another session may not overwrite it without force */
    a->session[0] = 0;
    assert_int_equal(session_save(a, "one", false, &d), ST_EEXIST);
    diag_clear(&d);
    assert_int_equal(session_save(a, "one", true, &d), ST_OK);
    /* change everything, then load it back */
    app_pins_clear(a);
    assert_int_equal(act(a, "batch 1"), ST_OK);
    assert_int_equal(act(a, "gpu a100"), ST_OK);
    assert_int_equal(session_load(a, "one", &d), ST_OK);
    assert_int_equal(a->cfg.batch, 8);
    assert_string_equal(gpu_get(a->cfg.gpu)->family, "H100");
    assert_int_equal(a->n_pins, 1);
    assert_int_equal(a->pins[0].cfg.batch, 8);
    assert_string_equal(gpu_get(a->pins[0].cfg.gpu)->family, "A100");
    /* a broken file: named with its line, nothing changed */
    char path[1024];
    assert_int_equal(session_path("broken", path, sizeof path, &d), ST_OK);
    const char *bad = "dippm-session 1\n[current]\nmodel x\nprecision fp7\n";
    assert_int_equal(file_write_atomic(path, bad, strlen(bad), true, &d), ST_OK);
    diag_clear(&d);
    assert_int_equal(session_load(a, "broken", &d), ST_EPARSE);
    if (!strstr(d.msg, "line 4") || !strstr(d.msg, "fp7"))
        fail_msg("broken session: %s", d.msg);
    assert_int_equal(a->cfg.batch, 8);
    assert_int_equal(session_load(a, "absent", &d), ST_ENOTFOUND);
    assert_int_equal(act(a, "gpu a100"), ST_OK);
    assert_int_equal(act(a, "batch 1"), ST_OK);
    app_pins_clear(a);
}

static void test_compare_layers(void **state)
{
    struct app *a = *state;
    app_pins_clear(a);
    assert_false(app_compare_layers(a, 1)->valid); /* no pin: nothing to compare */
    app_pin(a);
    assert_int_equal(act(a, "batch 64"), ST_OK);
    const struct app_compare *c = app_compare_layers(a, a->n_pins);
    assert_true(c->valid);
    assert_int_equal(c->n, a->g->n_nodes); /* every layer matched by name */
    for (int i = 0; i < c->n; i++) {
        assert_true(c->v[i].base_idx >= 0 && c->v[i].other_idx >= 0);
        assert_true(c->v[i].other_ms == app_node_ms(a, c->v[i].other_idx));
        if (i > 0) /* biggest change first */
            assert_true(fabs(c->v[i].other_ms - c->v[i].base_ms) <=
                        fabs(c->v[i - 1].other_ms - c->v[i - 1].base_ms));
    }
    /* batch 64 takes longer somewhere */
    assert_true(c->v[0].other_ms > c->v[0].base_ms);
    assert_int_equal(act(a, "batch 1"), ST_OK);
    app_pins_clear(a);
}

static void test_mig_match(void **state)
{
    (void)state;
    int a100 = gpu_find("a100"), h100 = gpu_find("h100"), none = -1;
    for (int i = 0; i < gpu_count(); i++)
        if (gpu_get(i)->n_mig == 0)
            none = i;
    int m = gpu_mig_find(gpu_get(a100), "3g.20gb");
    int k = app_mig_match(a100, m, h100);
    assert_true(k >= 0);
    assert_int_equal(gpu_get(h100)->mig[k].sm_sevenths, 3); /* same compute share */
    assert_int_equal(app_mig_match(a100, -1, h100), -1);
    if (none >= 0)
        assert_int_equal(app_mig_match(a100, m, none), -1);
}

static void test_tour_steps(void **state)
{
    struct app *a = *state;
    struct tour t;
    tour_start(&t, a);
    assert_true(t.active);
    assert_true(tour_step_count() >= 10);
    for (int k = 0; k < tour_step_count(); k++) {
        tour_goto(&t, a, k);
        if (strstr(t.note, "could not run"))
            fail_msg("tour step %d (%s): %s", k + 1, tour_step_title(k), t.note);
    }
    tour_stop(&t, a);
    assert_false(t.active);
    assert_string_equal(a->spec, tiny); /* the state from before the tour */
}

/* A state directory too long for the buffer gives no history path, never
 * a cut one (which names another file, in a directory made for it). */
static void test_history_path_not_cut(void **state)
{
    (void)state;
    char path[1024], xdg[1100];
    memset(xdg, 'x', sizeof xdg - 1);
    xdg[0] = '/';
    xdg[sizeof xdg - 1] = 0;
    setenv("XDG_STATE_HOME", xdg, 1);
    bool ok = prompt_history_path(path, sizeof path);
    setenv("XDG_STATE_HOME", state_dir, 1);
    assert_false(ok);
    assert_true(prompt_history_path(path, sizeof path));
    assert_non_null(strstr(path, "/dippm/history"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_undo_redo),      cmocka_unit_test(test_set_all_or_none),
        cmocka_unit_test(test_sessions),       cmocka_unit_test(test_compare_layers),
        cmocka_unit_test(test_mig_match),
        cmocka_unit_test(test_tour_steps),
        cmocka_unit_test(test_history_path_not_cut),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
