/* zoo.c - the template registry: parameter parsing and validation,
 * presets, canonical specs, building and the seeded sampler. The families
 * themselves live in zoo_*.c. */
#include "graph/zoo/zoo.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/zoo/zoo_impl.h"

static const struct zoo_family *const families[] = {
    &zoo_fam_resnet, &zoo_fam_vgg,   &zoo_fam_mobilenet_v2, &zoo_fam_mobilenet_v3,
    &zoo_fam_efficientnet, &zoo_fam_densenet, &zoo_fam_convnext, &zoo_fam_vit,
    &zoo_fam_swin, &zoo_fam_bert, &zoo_fam_gpt, &zoo_fam_llama, &zoo_fam_mlp,
    &zoo_fam_randnet, &zoo_fam_moe, &zoo_fam_t5, &zoo_fam_bart, &zoo_fam_unet, &zoo_fam_dit,
    &zoo_fam_vae, &zoo_fam_kernel,
};
#define N_FAMILIES ((int)(sizeof families / sizeof families[0]))

static const char *const ptype_names[] = {"int", "float", "enum", "ints"};
_Static_assert(sizeof ptype_names / sizeof ptype_names[0] == ZOO_PT__COUNT, "ptype names");

const char *zoo_ptype_name(enum zoo_ptype t)
{
    return (unsigned)t < ZOO_PT__COUNT ? ptype_names[t] : "?";
}

/* ---- families and descriptors ------------------------------------------ */

int zoo_family_count(void)
{
    return N_FAMILIES;
}

const struct zoo_family *zoo_family_get(int fam)
{
    CHECK(fam >= 0 && fam < N_FAMILIES);
    return families[fam];
}

int zoo_family_find(const char *name)
{
    for (int i = 0; i < N_FAMILIES; i++)
        if (strcmp(families[i]->name, name) == 0)
            return i;
    return -1;
}

const char *zoo_family_name(int fam)
{
    return zoo_family_get(fam)->name;
}

const char *zoo_family_help(int fam)
{
    return zoo_family_get(fam)->help;
}

const char *zoo_family_list(char *buf, size_t size)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < N_FAMILIES && off < size; i++)
        off += (size_t)snprintf(buf + off, size - off, "%s%s", i ? ", " : "", families[i]->name);
    return buf;
}

int zoo_param_count(int fam)
{
    return zoo_family_get(fam)->n_params;
}

const struct zoo_param *zoo_param_get(int fam, int i)
{
    const struct zoo_family *f = zoo_family_get(fam);
    CHECK(i >= 0 && i < f->n_params);
    return &f->params[i];
}

int zoo_param_find(int fam, const char *name)
{
    const struct zoo_family *f = zoo_family_get(fam);
    for (int i = 0; i < f->n_params; i++)
        if (strcmp(f->params[i].name, name) == 0)
            return i;
    return -1;
}

static void list_choices(const struct zoo_param *p, char *buf, size_t size, size_t off)
{
    for (int i = 0; i < p->n_choices && off < size; i++)
        off += (size_t)snprintf(buf + off, size - off, "%s%s", i ? ", " : "", p->choices[i]);
}

const char *zoo_param_range(const struct zoo_param *p, char *buf, size_t size)
{
    int step = p->step > 1 ? p->step : 1;
    switch (p->type) {
    case ZOO_PT_ENUM:
        snprintf(buf, size, "one of ");
        list_choices(p, buf, size, strlen(buf));
        break;
    case ZOO_PT_INT:
        if (p->n_choices) {
            snprintf(buf, size, "one of ");
            list_choices(p, buf, size, strlen(buf));
        } else if (step > 1) {
            snprintf(buf, size, "an integer from %.0f to %.0f in steps of %d", p->min, p->max, step);
        } else {
            snprintf(buf, size, "an integer from %.0f to %.0f", p->min, p->max);
        }
        break;
    case ZOO_PT_FLOAT:
        snprintf(buf, size, "a number from %g to %g", p->min, p->max);
        break;
    case ZOO_PT_INTS:
        snprintf(buf, size, "%d comma-separated integers from %.0f to %.0f%s", p->n_items, p->min,
                 p->max, step > 1 ? " in steps of" : "");
        if (step > 1)
            snprintf(buf + strlen(buf), size - strlen(buf), " %d", step);
        break;
    default:
        snprintf(buf, size, "?");
    }
    return buf;
}

static int arg_index(const struct zoo_args *a, const char *name, enum zoo_ptype t)
{
    int i = zoo_param_find(a->fam, name);
    CHECK(i >= 0 && zoo_param_get(a->fam, i)->type == t);
    return i;
}

int zoo_arg_int(const struct zoo_args *a, const char *name)
{
    return (int)a->num[arg_index(a, name, ZOO_PT_INT)];
}

enum status zoo_check_multiple(const struct zoo_args *a, const char *fam, const char *num,
                               const char *div, struct diag *d)
{
    int n = zoo_arg_int(a, num), k = zoo_arg_int(a, div);
    if (n % k)
        return diag_set(d, ST_ERANGE, "zoo:%s: %s=%d is not a multiple of %s=%d", fam, num, n,
                        div, k);
    return ST_OK;
}

double zoo_arg_float(const struct zoo_args *a, const char *name)
{
    return a->num[arg_index(a, name, ZOO_PT_FLOAT)];
}

const char *zoo_arg_enum(const struct zoo_args *a, const char *name)
{
    int i = arg_index(a, name, ZOO_PT_ENUM);
    return zoo_param_get(a->fam, i)->choices[(int)a->num[i]];
}

const int *zoo_arg_ints(const struct zoo_args *a, const char *name)
{
    return a->ints[arg_index(a, name, ZOO_PT_INTS)];
}

int zoo_make_divisible(double v, int divisor)
{
    int nv = (int)(v + divisor / 2.0) / divisor * divisor;
    if (nv < divisor)
        nv = divisor;
    if (nv < 0.9 * v)
        nv += divisor;
    return nv;
}

/* ---- values --------------------------------------------------------------- */

static bool parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end)
        return false;
    *out = v;
    return true;
}

static bool int_ok(const struct zoo_param *p, long v)
{
    int step = p->step > 1 ? p->step : 1;
    return v >= p->min && v <= p->max && (v - (long)p->min) % step == 0;
}

/* Parses text for parameter i into a (no preset handling). */
static bool value_parse(struct zoo_args *a, int i, const struct zoo_param *p, const char *text)
{
    long v;
    switch (p->type) {
    case ZOO_PT_INT:
        if (!parse_long(text, &v))
            return false;
        if (p->n_choices) {
            char buf[32];
            snprintf(buf, sizeof buf, "%ld", v);
            for (int c = 0; c < p->n_choices; c++)
                if (strcmp(p->choices[c], buf) == 0) {
                    a->num[i] = (double)v;
                    return true;
                }
            return false;
        }
        if (!int_ok(p, v))
            return false;
        a->num[i] = (double)v;
        return true;
    case ZOO_PT_FLOAT: {
        char *end;
        errno = 0;
        double f = strtod(text, &end);
        if (errno || end == text || *end || !isfinite(f) || f < p->min || f > p->max)
            return false;
        a->num[i] = f;
        return true;
    }
    case ZOO_PT_ENUM:
        for (int c = 0; c < p->n_choices; c++)
            if (strcmp(p->choices[c], text) == 0) {
                a->num[i] = c;
                return true;
            }
        return false;
    case ZOO_PT_INTS: {
        int vals[ZOO_MAX_ITEMS], n = 0;
        const char *s = text;
        while (n < ZOO_MAX_ITEMS) {
            char item[32];
            size_t len = strcspn(s, ",");
            if (len == 0 || len >= sizeof item)
                return false;
            memcpy(item, s, len);
            item[len] = '\0';
            if (!parse_long(item, &v) || !int_ok(p, v))
                return false;
            vals[n++] = (int)v;
            if (!s[len])
                break;
            s += len + 1;
        }
        if (n != p->n_items)
            return false;
        memcpy(a->ints[i], vals, sizeof(int) * (size_t)n);
        return true;
    }
    default:
        return false;
    }
}

const char *zoo_args_value(const struct zoo_args *a, int i, char *buf, size_t size)
{
    const struct zoo_param *p = zoo_param_get(a->fam, i);
    switch (p->type) {
    case ZOO_PT_INT: snprintf(buf, size, "%ld", (long)a->num[i]); break;
    case ZOO_PT_FLOAT:
        /* shortest text that reads back as the same double */
        for (int prec = 6; prec <= 17; prec++) {
            snprintf(buf, size, "%.*g", prec, a->num[i]);
            if (strtod(buf, NULL) == a->num[i])
                break;
        }
        break;
    case ZOO_PT_ENUM: snprintf(buf, size, "%s", p->choices[(int)a->num[i]]); break;
    case ZOO_PT_INTS: {
        size_t off = 0;
        buf[0] = '\0';
        for (int k = 0; k < p->n_items && off < size; k++)
            off += (size_t)snprintf(buf + off, size - off, "%s%d", k ? "," : "", a->ints[i][k]);
        break;
    }
    default: snprintf(buf, size, "?");
    }
    return buf;
}

static bool value_equal(const struct zoo_args *a, const struct zoo_args *b, int i)
{
    const struct zoo_param *p = zoo_param_get(a->fam, i);
    if (p->type == ZOO_PT_INTS)
        return memcmp(a->ints[i], b->ints[i], sizeof(int) * (size_t)p->n_items) == 0;
    return fabs(a->num[i] - b->num[i]) < 1e-9;
}

/* Applies "k=v:k=v" (trusted static preset text) to a. */
static void apply_preset(struct zoo_args *a, const char *text)
{
    const struct zoo_family *f = zoo_family_get(a->fam);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(tok, '=');
        CHECK(eq);
        *eq = '\0';
        int i = zoo_param_find(a->fam, tok);
        CHECK(i >= 0);
        bool ok = value_parse(a, i, &f->params[i], eq + 1);
        CHECK(ok);
    }
}

/* Number of parameters preset text "k=v:k=v" sets. */
static int preset_keys(const char *text)
{
    int n = 1;
    for (; *text; text++)
        n += *text == ':';
    return n;
}

/* Points every preset parameter at the most specific preset matching the
 * current values (the first of those setting the most parameters), or at
 * its "custom" entry. */
static void sync_presets(struct zoo_args *a)
{
    const struct zoo_family *f = zoo_family_get(a->fam);
    for (int i = 0; i < f->n_params; i++) {
        const struct zoo_param *p = &f->params[i];
        if (!p->presets)
            continue;
        int custom = -1, match = -1, match_keys = 0;
        for (int c = 0; c < p->n_choices; c++) {
            if (!p->presets[c][0]) {
                custom = c;
                continue;
            }
            struct zoo_args t = *a;
            apply_preset(&t, p->presets[c]);
            bool same = true;
            for (int k = 0; k < f->n_params && same; k++)
                if (k != i && !f->params[k].presets)
                    same = value_equal(a, &t, k);
            if (same && preset_keys(p->presets[c]) > match_keys) {
                match = c;
                match_keys = preset_keys(p->presets[c]);
            }
        }
        for (int c = 0; c < p->n_choices && custom < 0; c++)
            if (!p->presets[c][0])
                custom = c;
        CHECK(match >= 0 || custom >= 0);
        a->num[i] = match >= 0 ? match : custom;
    }
}

void zoo_args_init(struct zoo_args *a, int fam)
{
    const struct zoo_family *f = zoo_family_get(fam);
    memset(a, 0, sizeof *a);
    a->fam = fam;
    CHECK(f->n_params <= ZOO_MAX_PARAMS);
    for (int i = 0; i < f->n_params; i++) {
        bool ok = value_parse(a, i, &f->params[i], f->params[i].def);
        CHECK(ok);
    }
    sync_presets(a);
}

static const char *param_names(int fam, char *buf, size_t size)
{
    const struct zoo_family *f = zoo_family_get(fam);
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < f->n_params && off < size; i++)
        off += (size_t)snprintf(buf + off, size - off, "%s%s", i ? ", " : "", f->params[i].name);
    return buf;
}

/* Sets one value; presets are applied but not re-synced (callers do). */
static enum status args_set(struct zoo_args *a, const char *key, const char *value,
                            struct diag *d)
{
    const struct zoo_family *f = zoo_family_get(a->fam);
    int i = zoo_param_find(a->fam, key);
    char buf[400];
    if (i < 0)
        return diag_set(d, ST_ENOTFOUND, "zoo:%s: unknown parameter '%s'; parameters: %s",
                        f->name, key, param_names(a->fam, buf, sizeof buf));
    const struct zoo_param *p = &f->params[i];
    if (!value_parse(a, i, p, value))
        return diag_set(d, ST_ERANGE, "zoo:%s: %s=%s is not %s", f->name, key, value,
                        zoo_param_range(p, buf, sizeof buf));
    if (p->presets && p->presets[(int)a->num[i]][0])
        apply_preset(a, p->presets[(int)a->num[i]]);
    return ST_OK;
}

enum status zoo_args_set(struct zoo_args *a, const char *key, const char *value,
                         struct diag *d)
{
    enum status st = args_set(a, key, value, d);
    if (st == ST_OK)
        sync_presets(a);
    return st;
}

enum status zoo_args_check(const struct zoo_args *a, struct diag *d)
{
    const struct zoo_family *f = zoo_family_get(a->fam);
    return f->check ? f->check(a, d) : ST_OK;
}

/* Is unsampled parameter i of a at its default? */
static bool at_default(const struct zoo_args *a, int i)
{
    const struct zoo_param *p = zoo_param_get(a->fam, i);
    struct zoo_args t = *a;
    bool ok = value_parse(&t, i, p, p->def);
    CHECK(ok);
    return value_equal(a, &t, i);
}

int zoo_args_spec(const struct zoo_args *a, char *buf, size_t size)
{
    const struct zoo_family *f = zoo_family_get(a->fam);
    int off = snprintf(buf, size, "zoo:%s", f->name);
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < f->n_params; i++) {
            if ((f->params[i].presets != NULL) != (pass == 0))
                continue;
            if (f->params[i].unsampled && at_default(a, i))
                continue;
            char v[128];
            zoo_args_value(a, i, v, sizeof v);
            size_t room = (size_t)off < size ? size - (size_t)off : 0;
            off += snprintf(room ? buf + off : NULL, room, ":%s=%s", f->params[i].name, v);
        }
    }
    return off;
}

enum status zoo_args_parse(const char *spec, struct zoo_args *a, struct diag *d)
{
    if (strncmp(spec, "zoo:", 4) == 0)
        spec += 4;
    char buf[1024];
    if (strlen(spec) >= sizeof buf)
        return diag_set(d, ST_EUSAGE, "zoo:%.40s...: template spec longer than %zu characters",
                        spec, sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", spec);
    char *rest = strchr(buf, ':');
    if (rest)
        *rest++ = '\0';
    int fam = zoo_family_find(buf);
    if (!buf[0]) {
        char list[256];
        return diag_set(d, ST_EUSAGE, "zoo: no template family given; known: %s",
                        zoo_family_list(list, sizeof list));
    }
    if (fam < 0) {
        char list[256];
        return diag_set(d, ST_ENOTFOUND, "zoo:%s: unknown template family; known: %s", buf,
                        zoo_family_list(list, sizeof list));
    }
    zoo_args_init(a, fam);
    const struct zoo_family *f = zoo_family_get(fam);
    char *pairs[64];
    int n = 0;
    char *save = NULL;
    for (char *tok = rest ? strtok_r(rest, ":", &save) : NULL; tok;
         tok = strtok_r(NULL, ":", &save)) {
        if (n == 64)
            return diag_set(d, ST_EUSAGE, "zoo:%s: too many parameters", f->name);
        if (!strchr(tok, '=') || tok[0] == '=')
            return diag_set(d, ST_EUSAGE, "zoo:%s: '%s' is not KEY=VALUE", f->name, tok);
        pairs[n++] = tok;
    }
    /* presets first, whatever the order, so explicit keys override them */
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < n; k++) {
            char *eq = strchr(pairs[k], '=');
            *eq = '\0';
            int i = zoo_param_find(fam, pairs[k]);
            bool is_preset = i >= 0 && f->params[i].presets;
            enum status st = ST_OK;
            if (is_preset == (pass == 0))
                st = args_set(a, pairs[k], eq + 1, d);
            *eq = '=';
            if (st)
                return st;
        }
    }
    sync_presets(a);
    return ST_OK;
}

/* ---- building ------------------------------------------------------------- */

struct graph *zoo_build(const struct zoo_args *a, struct diag *d)
{
    const struct zoo_family *f = zoo_family_get(a->fam);
    if (zoo_args_check(a, d))
        return NULL;
    char spec[1024];
    zoo_args_spec(a, spec, sizeof spec);
    char name[96];
    snprintf(name, sizeof name, "%s", f->name);
    if (f->name_fn)
        f->name_fn(a, name, sizeof name);
    for (int i = 0; i < f->n_params; i++)
        if (f->params[i].presets && f->params[i].presets[(int)a->num[i]][0])
            snprintf(name, sizeof name, "%s%s", f->preset_prefix ? f->preset_prefix : "",
                     f->params[i].choices[(int)a->num[i]]);
    struct zoo_build b;
    zb_init(&b, name);
    struct graph *g = NULL;
    if (f->build(&b, a, d) == ST_OK)
        g = zb_finish(&b, spec, d);
    zb_fini(&b);
    return g;
}

struct graph *zoo_build_spec(const char *spec, struct diag *d)
{
    struct zoo_args a;
    if (zoo_args_parse(spec, &a, d))
        return NULL;
    return zoo_build(&a, d);
}

const char *zoo_graph_family(const struct graph *g, char *buf, size_t size)
{
    if (!g || !g->format || strcmp(g->format, "zoo") != 0 || !g->path ||
        strncmp(g->path, "zoo:", 4) != 0)
        return NULL;
    const char *s = g->path + 4;
    size_t len = strcspn(s, ":");
    if (len == 0 || len >= size)
        return NULL;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return zoo_family_find(buf) >= 0 ? buf : NULL;
}

/* ---- sampling ------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    if (*s == 0)
        *s = 0x9E3779B97F4A7C15ull;
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

/* Uniform integer in [0, n). */
static long rng_below(uint64_t *s, long n)
{
    return n <= 1 ? 0 : (long)(rng_next(s) % (uint64_t)n);
}

static long sample_int(uint64_t *s, const struct zoo_param *p)
{
    double lo = p->smin || p->smax ? p->smin : p->min;
    double hi = p->smin || p->smax ? p->smax : p->max;
    int step = p->step > 1 ? p->step : 1;
    long k = ((long)hi - (long)lo) / step + 1;
    return (long)lo + rng_below(s, k) * step;
}

enum status zoo_sample_spec(int fam, uint64_t *rng_state, char *spec, size_t size,
                            struct diag *d)
{
    if (fam < 0 || fam >= N_FAMILIES)
        return diag_set(d, ST_ENOTFOUND, "zoo: family index %d out of range", fam);
    const struct zoo_family *f = zoo_family_get(fam);
    struct zoo_args a;
    for (int attempt = 0; attempt < 10000; attempt++) {
        zoo_args_init(&a, fam);
        for (int i = 0; i < f->n_params; i++) {
            const struct zoo_param *p = &f->params[i];
            if (p->presets || p->unsampled)
                continue;
            switch (p->type) {
            case ZOO_PT_INT:
                if (p->n_choices)
                    a.num[i] = atof(p->choices[rng_below(rng_state, p->n_choices)]);
                else
                    a.num[i] = (double)sample_int(rng_state, p);
                break;
            case ZOO_PT_FLOAT: {
                double lo = p->smin || p->smax ? p->smin : p->min;
                double hi = p->smin || p->smax ? p->smax : p->max;
                double u = (double)(rng_next(rng_state) >> 11) / 9007199254740992.0;
                /* two decimals, so the spec text round-trips */
                double v = round((lo + u * (hi - lo)) * 100.0) / 100.0;
                a.num[i] = v < p->min ? p->min : v > p->max ? p->max : v;
                break;
            }
            case ZOO_PT_ENUM: a.num[i] = (double)rng_below(rng_state, p->n_choices); break;
            case ZOO_PT_INTS:
                for (int k = 0; k < p->n_items; k++)
                    a.ints[i][k] = (int)sample_int(rng_state, p);
                break;
            default: break;
            }
        }
        if (zoo_args_check(&a, NULL) == ST_OK) {
            sync_presets(&a);
            int need = zoo_args_spec(&a, spec, size);
            if (need < 0 || (size_t)need >= size)
                return diag_set(d, ST_ENOMEM, "zoo:%s: spec buffer of %zu bytes too small",
                                f->name, size);
            return ST_OK;
        }
    }
    return diag_set(d, ST_EINTERNAL, "zoo:%s: no valid configuration found by sampling",
                    f->name);
}
