/*
 * fmt.h - the numbers people read: every text report and screen formats
 * its figures here, with SI or IEC units and three significant figures
 * ("1.81 s", "420 µs", "17.9 TiB", "1.20k/s", "1.30 kJ"), never as a zero
 * that is not one, and in scientific notation only from a million of the
 * last unit on ("1.16e+15 d"), where digits would not fit. JSON and CSV
 * keep their exact numbers and do not come here.
 *
 * Every function writes into buf (size bytes, 16 are enough) and returns
 * buf; a value that is not finite (or negative where only magnitudes make
 * sense) prints as "?". "µ" is U+00B5 in UTF-8.
 */
#ifndef DIPPM_UTIL_FMT_H
#define DIPPM_UTIL_FMT_H

#include <stdio.h>

/* Counts with SI prefixes, integers below 1000: "512", "1.23 M", "4.09 G". */
const char *fmt_si(double v, char *buf, int size);
/* Any magnitude, three significant figures with a SI prefix from k up and
 * plain decimals below 1: "0.420", "93.0", "930", "1.20k", "2.30M". */
const char *fmt_num(double v, char *buf, int size);
/* A rate: fmt_num and "/s": "0.420/s", "1.20k/s". */
const char *fmt_rate(double per_s, char *buf, int size);
/* Bytes with IEC units: "512 B", "1.50 KiB", "97.5 MiB", "17.9 TiB". */
const char *fmt_bytes(double bytes, char *buf, int size);
/* fmt_bytes of a size in MiB. */
const char *fmt_mib(double mib, char *buf, int size);
/* Bytes, compact binary units for narrow lines: "97.7M", "1.35G", "0". */
const char *fmt_bytes_short(double bytes, char *buf, int size);
/* A duration in milliseconds: "350 ns", "420 µs", "3.21 ms", "1.81 s",
 * "47.7 min", "3.20 h", "41.7 d". */
const char *fmt_ms(double ms, char *buf, int size);
/* Joules: "592 mJ", "1.30 kJ", "8.09 MJ". */
const char *fmt_joules(double j, char *buf, int size);
/* Prints a space and s right-aligned in width columns (a UTF-8 "µ" is one
 * column, so printf's byte-counted %*s would misalign it). */
void fmt_col(FILE *f, const char *s, int width);
/* Relative change new vs old: "+12.3%", "-4.0%", "+0.0%"; "n/a" if old is 0. */
const char *fmt_delta(double now, double old, char *buf, int size);

#endif
