/* commands.c - parsing, running and completing `:` commands. */
#include "ui/commands.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/fileio.h"
#include "util/fmt.h"
#include "core/gpu.h"
#include "core/max_batch.h"
#include "core/price.h"
#include "ui/session.h"
#include "graph/zoo/zoo.h"

#define CMD_MAX_ARGS 10

typedef enum status (*cmd_fn)(struct app *a, int argc, char **argv, bool bang,
                              struct cmd_out *out, struct diag *d);

struct cmd {
    struct cmd_info info;
    int min_args, max_args;
    cmd_fn fn;
};

static bool parse_int(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* A path typed in the explorer as a shell would read it: a leading "~/"
 * (or "~" alone) is $HOME. Points at a static buffer, or at path itself. */
static const char *expand_home(const char *path)
{
    static char buf[4096];
    const char *home = getenv("HOME");
    if (path[0] != '~' || (path[1] && path[1] != '/') || !home || !*home)
        return path;
    if (snprintf(buf, sizeof buf, "%s%s", home, path + 1) >= (int)sizeof buf)
        return path;
    return buf;
}

static enum status do_batch(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                            struct diag *d)
{
    long long v;
    if (!parse_int(argv[1], 1, APP_BATCH_MAX, &v))
        return diag_set(d, ST_ERANGE, "batch %s: expected an integer 1..%lld", argv[1],
                        (long long)APP_BATCH_MAX);
    return app_set_batch(a, v, d);
}

/* The largest batch that fits the GPU or slice with the MIG headroom and
 * meets the latency target, as `dippm sweep --max-batch` finds it. */
static enum status do_maxbatch(struct app *a, int argc, char **argv, bool bang,
                               struct cmd_out *out, struct diag *d)
{
    if (!a->g || graph_batch_sym(a->g) < 0)
        return diag_set(d, ST_EUSAGE, "maxbatch: the model has no batch dimension (its inputs "
                                      "have fixed sizes), so the batch stays 1");
    struct max_batch mb;
    int64_t old = a->cfg.batch;
    enum status st = max_batch_search(a->p, a->g, &a->cfg, a->headroom, a->slo_ms, &mb, d);
    int64_t best = mb.best;
    double lat = mb.at_best.latency_ms, fail_lat = mb.at_fail.latency_ms;
    bool mem = mb.at_fail.memory_mib * (1 + a->headroom) > mb.at_fail.capacity_mib;
    int64_t fail = mb.fail_batch;
    prediction_fini(&mb.at_best);
    prediction_fini(&mb.at_fail);
    if (!st)
        st = app_set_batch(a, best > 0 ? best : old, d); /* also re-infers what the search left */
    if (st)
        return st;
    char s1[32], s2[32], why[160]; /* why the first batch that fails does */
    if (mem)
        snprintf(why, sizeof why, "does not fit with %.0f%% headroom", a->headroom * 100);
    else
        snprintf(why, sizeof why, "takes %s, over the SLO %s", fmt_ms(fail_lat, s1, sizeof s1),
                 fmt_ms(a->slo_ms, s2, sizeof s2));
    if (best == 0)
        return diag_set(d, ST_ERANGE, "maxbatch: batch 1 %s; the batch stays %lld", why,
                        (long long)old);
    fmt_ms(lat, s1, sizeof s1);
    if (best >= MAX_BATCH_SEARCH)
        ui_state_message(&a->st, false, "largest batch %lld (%s): the search stops there",
                         (long long)best, s1);
    else
        ui_state_message(&a->st, false, "largest batch %lld (%s%s): batch %lld %s",
                         (long long)best, s1, a->slo_ms > 0 ? ", meets the SLO" : "",
                         (long long)fail, why);
    return ST_OK;
}

static enum status do_set(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                          struct diag *d)
{
    char *names[CMD_MAX_ARGS], *values[CMD_MAX_ARGS];
    /* check the syntax of every word before changing anything */
    for (int i = 1; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq || eq == argv[i] || !eq[1])
            return diag_set(d, ST_EUSAGE, "set %s: expected NAME=VALUE (nothing changed)",
                            argv[i]);
        *eq = 0;
        names[i - 1] = argv[i];
        values[i - 1] = eq + 1;
    }
    return app_set_params(a, argc - 1, names, values, d);
}

static enum status do_gpu(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                          struct diag *d)
{
    return app_set_gpu(a, argv[1], d);
}

static enum status do_mig(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                          struct diag *d)
{
    char spec[96];
    snprintf(spec, sizeof spec, ":%s", argv[1]);
    return app_set_gpu(a, spec, d);
}

static enum status do_precision(struct app *a, int argc, char **argv, bool bang,
                                struct cmd_out *out, struct diag *d)
{
    struct config c = a->cfg;
    if (!precision_parse(argv[1], &c.prec))
        return diag_set(d, ST_ERANGE, "precision %s: expected %s", argv[1], precision_names());
    return app_set_config(a, &c, d);
}

static enum status do_runtime(struct app *a, int argc, char **argv, bool bang,
                              struct cmd_out *out, struct diag *d)
{
    struct config c = a->cfg;
    if (!runtime_parse(argv[1], &c.rt))
        return diag_set(d, ST_ERANGE,
                        "runtime %s: expected %s", argv[1], runtime_names());
    return app_set_config(a, &c, d);
}

/* quant_parse's message names the CLI's option; here the command. */
static enum status do_quant(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                            struct diag *d)
{
    struct quant q;
    struct diag pd = {0};
    if (quant_parse(argv[1], &q, &pd))
        return diag_set(d, pd.code, "%s", strncmp(pd.msg, "--", 2) ? pd.msg : pd.msg + 2);
    return app_set_quant(a, &q, d);
}

static enum status do_slo(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                          struct diag *d)
{
    char *end;
    errno = 0;
    double ms = strtod(argv[1], &end);
    if (errno || end == argv[1] || (*end && strcmp(end, "ms")))
        return diag_set(d, ST_ERANGE, "slo %s: expected milliseconds (0 = no target)", argv[1]);
    return app_set_slo(a, ms, d);
}

static enum status do_price(struct app *a, int argc, char **argv, bool bang,
                            struct cmd_out *out, struct diag *d)
{
    char *end;
    errno = 0;
    double v = strtod(argv[1], &end);
    if (errno || end == argv[1] || *end || !(v >= 0) || v > PRICE_PER_HOUR_MAX)
        return diag_set(d, ST_ERANGE, "price %s: expected a price per hour from 0 (the price "
                        "table's) to %.0f", argv[1], PRICE_PER_HOUR_MAX);
    a->price_per_hour = v;
    return ST_OK;
}

static enum status do_export(struct app *a, int argc, char **argv, bool bang,
                             struct cmd_out *out, struct diag *d)
{
    if (strcmp(argv[1], "csv") && strcmp(argv[1], "json"))
        return diag_set(d, ST_EUSAGE, "export %s: expected csv or json", argv[1]);
    char what[96];
    const char *path = expand_home(argv[2]);
    enum status st = app_export(a, argv[1], path, bang, what, sizeof what, d);
    if (!st)
        ui_state_message(&a->st, false, "wrote %s to %s", what, path);
    return st;
}

static enum status do_open(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                           struct diag *d)
{
    const char *spec = expand_home(argv[1]);
    enum status st = app_open(a, spec, d);
    if (!st)
        ui_state_message(&a->st, false, "opened %s: %d nodes", spec, a->g->n_nodes);
    return st;
}

static enum status do_pin(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                          struct diag *d)
{
    if (!a->have_pred)
        return diag_set(d, ST_EUSAGE, "pin: no prediction to pin");
    char dropped[sizeof a->pins[1].label] = "";
    if (a->n_pins == APP_PINS_MAX)
        snprintf(dropped, sizeof dropped, "%s", a->pins[1].label);
    app_pin(a);
    if (dropped[0])
        ui_state_message(&a->st, true, "%d pins at most: dropped pin 2 (%s) for pin %d "
                         "(:unpin N chooses which goes)", APP_PINS_MAX, dropped, a->n_pins);
    else
        ui_state_message(&a->st, false, "pin %d: %s ('compare' shows deltas, tab 8 compares "
                         "pins)", a->n_pins, a->pins[a->n_pins - 1].label);
    return ST_OK;
}

static enum status do_compare(struct app *a, int argc, char **argv, bool bang,
                              struct cmd_out *out, struct diag *d)
{
    if (!a->pins[0].valid)
        return diag_set(d, ST_EUSAGE, "compare: nothing pinned yet (use 'pin' or P first)");
    a->st.compare = !a->st.compare;
    ui_state_message(&a->st, false, "compare %s (pinned: %s)", a->st.compare ? "on" : "off",
                     a->pins[0].label);
    return ST_OK;
}

static enum status do_goto(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                           struct diag *d)
{
    int ni = app_node_find(a, argv[1]);
    if (ni < 0)
        return diag_set(d, ST_ENOTFOUND, "goto: no node named '%s'", argv[1]);
    a->st.detail_node = ni;
    if (app_row_of_node(a, ni) < 0 && (a->st.filter[0] || a->n_idle_hidden)) {
        a->st.filter[0] = 0; /* the node was filtered out: show everything again */
        a->st.show_idle = a->st.show_idle || a->n_idle_hidden;
        a->rows_dirty = true;
        app_rows_update(a);
    }
    int r = app_row_of_node(a, ni);
    if (r >= 0)
        a->st.list[UI_TAB_LAYERS].sel = r;
    ui_state_message(&a->st, false, "node %d: %s (%s)", ni, a->g->nodes[ni].name,
                     a->g->nodes[ni].op_type);
    return ST_OK;
}

static enum status do_filter(struct app *a, int argc, char **argv, bool bang,
                             struct cmd_out *out, struct diag *d)
{
    a->st.filter[0] = 0;
    for (int i = 1; i < argc; i++)
        snprintf(a->st.filter + strlen(a->st.filter), sizeof a->st.filter - strlen(a->st.filter),
                 "%s%s", i > 1 ? " " : "", argv[i]);
    a->rows_dirty = true;
    return ST_OK;
}

static enum status do_sort(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                           struct diag *d)
{
    for (int c = 0; c < UI_COL__COUNT; c++) {
        const char *t = ui_col_title((enum ui_col)c);
        if (!strcasecmp(argv[1], t) || !strncasecmp(argv[1], t, strlen(argv[1]))) {
            if (argc > 2 && strcasecmp(argv[2], "asc") && strcasecmp(argv[2], "desc"))
                return diag_set(d, ST_EUSAGE, "sort %s %s: expected asc or desc", argv[1],
                                argv[2]);
            a->st.sort_col = (enum ui_col)c;
            a->st.sort_desc = argc > 2 ? !strcasecmp(argv[2], "desc")
                                       : ui_col_numeric(a->st.sort_col) && c != UI_COL_INDEX;
            a->st.sort_explicit = true;
            a->st.list[UI_TAB_LAYERS] = (struct ui_list){0, 0}; /* the new order from its top */
            a->rows_dirty = true;
            return ST_OK;
        }
    }
    return diag_set(d, ST_ENOTFOUND,
                    "sort %s: expected a column (#, name, op, output, params, macs, memory, "
                    "time, bound)",
                    argv[1]);
}

static enum status do_dump(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                           struct diag *d)
{
    const char *path = expand_home(argv[1]);
    if (!bang && file_exists(path))
        return diag_set(d, ST_EEXIST, "dump-screen: %s exists; dump-screen! overwrites it", path);
    out->flags |= CMD_DUMP;
    snprintf(out->path, sizeof out->path, "%s", path);
    return ST_OK;
}

static enum status do_help(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                           struct diag *d)
{
    out->flags |= CMD_HELP;
    return ST_OK;
}

static enum status do_write(struct app *a, int argc, char **argv, bool bang,
                            struct cmd_out *out, struct diag *d)
{
    /* a copy: saving sets a->session from the name */
    char name[sizeof a->session];
    snprintf(name, sizeof name, "%s", argc > 1 ? argv[1] : a->session);
    if (!*name)
        return diag_set(d, ST_EUSAGE, "w: no session open yet: w NAME names one");
    enum status st = session_save(a, name, bang, d);
    if (!st) {
        char path[1024];
        session_path(name, path, sizeof path, NULL);
        ui_state_message(&a->st, false, "session %s saved (%d pin%s) to %s", name, a->n_pins,
                         a->n_pins == 1 ? "" : "s", path);
    }
    return st;
}

static enum status do_edit(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                           struct diag *d)
{
    if (app_dirty(a) && !bang)
        return diag_set(d, ST_EUSAGE, "e: unsaved what-if changes (:w NAME saves them, e! %s "
                                      "drops them)", argv[1]);
    enum status st = session_load(a, argv[1], d);
    if (!st)
        ui_state_message(&a->st, false, "session %s: %s, %d pin%s", argv[1], a->spec, a->n_pins,
                         a->n_pins == 1 ? "" : "s");
    return st;
}

static enum status do_undo(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                           struct diag *d)
{
    /* say what was undone: the state before and after, as the change */
    char t[400];
    struct app_whatif before, after;
    app_whatif_get(a, &before);
    enum status st = argv[0][0] == 'u' ? app_undo(a, d) : app_redo(a, d);
    if (st)
        return st;
    app_whatif_get(a, &after);
    app_whatif_diff(&before, &after, t, sizeof t);
    ui_state_message(&a->st, false, "%s: %s (%d more to undo, %d to redo)",
                     argv[0][0] == 'u' ? "undone" : "redone", t[0] ? t : "no change", a->n_undo,
                     a->n_redo);
    return ST_OK;
}

static enum status do_unpin(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                            struct diag *d)
{
    if (argc < 2) {
        app_pins_clear(a);
        a->st.compare = false;
        ui_state_message(&a->st, false, "no pins");
        return ST_OK;
    }
    long long k;
    if (!a->n_pins)
        return diag_set(d, ST_EUSAGE, "unpin %s: nothing is pinned", argv[1]);
    if (!parse_int(argv[1], 1, a->n_pins, &k))
        return diag_set(d, ST_ERANGE, "unpin %s: expected a pin number 1..%d", argv[1], a->n_pins);
    char label[sizeof a->pins[0].label];
    snprintf(label, sizeof label, "%s", a->pins[k - 1].label);
    app_unpin(a, (int)k - 1);
    if (!a->n_pins)
        a->st.compare = false;
    ui_state_message(&a->st, false, "unpinned pin %lld (%s); %d left%s", k, label, a->n_pins,
                     k == 1 && a->n_pins ? ", the next is the baseline" : "");
    return ST_OK;
}

static enum status do_tour(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                           struct diag *d)
{
    out->flags |= CMD_TOUR;
    return ST_OK;
}

static enum status do_messages(struct app *a, int argc, char **argv, bool bang,
                               struct cmd_out *out, struct diag *d)
{
    out->flags |= CMD_LOG;
    return ST_OK;
}

static enum status do_tab(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                          struct diag *d)
{
    for (int t = 0; t < UI_TAB__COUNT; t++)
        if (!strncasecmp(argv[1], ui_tab_title((enum ui_tab)t), strlen(argv[1]))) {
            ui_state_tab_set(&a->st, (enum ui_tab)t);
            return ST_OK;
        }
    return diag_set(d, ST_ENOTFOUND, "tab %s: expected layers, graph, sweep, setup, detail, help, "
                                     "about, compare or log", argv[1]);
}

static enum status do_sweep(struct app *a, int argc, char **argv, bool bang,
                            struct cmd_out *out, struct diag *d)
{
    enum status st = app_sweep_set(a, argc > 1 ? argv[1] : "batch", d);
    if (st)
        return st;
    ui_state_tab_set(&a->st, UI_TAB_SWEEP);
    bool over_batch = !a->sweep_over[0];
    if (a->st.metric == UI_METRIC_MIG ||
        (!over_batch && (a->st.metric == UI_METRIC_TTFT || a->st.metric == UI_METRIC_TOKENS)))
        a->st.metric = UI_METRIC_LATENCY;
    ui_state_message(&a->st, false, "sweeping %s (m: latency, throughput, memory, %sMIG table)",
                     argc > 1 ? argv[1] : "batch",
                     a->workload == WORKLOAD_GENERATION && over_batch ? "TTFT, tokens/s, " : "");
    return ST_OK;
}

static enum status do_quit(struct app *a, int argc, char **argv, bool bang, struct cmd_out *out,
                           struct diag *d)
{
    if (!bang && app_quit_check(a, ":q", d))
        return ST_EUSAGE;
    out->flags |= CMD_QUIT;
    return ST_OK;
}

static const struct cmd cmds[] = {
    {{"batch", "batch N", "Set the batch size (1..1048576); + and - double and halve it"}, 1, 1,
     do_batch},
    {{"maxbatch", "maxbatch", "Set the largest batch that fits the GPU or slice (with the MIG "
                              "headroom) and meets the SLO (also B)"}, 0, 0, do_maxbatch},
    {{"set", "set NAME=VALUE ...", "Set a model symbol (seq, height, width, ...) or a template "
                                   "hyperparameter (depth=101), or dispatch_us=US: the eager "
                                   "runtimes' host dispatch per op in microseconds (0: the "
                                   "calibrated one)"}, 1, 8, do_set},
    {{"gpu", "gpu NAME[:PROFILE]", "Choose the GPU, optionally a MIG slice: gpu h100, "
                                   "gpu a100:3g.20gb, gpu :full"}, 1, 1, do_gpu},
    {{"mig", "mig PROFILE|full", "Run on a MIG slice of the current GPU, or the whole GPU"}, 1, 1,
     do_mig},
    {{"precision", "precision P", "fp32, tf32, fp16, bf16, int8 or fp8"}, 1, 1, do_precision},
    {{"runtime", "runtime R", "pytorch (eager, a kernel per op), pytorch-sdpa (eager, fused "
                              "attention), inductor (torch.compile), inductor-graph "
                              "(torch.compile as a CUDA graph), onnxruntime (ONNX Runtime, "
                              "CUDA EP), onnxruntime-graph (the same as a CUDA graph), "
                              "tensorrt (fused engine), "
                              "tensorrt-graph "
                              "(the engine replayed as a CUDA graph) or vllm (serving "
                              "engine)"}, 1, 1, do_runtime},
    {{"quant", "quant SCHEME", "The weights' quantisation scheme: none, w8a16 or w4a16 "
                               "(weight-only; :gN or :row), w8a8 (:static or :dynamic) or "
                               "fp8 (:tensor or :row); a scheme sets its activations' "
                               "precision"}, 1, 1, do_quant},
    {{"slo", "slo MS", "Latency target the MIG suggestion must meet (0 = none)"}, 1, 1, do_slo},
    {{"price", "price X", "Price of the GPU or slice per hour: the header shows the cost (0 = "
                          "the price table's)"}, 1, 1, do_price},
    {{"export", "export[!] csv|json FILE", "Write the table of the tab shown (the filtered "
                                           "layers and the figures, the time by op type, the "
                                           "sweep, the MIG table or the comparison) atomically; "
                                           "export! overwrites"}, 2, 2,
     do_export},
    {{"open", "open MODEL", "Open another model: a file or zoo:FAMILY[:k=v...]"}, 1, 1, do_open},
    {{"pin", "pin", "Pin the current configuration and its figures"}, 0, 0, do_pin},
    {{"compare", "compare", "Show or hide deltas against the pinned configuration"}, 0, 0,
     do_compare},
    {{"goto", "goto NODE", "Select a node by name (table, graph and detail)"}, 1, 1, do_goto},
    {{"filter", "filter [TEXT]", "Filter layers by op or name; no text clears"}, 0, 8, do_filter},
    {{"sort", "sort COLUMN [asc|desc]", "Sort the layer table by a column"}, 1, 2, do_sort},
    {{"dump-screen", "dump-screen[!] FILE", "Write the screen as text to FILE; dump-screen! "
                                            "overwrites"}, 1, 1, do_dump},
    {{"w", "w[!] [NAME]", "Save the session (model, configuration, pins) as NAME; w! overwrites "
                          "another session"}, 0, 1, do_write},
    {{"e", "e[!] NAME", "Open a saved session (also dippm --session NAME); e! drops unsaved "
                        "changes"}, 1, 1, do_edit},
    {{"undo", "undo", "Undo the last configuration change (also u)"}, 0, 0, do_undo},
    {{"redo", "redo", "Redo an undone change (also U, Ctrl-R)"}, 0, 0, do_undo},
    {{"unpin", "unpin [N]", "Forget pin N (1 = the baseline), or every pinned configuration"},
     0, 1, do_unpin},
    {{"tour", "tour", "A guided tour of what the figures mean, on the bundled models"}, 0, 0,
     do_tour},
    {{"messages", "messages", "Show the message log (every status message, in full)"}, 0, 0,
     do_messages},
    {{"help", "help", "Show the help tab"}, 0, 0, do_help},
    {{"sweep", "sweep [NAME]", "Sweep tab over the batch (default) or any symbol or template "
                               "hyperparameter (sweep seq, sweep depth)"}, 0, 1, do_sweep},
    {{"tab", "tab NAME", "Show a tab: layers, graph, sweep, setup, detail, compare, log ..."}, 1,
     1, do_tab},
    {{"quit", "quit[!]", "Quit the explorer (also q, F10); with unsaved what-if changes it "
                         "asks once, quit! does not"}, 0, 0, do_quit},
};
#define N_CMDS ((int)(sizeof cmds / sizeof cmds[0]))

int cmd_count(void)
{
    return N_CMDS;
}

const struct cmd_info *cmd_get(int i)
{
    return i >= 0 && i < N_CMDS ? &cmds[i].info : NULL;
}

enum status cmd_execute(struct app *a, const char *line, struct cmd_out *out, struct diag *d)
{
    char buf[1024];
    char *argv[CMD_MAX_ARGS];
    int argc = 0;
    memset(out, 0, sizeof *out);
    if (strlen(line) >= sizeof buf)
        return diag_set(d, ST_EUSAGE, "command line too long");
    snprintf(buf, sizeof buf, "%s", line);
    for (char *p = buf; *p;) {
        while (isspace((unsigned char)*p))
            *p++ = 0;
        if (!*p)
            break;
        if (argc == CMD_MAX_ARGS)
            return diag_set(d, ST_EUSAGE, "too many words (at most %d)", CMD_MAX_ARGS);
        argv[argc++] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
    }
    if (argc == 0)
        return ST_OK;
    bool bang = false;
    size_t nl = strlen(argv[0]);
    if (nl > 1 && argv[0][nl - 1] == '!') {
        argv[0][nl - 1] = 0;
        bang = true;
    }
    /* a unique prefix is enough: "prec fp16"; "q" is vi's quit beside quant */
    const char *name = strcmp(argv[0], "q") ? argv[0] : "quit";
    const struct cmd *c = NULL;
    int n_match = 0;
    for (int i = 0; i < N_CMDS; i++) {
        if (!strcmp(cmds[i].info.name, name)) {
            c = &cmds[i];
            n_match = 1;
            break;
        }
        if (!strncmp(cmds[i].info.name, name, strlen(name))) {
            c = &cmds[i];
            n_match++;
        }
    }
    if (n_match > 1) {
        char cands[256] = "";
        for (int i = 0; i < N_CMDS; i++)
            if (!strncmp(cmds[i].info.name, argv[0], strlen(argv[0])))
                snprintf(cands + strlen(cands), sizeof cands - strlen(cands), "%s%s",
                         cands[0] ? ", " : "", cmds[i].info.name);
        return diag_set(d, ST_EUSAGE, "ambiguous command '%s': %s", argv[0], cands);
    }
    if (n_match == 0)
        return diag_set(d, ST_EUSAGE, "unknown command '%s' (try :help)", argv[0]);
    if (argc - 1 < c->min_args || argc - 1 > c->max_args)
        return diag_set(d, ST_EUSAGE, "usage: %s", c->info.usage);
    return c->fn(a, argc, argv, bang, out, d);
}

/* ---- completion ------------------------------------------------------- */

typedef void (*cmd_add_fn)(void *ctx, const char *cand);

/* :gpu's argument: every GPU and GPU:PROFILE, the current GPU's ":PROFILE";
 * after "NAME:" the profiles of that GPU, keeping the name as typed. */
static void complete_gpu(const struct app *a, const char *word, cmd_add_fn add, void *ctx)
{
    char buf[160];
    const char *colon = strchr(word, ':');
    if (colon && colon != word) {
        char gname[64];
        snprintf(gname, sizeof gname, "%.*s", (int)(colon - word), word);
        const struct gpu_spec *g = gpu_get(gpu_find(gname));
        for (int m = 0; g && m < g->n_mig; m++) {
            snprintf(buf, sizeof buf, "%s:%s", gname, g->mig[m].name);
            add(ctx, buf);
        }
        snprintf(buf, sizeof buf, "%s:full", gname);
        add(ctx, buf);
        return;
    }
    for (int i = 0; i < gpu_count(); i++) {
        const struct gpu_spec *g = gpu_get(i);
        add(ctx, g->name);
        for (int m = 0; m < g->n_mig; m++) {
            snprintf(buf, sizeof buf, "%s:%s", g->name, g->mig[m].name);
            add(ctx, buf);
        }
    }
    const struct gpu_spec *cur = gpu_get(a->cfg.gpu);
    for (int m = 0; cur && m < cur->n_mig; m++) {
        snprintf(buf, sizeof buf, ":%s", cur->mig[m].name);
        add(ctx, buf);
    }
    add(ctx, ":full");
}

/* :set's NAME= for the batch, the model's symbols and template parameters. */
static void complete_set(const struct app *a, cmd_add_fn add, void *ctx)
{
    char buf[APP_SYM_NAME_MAX + 8]; /* "sym." NAME "=" */
    add(ctx, "batch=");
    for (int i = 0; a->g && i < a->g->n_syms; i++) {
        snprintf(buf, sizeof buf, "%s=", a->g->syms[i].name);
        add(ctx, buf);
    }
    for (int i = 0; i < a->n_tparams; i++) {
        snprintf(buf, sizeof buf, "%s=", a->tparams[i].name);
        add(ctx, buf);
        if (a->g && graph_sym_find(a->g, a->tparams[i].name) >= 0) {
            snprintf(buf, sizeof buf, "sym.%s=", a->tparams[i].name);
            add(ctx, buf);
        }
    }
}

/* :open zoo:FAMILY, then zoo:FAMILY:PARAM=. */
static void complete_zoo(const char *word, cmd_add_fn add, void *ctx)
{
    char buf[160];
    const char *colon = strchr(word + 4, ':');
    int fam = -1;
    if (colon) {
        char fname[64];
        snprintf(fname, sizeof fname, "%.*s", (int)(colon - word - 4), word + 4);
        fam = zoo_family_find(fname);
    }
    if (fam < 0) {
        for (int f = 0; f < zoo_family_count(); f++) {
            snprintf(buf, sizeof buf, "zoo:%s", zoo_family_name(f));
            add(ctx, buf);
        }
        return;
    }
    const char *last = strrchr(word, ':');
    for (int i = 0; i < zoo_param_count(fam); i++) {
        snprintf(buf, sizeof buf, "%.*s%s=", (int)(last - word + 1), word,
                 zoo_param_get(fam, i)->name);
        add(ctx, buf);
    }
}

/* The arguments of the commands whose values are names from a list. */
static void complete_names(const struct app *a, const char *cmd, cmd_add_fn add, void *ctx)
{
    char buf[160];
    if (!strcmp(cmd, "mig")) {
        const struct gpu_spec *cur = gpu_get(a->cfg.gpu);
        for (int m = 0; cur && m < cur->n_mig; m++)
            add(ctx, cur->mig[m].name);
        add(ctx, "full");
    } else if (!strcmp(cmd, "precision")) {
        for (int p = 0; p < PREC__COUNT; p++)
            add(ctx, precision_name((enum precision)p));
    } else if (!strcmp(cmd, "runtime")) {
        for (int r = 0; r < RT__COUNT; r++)
            add(ctx, runtime_name((enum runtime)r));
    } else if (!strcmp(cmd, "quant")) {
        for (int q = 0; q < QUANT__COUNT; q++)
            add(ctx, quant_name((enum quant_scheme)q));
    } else if (!strcmp(cmd, "goto")) {
        for (int i = 0; a->g && i < a->g->n_nodes; i++)
            add(ctx, a->g->nodes[i].name);
    } else if (!strcmp(cmd, "sweep")) {
        add(ctx, "batch");
        for (int i = 0; a->g && i < a->g->n_syms; i++)
            add(ctx, a->g->syms[i].name);
        for (int i = 0; i < a->n_tparams; i++)
            add(ctx, a->tparams[i].name);
    } else if (!strcmp(cmd, "tab")) {
        for (int t = 0; t < UI_TAB__COUNT; t++) {
            snprintf(buf, sizeof buf, "%s", ui_tab_title((enum ui_tab)t));
            buf[0] = (char)tolower((unsigned char)buf[0]);
            add(ctx, buf);
        }
    } else if (!strcmp(cmd, "sort")) {
        for (int c = 0; c < UI_COL__COUNT; c++)
            add(ctx, ui_col_title((enum ui_col)c));
    } else if (!strcmp(cmd, "e")) {
        session_list(add, ctx);
    }
}

bool cmd_complete(const struct app *a, const char *line, int start,
                  void (*add)(void *ctx, const char *cand), void *ctx)
{
    while (isspace((unsigned char)*line) && start > 0) {
        line++;
        start--;
    }
    if (start == 0) {
        for (int i = 0; i < N_CMDS; i++)
            add(ctx, cmds[i].info.name);
        return true;
    }
    char cmd[32];
    int n = 0;
    while (line[n] && !isspace((unsigned char)line[n]) && n < (int)sizeof cmd - 1) {
        cmd[n] = line[n];
        n++;
    }
    cmd[n] = 0;
    if (n && cmd[n - 1] == '!')
        cmd[n - 1] = 0;
    const char *word = line + start;
    if (!strcmp(cmd, "gpu")) {
        complete_gpu(a, word, add, ctx);
    } else if (!strcmp(cmd, "set")) {
        complete_set(a, add, ctx);
    } else if (!strcmp(cmd, "export")) {
        /* second word: the format; third: a file */
        int words = 0;
        for (int i = 0; i < start; i++)
            if (!isspace((unsigned char)line[i]) && (i == 0 || isspace((unsigned char)line[i - 1])))
                words++;
        if (words >= 2)
            return false;
        add(ctx, "csv");
        add(ctx, "json");
    } else if (!strcmp(cmd, "open") && !strncmp(word, "zoo:", 4)) {
        complete_zoo(word, add, ctx);
    } else if (!strcmp(cmd, "open") || !strcmp(cmd, "dump-screen")) {
        if (!strcmp(cmd, "open"))
            add(ctx, "zoo:");
        return false;
    } else {
        complete_names(a, cmd, add, ctx);
    }
    return true;
}
