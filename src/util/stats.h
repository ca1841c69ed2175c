/*
 * stats.h - the mean of a sample with a bootstrap interval, for every
 * accuracy figure the program reports (MAPE of kernels, of measured rows).
 */
#ifndef DIPPM_STATS_H
#define DIPPM_STATS_H

/* The mean of x[0..n) and the 2.5% and 97.5% percentiles of the means of
 * STATS_RESAMPLES resamples with replacement (percentile bootstrap, a fixed
 * seed: the same data gives the same interval). n 0: NaN; n 1: the value
 * for all three. */
#define STATS_RESAMPLES 400
void stats_mean_ci95(const double *x, int n, double *mean, double *lo, double *hi);

#endif
