/* test_ui_state.c - pure view-state transitions: list movement and
 * clamping, tabs and the focus stack, sorting, filters, line editing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ui/keymap.h"
#include "ui/ui_state.h"

static void test_list(void **state)
{
    (void)state;
    struct ui_list l = {0, 0};
    ui_list_move(&l, 1, 100, 10);
    assert_int_equal(l.sel, 1);
    assert_int_equal(l.top, 0);
    ui_list_move(&l, 15, 100, 10); /* sel 16 must be visible in 10 rows: top 7 */
    assert_int_equal(l.sel, 16);
    assert_int_equal(l.top, 7);
    ui_list_move(&l, 1000, 100, 10);
    assert_int_equal(l.sel, 99);
    assert_int_equal(l.top, 90);
    ui_list_move(&l, -1000, 100, 10);
    assert_int_equal(l.sel, 0);
    assert_int_equal(l.top, 0);
    /* the list shrinks under the selection (a filter) */
    ui_list_select(&l, 50, 100, 10);
    ui_list_clamp(&l, 5, 10);
    assert_int_equal(l.sel, 4);
    assert_int_equal(l.top, 0);
    ui_list_clamp(&l, 0, 10);
    assert_int_equal(l.sel, 0);
    /* a zero-height window still keeps the selection on screen */
    ui_list_select(&l, 3, 10, 0);
    assert_int_equal(l.top, 3);
}

static void test_tabs_and_back(void **state)
{
    (void)state;
    struct ui_state s;
    ui_state_init(&s);
    assert_int_equal(s.tab, UI_TAB_LAYERS);
    ui_state_tab_set(&s, UI_TAB_GRAPH);
    ui_state_tab_set(&s, UI_TAB_DETAIL); /* overlay: remembers the graph */
    ui_state_tab_set(&s, UI_TAB_HELP);   /* overlay on overlay: no second push */
    assert_int_equal(s.tab, UI_TAB_HELP);
    assert_true(ui_state_back(&s));
    assert_int_equal(s.tab, UI_TAB_GRAPH);
    assert_false(ui_state_back(&s)); /* a main tab: nothing to go back to */
    ui_state_tab_set(&s, UI_TAB_ABOUT);
    ui_state_tab_set(&s, UI_TAB_SWEEP); /* a main tab chosen directly clears the stack */
    assert_int_equal(s.n_focus, 0);
    ui_state_tab_cycle(&s, 1);
    assert_int_equal(s.tab, UI_TAB_PARAMS);
    ui_state_tab_set(&s, UI_TAB_LAYERS);
    ui_state_tab_cycle(&s, -1);
    assert_int_equal(s.tab, UI_TAB_COMPARE); /* wraps, skipping the Log overlay */
    assert_string_equal(ui_tab_title(UI_TAB_PARAMS), "Setup");
}

static void test_sort(void **state)
{
    (void)state;
    struct ui_state s;
    ui_state_init(&s);
    assert_int_equal(s.sort_col, UI_COL_INDEX);
    assert_false(s.sort_desc);
    ui_state_sort_cycle(&s, 1);
    assert_int_equal(s.sort_col, UI_COL_NAME);
    assert_false(s.sort_desc); /* text ascending */
    ui_state_sort_by(&s, UI_COL_MACS);
    assert_true(s.sort_desc); /* numbers biggest first */
    ui_state_sort_by(&s, UI_COL_MACS);
    assert_false(s.sort_desc); /* the same column again inverts */
    ui_state_sort_cycle(&s, -1);
    assert_int_equal(s.sort_col, UI_COL_PARAMS);
    s.sort_col = UI_COL_INDEX;
    ui_state_sort_cycle(&s, -1);
    assert_int_equal(s.sort_col, UI_COL_BOUND); /* wraps */
}

static void test_filter(void **state)
{
    (void)state;
    assert_true(ui_filter_match("", "conv1", "Conv"));
    assert_true(ui_filter_match("CONV", "layer1", "Conv"));
    assert_true(ui_filter_match("relu|gemm", "fc", "Gemm"));
    assert_true(ui_filter_match(" relu | gemm ", "r1", "Relu"));
    assert_false(ui_filter_match("relu|gemm", "conv1", "Conv"));
    /* op=TYPE: that op type exactly, not names or other ops containing it */
    assert_true(ui_filter_match("op=conv", "layer1", "Conv"));
    assert_false(ui_filter_match("op=Conv", "conv1", "ConvTranspose"));
    assert_false(ui_filter_match("op=Add", "layer1.0.add", "Pad"));
    assert_true(ui_filter_match("op=Relu|op=Add", "x", "Add"));
    assert_true(ui_filter_match("|", "x", "Y")); /* only empty terms: matches all */
    assert_true(ui_filter_match("layer1.", "layer1.0.conv1", "Conv"));
    assert_false(ui_filter_match("layer2", "layer1.0.conv1", "Conv"));
    assert_true(ui_str_icontains("Attention", "TENT"));
    assert_false(ui_str_icontains(NULL, "a"));
}

static void test_line_edit(void **state)
{
    (void)state;
    char buf[8] = "";
    assert_true(ui_line_edit(buf, sizeof buf, 'a'));
    assert_true(ui_line_edit(buf, sizeof buf, 0xE9)); /* é: 2 bytes */
    assert_string_equal(buf, "a\xc3\xa9");
    assert_true(ui_line_edit(buf, sizeof buf, UI_KEY_BACKSPACE)); /* drops the whole é */
    assert_string_equal(buf, "a");
    assert_false(ui_line_edit(buf, sizeof buf, UI_KEY_F1));
    for (int i = 0; i < 10; i++)
        ui_line_edit(buf, sizeof buf, 'x');
    assert_int_equal(strlen(buf), 7); /* never overflows */
    assert_true(ui_line_edit(buf, sizeof buf, UI_KEY_CTRL('u')));
    assert_string_equal(buf, "");
    assert_false(ui_line_edit(buf, sizeof buf, UI_KEY_BACKSPACE));
}

static void test_message(void **state)
{
    (void)state;
    struct ui_state s;
    ui_state_init(&s);
    ui_state_message(&s, true, "line1\nline2 %d", 3);
    assert_string_equal(s.status, "line1 line2 3");
    assert_true(s.status_error);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list),     cmocka_unit_test(test_tabs_and_back),
        cmocka_unit_test(test_sort),     cmocka_unit_test(test_filter),
        cmocka_unit_test(test_line_edit), cmocka_unit_test(test_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
