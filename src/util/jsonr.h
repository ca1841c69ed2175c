/*
 * jsonr.h - strict JSON parsing on top of cJSON for every JSON the program
 * reads (graphs, Keras/TF.js, datasets, calibration and measurement rows).
 * cJSON alone accepts trailing text after the value, raw control characters
 * inside strings and duplicate object keys (whose meaning would then depend
 * on which reader looks first); these are refused here.
 */
#ifndef DIPPM_JSONR_H
#define DIPPM_JSONR_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

struct json_err {
    size_t off;    /* byte offset of the problem (len when at the end) */
    int line, col; /* 1-based position of off */
    char why[160]; /* e.g. "duplicate key \"name\" in one object" */
    int truncated; /* the text ended inside the value */
};

/* Parses text[0..len) as exactly one JSON value (whitespace around it
 * allowed). Returns the tree (cJSON_Delete it) or NULL with err filled
 * (err may be NULL). */
cJSON *json_parse_strict(const char *text, size_t len, struct json_err *err);

/* The same for a NUL-terminated string (one JSONL line). */
cJSON *json_parse_line(const char *text);

/* What j is, for messages: "a number", "a string", "an array", "an
 * object", "a boolean", "null"; "missing" when NULL, else "invalid". */
const char *json_kind(const cJSON *j);

/* Is j a number with an integral value that a double holds exactly? */
bool json_is_int(const cJSON *j);

#endif
