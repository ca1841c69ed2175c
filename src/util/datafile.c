/* datafile.c - finding the weights, samples and calibration data. */
#include "util/datafile.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fileio.h"

/* Set by the build (Makefile.am); a compiler that is not given them builds a
 * dippm that only knows the environment. */
#ifndef DIPPM_DATADIR
#define DIPPM_DATADIR ""
#endif
#ifndef DIPPM_SRCDIR
#define DIPPM_SRCDIR ""
#endif
#ifndef DIPPM_BUILDDIR
#define DIPPM_BUILDDIR ""
#endif

static const struct {
    const char *env, *src_sub, *inst_sub;
} kinds[] = {
    [DATAFILE_WEIGHTS] = {"DIPPM_WEIGHTS_DIR", "weights", "weights"},
    [DATAFILE_SAMPLES] = {"DIPPM_SAMPLES_DIR", "samples", "samples"},
    [DATAFILE_CALIBRATION] = {"DIPPM_CALIBRATION_DIR", "tests/data", "calibration"},
};

bool datafile_uninstalled(void)
{
    static int known = -1;
    if (known < 0) {
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        size_t bl = strlen(DIPPM_BUILDDIR);
        known = 0;
        if (n > 0 && bl > 0) {
            exe[n] = '\0';
            known = strncmp(exe, DIPPM_BUILDDIR, bl) == 0 && exe[bl] == '/';
        }
    }
    return known;
}

/* The i-th directory of kind k in search order (into buf), NULL past the last. */
static const char *place(enum datafile_kind k, int i, char *buf, size_t size)
{
    const char *env = getenv(kinds[k].env);
    const char *dirs[3][2] = {{env && *env ? env : NULL, NULL}, {NULL, NULL}, {NULL, NULL}};
    int n = 1;
    if (datafile_uninstalled() && *DIPPM_SRCDIR) {
        /* "/src/dippm", not "/src/dippm/build/.." (the configured spelling) */
        static char src[PATH_MAX];
        if (!src[0] && !realpath(DIPPM_SRCDIR, src))
            snprintf(src, sizeof src, "%s", DIPPM_SRCDIR);
        dirs[n][0] = src;
        dirs[n++][1] = kinds[k].src_sub;
    }
    if (*DIPPM_DATADIR) {
        dirs[n][0] = DIPPM_DATADIR;
        dirs[n++][1] = kinds[k].inst_sub;
    }
    for (int j = 0; j < n; j++) {
        if (!dirs[j][0])
            continue;
        if (i-- > 0)
            continue;
        if (dirs[j][1])
            snprintf(buf, size, "%s/%s", dirs[j][0], dirs[j][1]);
        else
            snprintf(buf, size, "%s", dirs[j][0]);
        return buf;
    }
    return NULL;
}

const char *datafile_find(enum datafile_kind k, const char *name, char *buf, size_t size)
{
    char dir[PATH_MAX];
    for (int i = 0; place(k, i, dir, sizeof dir); i++) {
        if (name && *name)
            snprintf(buf, size, "%s/%s", dir, name);
        else
            snprintf(buf, size, "%s", dir);
        if (file_exists(buf)) {
            /* canonical, so messages show /src/dippm/weights, not build/../weights */
            char *canon = realpath(buf, NULL);
            if (canon && strlen(canon) < size)
                memcpy(buf, canon, strlen(canon) + 1);
            free(canon);
            return buf;
        }
    }
    if (size)
        buf[0] = '\0';
    return NULL;
}

const char *datafile_weights(char *buf, size_t size)
{
    const char *env = getenv("DIPPM_WEIGHTS");
    if (env && *env) {
        snprintf(buf, size, "%s", env);
        return buf;
    }
    return datafile_find(DATAFILE_WEIGHTS, DATAFILE_WEIGHTS_NAME, buf, size);
}

const char *datafile_searched(enum datafile_kind k, const char *name, char *buf, size_t size)
{
    char dir[PATH_MAX];
    size_t used = 0;
    int n = 0;
    while (place(k, n, dir, sizeof dir))
        n++;
    if (size)
        buf[0] = '\0';
    for (int i = 0; i < n && used < size; i++) {
        place(k, i, dir, sizeof dir);
        const char *sep = i == 0 ? "" : i == n - 1 ? " or " : ", ";
        int w = snprintf(buf + used, size - used, "%s%s%s%s", sep, dir, name && *name ? "/" : "",
                         name && *name ? name : "");
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (n == 0)
        snprintf(buf, size, "nowhere ($%s is not set)", kinds[k].env);
    return buf;
}
