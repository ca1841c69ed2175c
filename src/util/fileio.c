/* fileio.c - bounded whole-file reads and atomic writes. */
#define _GNU_SOURCE /* renameat2 and RENAME_NOREPLACE (glibc 2.28) */
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
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

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

static enum status exists_error(const char *path, struct diag *d)
{
    return diag_set(d, ST_EEXIST, "%s: already exists (use --force to overwrite)", path);
}

/* Refuses a target that exists and is not a regular file (after following
 * links), --force or not: replacing a device node, FIFO, socket or directory
 * by a regular file destroys it (as root, -o /dev/null would delete
 * /dev/null). Without overwrite, an existing path (a dangling link too) is
 * ST_EEXIST. */
static enum status check_target(const char *path, bool overwrite, struct diag *d)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return diag_set(d, ST_EIO,
                        S_ISDIR(sb.st_mode)
                            ? "%s: is a directory, expected a regular file; not writing it"
                            : "%s: not a regular file (device, pipe or socket); not replacing it",
                        path);
    if (!overwrite && lstat(path, &sb) == 0)
        return exists_error(path, d);
    return ST_OK;
}

/* The template of path's temporary file: "DIR/NAME.tmpXXXXXX" in the same
 * directory, NAME cut so that the name stays within NAME_MAX. malloc'd. */
static char *tmp_template(const char *path)
{
    static const char suffix[] = ".tmpXXXXXX";
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    size_t base = strlen(path + dir);
    if (base > NAME_MAX - (sizeof suffix - 1))
        base = NAME_MAX - (sizeof suffix - 1);
    char *tmp = malloc(dir + base + sizeof suffix);
    if (tmp)
        snprintf(tmp, dir + base + sizeof suffix, "%.*s%s", (int)(dir + base), path, suffix);
    return tmp;
}

/* Writes data to a new temporary file next to path (mode: path's when it
 * exists, else 0666 & ~umask), flushed to disk. *tmp_out is malloc'd. */
static enum status write_tmp(const char *path, const void *data, size_t len, char **tmp_out,
                             struct diag *d)
{
    *tmp_out = NULL;
    char *tmp = tmp_template(path);
    if (!tmp)
        return diag_set(d, ST_ENOMEM, "%s: out of memory", path);
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
            int e = w < 0 ? errno : ENOSPC;
            close(fd);
            unlink(tmp);
            free(tmp);
            return diag_set(d, ST_EIO, "%s: write failed: %s", path, strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    /* mkstemp creates 0600: an overwritten file keeps its own mode (a private
     * 0600 file stays private), a new one gets the umask-derived mode */
    struct stat old;
    mode_t mode;
    if (stat(path, &old) == 0 && S_ISREG(old.st_mode)) {
        mode = old.st_mode & 07777;
    } else {
        mode_t um = umask(0);
        umask(um);
        mode = 0666 & ~um;
    }
    if (fchmod(fd, mode) != 0 || fsync(fd) != 0 || close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        free(tmp);
        return diag_set(d, ST_EIO, "%s: cannot flush: %s", path, strerror(e));
    }
    *tmp_out = tmp;
    return ST_OK;
}

/* Puts the temporary file tmp in place as path; 0, or -1 with errno.
 * Without overwrite an existing path is never replaced, not even one that
 * appeared after check_target looked (two writers of the same -o: only one
 * may succeed): renameat2(RENAME_NOREPLACE), or where the file system lacks
 * the flag a hard link, which fails on an existing name (EEXIST). Only a
 * file system with neither falls back to looking first. */
static int publish(const char *tmp, const char *path, bool overwrite)
{
    if (overwrite)
        return rename(tmp, path);
#ifdef RENAME_NOREPLACE
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
        return -1;
#endif
    if (link(tmp, path) == 0) {
        unlink(tmp);
        return 0;
    }
    if (errno != EPERM && errno != EOPNOTSUPP && errno != ENOSYS)
        return -1;
    struct stat sb;
    if (lstat(path, &sb) == 0) {
        errno = EEXIST;
        return -1;
    }
    return rename(tmp, path);
}

enum status file_write_atomic_n(int n, const char *const *paths, const void *const *data,
                                const size_t *lens, bool overwrite, struct diag *d)
{
    for (int i = 0; i < n; i++) {
        enum status st = check_target(paths[i], overwrite, d);
        if (st)
            return st;
    }
    /* No signal may land between creating a temporary file and renaming or
     * removing it: the terminating ones wait until the files are in place. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGQUIT);
    sigaddset(&block, SIGPIPE);
    sigprocmask(SIG_BLOCK, &block, &old);
    char *tmp[FILE_WRITE_MAX_N] = {0};
    enum status st = n > FILE_WRITE_MAX_N ? diag_set(d, ST_EINTERNAL, "too many files") : ST_OK;
    for (int i = 0; i < n && !st; i++)
        st = write_tmp(paths[i], data[i], lens[i], &tmp[i], d);
    int placed = 0;
    for (; placed < n && !st; placed++) {
        if (publish(tmp[placed], paths[placed], overwrite) != 0) {
            int e = errno;
            st = e == EEXIST ? exists_error(paths[placed], d)
                             : diag_set(d, ST_EIO, "%s: cannot rename into place: %s",
                                        paths[placed], strerror(e));
            break;
        }
        free(tmp[placed]);
        tmp[placed] = NULL;
    }
    /* without overwrite the files placed so far are new: take them back */
    for (int i = 0; st && !overwrite && i < placed; i++)
        unlink(paths[i]);
    for (int i = 0; i < n; i++) {
        if (tmp[i])
            unlink(tmp[i]);
        free(tmp[i]);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return st;
}

enum status file_write_atomic(const char *path, const void *data, size_t len, bool overwrite,
                              struct diag *d)
{
    return file_write_atomic_n(1, &path, &data, &len, overwrite, d);
}
