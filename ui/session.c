/* session.c - sessions as small text files (format in session.h). */
#include "ui/session.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"
#include "core/gpu.h"
#include "util/xalloc.h"

#define SESSION_MAX_BYTES (1 << 20)

/* The sessions directory into buf: its length, -1 when neither variable
 * is set, or size or more when it does not fit (never used cut). */
static int session_dir(char *buf, int size)
{
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    if (xdg && *xdg == '/')
        return snprintf(buf, (size_t)size, "%s/dippm/sessions", xdg);
    if (home && *home)
        return snprintf(buf, (size_t)size, "%s/.local/state/dippm/sessions", home);
    return -1;
}

/* mkdir -p (mode 0700 as XDG asks); a directory that cannot be made is
 * named with the reason (a read-only parent says so, not that the session
 * file is missing). */
static enum status make_dirs(const char *path, struct diag *d)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *p = dir + 1;
    for (;;) {
        while (*p && *p != '/')
            p++;
        char c = *p;
        *p = 0;
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return diag_set(d, ST_EIO, "cannot create the sessions directory %s: %s", dir,
                            strerror(errno));
        if (!c)
            return ST_OK;
        *p++ = '/';
    }
}

enum status session_path(const char *name, char *buf, int size, struct diag *d)
{
    size_t n = strlen(name);
    bool ok = n >= 1 && n <= 48 && name[0] != '.';
    for (size_t i = 0; ok && i < n; i++)
        ok = isalnum((unsigned char)name[i]) || strchr("._-", name[i]);
    if (!ok)
        return diag_set(d, ST_EUSAGE,
                        "session name '%s': expected 1-48 letters, digits, '.', '_' or '-'", name);
    char dir[900];
    int len = session_dir(dir, sizeof dir);
    if (len < 0)
        return diag_set(d, ST_EUSAGE, "neither XDG_STATE_HOME nor HOME is set: nowhere to keep "
                                      "sessions");
    if (len >= (int)sizeof dir || snprintf(buf, (size_t)size, "%s/%s.session", dir, name) >= size)
        return diag_set(d, ST_EUSAGE, "the sessions directory under %s is %d characters, more "
                        "than the %d a session path may have: set XDG_STATE_HOME shorter",
                        getenv("XDG_STATE_HOME") && *getenv("XDG_STATE_HOME") == '/'
                            ? "XDG_STATE_HOME" : "HOME",
                        len, (int)sizeof dir - 1);
    return ST_OK;
}

/* ---- writing ---------------------------------------------------------- */

struct sbuf {
    char *p;
    size_t len, cap;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap * 2 + (size_t)(n > 0 ? n : 64);
        b->p = xrealloc(b->p, b->cap);
    }
}

/* A model file named relative to the working directory, made absolute so
 * the session opens from any directory (a zoo: spec is kept as it is). */
static enum status spec_absolute(const char *spec, char *out, size_t size, struct diag *d)
{
    char cwd[4096];
    if (!strncmp(spec, "zoo:", 4) || spec[0] == '/') {
        snprintf(out, size, "%s", spec);
        return ST_OK;
    }
    if (!getcwd(cwd, sizeof cwd))
        return diag_set(d, ST_EIO, "%s: cannot name it from the root (the working directory: "
                        "%s), so a session could not reopen it", spec, strerror(errno));
    const char *rel = strncmp(spec, "./", 2) ? spec : spec + 2;
    if (snprintf(out, size, "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", rel) >= (int)size)
        return diag_set(d, ST_EUSAGE, "%s/%s: more than %zu characters, too long for a session",
                        cwd, rel, size - 1);
    return ST_OK;
}

static enum status write_whatif(struct sbuf *b, const char *section, const struct app_whatif *w,
                                struct diag *d)
{
    char spec[APP_SPEC_MAX];
    enum status st = spec_absolute(w->spec, spec, sizeof spec, d);
    if (st)
        return st;
    const struct gpu_spec *gpu = gpu_get(w->cfg.gpu);
    sb_printf(b, "[%s]\nmodel %s\ngpu %s\nmig %s\nprecision %s\nruntime %s\nbatch %lld\nslo %g\n",
              section, spec, gpu ? gpu->name : "?",
              gpu && w->cfg.mig >= 0 && w->cfg.mig < gpu->n_mig ? gpu->mig[w->cfg.mig].name
                                                                 : "full",
              precision_name(w->cfg.prec), runtime_name(w->cfg.rt), (long long)w->cfg.batch,
              w->slo_ms);
    if (w->cfg.quant.scheme != QUANT_NONE) { /* older sessions have no such line */
        char q[64];
        quant_format(&w->cfg.quant, q, sizeof q);
        sb_printf(b, "quant %s\n", q);
    }
    for (int i = 0; i < w->n_syms; i++)
        sb_printf(b, "sym %s %lld\n", w->sym_name[i], (long long)w->sym_val[i]);
    return ST_OK;
}

static enum status session_exists(const char *name, const char *path, struct diag *d)
{
    return diag_set(d, ST_EEXIST, "session '%s' exists (%s); ':w! %s' overwrites it", name, path,
                    name);
}

enum status session_save(struct app *a, const char *name, bool force, struct diag *d)
{
    char path[1024];
    enum status st = session_path(name, path, sizeof path, d);
    if (st)
        return st;
    bool overwrite = force || !strcmp(a->session, name);
    if (!overwrite && file_exists(path))
        return session_exists(name, path, d);
    struct sbuf b = {xmalloc(1024), 0, 1024};
    struct app_whatif cur;
    app_whatif_get(a, &cur);
    sb_printf(&b, "dippm-session 1\n");
    st = write_whatif(&b, "current", &cur, d);
    for (int i = 0; i < a->n_pins && !st; i++)
        st = write_whatif(&b, "pin", &a->pins[i].w, d);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = 0;
    if (!st)
        st = make_dirs(dir, d);
    /* without overwrite the writer itself refuses an existing file: another
     * explorer saving the same name since the check above loses no data */
    if (!st)
        st = file_write_atomic(path, b.p, b.len, overwrite, d);
    free(b.p);
    if (st == ST_EEXIST) {
        diag_clear(d);
        return session_exists(name, path, d);
    }
    if (st)
        return st;
    snprintf(a->session, sizeof a->session, "%s", name);
    a->saved = cur;
    return ST_OK;
}

/* ---- reading ---------------------------------------------------------- */

#define SESSION_MAX_STATES (1 + APP_PINS_MAX)

/* spec through the one GPU[:PROFILE] parser (gpu_target_parse); its message
 * follows where. */
static enum status target(const char *spec, int cur, int *gpu, int *mig, const char *where,
                          struct diag *d)
{
    if (!gpu_target_parse(spec, cur, gpu, mig, d))
        return ST_OK;
    diag_prefix(d, "%s", where);
    if (d)
        d->code = ST_EPARSE;
    return ST_EPARSE;
}

static enum status parse_line(struct app_whatif *w, const char *key, char *val,
                              const char *where, struct diag *d)
{
    char *end;
    if (!strcmp(key, "model")) {
        if (!*val || strlen(val) >= sizeof w->spec)
            return diag_set(d, ST_EPARSE, "%s: model: expected a file or zoo: spec", where);
        snprintf(w->spec, sizeof w->spec, "%s", val);
    } else if (!strcmp(key, "gpu")) { /* a GPU alone: its slice is the mig line */
        int gpu, mig;
        if (strchr(val, ':'))
            return diag_set(d, ST_EPARSE, "%s: gpu '%s': a GPU name alone (the slice goes on "
                            "the mig line)", where, val);
        if (target(val, -1, &gpu, &mig, where, d))
            return ST_EPARSE;
        w->cfg.gpu = gpu;
    } else if (!strcmp(key, "mig")) { /* a profile or full, as ":gpu :PROFILE" takes it */
        char spec[96];
        int gpu, mig;
        snprintf(spec, sizeof spec, ":%s", val);
        if (target(spec, w->cfg.gpu, &gpu, &mig, where, d))
            return ST_EPARSE;
        w->cfg.mig = mig;
    } else if (!strcmp(key, "precision")) {
        if (!precision_parse(val, &w->cfg.prec))
            return diag_set(d, ST_EPARSE, "%s: precision '%s': not a precision dippm knows "
                                          "(:precision Tab lists them)", where, val);
    } else if (!strcmp(key, "runtime")) {
        if (!runtime_parse(val, &w->cfg.rt))
            return diag_set(d, ST_EPARSE,
                            "%s: runtime '%s': expected %s", where, val,
                            runtime_names());
    } else if (!strcmp(key, "quant")) {
        struct diag qd = {0};
        if (quant_parse(val, &w->cfg.quant, &qd)) /* its message names the CLI's --quant */
            return diag_set(d, ST_EPARSE, "%s: %s", where, qd.msg + 2 * !strncmp(qd.msg, "--", 2));
    } else if (!strcmp(key, "batch")) {
        errno = 0;
        long long v = strtoll(val, &end, 10);
        if (errno || end == val || *end || v < 1 || v > APP_BATCH_MAX)
            return diag_set(d, ST_EPARSE, "%s: batch '%s': expected an integer 1..%lld", where,
                            val, (long long)APP_BATCH_MAX);
        w->cfg.batch = v;
    } else if (!strcmp(key, "slo")) {
        errno = 0;
        double v = strtod(val, &end);
        if (errno || end == val || *end || !(v >= 0) || v > 1e7)
            return diag_set(d, ST_EPARSE, "%s: slo '%s': expected milliseconds (0 = none)",
                            where, val);
        w->slo_ms = v;
    } else if (!strcmp(key, "sym")) {
        char *sp = strchr(val, ' ');
        if (!sp || w->n_syms == APP_WHATIF_SYMS)
            return diag_set(d, ST_EPARSE, "%s: sym: expected 'sym NAME VALUE' (at most %d)",
                            where, APP_WHATIF_SYMS);
        *sp = 0;
        errno = 0;
        long long v = strtoll(sp + 1, &end, 10);
        if (errno || end == sp + 1 || *end || v < 1 || strlen(val) >= sizeof w->sym_name[0])
            return diag_set(d, ST_EPARSE, "%s: sym %s: expected a positive integer", where, val);
        snprintf(w->sym_name[w->n_syms], sizeof w->sym_name[0], "%s", val);
        w->sym_val[w->n_syms++] = v;
    } else {
        return diag_set(d, ST_EPARSE,
                        "%s: unknown key '%s' (expected model, gpu, mig, precision, runtime, "
                        "quant, batch, slo or sym)", where, key);
    }
    return ST_OK;
}

/* Parses text into states[0] (current) and the pins after it. */
static enum status parse(const char *path, char *text, struct app_whatif *states, int *n,
                         struct diag *d)
{
    int line_no = 0, cur = -1;
    bool gpu_seen = false, mig_seen = false; /* in this section */
    *n = 0;
    char where[1100];
    for (char *p = text; p && *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = 0;
        char *line = p;
        p = nl ? nl + 1 : NULL;
        line_no++;
        snprintf(where, sizeof where, "%s line %d", path, line_no);
        size_t len = strlen(line);
        while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
            line[--len] = 0;
        if (line_no == 1) {
            if (strcmp(line, "dippm-session 1"))
                return diag_set(d, ST_EPARSE, "%s: expected 'dippm-session 1'", where);
            continue;
        }
        if (!*line || line[0] == '#')
            continue;
        if (!strcmp(line, "[current]") || !strcmp(line, "[pin]")) {
            if ((line[1] == 'c') != (*n == 0))
                return diag_set(d, ST_EPARSE, "%s: [current] must come first, once", where);
            if (*n == SESSION_MAX_STATES)
                return diag_set(d, ST_EPARSE, "%s: more than %d pins", where, APP_PINS_MAX);
            cur = (*n)++;
            gpu_seen = mig_seen = false;
            memset(&states[cur], 0, sizeof states[cur]);
            config_default(&states[cur].cfg);
            continue;
        }
        if (cur < 0)
            return diag_set(d, ST_EPARSE, "%s: expected [current] before any setting", where);
        char *sp = strchr(line, ' ');
        if (!sp)
            return diag_set(d, ST_EPARSE, "%s: expected 'KEY VALUE'", where);
        *sp = 0;
        /* a slice is a profile of the section's GPU: read against another
         * GPU's profiles it would be remapped by index */
        if (!strcmp(line, "mig") && !gpu_seen)
            return diag_set(d, ST_EPARSE, "%s: mig before gpu: gpu must come first", where);
        if (!strcmp(line, "gpu") && mig_seen)
            return diag_set(d, ST_EPARSE, "%s: gpu after mig: gpu must come first", where);
        gpu_seen = gpu_seen || !strcmp(line, "gpu");
        mig_seen = mig_seen || !strcmp(line, "mig");
        enum status st = parse_line(&states[cur], line, sp + 1, where, d);
        if (st)
            return st;
    }
    if (*n == 0)
        return diag_set(d, ST_EPARSE, "%s: no [current] section", path);
    for (int i = 0; i < *n; i++)
        if (!states[i].spec[0])
            return diag_set(d, ST_EPARSE, "%s: a section without 'model'", path);
    return ST_OK;
}

enum status session_load(struct app *a, const char *name, struct diag *d)
{
    char path[1024];
    enum status st = session_path(name, path, sizeof path, d);
    if (st)
        return st;
    if (!file_exists(path))
        return diag_set(d, ST_ENOTFOUND, "no session '%s' (%s); ':w %s' saves one", name, path,
                        name);
    char *text;
    size_t len;
    if ((st = file_read_all(path, SESSION_MAX_BYTES, &text, &len, d)))
        return st;
    struct app_whatif *states = xcalloc(SESSION_MAX_STATES, sizeof *states);
    int n = 0;
    st = parse(path, text, states, &n, d);
    free(text);
    struct app_whatif before;
    app_whatif_get(a, &before);
    /* each pin first (applying it and pinning), then the current state */
    for (int i = 1; !st && i < n; i++) {
        if (!(st = app_whatif_apply(a, &states[i], d)) && i == 1)
            app_pins_clear(a);
        if (!st)
            app_pin(a);
    }
    if (!st)
        st = app_whatif_apply(a, &states[0], d);
    if (st) {
        struct diag ignore = {0};
        app_whatif_apply(a, &before, &ignore);
        diag_prefix(d, "session %s", name);
    } else {
        if (n == 1)
            app_pins_clear(a);
        snprintf(a->session, sizeof a->session, "%s", name);
        a->saved = states[0];
        app_whatif_get(a, &a->saved);
    }
    free(states);
    return st;
}

void session_list(void (*add)(void *ctx, const char *name), void *ctx)
{
    char dir[1024];
    int len = session_dir(dir, sizeof dir);
    if (len < 0 || len >= (int)sizeof dir)
        return;
    DIR *dp = opendir(dir);
    if (!dp)
        return;
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t n = strlen(e->d_name);
        if (n > 8 && !strcmp(e->d_name + n - 8, ".session") && e->d_name[0] != '.') {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(n - 8), e->d_name);
            add(ctx, name);
        }
    }
    closedir(dp);
}
