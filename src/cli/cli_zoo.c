/* cli_zoo.c - `dippm zoo`: list the architecture templates, show a family's
 * hyperparameters, build a configuration (summary, or a dippm JSON graph
 * with -o) and draw seeded samples. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "graph/json/json_graph.h"
#include "graph/ops/tokens.h"
#include "util/jsonw.h"
#include "graph/ops/shape.h"
#include "core/report.h"
#include "graph/zoo/zoo.h"

enum { OPT_SEED = CLI_OPT__OWN, OPT_COUNT };

static const struct cli_opt zoo_opts[] = {
    {"seed", 0, "N", "the seed of 'sample' (default 1)", OPT_SEED},
    {"count", 0, "N", "how many specs 'sample' draws (default 10)", OPT_COUNT},
    {"json", 0, NULL, "'list', 'show' and a configuration's summary as JSON", CLI_OPT_JSON},
    {"output", 'o', "OUT.json", "write a configuration's dippm JSON graph to OUT.json "
     "('-o -': standard output)", 'o'},
    {NULL, 0, NULL, NULL, 0},
};

const struct cli_cmd cli_cmd_zoo = {
    .name = "zoo",
    .usage = "dippm zoo list [--json]\n"
             "       dippm zoo show FAMILY [--json]\n"
             "       dippm zoo FAMILY [KEY=VALUE]... [--json | -o OUT.json [--force]]\n"
             "                 [--batch N] [--set NAME=VALUE]...\n"
             "       dippm zoo sample FAMILY|all [--seed N] [--count N]",
    .about = "Architecture templates with hyperparameters. 'list' names the families, 'show'\n"
             "gives each parameter's type, valid values, default and meaning. 'FAMILY k=v...'\n"
             "builds that configuration and prints its canonical spec, size, parameters and\n"
             "MACs (--json: as a JSON object); with -o it writes the dippm JSON graph instead\n"
             "(atomically, never over an existing file without --force; --set/--batch\n"
             "change the symbol defaults).\n"
             "Every command that takes a MODEL also takes a spec: zoo:resnet:depth=101.\n"
             "'sample' prints COUNT (default 10) random valid specs drawn uniformly over the\n"
             "family's parameter space from SEED (default 1); the same seed gives the same\n"
             "specs.",
    .common = CLI_C_SYMBOLS | CLI_C_FORCE,
    .groups = {zoo_opts},
};

/* What `dippm zoo` was asked for. */
struct zoo_cli {
    struct cli_common co;
    int64_t seed, count;
};

static int zoo_opt(void *ctx, int id, const char *arg)
{
    struct zoo_cli *a = ctx;
    if (id == OPT_SEED && cli_parse_int(arg, 0, INT64_MAX, &a->seed))
        return cli_usage_error("zoo", "--seed '%s': expected a non-negative integer", arg);
    if (id == OPT_COUNT && cli_parse_int(arg, 1, 1000000, &a->count))
        return cli_usage_error("zoo", "--count '%s': expected 1 to 1000000", arg);
    return id == OPT_SEED || id == OPT_COUNT ? -1 : CLI_OPTS_COMMON;
}

static int cmd_list(const struct cli_common *co)
{
    if (co->json) {
        struct jsonw w;
        jsonw_init(&w, true);
        jsonw_arr_begin(&w, false);
        for (int f = 0; f < zoo_family_count(); f++) {
            jsonw_obj_begin(&w);
            jsonw_key_str(&w, "family", zoo_family_name(f));
            jsonw_key_str(&w, "help", zoo_family_help(f));
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
        size_t len;
        char *text = jsonw_take(&w, &len);
        int rc = cli_emit(co, text, len);
        free(text);
        return rc;
    }
    for (int f = 0; f < zoo_family_count(); f++)
        printf("%-14s %s\n", zoo_family_name(f), zoo_family_help(f));
    return 0;
}

static int find_family(const char *name)
{
    if (strncmp(name, "zoo:", 4) == 0)
        name += 4;
    int f = zoo_family_find(name);
    if (f < 0) {
        char list[256];
        cli_error("zoo: unknown template family '%s'; known: %s", name,
                  zoo_family_list(list, sizeof list));
    }
    return f;
}

static void show_json(struct jsonw *w, int f)
{
    jsonw_obj_begin(w);
    jsonw_key_str(w, "family", zoo_family_name(f));
    jsonw_key_str(w, "help", zoo_family_help(f));
    jsonw_key(w, "parameters");
    jsonw_arr_begin(w, false);
    for (int i = 0; i < zoo_param_count(f); i++) {
        const struct zoo_param *p = zoo_param_get(f, i);
        char range[256];
        jsonw_obj_begin(w);
        jsonw_key_str(w, "name", p->name);
        jsonw_key_str(w, "type", zoo_ptype_name(p->type));
        if (p->n_choices) {
            jsonw_key(w, "choices");
            jsonw_arr_begin(w, true);
            for (int c = 0; c < p->n_choices; c++)
                jsonw_str(w, p->choices[c]);
            jsonw_arr_end(w);
        } else if (p->type != ZOO_PT_ENUM) {
            jsonw_key_num(w, "min", p->min, false);
            jsonw_key_num(w, "max", p->max, false);
            if (p->step > 1) {
                jsonw_key_int(w, "step", p->step);
            }
            if (p->smin || p->smax) {
                jsonw_key_num(w, "sample_min", p->smin, false);
                jsonw_key_num(w, "sample_max", p->smax, false);
            }
            if (p->type == ZOO_PT_INTS) {
                jsonw_key_int(w, "items", p->n_items);
            }
        }
        if (p->presets) {
            jsonw_key(w, "presets");
            jsonw_obj_begin(w);
            for (int c = 0; c < p->n_choices; c++) {
                jsonw_key_str(w, p->choices[c], p->presets[c]);
            }
            jsonw_obj_end(w);
        }
        jsonw_key_str(w, "range", zoo_param_range(p, range, sizeof range));
        jsonw_key_str(w, "default", p->def);
        jsonw_key_str(w, "help", p->help);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

static int cmd_show(const struct cli_common *co, const char *name)
{
    int f = find_family(name);
    if (f < 0)
        return 3;
    if (co->json) {
        struct jsonw w;
        jsonw_init(&w, true);
        show_json(&w, f);
        size_t len;
        char *text = jsonw_take(&w, &len);
        int rc = cli_emit(co, text, len);
        free(text);
        return rc;
    }
    printf("%s: %s\n\n", zoo_family_name(f), zoo_family_help(f));
    printf("%-16s %-6s %-12s %s\n", "PARAMETER", "TYPE", "DEFAULT", "VALID VALUES / MEANING");
    for (int i = 0; i < zoo_param_count(f); i++) {
        const struct zoo_param *p = zoo_param_get(f, i);
        char range[256];
        printf("%-16s %-6s %-12s %s\n", p->name, zoo_ptype_name(p->type), p->def,
               zoo_param_range(p, range, sizeof range));
        printf("%-36s %s\n", "", p->help);
        for (int c = 0; p->presets && c < p->n_choices; c++)
            if (p->presets[c][0])
                printf("%-36s   %s: %s\n", "", p->choices[c], p->presets[c]);
    }
    struct zoo_args a;
    zoo_args_init(&a, f);
    char spec[1024];
    zoo_args_spec(&a, spec, sizeof spec);
    printf("\nDefault spec: %s\n", spec);
    return 0;
}

static int cmd_sample(const char *name, uint64_t seed, int64_t count)
{
    int lo = 0, hi = zoo_family_count();
    if (strcmp(name, "all") != 0) {
        lo = find_family(name);
        if (lo < 0)
            return 3;
        hi = lo + 1;
    }
    uint64_t state = seed;
    for (int64_t k = 0; k < count; k++) {
        for (int f = lo; f < hi; f++) {
            char spec[1024];
            struct diag d = {0};
            if (zoo_sample_spec(f, &state, spec, sizeof spec, &d))
                return cli_fail(&d);
            printf("%s\n", spec);
        }
    }
    return 0;
}

static int cmd_build(const struct cli_common *co, int argc, char **argv)
{
    /* FAMILY k=v k=v ... joined into one spec so presets apply first */
    char spec[1024];
    size_t off = (size_t)snprintf(spec, sizeof spec, "%s", argv[0]);
    for (int i = 1; i < argc; i++) {
        if (strchr(argv[i], ':') || !strchr(argv[i], '='))
            return cli_usage_error("zoo", "'%s': expected KEY=VALUE (see 'dippm zoo show %s')",
                                   argv[i], argv[0]);
        if (off >= sizeof spec)
            break;
        off += (size_t)snprintf(spec + off, sizeof spec - off, ":%s", argv[i]);
    }
    if (off >= sizeof spec)
        return cli_usage_error("zoo", "template spec longer than %zu characters",
                               sizeof spec - 1);
    const char *full = strncmp(spec, "zoo:", 4) == 0 ? spec : NULL;
    char buf[1030];
    if (!full) {
        snprintf(buf, sizeof buf, "zoo:%s", spec);
        full = buf;
    }
    int rc;
    struct graph *g = cli_load_model(full, co, &rc);
    if (!g)
        return rc;
    if (co->output && g->tokens > 0) {
        graph_free(g);
        return cli_usage_error("zoo", "--set %s is a setting of a prediction, not of the "
                               "graph: a dippm JSON file cannot hold it", GRAPH_TOKENS_NAME);
    }
    if (co->output) {
        for (int i = 0; i < g->n_syms; i++)
            g->syms[i].def = g->syms[i].val;
        size_t len;
        char *text = json_graph_write(g, &len);
        rc = cli_emit(co, text, len);
        free(text);
        graph_free(g);
        return rc;
    }
    struct diag d = {0};
    enum status st = graph_infer(g, &d);
    if (st != ST_OK) {
        rc = cli_fail(&d);
        graph_free(g);
        return rc;
    }
    if (co->json) {
        struct jsonw w;
        char fam[64];
        jsonw_init(&w, true);
        jsonw_obj_begin(&w);
        jsonw_key_str(&w, "name", g->name);
        jsonw_key_str(&w, "family", zoo_graph_family(g, fam, sizeof fam));
        jsonw_key_str(&w, "spec", g->path);
        jsonw_key_int(&w, "nodes", g->n_nodes);
        report_json_symbols(&w, g);
        jsonw_key_num(&w, "params", g->totals.params, false);
        jsonw_key_num(&w, "macs", g->totals.macs, false);
        jsonw_key_num(&w, "flops", g->totals.flops, false);
        jsonw_obj_end(&w);
        size_t len;
        char *text = jsonw_take(&w, &len);
        rc = cli_emit(co, text, len);
        free(text);
        graph_free(g);
        return rc;
    }
    printf("name:    %s\nspec:    %s\nnodes:   %d\n", g->name, g->path, g->n_nodes);
    printf("symbols:");
    for (int i = 0; i < g->n_syms; i++)
        printf(" %s=%lld", g->syms[i].name, (long long)g->syms[i].val);
    printf("\n");
    printf("params:  %.0f\nMACs:    %.0f (%.3f G)\n", g->totals.params, g->totals.macs,
           g->totals.macs / 1e9);
    graph_free(g);
    return rc;
}

int cli_zoo(int argc, char **argv)
{
    struct zoo_cli a = {.seed = 1, .count = 10};
    cli_common_init(&a.co);
    int rc = cli_parse(&cli_cmd_zoo, &a.co, argc, argv, zoo_opt, &a);
    if (rc >= 0)
        return rc;
    int nargs = argc - optind;
    char **args = argv + optind;
    if (nargs < 1)
        return cli_usage_error("zoo", "expected list, show FAMILY, sample FAMILY or FAMILY k=v...");
    if (strcmp(args[0], "list") == 0) {
        if (nargs != 1)
            return cli_usage_error("zoo", "'list' takes no arguments");
        return cmd_list(&a.co);
    }
    if (strcmp(args[0], "show") == 0) {
        if (nargs != 2)
            return cli_usage_error("zoo", "expected 'show FAMILY'");
        return cmd_show(&a.co, args[1]);
    }
    if (strcmp(args[0], "sample") == 0) {
        if (nargs != 2)
            return cli_usage_error("zoo", "expected 'sample FAMILY' or 'sample all'");
        return cmd_sample(args[1], (uint64_t)a.seed, a.count);
    }
    return cmd_build(&a.co, nargs, args);
}
