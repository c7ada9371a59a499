/*
 * escape.c - text made safe for HTML (escape.h).
 */
#include "escape.h"

#include "banned.h"

void pg_escape_html(pg_str *out, const char *text, size_t len, int quotes)
{
    size_t i;

    for (i = 0; i < len; i++)
        switch (text[i]) {
        case '&':
            pg_str_puts(out, "&amp;");
            break;
        case '<':
            pg_str_puts(out, "&lt;");
            break;
        case '>':
            pg_str_puts(out, "&gt;");
            break;
        case '"':
            pg_str_puts(out, quotes ? "&quot;" : "\"");
            break;
        case '\'':
            pg_str_puts(out, quotes ? "&#39;" : "'");
            break;
        default:
            pg_str_putc(out, text[i]);
        }
}
