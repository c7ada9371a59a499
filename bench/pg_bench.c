/*
 * pg_bench.c - the engine alone, for bench/accuracy.py: runs one prebuilt
 * base/head pair through perfgate's own run and decision (run.h, stats.h),
 * TRIALS times, and prints one JSON line per trial.  The git and build
 * stages are left out, so that the time per decision is the measurement's.
 *
 *   pg_bench --problem LIB --base LIB --head LIB [--symbol NAME]
 *            [--cases "k=v; ..."] [--trials N] [--noise-floor F]
 *            [--max-time S] [--min-rounds N] [--cpu N]
 *            [--gate total|cases]
 */
#include "cleanup.h"
#include "config.h"
#include "draws.h"
#include "error.h"
#include "fs.h"
#include "result.h"
#include "run.h"
#include "stats.h"
#include "system.h"
#include "timer.h"
#include "clock.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_number(const char *key, double v)
{
    if (isfinite(v))
        printf(", \"%s\": %.9g", key, v);
    else
        printf(", \"%s\": null", key);
}

/* A change with its interval and both sides' times. */
static void print_figures(double change, double lo, double hi, double base_ns,
                          double head_ns)
{
    print_number("change", change);
    print_number("lo", lo);
    print_number("hi", hi);
    print_number("base_ns", base_ns);
    print_number("head_ns", head_ns);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"problem", required_argument, NULL, 'p'},
        {"base", required_argument, NULL, 'b'},
        {"head", required_argument, NULL, 'h'},
        {"symbol", required_argument, NULL, 's'},
        {"cases", required_argument, NULL, 'c'},
        {"trials", required_argument, NULL, 't'},
        {"noise-floor", required_argument, NULL, 'f'},
        {"max-time", required_argument, NULL, 'm'},
        {"min-rounds", required_argument, NULL, 'r'},
        {"cpu", required_argument, NULL, 'u'},
        {"gate", required_argument, NULL, 'g'},
        {NULL, 0, NULL, 0}};
    const char *problem = NULL, *lib[2] = {NULL, NULL}, *symbol = "chain";
    const char *cases_text = "seed=1; seed=2; seed=3";
    pg_casespec *cases = NULL;
    size_t ncases = 0, i;
    pg_settings settings;
    pg_system sys;
    int trials = 1, cpu = -1, gate_cases = 0, c, t;
    char *tmp = NULL, *spec_path = NULL;

    pg_settings_defaults(&settings);
    settings.noise_floor = 0.05;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        /* dlopen() searches the library path for a name without '/'. */
        case 'p':
            problem = realpath(optarg, NULL);
            break;
        case 'b':
            lib[0] = realpath(optarg, NULL);
            break;
        case 'h':
            lib[1] = realpath(optarg, NULL);
            break;
        case 's':
            symbol = optarg;
            break;
        case 'c':
            cases_text = optarg;
            break;
        case 't':
            trials = atoi(optarg);
            break;
        case 'f':
            settings.noise_floor = atof(optarg);
            break;
        case 'm':
            settings.max_time = atof(optarg);
            break;
        case 'r':
            settings.min_rounds = atoi(optarg);
            break;
        case 'u':
            cpu = atoi(optarg);
            break;
        case 'g':
            gate_cases = !strcmp(optarg, "cases");
            break;
        default:
            fprintf(stderr, "usage: see the comment at the top of "
                            "bench/pg_bench.c\n");
            return 2;
        }
    }
    if (!problem || !lib[0] || !lib[1] ||
        pg_casespecs_parse(&cases, &ncases, cases_text) < 0) {
        fprintf(stderr, "pg_bench: --problem, --base and --head are needed, "
                        "and --cases must be \"k=v; ...\"\n");
        return 2;
    }
    pg_cleanup_init();
    if (pg_tempdir_create(&tmp) < 0) {
        fprintf(stderr, "pg_bench: %s\n", pg_error_last());
        return 3;
    }
    spec_path = pg_path_join(tmp, "bench.run");

    /* As `perfgate compare` does once per run: the timer, the CPU. */
    pg_system_check(&sys, "", 100);
    if (cpu < 0)
        cpu = sys.cpu;
    printf("{\"system\": true, \"cpu\": %d, \"timer\": \"%s\"", cpu,
           pg_clock_name(sys.timer.id));
    print_number("timer_overhead_ns", sys.timer.overhead_ns);
    print_number("timer_resolution_ns", sys.timer.resolution_ns);
    printf(", \"warnings\": %zu}\n", sys.nwarnings);
    fflush(stdout);

    for (t = 0; t < trials && !pg_interrupted(); t++) {
        pg_result r;
        pg_bench_result *b;
        pg_run_spec spec;
        int64_t start;
        double wall;

        memset(&r, 0, sizeof(r));
        b = pg_result_add(&r, "chain", "chain");
        pg_run_spec_init(&spec);
        spec.problem_lib = problem;
        spec.problem_name = "chain";
        spec.lib[0] = lib[0];
        spec.lib[1] = lib[1];
        spec.symbol = symbol;
        spec.cases = cases;
        spec.ncases = ncases;
        spec.settings = &settings;
        spec.cpu = cpu;
        spec.clock = &pg_timer_current()->chosen;
        spec.gate_cases = b->gate_cases = gate_cases;

        start = pg_now_ns();
        if (pg_draws_run(b, &spec, spec_path) < 0) {
            fprintf(stderr, "pg_bench: %s\n", pg_error_last());
            return 3;
        }
        wall = (double)(pg_now_ns() - start) / 1e9;
        if (b->status == PG_STATUS_UNCHANGED && b->rounds > 0)
            pg_stats_decide(b, settings.noise_floor);

        printf("{\"trial\": %d, \"status\": \"%s\"", t,
               pg_status_name(b->status));
        print_figures(b->change, b->change_lo, b->change_hi, b->base_ns,
                      b->head_ns);
        printf(", \"rounds\": %d, \"processes\": %d", b->rounds, b->processes);
        print_number("measure_s", b->seconds);
        print_number("wall_s", wall);
        printf(", \"stop\": \"%s\"", b->stop ? b->stop : "");
        /* Each case: its change, interval and label, and its times. */
        printf(", \"cases\": [");
        for (i = 0; i < b->ncases; i++) {
            const pg_result_case *cr = &b->cases[i];
            printf("%s{\"status\": \"%s\"", i ? ", " : "",
                   pg_status_name(cr->status));
            print_figures(cr->change, cr->change_lo, cr->change_hi, cr->base_ns,
                          cr->head_ns);
            print_number("overhead_ns", cr->overhead_ns);
            printf(", \"resolved\": %s}", cr->unresolved ? "false" : "true");
        }
        printf("]");
        printf(", \"message\": \"%s\"}\n", b->message ? "see stderr" : "");
        if (b->message)
            fprintf(stderr, "pg_bench: trial %d: %s\n", t, b->message);
        fflush(stdout);
        pg_result_clear(&r);
    }
    for (i = 0; i < ncases; i++)
        pg_casespec_clear(&cases[i]);
    free(cases);
    free(spec_path);
    pg_tempdir_remove_all();
    free(tmp);
    pg_system_clear(&sys);
    return 0;
}
