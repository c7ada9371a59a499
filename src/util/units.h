/*
 * units.h - the units people write and read: durations, fractions and whole
 * numbers parsed from flags and configs; times, changes, intervals, sizes and
 * counts formatted for reports.
 */
#ifndef PG_UNITS_H
#define PG_UNITS_H

#include <stddef.h>
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

#endif
