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
 * problems.c read them).
 * Which side is running user code, and since when, is in the pg_watch that
 * perfgate shares as fd 4, so that a hang or a crash is charged to the
 * right side even when this process can say nothing.  Run by hand, without
 * those descriptors, it writes the events to stdout.
 */
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

enum { MSG_FD = 3, WATCH_FD = 4 };

/* How many places each side's code is timed at, and the most memory its
 * copies may take (place_copies). */
enum { PLACEMENTS = PG_PLACEMENTS_MOST, PLACEMENT_BYTES = 64 << 20 };

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

static const char *const side_names[2] = {"base", "head"};

/* A native sample profile: how long each side is sampled, and how often. */
#define SAMPLE_SECONDS 0.5
#define SAMPLE_US 1000

typedef struct child_ctx {
    const pg_run_spec *spec;
    pg_watch *watch;
    int fd;
    int64_t last_progress;
    pg_gpu *gpu;     /* CUDA solutions; else NULL */
    double *samples; /* pg_measure_opts.keep_samples */
} child_ctx;

static void send_line(child_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void send_line(child_ctx *ctx, const char *fmt, ...)
{
    pg_str s = PG_STR_INIT;
    va_list ap;

    va_start(ap, fmt);
    pg_str_vprintf(&s, fmt, ap);
    va_end(ap);
    pg_proc_send(ctx->fd, ctx->spec->token, "%s", pg_str_cstr(&s));
    pg_str_clear(&s);
}

/*
 * What a step returns when it has reported a failure to perfgate (the
 * child's one convention): the run stops there, and each caller passes
 * REPORTED up as it is.  0: the step went on.
 */
#define REPORTED 1

/* Reports a failure (STATUS, the side it belongs to, why) to perfgate;
 * returns REPORTED, for the caller to pass up. */
static int child_fail(child_ctx *ctx, const char *status, int side,
                      const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int child_fail(child_ctx *ctx, const char *status, int side,
                      const char *fmt, ...)
{
    pg_str msg = PG_STR_INIT;
    va_list ap;

    va_start(ap, fmt);
    pg_str_vprintf(&msg, fmt, ap);
    va_end(ap);
    send_line(ctx, PG_EV_FAIL_FMT, status, side < 0 ? "-" : side_names[side],
              pg_str_cstr(&msg));
    pg_str_clear(&msg);
    return REPORTED;
}

static void trace(child_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Under compare -v: a step, said as a "trace" event. */
static void trace(child_ctx *ctx, const char *fmt, ...)
{
    pg_str msg = PG_STR_INIT;
    va_list ap;

    if (!ctx->spec->verbose)
        return;
    va_start(ap, fmt);
    pg_str_vprintf(&msg, fmt, ap);
    va_end(ap);
    send_line(ctx, PG_EV_TRACE_FMT, pg_str_cstr(&msg));
    pg_str_clear(&msg);
}

/*
 * Marks a call into the problem or a side's code (pg_watch): `side` is
 * the side whose code it may run (-1: the problem's alone), `index` the
 * case (-1: none).  A crash or hang until called_out() is named by it.
 */
static void calling(child_ctx *ctx, pg_call call, int side, size_t index)
{
    pg_watch_call(ctx->watch, call, index == (size_t)-1 ? -1 : (int)index);
    pg_watch_enter(ctx->watch, side);
}

static void called_out(child_ctx *ctx)
{
    pg_watch_leave(ctx->watch);
    pg_watch_call(ctx->watch, PG_CALL_NONE, -1);
}

static void on_round(void *payload, int round, double elapsed)
{
    child_ctx *ctx = payload;
    int64_t now = pg_now_ns();

    if (now - ctx->last_progress < 100000000)
        return;
    ctx->last_progress = now;
    send_line(ctx, PG_EV_PROGRESS_FMT, "measuring", round, elapsed);
}

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

        calling(ctx, PG_CALL_VERIFY, -1, c);
        bad = p->compare(own[c][PG_HEAD].state, own[c][PG_BASE].state, pc);
        called_out(ctx);
        trace(ctx, "compare() on case %s, head with base: %s",
              spec->cases[c].name,
              bad ? pg_plugin_case_message(pc) : "the same");
        if (bad) {
            child_fail(
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
static int verify_sides(child_ctx *ctx, const pg_problem *p, pg_case *cases,
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
            calling(ctx, PG_CALL_RUN, side, c);
            p->run(own[c][side].state, own[c][side].fn);
            if (ctx->gpu)
                pg_gpu_check(ctx->gpu);
            calling(ctx, PG_CALL_VERIFY, side, c);
            bad = p->verify(own[c][side].state, pc) != 0;
            called_out(ctx);
            if (bad) {
                msg = pg_plugin_case_message(pc);
                pg_str_printf(&why[side], "case %s%s: %s", spec->cases[c].name,
                              when, *msg ? msg : "wrong output");
            }
            trace(ctx, "run() and verify() on case %s%s, %s side: %s",
                  spec->cases[c].name, when, side_names[side],
                  bad ? pg_str_cstr(&why[side]) : "right");
        }
        /* Said once compared with the base, where it is. */
        if (side == PG_HEAD && !why[side].size && !compared)
            send_line(ctx, PG_EV_VERIFIED " " PG_EV_VERIFIED_HEAD);
        if (why[side].size && failed < 0)
            failed = side;
    }
    if (compared && failed < 0 && compare_sides(ctx, p, cases, own))
        return REPORTED;
    if (compared && failed < 0)
        send_line(ctx, PG_EV_VERIFIED " " PG_EV_VERIFIED_HEAD);
    if (failed == PG_HEAD && why[PG_BASE].size)
        child_fail(ctx, "incorrect", PG_HEAD,
                   "%s (the base side is "
                   "incorrect too: %s)",
                   pg_str_cstr(&why[PG_HEAD]), pg_str_cstr(&why[PG_BASE]));
    else if (failed >= 0)
        child_fail(ctx, "incorrect", failed, "%s", pg_str_cstr(&why[failed]));
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

    child_fail(ctx, "crashed", side, "%s%s%s", side < 0 ? "" : side_names[side],
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

    trace(ctx, "setup() on case %s: %s", ctx->spec->cases[index].name, role);
    side = setup_side(p, side);
    calling(ctx, PG_CALL_SETUP, side, index);
    state = p->setup(pc);
    called_out(ctx);
    if (!state)
        child_fail(ctx, "crashed", side,
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

/* What one measuring run loads and sets up, side by side. */
typedef struct sides {
    const pg_problem *p;
    void *lib;                   /* the last library loaded */
    void *handle[2];             /* each side's */
    pg_fn syms[2];               /* each side's solution */
    pg_fn placed[2][PLACEMENTS]; /* and its copies at other addresses */
    size_t nplaced[2];
    const pg_memory_ops *memory; /* the device's, or NULL: the host's */
    pg_case *cases;              /* [case][base, head, shared] */
    pg_target (*own)[2];         /* each side on its own set-up */
    pg_target (*targets)[2];     /* both timed on the shared set-up */
    int order[2];                /* the side of each target index */
    int n;                       /* sides measured */
} sides;

/*
 * Loads each side's library (head first: when a case cannot even be set
 * up, the head is blamed) and finds its solution, places its copies, and
 * opens the GPU.  0, or REPORTED.
 */
static int load_sides(child_ctx *ctx, sides *st)
{
    const pg_run_spec *spec = ctx->spec;
    int side;

    /* Each library alone (RTLD_LOCAL): neither binds the other's names. */
    for (side = 1; side >= 0; side--) {
        if (!spec->lib[side])
            continue;
        /* Loading runs the library's constructors: the side's code. */
        calling(ctx, PG_CALL_LOAD, side, (size_t)-1);
        st->lib = dlopen(spec->lib[side], RTLD_NOW | RTLD_LOCAL);
        st->handle[side] = st->lib;
        called_out(ctx);
        if (!st->lib)
            return child_fail(ctx, "build_failed", side, "cannot load: %s",
                              dlerror());
        trace(ctx, "%s side: loaded %s", side_names[side], spec->lib[side]);
        if (!(*(void **)&st->syms[side] = pg_elf_symbol(st->lib, spec->symbol)))
            return child_fail(ctx, "build_failed", side,
                              "no function '%s' in the sources; set "
                              "'symbol' in perfgate.yml to the function's "
                              "name",
                              spec->symbol);
    }
    /* A GPU's time is the kernel's, not the host code's around it; a
     * count is the same wherever the code lies, and is taken where it was
     * loaded, so that it is the same in every run. */
    for (side = 0; side < 2 && !spec->gpu && !spec->metric &&
                   !spec->verify_only && !spec->sample;
         side++)
        if (spec->lib[side]) {
            st->placed[side][0] = st->syms[side];
            calling(ctx, PG_CALL_LOAD, side, (size_t)-1);
            st->nplaced[side] =
                place_copies(spec->lib[side], spec->symbol, st->placed[side]);
            called_out(ctx);
            trace(ctx,
                  "%s side: %s() at %zu addresses (copies of its library, "
                  "taken in turn by the rounds)",
                  side_names[side], spec->symbol, st->nplaced[side]);
        }
    if (spec->gpu) {
        pg_str why = PG_STR_INIT;
        /* Both sides link the same runtime: either library finds it. */
        if (!(ctx->gpu = pg_gpu_open(st->lib, on_gpu_error, ctx, &why)))
            return child_fail(ctx, "crashed", -1, "cannot use the GPU: %s",
                              pg_str_cstr(&why));
        st->memory = pg_gpu_memory(ctx->gpu);
    }
    return 0;
}

/* Each side's own set-up of every case, to be verified on.  0, or 1 when
 * a failure was reported. */
static int set_up_own(child_ctx *ctx, sides *st)
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
            pc->side = side_names[side];
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
static int set_up_shared(child_ctx *ctx, sides *st)
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
    send_line(ctx, PG_EV_CPU_FMT, pg_str_cstr(&f));
    pg_str_clear(&f);
}

/*
 * What each side executed under callgrind, every case once, dumped per
 * side to count_dump.pathN; a side that cannot be dumped is left out (and
 * perfgate says its path was not checked).
 */
static void trace_sides(child_ctx *ctx, sides *st, pg_counter *counter)
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
        calling(ctx, PG_CALL_RUN, st->order[k], (size_t)-1);
        if (pg_counter_trace(counter, t, spec->ncases, path) < 0)
            trace(ctx, "%s side: its code path could not be dumped",
                  side_names[st->order[k]]);
        called_out(ctx);
        free(path);
    }
    free(t);
}

/*
 * Natively, where each side's calls spend their time: every case in turn
 * for SAMPLE_SECONDS (at least once), sampled every SAMPLE_US, into the
 * spec's sample file.  0, or REPORTED.
 */
static int sample_sides(child_ctx *ctx, sides *st)
{
    const pg_run_spec *spec = ctx->spec;
    pg_str why = PG_STR_INIT;
    FILE *f = fopen(spec->sample, "w");
    size_t c;
    long n;
    int k, err = 0;

    send_features(ctx);
    if (!f)
        return child_fail(ctx, "skipped", -1, "cannot write %s: %s",
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
                calling(ctx, PG_CALL_RUN, side, c);
                t->problem->run(t->state, t->fn);
                called_out(ctx);
            }
        while (pg_now_ns() - start < (int64_t)(SAMPLE_SECONDS * 1e9));
        pg_sampler_stop();
        pg_thread_time_since(&spent);
        pg_thread_time_write(f, side, &spent);
        n = pg_sampler_write(f, side);
        if (n < 0)
            fprintf(f, "# some samples were lost\n");
        trace(ctx, "%s side: %ld samples of where its calls run, natively",
              side_names[side], n);
    }
    pg_str_clear(&why);
    if (fclose(f) != 0)
        err = child_fail(ctx, "skipped", -1, "cannot write %s", spec->sample);
    return err;
}

/* Times the shared set-ups, interleaved (or counts them: the counter is
 * a clock whose time is the count).  0, or REPORTED. */
static int time_sides(child_ctx *ctx, sides *st, pg_timing *timing,
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
            child_fail(ctx, "skipped", -1, "not counted: %s (%s)",
                       pg_str_cstr(&why), pg_counter_name(spec->counter));
            pg_str_clear(&why);
            return REPORTED;
        }
        trace(ctx, "counting %s with %s", pg_metric_name(spec->metric),
              pg_counter_name(spec->counter));
        opts.device = &counter.clock;
        opts.jitter = 0; /* a count does not move with where code lies */
    } else if (ctx->gpu) {
        /* To its working clocks first, then measured as any other. */
        send_line(ctx, PG_EV_PROGRESS_FMT, "warming", 0, 0.0);
        pg_gpu_warm_up(ctx->gpu, st->targets, spec->ncases, st->order, st->n,
                       0.2, ctx->watch);
        opts.device = pg_gpu_clock(ctx->gpu);
        opts.device_cold = spec->cold;
    } else {
        opts.evict_bytes = spec->evict_bytes;
    }
    opts.on_round = on_round;
    opts.payload = ctx;
    opts.keep_samples = &ctx->samples;
    ctx->last_progress = 0;
    pg_measure(timing, summary, st->targets, spec->ncases, st->n, &opts);
    if (!spec->metric)
        return 0;
    failed = counter.error.size > 0;
    if (failed)
        child_fail(ctx, "skipped", -1, "not counted: %s",
                   pg_str_cstr(&counter.error));
    else if (spec->code_path)
        trace_sides(ctx, st, &counter);
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
                send_line(ctx, "%s", pg_str_cstr(&line));
                pg_str_clear(&line);
            }
}

/* The figures, to perfgate: "case" per case, "samples", "gpu", then
 * "done". */
static void send_figures(child_ctx *ctx, const sides *st,
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
        if (st->p->flops) {
            calling(ctx, PG_CALL_FLOPS, -1, c);
            flops = st->p->flops(pc);
        }
        if (st->p->bytes) {
            calling(ctx, PG_CALL_BYTES, -1, c);
            bytes = st->p->bytes(pc);
        }
        called_out(ctx);
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
            trace(ctx, "%s", pg_str_cstr(&t));
            pg_str_clear(&t);
        }
        send_line(ctx, PG_EV_CASE_FMT, c, ns[0], ns[1], timing[c].overhead_ns,
                  (unsigned long long)timing[c].inner, flops, bytes,
                  timing[c].change.lo, timing[c].change.hi,
                  timing[c].quantum_ns);
    }
    send_line(ctx, PG_EV_PLACED_FMT, summary->slots, summary->shift);
    trace(ctx, "%d rounds in %.3f s, stopped: %s", summary->rounds,
          summary->seconds, pg_estimate_stop_name(summary->stop));
    send_samples(ctx, st, summary->rounds);
    for (k = 0; k < st->n; k++)
        calls[st->order[k]] = (unsigned long long)summary->calls[k];
    if (ctx->gpu) {
        pg_gpu_stats g;
        pg_gpu_get_stats(&g, ctx->gpu);
        send_line(ctx, PG_EV_GPU_FMT, g.runtime_version,
                  (unsigned long long)g.samples,
                  (unsigned long long)g.throttled,
                  (unsigned long long)g.kept_throttled, g.clock_mhz, g.gated);
    }
    send_line(ctx, PG_EV_DONE_FMT, summary->rounds, calls[0], calls[1],
              summary->seconds, summary->change.change, summary->change.lo,
              summary->change.hi, pg_estimate_stop_name(summary->stop));
}

/* teardown(state), named as the problem's call on case `c`. */
static void tear_down_one(child_ctx *ctx, const pg_problem *p, void *state,
                          int side, size_t c)
{
    if (!state)
        return;
    trace(ctx, "teardown() on case %s", ctx->spec->cases[c].name);
    calling(ctx, PG_CALL_TEARDOWN, setup_side(p, side), c);
    p->teardown(state);
    called_out(ctx);
}

/*
 * The problem's teardown() for every set-up there is, the last made first:
 * the copies and the shared set-up both sides were timed on, then each
 * side's own.  (Memory from pg_alloc() is perfgate's, and the process
 * ends next: teardown() is for what the problem took elsewhere.)
 */
static void tear_down(child_ctx *ctx, const sides *st)
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
                tear_down_one(ctx, p, t->copies[i], st->order[k], c);
            if (!p->side_setup)
                tear_down_one(ctx, p, t->state, -1, c);
        }
        for (side = 0; side < 2; side++)
            tear_down_one(ctx, p, st->own[c][side].state, side, c);
    }
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

    /* Loading runs the problem's constructors and perfgate_problem(). */
    calling(&ctx, PG_CALL_LOAD, -1, (size_t)-1);
    err = pg_plugin_load(&plugin, spec->problem_lib, spec->problem_name);
    called_out(&ctx);
    if (err == 0)
        trace(&ctx, "problem %s loaded from %s (%s)", spec->problem_name,
              spec->problem_lib,
              plugin.problem->side_setup
                  ? "side_setup: each side set up, timed and checked on its "
                    "own set-up"
                  : "both sides timed on one set-up of each case");
    if (err < 0) {
        child_fail(&ctx, "crashed", -1, "%s", pg_error_last());
        return 0;
    }
    st.p = plugin.problem;
    st.own = pg_calloc(spec->ncases, sizeof(*st.own));
    st.targets = pg_calloc(spec->ncases, sizeof(*st.targets));
    /* Per case: the base's, the head's, and the one both are timed on. */
    st.cases = pg_calloc(spec->ncases * 3, sizeof(*st.cases));
    timing = pg_calloc(spec->ncases, sizeof(*timing));
    if (load_sides(&ctx, &st) || set_up_own(&ctx, &st))
        goto done;

    send_line(&ctx, PG_EV_PROGRESS_FMT, "verifying", 0, 0.0);
    /* Checked by an earlier process on the same inputs: the check after
     * timing is this one's. */
    if ((spec->skip_checks & PG_CHECK_BEFORE) && !spec->verify_only)
        send_line(&ctx, PG_EV_VERIFIED " " PG_EV_VERIFIED_HEAD);
    else if (verify_sides(&ctx, st.p, st.cases, st.own, "") ||
             spec->verify_only) {
        send_line(&ctx, PG_EV_VERIFIED);
        goto done;
    }
    if (set_up_shared(&ctx, &st))
        goto done;
    if (spec->sample) {
        if (!sample_sides(&ctx, &st))
            send_line(&ctx, PG_EV_VERIFIED);
        goto done;
    }
    err = time_sides(&ctx, &st, timing, &summary);
    called_out(&ctx);
    if (err)
        goto done;
    /* Right once is not enough: after all those calls, each side must
     * still be right. */
    if (!(spec->skip_checks & PG_CHECK_AFTER) &&
        verify_sides(&ctx, st.p, st.cases, st.own, " (after timing)"))
        goto done;
    send_figures(&ctx, &st, timing, &summary);
done:
    /* No unloading: the process ends here and the kernel is the fastest
     * and safest way to free what the user's code holds. */
    tear_down(&ctx, &st);
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
        send_line(ctx, PG_EV_SAMPLE_FMT, NAN);
        return;
    }
    fn = k < 0                      ? NULL
         : slot < st->nplaced[side] ? st->placed[side][slot]
                                    : st->syms[side];
    calling(ctx, k < 0 ? PG_CALL_STAND_IN : PG_CALL_RUN, k < 0 ? -1 : side, c);
    if (counter)
        ns = pg_measure_sample_on(&counter->clock, &st->own[c][side], fn,
                                  (uint64_t)n, 0);
    else
        ns = pg_measure_sample(&st->own[c][side], fn, (uint64_t)n, warm, evict,
                               spec->evict_bytes);
    called_out(ctx);
    send_line(ctx, PG_EV_SAMPLE_FMT, ns);
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
        return child_fail(ctx, "skipped", -1, "not counted: %s",
                          pg_str_cstr(&counter->error));
    if (counter && spec->code_path) {
        st->targets = pg_calloc(spec->ncases, sizeof(*st->targets));
        for (c = 0; c < spec->ncases; c++)
            st->targets[c][0] = st->own[c][side];
        st->order[0] = side;
        st->n = 1;
        trace_sides(ctx, st, counter);
    }
    if (!(spec->skip_checks & PG_CHECK_AFTER) &&
        verify_sides(ctx, st->p, st->cases, st->own, " (after timing)"))
        return REPORTED;
    return 0;
}

/*
 * `perfgate-measure --side SIDE SPEC`: one side alone, in a process that
 * holds nothing of the other side's (its code, its set-ups, its figures),
 * taking the samples perfgate asks for on `req` (protocol.h) and timing
 * them on its own set-up of each case.  perfgate decides everything else.
 */
static int worker_main(const pg_run_spec *given, int side, pg_watch *watch,
                       int fd, int req)
{
    pg_run_spec spec = *given;
    pg_str line = PG_STR_INIT, pending = PG_STR_INIT, why = PG_STR_INIT;
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
    calling(&ctx, PG_CALL_LOAD, -1, (size_t)-1);
    if (pg_plugin_load(&plugin, spec.problem_lib, spec.problem_name) < 0) {
        called_out(&ctx);
        child_fail(&ctx, "crashed", -1, "%s", pg_error_last());
        return 0;
    }
    called_out(&ctx);
    st.p = plugin.problem;
    st.own = pg_calloc(spec.ncases, sizeof(*st.own));
    st.cases = pg_calloc(spec.ncases * 3, sizeof(*st.cases));
    if (!spec.lib[side] || load_sides(&ctx, &st) || set_up_own(&ctx, &st))
        goto done;
    if (!(spec.skip_checks & PG_CHECK_BEFORE) &&
        verify_sides(&ctx, st.p, st.cases, st.own, ""))
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
            child_fail(&ctx, "skipped", -1, "not counted: %s (%s)",
                       pg_str_cstr(&why), pg_counter_name(spec.counter));
            goto done;
        }
        counting = &counter;
    } else if (spec.evict_bytes) {
        evict = pg_calloc(spec.evict_bytes, 1);
    }
    send_line(&ctx, PG_EV_READY_FMT, st.nplaced[side],
              counting ? counting->clock.error_ns : 0.0,
              counting ? (unsigned long long)counting->clock.max_inner : 0ULL);
    while (read_request(req, &line, &pending) == 0) {
        char word[16];
        const char *rest =
            pg_proc_message(pg_str_cstr(&line), NULL, word, sizeof(word));
        if (!rest)
            break;
        if (!strcmp(word, PG_RQ_TIME)) {
            answer_time(&ctx, &st, side, rest, evict, counting);
        } else if (!strcmp(word, PG_RQ_FIGURES) &&
                   sscanf(rest, "%zu", &c) == 1 && c < spec.ncases) {
            const pg_case *pc = &st.cases[c * 3 + (size_t)side];
            double flops = 0, bytes = 0;
            if (st.p->flops) {
                calling(&ctx, PG_CALL_FLOPS, -1, c);
                flops = st.p->flops(pc);
            }
            if (st.p->bytes) {
                calling(&ctx, PG_CALL_BYTES, -1, c);
                bytes = st.p->bytes(pc);
            }
            called_out(&ctx);
            send_line(&ctx, PG_EV_FIGURES_FMT, flops, bytes);
        } else {
            /* "end", or words this side does not know: nothing more. */
            if (!strcmp(word, PG_RQ_END) &&
                !end_side(&ctx, &st, side, counting))
                send_line(&ctx, PG_EV_ENDED);
            break;
        }
    }
done:
    /* Each side's own set-ups are all there is: tear_down() takes those. */
    if (st.p && st.p->teardown && st.own)
        for (c = spec.ncases; c-- > 0;)
            tear_down_one(&ctx, st.p, st.own[c][side].state, side, c);
    if (counting)
        pg_counter_close(counting);
    free(st.targets);
    free(evict);
    pg_str_clear(&line);
    pg_str_clear(&pending);
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
