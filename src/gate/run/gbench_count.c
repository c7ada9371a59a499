/*
 * gbench_count.c - what callgrind counts of a Google Benchmark program's
 * timed loop (gbench_count.h).
 */
#include "gbench_count.h"
#include "fs.h"
#include "str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

/* The most dumps one counted process may leave (a loop that pauses its
 * timer leaves two per iteration). */
#define MAX_DUMPS 100000
/* The most of one dump kept for a profile. */
#define KEEP_CAP ((size_t)64 << 20)
/* Google Benchmark's State members that start and end its timed loop,
 * and pause and resume its timer within it, as the linker names them. */
#define GB_START "_ZN9benchmark5State16StartKeepRunningEv"
#define GB_FINISH "_ZN9benchmark5State17FinishKeepRunningEv"
#define GB_PAUSE "_ZN9benchmark5State11PauseTimingEv"
#define GB_RESUME "_ZN9benchmark5State12ResumeTimingEv"
/* The same, as callgrind names them when it demangles (for a profile). */
#define GB_START_CXX "benchmark::State::StartKeepRunning()"
#define GB_FINISH_CXX "benchmark::State::FinishKeepRunning()"
#define GB_PAUSE_CXX "benchmark::State::PauseTiming()"
#define GB_RESUME_CXX "benchmark::State::ResumeTiming()"

/* What ended a callgrind dump of a counted process (its "Trigger:"). */
typedef enum {
    DUMP_NONE = -1, /* no such dump */
    DUMP_OTHER = 0, /* the program's end, or anything else */
    DUMP_START,     /* the timed loop's start: a new run of it */
    DUMP_OPEN,      /* the timer resumed within the loop */
    DUMP_CLOSE      /* the timer paused, or the loop ended */
} dump_trigger;

static dump_trigger trigger_of(const char *path)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    dump_trigger t = DUMP_OTHER;

    if (!f)
        return DUMP_NONE;
    while (getline(&line, &cap, f) > 0 && strncmp(line, "events:", 7)) {
        if (strncmp(line, "desc: Trigger:", 14))
            continue;
        if (strstr(line, "--dump-after=" GB_START) ||
            strstr(line, "--dump-after=" GB_START_CXX))
            t = DUMP_START;
        else if (strstr(line, "--dump-after=" GB_RESUME) ||
                 strstr(line, "--dump-after=" GB_RESUME_CXX))
            t = DUMP_OPEN;
        else if (strstr(line, "--dump-before=" GB_PAUSE) ||
                 strstr(line, "--dump-before=" GB_FINISH) ||
                 strstr(line, "--dump-before=" GB_PAUSE_CXX) ||
                 strstr(line, "--dump-before=" GB_FINISH_CXX))
            t = DUMP_CLOSE;
        break;
    }
    free(line);
    fclose(f);
    return t;
}

/*
 * The count of the last run of the timed loop in the dumps `prefix`.1,
 * .2, ...: the stretches from the loop's start or the timer's resuming to
 * its pausing or the loop's end, summed (each dump holds what ran since
 * the one before); the dumps removed.  0, 1 when there was no such run
 * (no loop of Google Benchmark's seen), -1 when a dump could not be read.
 */
/* Dump `path`'s text after `keep`'s (truncated first when `fresh`). */
static int keep_dump(const char *keep, const char *path, int fresh)
{
    char *text = NULL;
    size_t len;
    FILE *f;
    int ok;

    if (pg_read_file(&text, &len, path, KEEP_CAP) < 0)
        return -1;
    if (!(f = fopen(keep, fresh ? "w" : "a"))) {
        free(text);
        return -1;
    }
    ok = fwrite(text, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    free(text);
    return ok ? 0 : -1;
}

int pg_gbench_loop_count(double *total, const char *prefix, pg_metric metric,
                         const char *keep)
{
    dump_trigger prev = DUMP_OTHER, t;
    int i, seen = 0, err = 0;

    *total = 0;
    for (i = 1; i <= MAX_DUMPS; i++) {
        char *path = pg_strdupf("%s.%d", prefix, i);
        double v;
        if ((t = trigger_of(path)) == DUMP_NONE) {
            free(path);
            break;
        }
        if (t == DUMP_START) {
            *total = 0;
            seen = 0;
        } else if (t == DUMP_CLOSE &&
                   (prev == DUMP_START || prev == DUMP_OPEN)) {
            if (pg_counter_read_dump(&v, path, metric) < 0 ||
                (keep && keep_dump(keep, path, !seen) < 0))
                err = -1;
            else
                *total += v;
            seen = 1;
        }
        prev = t;
        unlink(path);
        free(path);
    }
    unlink(prefix);
    return err < 0 ? err : !seen;
}

void pg_gbench_profile_tool(pg_strvec *tool, const char *dump)
{
    pg_counter_valgrind_tool(tool, PG_METRIC_INSTRUCTIONS, dump);
    /* As the profile reader reads them: positions whole, names as the
     * source has them (C++'s demangled). */
    pg_strvec_push(tool, "--compress-pos=no");
    pg_strvec_push(tool, "--demangle=yes");
    pg_strvec_push(tool, "--dump-after=" GB_START_CXX);
    pg_strvec_push(tool, "--dump-after=" GB_RESUME_CXX);
    pg_strvec_push(tool, "--dump-before=" GB_PAUSE_CXX);
    pg_strvec_push(tool, "--dump-before=" GB_FINISH_CXX);
}

/* callgrind, counting `metric` into dumps at `dump`, one at each edge of
 * the harness's timed stretches. */
void pg_gbench_count_tool(pg_strvec *tool, pg_metric metric, const char *dump)
{
    pg_counter_valgrind_tool(tool, metric, dump);
    pg_strvec_push(tool, "--dump-after=" GB_START);
    pg_strvec_push(tool, "--dump-after=" GB_RESUME);
    pg_strvec_push(tool, "--dump-before=" GB_PAUSE);
    pg_strvec_push(tool, "--dump-before=" GB_FINISH);
}
