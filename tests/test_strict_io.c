/* test_strict_io.c - the round-2 and round-3 hardening helpers: strict JSON,
 * name sanitising, CSV cells, regular-file opening (FIFOs), multi-file atomic
 * writes that keep modes and never replace what is not a regular file, exact
 * integer folding. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/fileio.h"
#include "graph/json/json_graph.h"
#include "util/jsonr.h"
#include "graph/ops/shape.h"
#include "util/textsafe.h"

static void test_json_strict(void **state)
{
    (void)state;
    struct json_err e;
    cJSON *j = json_parse_strict("{\"a\": 1}\n  ", 11, &e);
    assert_non_null(j);
    cJSON_Delete(j);
    assert_null(json_parse_strict("{\"a\": 1} x", 10, &e));
    assert_string_equal(e.why, "unexpected text after the JSON value");
    assert_int_equal(e.col, 10);
    assert_null(json_parse_strict("{\"a\": \"x\ty\"}", 12, &e));
    assert_non_null(strstr(e.why, "raw control character 0x09"));
    static const char dup[] = "{\"a\": {\"b\": 1, \"b\": 2}}";
    assert_null(json_parse_strict(dup, strlen(dup), &e));
    assert_string_equal(e.why, "duplicate key \"b\" in one object");
    /* a large object goes through the hash map */
    char big[4096];
    size_t n = (size_t)snprintf(big, sizeof big, "{");
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "\"k%d\": %d, ", i, i);
    n += (size_t)snprintf(big + n, sizeof big - n, "\"k7\": 0}");
    assert_null(json_parse_strict(big, n, &e));
    assert_string_equal(e.why, "duplicate key \"k7\" in one object");
    assert_null(json_parse_strict("{\"a\": ", 6, &e));
    assert_string_equal(e.why, "invalid JSON");
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(tsafe("conv1/Conv \xc3\xa9"), "conv1/Conv \xc3\xa9"); /* UTF-8 kept */
    assert_string_equal(tsafe("a\x1b]0;x\x07"), "a\\x1b]0;x\\x07");
    assert_string_equal(tsafe("\xc2\x9b" "2J"), "\\xc2\\x9b2J"); /* C1 CSI */
    assert_string_equal(tsafe("\xff"), "\\xff");
    struct diag d = {0};
    diag_set(&d, ST_EPARSE, "node '%s'", "n\x1b[2J");
    assert_string_equal(d.msg, "node 'n\\x1b[2J'");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    csv_cell(f, "=HYPERLINK(\"x\")");
    fputc('|', f);
    csv_cell(f, "a,b");
    fputc('|', f);
    csv_cell(f, "plain");
    fclose(f);
    assert_string_equal(buf, "\"'=HYPERLINK(\"\"x\"\")\"|\"a,b\"|plain");
    free(buf);
}

static void test_regular_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_strict_io_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[128], path[128], json[128];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    struct diag d = {0};
    char *text;
    size_t len;
    /* no writer: a blocking open would never return */
    assert_int_equal(file_read_all(fifo, 100, &text, &len, &d), ST_EIO);
    assert_non_null(strstr(d.msg, "not a regular file"));
    diag_clear(&d);
    assert_null(file_fopen_regular(dir, &d));
    assert_non_null(strstr(d.msg, "is a directory, expected a regular file"));

    /* two files land together; an existing one keeps its 0600 mode */
    snprintf(path, sizeof path, "%s/w.dpw", dir);
    snprintf(json, sizeof json, "%s/w.json", dir);
    int fd = open(json, O_CREAT | O_WRONLY, 0600);
    assert_true(fd >= 0);
    close(fd);
    chmod(json, 0600);
    const char *paths[2] = {path, json};
    const void *data[2] = {"W", "{}"};
    size_t lens[2] = {1, 2};
    diag_clear(&d);
    assert_int_equal(file_write_atomic_n(2, paths, data, lens, false, &d), ST_EEXIST);
    assert_false(file_exists(path)); /* nothing written when one exists */
    diag_clear(&d);
    assert_int_equal(file_write_atomic_n(2, paths, data, lens, true, &d), ST_OK);
    struct stat st;
    assert_int_equal(stat(json, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(st.st_size, 2);
    /* a dangling symlink counts as existing */
    char link[128];
    snprintf(link, sizeof link, "%s/link", dir);
    assert_int_equal(symlink("/nonexistent/target", link), 0);
    diag_clear(&d);
    assert_int_equal(file_write_atomic(link, "x", 1, false, &d), ST_EEXIST);
    unlink(link);
    unlink(path);
    unlink(json);
    unlink(fifo);
    rmdir(dir);
}

/* Even with overwrite (--force), a FIFO, a socket, a directory and a link to
 * a FIFO are refused with a message naming the path, and stay what they were. */
static void test_write_special_targets(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_strict_io_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[96], sock[96], sub[96], link[96];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(sock, sizeof sock, "%s/sock", dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(mkdir(sub, 0700), 0);
    assert_int_equal(symlink(fifo, link), 0);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(s >= 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
    assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
    const char *targets[] = {fifo, sock, sub, link};
    for (int i = 0; i < 4; i++) {
        for (int force = 0; force < 2; force++) {
            struct diag d = {0};
            assert_int_equal(file_write_atomic(targets[i], "x", 1, force, &d), ST_EIO);
            assert_non_null(strstr(d.msg, targets[i]));
            assert_non_null(strstr(d.msg, i == 2 ? "is a directory" : "not a regular file"));
        }
    }
    struct stat st;
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(lstat(sock, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    close(s);
    unlink(sock);
    unlink(link);
    unlink(fifo);
    rmdir(sub);
    assert_int_equal(rmdir(dir), 0); /* no temporary file left */
}

/* This program's fsync, which file_write_atomic calls between its check for
 * an existing target and putting its temporary file in place: with
 * race_target set it plays a second writer that creates the target in
 * that window. */
static const char *race_target;
/* With die_in_fsync set, the writer is killed (SIGKILL) there instead: in
 * the middle of a write, its data written but not yet in place. */
static bool die_in_fsync;

int fsync(int fd)
{
    if (die_in_fsync)
        raise(SIGKILL);
    if (race_target) {
        FILE *f = fopen(race_target, "wx");
        if (f) {
            fputs("other", f);
            fclose(f);
        }
    }
    return (int)syscall(SYS_fsync, fd);
}

static void assert_content(const char *path, const char *want)
{
    char *text;
    size_t len;
    struct diag d = {0};
    assert_int_equal(file_read_all(path, 100, &text, &len, &d), ST_OK);
    assert_string_equal(text, want);
    free(text);
}

/* Two writers of the same path without overwrite: the one that comes second
 * fails with ST_EEXIST and the first one's file stays, even when the second
 * looked before the first had put its file in place. */
static void test_write_race(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_strict_io_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char out[96], dpw[96], json[96];
    snprintf(out, sizeof out, "%s/out.json", dir);
    snprintf(dpw, sizeof dpw, "%s/w.dpw", dir);
    snprintf(json, sizeof json, "%s/w.json", dir);
    struct diag d = {0};
    race_target = out;
    assert_int_equal(file_write_atomic(out, "mine", 4, false, &d), ST_EEXIST);
    assert_non_null(strstr(d.msg, "out.json: already exists"));
    assert_content(out, "other");
    /* two files: the first, already in place, is taken back */
    const char *paths[2] = {dpw, json};
    const void *data[2] = {"W", "{}"};
    size_t lens[2] = {1, 2};
    race_target = json;
    diag_clear(&d);
    assert_int_equal(file_write_atomic_n(2, paths, data, lens, false, &d), ST_EEXIST);
    race_target = NULL;
    assert_false(file_exists(dpw));
    assert_content(json, "other");
    /* with overwrite the writer replaces it */
    diag_clear(&d);
    assert_int_equal(file_write_atomic(out, "mine", 4, true, &d), ST_OK);
    assert_content(out, "mine");
    unlink(out);
    unlink(json);
    assert_int_equal(rmdir(dir), 0); /* no temporary file left */
}

/* Runs file_write_atomic(path, "mine", overwrite) in a child killed in
 * the middle of the write. */
static void write_killed(const char *path, bool overwrite)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct diag d = {0};
        die_in_fsync = true;
        file_write_atomic(path, "mine", 4, overwrite, &d);
        _exit(0);
    }
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
}

/* A writer killed in the middle (kill -9, or a signal a library's thread
 * takes although the writing thread blocks it) leaves no temporary file,
 * and an existing target as it was. */
static void test_write_killed(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_strict_io_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char out[96];
    snprintf(out, sizeof out, "%s/out.json", dir);
    write_killed(out, false);
    assert_false(file_exists(out));
    FILE *f = fopen(out, "w");
    assert_non_null(f);
    fputs("old", f);
    fclose(f);
    write_killed(out, true);
    assert_content(out, "old");
    unlink(out);
    assert_int_equal(rmdir(dir), 0); /* no temporary file left */
}

#define HDR "{\"format\": \"dippm-graph\", \"version\": 1, "

static enum status infer(const char *text, struct diag *d)
{
    struct graph *g = json_graph_parse(text, strlen(text), "t.json", d);
    if (!g)
        return d->code;
    enum status st = graph_infer(g, d);
    graph_free(g);
    return st;
}

static void test_int_folding(void **state)
{
    (void)state;
    static const char *const fmt =
        HDR "\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [1, 4]}],"
            "\"initializers\": [{\"name\": \"a\", \"dtype\": \"int64\", \"shape\": [1], "
            "\"data\": [\"%s\"]}, {\"name\": \"b\", \"dtype\": \"int64\", \"shape\": [1], "
            "\"data\": [%s]}],"
            "\"nodes\": [{\"name\": \"d\", \"op\": \"%s\", \"inputs\": [\"a\", \"b\"], "
            "\"outputs\": [\"q\"]}, {\"name\": \"r\", \"op\": \"Reshape\", \"inputs\": [\"x\", "
            "\"q\"], \"outputs\": [\"y\"]}], \"outputs\": [{\"name\": \"y\"}]}";
    static const struct {
        const char *a, *b, *op;
        enum status want;
    } cases[] = {
        {"-9223372036854775808", "-1", "Div", ST_ESHAPE},
        {"-9223372036854775808", "-1", "Mul", ST_ESHAPE},
        {"9223372036854775807", "1", "Add", ST_ESHAPE},
        {"-9223372036854775808", "1", "Sub", ST_ESHAPE},
        {"-9223372036854775808", "-1", "Mod", ST_ESHAPE}, /* 0: Reshape to [0] mismatches */
        {"9", "-2", "Div", ST_ESHAPE},                    /* -4: not a valid target */
        {"8", "2", "Div", ST_OK},                         /* exact: 4 */
        {"-7", "2", "Mod", ST_ESHAPE},                    /* 1 */
        {"10", "3", "Mod", ST_ESHAPE},                    /* 1 */
        {"9007199254740993", "9007199254740989", "Sub", ST_OK}, /* 4, beyond double */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text, fmt, cases[i].a, cases[i].b, cases[i].op);
        struct diag d = {0};
        enum status st = infer(text, &d);
        if (st != cases[i].want)
            fail_msg("%s %s %s: status %d (%s)", cases[i].a, cases[i].op, cases[i].b, st, d.msg);
        if (i < 4)
            assert_non_null(strstr(d.msg, "integer overflow while folding constants"));
    }
}

/* Range's element count in exact int64 arithmetic: its limit minus start
 * may not fit an int64, and a count past 2^53 is an error naming the node. */
static void test_range_exact(void **state)
{
    (void)state;
    static const char *const fmt =
        HDR "\"initializers\": [{\"name\": \"s\", \"dtype\": \"%s\", \"shape\": [1], "
            "\"data\": [%s]}, {\"name\": \"l\", \"dtype\": \"%s\", \"shape\": [1], "
            "\"data\": [%s]}, {\"name\": \"d\", \"dtype\": \"%s\", \"shape\": [1], "
            "\"data\": [%s]}], \"inputs\": [],"
            "\"nodes\": [{\"name\": \"rng\", \"op\": \"Range\", \"inputs\": [\"s\", "
            "\"l\", \"d\"], \"outputs\": [\"r\"]}], \"outputs\": [{\"name\": \"r\"}]}";
    static const struct {
        const char *dt, *s, *l, *d;
        int64_t n, first, last; /* n < 0: too many elements */
    } cases[] = {
        {"int64", "\"-9223372036854775808\"", "\"9223372036854775807\"",
         "\"9223372036854775807\"", 3, INT64_MIN, INT64_MAX - 1},
        {"int64", "\"9223372036854775807\"", "\"-9223372036854775808\"",
         "\"-9223372036854775808\"", 2, INT64_MAX, -1},
        {"int64", "0", "\"9223372036854775807\"", "1", -1, 0, 0},
        {"int64", "10", "0", "-3", 4, 10, 1},
        {"int64", "10", "0", "3", 0, 0, 0},
        {"int64", "-6", "\"9007199254740987\"", "1", -1, 0, 0}, /* 2^53 + 1 */
        {"int64", "-5", "\"9007199254740987\"", "1", 9007199254740992, -5, 0}, /* 2^53 */
        {"float32", "0", "1e30", "1e-10", -1, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text, fmt, cases[i].dt, cases[i].s, cases[i].dt, cases[i].l,
                 cases[i].dt, cases[i].d);
        struct diag d = {0};
        struct graph *g = json_graph_parse(text, strlen(text), "t.json", &d);
        if (!g)
            fail_msg("case %zu: %s", i, d.msg);
        enum status st = graph_infer(g, &d);
        if (cases[i].n < 0) {
            if (st != ST_ESHAPE || !strstr(d.msg, "node 'rng' (Range): too many elements"))
                fail_msg("case %zu: status %d (%s)", i, st, d.msg);
        } else {
            if (st != ST_OK)
                fail_msg("case %zu: %s", i, d.msg);
            const struct value *v = &g->values[graph_value_find(g, "r")];
            assert_int_equal(v->shape.d[0], cases[i].n);
            if (cases[i].n > 0 && v->folded) {
                assert_true(v->folded->i64[0] == cases[i].first);
                assert_true(v->folded->i64[cases[i].n - 1] == cases[i].last);
            }
        }
        graph_free(g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_strict),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_regular_files),
        cmocka_unit_test(test_write_special_targets),
        cmocka_unit_test(test_write_race),
        cmocka_unit_test(test_write_killed),
        cmocka_unit_test(test_int_folding),
        cmocka_unit_test(test_range_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
