/*
 * units.c - see units.h.
 */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "banned.h"

static int parse_double(double *out, const char *text, const char **end)
{
    char *e;

    errno = 0;
    *out = strtod(text, &e);
    if (e == text || errno || !isfinite(*out))
        return -1;
    *end = e;
    return 0;
}

int pg_parse_duration(double *out, const char *text)
{
    static const struct {
        const char *suffix;
        double scale;
    } units[] = {{"", 1},      {"s", 1},     {"ms", 1e-3},
                 {"us", 1e-6}, {"µs", 1e-6}, {"ns", 1e-9},
                 {"m", 60},    {"min", 60},  {"h", 3600}};
    const char *end;
    double v;
    size_t i;

    while (isspace((unsigned char)*text))
        text++;
    if (parse_double(&v, text, &end) < 0 || v < 0)
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (!strcmp(end, units[i].suffix)) {
            *out = v * units[i].scale;
            return 0;
        }
    }
    return -1;
}

int pg_parse_fraction(double *out, const char *text)
{
    const char *end;
    double v;

    while (isspace((unsigned char)*text))
        text++;
    if (parse_double(&v, text, &end) < 0)
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    if (*end == '%') {
        end++;
        v /= 100.0;
    } else if (v > 1) {
        return -1;
    }
    while (isspace((unsigned char)*end))
        end++;
    if (*end || v < 0)
        return -1;
    *out = v;
    return 0;
}

int pg_parse_ll(long long *out, const char *text)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(text, &end, 10);
    if (end == text || *end || errno)
        return -1;
    *out = v;
    return 0;
}

void pg_format_ns(pg_str *out, double ns)
{
    static const struct {
        double scale;
        const char *unit;
    } units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
    double v = ns;
    const char *unit = "ns";
    size_t i;

    if (!isfinite(ns)) {
        pg_str_puts(out, "–");
        return;
    }
    for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (fabs(ns) >= units[i].scale * 0.9995 || units[i].scale == 1) {
            v = ns / units[i].scale;
            unit = units[i].unit;
            break;
        }
    }
    /* Three significant figures, as "32.8 µs" and "1.20 s". */
    if (fabs(v) >= 99.95)
        pg_str_printf(out, "%.0f %s", v, unit);
    else if (fabs(v) >= 9.995)
        pg_str_printf(out, "%.1f %s", v, unit);
    else
        pg_str_printf(out, "%.2f %s", v, unit);
}

void pg_format_change(pg_str *out, double change)
{
    if (!isfinite(change)) {
        pg_str_puts(out, "–");
        return;
    }
    pg_str_printf(out, "%+.1f%%", change * 100.0 + 0.0);
}

void pg_format_interval(pg_str *out, double lo, double hi)
{
    /* Unbounded above: a side that may have taken no time at all. */
    if (isfinite(lo) && hi == INFINITY) {
        pg_str_printf(out, "%+.1f … +∞%%", lo * 100.0 + 0.0);
        return;
    }
    if (!isfinite(lo) || !isfinite(hi)) {
        pg_str_puts(out, "–");
        return;
    }
    pg_str_printf(out, "%+.1f … %+.1f%%", lo * 100.0 + 0.0, hi * 100.0 + 0.0);
}

void pg_format_seconds(pg_str *out, double seconds)
{
    if (seconds < 1.0)
        pg_str_printf(out, "%.0f ms", seconds * 1e3);
    else
        pg_str_printf(out, "%.1f s", seconds);
}

void pg_format_bytes(pg_str *out, double bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB",
                                        "TiB", "PiB", "EiB"};
    size_t u = 0;

    if (!(bytes >= 1024)) {
        pg_str_printf(out, "%.0f B", bytes);
        return;
    }
    bytes /= 1024;
    while (bytes >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
        bytes /= 1024;
        u++;
    }
    pg_str_printf(out, "%.1f %s", bytes, units[u]);
}

void pg_format_count(pg_str *out, double count)
{
    char digits[48];
    size_t n, i;

    if (!isfinite(count) || fabs(count) >= 1e30) {
        pg_str_puts(out, "–");
        return;
    }
    snprintf(digits, sizeof(digits), "%.0f", count);
    n = strlen(digits);
    for (i = 0; i < n; i++) {
        pg_str_putc(out, digits[i]);
        if (digits[i] != '-' && (n - i - 1) % 3 == 0 && i + 1 < n)
            pg_str_putc(out, ',');
    }
}
