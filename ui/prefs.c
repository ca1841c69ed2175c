/* prefs.c - the explorer's preferences file (see prefs.h). */
#include "ui/prefs.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "util/fileio.h"
#include "util/textsafe.h"

const char *prefs_path(char *buf, int size)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && *xdg)
        n = snprintf(buf, (size_t)size, "%s/dippm/explorer", xdg);
    else if (home && *home)
        n = snprintf(buf, (size_t)size, "%s/.config/dippm/explorer", home);
    else
        return NULL;
    return n >= 0 && n < size ? buf : NULL;
}

/* One "KEY VALUE" line (comment and spaces stripped, not empty). */
static enum status parse_line(struct prefs *p, char *key, int ln, struct diag *d)
{
    char *val = key + strcspn(key, " \t");
    if (*val)
        *val++ = 0;
    val += strspn(val, " \t");
    if (!*val)
        return diag_set(d, ST_EPARSE, "%s:%d: '%s' without a value (expected KEY VALUE)", p->path,
                        ln, tsafe(key));
    enum precision prec;
    enum runtime rt;
    if (!strcmp(key, "theme")) {
        if (strcmp(val, "color") && strcmp(val, "mono"))
            return diag_set(d, ST_EPARSE, "%s:%d: theme '%s': expected color or mono", p->path, ln,
                            tsafe(val));
        p->mono = !strcmp(val, "mono");
    } else if (!strcmp(key, "gpu")) {
        snprintf(p->gpu, sizeof p->gpu, "%s", val);
        p->gpu_line = ln;
    } else if (!strcmp(key, "precision")) {
        if (!precision_parse(val, &prec))
            return diag_set(d, ST_EPARSE,
                            "%s:%d: precision '%s': not a precision dippm knows "
                            "(:precision Tab lists them)",
                            p->path, ln, tsafe(val));
        snprintf(p->prec, sizeof p->prec, "%s", val);
        p->prec_line = ln;
    } else if (!strcmp(key, "runtime")) {
        if (!runtime_parse(val, &rt))
            return diag_set(d, ST_EPARSE, "%s:%d: runtime '%s': expected %s", p->path, ln,
                            tsafe(val), runtime_names());
        snprintf(p->rt, sizeof p->rt, "%s", val);
        p->rt_line = ln;
    } else {
        return diag_set(d, ST_EPARSE,
                        "%s:%d: unknown key '%s' (expected theme, gpu, precision or runtime)",
                        p->path, ln, tsafe(key));
    }
    return ST_OK;
}

enum status prefs_load(struct prefs *p, struct diag *d)
{
    memset(p, 0, sizeof *p);
    char path[sizeof p->path];
    if (!prefs_path(path, (int)sizeof path))
        return ST_OK;
    char *text;
    size_t len;
    struct diag rd = {0};
    enum status st = file_read_all(path, 1 << 16, &text, &len, &rd);
    if (st == ST_ENOTFOUND)
        return ST_OK; /* no preferences */
    if (st) {
        *d = rd;
        return st;
    }
    snprintf(p->path, sizeof p->path, "%s", path);
    int ln = 0;
    for (char *line = text; line && !st;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        ln++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        line += strspn(line, " \t\r");
        size_t n = strlen(line);
        while (n && isspace((unsigned char)line[n - 1]))
            line[--n] = 0;
        if (*line)
            st = parse_line(p, line, ln, d);
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    return st;
}

/* d's message prefixed with the file and line of the value it is about. */
static enum status blame(const struct prefs *p, int ln, const char *key, enum status st,
                         struct diag *d)
{
    diag_prefix(d, "%s:%d: %s", p->path, ln, key);
    return st;
}

enum status prefs_apply(struct app *a, const struct prefs *p, struct diag *d)
{
    enum status st;
    if (p->gpu[0] && (st = app_set_gpu(a, p->gpu, d)))
        return blame(p, p->gpu_line, "gpu", st, d);
    struct config c = a->cfg;
    if (p->prec[0])
        precision_parse(p->prec, &c.prec);
    if (p->rt[0])
        runtime_parse(p->rt, &c.rt);
    if ((p->prec[0] || p->rt[0]) && (st = app_set_config(a, &c, d)))
        return blame(p, p->prec[0] ? p->prec_line : p->rt_line,
                     p->prec[0] ? "precision" : "runtime", st, d);
    app_whatif_get(a, &a->saved);
    return ST_OK;
}
