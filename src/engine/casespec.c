/*
 * casespec.c - input cases as key=value parameters: parsed, named and freed.
 * Apart from config.c so that the measuring executable, which links no YAML
 * parser, can read them too.
 */
#include "casespec.h"
#include "str.h"
#include "units.h"
#include "words.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

void pg_casespec_name(pg_casespec *spec)
{
    pg_str s = PG_STR_INIT;
    size_t i;

    for (i = 0; i < spec->nparams; i++)
        pg_str_printf(&s, "%s%s=%lld", i ? "," : "", spec->keys[i],
                      spec->values[i]);
    free(spec->name);
    spec->name = pg_str_detach(&s);
}

void pg_casespec_add(pg_casespec *spec, const char *key, long long value)
{
    spec->keys = pg_realloc(spec->keys, (spec->nparams + 1) * sizeof(char *));
    spec->values =
        pg_realloc(spec->values, (spec->nparams + 1) * sizeof(long long));
    spec->keys[spec->nparams] = pg_strdup(key);
    spec->values[spec->nparams] = value;
    spec->nparams++;
}

int pg_casespec_has(const pg_casespec *spec, const char *key)
{
    size_t i;

    for (i = 0; i < spec->nparams; i++)
        if (!strcmp(spec->keys[i], key))
            return 1;
    return 0;
}

int pg_casespec_parse(pg_casespec *out, const char *text)
{
    char *copy = pg_strdup(text), *save = NULL, *tok;
    int err = 0;

    memset(out, 0, sizeof(*out));
    for (tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '='), *k, *v, *e;
        long long value;

        if (!eq) {
            err = -1;
            break;
        }
        *eq = '\0';
        for (k = tok; isspace((unsigned char)*k); k++)
            ;
        for (e = eq; e > k && isspace((unsigned char)e[-1]); e--)
            *(e - 1) = '\0';
        for (v = eq + 1; isspace((unsigned char)*v); v++)
            ;
        for (e = v + strlen(v); e > v && isspace((unsigned char)e[-1]); e--)
            *(e - 1) = '\0';
        if (!pg_valid_name(k) || pg_parse_ll(&value, v) < 0 ||
            pg_casespec_has(out, k)) {
            err = -1;
            break;
        }
        pg_casespec_add(out, k, value);
    }
    free(copy);
    if (err || out->nparams == 0) {
        pg_casespec_clear(out);
        return -1;
    }
    pg_casespec_name(out);
    return 0;
}

int pg_casespecs_parse(pg_casespec **out, size_t *count, const char *text)
{
    char *copy = pg_strdup(text), *save = NULL, *tok;
    pg_casespec *specs = NULL;
    size_t n = 0;
    int err = 0;

    for (tok = strtok_r(copy, ";", &save); tok;
         tok = strtok_r(NULL, ";", &save)) {
        while (isspace((unsigned char)*tok))
            tok++;
        if (!*tok)
            continue;
        specs = pg_realloc(specs, (n + 1) * sizeof(*specs));
        if (pg_casespec_parse(&specs[n], tok) < 0) {
            err = -1;
            break;
        }
        n++;
    }
    free(copy);
    if (err || n == 0) {
        size_t i;
        for (i = 0; i < n; i++)
            pg_casespec_clear(&specs[i]);
        free(specs);
        return -1;
    }
    *out = specs;
    *count = n;
    return 0;
}

void pg_casespec_clear(pg_casespec *spec)
{
    size_t i;

    for (i = 0; i < spec->nparams; i++)
        free(spec->keys[i]);
    free(spec->keys);
    free(spec->values);
    free(spec->name);
    memset(spec, 0, sizeof(*spec));
}
