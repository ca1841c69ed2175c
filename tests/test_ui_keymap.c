/* test_ui_keymap.c - keys to actions (htop/nvtop conventions from the
 * reference), one action per key, every action reachable, key names and the
 * DIPPM_SCRIPT key-replay syntax. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "ui/commands.h"
#include "util/fileio.h"
#include "ui/keymap.h"

static void test_conventions(void **state)
{
    (void)state;
    /* htop/nvtop conventions: F1 help, F3 search, F4 filter, F6 sort, F10 quit */
    assert_int_equal(keymap_lookup(UI_KEY_F1), UI_ACT_HELP);
    assert_int_equal(keymap_lookup('?'), UI_ACT_HELP);
    assert_int_equal(keymap_lookup(UI_KEY_F2), UI_ACT_SETUP);
    assert_int_equal(keymap_lookup(UI_KEY_F3), UI_ACT_SEARCH);
    assert_int_equal(keymap_lookup('/'), UI_ACT_SEARCH);
    assert_int_equal(keymap_lookup('n'), UI_ACT_SEARCH_NEXT);
    assert_int_equal(keymap_lookup('N'), UI_ACT_SEARCH_PREV);
    assert_int_equal(keymap_lookup(UI_KEY_F4), UI_ACT_FILTER);
    assert_int_equal(keymap_lookup('\\'), UI_ACT_FILTER);
    assert_int_equal(keymap_lookup(UI_KEY_F5), UI_ACT_TOGGLE_VIEW);
    assert_int_equal(keymap_lookup(UI_KEY_F6), UI_ACT_SORT_NEXT);
    assert_int_equal(keymap_lookup('<'), UI_ACT_SORT_PREV);
    assert_int_equal(keymap_lookup('>'), UI_ACT_SORT_NEXT);
    assert_int_equal(keymap_lookup('I'), UI_ACT_SORT_INVERT);
    assert_int_equal(keymap_lookup(UI_KEY_F10), UI_ACT_QUIT);
    assert_int_equal(keymap_lookup('q'), UI_ACT_QUIT);
    assert_int_equal(keymap_lookup('+'), UI_ACT_BATCH_UP);
    assert_int_equal(keymap_lookup('-'), UI_ACT_BATCH_DOWN);
    assert_int_equal(keymap_lookup(':'), UI_ACT_PROMPT);
    assert_int_equal(keymap_lookup(UI_KEY_ENTER), UI_ACT_ENTER);
    assert_int_equal(keymap_lookup('x'), UI_ACT_NONE);
    assert_int_equal(keymap_lookup(UI_KEY_F12), UI_ACT_NONE);
}

static void test_table_consistent(void **state)
{
    (void)state;
    int n;
    const struct ui_keybinding *t = keymap_table(&n);
    assert_true(n > UI_ACT__COUNT);
    bool bound[UI_ACT__COUNT] = {0};
    for (int i = 0; i < n; i++) {
        assert_true(t[i].action > UI_ACT_NONE && t[i].action < UI_ACT__COUNT);
        bound[t[i].action] = true;
        for (int j = i + 1; j < n; j++)
            assert_int_not_equal(t[i].key, t[j].key); /* a key means one thing */
    }
    for (int a = 1; a < UI_ACT__COUNT; a++) {
        assert_true(bound[a]);
        assert_true(strlen(keymap_action_help((enum ui_action)a)) >= 8);
        for (int b = a + 1; b < UI_ACT__COUNT; b++)
            assert_string_not_equal(keymap_action_name((enum ui_action)a),
                                    keymap_action_name((enum ui_action)b));
    }
    assert_string_equal(keymap_action_name(UI_ACT_QUIT), "quit");
    assert_string_equal(keymap_action_name((enum ui_action)999), "?");
}

static void test_names(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(keymap_keys_of(UI_ACT_QUIT, buf, sizeof buf), "F10, q");
    assert_string_equal(keymap_keys_of(UI_ACT_HELP, buf, sizeof buf), "F1, ?, h, 6");
    assert_string_equal(keymap_key_name(UI_KEY_CTRL('l'), buf, sizeof buf), "Ctrl-L");
    assert_string_equal(keymap_key_name(' ', buf, sizeof buf), "Space");
    assert_string_equal(keymap_key_name(UI_KEY_DOWN, buf, sizeof buf), "Down");
    assert_string_equal(keymap_key_name('x', buf, sizeof buf), "x");
}

static void test_script(void **state)
{
    (void)state;
    int keys[32], bad = -1;
    int n = keymap_parse_script("<F6>a<Enter><C-l><lt><Down>:b 2<Esc><sleep>\xc3\xa9", keys, 32,
                                &bad);
    int want[] = {UI_KEY_F6, 'a', '\n', 12, '<', UI_KEY_DOWN, ':', 'b', ' ', '2', 27, 0, 0xE9};
    assert_int_equal(n, (int)(sizeof want / sizeof want[0]));
    for (int i = 0; i < n; i++)
        assert_int_equal(keys[i], want[i]);
    assert_int_equal(keymap_parse_script("ab<Nope>c", keys, 32, &bad), -1);
    assert_int_equal(bad, 2);
    /* a lone '<' with no '>' is literal */
    n = keymap_parse_script("a<b", keys, 32, &bad);
    assert_int_equal(n, 3);
    assert_int_equal(keys[1], '<');
    /* the output limit is respected */
    assert_int_equal(keymap_parse_script("abcdef", keys, 4, &bad), 4);
}

/* The rows of the markdown table whose header line starts with HEADER: the
 * lines after its separator up to the first line not starting with '|'. */
static int table_rows(const char *text, const char *header)
{
    const char *p = strstr(text, header);
    int n = 0;
    if (!p)
        return -1;
    p = strchr(p, '\n');           /* the header's end */
    p = p ? strchr(p + 1, '\n') : NULL; /* the separator's end */
    while (p && p[1] == '|') {
        n++;
        p = strchr(p + 1, '\n');
    }
    return n;
}

/* ui/README-keys.md (folded into dippm(1) by tools/keys2man.py,
 * tests/check-keys-man.sh) has one row per action, with the keys ui/keymap.c
 * binds and the text the help screen shows, and one per command, and no
 * other rows: the explorer's tables are the one source of its keys. */
static void test_docs_in_sync(void **state)
{
    (void)state;
    const char *top = getenv("TOP_SRCDIR");
    char path[1024], *text;
    size_t len;
    snprintf(path, sizeof path, "%s/ui/README-keys.md", top ? top : "..");
    assert_int_equal(file_read_all(path, 1 << 20, &text, &len, NULL), ST_OK);
    for (int a = 1; a < UI_ACT__COUNT; a++) {
        char want[512], keys[128];
        keymap_keys_of((enum ui_action)a, keys, sizeof keys);
        snprintf(want, sizeof want, "\n| %s | `%s` | %s |\n", keys,
                 keymap_action_name((enum ui_action)a), keymap_action_help((enum ui_action)a));
        if (!strstr(text, want))
            fail_msg("README-keys.md lacks the row for action %s", want);
    }
    assert_int_equal(table_rows(text, "| Keys | Action |"), UI_ACT__COUNT - 1);
    for (int i = 0; i < cmd_count(); i++) {
        char want[512];
        snprintf(want, sizeof want, "\n| `:%s` | %s |\n", cmd_get(i)->usage, cmd_get(i)->help);
        if (!strstr(text, want))
            fail_msg("README-keys.md lacks the row for command %s", want);
    }
    assert_int_equal(table_rows(text, "| Command | What it does |"), cmd_count());
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conventions),
        cmocka_unit_test(test_table_consistent),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_script),
        cmocka_unit_test(test_docs_in_sync),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
