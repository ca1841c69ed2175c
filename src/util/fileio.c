/* fileio.c - bounded whole-file reads and atomic writes. */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int file_open_regular(const char *path, struct stat *st, struct diag *d)
{
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
     * writer before fstat could refuse it */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        diag_set(d, e == ENOENT ? ST_ENOTFOUND : ST_EIO, "%s: cannot open: %s", path,
                 strerror(e));
        return -1;
    }
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        diag_set(d, ST_EIO, "%s: cannot stat: %s", path, strerror(e));
        return -1;
    }
    if (S_ISDIR(st->st_mode) || !S_ISREG(st->st_mode)) {
        close(fd);
        diag_set(d, ST_EIO, S_ISDIR(st->st_mode)
                                ? "%s: is a directory, expected a regular file"
                                : "%s: not a regular file (device, pipe or socket)",
                 path);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        int e = errno;
        close(fd);
        diag_set(d, ST_EIO, "%s: cannot open: %s", path, strerror(e));
        return -1;
    }
    return fd;
}

FILE *file_fopen_regular(const char *path, struct diag *d)
{
    struct stat st;
    int fd = file_open_regular(path, &st, d);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "r");
    if (!f) {
        int e = errno;
        close(fd);
        diag_set(d, ST_EIO, "%s: cannot open: %s", path, strerror(e));
    }
    return f;
}

enum status file_read_all(const char *path, size_t max_bytes, char **out, size_t *len,
                          struct diag *d)
{
    *out = NULL;
    *len = 0;
    struct stat st;
    int fd = file_open_regular(path, &st, d);
    if (fd < 0)
        return d ? d->code : ST_EIO;
    if ((unsigned long long)st.st_size > max_bytes) {
        close(fd);
        return diag_set(d, ST_ENOMEM, "%s: file is %lld bytes, more than the %zu-byte limit", path,
                        (long long)st.st_size, max_bytes);
    }
    size_t n = (size_t)st.st_size;
    char *buf = malloc(n + 1);
    if (!buf) {
        close(fd);
        return diag_set(d, ST_ENOMEM, "%s: cannot allocate %zu bytes", path, n + 1);
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int e = r < 0 ? errno : 0;
            free(buf);
            close(fd);
            return diag_set(d, ST_EIO, "%s: read failed: %s", path,
                            e ? strerror(e) : "file shrank while reading");
        }
        got += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return ST_OK;
}

bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

enum status file_write_atomic(const char *path, const void *data, size_t len, bool overwrite,
                              struct diag *d)
{
    if (!overwrite && file_exists(path))
        return diag_set(d, ST_EEXIST, "%s: already exists (use --force to overwrite)", path);
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 16);
    if (!tmp)
        return diag_set(d, ST_ENOMEM, "%s: out of memory", path);
    snprintf(tmp, pl + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return diag_set(d, ST_EIO, "%s: cannot create temporary file: %s", path, strerror(e));
    }
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            free(tmp);
            return diag_set(d, ST_EIO, "%s: write failed: %s", path, strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    /* mkstemp creates 0600; give the file the usual umask-derived mode. */
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    if (fsync(fd) != 0 || close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        free(tmp);
        return diag_set(d, ST_EIO, "%s: cannot flush: %s", path, strerror(e));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        free(tmp);
        return diag_set(d, ST_EIO, "%s: cannot rename into place: %s", path, strerror(e));
    }
    free(tmp);
    return ST_OK;
}
