/* fmt.c - number formatting for the explorer. */
#include "fmt.h"

#include <math.h>
#include <stdio.h>

const char *fmt_si(double v, char *buf, int size)
{
    static const char *const units[] = {"", " k", " M", " G", " T", " P", " E"};
    if (!isfinite(v)) {
        snprintf(buf, (size_t)size, "?");
        return buf;
    }
    double a = fabs(v);
    if (a < 1000) {
        snprintf(buf, (size_t)size, "%.0f", v);
        return buf;
    }
    int u = 0;
    while (a >= 1000 && u < 6) {
        a /= 1000;
        v /= 1000;
        u++;
    }
    snprintf(buf, (size_t)size, a >= 100 ? "%.0f%s" : a >= 10 ? "%.1f%s" : "%.2f%s", v, units[u]);
    return buf;
}

const char *fmt_bytes(double bytes, char *buf, int size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (!isfinite(bytes) || bytes < 0) {
        snprintf(buf, (size_t)size, "?");
        return buf;
    }
    int u = 0;
    while (bytes >= 1024 && u < 5) {
        bytes /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, (size_t)size, "%.0f B", bytes);
    else
        snprintf(buf, (size_t)size, bytes >= 100 ? "%.0f %s" : bytes >= 10 ? "%.1f %s" : "%.2f %s",
                 bytes, units[u]);
    return buf;
}

const char *fmt_ms(double ms, char *buf, int size)
{
    if (!isfinite(ms) || ms < 0)
        snprintf(buf, (size_t)size, "?");
    else if (ms < 1)
        snprintf(buf, (size_t)size, "%.0f us", ms * 1000);
    else if (ms < 1000)
        snprintf(buf, (size_t)size, ms >= 100 ? "%.0f ms" : ms >= 10 ? "%.1f ms" : "%.2f ms", ms);
    else
        snprintf(buf, (size_t)size, "%.2f s", ms / 1000);
    return buf;
}

const char *fmt_delta(double now, double old, char *buf, int size)
{
    if (old == 0 || !isfinite(now) || !isfinite(old))
        snprintf(buf, (size_t)size, "n/a");
    else
        snprintf(buf, (size_t)size, "%+.1f%%", (now - old) / old * 100.0);
    return buf;
}
