/* fmt.c - number formatting for the explorer. */
#include "ui/fmt.h"

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

/* Three significant digits of v followed by unit. */
static const char *sig3(double v, const char *unit, char *buf, int size)
{
    snprintf(buf, (size_t)size, v >= 99.95 ? "%.0f %s" : v >= 9.995 ? "%.1f %s" : "%.2f %s", v,
             unit);
    return buf;
}

const char *fmt_ms(double ms, char *buf, int size)
{
    if (!isfinite(ms) || ms < 0)
        snprintf(buf, (size_t)size, "?");
    else if (ms == 0)
        snprintf(buf, (size_t)size, "0 ms");
    else if (ms < 1e-3)
        sig3(ms * 1e6, "ns", buf, size);
    else if (ms < 0.9995)
        sig3(ms * 1e3, "us", buf, size);
    else if (ms < 999.5)
        sig3(ms, "ms", buf, size);
    else if (ms < 99.95e3)
        sig3(ms / 1e3, "s", buf, size);
    else if (ms < 5999.5e3)
        sig3(ms / 60e3, "min", buf, size);
    else
        sig3(ms / 3600e3, "h", buf, size);
    return buf;
}

const char *fmt_joules(double j, char *buf, int size)
{
    static const char *const units[] = {"uJ", "mJ", "J", "kJ", "MJ", "GJ"};
    if (!isfinite(j) || j < 0) {
        snprintf(buf, (size_t)size, "?");
        return buf;
    }
    if (j == 0) {
        snprintf(buf, (size_t)size, "0 J");
        return buf;
    }
    int u = 2;
    while (j >= 999.5 && u < 5) {
        j /= 1000;
        u++;
    }
    while (j < 0.9995 && u > 0) {
        j *= 1000;
        u--;
    }
    return sig3(j, units[u], buf, size);
}

const char *fmt_delta(double now, double old, char *buf, int size)
{
    if (old == 0 || !isfinite(now) || !isfinite(old))
        snprintf(buf, (size_t)size, "n/a");
    else
        snprintf(buf, (size_t)size, "%+.1f%%", (now - old) / old * 100.0);
    return buf;
}

const char *fmt_bytes_short(double bytes, char *buf, int size)
{
    static const char *const units[] = {"B", "K", "M", "G", "T", "P"};
    if (!isfinite(bytes) || bytes < 0) {
        snprintf(buf, (size_t)size, "?");
        return buf;
    }
    int u = 0;
    while (bytes >= 1023.5 && u < 5) {
        bytes /= 1024;
        u++;
    }
    if (bytes == 0)
        snprintf(buf, (size_t)size, "0");
    else
        snprintf(buf, (size_t)size, bytes >= 99.95 || u == 0 ? "%.0f%s" : bytes >= 9.995 ? "%.1f%s" : "%.2f%s",
                 bytes, units[u]);
    return buf;
}
