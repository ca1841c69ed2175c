/* fmt.c - the numbers people read (fmt.h). */
#include "util/fmt.h"

#include <math.h>
#include <stdio.h>

static const char *unknown(char *buf, int size)
{
    snprintf(buf, (size_t)size, "?");
    return buf;
}

/* v (0.9995 <= v < 999.5 once rounded) to three significant figures, then unit. */
static const char *sig3(double v, const char *unit, char *buf, int size)
{
    snprintf(buf, (size_t)size, v >= 99.95 ? "%.0f%s" : v >= 9.995 ? "%.1f%s" : "%.2f%s", v,
             unit);
    return buf;
}

/* v past the last unit: its digits while they are few ("11574 d", "5000
 * EiB"), from a million on three significant figures with an exponent
 * ("1.16e+15 d"): "%.0f" of 1e145 has 146 digits, which a 16-byte buffer
 * would cut to a wrong number. */
static const char *past_last(double v, const char *unit, char *buf, int size)
{
    snprintf(buf, (size_t)size, v < 999999.5 ? "%.0f%s" : "%.3g%s", v, unit);
    return buf;
}

/* v scaled by `step` until it is below 999.5 (or the last unit). */
static const char *scaled(double v, double step, const char *const *units, int n_units,
                          char *buf, int size)
{
    int u = 0;
    while (v >= step - 0.5 * step / 1000 && u < n_units - 1) {
        v /= step;
        u++;
    }
    if (v >= 999.5)
        past_last(v, units[u], buf, size);
    else
        sig3(v, units[u], buf, size);
    return buf;
}

const char *fmt_si(double v, char *buf, int size)
{
    static const char *const units[] = {"", " k", " M", " G", " T", " P", " E"};
    if (!isfinite(v))
        return unknown(buf, size);
    double a = fabs(v);
    if (a < 999.5) {
        snprintf(buf, (size_t)size, "%.0f", v);
        return buf;
    }
    scaled(a, 1000, units, 7, buf, size);
    if (v < 0) {
        char t[32];
        snprintf(t, sizeof t, "-%s", buf);
        snprintf(buf, (size_t)size, "%s", t);
    }
    return buf;
}

const char *fmt_num(double v, char *buf, int size)
{
    static const char *const units[] = {"", "k", "M", "G", "T", "P", "E"};
    if (!isfinite(v) || v < 0)
        return unknown(buf, size);
    if (v == 0) {
        snprintf(buf, (size_t)size, "0");
        return buf;
    }
    if (v >= 0.9995)
        return scaled(v, 1000, units, 7, buf, size);
    /* below 1: as many decimals as three significant figures need */
    int decimals = 2 - (int)floor(log10(v));
    if (v * pow(10, decimals) >= 999.5) /* rounds up into one more digit */
        decimals--;
    if (decimals > 12)
        decimals = 12;
    snprintf(buf, (size_t)size, "%.*f", decimals, v);
    return buf;
}

const char *fmt_rate(double per_s, char *buf, int size)
{
    char t[32];
    fmt_num(per_s, t, sizeof t);
    snprintf(buf, (size_t)size, "%s/s", t);
    return buf;
}

const char *fmt_bytes(double bytes, char *buf, int size)
{
    static const char *const units[] = {" B", " KiB", " MiB", " GiB", " TiB", " PiB", " EiB"};
    if (!isfinite(bytes) || bytes < 0)
        return unknown(buf, size);
    if (bytes < 1023.5) {
        snprintf(buf, (size_t)size, "%.0f B", bytes);
        return buf;
    }
    int u = 0;
    while (bytes >= 1023.5 && u < 6) {
        bytes /= 1024;
        u++;
    }
    if (bytes >= 999.5) /* 1000 to 1023 of a unit: four digits, as IEC units go */
        past_last(bytes, units[u], buf, size);
    else
        sig3(bytes, units[u], buf, size);
    return buf;
}

const char *fmt_mib(double mib, char *buf, int size)
{
    return fmt_bytes(mib * 1048576.0, buf, size);
}

const char *fmt_bytes_short(double bytes, char *buf, int size)
{
    static const char *const units[] = {"B", "K", "M", "G", "T", "P"};
    if (!isfinite(bytes) || bytes < 0)
        return unknown(buf, size);
    int u = 0;
    while (bytes >= 1023.5 && u < 5) {
        bytes /= 1024;
        u++;
    }
    if (bytes == 0)
        snprintf(buf, (size_t)size, "0");
    else if (bytes >= 999.5)
        past_last(bytes, units[u], buf, size);
    else
        snprintf(buf, (size_t)size, bytes >= 99.95 || u == 0 ? "%.0f%s" : bytes >= 9.995 ? "%.1f%s" : "%.2f%s",
                 bytes, units[u]);
    return buf;
}

const char *fmt_ms(double ms, char *buf, int size)
{
    if (!isfinite(ms) || ms < 0)
        return unknown(buf, size);
    if (ms == 0)
        snprintf(buf, (size_t)size, "0 ms");
    else if (ms < 0.9995e-3)
        sig3(ms * 1e6, " ns", buf, size);
    else if (ms < 0.9995)
        sig3(ms * 1e3, " \u00b5s", buf, size);
    else if (ms < 999.5)
        sig3(ms, " ms", buf, size);
    else if (ms < 99.95e3)
        sig3(ms / 1e3, " s", buf, size);
    else if (ms < 99.95 * 60e3)
        sig3(ms / 60e3, " min", buf, size);
    else if (ms < 99.95 * 3600e3)
        sig3(ms / 3600e3, " h", buf, size);
    else if (ms / 86400e3 < 999.5)
        sig3(ms / 86400e3, " d", buf, size);
    else
        past_last(ms / 86400e3, " d", buf, size);
    return buf;
}

const char *fmt_joules(double j, char *buf, int size)
{
    static const char *const units[] = {" nJ", " \u00b5J", " mJ", " J", " kJ", " MJ", " GJ",
                                        " TJ"};
    if (!isfinite(j) || j < 0)
        return unknown(buf, size);
    if (j == 0) {
        snprintf(buf, (size_t)size, "0 J");
        return buf;
    }
    int u = 3;
    while (j < 0.9995 && u > 0) {
        j *= 1000;
        u--;
    }
    return scaled(j, 1000, units + u, 8 - u, buf, size);
}

void fmt_col(FILE *f, const char *s, int width)
{
    int cols = 0;
    for (const char *p = s; *p; p++)
        cols += ((unsigned char)*p & 0xC0) != 0x80; /* not a continuation byte */
    fprintf(f, " %*s%s", width > cols ? width - cols : 0, "", s);
}

const char *fmt_delta(double now, double old, char *buf, int size)
{
    if (old == 0 || !isfinite(now) || !isfinite(old))
        snprintf(buf, (size_t)size, "n/a");
    else
        snprintf(buf, (size_t)size, "%+.1f%%", (now - old) / old * 100.0);
    return buf;
}
