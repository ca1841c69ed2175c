/* term.c - curses setup and teardown, input, output. The only file that
 * calls initscr/newterm, endwin and getch. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "ui/term.h"

#include <curses.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

#include "ui/keymap.h"
#include "util/xalloc.h"

struct term {
    SCREEN *scr;
    bool utf8;
    struct theme theme;
    int rows, cols;
    int drawn_rows, drawn_cols; /* canvas size of the last flush */
};

/* Signal flags: the only state signal handlers touch. */
static volatile sig_atomic_t got_winch, got_quit;
/* Whether curses is active, for the atexit handler (set and cleared only
 * by term_open/term_close). */
static volatile sig_atomic_t curses_active;

static void on_winch(int sig)
{
    (void)sig;
    got_winch = 1;
}

static void on_quit(int sig)
{
    got_quit = sig;
}

static void at_exit_restore(void)
{
    if (curses_active) {
        endwin();
        curses_active = 0;
    }
}

bool term_quit_requested(void)
{
    return got_quit != 0;
}

int term_quit_signal(void)
{
    return (int)got_quit;
}

bool term_interrupt_take(void)
{
    if (got_quit != SIGINT)
        return false;
    got_quit = 0;
    return true;
}

void term_suspend(struct term *t)
{
    (void)t;
    if (!curses_active)
        return;
    endwin();
    /* stop as the shell's Ctrl-Z would; fg continues here */
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTSTP, &sa, &old);
    raise(SIGTSTP);
    sigaction(SIGTSTP, &old, NULL);
    /* resumed: the terminal may have another size and other contents */
    got_winch = 1;
    refresh();
}

static void install(int sig, void (*fn)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

struct term *term_open(bool ascii, bool color, struct diag *d)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        diag_set(d, ST_EUSAGE, "the explorer needs a terminal on stdin and stdout");
        return NULL;
    }
    const char *tn = getenv("TERM");
    if (!tn || !*tn) {
        diag_set(d, ST_EUSAGE, "TERM is not set: cannot drive the terminal");
        return NULL;
    }
    struct term *t = xcalloc(1, sizeof *t);
    /* Our handlers first: ncurses then leaves SIGWINCH to us, and a signal
     * only sets a flag that the loop reads. */
    install(SIGWINCH, on_winch);
    install(SIGINT, on_quit);
    install(SIGTERM, on_quit);
    install(SIGHUP, on_quit);
    static bool registered;
    if (!registered) {
        atexit(at_exit_restore);
        registered = true;
    }
    t->scr = newterm(NULL, stdout, stdin);
    if (!t->scr) {
        diag_set(d, ST_EUSAGE, "cannot initialise the terminal (TERM=%s unknown to terminfo?)", tn);
        free(t);
        return NULL;
    }
    curses_active = 1;
    set_term(t->scr);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    intrflush(stdscr, FALSE);
    set_escdelay(25);
    curs_set(0);
    mousemask(BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
                  | BUTTON5_PRESSED
#endif
              ,
              NULL);
    mouseinterval(200);
    const char *cs = nl_langinfo(CODESET);
    t->utf8 = !ascii && cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
#if !defined(NCURSES_WIDECHAR) || !NCURSES_WIDECHAR
    t->utf8 = false; /* narrow ncurses cannot draw code points beyond ASCII */
#endif
    theme_init(&t->theme, color && !theme_no_color_env());
    getmaxyx(stdscr, t->rows, t->cols);
    return t;
}

void term_close(struct term *t)
{
    if (!t)
        return;
    if (curses_active) {
        curs_set(1);
        endwin();
        curses_active = 0;
    }
    delscreen(t->scr);
    free(t);
}

void term_size(const struct term *t, int *rows, int *cols)
{
    *rows = t->rows;
    *cols = t->cols;
}

bool term_utf8(const struct term *t)
{
    return t->utf8;
}

bool term_color(const struct term *t)
{
    return t->theme.color;
}

void term_flush(struct term *t, const struct ui_canvas *c, int cy, int cx, bool force)
{
    if (force || c->rows != t->drawn_rows || c->cols != t->drawn_cols) {
        /* a new size or Ctrl-L: forget what stdscr held, including the
         * bottom-right cell that is never written */
        erase();
        t->drawn_rows = c->rows;
        t->drawn_cols = c->cols;
    }
    if (force)
        clearok(curscr, TRUE);
    int rows = c->rows < t->rows ? c->rows : t->rows;
    int cols = c->cols < t->cols ? c->cols : t->cols;
    for (int y = 0; y < rows; y++) {
        int x = 0;
        while (x < cols) {
            /* one run of cells in the same style */
            uint8_t st = c->cells[(size_t)y * c->cols + x].style;
            int end = x;
            while (end < cols && c->cells[(size_t)y * c->cols + end].style == st)
                end++;
            /* never write the bottom-right cell: some terminals scroll */
            if (y == t->rows - 1 && end == t->cols)
                end--;
            attrset((attr_t)t->theme.attr[st < UI_STYLE__COUNT ? st : 0]);
#if defined(NCURSES_WIDECHAR) && NCURSES_WIDECHAR
            wchar_t buf[1024];
            int n = 0;
            for (int i = x; i < end && n < 1023; i++) {
                uint32_t ch = c->cells[(size_t)y * c->cols + i].ch;
                buf[n++] = (wchar_t)(ch ? ch : ' ');
            }
            buf[n] = 0;
            mvaddnwstr(y, x, buf, n);
#else
            move(y, x);
            for (int i = x; i < end; i++) {
                uint32_t ch = c->cells[(size_t)y * c->cols + i].ch;
                addch(ch >= 32 && ch < 127 ? (chtype)ch : '?');
            }
#endif
            if (end <= x)
                break;
            x = end;
        }
    }
    attrset(A_NORMAL);
    if (cy >= 0) {
        move(cy, cx < t->cols ? cx : t->cols - 1);
        curs_set(1);
    } else {
        curs_set(0);
    }
    refresh();
}

bool term_input_pending(struct term *t)
{
    (void)t;
    struct pollfd p = {STDIN_FILENO, POLLIN, 0};
    return got_quit || got_winch || poll(&p, 1, 0) > 0;
}

static int map_key(int ch)
{
    switch (ch) {
    case KEY_UP: return UI_KEY_UP;
    case KEY_DOWN: return UI_KEY_DOWN;
    case KEY_LEFT: return UI_KEY_LEFT;
    case KEY_RIGHT: return UI_KEY_RIGHT;
    case KEY_PPAGE: return UI_KEY_PGUP;
    case KEY_NPAGE: return UI_KEY_PGDN;
    case KEY_HOME: return UI_KEY_HOME;
    case KEY_END: return UI_KEY_END;
    case KEY_BACKSPACE: return UI_KEY_BACKSPACE;
    case 127: return UI_KEY_BACKSPACE;
    case 8: return UI_KEY_BACKSPACE;
    case KEY_DC: return UI_KEY_DELETE;
    case KEY_BTAB: return UI_KEY_BTAB;
    case KEY_ENTER: return UI_KEY_ENTER;
    case '\r': return UI_KEY_ENTER;
    case KEY_F(15): return UI_KEY_SHIFT_F3; /* xterm reports Shift-F3 as F15 */
    default: break;
    }
    if (ch >= KEY_F(1) && ch <= KEY_F(12))
        return UI_KEY_F1 + (ch - KEY_F(1));
    return ch;
}

static void handle_resize(struct term *t)
{
    struct winsize ws;
    got_winch = 0;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
        resizeterm(ws.ws_row, ws.ws_col);
    getmaxyx(stdscr, t->rows, t->cols);
}

/* How long the rest of an escape sequence may take to arrive after its
 * ESC (curses has already waited its ESCDELAY for sequences it knows). */
#define ESC_REST_MS 50

/* One character from curses within ms, *is_key set for a KEY_ code; ERR
 * when none came. */
static int read_char(int ms, bool *is_key)
{
    timeout(ms);
#if defined(NCURSES_WIDECHAR) && NCURSES_WIDECHAR
    wint_t wch;
    int r = get_wch(&wch);
    *is_key = r == KEY_CODE_YES;
    return r == ERR ? ERR : (int)wch;
#else
    int ch = getch();
    *is_key = ch >= KEY_MIN;
    return ch;
#endif
}

static void unread_char(int ch, bool is_key)
{
#if defined(NCURSES_WIDECHAR) && NCURSES_WIDECHAR
    if (!is_key) {
        unget_wch((wchar_t)ch);
        return;
    }
#endif
    ungetch(ch);
}

/* After an ESC that curses did not turn into a key: the key of the
 * sequence that follows it (keymap_decode_esc), UI_KEY_ESC when none
 * does (what was read after it is given back), or 0 for a sequence of no
 * key we know, which is dropped rather than read as keys that switch
 * tabs. */
static int escape_sequence(void)
{
    int buf[16] = {UI_KEY_ESC}, n = 1, used = 1, key;
    bool keyflag[16] = {false};
    while ((key = keymap_decode_esc(buf, n, &used)) == KEYMAP_ESC_MORE && n < 16) {
        bool is_key;
        int ch = read_char(ESC_REST_MS, &is_key);
        if (ch == ERR)
            break;
        buf[n] = ch;
        keyflag[n++] = is_key;
    }
    if (key >= 0)
        return key;
    for (int i = n - 1; i >= 1; i--) /* curses reads back in reverse order of ungetting */
        unread_char(buf[i], keyflag[i]);
    return UI_KEY_ESC;
}

bool term_poll(struct term *t, int timeout_ms, struct term_event *ev)
{
    memset(ev, 0, sizeof *ev);
    /* wait in slices so signal flags are seen within 100 ms */
    int waited = 0;
    for (;;) {
        if (got_quit) {
            ev->key = UI_KEY_F10;
            return true;
        }
        if (got_winch) {
            handle_resize(t);
            ev->key = UI_KEY_RESIZE;
            return true;
        }
        int slice = timeout_ms < 0 ? 100 : timeout_ms - waited < 100 ? timeout_ms - waited : 100;
        if (slice < 0)
            slice = 0;
        timeout(slice);
        wint_t wch;
#if defined(NCURSES_WIDECHAR) && NCURSES_WIDECHAR
        int r = get_wch(&wch);
        int ch = (int)wch;
        if (r == ERR)
            ch = ERR;
        else if (r == OK)
            ch = (int)wch; /* a character, not a KEY_ code */
        bool is_key = r == KEY_CODE_YES;
#else
        int ch = getch();
        bool is_key = ch >= KEY_MIN;
        (void)wch;
#endif
        if (ch == ERR) {
            waited += slice;
            if (timeout_ms >= 0 && waited >= timeout_ms)
                return false;
            continue;
        }
        if (is_key && ch == KEY_RESIZE) {
            getmaxyx(stdscr, t->rows, t->cols);
            ev->key = UI_KEY_RESIZE;
            return true;
        }
        if (is_key && ch == KEY_MOUSE) {
            MEVENT me;
            if (getmouse(&me) != OK)
                continue;
            ev->key = UI_KEY_MOUSE;
            ev->y = me.y;
            ev->x = me.x;
            if (me.bstate & BUTTON1_DOUBLE_CLICKED)
                ev->mouse = TERM_MOUSE_DOUBLE;
            else if (me.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED))
                ev->mouse = TERM_MOUSE_CLICK;
            else if (me.bstate & BUTTON4_PRESSED)
                ev->mouse = TERM_MOUSE_WHEEL_UP;
#ifdef BUTTON5_PRESSED
            else if (me.bstate & BUTTON5_PRESSED)
                ev->mouse = TERM_MOUSE_WHEEL_DOWN;
#endif
            else
                continue;
            return true;
        }
        if (!is_key && ch == UI_KEY_ESC && (ch = escape_sequence()) == 0)
            continue;
        ev->key = is_key ? map_key(ch) : (ch == '\r' || ch == 127 || ch == 8 ? map_key(ch) : ch);
        return true;
    }
}
