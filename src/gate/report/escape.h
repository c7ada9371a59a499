/*
 * escape.h - text made safe for HTML: the one escaper of every report
 * (the HTML pages, and the comment's <pre> blocks and table cells).
 */
#ifndef PG_ESCAPE_H
#define PG_ESCAPE_H

#include <stddef.h>

#include "str.h"

/*
 * Appends `len` bytes of `text` (valid UTF-8) to `out` with & < > as
 * entities, and with `quotes` " and ' too (an attribute's value, or text
 * that may become one).
 */
void pg_escape_html(pg_str *out, const char *text, size_t len, int quotes);

#endif
