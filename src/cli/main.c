/* main.c - dippm entry point: subcommand dispatch, --help, --version, and the
 * default action (the explorer on a terminal, a report otherwise). */
#include "dippm_config.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/fileio.h"
#include "core/report.h"
#include "ui/ui.h"
#include "util/xalloc.h"

static const struct {
    const char *name, *usage, *help;
    int (*fn)(int, char **);
} subcommands[] = {
#define X(name, usage, help) {#name, usage, help, cli_##name},
    CLI_SUBCOMMANDS(X)
#undef X
};

static void usage(FILE *f)
{
    fprintf(f, "Usage: dippm [MODEL]\n"
               "       dippm --session NAME | --tour\n"
               "       dippm SUBCOMMAND [OPTIONS] ...\n\n"
               "Predicts how a deep-learning model runs on data-centre GPUs: latency, energy,\n"
               "peak memory and the smallest MIG slice that holds it.\n\n"
               "With no subcommand, opens the explorer on MODEL (default: the bundled\n"
               "ResNet-50); without a terminal, prints a report instead.\n\n"
               "Subcommands:\n");
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        fprintf(f, "  %-28s %s\n", subcommands[i].usage, subcommands[i].help);
    fprintf(f, "\nMODEL is an ONNX file, a Keras model (.keras, .h5 or its JSON), a TF.js model\n"
               "JSON, a dippm JSON graph, or a template spec such as zoo:resnet:depth=101.\n\n"
               "Options:\n"
               "  -h, --help       this help; 'dippm SUBCOMMAND --help' for a subcommand\n"
               "  -V, --version    version\n"
               "  --session NAME   open the explorer on a saved session (:w NAME saves one)\n"
               "  --tour           a guided tour of what the figures mean (bundled models)\n\n"
               "See dippm(1) for options, output formats and exit codes.\n");
}

/* dippm --tour | --session NAME: the explorer only (no report fallback). */
static int explore_opts(int argc, char **argv)
{
    struct ui_opts o = {NULL, NULL, false};
    if (!strcmp(argv[1], "--tour") && argc == 2) {
        o.tour = true;
    } else if (!strcmp(argv[1], "--session") && argc == 3 && argv[2][0] != '-') {
        o.session = argv[2];
    } else {
        fprintf(stderr, "dippm: usage: dippm --tour | dippm --session NAME\n");
        return 2;
    }
    if (!getenv("DIPPM_NO_DISPLAY") && !(isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))) {
        fprintf(stderr, "dippm: %s needs a terminal (the explorer)\n", argv[1]);
        return 2;
    }
    return ui_main_opts(&o);
}

/* Flushes and closes standard output, the one place that sees whether what
 * a command printed there arrived (as coreutils' close_stdout): a full disk,
 * /dev/full or a closed descriptor is an I/O error, exit 3, not a silent 0.
 * A command that already failed keeps its own exit code and message. */
static int close_stdout(int rc)
{
    errno = 0;
    bool failed = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && !failed && errno != EBADF) { /* EBADF: nothing written */
        failed = true;
        e = errno;
    }
    if (!failed || rc != 0)
        return rc;
    fprintf(stderr, "dippm: cannot write to standard output: %s\n",
            e ? strerror(e) : "write error");
    return status_exit_code(ST_EIO);
}

static int run(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage(stdout);
        return 0;
    }
    if (argc >= 2 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
        printf("dippm %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (argc >= 2 && (!strcmp(argv[1], "--tour") || !strcmp(argv[1], "--session")))
        return explore_opts(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "__complete"))
        return cli_complete(argc - 1, argv + 1);
    if (argc >= 2) {
        for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
            if (!strcmp(argv[1], subcommands[i].name))
                return subcommands[i].fn(argc - 1, argv + 1);
        if (argv[1][0] == '-') {
            cli_error("unknown option '%s'", argv[1]);
            usage(stderr);
            return 2;
        }
        bool model_like = file_exists(argv[1]) || strncmp(argv[1], "zoo:", 4) == 0 ||
                          strchr(argv[1], '/') || strchr(argv[1], '.');
        if (argc > 2 && model_like) {
            cli_error("the explorer takes one MODEL and no options (got '%s' after it): change "
                      "the GPU, batch or precision inside it (F1 lists the keys), or use 'dippm "
                      "predict %s ...'", argv[2], argv[1]);
            return 2;
        }
        if (argc > 2 || !model_like) {
            cli_error("'%s' is neither a subcommand nor a model file\n", argv[1]);
            usage(stderr);
            return 2;
        }
    }
    const char *model = argc >= 2 ? argv[1] : NULL;
    /* DIPPM_NO_DISPLAY runs the explorer headless (key script in DIPPM_SCRIPT,
     * :dump-screen), so it needs no terminal. */
    if (getenv("DIPPM_NO_DISPLAY") ||
        (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && !getenv("DIPPM_NO_UI")))
        return ui_main(model);
    return report_main(model);
}

/* OpenBLAS starts a worker thread per core as the program loads, and each
 * maps a 128 MiB buffer; under an address-space limit (ulimit -v) a worker
 * whose buffer does not fit retries for ever, and exit() then waits for it:
 * even --version hung. Its thread count is read from the environment
 * before main, so under a finite limit dippm runs itself again with BLAS on
 * one thread (no workers), unless the user chose a count. Training is the
 * only multi-threaded BLAS user. */
static void blas_one_thread_under_limit(char **argv)
{
    struct rlimit as;
    if (getenv("OPENBLAS_NUM_THREADS") || getrlimit(RLIMIT_AS, &as) != 0 ||
        as.rlim_cur == RLIM_INFINITY)
        return;
    if (setenv("OPENBLAS_NUM_THREADS", "1", 1) != 0)
        return;
    execv("/proc/self/exe", argv);
    /* no /proc: carry on, the workers may still fit */
}

int main(int argc, char **argv)
{
    blas_one_thread_under_limit(argv);
    xalloc_init();
    /* past a file size limit (ulimit -f) write() then fails with EFBIG, which
     * the writers report (and remove their temporary files), instead of
     * SIGXFSZ killing the process without a word */
    signal(SIGXFSZ, SIG_IGN);
    return close_stdout(run(argc, argv));
}
