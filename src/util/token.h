/*
 * token.h - tokens nobody can guess: the one that starts every line
 * perfgate-measure sends, the one that resumes GitHub's workflow commands
 * after the report, and unique names for temporary files.
 */
#ifndef PG_TOKEN_H
#define PG_TOKEN_H

/* 128 random bits as 32 hex digits and a NUL in `out`: a token that user
 * code cannot guess (from getrandom; all zeros only if that fails). */
void pg_token(char out[33]);

#endif
