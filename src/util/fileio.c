/* fileio.c - bounded whole-file reads and atomic writes. */
#define _GNU_SOURCE /* renameat2 and RENAME_NOREPLACE (glibc 2.28) */
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
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

/* A file being written before it is put in place: anonymous (O_TMPFILE,
 * fd open, no name, so nothing is left behind whatever kills the process
 * before it is linked in) or, where the file system has no O_TMPFILE or
 * /proc is missing, a named temporary file next to the target. */
struct pending {
    int fd;    /* >= 0: an anonymous file */
    char *tmp; /* else its temporary name (malloc'd) */
};

/* An anonymous file in path's directory, or -1 where there is none. */
static int open_anon(const char *path)
{
#ifdef O_TMPFILE
    if (access("/proc/self/fd", X_OK) != 0) /* linkat needs it to name the file */
        return -1;
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir)
        return -1;
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    free(dir);
    return fd;
#else
    (void)path;
    return -1;
#endif
}

/* Writes data to a new file in path's directory (mode: path's when it
 * exists, else 0666 & ~umask), flushed to disk: an anonymous one, else a
 * named temporary file. */
static enum status write_tmp(const char *path, const void *data, size_t len,
                             struct pending *pf, struct diag *d)
{
    pf->tmp = NULL;
    pf->fd = open_anon(path);
    int fd = pf->fd;
    if (fd < 0) {
        if (!(pf->tmp = tmp_template(path)))
            return diag_set(d, ST_ENOMEM, "%s: out of memory", path);
        if ((fd = mkstemp(pf->tmp)) < 0) {
            int e = errno;
            free(pf->tmp);
            pf->tmp = NULL;
            return diag_set(d, ST_EIO, "%s: cannot create temporary file: %s", path, strerror(e));
        }
    }
    const char *p = data;
    size_t left = len;
    int e = 0;
    while (left && !e) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            e = w < 0 ? errno : ENOSPC;
            break;
        }
        p += w;
        left -= (size_t)w;
    }
    /* a new file is 0600: an overwritten file keeps its own mode (a private
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
    bool flushed = !e && fchmod(fd, mode) == 0 && fsync(fd) == 0;
    int fe = flushed ? 0 : errno;
    if (pf->tmp && close(fd) != 0 && flushed) {
        flushed = false;
        fe = errno;
    }
    if (e || !flushed) {
        if (pf->tmp) {
            unlink(pf->tmp);
            free(pf->tmp);
            pf->tmp = NULL;
        } else {
            close(fd);
        }
        pf->fd = -1;
        if (e)
            return diag_set(d, ST_EIO, "%s: write failed: %s", path, strerror(e));
        return diag_set(d, ST_EIO, "%s: cannot flush: %s", path, strerror(fe));
    }
    return ST_OK;
}

/* Puts the temporary file tmp in place as path; 0, or -1 with errno.
 * Without overwrite an existing path is never replaced, not even one that
 * appeared after check_target looked (two writers of the same -o: only one
 * may succeed): renameat2(RENAME_NOREPLACE), or where the file system lacks
 * the flag a hard link, which fails on an existing name (EEXIST). Only a
 * file system with neither falls back to looking first. */
static int publish_named(const char *tmp, const char *path, bool overwrite)
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

/* Links the anonymous file fd in as path: without overwrite straight to
 * path (EEXIST if it is there); with overwrite under a fresh temporary
 * name renamed over path, the only moment the file has another name. */
static int publish_anon(int fd, const char *path, bool overwrite)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    if (!overwrite)
        return linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
    char *tmp = tmp_template(path);
    if (!tmp) {
        errno = ENOMEM;
        return -1;
    }
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    char *x = tmp + strlen(tmp) - 6;
    unsigned long h = (unsigned long)getpid() * 2654435761ul ^ (unsigned long)(uintptr_t)tmp;
    int r = -1;
    for (int tries = 0; tries < 100 && r != 0; tries++) {
        for (int i = 0; i < 6; i++, h = h * 6364136223846793005ul + 1442695040888963407ul)
            x[i] = digits[(h >> 33) % 36];
        r = linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW);
        if (r != 0 && errno != EEXIST)
            break;
    }
    if (r == 0 && (r = rename(tmp, path)) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
    }
    free(tmp);
    return r;
}

static int publish(const struct pending *pf, const char *path, bool overwrite)
{
    return pf->tmp ? publish_named(pf->tmp, path, overwrite) : publish_anon(pf->fd, path, overwrite);
}

/* Drops what is left of a pending file (its name, its descriptor). */
static void pending_fini(struct pending *pf)
{
    if (pf->tmp) {
        unlink(pf->tmp);
        free(pf->tmp);
    }
    if (pf->fd >= 0)
        close(pf->fd);
    pf->tmp = NULL;
    pf->fd = -1;
}

enum status file_write_atomic_n(int n, const char *const *paths, const void *const *data,
                                const size_t *lens, bool overwrite, struct diag *d)
{
    for (int i = 0; i < n; i++) {
        enum status st = check_target(paths[i], overwrite, d);
        if (st)
            return st;
    }
    /* No signal may land between creating a named temporary file and
     * renaming or removing it: the terminating ones wait until the files
     * are in place. (A thread of a library may still take one: then an
     * anonymous file leaves nothing behind.) */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGQUIT);
    sigaddset(&block, SIGPIPE);
    sigprocmask(SIG_BLOCK, &block, &old);
    struct pending pf[FILE_WRITE_MAX_N];
    for (int i = 0; i < FILE_WRITE_MAX_N; i++)
        pf[i] = (struct pending){-1, NULL};
    enum status st = n > FILE_WRITE_MAX_N ? diag_set(d, ST_EINTERNAL, "too many files") : ST_OK;
    for (int i = 0; i < n && !st; i++)
        st = write_tmp(paths[i], data[i], lens[i], &pf[i], d);
    int placed = 0;
    for (; placed < n && !st; placed++) {
        if (publish(&pf[placed], paths[placed], overwrite) != 0) {
            int e = errno;
            st = e == EEXIST ? exists_error(paths[placed], d)
                             : diag_set(d, ST_EIO, "%s: cannot rename into place: %s",
                                        paths[placed], strerror(e));
            break;
        }
        free(pf[placed].tmp); /* renamed: its name is the target's now */
        pf[placed].tmp = NULL;
    }
    /* without overwrite the files placed so far are new: take them back */
    for (int i = 0; st && !overwrite && i < placed; i++)
        unlink(paths[i]);
    for (int i = 0; i < FILE_WRITE_MAX_N; i++)
        pending_fini(&pf[i]);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return st;
}

enum status file_write_atomic(const char *path, const void *data, size_t len, bool overwrite,
                              struct diag *d)
{
    return file_write_atomic_n(1, &path, &data, &len, overwrite, d);
}
