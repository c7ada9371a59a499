/*
 * opt.c - each command's options from one table (opt.h).
 */
#include "opt.h"
#include "error.h"
#include "str.h"
#include "strvec.h"
#include "units.h"
#include "words.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "banned.h"

/* The help's column: where each option's text starts. */
#define HELP_COLUMN 27

/* getopt's value for entry i: past every letter. */
#define OPT_INDEX_BASE 256

/*
 * Says in one line what getopt_long() just refused (`c`, '?' or ':'): an
 * option unknown to `command`, with the nearest of `opts` when one is
 * close, or one that lacks its value; and where the help is.  Returns the
 * usage exit code.
 */
static int bad_option(const char *command, int c, char *const *argv,
                      const struct option *opts)
{
    /* A long option is its word (without "=value"); a short one its
     * letter, wherever it stood in a group such as -qZ (getopt has not
     * always moved past that group: optopt names it).  An unknown long
     * option has no optopt; a missing value ends its argument. */
    const char *arg = argv[optind - 1];
    char letter[3] = {'-', (char)optopt, '\0'};
    int is_long = c == ':' ? !strncmp(arg, "--", 2) : !optopt;
    const char *option = is_long ? arg : letter;
    const char *words[128];
    char name[64];
    const char *hint;
    size_t n = 0, len = strcspn(option, "=");
    const struct option *o;

    /* One line that says what to type, as git does, not the whole help. */
    if (len >= sizeof(name))
        len = sizeof(name) - 1;
    memcpy(name, option, len);
    name[len] = '\0';
    if (c == ':') {
        fprintf(stderr,
                "perfgate %s: option '%s' needs a value; see "
                "'perfgate %s --help'\n",
                command, name, command);
        return PG_EXIT_USAGE;
    }
    for (o = opts; o && o->name && n < 127; o++) {
        if (!strncmp(name, "--", 2) && !strcmp(name + 2, o->name) &&
            o->has_arg == required_argument) {
            fprintf(stderr,
                    "perfgate %s: option '%s' needs a value; see "
                    "'perfgate %s --help'\n",
                    command, name, command);
            return PG_EXIT_USAGE;
        }
        words[n++] = o->name;
    }
    words[n] = NULL;
    /* A short option's letter is too short to suggest from. */
    hint = !strncmp(name, "--", 2) ? pg_suggest(name + 2, words) : NULL;
    if (hint)
        fprintf(stderr,
                "perfgate %s: unknown option '%s' (did you mean '--%s'?); "
                "see 'perfgate %s --help'\n",
                command, name, hint, command);
    else
        fprintf(stderr,
                "perfgate %s: unknown option '%s'; see 'perfgate %s --help'\n",
                command, name, command);
    return PG_EXIT_USAGE;
}

/* Why `path` cannot be written, or NULL when it can: the file (made or
 * replaced) or, when it does not exist yet, its directory. */
static const char *unwritable(const char *path, pg_str *why)
{
    struct stat st;
    char *dir, *slash;
    const char *bad = NULL;

    if (!*path)
        return "an empty name";
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return "it is a directory";
        if (access(path, W_OK) < 0) {
            pg_str_printf(why, "%s", strerror(errno));
            return pg_str_cstr(why);
        }
        return NULL;
    }
    dir = pg_strdup(path);
    slash = strrchr(dir, '/');
    if (!slash)
        memcpy(dir, ".", 2);
    else if (slash == dir)
        slash[1] = '\0';
    else
        *slash = '\0';
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
        pg_str_printf(why, "the directory '%s' does not exist", dir);
        bad = pg_str_cstr(why);
    } else if (access(dir, W_OK | X_OK) < 0) {
        pg_str_printf(why, "the directory '%s': %s", dir, strerror(errno));
        bad = pg_str_cstr(why);
    }
    free(dir);
    return bad;
}

/*
 * Checks, before any work, that each of `paths` (n of them, NULL ones
 * skipped; `names` the options that gave them) can be written: at most one
 * is "-", and every other names a file that can be made or replaced.
 * -1 when all can, else says why for `command` and returns the usage exit
 * code.
 */
static int writable(const char *command, const char *const *names,
                    const char *const *paths, size_t n)
{
    const char *stdout_by = NULL;
    size_t i;

    for (i = 0; i < n; i++) {
        pg_str why = PG_STR_INIT;
        const char *bad;
        if (!paths[i])
            continue;
        if (!strcmp(paths[i], "-")) {
            if (stdout_by) {
                fprintf(stderr,
                        "perfgate %s: %s - and %s -: only one output can "
                        "go to standard output\n",
                        command, stdout_by, names[i]);
                return PG_EXIT_USAGE;
            }
            stdout_by = names[i];
            continue;
        }
        if ((bad = unwritable(paths[i], &why))) {
            fprintf(stderr,
                    "perfgate %s: %s '%s' cannot be written: %s (checked "
                    "before any work)\n",
                    command, names[i], paths[i], bad);
            pg_str_clear(&why);
            return PG_EXIT_USAGE;
        }
        pg_str_clear(&why);
    }
    return -1;
}

static const pg_opt help_opt = PG_OPT_SET("help", 'h', NULL, "show this help");

static size_t count(const pg_opt *opts)
{
    size_t n = 0;

    while (opts[n].name)
        n++;
    return n;
}

/* What a wrong value of `o` should be, when its entry does not say. */
static const char *want_of(const pg_opt *o, char *buf, size_t size)
{
    if (o->want)
        return o->want;
    switch (o->kind) {
    case PG_OPT_CHOICE: {
        /* "a|b|c" -> "want a, b or c" */
        const char *last = strrchr(o->choices, '|');
        size_t i, len = 0;
        len += (size_t)snprintf(buf, size, "want ");
        for (i = 0; o->choices[i] && len + 4 < size; i++) {
            if (o->choices + i == last)
                len += (size_t)snprintf(buf + len, size - len, " or ");
            else if (o->choices[i] == '|')
                len += (size_t)snprintf(buf + len, size - len, ", ");
            else
                buf[len++] = o->choices[i], buf[len] = '\0';
        }
        return buf;
    }
    case PG_OPT_NUMBER:
        snprintf(buf, size, "want a number from %lld to %lld", o->min, o->max);
        return buf;
    case PG_OPT_DURATION:
        return "want a duration such as 10s or 500ms";
    case PG_OPT_FRACTION:
        return "want a percentage above 0% and below 100%, such as 5%, or a "
               "fraction such as 0.05";
    case PG_OPT_OUTPUT:
        return "want a file name, or - for standard output";
    default:
        return "want a value";
    }
}

/* 1 when `arg` is one of "a|b|c". */
static int one_of(const char *choices, const char *arg)
{
    size_t len = strlen(arg);
    const char *p = choices;

    while (len) {
        if (!strncmp(p, arg, len) && (p[len] == '|' || !p[len]))
            return 1;
        if (!(p = strchr(p, '|')))
            return 0;
        p++;
    }
    return 0;
}

/* Stores `arg` by `o`'s kind: 0, or -1 when it is wrong for it. */
static int take(const pg_opt *o, const char *arg, int argc, char **argv)
{
    long long n;
    double d;

    switch (o->kind) {
    case PG_OPT_FLAG:
        *(int *)o->value = 1;
        return 0;
    case PG_OPT_TEXT:
    case PG_OPT_OUTPUT:
        if (!*arg)
            return -1;
        *(const char **)o->value = arg;
        return 0;
    case PG_OPT_LIST:
        pg_strvec_push(o->value, arg);
        return 0;
    case PG_OPT_WORDS:
        pg_strvec_push(o->value, arg);
        while (optind < argc && argv[optind][0] != '-')
            pg_strvec_push(o->value, argv[optind++]);
        return 0;
    case PG_OPT_CHOICE:
        if (!one_of(o->choices, arg))
            return -1;
        *(const char **)o->value = arg;
        return 0;
    case PG_OPT_NUMBER:
        if (pg_parse_ll(&n, arg) < 0 || n < o->min || n > o->max)
            return -1;
        *(int *)o->value = (int)n;
        return 0;
    case PG_OPT_DURATION:
        if (pg_parse_duration(&d, arg) < 0 || d < 0 || (o->min > 0 && d == 0))
            return -1;
        *(double *)o->value = d;
        return 0;
    case PG_OPT_FRACTION:
        if (pg_parse_fraction(&d, arg) < 0 || d <= 0 || d >= 1)
            return -1;
        *(double *)o->value = d;
        return 0;
    case PG_OPT_CALL:
        return o->call(o->value, arg);
    default:
        return -1;
    }
}

/* The getopt tables for `opts` and --help. */
static struct option *getopt_table(const pg_opt *opts, size_t n, char *shorts)
{
    struct option *t = pg_calloc(n + 2, sizeof(*t));
    size_t i, s = 0;

    shorts[s++] = ':';
    for (i = 0; i <= n; i++) {
        const pg_opt *o = i < n ? &opts[i] : &help_opt;
        t[i].name = o->name;
        t[i].has_arg = o->meta ? required_argument : no_argument;
        t[i].val = OPT_INDEX_BASE + (int)i;
        if (o->alias) {
            shorts[s++] = o->alias;
            if (o->meta)
                shorts[s++] = ':';
        }
    }
    shorts[s] = '\0';
    return t;
}

/* The entry a short letter names; n (--help) for 'h'. */
static size_t by_letter(const pg_opt *opts, size_t n, int c)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (opts[i].alias == c)
            return i;
    return n;
}

/* Every PG_OPT_OUTPUT given can be written; -1, else the exit code. */
static int check_outputs(const pg_opt *opts, size_t n, const char *command)
{
    const char **names = pg_calloc(n + 1, sizeof(*names));
    const char **paths = pg_calloc(n + 1, sizeof(*paths));
    char **flags = pg_calloc(n + 1, sizeof(*flags));
    size_t i, k = 0;
    int code;

    for (i = 0; i < n; i++)
        if (opts[i].kind == PG_OPT_OUTPUT) {
            flags[k] = pg_strdupf("--%s", opts[i].name);
            names[k] = flags[k];
            paths[k++] = *(const char **)opts[i].value;
        }
    code = writable(command, names, paths, k);
    for (i = 0; i < k; i++)
        free(flags[i]);
    free(flags);
    free(names);
    free(paths);
    return code;
}

int pg_opt_parse(const pg_opt *opts, int argc, char **argv,
                 const pg_opt_usage *usage)
{
    size_t n = count(opts), i;
    char *shorts = pg_calloc(2 * n + 4, 1);
    struct option *table = getopt_table(opts, n, shorts);
    int c, code = -1;

    optind = 1;
    opterr = 0;
    while (code < 0 &&
           (c = getopt_long(argc, argv, shorts, table, NULL)) != -1) {
        char buf[160];
        if (c == '?' || c == ':') {
            code = bad_option(usage->command, c, argv, table);
            break;
        }
        i = c >= OPT_INDEX_BASE ? (size_t)(c - OPT_INDEX_BASE)
                                : by_letter(opts, n, c);
        if (i == n) {
            pg_opt_print_usage(stdout, opts, usage);
            code = PG_EXIT_PASS;
        } else if (take(&opts[i], optarg, argc, argv) < 0) {
            fprintf(stderr, "perfgate %s: --%s '%s': %s\n", usage->command,
                    opts[i].name, optarg ? optarg : "",
                    want_of(&opts[i], buf, sizeof(buf)));
            code = PG_EXIT_USAGE;
        }
    }
    free(table);
    free(shorts);
    return code < 0 ? check_outputs(opts, n, usage->command) : code;
}

/* One option's help: "  -c, --config FILE", its text at HELP_COLUMN. */
static void print_option(FILE *f, const pg_opt *o)
{
    const char *h = o->help;
    int col;

    if (o->alias)
        col = fprintf(f, "  -%c, --%s", o->alias, o->name);
    else
        col = fprintf(f, "      --%s", o->name);
    if (o->meta)
        col += fprintf(f, " %s", o->meta);
    /* A long name has its text on the next line. */
    if (col > HELP_COLUMN - 2) {
        fputc('\n', f);
        col = 0;
    }
    for (;;) {
        size_t len = strcspn(h, "\n");
        fprintf(f, "%*s%.*s\n", HELP_COLUMN - col, "", (int)len, h);
        if (!h[len])
            break;
        h += len + 1;
        col = 0;
    }
}

void pg_opt_print_usage(FILE *f, const pg_opt *opts, const pg_opt_usage *usage)
{
    size_t i;

    fputs(usage->synopsis, f);
    fputs("\noptions:\n", f);
    for (i = 0; opts[i].name; i++)
        print_option(f, &opts[i]);
    print_option(f, &help_opt);
    if (usage->epilogue) {
        fputc('\n', f);
        fputs(usage->epilogue, f);
    }
}
