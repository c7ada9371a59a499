/*
 * opt.h - each command's options, declared once: one table per command
 * (libgit2's cli_opt_spec is the model) from which the getopt table, the
 * option help in --help, the check of every value and the "did you mean"
 * hint are all made.  Adding an option is one entry; adding an output
 * file is one PG_OPT_OUTPUT entry (written-to checks included).
 *
 *     pg_opt opts[] = {
 *         PG_OPT_OUT("json", 0, &a->json, "FILE", "write the result"),
 *         PG_OPT_SET("quiet", 'q', &a->quiet, "no progress on stderr"),
 *         PG_OPT_END
 *     };
 *     code = pg_opt_parse(opts, argc, argv, &usage);
 *
 * Values are checked as they are read, by their kind; a bad one is said
 * in one line ("perfgate compare: --jobs 'x': want a number from 1 to
 * 256") with the usage exit code.
 */
#ifndef PG_OPT_H
#define PG_OPT_H

#include <stddef.h>
#include <stdio.h>

typedef enum pg_opt_kind {
    PG_OPT_END_KIND = 0,
    PG_OPT_FLAG,     /* int *: set to 1; takes no value */
    PG_OPT_TEXT,     /* const char **: the value, not empty */
    PG_OPT_OUTPUT,   /* const char **: a file to write, or "-" */
    PG_OPT_LIST,     /* pg_strvec *: each value, repeatable */
    PG_OPT_WORDS,    /* pg_strvec *: the value and the words after it, up to
                      * the next option (--sources a.c b.c) */
    PG_OPT_CHOICE,   /* const char **: one of `choices` ("a|b|c") */
    PG_OPT_NUMBER,   /* int *: a whole number from `min` to `max` */
    PG_OPT_DURATION, /* double *: "10s", "500ms", "2m"; `min` 1: not 0 */
    PG_OPT_FRACTION, /* double *: "5%" or 0.05, above 0 and below 1 */
    PG_OPT_CALL      /* call(value, arg): 0, or -1 when arg is wrong; with
                      * no meta it takes no value and arg is NULL */
} pg_opt_kind;

typedef struct pg_opt {
    pg_opt_kind kind;
    const char *name;    /* the long name, without "--" */
    char alias;          /* the short letter, or 0 */
    void *value;         /* where the value goes, by kind */
    const char *meta;    /* the value's name in the help ("FILE"); NULL: none */
    const char *help;    /* the help; lines split with '\n' */
    const char *choices; /* PG_OPT_CHOICE: "auto|always|never" */
    long long min, max;  /* PG_OPT_NUMBER's range; PG_OPT_DURATION's min */
    const char *want;    /* what a wrong value should be; NULL: by kind */
    int (*call)(void *value, const char *arg); /* PG_OPT_CALL */
} pg_opt;

#define PG_OPT_SET(name, alias, value, help)                                   \
    {                                                                          \
        PG_OPT_FLAG, name, alias, value, NULL, help, NULL, 0, 0, NULL, NULL    \
    }
#define PG_OPT_STR(name, alias, value, meta, help)                             \
    {                                                                          \
        PG_OPT_TEXT, name, alias, value, meta, help, NULL, 0, 0, NULL, NULL    \
    }
#define PG_OPT_OUT(name, alias, value, meta, help)                             \
    {                                                                          \
        PG_OPT_OUTPUT, name, alias, value, meta, help, NULL, 0, 0, NULL, NULL  \
    }
#define PG_OPT_EACH(name, alias, value, meta, help)                            \
    {                                                                          \
        PG_OPT_LIST, name, alias, value, meta, help, NULL, 0, 0, NULL, NULL    \
    }
#define PG_OPT_ONE_OF(name, value, meta, choices, help)                        \
    {                                                                          \
        PG_OPT_CHOICE, name, 0, value, meta, help, choices, 0, 0, NULL, NULL   \
    }
#define PG_OPT_INT(name, alias, value, meta, min, max, want, help)             \
    {                                                                          \
        PG_OPT_NUMBER, name, alias, value, meta, help, NULL, min, max, want,   \
            NULL                                                               \
    }
#define PG_OPT_TIME(name, value, meta, min, want, help)                        \
    {                                                                          \
        PG_OPT_DURATION, name, 0, value, meta, help, NULL, min, 0, want, NULL  \
    }
#define PG_OPT_PCT(name, value, meta, help)                                    \
    {                                                                          \
        PG_OPT_FRACTION, name, 0, value, meta, help, NULL, 0, 0, NULL, NULL    \
    }
#define PG_OPT_FN(name, alias, value, meta, call, want, help)                  \
    {                                                                          \
        PG_OPT_CALL, name, alias, value, meta, help, NULL, 0, 0, want, call    \
    }
#define PG_OPT_END                                                             \
    {                                                                          \
        PG_OPT_END_KIND, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL     \
    }

/* --color WHEN into `value`, the same for every command that shows. */
#define PG_OPT_COLOR(value)                                                    \
    PG_OPT_ONE_OF("color", value, "WHEN", "auto|always|never",                 \
                  "auto, always or never")

/* The --warning-exit-code N of commands that give a verdict. */
#define PG_OPT_WARNING_EXIT(value)                                             \
    PG_OPT_INT("warning-exit-code", 0, value, "N", 4, 125,                     \
               "want a number from 4 to 125 (0 to 3 are perfgate's own); "     \
               "78 is a common choice",                                        \
               "exit N (4-125) when the gate passes but a\n"                   \
               "case got slower under a total that hides it")

/* What --help says around the options. */
typedef struct pg_opt_usage {
    const char *command;  /* "compare" */
    const char *synopsis; /* the "usage:" lines and the description */
    const char *epilogue; /* after the options (exit status, examples); may
                           * be NULL */
} pg_opt_usage;

/*
 * Parses argv's options by `opts` (ended by PG_OPT_END; -h/--help is
 * added): each value checked by its kind and stored, --help printing the
 * usage on stdout, an unknown option said in one line with the nearest
 * name.  Then every PG_OPT_OUTPUT given is checked to be writable (at most
 * one "-").  Returns -1 when all went well, optind at the first operand;
 * else the exit code (0 after --help, PG_EXIT_USAGE after a message on
 * stderr).
 */
int pg_opt_parse(const pg_opt *opts, int argc, char **argv,
                 const pg_opt_usage *usage);

/* Prints the usage: synopsis, the option table's help, epilogue. */
void pg_opt_print_usage(FILE *f, const pg_opt *opts, const pg_opt_usage *usage);

#endif
