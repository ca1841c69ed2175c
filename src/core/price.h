/*
 * price.h - what a prediction costs: a price per GPU-hour, given by the user
 * or read from the user's price table, turned into the cost of 1,000
 * samples, a million output tokens or a thousand images at the predicted
 * throughput. No price is compiled in, and no currency is assumed: the cost
 * is in the currency of the price.
 *
 * The price table is a text file, one line per GPU or MIG slice:
 *
 *     # GPU[:PROFILE] PRICE    (per hour; '#' starts a comment)
 *     a100        1.29
 *     h100-sxm5   2.49
 *     a100:1g.5gb 0.20
 *
 * GPU is a name or alias of the GPU table (gpu.h). A slice takes its own
 * line if there is one, else its GPU's price times the slice's share of the
 * GPU (price_slice_share).
 */
#ifndef DIPPM_PRICE_H
#define DIPPM_PRICE_H

#include <stddef.h>

#include "core/config.h"
#include "util/status.h"

#define PRICE_PER_HOUR_MAX 1e6
#define PRICE_SOURCE_MAX 600

/* A configuration's price per hour and where it came from. */
struct price {
    double per_hour;                /* of the GPU or slice; 0: none known */
    char source[PRICE_SOURCE_MAX];  /* "--price-per-hour", "FILE:LINE", ... */
};

struct price_row {
    int gpu, mig;     /* gpu.h indices; mig -1: the whole GPU */
    double per_hour;
    int line;
};

struct price_table {
    char path[512];
    struct price_row *rows;
    int n;
};

/* The share of the whole GPU's price a MIG slice costs: its compute slices
 * over seven (1g.10gb: 1/7); 1 for the whole GPU. */
double price_slice_share(const struct config *cfg);

/* The user's price table: $XDG_CONFIG_HOME/dippm/prices, else
 * $HOME/.config/dippm/prices; NULL when neither variable is set. */
const char *price_table_path(char *buf, size_t size);

/* Reads the table at path into t (empty when the file does not exist). A
 * line that is not "GPU[:PROFILE] PRICE", an unknown GPU or profile, a price
 * that is not a number above 0 and at most PRICE_PER_HOUR_MAX, or a GPU
 * priced twice is ST_EPARSE naming the file and line; a file that cannot be
 * read is ST_EIO. t is empty on error; free with price_table_fini. */
enum status price_table_load(const char *path, struct price_table *t, struct diag *d);
void price_table_fini(struct price_table *t);

/* cfg's price from t: its slice's own line, else its GPU's line times
 * price_slice_share. False (out->per_hour 0) when t prices neither. */
bool price_table_find(const struct price_table *t, const struct config *cfg, struct price *out);

/* The cost of n units at rate units per second and per_hour per hour: 0
 * when either is not positive. */
double price_cost(double per_hour, double rate_per_s, double n);

#endif
