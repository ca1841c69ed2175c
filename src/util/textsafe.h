/*
 * textsafe.h - names from input files made safe to print. A model, weight
 * file or dataset may hold any bytes in a node, op or value name; printed raw,
 * an escape sequence (ESC ] 0 ; ... BEL, ESC [ 2 J) would drive the user's
 * terminal. Control characters (C0, DEL, C1) and invalid UTF-8 are written as
 * \xNN; valid UTF-8 passes through.
 */
#ifndef DIPPM_TEXTSAFE_H
#define DIPPM_TEXTSAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* true when s holds nothing text_sanitize would change. */
bool text_is_safe(const char *s);

/* Writes the safe form of s into dst (always NUL-terminated, truncated to
 * size). keep_newlines leaves '\n' and '\t' as they are (multi-line messages). */
void text_sanitize(char *dst, size_t size, const char *s, bool keep_newlines);

/* s itself when safe, else its safe form in one of 8 rotating static buffers
 * (512 bytes each): for printf arguments, at most 8 per statement. */
const char *tsafe(const char *s);

/* s as one CSV cell: quoted when it holds a comma, quote or newline; a
 * leading = + - @ tab or CR (a spreadsheet formula) is neutralised with a
 * leading apostrophe; control characters as in text_sanitize. */
void csv_cell(FILE *f, const char *s);

#endif
