/* cli_calibrate.c - `dippm calibrate`: fits the teacher's global constants
 * to the published rows of the mapping table, cross-validates the fit
 * leaving one model out, and writes the calibration report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/calib.h"
#include "cli/cli.h"
#include "util/datafile.h"
#include "util/fileio.h"
#include "core/sim.h"

enum { OPT_DATA = CLI_OPT__OWN, OPT_SAMPLES, OPT_NO_FIT, OPT_NO_LOMO, OPT_EXPORT };

static void help(void)
{
    printf("Usage: dippm calibrate [--data TABLE] [--samples DIR] [--no-fit] [--no-lomo]\n"
           "                       [-o REPORT.md] [--force]\n"
           "       dippm calibrate --export-rows FILE.jsonl [--data TABLE] [--force]\n\n"
           "Fits the teacher's global constants (efficiency caps, per-kernel, per-op and\n"
           "per-call overheads, runtime context memory, activation allocator factor) to the\n"
           "published measurements of the mapping table, cross-validates them leaving one\n"
           "model out at a time, and writes the calibration report (markdown): fitted vs\n"
           "compiled-in constants, rows mapped, MAPE per source family, GPU or MIG slice\n"
           "and target (in-sample and leave-one-model-out), every used row predicted vs\n"
           "published, and the skipped rows per reason. Predictions in the report use the\n"
           "compiled-in constants; the fitted values are printed on stderr as a C\n"
           "initializer for src/core/sim_params.c.\n\n"
           "  --data TABLE   the mapping table (default: the shipped " DATAFILE_CALIBRATION_NAME "); the\n"
           "                 JSONL files it names must be beside it\n"
           "  --samples DIR  where the ONNX samples the table names are (default: the\n"
           "                 shipped samples)\n"
           "  --no-fit       only evaluate the compiled-in constants\n"
           "  --no-lomo      skip the leave-one-model-out folds\n"
           "  -o FILE        write the report to FILE (refuses to overwrite without --force)\n"
           "  --export-rows FILE  instead, write the fitted rows that are one teacher run\n"
           "                 each (latency or memory of one configuration) as dataset JSONL\n"
           "                 labelled measured, to fine-tune the GNN on (dippm train) and\n"
           "                 to evaluate it leaving one model out (dippm eval); refuses to\n"
           "                 overwrite without --force\n\n"
           "The committed report is weights/calibration.md:\n"
           "  dippm calibrate -o weights/calibration.md --force\n");
}

static void print_params(const struct sim_params *p)
{
    fprintf(stderr,
            "dippm: fitted constants (paste into src/core/sim_params.c):\n"
            "    .tc_eff = {[RT_PYTORCH] = %.4g, [RT_TENSORRT] = %.4g},\n    .cuda_eff = %.4g,\n    .bw_eff = %.4g,\n"
            "    .kernel_us = {[RT_PYTORCH] = %.4g, [RT_TENSORRT] = %.4g},\n"
            "    .dispatch_us = {[RT_PYTORCH] = %.4g, [RT_TENSORRT] = %.4g},\n"
            "    .call_us = {[RT_PYTORCH] = %.4g, [RT_TENSORRT] = %.4g},\n"
            "    .context_mib = {[RT_PYTORCH] = %.4g, [RT_TENSORRT] = %.4g},\n"
            "    .act_factor = %.4g,\n"
            "    .dw_bw_eff = {[RT_PYTORCH] = %.4g, [RT_TENSORRT] = %.4g},\n"
            "    .conv_eff = {[RT_PYTORCH] = %.4g, [RT_TENSORRT] = %.4g},\n"
            "    .seq_step_us = {[RT_PYTORCH] = %.4g, [RT_TENSORRT] = %.4g},\n"
            "    .hopper_clock = %.4g,\n"
            "    .overlap_p = %.4g,\n    .p_active = %.4g,\n    .p_memory = %.4g,\n",
            p->tc_eff[RT_PYTORCH], p->tc_eff[RT_TENSORRT], p->cuda_eff, p->bw_eff, p->kernel_us[RT_PYTORCH],
            p->kernel_us[RT_TENSORRT], p->dispatch_us[RT_PYTORCH],
            p->dispatch_us[RT_TENSORRT], p->call_us[RT_PYTORCH], p->call_us[RT_TENSORRT],
            p->context_mib[RT_PYTORCH], p->context_mib[RT_TENSORRT], p->act_factor,
            p->dw_bw_eff[RT_PYTORCH], p->dw_bw_eff[RT_TENSORRT], p->conv_eff[RT_PYTORCH], p->conv_eff[RT_TENSORRT],
            p->seq_step_us[RT_PYTORCH], p->seq_step_us[RT_TENSORRT], p->hopper_clock, p->overlap_p, p->p_active, p->p_memory);
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
        fprintf(stderr, "dippm: wrote %d measured rows to %s\n", n, path);
    }
    free(text);
    calib_set_fini(set);
    return rc;
}

int cli_calibrate(int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_COMMON_LONGOPTS,
        {"data", required_argument, NULL, OPT_DATA},
        {"samples", required_argument, NULL, OPT_SAMPLES},
        {"no-fit", no_argument, NULL, OPT_NO_FIT},
        {"no-lomo", no_argument, NULL, OPT_NO_LOMO},
        {"export-rows", required_argument, NULL, OPT_EXPORT},
        {0, 0, 0, 0}};
    struct cli_common co;
    cli_common_init(&co);
    const char *data = NULL, *samples = NULL, *export = NULL;
    bool fit = true, lomo = true;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        if (c == CLI_OPT_HELP || c == 'h') {
            help();
            return 0;
        }
        if (c == OPT_DATA) { data = optarg; continue; }
        if (c == OPT_SAMPLES) { samples = optarg; continue; }
        if (c == OPT_NO_FIT) { fit = false; continue; }
        if (c == OPT_NO_LOMO) { lomo = false; continue; }
        if (c == OPT_EXPORT) { export = optarg; continue; }
        int r = cli_common_opt(&co, c, optarg);
        if (r < 0)
            return 2;
        if (r == 0 || (c != 'o' && c != CLI_OPT_FORCE))
            return cli_usage_error("calibrate", "option not valid for 'calibrate'");
    }
    if (optind != argc)
        return cli_usage_error("calibrate", "unexpected argument '%s'", argv[optind]);

    struct diag d = {0};
    char data_buf[4096], samples_buf[4096], where[4096];
    if (!data && !(data = datafile_find(DATAFILE_CALIBRATION, DATAFILE_CALIBRATION_NAME, data_buf,
                                        sizeof data_buf))) {
        diag_set(&d, ST_ENOTFOUND, "no calibration data (looked for %s); use --data FILE",
                 datafile_searched(DATAFILE_CALIBRATION, DATAFILE_CALIBRATION_NAME, where,
                                   sizeof where));
        return cli_fail(&d);
    }
    if (!samples && !(samples = datafile_find(DATAFILE_SAMPLES, NULL, samples_buf,
                                              sizeof samples_buf))) {
        diag_set(&d, ST_ENOTFOUND, "no samples directory (looked in %s); use --samples DIR",
                 datafile_searched(DATAFILE_SAMPLES, NULL, where, sizeof where));
        return cli_fail(&d);
    }

    struct calib_set set;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (calib_load(data, &set, &d))
        return cli_fail(&d);
    if (export)
        return export_rows(&set, export, co.force);
    int rc = 0;
    struct calib_graphs *cg = calib_graphs_new(&set, samples, &d);
    if (!cg) {
        rc = cli_fail(&d);
        goto out;
    }
    const struct sim_params *used = sim_params_default();
    struct sim_params fitted = *used;
    if (fit) {
        fprintf(stderr, "dippm: fitting %s to %s ...\n", "the teacher's constants", data);
        if (calib_fit(&set, cg, used, false, 8, &fitted, &d)) {
            rc = cli_fail(&d);
            goto out;
        }
        print_params(&fitted);
        if (lomo) {
            fprintf(stderr, "dippm: leave-one-model-out folds ...\n");
            if (calib_lomo(&set, cg, &fitted, 2, &d)) {
                rc = cli_fail(&d);
                goto out;
            }
        }
    }
    /* The compiled-in constants first (one summary line), then the fitted
     * ones, whose predictions the report's tables show. */
    char used_line[512], line[512];
    if (calib_evaluate(&set, cg, used, &d)) {
        rc = cli_fail(&d);
        goto out;
    }
    calib_summary(&set, false, used_line, sizeof used_line);
    if (fit && calib_evaluate(&set, cg, &fitted, &d)) {
        rc = cli_fail(&d);
        goto out;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    char *report = calib_report(&set, cg, &fitted, used,
                                !fit ? "dippm calibrate --no-fit"
                                     : lomo ? "dippm calibrate" : "dippm calibrate --no-lomo",
                                secs, used_line);
    if (!report) {
        fprintf(stderr, "dippm: out of memory writing the report\n");
        rc = 7;
        goto out;
    }
    rc = cli_emit(&co, report, strlen(report));
    free(report);
    calib_summary(&set, fit && lomo, line, sizeof line);
    fprintf(stderr, "dippm: fitted constants: %s\ndippm: compiled-in constants: %s\n"
            "dippm: (simulated vs published; %.1f s wall clock, %d threads)\n", line, used_line,
            secs, calib_thread_count());
out:
    calib_graphs_free(cg);
    calib_set_fini(&set);
    return rc;
}
