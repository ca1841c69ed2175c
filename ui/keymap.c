/* keymap.c - the key table, action names and key-script parsing. */
#include "ui/keymap.h"

#include <stdio.h>
#include <string.h>

#include "ui/draw.h"

static const char *const action_names[] = {
    "none",
#define ACTION(id, name, help) name,
#include "ui/actions.def"
#undef ACTION
};
static const char *const action_help[] = {
    "",
#define ACTION(id, name, help) help,
#include "ui/actions.def"
#undef ACTION
};
_Static_assert(sizeof action_names / sizeof action_names[0] == UI_ACT__COUNT, "action names");
_Static_assert(sizeof action_help / sizeof action_help[0] == UI_ACT__COUNT, "action help");

/* htop/nvtop conventions first (F-keys: F1 help, F3 search, F4 filter, F6
 * sort, F10 quit), then vi-style and mnemonic keys. */
static const struct ui_keybinding bindings[] = {
    {UI_KEY_F1, UI_ACT_HELP},           {'?', UI_ACT_HELP},
    {'h', UI_ACT_HELP},                 {'6', UI_ACT_HELP},
    {UI_KEY_F2, UI_ACT_SETUP},          {'S', UI_ACT_SETUP},
    {UI_KEY_F3, UI_ACT_SEARCH},         {'/', UI_ACT_SEARCH},
    {'n', UI_ACT_SEARCH_NEXT},          {'N', UI_ACT_SEARCH_PREV},
    {UI_KEY_SHIFT_F3, UI_ACT_SEARCH_PREV},
    {UI_KEY_F4, UI_ACT_FILTER},         {'\\', UI_ACT_FILTER},
    {UI_KEY_F5, UI_ACT_TOGGLE_VIEW},    {'t', UI_ACT_TOGGLE_VIEW},
    {UI_KEY_F6, UI_ACT_SORT_NEXT},      {'>', UI_ACT_SORT_NEXT},
    {'.', UI_ACT_SORT_NEXT},            {'<', UI_ACT_SORT_PREV},
    {',', UI_ACT_SORT_PREV},            {'I', UI_ACT_SORT_INVERT},
    {'#', UI_ACT_SORT_INDEX},
    {UI_KEY_F10, UI_ACT_QUIT},          {'q', UI_ACT_QUIT},
    {'+', UI_ACT_BATCH_UP},             {'=', UI_ACT_BATCH_UP},
    {'-', UI_ACT_BATCH_DOWN},           {'_', UI_ACT_BATCH_DOWN},
    {'B', UI_ACT_MAX_BATCH},
    {':', UI_ACT_PROMPT},
    {UI_KEY_UP, UI_ACT_UP},             {'k', UI_ACT_UP},
    {UI_KEY_DOWN, UI_ACT_DOWN},         {'j', UI_ACT_DOWN},
    {UI_KEY_PGUP, UI_ACT_PAGE_UP},      {UI_KEY_PGDN, UI_ACT_PAGE_DOWN},
    {' ', UI_ACT_PAGE_DOWN},
    {UI_KEY_HOME, UI_ACT_HOME},         {UI_KEY_END, UI_ACT_END},
    {'G', UI_ACT_END},
    {UI_KEY_LEFT, UI_ACT_LEFT},         {UI_KEY_RIGHT, UI_ACT_RIGHT},
    {UI_KEY_ENTER, UI_ACT_ENTER},       {'\r', UI_ACT_ENTER},
    {UI_KEY_ESC, UI_ACT_BACK},          {UI_KEY_BACKSPACE, UI_ACT_BACK},
    {UI_KEY_TAB, UI_ACT_TAB_NEXT},      {UI_KEY_BTAB, UI_ACT_TAB_PREV},
    {'1', UI_ACT_TAB_LAYERS},           {'2', UI_ACT_TAB_GRAPH},
    {'3', UI_ACT_TAB_SWEEP},            {'4', UI_ACT_TAB_PARAMS},
    {'5', UI_ACT_TAB_DETAIL},           {'7', UI_ACT_TAB_ABOUT},
    {'p', UI_ACT_PRODUCER},             {'c', UI_ACT_CONSUMER},
    {'o', UI_ACT_OP_TYPES},             {'Z', UI_ACT_SHOW_IDLE},
    {'z', UI_ACT_COLLAPSE},             {'g', UI_ACT_JUMP},
    {'m', UI_ACT_METRIC},               {'P', UI_ACT_PIN},
    {'C', UI_ACT_COMPARE},              {UI_KEY_CTRL('l'), UI_ACT_REDRAW},
    {'8', UI_ACT_TAB_COMPARE},          {'L', UI_ACT_LOG},
    {'H', UI_ACT_HEATMAP},
    {'u', UI_ACT_UNDO},                 {'U', UI_ACT_REDO},
    {UI_KEY_CTRL('r'), UI_ACT_REDO},    {UI_KEY_CTRL('d'), UI_ACT_HALF_DOWN},
    {UI_KEY_CTRL('u'), UI_ACT_HALF_UP}, {UI_KEY_CTRL('z'), UI_ACT_SUSPEND},
};

const struct ui_keybinding *keymap_table(int *n)
{
    *n = (int)(sizeof bindings / sizeof bindings[0]);
    return bindings;
}

enum ui_action keymap_lookup(int key)
{
    for (size_t i = 0; i < sizeof bindings / sizeof bindings[0]; i++)
        if (bindings[i].key == key)
            return bindings[i].action;
    return UI_ACT_NONE;
}

const char *keymap_action_name(enum ui_action a)
{
    return (unsigned)a < UI_ACT__COUNT ? action_names[a] : "?";
}

const char *keymap_action_help(enum ui_action a)
{
    return (unsigned)a < UI_ACT__COUNT ? action_help[a] : "?";
}

static const struct {
    int key;
    const char *name;
} key_names[] = {
    {UI_KEY_UP, "Up"},        {UI_KEY_DOWN, "Down"},   {UI_KEY_LEFT, "Left"},
    {UI_KEY_RIGHT, "Right"},  {UI_KEY_PGUP, "PgUp"},   {UI_KEY_PGDN, "PgDn"},
    {UI_KEY_HOME, "Home"},    {UI_KEY_END, "End"},     {UI_KEY_BACKSPACE, "BS"},
    {UI_KEY_DELETE, "Del"},   {UI_KEY_BTAB, "BTab"},   {UI_KEY_F1, "F1"},
    {UI_KEY_F2, "F2"},        {UI_KEY_F3, "F3"},       {UI_KEY_F4, "F4"},
    {UI_KEY_F5, "F5"},        {UI_KEY_F6, "F6"},       {UI_KEY_F7, "F7"},
    {UI_KEY_F8, "F8"},        {UI_KEY_F9, "F9"},       {UI_KEY_F10, "F10"},
    {UI_KEY_F11, "F11"},      {UI_KEY_F12, "F12"},     {UI_KEY_SHIFT_F3, "S-F3"},
    {UI_KEY_ENTER, "Enter"},  {'\r', "Return"},        {UI_KEY_ESC, "Esc"},
    {UI_KEY_TAB, "Tab"},      {' ', "Space"},          {'<', "lt"},
};

const char *keymap_key_name(int key, char *buf, int size)
{
    for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
        if (key_names[i].key == key) {
            /* '<' reads better as itself on the help screen */
            snprintf(buf, (size_t)size, "%s", key == '<' ? "<" : key_names[i].name);
            return buf;
        }
    if (key > 0 && key < 32)
        snprintf(buf, (size_t)size, "Ctrl-%c", key + 'A' - 1);
    else if (key >= 32 && key < 127)
        snprintf(buf, (size_t)size, "%c", key);
    else
        snprintf(buf, (size_t)size, "#%d", key);
    return buf;
}

const char *keymap_keys_of(enum ui_action a, char *buf, int size)
{
    int len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof bindings / sizeof bindings[0]; i++) {
        if (bindings[i].action != a || bindings[i].key == '\r')
            continue;
        char k[16];
        keymap_key_name(bindings[i].key, k, sizeof k);
        int n = snprintf(buf + len, (size_t)(size - len), "%s%s", len ? ", " : "", k);
        if (n < 0 || len + n >= size)
            break;
        len += n;
    }
    return buf;
}

int keymap_parse_script(const char *s, int *keys, int max, int *bad_at)
{
    int n = 0;
    const char *start = s;
    while (*s && n < max) {
        if (*s == '<' && strchr(s, '>')) {
            const char *end = strchr(s, '>');
            char name[24];
            size_t len = (size_t)(end - s - 1);
            if (len == 0 || len >= sizeof name) {
                /* a literal '<' followed later by '>' */
                keys[n++] = '<';
                s++;
                continue;
            }
            memcpy(name, s + 1, len);
            name[len] = 0;
            int key = -1;
            if (!strcmp(name, "sleep"))
                key = 0;
            else if (!strcmp(name, "Space"))
                key = ' ';
            else if (!strcmp(name, "lt"))
                key = '<';
            else if (len == 3 && name[0] == 'C' && name[1] == '-')
                key = UI_KEY_CTRL(name[2]);
            else
                for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
                    if (!strcmp(key_names[i].name, name))
                        key = key_names[i].key;
            if (key < 0) {
                if (bad_at)
                    *bad_at = (int)(s - start);
                return -1;
            }
            keys[n++] = key;
            s = end + 1;
            continue;
        }
        const char *p = s;
        keys[n++] = (int)draw_utf8_next(&p);
        s = p;
    }
    return n;
}

/* The key of "ESC [ n ~" (VT220 editing and function keys). */
static int csi_tilde_key(int n)
{
    switch (n) {
    case 1: case 7: return UI_KEY_HOME;
    case 4: case 8: return UI_KEY_END;
    case 3: return UI_KEY_DELETE;
    case 5: return UI_KEY_PGUP;
    case 6: return UI_KEY_PGDN;
    case 11: case 12: case 13: case 14: case 15: return UI_KEY_F1 + (n - 11);
    case 17: case 18: case 19: case 20: case 21: return UI_KEY_F6 + (n - 17);
    case 23: case 24: return UI_KEY_F11 + (n - 23);
    default: return 0;
    }
}

/* The key of a final letter after "ESC [" or "ESC O" (xterm cursor keys,
 * Home/End, F1-F4 in SS3 form). */
static int final_key(int ch)
{
    switch (ch) {
    case 'A': return UI_KEY_UP;
    case 'B': return UI_KEY_DOWN;
    case 'C': return UI_KEY_RIGHT;
    case 'D': return UI_KEY_LEFT;
    case 'H': return UI_KEY_HOME;
    case 'F': return UI_KEY_END;
    case 'Z': return UI_KEY_BTAB;
    case 'P': case 'Q': case 'R': case 'S': return UI_KEY_F1 + (ch - 'P');
    default: return 0;
    }
}

int keymap_decode_esc(const int *k, int n, int *used)
{
    *used = 1;
    if (n < 2)
        return KEYMAP_ESC_MORE;
    if (k[1] != '[' && k[1] != 'O')
        return KEYMAP_ESC_NONE;
    /* parameters (digits and ';') up to a final byte 0x40-0x7e */
    int first = 0, i = 2;
    bool in_first = true;
    for (; i < n && i < 16; i++) {
        int ch = k[i];
        if (ch >= '0' && ch <= '9') {
            if (in_first)
                first = first * 10 + (ch - '0');
            continue;
        }
        if (ch == ';') {
            in_first = false;
            continue;
        }
        if (ch < 0x40 || ch > 0x7e)
            return KEYMAP_ESC_NONE; /* not a sequence: Esc, then keys */
        *used = i + 1;
        if (k[1] == '[' && ch == '~')
            return csi_tilde_key(first);
        return final_key(ch);
    }
    return i >= 16 ? KEYMAP_ESC_NONE : KEYMAP_ESC_MORE;
}
