/*
 * words.h - words people type: the nearest valid word for a typo ("did you
 * mean"), and what a benchmark may be called.
 */
#ifndef PG_WORDS_H
#define PG_WORDS_H

#include <stddef.h>

/*
 * The word of `words` (NULL-terminated) nearest to `word`, when it is close
 * enough to be a likely typo; else NULL.
 */
const char *pg_suggest(const char *word, const char *const *words);

/*
 * The suggestion as a message says it, for its "%s": " (did you mean
 * 'compare'?)" when pg_suggest() finds a word, else "".  Written into
 * `buf` (cut to `size`), which is returned.
 */
const char *pg_suggest_text(char *buf, size_t size, const char *word,
                            const char *const *words);

/* 1 when `name` is a valid benchmark name: letters, digits, _ . - */
int pg_valid_name(const char *name);

#endif
