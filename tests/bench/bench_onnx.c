/*
 * bench_onnx.c - ONNX load benchmark (not a test; `make bench-onnx`).
 *
 *   bench_onnx SAMPLES_DIR [FULL_MODEL.onnx]
 *
 * Times onnx_load_file on every weightless sample (best and mean of 20
 * loads), then loads FULL_MODEL (a full-weight export, e.g. ResNet-50 at
 * about 100 MB from tools/export_samples.py --full) in a fresh child process
 * so that its peak RSS (getrusage ru_maxrss) is the load's alone, and
 * compares it with the file size. Targets: under 0.3 s, RSS under 1.5x the
 * file size. Numbers are wall-clock on this machine with the file in the
 * page cache (the export just wrote it); a cold cache adds disk time. CPU
 * time (CLOCK_PROCESS_CPUTIME_ID) is shown beside wall time because a busy
 * shared machine inflates wall time.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "graph/onnx/onnx_load.h"
#include "util/xalloc.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long maxrss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Loads path once; returns wall seconds (and CPU seconds in *cpu), or -1
 * with the error printed. */
static double load_once(const char *path, int *n_nodes, double *cpu)
{
    struct diag d;
    diag_clear(&d);
    double t0 = now(), c0 = cpu_now();
    struct graph *g = onnx_load_file(path, &d);
    double t = now() - t0;
    *cpu = cpu_now() - c0;
    if (!g) {
        fprintf(stderr, "bench_onnx: %s\n", d.msg);
        return -1;
    }
    *n_nodes = g->n_nodes;
    graph_free(g);
    return t;
}

/* Child mode: one model, peak RSS of this process only. */
static int bench_full(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) < 0) {
        fprintf(stderr,
                "bench_onnx: %s: not found (make one with tools/export_samples.py "
                "--full resnet50 -o %s)\n",
                path, path);
        return 1;
    }
    long base = maxrss_kb();
    int nodes = 0;
    double cpu, first_cpu;
    double first = load_once(path, &nodes, &first_cpu), best = first, best_cpu = first_cpu;
    if (first < 0)
        return 1;
    for (int i = 0; i < 4; i++) {
        double t = load_once(path, &nodes, &cpu);
        if (t >= 0 && t < best)
            best = t;
        if (t >= 0 && cpu < best_cpu)
            best_cpu = cpu;
    }
    long peak = maxrss_kb();
    double mb = (double)sb.st_size / 1e6;
    printf("full model %s: %.1f MB, %d nodes\n", path, mb, nodes);
    printf("  load time: first %.4f s (CPU %.4f s), best of 5 %.4f s (CPU %.4f s) (target < "
           "0.3 s)\n",
           first, first_cpu, best, best_cpu);
    printf("  peak RSS: %.1f MB (process baseline before loading %.1f MB) = %.3fx file size "
           "(target < 1.5x)\n",
           (double)peak * 1024 / 1e6, (double)base * 1024 / 1e6,
           (double)peak * 1024 / (double)sb.st_size);
    return first < 0.3 && (double)peak * 1024 < 1.5 * (double)sb.st_size ? 0 : 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    xalloc_init();
    if (argc == 3 && strcmp(argv[1], "--one") == 0)
        return bench_full(argv[2]);
    if (argc < 2) {
        fprintf(stderr, "usage: bench_onnx SAMPLES_DIR [FULL_MODEL.onnx]\n");
        return 2;
    }
    DIR *dir = opendir(argv[1]);
    if (!dir) {
        perror(argv[1]);
        return 2;
    }
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) && n < 256) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".onnx") == 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(dir);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    int rc = 0;
    printf("%-26s %7s %10s %10s %12s\n", "weightless sample", "nodes", "best ms", "mean ms",
           "best CPU ms");
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], names[i]);
        double best = 1e9, sum = 0, best_cpu = 1e9, cpu;
        int nodes = 0;
        for (int k = 0; k < 20; k++) {
            double t = load_once(path, &nodes, &cpu);
            if (t < 0) {
                rc = 1;
                break;
            }
            best = t < best ? t : best;
            sum += t;
            best_cpu = cpu < best_cpu ? cpu : best_cpu;
        }
        printf("%-26s %7d %10.3f %10.3f %12.3f\n", names[i], nodes, best * 1e3, sum / 20 * 1e3,
               best_cpu * 1e3);
        free(names[i]);
    }
    if (argc > 2) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            execl("/proc/self/exe", argv[0], "--one", argv[2], (char *)NULL);
            _exit(bench_full(argv[2])); /* no /proc: run here (RSS then includes the above) */
        }
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
            rc = 1;
    }
    return rc;
}
