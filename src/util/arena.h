/*
 * arena.h - bump allocator. One arena per graph holds all of its metadata
 * (nodes, names, attributes, dims); everything dies with arena_free.
 */
#ifndef DIPPM_ARENA_H
#define DIPPM_ARENA_H

#include <stddef.h>

struct arena;

/* New empty arena; aborts on out-of-memory (internal sizes only). */
struct arena *arena_new(void);
/* Frees the arena and every allocation in it. NULL is a no-op. */
void arena_free(struct arena *a);
/* Zeroed, 16-byte aligned memory valid until arena_free. Returns NULL only if
 * n is absurd (> 1 GiB), so file-derived sizes must still be checked first. */
void *arena_alloc(struct arena *a, size_t n);
/* Copies of s (NUL-terminated) and of n bytes of s plus a NUL. */
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
/* printf into the arena. */
char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Bytes handed out so far (for benchmarks and limits). */
size_t arena_used(const struct arena *a);

#endif
