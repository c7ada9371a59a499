/*
 * cmd_util.c - what the subcommands share: error printing, color, files.
 */
#include "cmd.h"
#include "env.h"
#include "box.h"
#include "error.h"
#include "fs.h"
#include "html.h"
#include "report.h"
#include "stats.h"
#include "str.h"
#include "token.h"
#include "trace.h"

#include <errno.h>
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

/* 1 when color should be used on `fd` (a terminal, NO_COLOR unset). */
static int use_color(int fd, const char *when)
{
    if (when && !strcmp(when, "always"))
        return 1;
    if (when && !strcmp(when, "never"))
        return 0;
    if (pg_env_nonempty("NO_COLOR"))
        return 0;
    return isatty(fd) && pg_env("TERM") && strcmp(pg_env("TERM"), "dumb");
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

/* The terminal's width in columns, for one-line progress (80 when it
 * cannot say). */
static int columns(void)
{
    struct winsize ws;
    const char *cols = pg_env("COLUMNS");
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

void pg_cmd_show_progress(pg_compare_opts *opts, int quiet)
{
    if (!quiet && isatty(STDERR_FILENO))
        opts->on_progress = pg_cmd_progress;
    else if (!quiet)
        opts->on_bench_done = pg_cmd_bench_done;
}

void pg_cmd_print_report(FILE *f, const char *text)
{
    char token[33];

    if (!pg_env_github_actions()) {
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
    pg_token(token);
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
    /* A file asked for as "-" has standard output: the report goes to
     * standard error, so that the file can be piped whole. */
    int to_stdout = (outputs->json_path && !strcmp(outputs->json_path, "-")) ||
                    (outputs->md_path && !strcmp(outputs->md_path, "-")) ||
                    (outputs->html_path && !strcmp(outputs->html_path, "-"));

    pg_report_terminal(&out, r,
                       use_color(to_stdout ? 2 : 1, outputs->color_when));
    pg_cmd_print_report(to_stdout ? stderr : stdout, pg_str_cstr(&out));
    if (outputs->json_path) {
        char *json = pg_result_to_json(r);
        err = pg_cmd_write(outputs->json_path, json, strlen(json));
        free(json);
    }
    if (!err && outputs->md_path) {
        pg_str_reset(&out);
        pg_report_markdown(&out, r);
        err = pg_cmd_write(outputs->md_path, out.ptr, out.size);
    }
    if (!err && outputs->html_path) {
        pg_str_reset(&out);
        pg_html_page(&out, r);
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
    /* A saved result is judged as it enters (its own verdict is not
     * trusted); renderers read what was decided. */
    if (err == 0)
        pg_stats_judge(out);
    return err;
}

int pg_cmd_opt_verbose(void *unused, const char *arg)
{
    (void)unused;
    (void)arg;
    pg_trace_enable(1);
    return 0;
}

int pg_cmd_opt_sandbox(void *unused, const char *arg)
{
    pg_box_mode mode;

    (void)unused;
    if (pg_box_parse_mode(&mode, arg) < 0)
        return -1;
    pg_box_set_mode(mode);
    return 0;
}

/* The progress line on a terminal, rewritten in place. */
void pg_cmd_progress(void *payload, const char *line)
{
    size_t width = (size_t)columns() - 1, cut = 0, cols = 0;

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
