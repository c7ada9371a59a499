/*
 * main.c - perfgate-measure, the measuring child: the process that runs
 * the user's code.
 *
 * perfgate starts it for every benchmark (run.c), so that the user's code
 * runs in a process that loads nothing of perfgate's own: no libgit2, zlib,
 * libyaml or cJSON, whose symbols would otherwise be found first when a
 * library calls a function of the same name.  It links the C library and
 * the measuring engine only.  It loads the problem plugin (which calls back
 * into the pg_* functions it exports) and each side's library, each with
 * RTLD_LOCAL, so that base, head and problem never bind each other's
 * definitions.
 *
 *   perfgate-measure SPEC             measure (runspec.h), events on fd 3
 *   perfgate-measure --side 0|1 SPEC  one side alone, answering the
 *                                     requests perfgate sends on fd 6
 *                                     (src/gate/run/split.c)
 *   perfgate-measure --describe LIB NAME [CASES]
 *                                     a problem's default cases, on fd 3
 *
 * Its events, one line each, are declared in protocol.h (run.c and
 * problems.c read them).  This file holds its modes; child.c how it
 * speaks to perfgate, sides.c the two sides (loaded, set up, verified,
 * timed).
 * Which side is running user code, and since when, is in the pg_watch that
 * perfgate shares as fd 4, so that a hang or a crash is charged to the
 * right side even when this process can say nothing.  Run by hand, without
 * those descriptors, it writes the events to stdout.
 */
#include "child.h"
#include "codepath.h"
#include "sides.h"
#include "counter.h"
#include "elfcode.h"
#include "error.h"
#include "gpu.h"
#include "measure.h"
#include "watch.h"
#include "plugin.h"
#include "proc.h"
#include "protocol.h"
#include "runspec.h"
#include "str.h"
#include "system.h"
#include "timer.h"
#include "clock.h"
#include "units.h"
#include "sanitize.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <time.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "banned.h"

enum { MSG_FD = 3, WATCH_FD = 4 };

static const char usage_text[] =
    "usage: perfgate-measure SPEC\n"
    "       perfgate-measure --side 0|1 SPEC\n"
    "       perfgate-measure --describe PROBLEM_LIB PROBLEM_NAME [CASES]\n"
    "\n"
    "The process in which perfgate runs the code it measures; perfgate\n"
    "starts it, one benchmark at a time.  SPEC is a run spec as perfgate\n"
    "writes it (see src/engine/runspec.h).  Run by hand, it prints its events "
    "on\n"
    "stdout.\n";

static void limit_resources(int gpu)
{
    struct rlimit rl = {0, 0};

    (void)gpu; /* unused under ASan */
    setrlimit(RLIMIT_CORE, &rl);
#ifndef PG_UNDER_ASAN
    /* Half the machine's memory: runaway code fails here, not the box.
     * (Not under ASan, whose shadow memory a limit would starve, nor with
     * CUDA, whose driver reserves address space for all of the device's
     * memory and the host's, and cannot start under such a limit.) */
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && !gpu) {
        rl.rlim_cur = rl.rlim_max = (rlim_t)pages * (rlim_t)page / 2;
        setrlimit(RLIMIT_AS, &rl);
    }
#endif
}

/*
 * A check (verify_only): both sides checked on their own set-ups, and
 * then, where asked ("memory N"), the heap of their calls counted on
 * those set-ups (memcount.c); or, checked before by other processes, the
 * heap alone.  "verified" ends it; a failure, sent, ends it without.
 */
static void check_only(child_ctx *ctx, sides *st)
{
    const pg_run_spec *spec = ctx->spec;

    if (!(spec->memory && (spec->skip_checks & PG_CHECK_BEFORE)) &&
        pg_sides_verify(ctx, st->p, st->cases, st->own, "")) {
        pg_child_send(ctx, PG_EV_VERIFIED);
        return;
    }
    if (!spec->memory || !pg_sides_memory(ctx, st))
        pg_child_send(ctx, PG_EV_VERIFIED);
}

/* The problem's library, loaded; its failure sent (then -1). */
static int load_problem(child_ctx *ctx, pg_plugin *plugin)
{
    const pg_run_spec *spec = ctx->spec;
    int err;

    /* Loading runs the problem's constructors and perfgate_problem(). */
    pg_child_calling(ctx, PG_CALL_LOAD, -1, (size_t)-1);
    err = pg_plugin_load(plugin, spec->problem_lib, spec->problem_name);
    pg_child_called_out(ctx);
    if (err < 0) {
        pg_child_fail(ctx, "crashed", -1, "%s", pg_error_last());
        return -1;
    }
    pg_child_trace(ctx, "problem %s loaded from %s (%s)", spec->problem_name,
                   spec->problem_lib,
                   plugin->problem->side_setup
                       ? "side_setup: each side set up, timed and checked on "
                         "its own set-up"
                       : "both sides timed on one set-up of each case");
    return 0;
}

static int measure_main(const pg_run_spec *spec, pg_watch *watch, int fd)
{
    child_ctx ctx;
    pg_plugin plugin;
    pg_timing *timing;
    pg_measure_summary summary;
    sides st;
    int err;

    memset(&ctx, 0, sizeof(ctx));
    memset(&st, 0, sizeof(st));
    ctx.spec = spec;
    ctx.watch = watch;
    ctx.fd = fd;
    if (spec->clock)
        pg_timer_use(spec->clock);
    limit_resources(spec->gpu);
    /* One CPU: no migrations between samples, and the caches stay ours. */
    if (spec->cpu >= 0)
        pg_system_pin(spec->cpu);

    if (load_problem(&ctx, &plugin) < 0)
        return 0;
    st.p = plugin.problem;
    st.own = pg_calloc(spec->ncases, sizeof(*st.own));
    st.targets = pg_calloc(spec->ncases, sizeof(*st.targets));
    /* Per case: the base's, the head's, and the one both are timed on. */
    st.cases = pg_calloc(spec->ncases * 3, sizeof(*st.cases));
    timing = pg_calloc(spec->ncases, sizeof(*timing));
    if (pg_sides_load(&ctx, &st) || pg_sides_set_up_own(&ctx, &st))
        goto done;

    pg_child_send(&ctx, PG_EV_PROGRESS_FMT, "verifying", 0, 0.0);
    if (spec->verify_only) {
        check_only(&ctx, &st);
        goto done;
    }
    /* Checked by an earlier process on the same inputs: the check after
     * timing is this one's. */
    if (spec->skip_checks & PG_CHECK_BEFORE)
        pg_child_send(&ctx, PG_EV_VERIFIED " " PG_EV_VERIFIED_HEAD);
    else if (pg_sides_verify(&ctx, st.p, st.cases, st.own, "")) {
        pg_child_send(&ctx, PG_EV_VERIFIED);
        goto done;
    }
    if (pg_sides_set_up_shared(&ctx, &st))
        goto done;
    if (spec->sample) {
        if (!pg_sides_sample(&ctx, &st))
            pg_child_send(&ctx, PG_EV_VERIFIED);
        goto done;
    }
    err = pg_sides_time(&ctx, &st, timing, &summary);
    pg_child_called_out(&ctx);
    if (err)
        goto done;
    /* Right once is not enough: after all those calls, each side must
     * still be right. */
    if (!(spec->skip_checks & PG_CHECK_AFTER) &&
        pg_sides_verify(&ctx, st.p, st.cases, st.own, " (after timing)"))
        goto done;
    pg_sides_send_figures(&ctx, &st, timing, &summary);
done:
    /* No unloading: the process ends here and the kernel is the fastest
     * and safest way to free what the user's code holds. */
    pg_sides_tear_down(&ctx, &st);
    return 0;
}

/* One request line from `fd` into `line` (its newline dropped); 0, or
 * -1 at the end of the pipe. */
static int read_request(int fd, pg_str *line, pg_str *pending)
{
    for (;;) {
        char *nl =
            memchr(pending->ptr ? pending->ptr : "", '\n', pending->size);
        char buf[512];
        ssize_t n;

        if (nl) {
            size_t len = (size_t)(nl - pending->ptr);
            pg_str_reset(line);
            pg_str_put(line, pending->ptr, len);
            memmove(pending->ptr, nl + 1, pending->size - len - 1);
            pending->size -= len + 1;
            pending->ptr[pending->size] = '\0';
            return 0;
        }
        n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        pg_str_put(pending, buf, (size_t)n);
    }
}

/* Answers one "time" request: a sample of this side, or of the stand-in;
 * counted when `counter` is not NULL. */
static void answer_time(child_ctx *ctx, sides *st, int side, const char *rest,
                        unsigned char *evict, const pg_counter *counter)
{
    const pg_run_spec *spec = ctx->spec;
    size_t c, slot;
    unsigned long long n;
    int k, warm;
    pg_fn fn;
    double ns;

    if (sscanf(rest, "%zu %d %llu %zu %d", &c, &k, &n, &slot, &warm) != 5 ||
        c >= spec->ncases || n == 0) {
        pg_child_send(ctx, PG_EV_SAMPLE_FMT, NAN);
        return;
    }
    fn = k < 0                      ? NULL
         : slot < st->nplaced[side] ? st->placed[side][slot]
                                    : st->syms[side];
    pg_child_calling(ctx, k < 0 ? PG_CALL_STAND_IN : PG_CALL_RUN,
                     k < 0 ? -1 : side, c);
    if (counter)
        ns = pg_measure_sample_on(&counter->clock, &st->own[c][side], fn,
                                  (uint64_t)n, 0);
    else
        ns = pg_measure_sample(&st->own[c][side], fn, (uint64_t)n, warm, evict,
                               spec->evict_bytes);
    pg_child_called_out(ctx);
    pg_child_send(ctx, PG_EV_SAMPLE_FMT, ns);
}

/*
 * Timing is over, for one side's process: a count that failed says so;
 * under callgrind the side's code path is dumped (trace_sides); the side
 * is checked again unless a later process checks it.  0, or 1 when a
 * failure was reported.
 */
static int end_side(child_ctx *ctx, sides *st, int side, pg_counter *counter)
{
    const pg_run_spec *spec = ctx->spec;
    size_t c;

    if (counter && counter->error.size)
        return pg_child_fail(ctx, "skipped", -1, "not counted: %s",
                             pg_str_cstr(&counter->error));
    if (counter && spec->code_path) {
        st->targets = pg_calloc(spec->ncases, sizeof(*st->targets));
        for (c = 0; c < spec->ncases; c++)
            st->targets[c][0] = st->own[c][side];
        st->order[0] = side;
        st->n = 1;
        pg_sides_trace(ctx, st, counter);
    }
    if (!(spec->skip_checks & PG_CHECK_AFTER) &&
        pg_sides_verify(ctx, st->p, st->cases, st->own, " (after timing)"))
        return REPORTED;
    return 0;
}

/*
 * `perfgate-measure --side SIDE SPEC`: one side alone, in a process that
 * holds nothing of the other side's (its code, its set-ups, its figures),
 * taking the samples perfgate asks for on `req` (protocol.h) and timing
 * them on its own set-up of each case.  perfgate decides everything else.
 */
/* "figures C": the work one call of case c does, by the problem. */
static void answer_figures(child_ctx *ctx, const sides *st, int side, size_t c)
{
    const pg_case *pc = &st->cases[c * 3 + (size_t)side];
    double flops = 0, bytes = 0;

    pg_sides_work(ctx, st->p, pc, c, &flops, &bytes);
    pg_child_send(ctx, PG_EV_FIGURES_FMT, flops, bytes);
}

/* Answers perfgate's requests on `req` for side `side` until "end" (or a
 * word it does not know, or the channel's end). */
static void serve(child_ctx *ctx, sides *st, int side, int req,
                  unsigned char *evict, pg_counter *counting)
{
    pg_str line = PG_STR_INIT, pending = PG_STR_INIT;
    size_t c;

    while (read_request(req, &line, &pending) == 0) {
        char word[16];
        const char *rest =
            pg_proc_message(pg_str_cstr(&line), NULL, word, sizeof(word));
        if (!rest)
            break;
        if (!strcmp(word, PG_RQ_TIME)) {
            answer_time(ctx, st, side, rest, evict, counting);
        } else if (!strcmp(word, PG_RQ_FIGURES) &&
                   sscanf(rest, "%zu", &c) == 1 && c < ctx->spec->ncases) {
            answer_figures(ctx, st, side, c);
        } else {
            /* "end", or words this side does not know: nothing more. */
            if (!strcmp(word, PG_RQ_END) && !end_side(ctx, st, side, counting))
                pg_child_send(ctx, PG_EV_ENDED);
            break;
        }
    }
    pg_str_clear(&line);
    pg_str_clear(&pending);
}

static int worker_main(const pg_run_spec *given, int side, pg_watch *watch,
                       int fd, int req)
{
    pg_run_spec spec = *given;
    pg_str why = PG_STR_INIT;
    unsigned char *evict = NULL;
    pg_counter counter, *counting = NULL;
    child_ctx ctx;
    pg_plugin plugin;
    sides st;
    size_t c;

    memset(&ctx, 0, sizeof(ctx));
    memset(&st, 0, sizeof(st));
    spec.lib[!side] = NULL;
    ctx.spec = &spec;
    ctx.watch = watch;
    ctx.fd = fd;
    if (spec.clock)
        pg_timer_use(spec.clock);
    limit_resources(0);
    if (spec.cpu >= 0)
        pg_system_pin(spec.cpu);
    pg_child_calling(&ctx, PG_CALL_LOAD, -1, (size_t)-1);
    if (pg_plugin_load(&plugin, spec.problem_lib, spec.problem_name) < 0) {
        pg_child_called_out(&ctx);
        pg_child_fail(&ctx, "crashed", -1, "%s", pg_error_last());
        return 0;
    }
    pg_child_called_out(&ctx);
    st.p = plugin.problem;
    st.own = pg_calloc(spec.ncases, sizeof(*st.own));
    st.cases = pg_calloc(spec.ncases * 3, sizeof(*st.cases));
    if (!spec.lib[side] || pg_sides_load(&ctx, &st) ||
        pg_sides_set_up_own(&ctx, &st))
        goto done;
    if (!(spec.skip_checks & PG_CHECK_BEFORE) &&
        pg_sides_verify(&ctx, st.p, st.cases, st.own, ""))
        goto done;
    if (st.nplaced[side] < 1) {
        st.placed[side][0] = st.syms[side];
        st.nplaced[side] = 1;
    }
    if (spec.metric) {
        /* Counted: a sample's "time" is the counter's count. */
        if (pg_counter_open(&counter, (pg_counter_kind)spec.counter,
                            (pg_metric)spec.metric, spec.count_dump,
                            &why) < 0) {
            pg_child_fail(&ctx, "skipped", -1, "not counted: %s (%s)",
                          pg_str_cstr(&why), pg_counter_name(spec.counter));
            goto done;
        }
        counting = &counter;
    } else if (spec.evict_bytes) {
        evict = pg_calloc(spec.evict_bytes, 1);
    }
    pg_child_send(&ctx, PG_EV_READY_FMT, st.nplaced[side],
                  counting ? counting->clock.error_ns : 0.0,
                  counting ? (unsigned long long)counting->clock.max_inner
                           : 0ULL);
    serve(&ctx, &st, side, req, evict, counting);
done:
    /* Each side's own set-ups are all there is: pg_sides_tear_down() takes
     * those. */
    if (st.p && st.p->teardown && st.own)
        for (c = spec.ncases; c-- > 0;)
            pg_sides_tear_down_one(&ctx, st.p, st.own[c][side].state, side, c);
    if (counting)
        pg_counter_close(counting);
    free(st.targets);
    free(evict);
    pg_str_clear(&why);
    return 0;
}

/*
 * The problem's default cases, for perfgate to check a config against, and
 * for each of `cases` ("k=v,k=v;k=v", or NULL) the bytes one call moves,
 * as the problem's bytes() says: "bytes INDEX VALUE".
 */
static int describe_main(const char *lib, const char *name, const char *cases,
                         int fd)
{
    pg_plugin plugin;
    pg_casespec *specs = NULL;
    size_t nspecs = 0, i;
    int err;

    if (pg_plugin_load(&plugin, lib, name) < 0) {
        err = pg_proc_send(fd, NULL, PG_EV_ERROR_FMT, pg_error_last());
    } else {
        const pg_problem *p = plugin.problem;
        err = pg_proc_send(fd, NULL, PG_EV_CASES_FMT, p->default_cases);
        if (p->device_cases)
            err |= pg_proc_send(fd, NULL, PG_EV_DEVICE_FMT, p->device_cases);
        if (cases && p->bytes &&
            pg_casespecs_parse(&specs, &nspecs, cases) == 0)
            for (i = 0; i < nspecs; i++) {
                pg_case c;
                pg_plugin_case_init(&c, name, &specs[i], NULL);
                err |= pg_proc_send(fd, NULL, PG_EV_BYTES_FMT, i, p->bytes(&c));
                pg_plugin_case_clear(&c);
            }
    }
    for (i = 0; i < nspecs; i++)
        pg_casespec_clear(&specs[i]);
    free(specs);
    return err < 0;
}

/* The descriptor perfgate passed as `fd`, if it did. */
static int inherited(int fd)
{
    return fcntl(fd, F_GETFD) >= 0;
}

/* The watch perfgate shares (fd 4), or private memory when run by hand. */
static pg_watch *map_watch(void)
{
    struct stat st;
    void *p;

    if (inherited(WATCH_FD) && fstat(WATCH_FD, &st) == 0 &&
        (size_t)st.st_size >= sizeof(pg_watch)) {
        p = mmap(NULL, sizeof(pg_watch), PROT_READ | PROT_WRITE, MAP_SHARED,
                 WATCH_FD, 0);
        /* The mapping is what is shared: user code writing to fd 4 must
         * not reach it. */
        close(WATCH_FD);
    } else
        p = mmap(NULL, sizeof(pg_watch), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/*
 * Moves the report channel from fd 3, where perfgate passed it, to a
 * descriptor picked at random among high ones: user code that writes to fd
 * 3 (or to the first descriptors it did not open) writes to nothing.
 */
static int hide_channel(int fd)
{
    struct timespec ts;
    int high;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    high =
        fcntl(fd, F_DUPFD_CLOEXEC,
              512 + (int)(((unsigned)ts.tv_nsec ^ (unsigned)getpid()) % 384));
    if (high < 0)
        return fd;
    close(fd);
    return high;
}

/* A crash in the user's code ends this process with its signal, for
 * perfgate to name, even where a sanitizer runtime installed a handler. */
static void default_signals(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS,  SIGFPE,
                               SIGILL,  SIGABRT, SIGTRAP};
    size_t i;

    for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        signal(sigs[i], SIG_DFL);
}

/*
 * glibc's malloc gives the top of its heap back to the system once
 * M_TRIM_THRESHOLD of it is free, and maps a block of its own for a request
 * of M_MMAP_THRESHOLD or more; both start at 128 KiB and rise as the process
 * frees mapped blocks.  So whether a call that allocates and frees its state
 * (a one-shot API: zlib's compress2) gets its memory back from the heap or
 * grows the heap, faults it in and trims it again on every call was decided
 * by what ran before it in the process: the harness, the other side, the
 * process's luck.  Fixed at the highest values glibc's own adjustment
 * reaches (32 MiB, twice that), every process and both sides run in the
 * regime a long-running program settles into (docs/measuring.md).
 */
static void settle_allocator(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

int main(int argc, char **argv)
{
    int fd = inherited(MSG_FD) ? MSG_FD : 1;
    int req = inherited(PG_PROC_REQUEST_FD) ? PG_PROC_REQUEST_FD : 0;
    pg_run_file file;
    pg_watch *watch;
    int err, side = -1;

    default_signals();
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "--version")) {
        printf("perfgate-measure %s\n", PG_VERSION);
        return 0;
    }
    if ((argc == 4 || argc == 5) && !strcmp(argv[1], "--describe"))
        return describe_main(argv[2], argv[3], argc == 5 ? argv[4] : NULL, fd);
    if (argc == 4 && !strcmp(argv[1], "--side") &&
        (!strcmp(argv[2], "0") || !strcmp(argv[2], "1")))
        side = argv[2][0] - '0';
    else if (argc != 2 || argv[1][0] == '-') {
        fputs(usage_text, stderr);
        return 2;
    }
    settle_allocator();
    if (!(watch = map_watch())) {
        fprintf(stderr, "perfgate-measure: cannot map memory: %s\n",
                strerror(errno));
        return 3;
    }
    memset(watch, 0, sizeof(*watch));
    watch->side = -1;
    if ((err = pg_run_file_read(&file, argv[side < 0 ? 1 : 3])) < 0) {
        fprintf(stderr, "perfgate-measure: %s\n", pg_error_last());
        pg_run_file_clear(&file);
        return 2;
    }
    if (fd == MSG_FD) {
        fd = hide_channel(fd);
        pg_proc_exit_with_reader(fd);
    }
    if (side >= 0) {
        if (req == PG_PROC_REQUEST_FD)
            req = hide_channel(req);
        err = worker_main(&file.spec, side, watch, fd, req);
    } else {
        err = measure_main(&file.spec, watch, fd);
    }
    pg_run_file_clear(&file);
    return err;
}
