/* cli_dataset.c - `dippm dataset`: sample graphs and configurations, label
 * them with the teacher. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/dataset.h"
#include "util/datafile.h"
#include "util/fileio.h"

static void usage(void)
{
    printf("Usage: dippm dataset -o FILE [--n N] [--seed S] [--shard I/N] [--families a,b]\n"
           "                     [--samples DIR|none] [--configs K] [--jsonl] [--force]\n"
           "Samples model graphs from the zoo templates (and the real models in DIR,\n"
           "default the shipped samples/) and configurations (batch 1..1024 log-uniform,\n"
           "precision, runtime, GPU and MIG slice), labels them with the teacher (the analytic\n"
           "GPU model: simulated, not measured) and writes compact binary records (or JSONL).\n"
           "  --n N          rows before sharding (default 1000)\n"
           "  --seed S       random seed (default 1)\n"
           "  --shard I/N    keep only shard I of N (0-based); `cat` the shards to merge\n"
           "  --families L   comma list of zoo families (and 'samples'); default all\n"
           "  --configs K    configurations per sampled graph (default 4)\n"
           "  --quiet        no progress messages\n");
}

enum { OPT_N = CLI_OPT__OWN, OPT_SEED, OPT_SHARD, OPT_FAMILIES, OPT_SAMPLES, OPT_CONFIGS,
       OPT_JSONL, OPT_QUIET };

int cli_dataset(int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_COMMON_LONGOPTS,
        {"n", required_argument, NULL, OPT_N},
        {"seed", required_argument, NULL, OPT_SEED},
        {"shard", required_argument, NULL, OPT_SHARD},
        {"families", required_argument, NULL, OPT_FAMILIES},
        {"samples", required_argument, NULL, OPT_SAMPLES},
        {"configs", required_argument, NULL, OPT_CONFIGS},
        {"jsonl", no_argument, NULL, OPT_JSONL},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {NULL, 0, NULL, 0},
    };
    struct cli_common co;
    cli_common_init(&co);
    struct dataset_gen_opts o = {0};
    o.n = 1000;
    o.seed = 1;
    o.n_shards = 1;
    o.configs_per_graph = 4;
    o.progress = true;
    const char *samples = NULL;
    bool no_samples = false;
    int c;
    int64_t v;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        int r = cli_common_opt(&co, c, optarg);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        switch (c) {
        case 'h':
        case CLI_OPT_HELP: usage(); return 0;
        case OPT_N:
            if (cli_parse_int(optarg, 1, 100000000, &v))
                return cli_usage_error("dataset", "--n '%s': expected 1 to 100000000", optarg);
            o.n = (long)v;
            break;
        case OPT_SEED:
            if (cli_parse_int(optarg, 0, INT64_MAX, &v))
                return cli_usage_error("dataset", "--seed '%s': expected a non-negative integer",
                                       optarg);
            o.seed = (uint64_t)v;
            break;
        case OPT_SHARD: {
            int i, n;
            char tail;
            if (sscanf(optarg, "%d/%d%c", &i, &n, &tail) != 2 || n < 1 || n > 1000000 || i < 0 ||
                i >= n)
                return cli_usage_error("dataset", "--shard '%s': expected I/N with 0 <= I < N",
                                       optarg);
            o.shard = i;
            o.n_shards = n;
            break;
        }
        case OPT_FAMILIES: o.families = optarg; break;
        case OPT_SAMPLES:
            if (strcmp(optarg, "none") == 0)
                no_samples = true;
            else
                samples = optarg;
            break;
        case OPT_CONFIGS:
            if (cli_parse_int(optarg, 1, 1000, &v))
                return cli_usage_error("dataset", "--configs '%s': expected 1 to 1000", optarg);
            o.configs_per_graph = (int)v;
            break;
        case OPT_JSONL: o.jsonl = true; break;
        case OPT_QUIET: o.progress = false; break;
        default: return cli_usage_error("dataset", "unknown option");
        }
    }
    if (optind < argc)
        return cli_usage_error("dataset", "unexpected argument '%s'", argv[optind]);
    if (!co.output)
        return cli_usage_error("dataset", "no output file: use -o FILE (or -o - for stdout)");
    if (co.output && strcmp(co.output, "-") != 0 && !co.force && file_exists(co.output)) {
        fprintf(stderr, "dippm: %s exists (use --force to overwrite)\n", co.output);
        return 9;
    }
    char samples_buf[1024];
    if (!no_samples && !samples)
        samples = datafile_find(DATAFILE_SAMPLES, NULL, samples_buf, sizeof samples_buf);
    o.samples_dir = samples;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem) {
        fprintf(stderr, "dippm: out of memory\n");
        return 7;
    }
    struct diag d = {0};
    long written = 0;
    enum status st = dataset_generate(&o, mem, &written, &d);
    fclose(mem);
    int rc;
    if (st) {
        rc = cli_fail(&d);
    } else {
        rc = cli_emit(&co, buf, len);
        if (!rc && o.progress)
            fprintf(stderr, "dippm dataset: wrote %ld rows (teacher labels)\n", written);
    }
    free(buf);
    return rc;
}
