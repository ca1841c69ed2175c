/* test_ops.c - the flags column of graph/ir/ops.def: which ops are views and
 * which take only arguments after their first input, checked against the ONNX
 * operator definitions, and kept consistent with the cost functions (a view
 * moves no bytes: its cost function is cost_view). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "graph/ir/ops.h"
#include "graph/ops/op_infer.h"

static void test_views(void **state)
{
    (void)state;
    /* ONNX ops that only change metadata (shape) of their input */
    const char *views[] = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"};
    int n_view = 0;
    for (int op = 0; op < OP__COUNT; op++)
        n_view += op_is_view((enum op)op);
    assert_int_equal(n_view, 6);
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++)
        assert_true(op_is_view(op_lookup(views[i])));
    assert_false(op_is_view(op_lookup("Transpose")));
    assert_false(op_is_view(op_lookup("Conv")));
    assert_false(op_is_view(OP__UNKNOWN));
    /* the flag and the cost column agree */
    for (int op = 0; op < OP__COUNT; op++)
        assert_int_equal(op_is_view((enum op)op), op_impl_get((enum op)op)->cost == cost_view);
}

static void test_config_only(void **state)
{
    (void)state;
    /* ONNX: Reshape's shape, Slice's starts/ends/axes/steps, Resize's
     * roi/scales/sizes, Gather's indices are inputs after the first */
    const char *args[] = {"Reshape", "Slice", "Resize", "Gather", "Pad", "TopK", "ReduceMean",
                          "Squeeze", "Expand", "Tile", "Clip"};
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++)
        assert_true(op_is_config_only(op_lookup(args[i])));
    /* their second inputs are weights */
    const char *weights[] = {"Conv", "MatMul", "Gemm", "Add", "Mul", "LayerNormalization"};
    for (size_t i = 0; i < sizeof weights / sizeof weights[0]; i++)
        assert_false(op_is_config_only(op_lookup(weights[i])));
    assert_false(op_is_config_only(OP__UNKNOWN));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_config_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
