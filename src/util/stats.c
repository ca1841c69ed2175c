/* stats.c - the mean of a sample with a bootstrap interval (stats.h). */
#include "util/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void stats_mean_ci95(const double *x, int n, double *mean, double *lo, double *hi)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += x[i];
    *mean = *lo = *hi = n > 0 ? sum / n : NAN;
    if (n < 2)
        return;
    double means[STATS_RESAMPLES];
    uint64_t s = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
    for (int b = 0; b < STATS_RESAMPLES; b++) {
        double t = 0;
        for (int j = 0; j < n; j++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17; /* xorshift64 */
            t += x[s % (uint64_t)n];
        }
        means[b] = t / n;
    }
    qsort(means, STATS_RESAMPLES, sizeof means[0], cmp_double);
    *lo = means[STATS_RESAMPLES / 40];
    *hi = means[STATS_RESAMPLES - 1 - STATS_RESAMPLES / 40];
}
