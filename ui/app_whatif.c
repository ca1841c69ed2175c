/* app_whatif.c - the what-if state as a value: capture, compare, apply;
 * undo and redo of configuration changes on top of it. */
#include "ui/app.h"

#include <stdio.h>
#include <string.h>

#include "core/gpu.h"

/* Whether a what-if state can hold the symbol's name whole (never cut: a
 * cut name matches no symbol when applied). */
static bool whatif_keeps(const char *sym)
{
    return strlen(sym) < APP_SYM_NAME_MAX;
}

void app_whatif_get(const struct app *a, struct app_whatif *w)
{
    memset(w, 0, sizeof *w);
    snprintf(w->spec, sizeof w->spec, "%s", a->spec);
    w->cfg = a->cfg;
    w->slo_ms = a->slo_ms;
    if (!a->g)
        return;
    int bs = graph_batch_sym(a->g);
    for (int i = 0; i < a->g->n_syms && w->n_syms < APP_WHATIF_SYMS; i++) {
        if (i == bs || !whatif_keeps(a->g->syms[i].name))
            continue;
        snprintf(w->sym_name[w->n_syms], sizeof w->sym_name[0], "%s", a->g->syms[i].name);
        w->sym_val[w->n_syms++] = a->g->syms[i].val;
    }
}

bool app_whatif_equal(const struct app_whatif *x, const struct app_whatif *y)
{
    if (strcmp(x->spec, y->spec) || x->slo_ms != y->slo_ms || x->n_syms != y->n_syms)
        return false;
    const struct config *p = &x->cfg, *q = &y->cfg;
    if (p->gpu != q->gpu || p->mig != q->mig || p->prec != q->prec || p->rt != q->rt ||
        p->batch != q->batch || !quant_equal(&p->quant, &q->quant))
        return false;
    for (int i = 0; i < x->n_syms; i++)
        if (strcmp(x->sym_name[i], y->sym_name[i]) || x->sym_val[i] != y->sym_val[i])
            return false;
    return true;
}

/* Appends "NAME A -> B" to buf. */
static void diff_add(char *buf, int size, const char *name, const char *x, const char *y)
{
    size_t len = strlen(buf);
    if ((int)len < size)
        snprintf(buf + len, (size_t)size - len, "%s%s %s -> %s", len ? ", " : "", name, x, y);
}

static const char *gpu_text(const struct config *c, char *buf, int size)
{
    const struct gpu_spec *g = gpu_get(c->gpu);
    snprintf(buf, (size_t)size, "%s%s%s", g ? g->name : "?", g && c->mig >= 0 ? ":" : "",
             g && c->mig >= 0 && c->mig < g->n_mig ? g->mig[c->mig].name : "");
    return buf;
}

static const char *slo_text(double ms, char *buf, int size)
{
    if (ms > 0)
        snprintf(buf, (size_t)size, "%g ms", ms);
    else
        snprintf(buf, (size_t)size, "none");
    return buf;
}

static const char *quant_text(const struct quant *q, char *buf, int size)
{
    quant_format(q, buf, (size_t)size);
    return buf;
}

const char *app_whatif_diff(const struct app_whatif *x, const struct app_whatif *y, char *buf,
                            int size)
{
    char p[96], q[96];
    buf[0] = 0;
    if (strcmp(x->spec, y->spec))
        diff_add(buf, size, "model", x->spec, y->spec);
    if (x->cfg.gpu != y->cfg.gpu || x->cfg.mig != y->cfg.mig)
        diff_add(buf, size, "GPU", gpu_text(&x->cfg, p, sizeof p), gpu_text(&y->cfg, q, sizeof q));
    if (x->cfg.prec != y->cfg.prec)
        diff_add(buf, size, "precision", precision_name(x->cfg.prec), precision_name(y->cfg.prec));
    if (!quant_equal(&x->cfg.quant, &y->cfg.quant))
        diff_add(buf, size, "quant", quant_text(&x->cfg.quant, p, sizeof p),
                 quant_text(&y->cfg.quant, q, sizeof q));
    if (x->cfg.rt != y->cfg.rt)
        diff_add(buf, size, "runtime", runtime_name(x->cfg.rt), runtime_name(y->cfg.rt));
    if (x->cfg.batch != y->cfg.batch) {
        snprintf(p, sizeof p, "%lld", (long long)x->cfg.batch);
        snprintf(q, sizeof q, "%lld", (long long)y->cfg.batch);
        diff_add(buf, size, "batch", p, q);
    }
    if (x->slo_ms != y->slo_ms)
        diff_add(buf, size, "SLO", slo_text(x->slo_ms, p, sizeof p), slo_text(y->slo_ms, q, sizeof q));
    /* a symbol of the same name on both sides (a new model brings its own) */
    for (int i = 0; i < x->n_syms; i++)
        for (int j = 0; j < y->n_syms; j++)
            if (!strcmp(x->sym_name[i], y->sym_name[j]) && x->sym_val[i] != y->sym_val[j]) {
                snprintf(p, sizeof p, "%lld", (long long)x->sym_val[i]);
                snprintf(q, sizeof q, "%lld", (long long)y->sym_val[j]);
                diff_add(buf, size, x->sym_name[i], p, q);
            }
    return buf;
}

/* Applies w without restoring anything on failure. */
static enum status apply_raw(struct app *a, const struct app_whatif *w, struct diag *d)
{
    enum status st;
    if (!a->g || strcmp(w->spec, a->spec)) {
        if ((st = app_open_view(a, w->spec, true, d)))
            return st;
    }
    struct hw hw;
    if ((st = hw_from_config(&w->cfg, &hw, d)) || (st = app_check_quant(&w->cfg, d)))
        return st;
    if (w->cfg.batch < 1 || w->cfg.batch > APP_BATCH_MAX)
        return diag_set(d, ST_ERANGE, "batch %lld out of range 1..%lld",
                        (long long)w->cfg.batch, (long long)APP_BATCH_MAX);
    if (w->cfg.batch != 1 && graph_batch_sym(a->g) < 0)
        return diag_set(d, ST_EUSAGE, "batch %lld: the model has no batch dimension",
                        (long long)w->cfg.batch);
    if (!(w->slo_ms >= 0) || w->slo_ms > 1e7)
        return diag_set(d, ST_ERANGE, "slo %g ms: expected 0 (none) to 10000000 ms", w->slo_ms);
    int bs = graph_batch_sym(a->g);
    for (int i = 0; i < a->g->n_syms; i++)
        if (i != bs && whatif_keeps(a->g->syms[i].name))
            a->g->syms[i].val = a->g->syms[i].def;
    for (int i = 0; i < w->n_syms; i++)
        if ((st = graph_sym_set(a->g, w->sym_name[i], w->sym_val[i], d)))
            return st;
    a->cfg = w->cfg;
    a->slo_ms = w->slo_ms;
    a->sweep_gen++;
    return app_recompute(a, d);
}

enum status app_whatif_apply(struct app *a, const struct app_whatif *w, struct diag *d)
{
    struct app_whatif old;
    app_whatif_get(a, &old);
    enum status st = apply_raw(a, w, d);
    if (st && a->g) {
        struct diag ignore = {0};
        apply_raw(a, &old, &ignore);
    }
    return st;
}

static void push(struct app_whatif *stack, int *n, const struct app_whatif *w)
{
    if (*n == APP_UNDO_MAX) {
        memmove(stack, stack + 1, sizeof *stack * (APP_UNDO_MAX - 1));
        (*n)--;
    }
    stack[(*n)++] = *w;
}

void app_history_note(struct app *a, const struct app_whatif *before)
{
    struct app_whatif now;
    app_whatif_get(a, &now);
    if (app_whatif_equal(before, &now))
        return;
    push(a->undo, &a->n_undo, before);
    a->n_redo = 0;
    a->quit_asked = false;
}

/* Moves one step from `from` to `to`, applying the popped state. */
static enum status step(struct app *a, struct app_whatif *from, int *n_from,
                        struct app_whatif *to, int *n_to, const char *what, struct diag *d)
{
    if (*n_from == 0)
        return diag_set(d, ST_ENOTFOUND, "nothing to %s", what);
    struct app_whatif cur;
    app_whatif_get(a, &cur);
    enum status st = app_whatif_apply(a, &from[*n_from - 1], d);
    if (st) {
        diag_prefix(d, "%s", what);
        return st;
    }
    (*n_from)--;
    push(to, n_to, &cur);
    return ST_OK;
}

enum status app_undo(struct app *a, struct diag *d)
{
    return step(a, a->undo, &a->n_undo, a->redo, &a->n_redo, "undo", d);
}

enum status app_redo(struct app *a, struct diag *d)
{
    return step(a, a->redo, &a->n_redo, a->undo, &a->n_undo, "redo", d);
}

bool app_dirty(const struct app *a)
{
    struct app_whatif now;
    app_whatif_get(a, &now);
    return !app_whatif_equal(&now, &a->saved);
}

bool app_quit_check(struct app *a, const char *how, struct diag *d)
{
    if (!app_dirty(a) || a->quit_asked)
        return false;
    a->quit_asked = true;
    diag_set(d, ST_EUSAGE, "unsaved what-if changes: %s again quits, :w NAME saves them as a "
                           "session, u undoes", how);
    return true;
}
