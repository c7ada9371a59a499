/*
 * csv.c - comma-separated values, read strictly.
 */
#include "csv.h"
#include "error.h"
#include "str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

typedef struct parser {
    const char *p, *end, *name;
    size_t line; /* of the text, from 1, where `p` is */
    pg_str field;
    char **cells;
    size_t ncells, cap;
} parser;

static int fail(parser *ps, size_t line, const char *what)
{
    return pg_error_set(PG_ERR_USAGE, "%s:%zu: %s", ps->name, line, what);
}

static int push_cell(parser *ps)
{
    if (ps->ncells == PG_CSV_MAX_CELLS)
        return fail(ps, ps->line, "more cells than perfgate reads (16M)");
    if (ps->ncells == ps->cap) {
        ps->cap = ps->cap ? ps->cap * 2 : 64;
        ps->cells = pg_realloc(ps->cells, ps->cap * sizeof(*ps->cells));
    }
    ps->cells[ps->ncells++] = pg_str_detach(&ps->field);
    return 0;
}

/* One field at `p`, up to its comma or record's end (not past them). */
static int read_field(parser *ps)
{
    size_t opened = ps->line;

    pg_str_reset(&ps->field);
    if (ps->p < ps->end && *ps->p == '"') {
        for (ps->p++;; ps->p++) {
            if (ps->p == ps->end)
                return fail(ps, opened, "a quoted field is never closed");
            if (*ps->p == '"') {
                if (ps->p + 1 < ps->end && ps->p[1] == '"') {
                    pg_str_putc(&ps->field, '"');
                    ps->p++;
                    continue;
                }
                ps->p++;
                break;
            }
            if (*ps->p == '\n')
                ps->line++;
            pg_str_putc(&ps->field, *ps->p);
        }
        if (ps->p < ps->end && *ps->p != ',' && *ps->p != '\n' &&
            !(*ps->p == '\r' && ps->p + 1 < ps->end && ps->p[1] == '\n'))
            return fail(ps, ps->line,
                        "text after a quoted field's closing quote (a quote "
                        "inside a field is written twice: \"\")");
        return 0;
    }
    for (; ps->p < ps->end && *ps->p != ',' && *ps->p != '\n'; ps->p++) {
        if (*ps->p == '"')
            return fail(ps, ps->line,
                        "a quote inside a field that does not start with one");
        if (*ps->p == '\r' && ps->p + 1 < ps->end && ps->p[1] == '\n')
            break;
        if (*ps->p == '\0')
            return fail(ps, ps->line, "a NUL byte: this is not text");
        pg_str_putc(&ps->field, *ps->p);
    }
    return 0;
}

/* One record; its fields are appended.  Returns how many, or -1. */
static long read_record(parser *ps)
{
    long fields = 0;

    for (;;) {
        if (read_field(ps) || push_cell(ps))
            return -1;
        fields++;
        if (ps->p == ps->end)
            return fields;
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        ps->p += *ps->p == '\r' ? 2 : 1; /* CRLF or LF */
        ps->line++;
        return fields;
    }
}

static void free_cells(char **cells, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        free(cells[i]);
    free(cells);
}

int pg_csv_parse(pg_csv *out, const char *text, size_t len, const char *name)
{
    parser ps = {text, text + len, name, 1, PG_STR_INIT, NULL, 0, 0};
    size_t cols = 0, rows = 0, *lines = NULL, lines_cap = 0;
    int err = 0;

    memset(out, 0, sizeof(*out));
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
        ps.p += 3;
    while (ps.p < ps.end && !err) {
        size_t line = ps.line;
        long fields;
        if (*ps.p == '\n' || (*ps.p == '\r' && ps.p + 1 < ps.end &&
                              ps.p[1] == '\n')) { /* an empty line */
            ps.p += *ps.p == '\r' ? 2 : 1;
            ps.line++;
            continue;
        }
        if (rows == lines_cap) {
            lines_cap = lines_cap ? 2 * lines_cap : 64;
            lines = pg_realloc(lines, lines_cap * sizeof(*lines));
        }
        lines[rows] = line;
        if ((fields = read_record(&ps)) < 0) {
            err = -1;
        } else if (rows == 0) {
            cols = (size_t)fields;
        } else if ((size_t)fields != cols) {
            char what[128];
            snprintf(what, sizeof(what), "%ld field%s where the header has %zu",
                     fields, fields == 1 ? "" : "s", cols);
            err = fail(&ps, line, what);
        }
        rows++;
    }
    pg_str_clear(&ps.field);
    if (!err && rows == 0)
        err = pg_error_set(PG_ERR_USAGE, "%s: empty: no header, no rows", name);
    if (err) {
        free_cells(ps.cells, ps.ncells);
        free(lines);
        return PG_ERR_USAGE;
    }
    out->lines = lines;
    out->cells = ps.cells;
    out->rows = rows;
    out->cols = cols;
    return 0;
}

const char *pg_csv_cell(const pg_csv *t, size_t row, size_t col)
{
    return t->cells[row * t->cols + col];
}

size_t pg_csv_line(const pg_csv *t, size_t row)
{
    return t->lines && row < t->rows ? t->lines[row] : 0;
}

void pg_csv_clear(pg_csv *t)
{
    free_cells(t->cells, t->rows * t->cols);
    free(t->lines);
    memset(t, 0, sizeof(*t));
}
