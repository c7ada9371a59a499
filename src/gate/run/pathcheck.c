/*
 * pathcheck.c - whether a count was taken on the code the machine runs
 * (pathcheck.h).
 */
#include "pathcheck.h"
#include "elfcode.h"
#include "fs.h"

#include <math.h>
#include <stdint.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

static const char *const side_names[2] = {"base", "head"};

#define NO_START UINT64_MAX

/* A function of an object, and what each picture gave it. */
typedef struct place {
    char *object; /* the object's path */
    char *fn;
    /* Where its code starts in the object, by which one function is
     * known under any of its names (aliases: callgrind and the symbol
     * table may pick different ones); NO_START when its symbol table does
     * not have it, and then by name. */
    uint64_t start;
    double samples; /* native */
    double counted; /* callgrind's instructions, its own */
    /* native, on instructions of a function callgrind saw run that it
     * never saw executed (another branch of the same function) */
    double unseen;
} place;

/* The instructions callgrind saw executed, by object and address (a set
 * of hashed keys, open addressing); empty when its dump has no
 * addresses. */
typedef struct executed {
    uint64_t *key; /* 0: an empty slot */
    size_t n, cap;
} executed;

typedef struct picture {
    place *v;
    size_t n, cap;
    double samples, counted; /* in all */
    executed ran;
} picture;

/* Objects whose functions were read, by path: each is read once. */
typedef struct objects {
    char **path;
    pg_elf_funcs *funcs;
    size_t n;
} objects;

static place *place_of(picture *p, const char *object, const char *fn,
                       uint64_t start)
{
    size_t i;

    for (i = 0; i < p->n; i++)
        if ((start != NO_START ? p->v[i].start == start
                               : !strcmp(p->v[i].fn, fn)) &&
            !strcmp(pg_path_basename(p->v[i].object), pg_path_basename(object)))
            return &p->v[i];
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->v = pg_realloc(p->v, p->cap * sizeof(*p->v));
    }
    memset(&p->v[p->n], 0, sizeof(p->v[p->n]));
    p->v[p->n].object = pg_strdup(object);
    p->v[p->n].fn = pg_strdup(fn);
    p->v[p->n].start = start;
    return &p->v[p->n++];
}

static void picture_clear(picture *p)
{
    size_t i;

    for (i = 0; i < p->n; i++) {
        free(p->v[i].object);
        free(p->v[i].fn);
    }
    free(p->v);
    free(p->ran.key);
    memset(p, 0, sizeof(*p));
}

/* The key of the instruction at `offset` in the object at `path` (by its
 * file's name, as place_of() pairs objects); never 0. */
static uint64_t instr_key(const char *path, uint64_t offset)
{
    const char *name = pg_path_basename(path);
    uint64_t h = 1469598103934665603ULL;

    while (*name)
        h = (h ^ (unsigned char)*name++) * 1099511628211ULL;
    h ^= offset * 0x9E3779B97F4A7C15ULL;
    return h ? h : 1;
}

static size_t slot_of(const executed *e, uint64_t key)
{
    size_t i = (size_t)(key ^ (key >> 29)) & (e->cap - 1);

    while (e->key[i] && e->key[i] != key)
        i = (i + 1) & (e->cap - 1);
    return i;
}

static void executed_add(executed *e, uint64_t key)
{
    size_t i;

    if (2 * (e->n + 1) > e->cap) {
        executed old = *e;
        e->cap = old.cap ? 2 * old.cap : 1024;
        e->key = pg_calloc(e->cap, sizeof(*e->key));
        e->n = 0;
        for (i = 0; i < old.cap; i++)
            if (old.key[i])
                e->key[slot_of(e, old.key[i])] = old.key[i], e->n++;
        free(old.key);
    }
    i = slot_of(e, key);
    if (!e->key[i]) {
        e->key[i] = key;
        e->n++;
    }
}

static int executed_has(const executed *e, uint64_t key)
{
    return e->cap && e->key[slot_of(e, key)] == key;
}

static const pg_elf_funcs *funcs_of(objects *o, const char *path)
{
    size_t i;

    for (i = 0; i < o->n; i++)
        if (!strcmp(o->path[i], path))
            return &o->funcs[i];
    o->path = pg_realloc(o->path, (o->n + 1) * sizeof(*o->path));
    o->funcs = pg_realloc(o->funcs, (o->n + 1) * sizeof(*o->funcs));
    o->path[o->n] = pg_strdup(path);
    pg_elf_funcs_read(&o->funcs[o->n], path);
    return &o->funcs[o->n++];
}

static void objects_clear(objects *o)
{
    size_t i;

    for (i = 0; i < o->n; i++) {
        free(o->path[i]);
        pg_elf_funcs_clear(&o->funcs[i]);
    }
    free(o->path);
    free(o->funcs);
    memset(o, 0, sizeof(*o));
}

/* The native samples of side `side` ("SIDE COUNT OFFSET OBJECT" lines),
 * each put in its function, and counted as unseen where callgrind's dump
 * (read first) has addresses and never saw that instruction run in a
 * function it saw run.  -1 when the file cannot be read. */
static int read_samples(picture *p, objects *o, const char *path, int side)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;

    if (!f)
        return -1;
    while (getline(&line, &cap, f) > 0) {
        unsigned long long offset;
        double count;
        int s, at = 0, at2 = 0;
        const pg_elf_func *fn;
        const char *object;
        line[strcspn(line, "\n")] = '\0';
        if (sscanf(line, "%d %lf %n", &s, &count, &at) != 2 || !at ||
            s != side || !(count > 0))
            continue;
        p->samples += count;
        if (sscanf(line + at, "%llx %n", &offset, &at2) != 1 || !at2)
            continue; /* code in no object */
        object = line + at + at2;
        if ((fn = pg_elf_funcs_at(funcs_of(o, object), offset))) {
            place *pl = place_of(p, object, fn->name, fn->start);
            pl->samples += count;
            if (p->ran.n && pl->counted > 0 &&
                !executed_has(&p->ran, instr_key(object, offset)))
                pl->unseen += count;
        }
    }
    free(line);
    fclose(f);
    return 0;
}

/* A callgrind cost line starts with its position: a number, or "+N",
 * "-N", "*" (compressed positions). */
static int is_cost_line(const char *l)
{
    return (*l >= '0' && *l <= '9') || *l == '+' || *l == '-' || *l == '*';
}

/* The index of event "Ir" on an "events:" line; -1 if none. */
static int ir_index(const char *events)
{
    int i = 0;

    for (;;) {
        events += strspn(events, " ");
        if (!*events)
            return -1;
        if (!strncmp(events, "Ir", 2) && (!events[2] || events[2] == ' '))
            return i;
        events += strcspn(events, " ");
        i++;
    }
}

/* A cost line's position: `*c` at its first column; the instruction's
 * address into *addr where the positions start with it ("instr", as
 * --dump-instr=yes writes them: an address, "+N" or "-N" from the line
 * before, or "*" the same), the other columns skipped.  Returns where the
 * costs start. */
static char *position(char *c, int npos, int instr, uint64_t *addr)
{
    int k = 0;

    if (instr) {
        if (*c == '+' || *c == '-')
            *addr += (uint64_t)strtoll(c, &c, 0);
        else if (*c != '*')
            *addr = strtoull(c, &c, 0);
        c += strcspn(c, " ");
        k = 1;
    }
    for (; k < npos; k++) {
        c += strspn(c, " ");
        c += strcspn(c, " ");
    }
    return c;
}

/* Each function's own instructions in callgrind's dump at `path` (costs
 * after a "calls=" line are the call's, inclusive, and are not its own),
 * and the instructions it saw executed, where it has their addresses. */
static int read_dump(picture *p, objects *o, const char *path)
{
    char *text = NULL, *line, *next, *ob = NULL, *fn = NULL;
    int ir = -1, after_call = 0, npos = 1, instr = 0;
    uint64_t addr = 0;

    if (pg_read_file(&text, NULL, path, (size_t)256 << 20) < 0)
        return -1;
    for (line = text; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (!strncmp(line, "events:", 7)) {
            ir = ir_index(line + 7);
        } else if (!strncmp(line, "positions:", 10)) {
            char *w = line + 10;
            instr = !strncmp(w + strspn(w, " "), "instr", 5);
            for (npos = 0; *(w += strspn(w, " ")); npos++)
                w += strcspn(w, " ");
        } else if (!strncmp(line, "ob=", 3)) {
            free(ob);
            ob = pg_strdup(line + 3);
        } else if (!strncmp(line, "fn=", 3)) {
            /* "name'2": a recursion level, the same function. */
            free(fn);
            fn = pg_strdup(line + 3);
            fn[strcspn(fn, "'")] = '\0';
        } else if (!strncmp(line, "calls=", 6)) {
            after_call = 1;
        } else if (is_cost_line(line)) {
            char *c = position(line, npos, instr, &addr);
            double v = 0;
            int i;
            for (i = 0; i <= ir && ir >= 0; i++)
                v = strtod(c, &c);
            if (instr && ob && v > 0)
                executed_add(&p->ran, instr_key(ob, addr));
            if (!after_call && ob && fn && ir >= 0) {
                p->counted += v;
                if (strncmp(fn, "0x", 2)) {
                    const pg_elf_func *f =
                        pg_elf_funcs_named(funcs_of(o, ob), fn);
                    place_of(p, ob, fn, f ? f->start : NO_START)->counted += v;
                }
            }
            after_call = 0;
        }
    }
    free(ob);
    free(fn);
    free(text);
    return ir >= 0 ? 0 : -1;
}

/* What a side's two pictures disagree on, into `out` (without naming the
 * side): the function natively hottest that callgrind never saw run, and
 * the one with the most instructions under callgrind never run natively.
 * 1 if anything. */
static int differ(pg_str *out, pg_str *key, picture *p)
{
    const place *native = NULL, *counted = NULL, *branch = NULL;
    size_t i;

    for (i = 0; i < p->n; i++) {
        const place *pl = &p->v[i];
        if (pl->samples / p->samples >= PG_PATH_NATIVE_SHARE &&
            pl->samples >= 20 && !pl->counted &&
            (!native || pl->samples > native->samples))
            native = pl;
        if (pl->unseen / p->samples >= PG_PATH_NATIVE_SHARE &&
            pl->unseen >= 20 && (!branch || pl->unseen > branch->unseen))
            branch = pl;
        if (pl->counted / p->counted >= PG_PATH_COUNTED_SHARE && !pl->samples &&
            p->samples >= PG_PATH_MIN_SAMPLES &&
            (!counted || pl->counted > counted->counted) &&
            pl->start != NO_START)
            counted = pl;
    }
    if (native)
        pg_str_printf(out,
                      "natively %.0f%% of its time is in %s(), which "
                      "callgrind never saw run",
                      100 * native->samples / p->samples, native->fn);
    if (counted)
        pg_str_printf(out,
                      "%sunder callgrind %.0f%% of its instructions are in "
                      "%s(), where not one of %.0f native samples fell",
                      native ? "; " : "", 100 * counted->counted / p->counted,
                      counted->fn, p->samples);
    if (branch)
        pg_str_printf(out,
                      "%snatively %.0f%% of its time is on instructions of "
                      "%s() that callgrind never saw run (another branch)",
                      native || counted ? "; " : "",
                      100 * branch->unseen / p->samples, branch->fn);
    pg_str_printf(key, "%s %s %s", native ? native->fn : "-",
                  counted ? counted->fn : "-", branch ? branch->fn : "-");
    return native || counted || branch;
}

void pg_pathcheck_missing(pg_str *out, const char *a, const char *b)
{
    const char *w = a;

    while (w && *(w += strspn(w, " "))) {
        size_t n = strcspn(w, " ");
        const char *x = b;
        int found = 0;
        while (x && *(x += strspn(x, " ")) && !found) {
            size_t m = strcspn(x, " ");
            found = m == n && !strncmp(w, x, n);
            x += m;
        }
        if (!found)
            pg_str_printf(out, "%s%.*s", out->size ? " " : "", (int)n, w);
        w += n;
    }
}

int pg_pathcheck(pg_str *other, const char *samples, const char *dump_prefix,
                 int sides, const char *native_cpu, const char *simulated_cpu)
{
    objects o;
    pg_str said[2] = {PG_STR_INIT, PG_STR_INIT};
    pg_str key[2] = {PG_STR_INIT, PG_STR_INIT};
    int side, found = 0, err = 0;

    memset(&o, 0, sizeof(o));
    for (side = 0; side < 2 && !err; side++) {
        picture p;
        char *dump;
        if (!(sides & (1 << side)))
            continue;
        memset(&p, 0, sizeof(p));
        dump = pg_strdupf("%s.path%d", dump_prefix, side);
        if (read_dump(&p, &o, dump) < 0 ||
            read_samples(&p, &o, samples, side) < 0) {
            pg_str_printf(other, "the %s's code paths could not be read",
                          side_names[side]);
            err = -1;
        } else if (p.samples < PG_PATH_MIN_SAMPLES / 4 || !(p.counted > 0)) {
            pg_str_printf(other, "too few samples of the %s (%.0f) to compare",
                          side_names[side], p.samples);
            err = -1;
        } else if (differ(&said[side], &key[side], &p)) {
            found |= 1 << side;
        }
        free(dump);
        picture_clear(&p);
    }
    objects_clear(&o);
    /* The same functions on both sides: said once, with the head's
     * figures. */
    if (!err && found == 3 &&
        !strcmp(pg_str_cstr(&key[0]), pg_str_cstr(&key[1])))
        pg_str_printf(other, "both sides: %s", pg_str_cstr(&said[1]));
    else if (!err)
        for (side = 0; side < 2; side++)
            if (found & (1 << side))
                pg_str_printf(other, "%sthe %s: %s", other->size ? "; " : "",
                              side_names[side], pg_str_cstr(&said[side]));
    for (side = 0; side < 2; side++) {
        pg_str_clear(&said[side]);
        pg_str_clear(&key[side]);
    }
    if (found && native_cpu && simulated_cpu) {
        pg_str lacks = PG_STR_INIT;
        pg_pathcheck_missing(&lacks, native_cpu, simulated_cpu);
        if (lacks.size)
            pg_str_printf(other, " (the simulated CPU lacks %s)",
                          pg_str_cstr(&lacks));
        pg_str_clear(&lacks);
    }
    return err < 0 ? -1 : found != 0;
}

/* One side's figures in a sample file: its "L" line and its samples. */
typedef struct spent {
    int seen;
    double wall, on_cpu, sys, runnable;
    double samples, in_kernel; /* in all; stopped just after a syscall */
} spent;

static void read_spent(spent out[2], FILE *f)
{
    char *line = NULL;
    size_t cap = 0;

    while (getline(&line, &cap, f) > 0) {
        double wall, on_cpu, sys, runnable, count;
        int side, at = 0;
        if (sscanf(line, "L %d %lf %lf %lf %lf", &side, &wall, &on_cpu, &sys,
                   &runnable) == 5) {
            if ((side == 0 || side == 1) && wall > 0) {
                out[side].seen = 1;
                out[side].wall = wall;
                out[side].on_cpu = on_cpu;
                out[side].sys = sys;
                out[side].runnable = runnable;
            }
        } else if (sscanf(line, "%d %lf %n", &side, &count, &at) == 2 && at &&
                   (side == 0 || side == 1) && count > 0) {
            out[side].samples += count;
            if (!strncmp(line + at, "kernel ", 7))
                out[side].in_kernel += count;
        }
    }
    free(line);
}

void pg_pathcheck_uncounted(pg_str *out, const char *samples)
{
    FILE *f = fopen(samples, "r");
    spent sp[2];
    int side;

    if (!f)
        return;
    memset(sp, 0, sizeof(sp));
    read_spent(sp, f);
    fclose(f);
    for (side = 0; side < 2; side++) {
        const spent *s = &sp[side];
        double in_sys, waiting;
        if (!s->seen)
            continue;
        /* The kernel's share of the thread's time (rusage) counts page
         * faults and interrupts too, and where the kernel accounts by its
         * tick it can charge a side that made no call at all; the samples
         * that stopped just after a syscall instruction are the calls'
         * alone.  Both must say it. */
        in_sys = s->samples >= PG_PATH_MIN_SAMPLES / 4
                     ? fmin(s->sys / s->wall, s->in_kernel / s->samples)
                     : 0;
        /* No scheduler figures (no /proc): no waiting to tell. */
        waiting =
            s->on_cpu > 0 ? (s->wall - s->on_cpu - s->runnable) / s->wall : 0;
        if (in_sys < PG_PATH_UNCOUNTED_SHARE &&
            waiting < PG_PATH_UNCOUNTED_SHARE)
            continue;
        pg_str_printf(out, "%sthe %s spends ", out->size ? "; " : "",
                      side_names[side]);
        if (in_sys >= PG_PATH_UNCOUNTED_SHARE)
            pg_str_printf(out, "%.0f%% of its time natively in system calls",
                          100 * in_sys);
        if (waiting >= PG_PATH_UNCOUNTED_SHARE)
            pg_str_printf(out,
                          "%s%.0f%% of its time natively off the CPU "
                          "(sleeping, or blocked on I/O or a lock)",
                          in_sys >= PG_PATH_UNCOUNTED_SHARE ? " and " : "",
                          100 * waiting);
        pg_str_puts(out, ", which no count sees");
    }
}
