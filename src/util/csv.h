/*
 * csv.h - a table of comma-separated values (RFC 4180): what other tools
 * export their history as.  The text may come from anywhere, so every
 * malformed record is an error that names its line, never a guess.
 */
#ifndef PG_CSV_H
#define PG_CSV_H

#include <stddef.h>

typedef struct pg_csv {
    char **cells; /* rows * cols cells, row by row; each a string */
    size_t rows;  /* the header row included */
    size_t cols;
    size_t *lines; /* per row: the line of the text it starts on, from 1 */
} pg_csv;

/* The most cells a table may have: a bound on the memory hostile text can
 * make perfgate take. */
#define PG_CSV_MAX_CELLS (16u * 1024 * 1024)

/*
 * Parses `len` bytes of `text`: records end in LF or CRLF; fields are
 * separated by commas, and one in double quotes may hold commas, line
 * breaks and doubled quotes.  Every record has as many fields as the
 * first; empty lines are skipped, as is a leading byte-order mark.
 * `name` (a path) is used in messages.  0, or PG_ERR_USAGE with the line
 * and what is wrong there, and `out` empty.
 */
int pg_csv_parse(pg_csv *out, const char *text, size_t len, const char *name);

/* The cell at `row`, `col` (row 0: the header). */
const char *pg_csv_cell(const pg_csv *t, size_t row, size_t col);

/* The line of the text that row `row` starts on (a quoted cell may hold
 * line breaks, so rows and lines part); 0 when there is no such row. */
size_t pg_csv_line(const pg_csv *t, size_t row);

void pg_csv_clear(pg_csv *t);

#endif
