/* cli_dataset.c - `dippm dataset`: sample graphs and configurations, label
 * them with the teacher. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lab/dataset.h"
#include "core/gpu.h"
#include "lab/kbench.h"
#include "util/datafile.h"
#include "util/fileio.h"

enum { OPT_N = CLI_OPT__OWN, OPT_SEED, OPT_SHARD, OPT_FAMILIES, OPT_SAMPLES, OPT_CONFIGS,
       OPT_JSONL, OPT_QUIET, OPT_KERNELS, OPT_KERNEL_SPLIT, OPT_EXCLUDE_GPU };

static const struct cli_opt dataset_opts[] = {
    {"n", 0, "N", "rows before sharding (default 1000)", OPT_N},
    {"seed", 0, "S", "random seed (default 1)", OPT_SEED},
    {"shard", 0, "I/N", "keep only shard I of N (0-based); `cat` the shards to merge",
     OPT_SHARD},
    {"families", 0, "L", "comma list of zoo families (and 'samples'); default all",
     OPT_FAMILIES},
    {"samples", 0, "DIR|none", "the real models to sample (default the shipped samples/); "
     "none: only the zoo templates", OPT_SAMPLES},
    {"configs", 0, "K", "configurations per sampled graph (default 4)", OPT_CONFIGS},
    {"jsonl", 0, NULL, "JSONL records instead of compact binary ones", OPT_JSONL},
    {"quiet", 0, NULL, "no progress messages", OPT_QUIET},
    {"kernels", 0, "TSV", "instead, convert measured single kernels (dippm eval --kernels' "
     "format) into measured rows of zoo:kernel graphs", OPT_KERNELS},
    {"kernel-split", 0, "train|test", "with --kernels: which of NeuSight's splits (default "
     "train)", OPT_KERNEL_SPLIT},
    {"exclude-gpu", 0, "GPU", "with --kernels: leave that GPU's rows out (leave-one-GPU-out "
     "training)", OPT_EXCLUDE_GPU},
    {"output", 'o', "FILE", "where the records go (required; '-o -': standard output)", 'o'},
    {NULL, 0, NULL, NULL, 0},
};

const struct cli_cmd cli_cmd_dataset = {
    .name = "dataset",
    .usage = "dippm dataset -o FILE [--n N] [--seed S] [--shard I/N] [--families a,b]\n"
             "                     [--samples DIR|none] [--configs K] [--jsonl] [--force]",
    .about = "Samples model graphs from the zoo templates (and the real models in DIR,\n"
             "default the shipped samples/) and configurations (batch 1..1024 log-uniform,\n"
             "precision, runtime, GPU and MIG slice), labels them with the teacher (the analytic\n"
             "GPU model: simulated, not measured) and writes compact binary records (or JSONL).",
    .common = CLI_C_FORCE,
    .groups = {dataset_opts},
};

/* What `dippm dataset` was asked for. */
struct dataset_cli {
    struct cli_common co;
    struct dataset_gen_opts o;
    const char *samples;
    bool no_samples;
    const char *kernels;  /* --kernels */
    bool kernel_test;     /* --kernel-split test */
    int exclude_gpu;      /* --exclude-gpu, -1 none */
};

static int dataset_opt(void *ctx, int id, const char *arg)
{
    struct dataset_cli *a = ctx;
    int64_t v;
    switch (id) {
    case OPT_N:
        if (cli_parse_int(arg, 1, 100000000, &v))
            return cli_usage_error("dataset", "--n '%s': expected 1 to 100000000", arg);
        a->o.n = (long)v;
        return -1;
    case OPT_SEED:
        if (cli_parse_int(arg, 0, INT64_MAX, &v))
            return cli_usage_error("dataset", "--seed '%s': expected a non-negative integer", arg);
        a->o.seed = (uint64_t)v;
        return -1;
    case OPT_SHARD: {
        int i, n;
        char tail;
        if (sscanf(arg, "%d/%d%c", &i, &n, &tail) != 2 || n < 1 || n > 1000000 || i < 0 || i >= n)
            return cli_usage_error("dataset", "--shard '%s': expected I/N with 0 <= I < N", arg);
        a->o.shard = i;
        a->o.n_shards = n;
        return -1;
    }
    case OPT_FAMILIES: a->o.families = arg; return -1;
    case OPT_SAMPLES:
        if (strcmp(arg, "none") == 0)
            a->no_samples = true;
        else
            a->samples = arg;
        return -1;
    case OPT_CONFIGS:
        if (cli_parse_int(arg, 1, 1000, &v))
            return cli_usage_error("dataset", "--configs '%s': expected 1 to 1000", arg);
        a->o.configs_per_graph = (int)v;
        return -1;
    case OPT_JSONL: a->o.jsonl = true; return -1;
    case OPT_QUIET: a->o.progress = false; return -1;
    case OPT_KERNELS: a->kernels = arg; return -1;
    case OPT_KERNEL_SPLIT:
        if (strcmp(arg, "train") && strcmp(arg, "test"))
            return cli_usage_error("dataset", "--kernel-split: expected train or test");
        a->kernel_test = !strcmp(arg, "test");
        return -1;
    case OPT_EXCLUDE_GPU:
        if ((a->exclude_gpu = gpu_find(arg)) < 0)
            return cli_usage_error("dataset", "--exclude-gpu: not a GPU of the table (dippm "
                                   "info lists them)");
        return -1;
    default: return CLI_OPTS_COMMON;
    }
}

/* --kernels: the measured kernels as dataset rows. */
static int run_kernels(struct dataset_cli *a)
{
    struct diag d = {0};
    struct kbench_set ks;
    if (kbench_load(a->kernels, &ks, &d))
        return cli_fail(&d);
    struct dataset ds;
    dataset_init(&ds);
    int too_big;
    int n = kbench_to_dataset(&ks, a->kernel_test, a->exclude_gpu, &ds, &too_big);
    kbench_fini(&ks);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    enum status st = mem ? ST_OK : diag_set(&d, ST_ENOMEM, "out of memory");
    for (int i = 0; !st && i < ds.n; i++)
        st = dataset_write_row(mem, &ds.rows[i], a->o.jsonl, &d);
    if (mem)
        fclose(mem);
    int rc = st ? cli_fail(&d) : cli_emit(&a->co, buf, len);
    if (!rc && a->o.progress)
        fprintf(stderr, "dippm dataset: wrote %d measured kernel rows (%d left out: b over "
                "%d, a dataset row's largest batch)\n", n, too_big, DATASET_MAX_BATCH);
    free(buf);
    dataset_fini(&ds);
    return rc;
}

/* Generates the rows and writes them. */
static int run(struct dataset_cli *a)
{
    char samples_buf[1024];
    if (!a->no_samples && !a->samples)
        a->samples = datafile_find(DATAFILE_SAMPLES, NULL, samples_buf, sizeof samples_buf);
    a->o.samples_dir = a->samples;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem) {
        fprintf(stderr, "dippm: out of memory\n");
        return 7;
    }
    struct diag d = {0};
    long written = 0;
    enum status st = dataset_generate(&a->o, mem, &written, &d);
    fclose(mem);
    int rc;
    if (st) {
        rc = cli_fail(&d);
    } else {
        rc = cli_emit(&a->co, buf, len);
        if (!rc && a->o.progress)
            fprintf(stderr, "dippm dataset: wrote %ld rows (teacher labels)\n", written);
    }
    free(buf);
    return rc;
}

int cli_dataset(int argc, char **argv)
{
    struct dataset_cli a = {.o = {.n = 1000, .seed = 1, .n_shards = 1, .configs_per_graph = 4,
                                  .progress = true},
                            .exclude_gpu = -1};
    cli_common_init(&a.co);
    int rc = cli_parse(&cli_cmd_dataset, &a.co, argc, argv, dataset_opt, &a);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return cli_usage_error("dataset", "unexpected argument '%s'", argv[optind]);
    if (!a.co.output)
        return cli_usage_error("dataset", "no output file: use -o FILE (or -o - for stdout)");
    if (strcmp(a.co.output, "-") != 0 && !a.co.force && file_exists(a.co.output)) {
        cli_error("%s exists (use --force to overwrite)", a.co.output);
        return 9;
    }
    return a.kernels ? run_kernels(&a) : run(&a);
}
