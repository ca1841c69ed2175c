/* prompt.c - the command line: readline hooked into the status line (tig),
 * or a plain line editor. The only file that includes readline. */
#include "dippm_config.h"

#include "ui/prompt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ui/commands.h"
#include "ui/draw.h"
#include "util/fileio.h"
#include "ui/keymap.h"
#include "ui/ui_state.h"
#include "util/xalloc.h"

#ifdef HAVE_READLINE
#include <readline/history.h>
#include <readline/readline.h>
#endif

#define HISTORY_MAX 500

bool prompt_history_path(char *buf, int size)
{
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && *xdg == '/')
        n = snprintf(buf, (size_t)size, "%s/dippm/history", xdg);
    else if (home && *home)
        n = snprintf(buf, (size_t)size, "%s/.local/state/dippm/history", home);
    else
        return false;
    return n >= 0 && n < size; /* a cut path names another file: no history then */
}

/* mkdir -p of the history file's directory (mode 0700 as XDG asks). */
static void make_parent(const char *path)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return;
    *slash = 0;
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(dir, 0700);
            *p = '/';
        }
    mkdir(dir, 0700);
}

/* ================================================================== */
/* history shared by both editors: a list of lines, saved atomically    */
/* ================================================================== */

struct hist {
    char *lines[HISTORY_MAX];
    int n;
};
/* Only this module's history list: loaded once, saved at exit. */
static struct hist hist;

static void hist_add(const char *line)
{
    if (!*line || (hist.n && !strcmp(hist.lines[hist.n - 1], line)))
        return;
    if (hist.n == HISTORY_MAX) {
        free(hist.lines[0]);
        memmove(hist.lines, hist.lines + 1, sizeof hist.lines[0] * (HISTORY_MAX - 1));
        hist.n--;
    }
    hist.lines[hist.n++] = xstrdup(line);
#ifdef HAVE_READLINE
    add_history(line);
#endif
}

void prompt_init(void)
{
    char path[1024];
    char *text;
    size_t len;
#ifdef HAVE_READLINE
    using_history();
    stifle_history(HISTORY_MAX);
#endif
    if (!prompt_history_path(path, sizeof path) ||
        file_read_all(path, 1 << 20, &text, &len, NULL) != ST_OK)
        return;
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = 0;
        hist_add(p);
        if (!nl)
            break;
        p = nl + 1;
    }
    free(text);
}

void prompt_fini(bool save)
{
    char path[1024];
    if (save && hist.n && prompt_history_path(path, sizeof path)) {
        size_t len = 0, cap = 1;
        for (int i = 0; i < hist.n; i++)
            cap += strlen(hist.lines[i]) + 1;
        char *buf = xmalloc(cap);
        for (int i = 0; i < hist.n; i++) {
            size_t n = strlen(hist.lines[i]);
            memcpy(buf + len, hist.lines[i], n);
            len += n;
            buf[len++] = '\n';
        }
        make_parent(path);
        file_write_atomic(path, buf, len, true, NULL);
        free(buf);
    }
    for (int i = 0; i < hist.n; i++)
        free(hist.lines[i]);
    hist.n = 0;
#ifdef HAVE_READLINE
    clear_history();
#endif
}

/* ================================================================== */
/* completion candidates (both editors)                                */
/* ================================================================== */

struct cands {
    char **v;
    int n, cap;
    const char *prefix;
    size_t plen;
};

static void cand_add(void *ctx, const char *s)
{
    struct cands *c = ctx;
    if (strncasecmp(s, c->prefix, c->plen) != 0)
        return;
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->v[i], s))
            return;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 32;
        c->v = xreallocarray(c->v, (size_t)c->cap, sizeof *c->v);
    }
    c->v[c->n++] = xstrdup(s);
}

static void cands_free(struct cands *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->v[i]);
    free(c->v);
    memset(c, 0, sizeof *c);
}

/* Matches as one hint line: "a100  h100  h200 ..." */
static void hint_of(const struct cands *c, char *buf, int size)
{
    int len = 0;
    buf[0] = 0;
    for (int i = 0; i < c->n && len < size - 8; i++)
        len += snprintf(buf + len, (size_t)(size - len), "%s%s", i ? "  " : "", c->v[i]);
}

/* ================================================================== */
/* readline, hooked into the status line                               */
/* ================================================================== */
#ifdef HAVE_READLINE

/* The hooks of the line being read (readline has no context pointer). */
static const struct prompt_io *pr_io;
static const char *pr_prompt_text;
static unsigned char pr_pending[8];
static int pr_n_pending, pr_pos_pending;
static bool pr_done;
static char *pr_result;
static char pr_hint[512];
static FILE *pr_null;
static struct cands pr_cands;

static int pr_getc_hook(FILE *f)
{
    (void)f;
    if (pr_pos_pending < pr_n_pending)
        return pr_pending[pr_pos_pending++];
    return EOF;
}

static int pr_input_avail_hook(void)
{
    return pr_pos_pending < pr_n_pending;
}

static void pr_redisplay_hook(void)
{
    pr_io->redisplay(pr_io->ctx, pr_prompt_text, rl_line_buffer, rl_point,
                     pr_hint[0] ? pr_hint : NULL);
}

static void pr_line_hook(char *line)
{
    pr_done = true;
    pr_result = line; /* NULL on EOF (Ctrl-D on an empty line) */
    rl_callback_handler_remove();
}

static void pr_noop_prep(int meta)
{
    (void)meta;
}

static void pr_noop_deprep(void)
{
}

static char *pr_generator(const char *text, int state)
{
    static int i;
    if (!state)
        i = 0;
    (void)text;
    return i < pr_cands.n ? strdup(pr_cands.v[i++]) : NULL;
}

static char **pr_complete_hook(const char *text, int start, int end)
{
    (void)end;
    cands_free(&pr_cands);
    pr_cands.prefix = text;
    pr_cands.plen = strlen(text);
    bool only_ours = cmd_complete(pr_io->app, rl_line_buffer, start, cand_add, &pr_cands);
    rl_attempted_completion_over = only_ours;
    /* "seq=" and "gpu:" candidates continue the word: no space after them */
    rl_completion_append_character = ' ';
    if (pr_cands.n == 1) {
        size_t n = strlen(pr_cands.v[0]);
        if (n && (pr_cands.v[0][n - 1] == '=' || pr_cands.v[0][n - 1] == ':'))
            rl_completion_append_character = '\0';
    }
    hint_of(&pr_cands, pr_hint, sizeof pr_hint);
    if (pr_cands.n <= 1)
        pr_hint[0] = 0;
    return pr_cands.n || only_ours ? rl_completion_matches(text, pr_generator) : NULL;
}

static void pr_display_matches_hook(char **matches, int n, int max_len)
{
    (void)max_len;
    int len = 0;
    pr_hint[0] = 0;
    for (int i = 1; i <= n && len < (int)sizeof pr_hint - 8; i++)
        len += snprintf(pr_hint + len, sizeof pr_hint - (size_t)len, "%s%s", i > 1 ? "  " : "",
                        matches[i]);
    rl_forced_update_display();
}

static void pr_setup(void)
{
    if (!pr_null)
        pr_null = fopen("/dev/null", "w");
    rl_readline_name = "dippm";
    rl_instream = stdin;
    rl_outstream = pr_null; /* nothing may reach the curses screen */
    rl_catch_signals = 0;
    rl_catch_sigwinch = 0;
    rl_change_environment = 0;
    rl_prep_term_function = pr_noop_prep;
    rl_deprep_term_function = pr_noop_deprep;
    rl_getc_function = pr_getc_hook;
    rl_input_available_hook = pr_input_avail_hook;
    rl_redisplay_function = pr_redisplay_hook;
    rl_attempted_completion_function = pr_complete_hook;
    rl_completion_display_matches_hook = pr_display_matches_hook;
    rl_completer_word_break_characters = " \t";
    rl_inhibit_completion = 0;
    rl_bind_key('\t', rl_complete);
}

/* A ui_key as the bytes readline expects (emacs bindings). */
static int key_bytes(int key, unsigned char *out)
{
    switch (key) {
    case UI_KEY_LEFT: out[0] = 2; return 1;  /* C-b */
    case UI_KEY_RIGHT: out[0] = 6; return 1; /* C-f */
    case UI_KEY_UP: out[0] = 16; return 1;   /* C-p */
    case UI_KEY_DOWN: out[0] = 14; return 1; /* C-n */
    case UI_KEY_HOME: out[0] = 1; return 1;  /* C-a */
    case UI_KEY_END: out[0] = 5; return 1;   /* C-e */
    case UI_KEY_BACKSPACE: out[0] = 127; return 1;
    case UI_KEY_DELETE: out[0] = 4; return 1;
    case UI_KEY_ENTER: out[0] = '\n'; return 1;
    default: break;
    }
    if (key >= UI_KEY_BASE || key < 0)
        return 0;
    char u[5];
    int n = draw_utf8_put((uint32_t)key, u);
    memcpy(out, u, (size_t)n);
    return n;
}

char *prompt_read(const struct prompt_io *io, const char *prompt, const char *initial)
{
    pr_setup();
    pr_io = io;
    pr_prompt_text = prompt;
    pr_done = false;
    pr_result = NULL;
    pr_hint[0] = 0;
    pr_n_pending = pr_pos_pending = 0;
    rl_callback_handler_install("", pr_line_hook);
    if (initial && *initial) {
        rl_insert_text(initial);
        rl_point = rl_end;
    }
    pr_redisplay_hook();
    bool cancelled = false;
    while (!pr_done) {
        int key = io->get_key(io->ctx);
        if (key == -2) {
            cancelled = true;
            break;
        }
        if (key == -1) {
            pr_redisplay_hook();
            continue;
        }
        if (key == UI_KEY_ESC || key == UI_KEY_CTRL('c') || key == UI_KEY_CTRL('g')) {
            cancelled = true;
            break;
        }
        if (key != UI_KEY_TAB)
            pr_hint[0] = 0;
        pr_n_pending = key_bytes(key, pr_pending);
        pr_pos_pending = 0;
        while (!pr_done && pr_pos_pending < pr_n_pending)
            rl_callback_read_char();
    }
    if (cancelled) {
        rl_callback_handler_remove();
        free(pr_result);
        pr_result = NULL;
    }
    cands_free(&pr_cands);
    pr_io = NULL;
    char *line = pr_result;
    pr_result = NULL;
    if (line)
        hist_add(line);
    return line;
}

const char *prompt_backend(void)
{
    return "readline";
}

#else /* plain line editor */

/* Inserts the UTF-8 encoding of key at byte *cur of buf. */
static void insert_at(char *buf, size_t size, int *cur, int key)
{
    char u[5];
    int n = draw_utf8_put((uint32_t)key, u);
    size_t len = strlen(buf);
    if (len + (size_t)n + 1 > size)
        return;
    memmove(buf + *cur + n, buf + *cur, len - (size_t)*cur + 1);
    memcpy(buf + *cur, u, (size_t)n);
    *cur += n;
}

/* Byte offset of the code point before / after *cur. */
static int prev_cp(const char *buf, int cur)
{
    while (cur > 0 && ((unsigned char)buf[cur - 1] & 0xC0) == 0x80)
        cur--;
    return cur > 0 ? cur - 1 : 0;
}

static int next_cp(const char *buf, int cur)
{
    if (!buf[cur])
        return cur;
    cur++;
    while (((unsigned char)buf[cur] & 0xC0) == 0x80)
        cur++;
    return cur;
}

char *prompt_read(const struct prompt_io *io, const char *prompt, const char *initial)
{
    char buf[UI_TEXT_MAX * 4], hint[512] = "";
    snprintf(buf, sizeof buf, "%s", initial ? initial : "");
    int cur = (int)strlen(buf);
    int h = hist.n; /* history position: hist.n = the line being edited */
    char draft[sizeof buf];
    snprintf(draft, sizeof draft, "%s", buf);
    for (;;) {
        io->redisplay(io->ctx, prompt, buf, cur, hint[0] ? hint : NULL);
        int key = io->get_key(io->ctx);
        if (key == -2)
            return NULL;
        if (key == -1)
            continue;
        hint[0] = 0;
        switch (key) {
        case UI_KEY_ESC:
        case UI_KEY_CTRL('c'):
        case UI_KEY_CTRL('g'):
            return NULL;
        case UI_KEY_ENTER:
        case '\r':
            hist_add(buf);
            return xstrdup(buf);
        case UI_KEY_LEFT:
        case UI_KEY_CTRL('b'):
            cur = prev_cp(buf, cur);
            continue;
        case UI_KEY_RIGHT:
        case UI_KEY_CTRL('f'):
            cur = next_cp(buf, cur);
            continue;
        case UI_KEY_HOME:
        case UI_KEY_CTRL('a'):
            cur = 0;
            continue;
        case UI_KEY_END:
        case UI_KEY_CTRL('e'):
            cur = (int)strlen(buf);
            continue;
        case UI_KEY_BACKSPACE:
        case 127:
        case 8:
            if (cur > 0) {
                int p = prev_cp(buf, cur);
                memmove(buf + p, buf + cur, strlen(buf + cur) + 1);
                cur = p;
            }
            continue;
        case UI_KEY_DELETE:
        case UI_KEY_CTRL('d'):
            if (buf[cur]) {
                int nx = next_cp(buf, cur);
                memmove(buf + cur, buf + nx, strlen(buf + nx) + 1);
            }
            continue;
        case UI_KEY_CTRL('u'):
            memmove(buf, buf + cur, strlen(buf + cur) + 1);
            cur = 0;
            continue;
        case UI_KEY_CTRL('k'):
            buf[cur] = 0;
            continue;
        case UI_KEY_UP:
        case UI_KEY_DOWN:
        case UI_KEY_CTRL('p'):
        case UI_KEY_CTRL('n'): {
            if (h == hist.n)
                snprintf(draft, sizeof draft, "%s", buf);
            h += key == UI_KEY_UP || key == UI_KEY_CTRL('p') ? -1 : 1;
            if (h < 0)
                h = 0;
            if (h > hist.n)
                h = hist.n;
            snprintf(buf, sizeof buf, "%s", h == hist.n ? draft : hist.lines[h]);
            cur = (int)strlen(buf);
            continue;
        }
        case UI_KEY_TAB: {
            /* complete the word before the cursor to the longest common prefix */
            int start = cur;
            while (start > 0 && buf[start - 1] != ' ')
                start--;
            char word[sizeof buf];
            snprintf(word, sizeof word, "%.*s", cur - start, buf + start);
            struct cands c = {0};
            c.prefix = word;
            c.plen = strlen(word);
            cmd_complete(io->app, buf, start, cand_add, &c);
            if (c.n > 0) {
                size_t common = strlen(c.v[0]);
                for (int i = 1; i < c.n; i++)
                    for (size_t k = 0; k < common; k++)
                        if (c.v[i][k] != c.v[0][k]) {
                            common = k;
                            break;
                        }
                for (size_t k = c.plen; k < common; k++)
                    insert_at(buf, sizeof buf, &cur, (unsigned char)c.v[0][k]);
                if (c.n == 1 && common && c.v[0][common - 1] != '=' && c.v[0][common - 1] != ':')
                    insert_at(buf, sizeof buf, &cur, ' ');
                if (c.n > 1)
                    hint_of(&c, hint, sizeof hint);
            }
            cands_free(&c);
            continue;
        }
        default:
            if (key >= 32 && key != 127 && key < UI_KEY_BASE)
                insert_at(buf, sizeof buf, &cur, key);
            continue;
        }
    }
}

const char *prompt_backend(void)
{
    return "plain";
}

#endif
