/* test_datafile.c - where data files are found (src/util/datafile.h): the
 * environment first, then (this test runs from the build tree) the source
 * tree named by $TOP_SRCDIR, never a place that lacks the file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/datafile.h"

static char top[4096], tmp[64];

static void clear_env(void)
{
    unsetenv("DIPPM_WEIGHTS");
    unsetenv("DIPPM_WEIGHTS_DIR");
    unsetenv("DIPPM_SAMPLES_DIR");
    unsetenv("DIPPM_CALIBRATION_DIR");
}

static int setup(void **state)
{
    (void)state;
    const char *t = getenv("TOP_SRCDIR");
    if (!t || !realpath(t, top))
        return -1;
    snprintf(tmp, sizeof tmp, "/tmp/dippm-datafile-XXXXXX");
    if (!mkdtemp(tmp))
        return -1;
    clear_env();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/%s", tmp, DATAFILE_WEIGHTS_NAME);
    remove(path);
    rmdir(tmp);
    return 0;
}

static void test_runs_uninstalled(void **state)
{
    (void)state;
    assert_true(datafile_uninstalled());
}

static void test_source_tree(void **state)
{
    (void)state;
    char buf[4096], want[4200];
    clear_env();
    assert_non_null(datafile_find(DATAFILE_WEIGHTS, DATAFILE_WEIGHTS_NAME, buf, sizeof buf));
    snprintf(want, sizeof want, "%s/weights/%s", top, DATAFILE_WEIGHTS_NAME);
    assert_string_equal(buf, want);
    assert_non_null(datafile_find(DATAFILE_CALIBRATION, DATAFILE_CALIBRATION_NAME, buf, sizeof buf));
    snprintf(want, sizeof want, "%s/tests/data/%s", top, DATAFILE_CALIBRATION_NAME);
    assert_string_equal(buf, want);
    assert_non_null(datafile_find(DATAFILE_SAMPLES, NULL, buf, sizeof buf));
    snprintf(want, sizeof want, "%s/samples", top);
    assert_string_equal(buf, want);
    assert_non_null(datafile_find(DATAFILE_SAMPLES, "resnet50.onnx", buf, sizeof buf));
    snprintf(want, sizeof want, "%s/samples/resnet50.onnx", top);
    assert_string_equal(buf, want);
}

static void test_environment_first(void **state)
{
    (void)state;
    char buf[4096], want[4200], path[128];
    clear_env();
    setenv("DIPPM_WEIGHTS_DIR", tmp, 1);
    /* the directory lacks the file: the next place is used */
    assert_non_null(datafile_find(DATAFILE_WEIGHTS, DATAFILE_WEIGHTS_NAME, buf, sizeof buf));
    snprintf(want, sizeof want, "%s/weights/%s", top, DATAFILE_WEIGHTS_NAME);
    assert_string_equal(buf, want);
    /* with the file, the environment wins */
    snprintf(path, sizeof path, "%s/%s", tmp, DATAFILE_WEIGHTS_NAME);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    assert_non_null(datafile_find(DATAFILE_WEIGHTS, DATAFILE_WEIGHTS_NAME, buf, sizeof buf));
    char canon[4096];
    assert_non_null(realpath(path, canon));
    assert_string_equal(buf, canon);
    assert_string_equal(datafile_weights(buf, sizeof buf), canon);
    /* $DIPPM_WEIGHTS names a file and is taken as given, existing or not */
    setenv("DIPPM_WEIGHTS", "/nonexistent/w.dpw", 1);
    assert_string_equal(datafile_weights(buf, sizeof buf), "/nonexistent/w.dpw");
    /* the environment of one kind does not leak into another */
    setenv("DIPPM_SAMPLES_DIR", tmp, 1);
    assert_non_null(datafile_find(DATAFILE_SAMPLES, "resnet50.onnx", buf, sizeof buf));
    snprintf(want, sizeof want, "%s/samples/resnet50.onnx", top);
    assert_string_equal(buf, want);
    clear_env();
}

static void test_missing(void **state)
{
    (void)state;
    char buf[4096];
    clear_env();
    strcpy(buf, "junk");
    assert_null(datafile_find(DATAFILE_SAMPLES, "no-such-model.onnx", buf, sizeof buf));
    assert_string_equal(buf, "");
    /* the message lists the places in search order */
    setenv("DIPPM_SAMPLES_DIR", "/env/dir", 1);
    datafile_searched(DATAFILE_SAMPLES, "x.onnx", buf, sizeof buf);
    char want[4200];
    snprintf(want, sizeof want, "/env/dir/x.onnx, %s/samples/x.onnx or ", top);
    assert_int_equal(strncmp(buf, want, strlen(want)), 0);
    assert_non_null(strstr(buf + strlen(want), "/samples/x.onnx"));
    clear_env();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_uninstalled),
        cmocka_unit_test(test_source_tree),
        cmocka_unit_test(test_environment_first),
        cmocka_unit_test(test_missing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
