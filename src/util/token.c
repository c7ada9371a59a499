/*
 * token.c - see token.h.
 */
#include "token.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "banned.h"

void pg_token(char out[33])
{
    unsigned char raw[16];
    size_t i;

    if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
        memset(raw, 0, sizeof(raw));
    for (i = 0; i < sizeof(raw); i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
}
