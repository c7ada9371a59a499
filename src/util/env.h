/*
 * env.h - the environment, read in one place, from one list.
 *
 * Every variable perfgate reads to decide what it does is in env.c's
 * list, with what it is for; docs/cli.md's "Environment" names the same
 * ones, tests/lint.py holds the two together, and banned.h keeps every
 * other file from calling getenv.  What a user names (pass_env:) and what the
 * box hands on unread (its list of the locale's and the terminal's variables)
 * are read with pg_env_named.  Tests replace the environment with pg_env_use.
 */
#ifndef PG_ENV_H
#define PG_ENV_H

/* Where values come from: getenv, unless a test says otherwise. */
typedef const char *(*pg_env_source)(const char *name);

/*
 * The value of `name`, which must be in the list (an unlisted name is
 * perfgate's own mistake: it says so and aborts); NULL when unset.
 */
const char *pg_env(const char *name);

/* pg_env, with an empty value taken as unset. */
const char *pg_env_nonempty(const char *name);

/* 1 on GitHub's runners: GITHUB_ACTIONS is "true". */
int pg_env_github_actions(void);

/* The value of a variable perfgate does not read for itself but hands on
 * (a name the user gave, or the box's list); NULL when unset. */
const char *pg_env_named(const char *name);

/* Reads the environment through `source` from now on (NULL: getenv). */
void pg_env_use(pg_env_source source);

/* The list: each name, then what it is for; NULL after the last. */
extern const char *const pg_env_list[];

#endif
