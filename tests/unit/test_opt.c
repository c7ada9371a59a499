/* Options from one table: values by kind, the messages, the help (opt.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "opt.h"
#include "strvec.h"
#include "test.h"

/* What one command line filled in. */
typedef struct got {
    int flag, number;
    const char *text, *out, *out2, *color;
    double duration, budget, fraction;
    pg_strvec list, words;
    int called;
} got;

static int call_even(void *value, const char *arg)
{
    got *g = value;

    if (strlen(arg) % 2)
        return -1;
    g->called = 1;
    return 0;
}

static const pg_opt_usage usage = {"try", "usage: perfgate try [options]\n",
                                   "examples: none\n"};

/*
 * Parses `args` (NULL-ended, after the command's name) into `g` with the
 * test's table; what it said on stderr into `said` (a new string).
 */
static int parse(got *g, const char *const *args, char **said)
{
    const pg_opt opts[] = {
        PG_OPT_SET("flag", 'f', &g->flag, "a flag"),
        PG_OPT_INT("number", 'n', &g->number, "N", 1, 9, NULL,
                   "a number\nover two lines"),
        PG_OPT_STR("text", 0, &g->text, "WORD", "some text"),
        PG_OPT_OUT("out", 'o', &g->out, "FILE", "a file"),
        PG_OPT_OUT("out2", 0, &g->out2, "FILE", "another"),
        PG_OPT_COLOR(&g->color),
        PG_OPT_TIME("duration", &g->duration, "DURATION", 1, NULL, "not 0"),
        PG_OPT_TIME("budget", &g->budget, "DURATION", 0, "want 0 or more",
                    "0 allowed"),
        PG_OPT_PCT("fraction", &g->fraction, "PCT", "a share"),
        PG_OPT_EACH("list", 'l', &g->list, "NAME", "repeatable"),
        {PG_OPT_WORDS, "words", 'w', &g->words, "W...", "words", NULL, 0, 0,
         NULL, NULL},
        PG_OPT_FN("even", 0, g, "TEXT", call_even, "want an even length",
                  "a check of its own"),
        PG_OPT_END};
    char *argv[32];
    size_t n = 0, len = 0;
    FILE *err = tmpfile();
    int saved = dup(2), code;

    argv[n++] = (char *)"try";
    while (*args)
        argv[n++] = (char *)*args++;
    argv[n] = NULL;
    fflush(stderr);
    dup2(fileno(err), 2);
    code = pg_opt_parse(opts, (int)n, argv, &usage);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    *said = calloc(1, 4096);
    rewind(err);
    len = fread(*said, 1, 4095, err);
    (*said)[len] = '\0';
    fclose(err);
    return code;
}

static void got_init(got *g)
{
    const pg_strvec empty = PG_STRVEC_INIT;

    memset(g, 0, sizeof(*g));
    g->list = empty;
    g->words = empty;
}

static void got_clear(got *g)
{
    pg_strvec_clear(&g->list);
    pg_strvec_clear(&g->words);
}

/* Every kind stores its value; the operands stay, from optind. */
static void each_kind_stores_its_value(void)
{
    const char *args[] = {
        "-f",    "-n",         "7",  "--text",   "hi", "--color",
        "never", "--duration", "2s", "--budget", "0",  "--fraction",
        "5%",    "-l",         "a",  "--list=b", "-w", "x.c",
        "y.c",   "--even",     "ab", "OPERAND",  NULL};
    got g;
    char *said;
    int code;

    got_init(&g);
    code = parse(&g, args, &said);
    CHECK(code == -1);
    CHECK_STR(said, "");
    CHECK(g.flag == 1);
    CHECK(g.number == 7);
    CHECK_STR(g.text, "hi");
    CHECK_STR(g.color, "never");
    CHECK_NEAR(g.duration, 2, 1e-12);
    CHECK_NEAR(g.budget, 0, 0);
    CHECK_NEAR(g.fraction, 0.05, 1e-12);
    REQUIRE(g.list.n == 2 && g.words.n == 2);
    CHECK_STR(g.list.v[1], "b");
    CHECK_STR(g.words.v[1], "y.c");
    CHECK(g.called == 1);
    CHECK(optind == 22);
    free(said);
    got_clear(&g);
}

/* A wrong value is named with its option and what it should be; the
 * value is not stored. */
static void a_wrong_value_says_what_to_give(void)
{
    static const struct {
        const char *args[3];
        const char *said;
    } cases[] = {
        {{"-n", "10"}, "--number '10': want a number from 1 to 9"},
        {{"-n", "x"}, "--number 'x': want a number from 1 to 9"},
        {{"--color", "blue"}, "--color 'blue': want auto, always or never"},
        {{"--color", "alway"}, "want auto, always or never"},
        {{"--duration", "0"}, "--duration '0': want a duration"},
        {{"--budget", "-1s"}, "--budget '-1s': want 0 or more"},
        {{"--fraction", "100%"}, "want a percentage above 0%"},
        {{"--text", ""}, "--text '': want a value"},
        {{"--even", "abc"}, "--even 'abc': want an even length"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        got g;
        char *said;
        const char *args[] = {cases[i].args[0], cases[i].args[1], NULL};
        got_init(&g);
        CHECK(parse(&g, args, &said) == PG_EXIT_USAGE);
        CHECK_CONTAINS(said, "perfgate try: ");
        CHECK_CONTAINS(said, cases[i].said);
        CHECK(g.number == 0 && !g.color && !g.called);
        free(said);
        got_clear(&g);
    }
}

/* An unknown option gets the nearest name; one without its value says
 * so; both point at --help. */
static void an_unknown_option_gets_a_hint(void)
{
    const char *typo[] = {"--duraton", "1s", NULL};
    const char *bare[] = {"--text", NULL};
    const char *letter[] = {"-fZ", NULL};
    got g;
    char *said;

    got_init(&g);
    CHECK(parse(&g, typo, &said) == PG_EXIT_USAGE);
    CHECK_CONTAINS(said, "unknown option '--duraton' (did you mean "
                         "'--duration'?); see 'perfgate try --help'");
    free(said);
    CHECK(parse(&g, bare, &said) == PG_EXIT_USAGE);
    CHECK_CONTAINS(said, "option '--text' needs a value");
    free(said);
    CHECK(parse(&g, letter, &said) == PG_EXIT_USAGE);
    CHECK_CONTAINS(said, "unknown option '-Z'");
    free(said);
    got_clear(&g);
}

/* Output files are checked once all are read: two on stdout is one too
 * many, a directory cannot be written. */
static void outputs_are_checked_before_any_work(void)
{
    const char *both[] = {"-o", "-", "--out2", "-", NULL};
    const char *dir[] = {"--out", "/", NULL};
    got g;
    char *said;

    got_init(&g);
    CHECK(parse(&g, both, &said) == PG_EXIT_USAGE);
    CHECK_CONTAINS(said, "--out2");
    free(said);
    CHECK(parse(&g, dir, &said) == PG_EXIT_USAGE);
    CHECK_CONTAINS(said, "it is a directory");
    free(said);
    got_clear(&g);
}

/* --help is made from the table: each option at its place, text in one
 * column, continuation lines under it, -h last, then the epilogue. */
static void the_help_is_made_from_the_table(void)
{
    const char *help[] = {"--help", NULL};
    const pg_opt opts[] = {
        PG_OPT_INT("jobs", 'j', NULL, "N", 1, 2, NULL, "builds\nat once"),
        PG_OPT_SET("aa", 0, NULL, "self-check"),
        PG_OPT_STR("a-very-long-option", 0, NULL, "VALUE", "below"),
        PG_OPT_END};
    char *text = NULL, *said;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    got g;

    pg_opt_print_usage(f, opts, &usage);
    fclose(f);
    CHECK_STR(text, "usage: perfgate try [options]\n"
                    "\n"
                    "options:\n"
                    "  -j, --jobs N             builds\n"
                    "                           at once\n"
                    "      --aa                 self-check\n"
                    "      --a-very-long-option VALUE\n"
                    "                           below\n"
                    "  -h, --help               show this help\n"
                    "\n"
                    "examples: none\n");
    free(text);

    got_init(&g);
    CHECK(parse(&g, help, &said) == PG_EXIT_PASS);
    CHECK_STR(said, "");
    free(said);
    got_clear(&g);
}

const pg_test pg_tests_opt[] = {
    {"each_kind_stores_its_value", each_kind_stores_its_value},
    {"a_wrong_value_says_what_to_give", a_wrong_value_says_what_to_give},
    {"an_unknown_option_gets_a_hint", an_unknown_option_gets_a_hint},
    {"outputs_are_checked_before_any_work",
     outputs_are_checked_before_any_work},
    {"the_help_is_made_from_the_table", the_help_is_made_from_the_table},
    PG_TESTS_END};
