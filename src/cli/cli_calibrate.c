/* cli_calibrate.c - `dippm calibrate`: fits the teacher's global constants
 * to the published rows of the mapping table, cross-validates the fit
 * leaving one model out, and writes the calibration report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lab/calib.h"
#include "lab/interval_gen.h"
#include "cli/cli.h"
#include "util/datafile.h"
#include "util/fileio.h"
#include "lab/kbench.h"
#include "core/sim.h"
#include "lab/sim_fitted_write.h"
#include "util/textsafe.h"

enum { OPT_DATA = CLI_OPT__OWN, OPT_SAMPLES, OPT_NO_FIT, OPT_NO_LOMO, OPT_EXPORT_ROWS,
       OPT_INTERVALS, OPT_NEUSIGHT, OPT_RESID, OPT_WRITE_PARAMS };
#define MAX_RESID 8

static const struct cli_opt calibrate_opts[] = {
    {"data", 0, "TABLE", "the mapping table (default: the shipped " DATAFILE_CALIBRATION_NAME
     "); the JSONL files it names must be beside it", OPT_DATA},
    {"samples", 0, "DIR", "where the ONNX samples the table names are (default: the shipped "
     "samples)", OPT_SAMPLES},
    {"no-fit", 0, NULL, "only evaluate the compiled-in constants", OPT_NO_FIT},
    {"no-lomo", 0, NULL, "skip the leave-one-model-out and leave-one-source-family-out folds",
     OPT_NO_LOMO},
    {"write-params", 0, "FILE", "write the fitted constants, every other one at its compiled-in "
     "value, as the teacher's src/core/sim_fitted.h to FILE (refuses to overwrite without "
     "--force); rebuild and run again until the report says Reproduced: yes", OPT_WRITE_PARAMS},
    {"export-rows", 0, "FILE", "instead, write the fitted rows that are one teacher run each "
     "(latency or memory of one configuration) as dataset JSONL labelled measured, to "
     "fine-tune the GNN on (dippm train) and to evaluate it leaving one model out (dippm "
     "eval); refuses to overwrite without --force", OPT_EXPORT_ROWS},
    {"intervals", 0, "DIR", "instead, write the prediction-interval table DIR/" INTERVAL_FILE
     " and its check DIR/intervals.md from the held-out errors of the measured rows (the "
     "leave-one-source-family-out folds from the compiled-in constants, and --neusight); refuses to "
     "overwrite without --force", OPT_INTERVALS},
    {"neusight", 0, "FILE", "with --intervals: also the measured rows of this dataset (JSONL) "
     "predicted by the teacher", OPT_NEUSIGHT},
    {"resid", 0, "FILE", "with --intervals: also the held-out errors of a validation set no fit "
     "uses, as tools/validate_tp.py, validate_quant.py or validate_compile.py --resid FILE "
     "write them (repeatable, up to 8)", OPT_RESID},
    {"output", 'o', "FILE", "write the report to FILE (refuses to overwrite without --force)",
     'o'},
    {"force", 0, NULL, "let -o, --export-rows or --write-params replace an existing file",
     CLI_OPT_FORCE},
    {NULL, 0, NULL, NULL, 0},
};

const struct cli_cmd cli_cmd_calibrate = {
    .name = "calibrate",
    .usage = "dippm calibrate [--data TABLE] [--samples DIR] [--no-fit] [--no-lomo]\n"
             "                       [--write-params FILE] [-o REPORT.md] [--force]\n"
             "       dippm calibrate --export-rows FILE.jsonl [--data TABLE] [--force]\n"
             "       dippm calibrate --intervals DIR [--neusight FILE.jsonl] [--resid FILE]...\n"
             "                       [--data TABLE] [--samples DIR] [--force]",
    .about = "Fits the teacher's global constants (efficiency caps, per-kernel, per-op and\n"
             "per-call overheads, runtime context memory, activation allocator factor) to the\n"
             "published measurements of the mapping table, cross-validates them leaving one\n"
             "model out at a time, and writes the calibration report (markdown): fitted vs\n"
             "compiled-in constants, rows mapped, MAPE per source family, GPU or MIG slice\n"
             "and target (in-sample and leave-one-model-out), every used row predicted vs\n"
             "published, and the skipped rows per reason. Predictions in the report use the\n"
             "compiled-in constants; the fitted values are printed on stderr and, with\n"
             "--write-params, written as src/core/sim_fitted.h.",
    .after = "The committed report is weights/calibration.md:\n"
             "  dippm calibrate -o weights/calibration.md --force",
    .groups = {calibrate_opts},
};

/* What `dippm calibrate` was asked for. */
struct calibrate_cli {
    struct cli_common co;
    const char *data, *samples, *export, *intervals, *neusight, *params_out;
    const char *resid[MAX_RESID];
    int n_resid;
    bool data_given, samples_given; /* typed, not found */
    bool fit, lomo;
    char data_buf[4096], samples_buf[4096];
};

static int calibrate_opt(void *ctx, int id, const char *arg)
{
    struct calibrate_cli *a = ctx;
    switch (id) {
    case OPT_DATA: a->data = arg; return -1;
    case OPT_SAMPLES: a->samples = arg; return -1;
    case OPT_NO_FIT: a->fit = false; return -1;
    case OPT_NO_LOMO: a->lomo = false; return -1;
    case OPT_EXPORT_ROWS: a->export = arg; return -1;
    case OPT_INTERVALS: a->intervals = arg; return -1;
    case OPT_NEUSIGHT: a->neusight = arg; return -1;
    case OPT_RESID:
        if (a->n_resid == MAX_RESID)
            return cli_usage_error("calibrate", "--resid: at most %d files", MAX_RESID);
        a->resid[a->n_resid++] = arg;
        return -1;
    case OPT_WRITE_PARAMS: a->params_out = arg; return -1;
    default: return CLI_OPTS_COMMON;
    }
}

/* The shipped mapping table and samples unless --data and --samples name
 * them; the exit code when one is missing. */
static int find_inputs(struct calibrate_cli *a)
{
    struct diag d = {0};
    char where[4096];
    if (!a->data && !(a->data = datafile_find(DATAFILE_CALIBRATION, DATAFILE_CALIBRATION_NAME,
                                              a->data_buf, sizeof a->data_buf))) {
        diag_set(&d, ST_ENOTFOUND, "no calibration data (looked for %s); use --data FILE",
                 datafile_searched(DATAFILE_CALIBRATION, DATAFILE_CALIBRATION_NAME, where,
                                   sizeof where));
        return cli_fail(&d);
    }
    if (!a->samples && !(a->samples = datafile_find(DATAFILE_SAMPLES, NULL, a->samples_buf,
                                                    sizeof a->samples_buf))) {
        diag_set(&d, ST_ENOTFOUND, "no samples directory (looked in %s); use --samples DIR",
                 datafile_searched(DATAFILE_SAMPLES, NULL, where, sizeof where));
        return cli_fail(&d);
    }
    return 0;
}

static void print_params(const struct sim_params *p)
{
    fprintf(stderr,
            "dippm: fitted constants:\n"
            "    .tc_eff = {[RT_PYTORCH] = %.4g, [RT_TENSORRT] = %.4g},\n    .cuda_eff = %.4g,\n    .bw_eff = %.4g,\n"
            "    .kernel_us = {[RT_PYTORCH] = %.4g, [RT_TENSORRT] = %.4g},\n"
            "    .graph_kernel_us = %.4g,\n"
            "    .dispatch_us = {[RT_PYTORCH] = %.4g, [RT_TENSORRT] = %.4g},\n"
            "    .call_us = {[RT_PYTORCH] = %.4g, [RT_TENSORRT] = %.4g},\n"
            "    .context_mib = {[RT_PYTORCH] = %.4g, [RT_TENSORRT] = %.4g},\n"
            "    .context_sm_mib = %.4g,\n"
            "    .act_factor = %.4g,\n"
            "    .dw_bw_eff = {[RT_PYTORCH] = %.4g, [RT_TENSORRT] = %.4g},\n"
            "    .conv_eff = {[RT_PYTORCH] = %.4g, [RT_TENSORRT] = %.4g},\n"
            "    .seq_step_us = {[RT_PYTORCH] = %.4g, [RT_TENSORRT] = %.4g, [RT_VLLM] = %.4g},\n"
            "    .request_us = {[RT_PYTORCH] = %.4g, [RT_TENSORRT] = %.4g},\n"
            "    .hopper_clock = %.4g,\n"
            "    .overlap_p = %.4g,\n    .k_half = %.4g,\n    .p_active = %.4g,\n    .p_memory = %.4g,\n",
            p->tc_eff[RT_PYTORCH], p->tc_eff[RT_TENSORRT], p->cuda_eff, p->bw_eff, p->kernel_us[RT_PYTORCH],
            p->kernel_us[RT_TENSORRT], p->graph_kernel_us, p->dispatch_us[RT_PYTORCH],
            p->dispatch_us[RT_TENSORRT], p->call_us[RT_PYTORCH], p->call_us[RT_TENSORRT],
            p->context_mib[RT_PYTORCH], p->context_mib[RT_TENSORRT], p->context_sm_mib, p->act_factor,
            p->dw_bw_eff[RT_PYTORCH], p->dw_bw_eff[RT_TENSORRT], p->conv_eff[RT_PYTORCH], p->conv_eff[RT_TENSORRT],
            p->seq_step_us[RT_PYTORCH], p->seq_step_us[RT_TENSORRT], p->seq_step_us[RT_VLLM],
            p->request_us[RT_PYTORCH], p->request_us[RT_TENSORRT],
            p->hopper_clock, p->overlap_p, p->k_half, p->p_active, p->p_memory);
}

static int export_rows(struct calib_set *set, const char *path, bool force)
{
    size_t len;
    int n;
    char *text = calib_export_rows(set, &len, &n);
    struct diag d = {0};
    int rc = 0;
    if (n == 0) {
        diag_set(&d, ST_EUSAGE, "%s: no fitted single-run rows to export", set->path);
        rc = cli_fail(&d);
    } else if (file_write_atomic(path, text, len, force, &d)) {
        rc = cli_fail(&d);
    } else {
        fprintf(stderr, "dippm: wrote %d measured rows to %s\n", n, tsafe(path));
    }
    free(text);
    calib_set_fini(set);
    return rc;
}

/* `dippm calibrate --intervals DIR ...` as typed, for the files' headers. */
static void intervals_command(const struct calibrate_cli *a, char *buf, size_t size)
{
    int len = snprintf(buf, size, "dippm calibrate --intervals %s", a->intervals);
    if (a->data_given && len > 0 && (size_t)len < size)
        len += snprintf(buf + len, size - (size_t)len, " --data %s", a->data);
    if (a->samples_given && len > 0 && (size_t)len < size)
        len += snprintf(buf + len, size - (size_t)len, " --samples %s", a->samples);
    if (a->neusight && len > 0 && (size_t)len < size)
        len += snprintf(buf + len, size - (size_t)len, " --neusight %s", a->neusight);
    for (int i = 0; i < a->n_resid && len > 0 && (size_t)len < size; i++)
        len += snprintf(buf + len, size - (size_t)len, " --resid %s", a->resid[i]);
}

/* Writes DIR/intervals.tsv and DIR/intervals.md from the held-out errors. */
static int write_intervals(const struct calibrate_cli *a, const struct interval_resid *res,
                           int n, const struct interval_counts *cnt)
{
    struct interval_table t;
    interval_build(&t, res, n, NULL);
    char cmd[2048], head[5120], inputs[512], tsv_path[4096], md_path[4096];
    intervals_command(a, cmd, sizeof cmd);
    snprintf(inputs, sizeof inputs, "%d held-out errors (%d calibration rows, leave one source "
             "family out; %d NeuSight rows and %d validation rows, teacher)", n, cnt->calib,
             cnt->neusight, cnt->resid);
    snprintf(head, sizeof head, "dippm prediction intervals (%.0f%%, family-balanced quantiles by "
             "runtime group; method and check in intervals.md)\nwritten by: %s\nfrom %s",
             INTERVAL_COVERAGE * 100, cmd, inputs);
    snprintf(tsv_path, sizeof tsv_path, "%s/%s", a->intervals, INTERVAL_FILE);
    snprintf(md_path, sizeof md_path, "%s/intervals.md", a->intervals);
    size_t lens[2];
    char *tsv = interval_table_format(&t, head, &lens[0]);
    char *md = interval_report(res, n, cnt, &t, cmd, inputs, &lens[1]);
    const char *paths[2] = {tsv_path, md_path};
    const void *data[2] = {tsv, md};
    struct diag d = {0};
    int rc = 0;
    if (file_write_atomic_n(2, paths, data, lens, a->co.force, &d))
        rc = cli_fail(&d);
    else
        fprintf(stderr, "dippm: wrote %s and %s (%d held-out errors)\n", tsafe(tsv_path),
                tsafe(md_path), n);
    free(tsv);
    free(md);
    return rc;
}

/* The leave-one-source-family-out folds from the compiled-in constants
 * (the ones predict uses), the errors they leave, and the interval files. */
static int run_intervals(const struct calibrate_cli *a, struct calib_set *set)
{
    struct diag d = {0};
    int rc = 0;
    struct interval_resid *res = NULL, *val = NULL;
    struct interval_counts cnt = {0};
    struct interval_names names = {0};
    int n = 0, n_val = 0;
    /* the residual files first: a broken one fails before the folds */
    if (interval_read_resid(a->resid, a->n_resid, &val, &n_val, &names, &d))
        return cli_fail(&d);
    struct calib_graphs *cg = calib_graphs_new(set, a->samples, &d);
    fprintf(stderr, "dippm: leave-one-source-family-out folds ...\n");
    if (!cg || calib_evaluate(set, cg, sim_params_default(), &d) ||
        calib_folds(set, cg, sim_params_default(), 2, CF_FAMILY, &d) ||
        interval_collect(set, a->neusight, val, n_val, &res, &n, &cnt, &d))
        rc = cli_fail(&d);
    else
        rc = write_intervals(a, res, n, &cnt);
    free(res);
    free(val);
    interval_names_fini(&names);
    calib_graphs_free(cg);
    return rc;
}

/* Fits (unless --no-fit), evaluates and writes the report. */
static int run(const struct calibrate_cli *a, struct calib_set *set, const struct timespec *t0)
{
    struct diag d = {0};
    int rc = 0;
    bool fit = a->fit, lomo = a->lomo;
    const char *data = a->data;
    struct timespec t1;
    struct calib_graphs *cg = calib_graphs_new(set, a->samples, &d);
    if (!cg) {
        rc = cli_fail(&d);
        goto out;
    }
    const struct sim_params *used = sim_params_default();
    struct sim_params fitted = *used;
    if (fit) {
        fprintf(stderr, "dippm: fitting %s to %s ...\n", "the teacher's constants", tsafe(data));
        if (calib_fit(set, cg, used, false, 8, &fitted, &d)) {
            rc = cli_fail(&d);
            goto out;
        }
        print_params(&fitted);
        struct sim_fitted_board boards[SIM_FITTED_FAMILIES];
        sim_fitted_boards_compiled(boards);
        if (a->params_out && sim_fitted_write(a->params_out, a->co.force, &fitted, boards,
                                              KBENCH_DISPATCH_US, &d)) {
            rc = cli_fail(&d);
            goto out;
        }
        if (lomo) {
            fprintf(stderr, "dippm: leave-one-model-out and leave-one-source-family-out "
                    "folds ...\n");
            if (calib_folds(set, cg, &fitted, 2, CF_MODEL, &d) ||
                calib_folds(set, cg, &fitted, 2, CF_FAMILY, &d)) {
                rc = cli_fail(&d);
                goto out;
            }
        }
    }
    /* The compiled-in constants first (one summary line), then the fitted
     * ones, whose predictions the report's tables show. */
    char used_line[512], line[512];
    if (calib_evaluate(set, cg, used, &d)) {
        rc = cli_fail(&d);
        goto out;
    }
    calib_summary(set, false, used_line, sizeof used_line);
    if (fit && calib_evaluate(set, cg, &fitted, &d)) {
        rc = cli_fail(&d);
        goto out;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
    char *report = calib_report(set, cg, &fitted, used,
                                !fit ? "dippm calibrate --no-fit"
                                     : lomo ? "dippm calibrate" : "dippm calibrate --no-lomo",
                                secs, used_line);
    if (!report) {
        fprintf(stderr, "dippm: out of memory writing the report\n");
        rc = 7;
        goto out;
    }
    rc = cli_emit(&a->co, report, strlen(report));
    free(report);
    calib_summary(set, fit && lomo, line, sizeof line);
    fprintf(stderr, "dippm: fitted constants: %s\ndippm: compiled-in constants: %s\n"
            "dippm: (simulated vs published; %.1f s wall clock, %d threads)\n", line, used_line,
            secs, calib_thread_count());
out:
    calib_graphs_free(cg);
    return rc;
}

int cli_calibrate(int argc, char **argv)
{
    struct calibrate_cli a = {.fit = true, .lomo = true};
    cli_common_init(&a.co);
    int rc = cli_parse(&cli_cmd_calibrate, &a.co, argc, argv, calibrate_opt, &a);
    if (rc >= 0)
        return rc;
    if (optind != argc)
        return cli_usage_error("calibrate", "unexpected argument '%s'", argv[optind]);
    if (a.neusight && !a.intervals)
        return cli_usage_error("calibrate", "--neusight is used with --intervals");
    if (a.n_resid && !a.intervals)
        return cli_usage_error("calibrate", "--resid is used with --intervals");
    if (a.params_out && (!a.fit || a.intervals || a.export))
        return cli_usage_error("calibrate", "--write-params writes what the fit finds; it "
                               "cannot go with --no-fit, --intervals or --export-rows");
    if (a.intervals && a.export)
        return cli_usage_error("calibrate", "--intervals and --export-rows write different "
                               "things; give one");
    a.data_given = a.data != NULL;
    a.samples_given = a.samples != NULL;
    if ((rc = find_inputs(&a)))
        return rc;
    struct calib_set set;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct diag d = {0};
    if (calib_load(a.data, &set, &d))
        return cli_fail(&d);
    if (a.export)
        return export_rows(&set, a.export, a.co.force);
    rc = a.intervals ? run_intervals(&a, &set) : run(&a, &set, &t0);
    calib_set_fini(&set);
    return rc;
}
