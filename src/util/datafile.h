/*
 * datafile.h - where dippm's data files are: the GNN weights, the sample
 * models and the published measurements the teacher is calibrated on.
 *
 * Every file of a kind is looked for, in order,
 *   1. in the directory named by the kind's environment variable
 *      ($DIPPM_WEIGHTS_DIR, $DIPPM_SAMPLES_DIR, $DIPPM_CALIBRATION_DIR);
 *   2. when this dippm runs from its build tree (the executable lies under
 *      the configured build directory), in the source tree (weights/,
 *      samples/, tests/data/);
 *   3. in the install directory, DATADIR/dippm/{weights,samples,calibration}.
 * An installed dippm therefore never looks into the tree it was built from,
 * and a dippm run from its build tree prefers the files beside its sources
 * to an older installed copy.
 */
#ifndef DIPPM_DATAFILE_H
#define DIPPM_DATAFILE_H

#include <stdbool.h>
#include <stddef.h>

enum datafile_kind { DATAFILE_WEIGHTS, DATAFILE_SAMPLES, DATAFILE_CALIBRATION };

/* The shipped weights, and the data `dippm calibrate` reads by default. */
#define DATAFILE_WEIGHTS_NAME "dippm-gnn.dpw"
#define DATAFILE_CALIBRATION_NAME "calib_map.tsv"

/* The first existing path of file `name` of kind k, written into buf; NULL
 * (buf holds "") if it is in none of the places. name NULL or "": the first
 * existing directory of kind k. */
const char *datafile_find(enum datafile_kind k, const char *name, char *buf, size_t size);

/* The GNN weights to use when none are given: $DIPPM_WEIGHTS (a file, taken
 * as it is), else datafile_find(DATAFILE_WEIGHTS, DATAFILE_WEIGHTS_NAME). */
const char *datafile_weights(char *buf, size_t size);

/* "A, B or C": the places searched for `name` of kind k, for error messages. */
const char *datafile_searched(enum datafile_kind k, const char *name, char *buf, size_t size);

/* true when this process runs from the build tree (see above). */
bool datafile_uninstalled(void);

#endif
