/*
 * strmap.h - open-addressing hash map from borrowed strings to ints.
 * Keys are not copied: they must outlive the map (arena strings).
 */
#ifndef DIPPM_STRMAP_H
#define DIPPM_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

struct strmap;

struct strmap *strmap_new(void);
/* NULL is a no-op. Keys are borrowed and not freed. */
void strmap_free(struct strmap *m);
/* Inserts or replaces key -> val. */
void strmap_put(struct strmap *m, const char *key, int val);
/* true and *val if present. */
bool strmap_get(const struct strmap *m, const char *key, int *val);
/* Inserts key -> val if key is absent (true); else false and *old (if not
 * NULL) holds its value. One hash for the check and the insert. */
bool strmap_add(struct strmap *m, const char *key, int val, int *old);
/* The hash strmap uses, for strmap_get_h / strmap_put_h: a lookup followed
 * by an insert of an equal key (e.g. its arena copy) hashes once. */
unsigned strmap_hash(const char *key);
bool strmap_get_h(const struct strmap *m, const char *key, unsigned h, int *val);
void strmap_put_h(struct strmap *m, const char *key, unsigned h, int val);
size_t strmap_count(const struct strmap *m);
/* Grows the table so n keys fit without rehashing. */
void strmap_reserve(struct strmap *m, size_t n);

#endif
