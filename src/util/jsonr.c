/* jsonr.c - strict JSON parsing: one value, no raw control characters in
 * strings, no duplicate keys; the kinds of values named in messages. */
#include "util/jsonr.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strmap.h"
#include "util/xalloc.h"

/* cJSON answers NULL both for bad text and for a failed allocation, so a
 * file too big for the memory left was "invalid JSON" (exit 4). Its nodes
 * come from xmalloc instead: out of memory ends dippm with the message and
 * exit status of every other allocation (7). Set before main, once, for
 * every cJSON user of the program. */
__attribute__((constructor)) static void json_hooks(void)
{
    cJSON_Hooks h = {.malloc_fn = xmalloc, .free_fn = free};
    cJSON_InitHooks(&h);
}

static void locate(const char *text, size_t off, struct json_err *err)
{
    err->off = off;
    err->line = 1;
    err->col = 1;
    for (size_t i = 0; i < off; i++) {
        if (text[i] == '\n') {
            err->line++;
            err->col = 1;
        } else {
            err->col++;
        }
    }
}

/* Offset of the first control character (< 0x20) inside a string, or len. */
static size_t find_raw_control(const char *text, size_t len)
{
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (!in_str) {
            in_str = ch == '"';
        } else if (ch == '\\') {
            i++; /* the escaped character, whatever it is, is cJSON's to judge */
        } else if (ch == '"') {
            in_str = false;
        } else if (ch < 0x20) {
            return i;
        }
    }
    return len;
}

/* First duplicate key in any object of the tree, or NULL. Small objects
 * are compared pairwise, large ones (symbol tables) through a hash map. */
static const cJSON *find_dup_key(const cJSON *j)
{
    for (; j; j = j->next) {
        if (cJSON_IsObject(j)) {
            int n = 0;
            for (const cJSON *a = j->child; a; a = a->next)
                n++;
            if (n <= 16) {
                for (const cJSON *a = j->child; a; a = a->next)
                    for (const cJSON *b = a->next; b; b = b->next)
                        if (a->string && b->string && !strcmp(a->string, b->string))
                            return b;
            } else {
                struct strmap *m = strmap_new();
                strmap_reserve(m, (size_t)n);
                const cJSON *dup = NULL;
                int v;
                for (const cJSON *a = j->child; a && !dup; a = a->next) {
                    if (!a->string)
                        continue;
                    if (strmap_get(m, a->string, &v))
                        dup = a;
                    else
                        strmap_put(m, a->string, 0);
                }
                strmap_free(m);
                if (dup)
                    return dup;
            }
        }
        if (j->child && (cJSON_IsObject(j) || cJSON_IsArray(j))) {
            const cJSON *dup = find_dup_key(j->child);
            if (dup)
                return dup;
        }
    }
    return NULL;
}

cJSON *json_parse_strict(const char *text, size_t len, struct json_err *err)
{
    struct json_err local;
    if (!err)
        err = &local;
    memset(err, 0, sizeof *err);
    size_t bad = find_raw_control(text, len);
    if (bad < len) {
        locate(text, bad, err);
        snprintf(err->why, sizeof err->why,
                 "raw control character 0x%02x inside a string (write it as an escape)",
                 (unsigned char)text[bad]);
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        size_t off = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
        locate(text, off, err);
        snprintf(err->why, sizeof err->why, "invalid JSON");
        err->truncated = off >= len;
        return NULL;
    }
    size_t off = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
    while (off < len && strchr(" \t\r\n", text[off]) && text[off])
        off++;
    if (off < len) {
        cJSON_Delete(root);
        locate(text, off, err);
        snprintf(err->why, sizeof err->why, "unexpected text after the JSON value");
        return NULL;
    }
    const cJSON *dup = find_dup_key(root);
    if (dup) {
        locate(text, len, err);
        err->line = err->col = 0; /* cJSON keeps no positions */
        snprintf(err->why, sizeof err->why, "duplicate key \"%.100s\" in one object",
                 dup->string);
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

cJSON *json_parse_line(const char *text)
{
    return json_parse_strict(text, strlen(text), NULL);
}

const char *json_kind(const cJSON *j)
{
    if (!j) return "missing";
    if (cJSON_IsNumber(j)) return "a number";
    if (cJSON_IsString(j)) return "a string";
    if (cJSON_IsArray(j)) return "an array";
    if (cJSON_IsObject(j)) return "an object";
    if (cJSON_IsBool(j)) return "a boolean";
    if (cJSON_IsNull(j)) return "null";
    return "invalid";
}

bool json_is_int(const cJSON *j)
{
    if (!cJSON_IsNumber(j))
        return false;
    double v = j->valuedouble;
    return isfinite(v) && v == floor(v) && fabs(v) < 9.007199254740992e15;
}
