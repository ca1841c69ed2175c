/*
 * jsonw.h - a small streaming JSON writer into a growable buffer, used for
 * every JSON the program writes (graphs, reports, CLI output), so output is
 * deterministic and doubles round-trip exactly (%.17g only when needed).
 *
 * Usage: jsonw_init(&w, pretty); jsonw_obj_begin(&w); jsonw_key(&w, "a");
 * jsonw_int(&w, 1); jsonw_obj_end(&w); ... w.buf holds the text; jsonw_fini.
 */
#ifndef DIPPM_JSONW_H
#define DIPPM_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSONW_MAX_DEPTH 64

struct jsonw {
    char *buf;
    size_t len, cap;
    bool pretty;
    int depth;
    bool first[JSONW_MAX_DEPTH]; /* no element written yet at this depth */
    bool after_key;
    bool inline_level[JSONW_MAX_DEPTH]; /* arrays written on one line */
};

void jsonw_init(struct jsonw *w, bool pretty);
void jsonw_fini(struct jsonw *w);
/* Takes ownership of the buffer (malloc'd, NUL-terminated); w is reset. */
char *jsonw_take(struct jsonw *w, size_t *len);

void jsonw_obj_begin(struct jsonw *w);
void jsonw_obj_end(struct jsonw *w);
/* Arrays: inline = true keeps the whole array on one line when pretty. */
void jsonw_arr_begin(struct jsonw *w, bool inline_arr);
void jsonw_arr_end(struct jsonw *w);
void jsonw_key(struct jsonw *w, const char *k);
void jsonw_str(struct jsonw *w, const char *s);
void jsonw_int(struct jsonw *w, int64_t v);
/* Shortest text that reads back as the same double; NaN/Inf become null.
 * force_point writes "2.0" rather than "2" (keeps floats floats). */
void jsonw_num(struct jsonw *w, double v, bool force_point);
/* Fixed decimals (for human-facing figures such as "12.34"). */
void jsonw_fixed(struct jsonw *w, double v, int decimals);
/* jsonw_key(k) then the value: a member of the open object in one call. */
void jsonw_key_fixed(struct jsonw *w, const char *k, double v, int decimals);
void jsonw_key_str(struct jsonw *w, const char *k, const char *s);
void jsonw_key_int(struct jsonw *w, const char *k, int64_t v);
void jsonw_key_num(struct jsonw *w, const char *k, double v, bool force_point);
void jsonw_key_bool(struct jsonw *w, const char *k, bool v);
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);
/* Writes the raw text as a value (must be valid JSON). */
void jsonw_raw(struct jsonw *w, const char *json);

#endif
