/*
 * words.c - see words.h.
 */
#include "words.h"

#include "str.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), i, j;
    size_t *row, result;

    row = pg_malloc((lb + 1) * sizeof(*row));
    for (j = 0; j <= lb; j++)
        row[j] = j;
    for (i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = tolower((unsigned char)a[i - 1]) !=
                          tolower((unsigned char)b[j - 1]);
            size_t best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    result = row[lb];
    free(row);
    return result;
}

const char *pg_suggest(const char *word, const char *const *words)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1, limit;

    /* Up to a third of the word may be wrong, and at least two letters. */
    limit = strlen(word) / 3;
    if (limit < 2)
        limit = 2;
    for (; *words; words++) {
        size_t d = edit_distance(word, *words);
        if (d < best_d) {
            best_d = d;
            best = *words;
        }
    }
    return best_d <= limit ? best : NULL;
}

const char *pg_suggest_text(char *buf, size_t size, const char *word,
                            const char *const *words)
{
    const char *hint = pg_suggest(word, words);

    if (hint)
        snprintf(buf, size, " (did you mean '%s'?)", hint);
    else if (size)
        buf[0] = '\0';
    return buf;
}

int pg_valid_name(const char *name)
{
    if (!*name)
        return 0;
    for (; *name; name++) {
        if (!isalnum((unsigned char)*name) && !strchr("_.-", *name))
            return 0;
    }
    return 1;
}
