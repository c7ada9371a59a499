/*
 * main.c - perfgate's entry point: global options and the subcommand table.
 */
#include "cleanup.h"
#include "cmd.h"
#include "error.h"
#include "fs.h"
#include "json.h"
#include "words.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

/* In the order a new user meets them, each group under its heading. */
static const struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
    const char *group; /* its heading; NULL: the one before */
} commands[] = {
    {"init", pg_cmd_init,
     "add a function of yours to perfgate.yml:\n"
     "             perfgate init --function 'PROTOTYPE' --sources FILE...\n"
     "             (or a starter solution to a built-in problem)",
     "start here"},
    {"compare", pg_cmd_compare,
     "did this change make the code slower?  perfgate compare HEAD~1", NULL},
    {"bisect", pg_cmd_bisect, "find the commit that made a benchmark slower",
     "when the gate fails"},
    {"report", pg_cmd_report, "render a saved JSON result again", NULL},
    {"merge", pg_cmd_merge, "one result from the shards of a run",
     "in CI and over time"},
    {"record", pg_cmd_record, "measure a push to main and keep it in history",
     NULL},
    {"history", pg_cmd_history, "how main has moved: steps and creep", NULL},
    {"problems", pg_cmd_problems, "list the built-in problems", "more"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
    size_t i;

    fputs("usage: perfgate [-C DIR] <command> [options]\n"
          "       perfgate --version | --help\n\n"
          "perfgate is a performance gate for pull requests: it builds two\n"
          "revisions of your C functions, checks both against a reference,\n"
          "times them interleaved and fails when the head is slower.\n",
          f);
    for (i = 0; i < NCOMMANDS; i++) {
        if (commands[i].group)
            fprintf(f, "\n%s:\n", commands[i].group);
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    }
    fputs("\noptions:\n"
          "  -C DIR      run as if started in DIR\n"
          "  -h, --help  show this help; 'perfgate COMMAND --help' for one "
          "command\n"
          "  --version   show the version\n\n"
          "exit status: 0 pass, 1 the gate failed, 2 usage, config or "
          "revision error,\n"
          "3 internal error, 130 interrupted\n",
          f);
}

static int unknown_command(const char *name)
{
    const char *names[NCOMMANDS + 1];
    char hint[128];
    size_t k;

    for (k = 0; k < NCOMMANDS; k++)
        names[k] = commands[k].name;
    names[NCOMMANDS] = NULL;
    fprintf(stderr,
            "perfgate: '%s' is not a perfgate command%s; see "
            "'perfgate --help'\n",
            name, pg_suggest_text(hint, sizeof(hint), name, names));
    return PG_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    int i = 1;
    size_t k;

    pg_cleanup_init();
    pg_json_hooks();
    while (i < argc && argv[i][0] == '-') {
        if (!strcmp(argv[i], "--version")) {
            printf("perfgate %s\n", PG_VERSION);
            return PG_EXIT_PASS;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return PG_EXIT_PASS;
        } else if (!strcmp(argv[i], "-C")) {
            if (i + 1 >= argc) {
                fputs("perfgate: -C needs a directory\n", stderr);
                return PG_EXIT_USAGE;
            }
            if (chdir(argv[i + 1]) < 0) {
                fprintf(stderr, "perfgate: cannot change to '%s': %s\n",
                        argv[i + 1], strerror(errno));
                return PG_EXIT_USAGE;
            }
            i += 2;
        } else {
            fprintf(stderr,
                    "perfgate: unknown option '%s'; see 'perfgate --help'\n",
                    argv[i]);
            return PG_EXIT_USAGE;
        }
    }
    if (i >= argc) {
        usage(stderr);
        return PG_EXIT_USAGE;
    }
    if (!strcmp(argv[i], "help")) {
        if (i + 1 < argc) {
            char *help_argv[] = {argv[i + 1], "--help", NULL};
            for (k = 0; k < NCOMMANDS; k++)
                if (!strcmp(commands[k].name, argv[i + 1]))
                    return commands[k].fn(2, help_argv);
        }
        usage(stdout);
        return PG_EXIT_PASS;
    }
    for (k = 0; k < NCOMMANDS; k++)
        if (!strcmp(commands[k].name, argv[i]))
            return commands[k].fn(argc - i, argv + i);
    return unknown_command(argv[i]);
}
