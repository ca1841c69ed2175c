/* bench_common.h - repeated timing with medians and spread for the
 * benchmarks of `make bench` (header-only; each bench program includes it
 * once). Every run is timed twice: wall clock (CLOCK_MONOTONIC) and this
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID). On a shared, busy machine
 * the wall time also counts time spent preempted; the CPU time does not,
 * so ratios against the Python references are taken on CPU time. */
#ifndef DIPPM_BENCH_COMMON_H
#define DIPPM_BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BENCH_MAX_REPS 2000

static inline double bench_wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline double bench_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Milliseconds. */
struct bstats {
    int n;
    double med, p25, p75, min, max; /* wall */
    double cpu_med, cpu_min;        /* thread CPU */
};

static int bench_cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile q of sorted v[n] (linear interpolation). */
static inline double bench_q(const double *v, int n, double q)
{
    if (n <= 0)
        return 0;
    double pos = q * (n - 1);
    int i = (int)pos;
    double f = pos - i;
    return i + 1 < n ? v[i] * (1 - f) + v[i + 1] * f : v[n - 1];
}

/* Runs f(ctx) at least min_reps times and until budget_s seconds have passed
 * (never more than max_reps); one untimed warm-up run first. f returns 0 on
 * success; a failure stops the measurement and is returned. */
static inline int bench_run(int (*f)(void *), void *ctx, int min_reps, int max_reps,
                            double budget_s, struct bstats *out)
{
    static double wall[BENCH_MAX_REPS], cpu[BENCH_MAX_REPS];
    if (max_reps > BENCH_MAX_REPS)
        max_reps = BENCH_MAX_REPS;
    int rc = f(ctx);
    if (rc)
        return rc;
    int n = 0;
    double start = bench_wall();
    while (n < max_reps && (n < min_reps || bench_wall() - start < budget_s)) {
        double w0 = bench_wall(), c0 = bench_cpu();
        if ((rc = f(ctx)))
            return rc;
        cpu[n] = (bench_cpu() - c0) * 1e3;
        wall[n] = (bench_wall() - w0) * 1e3;
        n++;
    }
    qsort(wall, (size_t)n, sizeof(double), bench_cmp_d);
    qsort(cpu, (size_t)n, sizeof(double), bench_cmp_d);
    *out = (struct bstats){n,
                           bench_q(wall, n, 0.5),
                           bench_q(wall, n, 0.25),
                           bench_q(wall, n, 0.75),
                           wall[0],
                           wall[n - 1],
                           bench_q(cpu, n, 0.5),
                           cpu[0]};
    return 0;
}

/* "median ms [p25-p75] min, CPU median" as fixed-width text. */
static inline void bench_print(FILE *f, const struct bstats *s)
{
    fprintf(f, "%9.3f ms [IQR %8.3f-%8.3f, min %8.3f, max %8.3f] cpu %9.3f ms (n=%d)", s->med,
            s->p25, s->p75, s->min, s->max, s->cpu_med, s->n);
}

/* One tab-separated row: section, name, nodes, stats (for the report). */
static inline void bench_tsv(FILE *f, const char *section, const char *name, long nodes,
                             const struct bstats *s)
{
    if (!f)
        return;
    fprintf(f, "%s\t%s\t%ld\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\t%d\n", section, name, nodes,
            s->med, s->p25, s->p75, s->min, s->max, s->cpu_med, s->cpu_min, s->n);
}

#endif
