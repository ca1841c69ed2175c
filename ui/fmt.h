/*
 * fmt.h - number formatting for the explorer: SI counts ("4.09 G"), bytes
 * ("97.5 MiB"), times ("3.21 ms"), percentage deltas. Curses-free. Every
 * function writes into buf (size bytes) and returns buf.
 */
#ifndef DIPPM_UI_FMT_H
#define DIPPM_UI_FMT_H

#include <stdint.h>

/* 1234567 -> "1.23 M"; values below 1000 print as integers. */
const char *fmt_si(double v, char *buf, int size);
/* Bytes with binary units: "512 B", "1.5 KiB", "97.5 MiB", "1.20 GiB". */
const char *fmt_bytes(double bytes, char *buf, int size);
/* Bytes, compact binary units for narrow lines: "97.7M", "1.35G", "0". */
const char *fmt_bytes_short(double bytes, char *buf, int size);
/* Milliseconds, three significant digits with a sensible unit: "350 ns",
 * "850 us", "3.21 ms", "1.52 s", "47.7 min", "2.10 h". */
const char *fmt_ms(double ms, char *buf, int size);
/* Joules, three significant digits: "592 mJ", "1.37 kJ". */
const char *fmt_joules(double j, char *buf, int size);
/* Relative change new vs old: "+12.3%", "-4.0%", "+0.0%"; "n/a" if old is 0. */
const char *fmt_delta(double now, double old, char *buf, int size);

#endif
