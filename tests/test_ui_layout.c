/* test_ui_layout.c - the pure layout function: regions never overlap, stay
 * inside the screen, the F-key bar is always the last line, the side pane
 * appears only when wide, and hit-testing agrees with the rectangles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ui/layout.h"

static const int sizes[][2] = {{24, 80}, {30, 100}, {12, 40}, {13, 41}, {19, 80}, {20, 80},
                               {60, 200}, {150, 500}, {50, 149}, {50, 150}, {1000, 1000}};

static bool overlap(struct ui_rect a, struct ui_rect b)
{
    if (a.w <= 0 || a.h <= 0 || b.w <= 0 || b.h <= 0)
        return false;
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

static void test_no_overlap_and_inside(void **state)
{
    (void)state;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (int side = 0; side < 2; side++) {
            struct ui_layout l;
            struct ui_layout_opts o = {.side_pane = side};
            int rows = sizes[s][0], cols = sizes[s][1];
            ui_layout_compute(rows, cols, &o, &l);
            assert_false(l.too_small);
            for (int i = 0; i < UI_R__COUNT; i++) {
                struct ui_rect r = l.r[i];
                if (r.w == 0 || r.h == 0)
                    continue;
                assert_true(r.x >= 0 && r.y >= 0);
                assert_true(r.x + r.w <= cols);
                assert_true(r.y + r.h <= rows);
                for (int j = i + 1; j < UI_R__COUNT; j++)
                    assert_false(overlap(r, l.r[j]));
            }
            /* every cell of the screen belongs to exactly one region */
            int covered = 0;
            for (int i = 0; i < UI_R__COUNT; i++)
                covered += l.r[i].w * l.r[i].h;
            assert_int_equal(covered, rows * cols);
            assert_int_equal(l.r[UI_R_FKEYS].y, rows - 1);
            assert_int_equal(l.r[UI_R_FKEYS].h, 1);
            assert_int_equal(l.r[UI_R_STATUS].y, rows - 2);
            assert_true(l.r[UI_R_BODY].h >= 1);
            assert_int_equal(l.r[UI_R_HEADER].y, 0);
            bool want_side = side && cols >= UI_SIDE_MIN_COLS;
            assert_int_equal(l.r[UI_R_SIDE].w > 0, want_side);
        }
    }
}

static void test_80x24_body(void **state)
{
    (void)state;
    struct ui_layout l;
    ui_layout_compute(24, 80, NULL, &l);
    /* header 2 + predictions 3 + tabs 1 + status 1 + F-keys 1 = 8 lines */
    assert_int_equal(l.r[UI_R_BODY].h, 16);
    assert_int_equal(l.r[UI_R_BODY].w, 80);
    assert_int_equal(l.r[UI_R_PRED].h, 3);
    ui_layout_compute(19, 80, NULL, &l);
    assert_int_equal(l.r[UI_R_PRED].h, 2); /* short terminal: MIG folds into the memory line */
}

static void test_too_small(void **state)
{
    (void)state;
    struct ui_layout l;
    int small[][2] = {{11, 80}, {24, 39}, {1, 1}, {0, 0}, {-3, 10}};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
        ui_layout_compute(small[i][0], small[i][1], NULL, &l);
        assert_true(l.too_small);
        assert_true(l.r[UI_R_BODY].h >= 0 && l.r[UI_R_BODY].w >= 0);
        assert_int_equal(l.r[UI_R_FKEYS].h, 0);
    }
}

static void test_hit(void **state)
{
    (void)state;
    struct ui_layout l;
    struct ui_layout_opts o = {.side_pane = true};
    ui_layout_compute(40, 160, &o, &l);
    for (int y = 0; y < 40; y++)
        for (int x = 0; x < 160; x++) {
            enum ui_region r = ui_layout_hit(&l, y, x);
            assert_int_not_equal(r, UI_R_NONE);
            assert_true(ui_rect_contains(l.r[r], y, x));
        }
    assert_int_equal(ui_layout_hit(&l, 39, 0), UI_R_FKEYS);
    assert_int_equal(ui_layout_hit(&l, 0, 0), UI_R_HEADER);
    assert_int_equal(ui_layout_hit(&l, 20, 159), UI_R_SIDE);
    assert_int_equal(ui_layout_hit(&l, 40, 0), UI_R_NONE);
    assert_int_equal(ui_layout_hit(&l, -1, 5), UI_R_NONE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_overlap_and_inside),
        cmocka_unit_test(test_80x24_body),
        cmocka_unit_test(test_too_small),
        cmocka_unit_test(test_hit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
