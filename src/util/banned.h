/*
 * banned.h - C library functions perfgate does not use, made compile
 * errors (after git's banned.h).  Every source file in src/ includes it
 * last, after the system headers whose declarations it would otherwise
 * break; tests/lint.py checks that.
 *
 * Instead of:
 *   strcpy, strcat, strncpy, strncat  pg_str, pg_strdup, snprintf
 *   sprintf, vsprintf                 pg_str_printf, pg_strdupf, snprintf
 *   gets                              fgets
 *   strtok                            strtok_r
 *   atoi, atol, atoll, atof           strtol and friends (they say when the
 *                                     text is not a number: pg_parse_ll)
 *   gmtime, localtime, ctime, asctime their _r forms
 *   getenv                            pg_env (env.h: one list of what
 *                                     perfgate reads; env.c alone asks)
 */
#ifndef PG_BANNED_H
#define PG_BANNED_H

#define PG_BANNED(func) sorry_##func##_is_banned_see_banned_h

#undef strcpy
#define strcpy(x, y) PG_BANNED(strcpy)
#undef strcat
#define strcat(x, y) PG_BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) PG_BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) PG_BANNED(strncat)
#undef sprintf
#define sprintf(...) PG_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) PG_BANNED(vsprintf)
#undef gets
#define gets(x) PG_BANNED(gets)
#undef strtok
#define strtok(x, y) PG_BANNED(strtok)
#undef atoi
#define atoi(x) PG_BANNED(atoi)
#undef atol
#define atol(x) PG_BANNED(atol)
#undef atoll
#define atoll(x) PG_BANNED(atoll)
#undef atof
#define atof(x) PG_BANNED(atof)
#undef gmtime
#define gmtime(t) PG_BANNED(gmtime)
#undef localtime
#define localtime(t) PG_BANNED(localtime)
#undef ctime
#define ctime(t) PG_BANNED(ctime)
#undef asctime
#define asctime(t) PG_BANNED(asctime)
#undef getenv
#define getenv(name) PG_BANNED(getenv)

#endif
