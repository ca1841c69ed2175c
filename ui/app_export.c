/* app_export.c - :export of the tables that are not the layer table: the
 * Sweep tab's points (or its MIG profile table), the Compare tab's
 * configurations with the per-layer deltas of the chosen column, and the
 * Layers tab's time by op type. The layer
 * table's export is in app_rows.c; both quote CSV with app_csv_field. */
#include "ui/app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpu.h"
#include "util/jsonw.h"
#include "util/strbuf.h"

void app_csv_field(struct strbuf *b, const char *s, bool last)
{
    bool quote = strpbrk(s, ",\"\n") != NULL;
    if (quote)
        strbuf_add(b, "\"", 1);
    for (; *s; s++) {
        if (*s == '"')
            strbuf_add(b, "\"", 1);
        strbuf_add(b, s, 1);
    }
    if (quote)
        strbuf_add(b, "\"", 1);
    strbuf_add(b, last ? "\n" : ",", 1);
}

/* A CSV row of n cells given as strings. */
static void csv_row(struct strbuf *b, int n, const char *const *cells)
{
    for (int i = 0; i < n; i++)
        app_csv_field(b, cells[i], i + 1 == n);
}

static const char *num(double v, bool ok, char *buf, int size)
{
    snprintf(buf, (size_t)size, ok ? "%.6g" : "", v);
    return buf;
}

static void json_num_or_null(struct jsonw *w, const char *k, double v, bool ok)
{
    jsonw_key(w, k);
    ok ? jsonw_num(w, v, false) : jsonw_null(w);
}

/* ---- sweep ------------------------------------------------------------ */

static char *sweep_csv(const struct app *a, size_t *len)
{
    const struct app_sweep *sw = &a->sweep;
    bool gen = a->workload == WORKLOAD_GENERATION && !a->sweep_over[0];
    struct strbuf b = STRBUF_INIT;
    const char *hdr[] = {sw->over, "latency_ms", "throughput_per_s", "memory_mib", "fits",
                         "ttft_ms", "tokens_per_s", "generation_mib", "generation_fits"};
    csv_row(&b, gen ? 9 : 5, hdr);
    for (int i = 0; i < sw->n; i++) {
        char c[8][32];
        bool ok = sw->ok[i], gok = sw->gen_ok[i];
        const char *row[] = {sw->label[i],
                             num(sw->latency_ms[i], ok, c[0], 32),
                             num(sw->throughput[i], ok, c[1], 32),
                             num(sw->memory_mib[i], ok, c[2], 32),
                             ok ? (app_sweep_fits(a, i) ? "yes" : "no") : "",
                             num(sw->ttft_ms[i], gok, c[3], 32),
                             num(sw->tokens_s[i], gok, c[4], 32),
                             num(sw->gen_mib[i], gok, c[5], 32),
                             gok ? (sw->gen_fits[i] ? "yes" : "no") : ""};
        csv_row(&b, gen ? 9 : 5, row);
    }
    return strbuf_take(&b, len);
}

static void json_head(struct jsonw *w, const struct app *a, const char *table)
{
    char t[256];
    jsonw_key_str(w, "table", table);
    jsonw_key_str(w, "model", a->spec);
    jsonw_key_str(w, "configuration", app_config_label(a, &a->cfg, t, sizeof t));
    jsonw_key_str(w, "source", app_teacher_only(a)
                                   ? "teacher (analytic GPU model, simulated; no GNN weights)"
                                   : "gnn (trained on simulated teacher labels)");
}

static char *sweep_json(const struct app *a, size_t *len)
{
    const struct app_sweep *sw = &a->sweep;
    bool gen = a->workload == WORKLOAD_GENERATION && !a->sweep_over[0];
    struct jsonw w;
    jsonw_init(&w, true);
    jsonw_obj_begin(&w);
    json_head(&w, a, "sweep");
    jsonw_key_str(&w, "over", sw->over);
    jsonw_key_num(&w, "capacity_mib", sw->capacity_mib, false);
    jsonw_key(&w, "points");
    jsonw_arr_begin(&w, false);
    for (int i = 0; i < sw->n; i++) {
        jsonw_obj_begin(&w);
        jsonw_key_str(&w, "value", sw->label[i]);
        json_num_or_null(&w, "latency_ms", sw->latency_ms[i], sw->ok[i]);
        json_num_or_null(&w, "throughput_per_s", sw->throughput[i], sw->ok[i]);
        json_num_or_null(&w, "memory_mib", sw->memory_mib[i], sw->ok[i]);
        jsonw_key_bool(&w, "fits", sw->ok[i] && app_sweep_fits(a, i));
        if (gen) {
            json_num_or_null(&w, "ttft_ms", sw->ttft_ms[i], sw->gen_ok[i]);
            json_num_or_null(&w, "tokens_per_s", sw->tokens_s[i], sw->gen_ok[i]);
            json_num_or_null(&w, "generation_mib", sw->gen_mib[i], sw->gen_ok[i]);
            jsonw_key_bool(&w, "generation_fits", sw->gen_ok[i] && sw->gen_fits[i]);
        }
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);
    return jsonw_take(&w, len);
}

/* The Sweep tab's "every MIG profile" view. */
static char *mig_table(const struct app *a, bool json, size_t *len)
{
    const struct gpu_spec *gpu = gpu_get(a->mig.gpu);
    const struct mig_advice *m = &a->mig;
    struct strbuf b = STRBUF_INIT;
    struct jsonw w;
    if (json) {
        jsonw_init(&w, true);
        jsonw_obj_begin(&w);
        json_head(&w, a, "mig");
        jsonw_key(&w, "profiles");
        jsonw_arr_begin(&w, false);
    } else {
        const char *hdr[] = {"profile", "latency_ms", "memory_mib", "usable_mib", "fits",
                             "meets_slo", "suggested"};
        csv_row(&b, 7, hdr);
    }
    for (int i = 0; gpu && i < m->n; i++) {
        const struct mig_option *o = &m->opts[i];
        const char *name = gpu->mig[o->profile].name;
        if (json) {
            jsonw_obj_begin(&w);
            jsonw_key_str(&w, "profile", name);
            jsonw_key_num(&w, "latency_ms", o->latency_ms, false);
            jsonw_key_num(&w, "memory_mib", o->memory_mib, false);
            jsonw_key_num(&w, "usable_mib", o->usable_mib, false);
            jsonw_key_bool(&w, "fits", o->fits);
            jsonw_key_bool(&w, "meets_slo", o->meets_slo);
            jsonw_key_bool(&w, "suggested", o->profile == m->best);
            jsonw_obj_end(&w);
            continue;
        }
        char c[3][32];
        const char *row[] = {name, num(o->latency_ms, true, c[0], 32),
                             num(o->memory_mib, true, c[1], 32), num(o->usable_mib, true, c[2], 32),
                             o->fits ? "yes" : "no", o->meets_slo ? "yes" : "no",
                             o->profile == m->best ? "yes" : "no"};
        csv_row(&b, 7, row);
    }
    if (!json)
        return strbuf_take(&b, len);
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);
    return jsonw_take(&w, len);
}

/* ---- compare ---------------------------------------------------------- */

/* Column k of the Compare tab: pin k+1, or the current state (k = n_pins). */
struct cmp_col {
    char title[16];
    const char *spec;
    struct config cfg;
    double latency_ms, teacher_ms, throughput, energy_j, memory_mib;
};

static void cmp_col(const struct app *a, int k, struct cmp_col *c)
{
    if (k < a->n_pins) {
        const struct app_snapshot *p = &a->pins[k];
        *c = (struct cmp_col){"", p->w.spec, p->cfg, p->latency_ms, p->teacher_ms,
                              p->throughput, p->energy_j, p->memory_mib};
        snprintf(c->title, sizeof c->title, "pin %d", k + 1);
    } else {
        *c = (struct cmp_col){"now", a->spec, a->cfg, a->pred.latency_ms,
                              a->pred.sim.latency_ms, a->pred.throughput, a->pred.energy_j,
                              a->pred.memory_mib};
    }
}

static char *compare_csv(const struct app *a, size_t *len)
{
    struct strbuf b = STRBUF_INIT;
    const char *hdr[] = {"column", "model", "gpu", "mig", "precision", "runtime", "batch",
                         "latency_ms", "teacher_latency_ms", "throughput_per_s",
                         "energy_j_per_batch", "memory_mib"};
    csv_row(&b, 12, hdr);
    for (int k = 0; k <= a->n_pins; k++) {
        struct cmp_col c;
        cmp_col(a, k, &c);
        const struct gpu_spec *g = gpu_get(c.cfg.gpu);
        char v[6][32];
        snprintf(v[0], 32, "%lld", (long long)c.cfg.batch);
        const char *row[] = {c.title, c.spec, g ? g->name : "?",
                             g && c.cfg.mig >= 0 && c.cfg.mig < g->n_mig ? g->mig[c.cfg.mig].name
                                                                         : "full",
                             precision_name(c.cfg.prec), runtime_name(c.cfg.rt), v[0],
                             num(c.latency_ms, true, v[1], 32), num(c.teacher_ms, true, v[2], 32),
                             num(c.throughput, true, v[3], 32), num(c.energy_j, true, v[4], 32),
                             num(c.memory_mib, true, v[5], 32)};
        csv_row(&b, 12, row);
    }
    return strbuf_take(&b, len);
}

static void compare_json_layers(struct app *a, struct jsonw *w, int sel)
{
    struct cmp_col c;
    cmp_col(a, sel, &c);
    const struct app_compare *cmp = app_compare_layers(a, sel);
    jsonw_key(w, "layers");
    jsonw_obj_begin(w);
    jsonw_key_str(w, "from", "pin 1");
    jsonw_key_str(w, "to", c.title);
    jsonw_key(w, "rows");
    jsonw_arr_begin(w, false);
    for (int i = 0; i < cmp->n; i++) {
        const struct app_layer_delta *v = &cmp->v[i];
        jsonw_obj_begin(w);
        jsonw_key_str(w, "name", v->name);
        json_num_or_null(w, "base_ms", v->base_ms, v->base_idx >= 0);
        json_num_or_null(w, "other_ms", v->other_ms, v->other_idx >= 0);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

static char *compare_json(struct app *a, size_t *len)
{
    struct jsonw w;
    jsonw_init(&w, true);
    jsonw_obj_begin(&w);
    json_head(&w, a, "compare");
    jsonw_key(&w, "columns");
    jsonw_arr_begin(&w, false);
    for (int k = 0; k <= a->n_pins; k++) {
        struct cmp_col c;
        cmp_col(a, k, &c);
        const struct gpu_spec *g = gpu_get(c.cfg.gpu);
        jsonw_obj_begin(&w);
        jsonw_key_str(&w, "column", c.title);
        jsonw_key_str(&w, "model", c.spec);
        jsonw_key_str(&w, "gpu", g ? g->name : "?");
        jsonw_key_str(&w, "mig", g && c.cfg.mig >= 0 && c.cfg.mig < g->n_mig
                                     ? g->mig[c.cfg.mig].name : "full");
        jsonw_key_str(&w, "precision", precision_name(c.cfg.prec));
        jsonw_key_str(&w, "runtime", runtime_name(c.cfg.rt));
        jsonw_key_int(&w, "batch", c.cfg.batch);
        jsonw_key_num(&w, "latency_ms", c.latency_ms, false);
        jsonw_key_num(&w, "teacher_latency_ms", c.teacher_ms, false);
        jsonw_key_num(&w, "throughput_per_s", c.throughput, false);
        jsonw_key_num(&w, "energy_j_per_batch", c.energy_j, false);
        jsonw_key_num(&w, "memory_mib", c.memory_mib, false);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    int sel = a->st.list[UI_TAB_COMPARE].sel;
    if (a->n_pins > 0 && sel >= 1 && sel <= a->n_pins)
        compare_json_layers(a, &w, sel);
    jsonw_obj_end(&w);
    return jsonw_take(&w, len);
}

/* ---- op types --------------------------------------------------------- */

/* The op-type view's rows (app_optypes), with each type's predicted time. */
static char *optypes_table(const struct app *a, bool json, size_t *len, int *n_out)
{
    struct app_optype *t;
    int n_zero, n = app_optypes(a, &t, &n_zero);
    *n_out = n;
    struct strbuf b = STRBUF_INIT;
    struct jsonw w;
    if (json) {
        jsonw_init(&w, true);
        jsonw_obj_begin(&w);
        json_head(&w, a, "op_types");
        jsonw_key_num(&w, "types_taking_no_time", n_zero, false);
        jsonw_key(&w, "op_types");
        jsonw_arr_begin(&w, false);
    } else {
        const char *hdr[] = {"op_type", "nodes", "time_share", "time_ms", "flops", "bytes",
                             "bound"};
        csv_row(&b, 7, hdr);
    }
    for (int k = 0; k < n; k++) {
        const struct app_optype *o = &t[k];
        double ms = o->share * a->pred.latency_ms;
        if (json) {
            jsonw_obj_begin(&w);
            jsonw_key_str(&w, "op_type", o->op);
            jsonw_key_num(&w, "nodes", o->nodes, false);
            jsonw_key_num(&w, "time_share", o->share, false);
            jsonw_key_num(&w, "time_ms", ms, false);
            jsonw_key_num(&w, "flops", o->flops, false);
            jsonw_key_num(&w, "bytes", o->bytes, false);
            jsonw_key_str(&w, "bound", bound_name(o->bound));
            jsonw_obj_end(&w);
        } else {
            char v[5][32];
            snprintf(v[0], 32, "%d", o->nodes);
            const char *row[] = {o->op, v[0], num(o->share, true, v[1], 32),
                                 num(ms, true, v[2], 32), num(o->flops, true, v[3], 32),
                                 num(o->bytes, true, v[4], 32), bound_name(o->bound)};
            csv_row(&b, 7, row);
        }
    }
    free(t);
    if (!json)
        return strbuf_take(&b, len);
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);
    return jsonw_take(&w, len);
}

char *app_export_tab(struct app *a, bool json, size_t *len, char *what, int size)
{
    if (a->st.tab == UI_TAB_LAYERS && a->st.op_types && a->have_pred) {
        int n;
        char *text = optypes_table(a, json, len, &n);
        snprintf(what, (size_t)size, "the time by op type (%d type%s)", n, n == 1 ? "" : "s");
        return text;
    }
    if (a->st.tab == UI_TAB_SWEEP && a->st.metric == UI_METRIC_MIG) {
        app_update_mig(a);
        if (!a->have_mig)
            return NULL;
        snprintf(what, (size_t)size, "the MIG table (%d profiles)", a->mig.n);
        return mig_table(a, json, len);
    }
    if (a->st.tab == UI_TAB_SWEEP) {
        app_sweep_ensure(a);
        snprintf(what, (size_t)size, "the sweep over %s (%d points)", a->sweep.over, a->sweep.n);
        return json ? sweep_json(a, len) : sweep_csv(a, len);
    }
    if (a->st.tab == UI_TAB_COMPARE && a->n_pins > 0) {
        snprintf(what, (size_t)size, "the comparison (%d pin%s and now)", a->n_pins,
                 a->n_pins == 1 ? "" : "s");
        return json ? compare_json(a, len) : compare_csv(a, len);
    }
    return NULL;
}
