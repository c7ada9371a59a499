/*
 * util.h - small helpers shared by the stages: parsing the units users
 * write (durations, percentages), formatting times for people, suggesting
 * the nearest valid word for a typo, and the monotonic clock.
 */
#ifndef PG_UTIL_H
#define PG_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "str.h"

/*
 * Parses a duration: "10s", "500ms", "250us", "2m", "1.5s", or a bare
 * number of seconds.  Returns 0 and sets *out (seconds), or -1 and leaves
 * *out untouched (so does every pg_parse_* below).
 */
int pg_parse_duration(double *out, const char *text);

/*
 * Parses a fraction written as "5%" or "0.05".  A bare number above 1 is
 * refused (is "5" five percent or five hundred?).  Returns 0 or -1.
 */
int pg_parse_fraction(double *out, const char *text);

/* Parses a whole decimal number, with optional sign; 0 or -1. */
int pg_parse_ll(long long *out, const char *text);

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

/* Appends a time in nanoseconds in human units: "32.8 µs", "1.20 s". */
void pg_format_ns(pg_str *out, double ns);

/* Appends a signed percentage: "+12.3%", "-4.0%", "+0.0%". */
void pg_format_change(pg_str *out, double change);

/* Appends an interval of changes: "+2.8 … +3.4%"; "–" when unknown. */
void pg_format_interval(pg_str *out, double lo, double hi);

/* Appends a duration in seconds for people: "850 ms", "12.4 s". */
void pg_format_seconds(pg_str *out, double seconds);

/* A size for people: "512 B", "3.0 MiB", "12.0 GiB". */
void pg_format_bytes(pg_str *out, double bytes);

/* A count for people, in thousands: "1,310,729"; "–" when not finite. */
void pg_format_count(pg_str *out, double count);

/* Nanoseconds of CLOCK_MONOTONIC. */
int64_t pg_now_ns(void);

/* 128 random bits as 32 hex digits and a NUL in `out`: a token that user
 * code cannot guess (from getrandom; all zeros only if that fails). */
void pg_random_token(char out[33]);

/*
 * Tracing for people debugging a config or a problem (compare -v): when on,
 * pg_trace() writes "perfgate: LINE" to stderr (on a terminal, over the
 * progress line).  Off by default.
 */
void pg_trace_enable(int on);
int pg_tracing(void);
void pg_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* 1 when `name` is a valid benchmark name: letters, digits, _ . - */
int pg_valid_name(const char *name);

#endif
