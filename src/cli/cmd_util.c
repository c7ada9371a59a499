/*
 * cmd_util.c - what the subcommands share: error printing, color, files.
 */
#define _GNU_SOURCE
#include "cmd.h"
#include "box.h"
#include "error.h"
#include "fs.h"
#include "html.h"
#include "report.h"
#include "stats.h"
#include "str.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "banned.h"

int pg_cmd_fail(int err)
{
    const char *msg = pg_error_last();

    if (err == PG_ERR_INTERRUPTED) {
        fputs("\nperfgate: interrupted; temporary files removed\n", stderr);
    } else {
        /* Messages quote configs and compiler output: any bytes. */
        char *clean = pg_text_clean(msg ? msg : "unknown error");
        fprintf(stderr, "perfgate: %s\n", clean);
        free(clean);
    }
    return pg_error_exit_code(err);
}

int pg_cmd_use_color(int fd, const char *when)
{
    if (when && !strcmp(when, "always"))
        return 1;
    if (when && !strcmp(when, "never"))
        return 0;
    if (getenv("NO_COLOR") && *getenv("NO_COLOR"))
        return 0;
    return isatty(fd) && getenv("TERM") && strcmp(getenv("TERM"), "dumb");
}

int pg_cmd_write(const char *path, const char *data, size_t len)
{
    if (!strcmp(path, "-")) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) == EOF)
            return pg_error_set(PG_ERR_GENERIC,
                                "cannot write to standard output: %s",
                                strerror(errno));
        return 0;
    }
    if (pg_write_file(path, data, len, 0) < 0)
        return pg_error_set(PG_ERR_GENERIC, "cannot write %s: %s", path,
                            strerror(errno));
    return 0;
}

int pg_cmd_bad_option(const char *command, int c, char *const *argv,
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

int pg_cmd_check_outputs(const char *command, const char *const *names,
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

int pg_cmd_check_show(const char *command, const pg_cmd_outputs *o)
{
    const char *names[] = {"--json", "--markdown", "--html"};
    const char *paths[] = {o->json_path, o->md_path, o->html_path};

    return pg_cmd_check_outputs(command, names, paths, 3);
}

int pg_cmd_columns(void)
{
    struct winsize ws;
    const char *cols = getenv("COLUMNS");
    long width;

    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    width = cols ? strtol(cols, NULL, 10) : 0;
    return width >= 20 && width <= 1000 ? (int)width : 80;
}

void pg_cmd_bench_done(void *payload, const pg_bench_result *b, size_t index,
                       size_t count)
{
    pg_str line = PG_STR_INIT;

    (void)payload;
    pg_report_bench_line(&line, b);
    fprintf(stderr, "perfgate: [%zu/%zu] %s\n", index + 1, count,
            pg_str_cstr(&line));
    fflush(stderr);
    pg_str_clear(&line);
}

void pg_cmd_print_report(FILE *f, const char *text)
{
    const char *gha = getenv("GITHUB_ACTIONS");
    char token[33];

    if (!gha || strcmp(gha, "true")) {
        fputs(text, f);
        fflush(f);
        return;
    }
    /*
     * On GitHub's runners, a line of stdout that starts with "::" is a
     * workflow command, and the report quotes user code and compilers: a
     * log line "::error::..." or "::add-mask::..." would be obeyed.  Stop
     * commands around it, with a token nobody can guess to resume.
     */
    pg_random_token(token);
    fprintf(f, "::stop-commands::perfgate-%s\n", token);
    fputs(text, f);
    fprintf(f, "::perfgate-%s::\n", token);
    fflush(f);
}

int pg_cmd_show(pg_result *r, const pg_cmd_outputs *outputs)
{
    pg_str out = PG_STR_INIT;
    int err = 0;

    /* Compiler output, user code's messages and commit subjects may hold
     * any bytes: the terminal, the JSON and the comment get valid UTF-8
     * without control characters. */
    pg_result_clean_text(r);
    pg_stats_judge(r);
    /* A file asked for as "-" has standard output: the report goes to
     * standard error, so that the file can be piped whole. */
    int to_stdout = (outputs->json_path && !strcmp(outputs->json_path, "-")) ||
                    (outputs->md_path && !strcmp(outputs->md_path, "-")) ||
                    (outputs->html_path && !strcmp(outputs->html_path, "-"));

    pg_report_terminal(
        &out, r, pg_cmd_use_color(to_stdout ? 2 : 1, outputs->color_when));
    pg_cmd_print_report(to_stdout ? stderr : stdout, pg_str_cstr(&out));
    if (outputs->json_path) {
        char *json = pg_result_to_json(r);
        err = json ? pg_cmd_write(outputs->json_path, json, strlen(json))
                   : pg_error_set(PG_ERR_GENERIC, "out of memory writing %s",
                                  outputs->json_path);
        free(json);
    }
    if (!err && outputs->md_path) {
        pg_str_reset(&out);
        pg_report_markdown(&out, r);
        err = pg_cmd_write(outputs->md_path, out.ptr, out.size);
    }
    if (!err && outputs->html_path) {
        pg_str_reset(&out);
        pg_report_html(&out, r);
        err = pg_cmd_write(outputs->html_path, out.ptr, out.size);
    }
    pg_str_clear(&out);
    return err;
}

int pg_cmd_read_result(pg_result *out, const char *path)
{
    char *text = NULL;
    int err;

    memset(out, 0, sizeof(*out));
    if (pg_read_file(&text, NULL, path, 64 << 20) < 0)
        return pg_error_set(PG_ERR_USAGE, "cannot read %s: %s", path,
                            errno == EFBIG ? "larger than 64 MiB"
                                           : strerror(errno));
    err = pg_result_from_json(out, text, path);
    free(text);
    return err;
}

int pg_cmd_output_option(pg_cmd_outputs *o, int c, const char *arg,
                         const char *command)
{
    switch (c) {
    case 'j':
        o->json_path = arg;
        return 1;
    case 'm':
        o->md_path = arg;
        return 1;
    case 'H':
        o->html_path = arg;
        return 1;
    case 'C':
        if (strcmp(arg, "auto") && strcmp(arg, "always") &&
            strcmp(arg, "never")) {
            fprintf(stderr,
                    "perfgate %s: --color '%s': want auto, always or never\n",
                    command, arg);
            return -1;
        }
        o->color_when = arg;
        return 1;
    default:
        return 0;
    }
}

int pg_cmd_getopt(int argc, char **argv, const char *command, const char *usage,
                  const struct option *opts,
                  int (*take)(void *payload, int c, const char *arg),
                  void *payload)
{
    int c, code;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":c:b:j:qhv", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage, stdout);
            return PG_EXIT_PASS;
        }
        if (c == '?' || c == ':')
            return pg_cmd_bad_option(command, c, argv, opts);
        if ((code = take(payload, c, optarg)) >= 0)
            return code;
    }
    return -1;
}

int pg_cmd_measure_option(pg_compare_opts *o, pg_strvec *only, int c,
                          const char *arg)
{
    const char *opt = NULL, *want = NULL;
    long long n;

    switch (c) {
    case 'c':
        o->config_path = arg;
        break;
    case 'b':
        pg_strvec_push(only, arg);
        break;
    case PG_OPT_FLOOR:
        if (pg_parse_fraction(&o->noise_floor, arg) < 0 ||
            o->noise_floor >= 1 || o->noise_floor <= 0)
            opt = "--noise-floor",
            want = "want a percentage above 0% and below 100%, such as 5%, "
                   "or a fraction such as 0.05";
        break;
    case PG_OPT_MAX_TIME:
        if (pg_parse_duration(&o->max_time, arg) < 0 || o->max_time <= 0)
            opt = "--max-time", want = "want a duration such as 10s or 500ms";
        break;
    case PG_OPT_TIMEOUT:
        if (pg_parse_duration(&o->timeout, arg) < 0 || o->timeout <= 0)
            opt = "--timeout", want = "want a duration such as 60s or 2m";
        break;
    case PG_OPT_MIN_ROUNDS:
        if (pg_parse_ll(&n, arg) < 0 || n < 1 || n > 1000000000)
            opt = "--min-rounds", want = "want a whole number of at least 1";
        else
            o->min_rounds = (int)n;
        break;
    case 'j':
        if (pg_parse_ll(&n, arg) < 0 || n < 1 || n > 256)
            opt = "--jobs", want = "want a number from 1 to 256";
        else
            o->jobs = (int)n;
        break;
    case PG_OPT_CACHE_DIR:
        if (!*arg)
            opt = "--cache-dir", want = "want a directory";
        o->cache_dir = arg;
        break;
    case PG_OPT_NO_CACHE:
        o->no_cache = 1;
        break;
    case PG_OPT_SANDBOX: {
        pg_box_mode mode;
        if (pg_box_parse_mode(&mode, arg) < 0)
            opt = "--sandbox", want = "want auto, require or off";
        else
            pg_box_set_mode(mode);
        break;
    }
    case 'v':
        pg_trace_enable(1);
        break;
    default:
        return 0;
    }
    if (opt) {
        fprintf(stderr, "perfgate: %s '%s': %s\n", opt, arg, want);
        return PG_EXIT_USAGE;
    }
    return -1;
}

/* The progress line on a terminal, rewritten in place. */
void pg_cmd_progress(void *payload, const char *line)
{
    size_t width = (size_t)pg_cmd_columns() - 1, cut = 0, cols = 0;

    (void)payload;
    /* One line that overwrites itself: never as wide as the terminal, or
     * it wraps and the next update leaves the first row behind.  Counted
     * in characters, not bytes ("·", "µ"). */
    while (line[cut] && cols < width) {
        cut++;
        while (((unsigned char)line[cut] & 0xC0) == 0x80)
            cut++;
        cols++;
    }
    fprintf(stderr, "\r\033[K%.*s", (int)cut, line);
    fflush(stderr);
}
