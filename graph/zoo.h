/*
 * zoo.h - architecture templates with named hyperparameters that emit the
 * IR directly ("zoo:resnet:depth=101:width=2").
 */
#ifndef DIPPM_ZOO_H
#define DIPPM_ZOO_H

#include <stdint.h>

#include "ir.h"

/* Builds the finalized graph for spec "zoo:FAMILY[:k=v...]" or
 * "FAMILY[:k=v...]"; NULL with diag naming the bad parameter and its range. */
struct graph *zoo_build_spec(const char *spec, struct diag *d);

#endif
