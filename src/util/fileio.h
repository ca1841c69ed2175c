/*
 * fileio.h - reading whole files with a size limit and writing files
 * atomically (temporary file in the same directory, fsync, rename).
 */
#ifndef DIPPM_FILEIO_H
#define DIPPM_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include "util/status.h"

/* Opens path for reading only if it is a regular file: a directory, device,
 * FIFO or socket is refused with a diag naming the path (a FIFO without a
 * writer never blocks). Returns the descriptor (blocking mode) with *st
 * filled, or -1. Every file input goes through this or the two below. */
int file_open_regular(const char *path, struct stat *st, struct diag *d);
/* The same as a stdio stream ("r"); NULL on failure. */
FILE *file_fopen_regular(const char *path, struct diag *d);

/* Reads a regular file into a malloc'd buffer (NUL-terminated, *len excludes
 * the NUL). Refuses directories, devices, FIFOs and files over max_bytes with
 * a diag naming the path. Caller frees *out. */
enum status file_read_all(const char *path, size_t max_bytes, char **out, size_t *len,
                          struct diag *d);

/* Writes len bytes to path atomically. If overwrite is false and path exists,
 * returns ST_EEXIST without touching it, also when another writer creates
 * it while this one writes (the file is put in place with
 * renameat2(RENAME_NOREPLACE) or link()). A target that is not a regular
 * file (device, FIFO, socket, directory) is refused, overwrite or not, with
 * ST_EIO and a message naming it. */
enum status file_write_atomic(const char *path, const void *data, size_t len, bool overwrite,
                              struct diag *d);

/* Writes n files (n <= FILE_WRITE_MAX_N) as one step: every file is written
 * to a temporary file and flushed before any is renamed into place, so a full
 * disk leaves none of them changed. Without overwrite, an existing path is
 * ST_EEXIST before anything is written, and one that appears meanwhile takes
 * back the files already placed. An overwritten file keeps its mode.
 * Termination signals are held until the temporary files are gone. */
#define FILE_WRITE_MAX_N 4
enum status file_write_atomic_n(int n, const char *const *paths, const void *const *data,
                                const size_t *lens, bool overwrite, struct diag *d);

/* true if path exists (any type). */
bool file_exists(const char *path);

#endif
