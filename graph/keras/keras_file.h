/*
 * keras_file.h - Keras model files as people save them: `.keras` (Keras 3,
 * a zip holding config.json and model.weights.h5) read with libzip, and
 * legacy `.h5` (HDF5 whose root attribute model_config holds the JSON of
 * model.to_json()) read with libhdf5. The configuration goes through the
 * Keras JSON reader (keras.h); of the weights only the dataset shapes are
 * read (graph->n_file_weights, graph->file_weight_elems), never the values.
 * Both libraries are optional at build time; without one, loading that kind
 * of file fails with ST_EUNSUPPORTED saying which package to install.
 */
#ifndef DIPPM_KERAS_FILE_H
#define DIPPM_KERAS_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "graph/ir/ir.h"

/* Largest config JSON accepted (bytes). */
#define KERAS_CONFIG_MAX ((size_t)64 << 20)
/* Largest model.weights.h5 inside a .keras archive whose shapes are read
 * (it must be unpacked in memory to be opened); larger ones are skipped. */
#define KERAS_WEIGHTS_MAX ((size_t)1 << 30)

/* 1 for a zip (.keras), 2 for HDF5 (.h5), 0 otherwise, from a file's first
 * bytes (n >= 8 needed for HDF5). */
int keras_file_sniff(const uint8_t *head, size_t n);

struct graph *keras_zip_load_file(const char *path, struct diag *d);
struct graph *keras_zip_load_buffer(const void *buf, size_t len, const char *name,
                                    struct diag *d);

struct graph *keras_h5_load_file(const char *path, struct diag *d);
struct graph *keras_h5_load_buffer(const void *buf, size_t len, const char *name,
                                   struct diag *d);
/* Counts the datasets under the HDF5 image buf (shapes only) into *n and
 * *elems; used for the weights inside a .keras archive. */
enum status keras_h5_weight_shapes(const void *buf, size_t len, const char *name, int *n,
                                   double *elems, struct diag *d);

/* The wall-clock limit of the HDF5 reader process (default 10 s; the fuzz
 * harness lowers it). */
void keras_h5_set_time_limit(int ms);

#endif
