/*
 * runner.c - perfgate-measure, the process that runs the user's code.
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
 *   perfgate-measure --describe LIB NAME
 *                                     a problem's default cases, on fd 3
 *
 * Events, one line each (run.c reads them):
 *   fail STATUS SIDE MESSAGE      the benchmark ends with STATUS
 *   progress STAGE ROUND SECONDS  for the progress line
 *   case I BASE HEAD OVERHEAD INNER FLOPS BYTES
 *   done ROUNDS CALLS_BASE CALLS_HEAD SECONDS CHANGE LO HI STOP
 *   gpu RUNTIME SAMPLES THROTTLED KEPT_THROTTLED CLOCK_MHZ GATED
 * Which side is running user code, and since when, is in the pg_watch that
 * perfgate shares as fd 4, so that a hang or a crash is charged to the
 * right side even when this process can say nothing.  Run by hand, without
 * those descriptors, it writes the events to stdout.
 */
#define _GNU_SOURCE
#include "error.h"
#include "gpu.h"
#include "measure.h"
#include "problem.h"
#include "runspec.h"
#include "str.h"
#include "system.h"
#include "timer.h"
#include "util.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define PG_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PG_UNDER_ASAN 1
#endif
#endif

#ifndef PG_VERSION
#define PG_VERSION "0.0.0"
#endif

enum { MSG_FD = 3, WATCH_FD = 4 };

static const char usage_text[] =
    "usage: perfgate-measure SPEC\n"
    "       perfgate-measure --describe PROBLEM_LIB PROBLEM_NAME\n"
    "\n"
    "The process in which perfgate runs the code it measures; perfgate\n"
    "starts it, one benchmark at a time.  SPEC is a run spec as perfgate\n"
    "writes it (see src/runspec.h).  Run by hand, it prints its events on\n"
    "stdout.\n";

static const char *const side_names[2] = {"base", "head"};

typedef struct child_ctx {
    const pg_run_spec *spec;
    pg_watch *watch;
    int fd;
    int64_t last_progress;
    pg_gpu *gpu; /* CUDA solutions; else NULL */
} child_ctx;

static void send_line(child_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void send_line(child_ctx *ctx, const char *fmt, ...)
{
    pg_str s = PG_STR_INIT;
    va_list ap;
    size_t i, off = 0;

    va_start(ap, fmt);
    pg_str_vprintf(&s, fmt, ap);
    va_end(ap);
    for (i = 0; i < s.size; i++)
        if (s.ptr[i] == '\n' || s.ptr[i] == '\r')
            s.ptr[i] = ' ';
    pg_str_putc(&s, '\n');
    while (off < s.size) {
        ssize_t n = write(ctx->fd, s.ptr + off, s.size - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    pg_str_free(&s);
}

static int child_fail(child_ctx *ctx, const char *status, int side,
                      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int child_fail(child_ctx *ctx, const char *status, int side,
                      const char *fmt, ...)
{
    pg_str msg = PG_STR_INIT;
    va_list ap;

    va_start(ap, fmt);
    pg_str_vprintf(&msg, fmt, ap);
    va_end(ap);
    send_line(ctx, "fail %s %s %s", status, side < 0 ? "-" : side_names[side],
              pg_str_cstr(&msg));
    pg_str_free(&msg);
    return 0;
}

static void on_round(void *payload, int round, double elapsed)
{
    child_ctx *ctx = payload;
    int64_t now = pg_now_ns();

    if (now - ctx->last_progress < 100000000)
        return;
    ctx->last_progress = now;
    send_line(ctx, "progress measuring %d %.3f", round, elapsed);
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

/* Verifies every case of every side; 0 or -1 after reporting. */
static int verify_all(child_ctx *ctx, const pg_problem *p, pg_case *cases,
                      pg_target (*targets)[2], const int *sides, int nsides,
                      const char *when)
{
    const pg_run_spec *spec = ctx->spec;
    size_t c;
    int k;

    for (k = 0; k < nsides; k++) {
        int side = sides[k];
        for (c = 0; c < spec->ncases; c++) {
            pg_case *pc = &cases[c * 2 + (size_t)side];
            int bad;
            pg_watch_enter(ctx->watch, side);
            if (!when)
                p->run(targets[c][k].state, targets[c][k].fn);
            if (ctx->gpu)
                pg_gpu_check(ctx->gpu);
            bad = p->verify(targets[c][k].state, pc) != 0;
            pg_watch_leave(ctx->watch);
            if (bad) {
                const char *why = pg_case_message(pc);
                child_fail(ctx, "incorrect", side, "case %s%s: %s",
                           spec->cases[c].name, when ? when : "",
                           *why ? why : "wrong output");
                return -1;
            }
        }
    }
    return 0;
}

/* The device reported an error: the side that was running caused it, and
 * the context is lost, so the child ends here. */
static void on_gpu_error(void *payload, const char *message)
{
    child_ctx *ctx = payload;
    int side = ctx->watch->side;

    child_fail(ctx, "crashed", side, "%s%s%s",
               side < 0 ? "" : side_names[side], side < 0 ? "" : " side: ",
               message);
    _exit(0);
}

/*
 * Cold on the device, a batch of calls rotates through identical set-ups
 * of the case, so that no call finds the one before it in the L2.  0, or
 * -1 after reporting.
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
        pg_case_init(pc, p->name, &spec->cases[index],
                     pg_gpu_memory(ctx->gpu));
        pg_watch_enter(ctx->watch, side);
        t->copies[i] = p->setup(pc);
        pg_watch_leave(ctx->watch);
        if (!t->copies[i]) {
            child_fail(ctx, "crashed", side, "case %s: setup failed: %s",
                       spec->cases[index].name, pg_case_message(pc));
            return -1;
        }
    }
    t->ncopies = n;
    return 0;
}

static int measure_main(const pg_run_spec *spec, pg_watch *watch, int fd)
{
    child_ctx ctx;
    pg_plugin plugin;
    const pg_problem *p;
    pg_target(*targets)[2];
    pg_case *cases;
    pg_case_timing *timing;
    pg_measure_summary summary;
    pg_measure_opts opts;
    const pg_memory_ops *memory = NULL;
    void *libs[2] = {NULL, NULL}, *syms[2] = {NULL, NULL};
    int sides[2], nsides = 0, k;
    size_t c;

    memset(&ctx, 0, sizeof(ctx));
    ctx.spec = spec;
    ctx.watch = watch;
    ctx.fd = fd;
    if (spec->clock)
        pg_timer_use(spec->clock);
    limit_resources(spec->gpu);
    /* One CPU: no migrations between samples, and the caches stay ours. */
    if (spec->cpu >= 0)
        pg_system_pin(spec->cpu);

    if (pg_plugin_load(&plugin, spec->problem_lib, spec->problem_name) < 0)
        return child_fail(&ctx, "crashed", -1, "%s", pg_error_last());
    p = plugin.problem;

    targets = pg_calloc(spec->ncases, sizeof(*targets));
    cases = pg_calloc(spec->ncases * 2, sizeof(*cases));
    timing = pg_calloc(spec->ncases, sizeof(*timing));

    /* Head first: when a case cannot even be set up, the head is blamed. */
    for (k = 1; k >= 0; k--)
        if (spec->lib[k])
            sides[nsides++] = k;
    for (k = 0; k < nsides; k++) {
        int side = sides[k];
        if (!(libs[k] = dlopen(spec->lib[side], RTLD_NOW | RTLD_LOCAL)))
            return child_fail(&ctx, "build_failed", side, "cannot load: %s",
                              dlerror());
        if (!(syms[k] = dlsym(libs[k], spec->symbol)))
            return child_fail(&ctx, "build_failed", side,
                              "no function '%s' in the sources; set 'symbol' "
                              "in perfgate.yml to the function's name",
                              spec->symbol);
    }
    if (spec->gpu) {
        pg_str why = PG_STR_INIT;
        /* Both sides link the same runtime: either library finds it. */
        if (!(ctx.gpu = pg_gpu_open(libs[0], on_gpu_error, &ctx, &why)))
            return child_fail(&ctx, "crashed", -1, "cannot use the GPU: %s",
                              pg_str_cstr(&why));
        memory = pg_gpu_memory(ctx.gpu);
    }
    for (k = 0; k < nsides; k++) {
        int side = sides[k];
        for (c = 0; c < spec->ncases; c++) {
            pg_case *pc = &cases[c * 2 + (size_t)side];
            pg_case_init(pc, p->name, &spec->cases[c], memory);
            targets[c][k].problem = p;
            *(void **)&targets[c][k].fn = syms[k];
            pg_watch_enter(ctx.watch, side);
            targets[c][k].state = p->setup(pc);
            pg_watch_leave(ctx.watch);
            if (!targets[c][k].state)
                return child_fail(&ctx, "crashed", side,
                                  "case %s: setup failed: %s",
                                  spec->cases[c].name, pg_case_message(pc));
            if (ctx.gpu && spec->cold &&
                set_up_copies(&ctx, p, &targets[c][k], pc, c, side) < 0)
                return 0;
        }
    }
    /* Measurement puts the base side first: targets[c][0] is base when
     * both sides are here (sides[] is head, base). */
    if (nsides == 2) {
        for (c = 0; c < spec->ncases; c++) {
            pg_target t = targets[c][0];
            targets[c][0] = targets[c][1];
            targets[c][1] = t;
        }
        sides[0] = PG_BASE;
        sides[1] = PG_HEAD;
    }

    send_line(&ctx, "progress verifying 0 0");
    if (verify_all(&ctx, p, cases, targets, sides, nsides, NULL) < 0)
        return 0;

    pg_measure_opts_init(&opts, spec->settings->min_rounds,
                         spec->settings->max_time,
                         spec->settings->noise_floor);
    opts.watch = ctx.watch;
    opts.sides = sides;
    if (ctx.gpu) {
        /* To its working clocks first, then measured as any other. */
        send_line(&ctx, "progress warming 0 0");
        pg_gpu_warm_up(ctx.gpu, targets, spec->ncases, sides, nsides, 0.2,
                       ctx.watch);
        opts.device = pg_gpu_clock(ctx.gpu);
        opts.device_cold = spec->cold;
    } else {
        opts.evict_bytes = spec->evict_bytes;
    }
    opts.on_round = on_round;
    opts.payload = &ctx;
    ctx.last_progress = 0;
    pg_measure(timing, &summary, targets, spec->ncases, nsides, &opts);

    /* Right once is not enough: the last timed call must be right too. */
    if (verify_all(&ctx, p, cases, targets, sides, nsides,
                   " (after timing)") < 0)
        return 0;

    for (c = 0; c < spec->ncases; c++) {
        pg_case *pc = &cases[c * 2 + (size_t)sides[nsides - 1]];
        double ns[2] = {NAN, NAN};
        for (k = 0; k < nsides; k++)
            ns[sides[k]] = timing[c].ns[k];
        send_line(&ctx, "case %zu %.6f %.6f %.6f %llu %.17g %.17g", c, ns[0],
                  ns[1], timing[c].overhead_ns,
                  (unsigned long long)timing[c].inner,
                  p->flops ? p->flops(pc) : 0.0,
                  p->bytes ? p->bytes(pc) : 0.0);
    }
    {
        unsigned long long calls[2] = {0, 0};
        for (k = 0; k < nsides; k++)
            calls[sides[k]] = (unsigned long long)summary.calls[k];
        if (ctx.gpu) {
            pg_gpu_stats st;
            pg_gpu_get_stats(ctx.gpu, &st);
            send_line(&ctx, "gpu %d %llu %llu %llu %.1f %d",
                      st.runtime_version, (unsigned long long)st.samples,
                      (unsigned long long)st.throttled,
                      (unsigned long long)st.kept_throttled, st.clock_mhz,
                      st.gated);
        }
        send_line(&ctx, "done %d %llu %llu %.6f %.9f %.9f %.9f %s",
                  summary.rounds, calls[0], calls[1], summary.seconds,
                  summary.change.change, summary.change.lo,
                  summary.change.hi, pg_stop_name(summary.stop));
    }
    /* No teardown or unloading: the process ends here and the kernel is
     * the fastest and safest way to free what the user's code holds. */
    return 0;
}


/* The problem's default cases, for perfgate to check a config against. */
static int describe_main(const char *lib, const char *name, int fd)
{
    pg_plugin plugin;
    pg_str line = PG_STR_INIT;
    ssize_t n;

    if (pg_plugin_load(&plugin, lib, name) < 0)
        pg_str_printf(&line, "error %s\n", pg_error_last());
    else if (plugin.problem->device_cases)
        pg_str_printf(&line, "cases %s\ndevice %s\n",
                      plugin.problem->default_cases,
                      plugin.problem->device_cases);
    else
        pg_str_printf(&line, "cases %s\n", plugin.problem->default_cases);
    n = write(fd, line.ptr, line.size);
    pg_str_free(&line);
    return n < 0;
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
        (size_t)st.st_size >= sizeof(pg_watch))
        p = mmap(NULL, sizeof(pg_watch), PROT_READ | PROT_WRITE, MAP_SHARED,
                 WATCH_FD, 0);
    else
        p = mmap(NULL, sizeof(pg_watch), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

int main(int argc, char **argv)
{
    int fd = inherited(MSG_FD) ? MSG_FD : 1;
    pg_run_file file;
    pg_watch *watch;
    int err;

    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "--version")) {
        printf("perfgate-measure %s\n", PG_VERSION);
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "--describe"))
        return describe_main(argv[2], argv[3], fd);
    if (argc != 2 || argv[1][0] == '-') {
        fputs(usage_text, stderr);
        return 2;
    }
    if (!(watch = map_watch())) {
        fprintf(stderr, "perfgate-measure: cannot map memory: %s\n",
                strerror(errno));
        return 3;
    }
    memset(watch, 0, sizeof(*watch));
    watch->side = -1;
    if ((err = pg_run_file_read(&file, argv[1])) < 0) {
        fprintf(stderr, "perfgate-measure: %s\n", pg_error_last());
        pg_run_file_free(&file);
        return 2;
    }
    err = measure_main(&file.spec, watch, fd);
    pg_run_file_free(&file);
    return err;
}
