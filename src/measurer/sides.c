/*
 * sides.c - the two sides in the measuring child: each side's library
 * loaded and its code placed, the cases set up (each side's own, to be
 * checked on, and the shared one both are timed on), run and verified,
 * timed interleaved, sampled or traced, the figures sent, torn down
 * (sides.h).
 */
#include "sides.h"
#include "child.h"
#include "codepath.h"
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

/* A native sample profile: how long each side is sampled, and how often. */
#define SAMPLE_SECONDS 0.5
#define SAMPLE_US 1000

/*
 * The head's output against the base's, case by case (pg_problem.compare):
 * 0, or REPORTED with the head incorrect at the first case that
 * differs.  The comparison is the problem's code, on memory both wrote.
 */
static int compare_sides(child_ctx *ctx, const pg_problem *p, pg_case *cases,
                         pg_target (*own)[2])
{
    const pg_run_spec *spec = ctx->spec;
    size_t c;

    for (c = 0; c < spec->ncases; c++) {
        pg_case *pc = &cases[c * 3 + PG_HEAD];
        int bad;

        pg_child_calling(ctx, PG_CALL_VERIFY, -1, c);
        bad = p->compare(own[c][PG_HEAD].state, own[c][PG_BASE].state, pc);
        pg_child_called_out(ctx);
        pg_child_trace(ctx, "compare() on case %s, head with base: %s",
                       spec->cases[c].name,
                       bad ? pg_plugin_case_message(pc) : "the same");
        if (bad) {
            pg_child_fail(
                ctx, "incorrect", PG_HEAD, "case %s: %s", spec->cases[c].name,
                *pg_plugin_case_message(pc) ? pg_plugin_case_message(pc)
                                            : "differs from the base's output");
            return REPORTED;
        }
    }
    return 0;
}

/*
 * Runs each side present (head first) once on every case, on its own
 * set-up, and checks it.  Both sides are checked whatever happens to the
 * other; a failure is reported for the head when the head has one (that is
 * what the gate decides on), saying when the base failed too.  A head
 * found right is said at once ("verified head"), so that perfgate knows it
 * even if the base then crashes the process.  0, or REPORTED.
 */
int pg_sides_verify(child_ctx *ctx, const pg_problem *p, pg_case *cases,
                    pg_target (*own)[2], const char *when)
{
    const pg_run_spec *spec = ctx->spec;
    pg_str why[2] = {PG_STR_INIT, PG_STR_INIT};
    size_t c;
    int side, failed = -1;
    /* Each side was run once on its own set-up: only now are their
     * outputs those of the same calls (after timing, a side that was
     * timed on its own set-up has run it more often than the other). */
    int compared = p->compare && spec->lib[0] && spec->lib[1] && !*when;

    for (side = 1; side >= 0; side--) {
        if (!spec->lib[side])
            continue;
        for (c = 0; c < spec->ncases && !why[side].size; c++) {
            pg_case *pc = &cases[c * 3 + (size_t)side];
            const char *msg;
            int bad;
            pg_child_calling(ctx, PG_CALL_RUN, side, c);
            p->run(own[c][side].state, own[c][side].fn);
            if (ctx->gpu)
                pg_gpu_check(ctx->gpu);
            pg_child_calling(ctx, PG_CALL_VERIFY, side, c);
            bad = p->verify(own[c][side].state, pc) != 0;
            pg_child_called_out(ctx);
            if (bad) {
                msg = pg_plugin_case_message(pc);
                pg_str_printf(&why[side], "case %s%s: %s", spec->cases[c].name,
                              when, *msg ? msg : "wrong output");
            }
            pg_child_trace(ctx, "run() and verify() on case %s%s, %s side: %s",
                           spec->cases[c].name, when, pg_child_side_names[side],
                           bad ? pg_str_cstr(&why[side]) : "right");
        }
        /* Said once compared with the base, where it is. */
        if (side == PG_HEAD && !why[side].size && !compared)
            pg_child_send(ctx, PG_EV_VERIFIED " " PG_EV_VERIFIED_HEAD);
        if (why[side].size && failed < 0)
            failed = side;
    }
    if (compared && failed < 0 && compare_sides(ctx, p, cases, own))
        return REPORTED;
    if (compared && failed < 0)
        pg_child_send(ctx, PG_EV_VERIFIED " " PG_EV_VERIFIED_HEAD);
    if (failed == PG_HEAD && why[PG_BASE].size)
        pg_child_fail(ctx, "incorrect", PG_HEAD,
                      "%s (the base side is "
                      "incorrect too: %s)",
                      pg_str_cstr(&why[PG_HEAD]), pg_str_cstr(&why[PG_BASE]));
    else if (failed >= 0)
        pg_child_fail(ctx, "incorrect", failed, "%s",
                      pg_str_cstr(&why[failed]));
    pg_str_clear(&why[0]);
    pg_str_clear(&why[1]);
    return failed >= 0 ? REPORTED : 0;
}

/* The device reported an error: the side that was running caused it, and
 * the context is lost, so the child ends here. */
static void on_gpu_error(void *payload, const char *message)
{
    child_ctx *ctx = payload;
    int side = ctx->watch->side;

    pg_child_fail(ctx, "crashed", side, "%s%s%s",
                  side < 0 ? "" : pg_child_side_names[side],
                  side < 0 ? "" : " side: ", message);
    _exit(0);
}

/*
 * The side a set-up, or a teardown, is charged to: the side's own when the
 * problem's set-up calls the side's code (side_setup), else nobody's but
 * the problem's, which is the same code for both sides.
 */
static int setup_side(const pg_problem *p, int side)
{
    return p->side_setup ? side : -1;
}

/* Sets up one case into `pc` (`role` says which set-up, for -v); NULL
 * after reporting, blamed on `side` (or on the problem). */
static void *set_up(child_ctx *ctx, const pg_problem *p, pg_case *pc,
                    size_t index, int side, const char *role)
{
    void *state;

    pg_child_trace(ctx, "setup() on case %s: %s", ctx->spec->cases[index].name,
                   role);
    side = setup_side(p, side);
    pg_child_calling(ctx, PG_CALL_SETUP, side, index);
    state = p->setup(pc);
    pg_child_called_out(ctx);
    if (!state)
        pg_child_fail(ctx, "crashed", side,
                      "problem %s: setup() failed on case %s: %s",
                      ctx->spec->problem_name, ctx->spec->cases[index].name,
                      *pg_plugin_case_message(pc) ? pg_plugin_case_message(pc)
                                                  : "it returned NULL");
    return state;
}

/*
 * Copies of a side's library, each loaded anew from its own memfd, so that
 * the loader maps the same code at other addresses.  Where code lies
 * (branch predictor and cache sets it shares with the harness, pages it
 * crosses) is a steady difference between two loaded libraries that
 * interleaving cannot cancel; the rounds take the copies in turn, and each
 * side's minimum is then its best over several placements rather than the
 * luck of one.  placed[0] is the library as loaded.  Returns how many
 * placements there are: fewer than PLACEMENTS where a copy cannot be made
 * (no /proc, a library that needs static TLS) or would pass
 * PLACEMENT_BYTES.
 */
static size_t place_copies(const char *path, const char *symbol, pg_fn *placed)
{
    int src = open(path, O_RDONLY | O_CLOEXEC);
    size_t n = 1, want = PLACEMENTS;
    struct stat st;

    /* The copies live in memory: a large library gets fewer. */
    if (src >= 0 && fstat(src, &st) == 0 && st.st_size > 0 &&
        (size_t)st.st_size * (want - 1) > PLACEMENT_BYTES)
        want = 1 + PLACEMENT_BYTES / (size_t)st.st_size;
    /* Each copy keeps its descriptor for good: the loader knows a library
     * by its name, and a reused /proc/self/fd/N would be taken for the
     * copy loaded under it before, whichever side's that was. */
    while (src >= 0 && n < want) {
        int fd;
        char buf[65536], name[64];
        ssize_t got = 0;
        void *h;

        if ((fd = memfd_create("perfgate-placement", MFD_CLOEXEC)) < 0)
            break;
        if (lseek(src, 0, SEEK_SET) < 0)
            got = -1;
        while (got == 0 && (got = read(src, buf, sizeof(buf))) > 0)
            got = write(fd, buf, (size_t)got) == got ? 0 : -1;
        snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
        /* A library the loader already has under this name would be given
         * back, maybe the other side's: never time one side's code as the
         * other's. */
        if ((h = dlopen(name, RTLD_NOW | RTLD_NOLOAD))) {
            close(fd);
            break;
        }
        h = got == 0 ? dlopen(name, RTLD_NOW | RTLD_LOCAL) : NULL;
        if (!h || !(*(void **)&placed[n] = pg_elf_symbol(h, symbol))) {
            close(fd);
            break;
        }
        n++;
    }
    if (src >= 0)
        close(src);
    return n;
}

/*
 * Cold on the device, a batch of calls rotates through identical set-ups
 * of the case, so that no call finds the one before it in the L2.  0, or
 * REPORTED.
 */
static int set_up_copies(child_ctx *ctx, const pg_problem *p, pg_target *t,
                         pg_case *first, size_t index, int side)
{
    const pg_run_spec *spec = ctx->spec;
    size_t n = pg_gpu_copies(ctx->gpu, first->solution_bytes, spec->ncases);
    size_t i;

    if (n < 2)
        return 0;
    t->copies = pg_calloc(n, sizeof(*t->copies));
    t->copies[0] = t->state;
    for (i = 1; i < n; i++) {
        pg_case *pc = pg_calloc(1, sizeof(*pc));
        pg_plugin_case_init(pc, p->name, &spec->cases[index],
                            pg_gpu_memory(ctx->gpu));
        pc->lib = first->lib;
        pc->side = first->side;
        if (!(t->copies[i] = set_up(ctx, p, pc, index, side,
                                    "a copy, for batches that run cold")))
            return REPORTED;
    }
    t->ncopies = n;
    return 0;
}

/*
 * Loads each side's library (head first: when a case cannot even be set
 * up, the head is blamed) and finds its solution, places its copies, and
 * opens the GPU.  0, or REPORTED.
 */
int pg_sides_load(child_ctx *ctx, sides *st)
{
    const pg_run_spec *spec = ctx->spec;
    int side;

    /* Each library alone (RTLD_LOCAL): neither binds the other's names. */
    for (side = 1; side >= 0; side--) {
        if (!spec->lib[side])
            continue;
        /* Loading runs the library's constructors: the side's code. */
        pg_child_calling(ctx, PG_CALL_LOAD, side, (size_t)-1);
        st->lib = dlopen(spec->lib[side], RTLD_NOW | RTLD_LOCAL);
        st->handle[side] = st->lib;
        pg_child_called_out(ctx);
        if (!st->lib)
            return pg_child_fail(ctx, "build_failed", side, "cannot load: %s",
                                 dlerror());
        pg_child_trace(ctx, "%s side: loaded %s", pg_child_side_names[side],
                       spec->lib[side]);
        if (!(*(void **)&st->syms[side] = pg_elf_symbol(st->lib, spec->symbol)))
            return pg_child_fail(ctx, "build_failed", side,
                                 "no function '%s' in the sources; set "
                                 "'symbol' in perfgate.yml to the function's "
                                 "name",
                                 spec->symbol);
    }
    /* A GPU's time is the kernel's, not the host code's around it; a
     * count is the same wherever the code lies, and is taken where it was
     * loaded, so that it is the same in every run. */
    for (side = 0; side < 2 && !spec->gpu && !spec->metric &&
                   !spec->verify_only && !spec->sample && !spec->memory;
         side++)
        if (spec->lib[side]) {
            st->placed[side][0] = st->syms[side];
            pg_child_calling(ctx, PG_CALL_LOAD, side, (size_t)-1);
            st->nplaced[side] =
                place_copies(spec->lib[side], spec->symbol, st->placed[side]);
            pg_child_called_out(ctx);
            pg_child_trace(
                ctx,
                "%s side: %s() at %zu addresses (copies of its library, "
                "taken in turn by the rounds)",
                pg_child_side_names[side], spec->symbol, st->nplaced[side]);
        }
    if (spec->gpu) {
        pg_str why = PG_STR_INIT;
        /* Both sides link the same runtime: either library finds it. */
        if (!(ctx->gpu = pg_gpu_open(st->lib, on_gpu_error, ctx, &why)))
            return pg_child_fail(ctx, "crashed", -1, "cannot use the GPU: %s",
                                 pg_str_cstr(&why));
        st->memory = pg_gpu_memory(ctx->gpu);
    }
    return 0;
}

/* Each side's own set-up of every case, to be verified on.  0, or 1 when
 * a failure was reported. */
int pg_sides_set_up_own(child_ctx *ctx, sides *st)
{
    const pg_run_spec *spec = ctx->spec;
    size_t c;
    int side;

    for (side = 1; side >= 0; side--) {
        if (!spec->lib[side])
            continue;
        for (c = 0; c < spec->ncases; c++) {
            pg_case *pc = &st->cases[c * 3 + (size_t)side];
            pg_plugin_case_init(pc, st->p->name, &spec->cases[c], st->memory);
            pc->lib = st->handle[side];
            pc->side = pg_child_side_names[side];
            st->own[c][side].problem = st->p;
            st->own[c][side].fn = st->syms[side];
            if (!(st->own[c][side].state =
                      set_up(ctx, st->p, pc, c, side,
                             side ? "the head's own, to check it on"
                                  : "the base's own, to check it on")))
                return REPORTED;
        }
    }
    return 0;
}

/* Target k of case c: side order[k]'s function, on `state`. */
static void aim(sides *st, size_t c, int k, const pg_target *on)
{
    int side = st->order[k];

    st->targets[c][k] = *on;
    st->targets[c][k].fn = st->syms[side];
    if (st->nplaced[side] > 1) {
        st->targets[c][k].placed = st->placed[side];
        st->targets[c][k].nplaced = st->nplaced[side];
    }
}

/*
 * A problem whose set-up calls the side's own code (side_setup): each
 * side is timed on its own set-up, which is also what it is checked on.
 * 0, or REPORTED.
 */
static int use_own(child_ctx *ctx, sides *st)
{
    size_t c;
    int k;

    for (c = 0; c < ctx->spec->ncases; c++)
        for (k = 0; k < st->n; k++) {
            int side = st->order[k];
            aim(st, c, k, &st->own[c][side]);
            if (ctx->gpu && ctx->spec->cold &&
                set_up_copies(ctx, st->p, &st->targets[c][k],
                              &st->cases[c * 3 + (size_t)side], c, side))
                return REPORTED;
        }
    return 0;
}

/*
 * Both sides are timed on the same memory: a third set-up of each case,
 * which both call in turn.  Apart, each side's arrays would sit at their
 * own addresses and on their own physical pages, and how they fall
 * against each other (4 KiB aliasing, cache sets, DRAM banks) would be a
 * steady difference that interleaving cannot cancel.  The sides' own
 * set-ups stay theirs, to be checked on.  0, or REPORTED.
 */
int pg_sides_set_up_shared(child_ctx *ctx, sides *st)
{
    const pg_run_spec *spec = ctx->spec;
    size_t c;
    int k;

    for (k = 1; k >= 0; k--)
        if (spec->lib[k])
            st->order[st->n++] = k;
    if (st->n == 2) {
        st->order[0] = PG_BASE;
        st->order[1] = PG_HEAD;
    }
    if (st->p->side_setup)
        return use_own(ctx, st);
    for (c = 0; c < spec->ncases; c++) {
        pg_case *pc = &st->cases[c * 3 + 2];
        pg_target shared;
        pg_plugin_case_init(pc, st->p->name, &spec->cases[c], st->memory);
        memset(&shared, 0, sizeof(shared));
        shared.problem = st->p;
        if (!(shared.state = set_up(ctx, st->p, pc, c, -1,
                                    "the one both sides are timed on")))
            return REPORTED;
        if (ctx->gpu && spec->cold &&
            set_up_copies(ctx, st->p, &shared, pc, c, -1))
            return REPORTED;
        for (k = 0; k < st->n; k++)
            aim(st, c, k, &shared);
    }
    return 0;
}

/* The CPU features the code sees here: "cpu FEATURES". */
static void send_features(child_ctx *ctx)
{
    pg_str f = PG_STR_INIT;

    pg_cpu_features(&f);
    pg_child_send(ctx, PG_EV_CPU_FMT, pg_str_cstr(&f));
    pg_str_clear(&f);
}

/*
 * What each side executed under callgrind, every case once, dumped per
 * side to count_dump.pathN; a side that cannot be dumped is left out (and
 * perfgate says its path was not checked).
 */
void pg_sides_trace(child_ctx *ctx, sides *st, pg_counter *counter)
{
    const pg_run_spec *spec = ctx->spec;
    const pg_target **t = pg_calloc(spec->ncases, sizeof(*t));
    size_t c;
    int k;

    send_features(ctx);
    for (k = 0; k < st->n; k++) {
        char *path = pg_strdupf("%s.path%d", spec->count_dump, st->order[k]);
        for (c = 0; c < spec->ncases; c++)
            t[c] = &st->targets[c][k];
        pg_child_calling(ctx, PG_CALL_RUN, st->order[k], (size_t)-1);
        if (pg_counter_trace(counter, t, spec->ncases, path) < 0)
            pg_child_trace(ctx, "%s side: its code path could not be dumped",
                           pg_child_side_names[st->order[k]]);
        pg_child_called_out(ctx);
        free(path);
    }
    free(t);
}

/*
 * Natively, where each side's calls spend their time: every case in turn
 * for SAMPLE_SECONDS (at least once), sampled every SAMPLE_US, into the
 * spec's sample file.  0, or REPORTED.
 */
int pg_sides_sample(child_ctx *ctx, sides *st)
{
    const pg_run_spec *spec = ctx->spec;
    pg_str why = PG_STR_INIT;
    FILE *f = fopen(spec->sample, "w");
    size_t c;
    long n;
    int k, err = 0;

    send_features(ctx);
    if (!f)
        return pg_child_fail(ctx, "skipped", -1, "cannot write %s: %s",
                             spec->sample, strerror(errno));
    for (k = 0; k < st->n && !err; k++) {
        int side = st->order[k];
        int64_t start = pg_now_ns();
        pg_thread_time spent;
        pg_thread_time_start(&spent);
        if (pg_sampler_start(SAMPLE_US, &why) < 0) {
            fprintf(f, "# %s\n", pg_str_cstr(&why));
            break;
        }
        do
            for (c = 0; c < spec->ncases; c++) {
                const pg_target *t = &st->targets[c][k];
                pg_child_calling(ctx, PG_CALL_RUN, side, c);
                t->problem->run(t->state, t->fn);
                pg_child_called_out(ctx);
            }
        while (pg_now_ns() - start < (int64_t)(SAMPLE_SECONDS * 1e9));
        pg_sampler_stop();
        pg_thread_time_since(&spent);
        pg_thread_time_write(f, side, &spent);
        n = pg_sampler_write(f, side);
        if (n < 0)
            fprintf(f, "# some samples were lost\n");
        pg_child_trace(ctx,
                       "%s side: %ld samples of where its calls run, natively",
                       pg_child_side_names[side], n);
    }
    pg_str_clear(&why);
    if (fclose(f) != 0)
        err =
            pg_child_fail(ctx, "skipped", -1, "cannot write %s", spec->sample);
    return err;
}

/* Times the shared set-ups, interleaved (or counts them: the counter is
 * a clock whose time is the count).  0, or REPORTED. */
int pg_sides_time(child_ctx *ctx, sides *st, pg_timing *timing,
                  pg_measure_summary *summary)
{
    const pg_run_spec *spec = ctx->spec;
    pg_measure_opts opts;
    pg_counter counter;
    pg_str why = PG_STR_INIT;
    int failed;

    pg_measure_opts_init(&opts, spec->settings->min_rounds,
                         spec->settings->max_time, spec->settings->noise_floor);
    pg_run_spec_rule(spec, &opts.rule);
    opts.watch = ctx->watch;
    opts.sides = st->order;
    if (spec->metric) {
        if (pg_counter_open(&counter, (pg_counter_kind)spec->counter,
                            (pg_metric)spec->metric, spec->count_dump,
                            &why) < 0) {
            pg_child_fail(ctx, "skipped", -1, "not counted: %s (%s)",
                          pg_str_cstr(&why), pg_counter_name(spec->counter));
            pg_str_clear(&why);
            return REPORTED;
        }
        pg_child_trace(ctx, "counting %s with %s", pg_metric_name(spec->metric),
                       pg_counter_name(spec->counter));
        opts.device = &counter.clock;
        opts.jitter = 0; /* a count does not move with where code lies */
    } else if (ctx->gpu) {
        /* To its working clocks first, then measured as any other. */
        pg_child_send(ctx, PG_EV_PROGRESS_FMT, "warming", 0, 0.0);
        pg_gpu_warm_up(ctx->gpu, st->targets, spec->ncases, st->order, st->n,
                       0.2, ctx->watch);
        opts.device = pg_gpu_clock(ctx->gpu);
        opts.device_cold = spec->cold;
    } else {
        opts.evict_bytes = spec->evict_bytes;
    }
    opts.on_round = pg_child_on_round;
    opts.payload = ctx;
    opts.keep_samples = &ctx->samples;
    ctx->last_progress = 0;
    pg_measure(timing, summary, st->targets, spec->ncases, st->n, &opts);
    if (!spec->metric)
        return 0;
    failed = counter.error.size > 0;
    if (failed)
        pg_child_fail(ctx, "skipped", -1, "not counted: %s",
                      pg_str_cstr(&counter.error));
    else if (spec->code_path)
        pg_sides_trace(ctx, st, &counter);
    pg_counter_close(&counter);
    return failed;
}

/* Every sample, in round order, for pictures: "samples CASE SIDE FIRST
 * NS NS ..." (raw time per call), a line per 64 of them. */
static void send_samples(child_ctx *ctx, const sides *st, int rounds)
{
    size_t c, ncases = ctx->spec->ncases;
    int k, r, i;

    for (c = 0; c < ncases && ctx->samples; c++)
        for (k = 0; k < st->n; k++)
            for (r = 0; r < rounds; r += PG_EV_SAMPLES_PER_LINE) {
                pg_str line = PG_STR_INIT;
                pg_str_printf(&line, PG_EV_SAMPLES_FMT, c, st->order[k], r);
                for (i = r; i < rounds && i < r + PG_EV_SAMPLES_PER_LINE; i++)
                    pg_str_printf(
                        &line, " %.6g",
                        ctx->samples[((size_t)i * ncases + c) * 2 + (size_t)k]);
                pg_child_send(ctx, "%s", pg_str_cstr(&line));
                pg_str_clear(&line);
            }
}

void pg_sides_work(child_ctx *ctx, const pg_problem *p, const pg_case *pc,
                   size_t c, double *flops, double *bytes)
{
    if (p->flops) {
        pg_child_calling(ctx, PG_CALL_FLOPS, -1, c);
        *flops = p->flops(pc);
    }
    if (p->bytes) {
        pg_child_calling(ctx, PG_CALL_BYTES, -1, c);
        *bytes = p->bytes(pc);
    }
    pg_child_called_out(ctx);
}

/* The figures, to perfgate: "case" per case, "samples", "gpu", then
 * "done". */
void pg_sides_send_figures(child_ctx *ctx, const sides *st,
                           const pg_timing *timing,
                           const pg_measure_summary *summary)
{
    unsigned long long calls[2] = {0, 0};
    size_t c;
    int k;

    for (c = 0; c < ctx->spec->ncases; c++) {
        /* The case as the timed set-up saw it; a problem that sets up each
         * side on its own has no shared one, and its sides' cases have the
         * same parameters. */
        const pg_case *pc =
            &st->cases[c * 3 + (st->p->side_setup ? (size_t)st->order[0] : 2)];
        double ns[2] = {NAN, NAN}, flops = 0, bytes = 0;
        for (k = 0; k < st->n; k++)
            ns[st->order[k]] = timing[c].ns[k];
        pg_sides_work(ctx, st->p, pc, c, &flops, &bytes);
        if (ctx->spec->verbose) {
            pg_str t = PG_STR_INIT;
            pg_str_printf(&t,
                          "case %s: %llu call%s per sample, %llu samples "
                          "per side; the harness's own ",
                          ctx->spec->cases[c].name,
                          (unsigned long long)timing[c].inner,
                          timing[c].inner == 1 ? "" : "s",
                          (unsigned long long)timing[c].samples);
            pg_format_ns(&t, timing[c].overhead_ns);
            pg_str_puts(&t, " a call discounted; best per call: base ");
            pg_format_ns(&t, ns[0]);
            pg_str_puts(&t, ", head ");
            pg_format_ns(&t, ns[1]);
            pg_str_printf(&t, "; flops() %.6g, bytes() %.6g", flops, bytes);
            pg_child_trace(ctx, "%s", pg_str_cstr(&t));
            pg_str_clear(&t);
        }
        pg_child_send(
            ctx, PG_EV_CASE_FMT, c, ns[0], ns[1], timing[c].overhead_ns,
            (unsigned long long)timing[c].inner, flops, bytes,
            timing[c].change.lo, timing[c].change.hi, timing[c].quantum_ns);
    }
    pg_child_send(ctx, PG_EV_PLACED_FMT, summary->slots, summary->shift);
    pg_child_trace(ctx, "%d rounds in %.3f s, stopped: %s", summary->rounds,
                   summary->seconds, pg_estimate_stop_name(summary->stop));
    send_samples(ctx, st, summary->rounds);
    for (k = 0; k < st->n; k++)
        calls[st->order[k]] = (unsigned long long)summary->calls[k];
    if (ctx->gpu) {
        pg_gpu_stats g;
        pg_gpu_get_stats(&g, ctx->gpu);
        pg_child_send(
            ctx, PG_EV_GPU_FMT, g.runtime_version,
            (unsigned long long)g.samples, (unsigned long long)g.throttled,
            (unsigned long long)g.kept_throttled, g.clock_mhz, g.gated);
    }
    pg_child_send(ctx, PG_EV_DONE_FMT, summary->rounds, calls[0], calls[1],
                  summary->seconds, summary->change.change, summary->change.lo,
                  summary->change.hi, pg_estimate_stop_name(summary->stop));
}

/* teardown(state), named as the problem's call on case `c`. */
void pg_sides_tear_down_one(child_ctx *ctx, const pg_problem *p, void *state,
                            int side, size_t c)
{
    if (!state)
        return;
    pg_child_trace(ctx, "teardown() on case %s", ctx->spec->cases[c].name);
    pg_child_calling(ctx, PG_CALL_TEARDOWN, setup_side(p, side), c);
    p->teardown(state);
    pg_child_called_out(ctx);
}

/*
 * The problem's teardown() for every set-up there is, the last made first:
 * the copies and the shared set-up both sides were timed on, then each
 * side's own.  (Memory from pg_alloc() is perfgate's, and the process
 * ends next: teardown() is for what the problem took elsewhere.)
 */
void pg_sides_tear_down(child_ctx *ctx, const sides *st)
{
    const pg_problem *p = st->p;
    size_t c, i;
    int k, side;

    if (!p || !p->teardown || !st->targets || !st->own)
        return;
    for (c = ctx->spec->ncases; c-- > 0;) {
        /* On the shared set-up every target holds the same state and
         * copies; under side_setup each holds its side's own copies. */
        for (k = p->side_setup ? st->n - 1 : 0; k >= 0; k--) {
            const pg_target *t = &st->targets[c][k];
            for (i = t->ncopies; i-- > 1;)
                pg_sides_tear_down_one(ctx, p, t->copies[i], st->order[k], c);
            if (!p->side_setup)
                pg_sides_tear_down_one(ctx, p, t->state, -1, c);
        }
        for (side = 0; side < 2; side++)
            pg_sides_tear_down_one(ctx, p, st->own[c][side].state, side, c);
    }
}
