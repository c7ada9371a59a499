/*
 * html.h - the report as one page to open in a browser: for every
 * benchmark the change with its interval against the floor, and for every
 * case the distribution of both sides' samples and the rounds over time;
 * the profile where there is one.  Self-contained: styles, charts (SVG)
 * and its one small script are inline, and its Content-Security-Policy
 * forbids fetching anything, so it opens the same offline.
 */
#ifndef PG_HTML_H
#define PG_HTML_H

#include "result.h"
#include "str.h"

/* Appends the page for `r` (judged, its text made safe) to `out`. */
void pg_html_page(pg_str *out, const pg_result *r);

#endif
