/* test_strbuf.c - the util string buffer (strbuf.h) and diag_vset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/status.h"
#include "util/strbuf.h"

static void test_grows(void **state)
{
    (void)state;
    struct strbuf b = STRBUF_INIT;
    for (int i = 0; i < 1000; i++)
        strbuf_printf(&b, "%04d,", i);
    assert_int_equal(b.len, 5000);
    assert_int_equal(strlen(b.s), 5000);
    assert_memory_equal(b.s, "0000,0001,0002,", 15);
    assert_memory_equal(b.s + 2500, "0500,", 5);
    assert_memory_equal(b.s + 4995, "0999,", 5);
    /* one piece longer than the whole buffer so far */
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    strbuf_printf(&b, "[%s]", big);
    assert_int_equal(b.len, 5000 + 3001);
    assert_int_equal(b.s[5000], '[');
    assert_int_equal(b.s[b.len - 1], ']');
    assert_int_equal(b.s[b.len], '\0');
    strbuf_fini(&b);
    assert_null(b.s);
}

static void test_add_and_take(void **state)
{
    (void)state;
    struct strbuf b = STRBUF_INIT;
    size_t len = 99;
    char *empty = strbuf_take(&b, &len);
    assert_string_equal(empty, "");
    assert_int_equal(len, 0);
    free(empty);
    strbuf_add(&b, "abc\0def", 7);
    strbuf_add(&b, "gh", 2);
    assert_int_equal(b.len, 9);
    assert_memory_equal(b.s, "abc\0defgh", 10);
    char *s = strbuf_take(&b, &len);
    assert_int_equal(len, 9);
    assert_null(b.s);
    assert_int_equal(b.len, 0);
    free(s);
}

static enum status wrapper(struct diag *d, const char *prefix, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    enum status st = diag_vset(d, ST_EPARSE, prefix, fmt, ap);
    va_end(ap);
    return st;
}

static void test_diag_vset(void **state)
{
    (void)state;
    struct diag d = {0};
    assert_int_equal(wrapper(&d, "model.json: nodes[3]", "expected %s, got %d", "a string", 7),
                     ST_EPARSE);
    assert_int_equal(d.code, ST_EPARSE);
    assert_string_equal(d.msg, "model.json: nodes[3]: expected a string, got 7");
    /* the first error stays */
    wrapper(&d, "other", "second");
    assert_string_equal(d.msg, "model.json: nodes[3]: expected a string, got 7");
    diag_clear(&d);
    wrapper(&d, NULL, "no prefix %d", 1);
    assert_string_equal(d.msg, "no prefix 1");
    assert_int_equal(wrapper(NULL, "p", "ignored"), ST_EPARSE);
    /* a prefix as long as the message keeps the message bounded */
    char longp[DIAG_MSG_MAX + 10];
    memset(longp, 'p', sizeof longp - 1);
    longp[sizeof longp - 1] = '\0';
    diag_clear(&d);
    wrapper(&d, longp, "lost");
    assert_true(strlen(d.msg) < sizeof d.msg);
    assert_null(strstr(d.msg, "lost"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grows),
        cmocka_unit_test(test_add_and_take),
        cmocka_unit_test(test_diag_vset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
