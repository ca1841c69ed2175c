/*
 * keymap.h - keys, the action list (ui/actions.def) and the table binding
 * one to the other (tig's REQ_INFO / htop's Action.c). Curses-free: ui/term.c
 * translates curses key codes into the ui_key values below.
 */
#ifndef DIPPM_UI_KEYMAP_H
#define DIPPM_UI_KEYMAP_H

#include <stdbool.h>
#include <stdint.h>

enum ui_action {
    UI_ACT_NONE = 0,
#define ACTION(id, name, help) UI_ACT_##id,
#include "ui/actions.def"
#undef ACTION
    UI_ACT__COUNT
};

/* A key is a Unicode code point (printable keys, and ASCII control codes:
 * Enter is '\n', Tab '\t', Esc 27, Ctrl-L 12) or one of these. */
enum ui_key_special {
    UI_KEY_BASE = 0x110000,
    UI_KEY_UP, UI_KEY_DOWN, UI_KEY_LEFT, UI_KEY_RIGHT,
    UI_KEY_PGUP, UI_KEY_PGDN, UI_KEY_HOME, UI_KEY_END,
    UI_KEY_BACKSPACE, UI_KEY_DELETE, UI_KEY_BTAB,
    UI_KEY_F1, UI_KEY_F2, UI_KEY_F3, UI_KEY_F4, UI_KEY_F5, UI_KEY_F6,
    UI_KEY_F7, UI_KEY_F8, UI_KEY_F9, UI_KEY_F10, UI_KEY_F11, UI_KEY_F12,
    UI_KEY_SHIFT_F3,
    UI_KEY_RESIZE, UI_KEY_MOUSE,
    UI_KEY__END
};
#define UI_KEY_ESC 27
#define UI_KEY_ENTER '\n'
#define UI_KEY_TAB '\t'
#define UI_KEY_CTRL(c) ((c) & 0x1f)

struct ui_keybinding {
    int key;
    enum ui_action action;
};

/* The action bound to key, UI_ACT_NONE if none. */
enum ui_action keymap_lookup(int key);
/* "quit", "batch-up", ...; "?" for out of range. */
const char *keymap_action_name(enum ui_action a);
const char *keymap_action_help(enum ui_action a);
/* Comma-separated names of the keys bound to a ("F10, q"); "" if unbound. */
const char *keymap_keys_of(enum ui_action a, char *buf, int size);
/* Human name of a key ("F6", "Down", "Ctrl-L", "q", "Space"). */
const char *keymap_key_name(int key, char *buf, int size);
/* The whole table (for the help screen and tests). */
const struct ui_keybinding *keymap_table(int *n);

/* Parses a key-replay script (DIPPM_SCRIPT): literal characters, and names
 * in angle brackets: <F1>..<F12>, <Up> <Down> <Left> <Right> <PgUp> <PgDn>
 * <Home> <End> <Enter> <Esc> <Tab> <BTab> <BS> <Del> <Space> <lt> <C-x>,
 * and <sleep> (a pause; UI_KEY_RESIZE is not scriptable). Writes up to max
 * keys; returns the count, or -1 with *bad_at set to the byte offset of an
 * unknown <name>. A <sleep> becomes the key 0. */
int keymap_parse_script(const char *s, int *keys, int max, int *bad_at);

/* An escape sequence a terminal sends for a key its terminfo entry (TERM)
 * does not describe: curses then hands over ESC, '[', '1', '~' one by
 * one, and '1' would switch tabs. k[0..n) starts with ESC; returns the
 * UI_KEY_ it spells (CSI "ESC [ n ~" and "ESC [ A".."ESC O H" forms, with
 * or without ";modifier" parameters) with *used set to its length, 0 for
 * a complete sequence of no known key (to be dropped, *used set),
 * KEYMAP_ESC_MORE when k ends inside a sequence, or KEYMAP_ESC_NONE when
 * k[1] starts none (*used = 1: a plain Esc). */
#define KEYMAP_ESC_MORE (-1)
#define KEYMAP_ESC_NONE (-2)
int keymap_decode_esc(const int *k, int n, int *used);

#endif
