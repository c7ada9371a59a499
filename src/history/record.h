/*
 * record.h - one push to main, measured against its first parent: what
 * `perfgate record` stores and `perfgate history` reads back.
 *
 * A record is small JSON: the commit and its parent (and their trees, so
 * that a commit rebased to identical code can reuse it), the machine it
 * was measured on, perfgate's version and method, the config's digest and
 * floor, and per benchmark the status, the absolute times and the paired
 * change with its interval.  Records are read from a ref anyone may have
 * pushed to: every field is checked, and a record that is damaged, hostile
 * or of an unknown format is refused with a message, never half-read.
 */
#ifndef PG_RECORD_H
#define PG_RECORD_H

#include <stddef.h>

#include "result.h"
#include "revision.h"

/* The newest format this perfgate writes and reads; a record of a newer
 * one is refused, naming the version that wrote it.  A record is written
 * in the oldest format that holds it: 1 for times alone, 2 when it keeps
 * counts (record --measure all|instructions|cycles), so that a perfgate
 * of format 1 still reads every record it could. */
#define PG_RECORD_FORMAT 2
#define PG_RECORD_FORMAT_TIMES 1

/* How perfgate measures (the interleaved sum of minimums, seeds/): a
 * record of another method is read, and its absolute times are not put on
 * one series with this method's. */
#define PG_RECORD_METHOD 1

/* How narrow a record's interval is to be, either side of its change, as
 * a fraction of the floor (pg_compare_opts): the history chains pushes
 * far below the floor into creeps, and reads a push only as well as its
 * interval lets it (2% on a 5% floor is evident at +-0.5%, not at the
 * +-3.5% that settles "unchanged"). */
#define PG_RECORD_PRECISION 0.1

/* The most benchmarks a record may hold. */
#define PG_RECORD_MAX_BENCHMARKS 10000

/* A benchmark's count beside (or instead of) its time (format 2): what
 * the counter gave per call on each side, decided at the record's count
 * floor. */
typedef struct pg_record_count {
    int metric;    /* a pg_metric; PG_METRIC_TIME (0): no count kept */
    char *counter; /* what counted: "callgrind" or "hardware" */
    pg_status status;
    double base, head;           /* sums of per-case minimums; NAN: none */
    double change;               /* head/base - 1; NAN when not counted */
    double change_lo, change_hi; /* its 95% interval; NAN */
    /* Counted under callgrind on another code path than the one the
     * machine runs natively (pathcheck.h): such a count does not gate. */
    int other_path;
} pg_record_count;

typedef struct pg_record_bench {
    char *name;
    pg_status status; /* the time's; the count's when not timed */
    /* 0: counted only (record --measure instructions): no time, and the
     * time's fields are NAN. */
    int timed;
    double base_ns, head_ns;     /* sums of per-case minimums; NAN: none */
    double change;               /* head/base - 1; NAN when not measured */
    double change_lo, change_hi; /* its 95% interval; NAN */
    /* Unchanged at no cost: the change could not reach it (not affected,
     * or both sides load identical code); change is 0, its interval 0. */
    int untouched;
    /* In a check: the first slower commit between its two commits, found
     * by bisecting (empty when none was looked for or found), and its
     * subject. */
    char culprit[PG_OID_HEX];
    char *culprit_subject;
    /* A regression accepted on purpose (accept:, or a Perf-Accepted:
     * trailer): the reason given; NULL. */
    char *accepted;
    pg_record_count count;
    /* The heap per call, base and head (cases summed, the peak the
     * largest; memory.h): an optional field of any format, which an
     * older perfgate leaves unread; counted 0 where none was kept. */
    pg_memory_use memory[2];
} pg_record_bench;

/* What a record was measured on. */
typedef struct pg_record_machine {
    char *name;     /* the series key: --machine, else "CPU, N cores" */
    char *cpu;      /* the CPU's model */
    int cores;      /* online */
    char *kernel;   /* uname's release */
    char *compiler; /* the first line of `cc --version` */
} pg_record_machine;

typedef struct pg_record {
    int format;
    /* 0: a push, `commit` against its first parent `parent`.  1: a check,
     * `commit` against `parent`, an earlier commit of main, measured again
     * to confirm a change point or creep the history showed between them
     * ("kind": "check"); never a point of the series. */
    int check;
    char commit[PG_OID_HEX], parent[PG_OID_HEX];
    char tree[PG_OID_HEX], parent_tree[PG_OID_HEX];
    char *subject;
    long long when; /* seconds since the epoch, when it was recorded */
    pg_record_machine machine;
    char *perfgate; /* the version that measured */
    int method;
    char *config_digest;
    double noise_floor;
    double count_floor; /* the counts' floor; NAN when none is kept */
    pg_record_bench *benchmarks;
    size_t nbenchmarks;
} pg_record;

/*
 * This machine, named `name` (NULL: $PERFGATE_MACHINE, else the CPU's
 * model and core count).
 */
void pg_record_machine_probe(pg_record_machine *out, const char *name);

/*
 * The record of `r`, a comparison of a commit (r->head) against its first
 * parent (r->base) whose trees are `tree` and `parent_tree`, on `machine`
 * (taken: *machine is left empty).  What the run measured: times when
 * `timed`, and `counted`, a pg_metric, beside or instead of them
 * (PG_METRIC_TIME: no count); a benchmark the change could not reach is
 * kept unchanged in both, measured in neither.
 */
void pg_record_from_result(pg_record *out, const pg_result *r, const char *tree,
                           const char *parent_tree, pg_record_machine *machine,
                           long long when, int timed, int counted);

/* As JSON: a new string to free() (never NULL). */
char *pg_record_to_json(const pg_record *rec);

/*
 * Parses a record of `len` bytes read from `display` (for messages).
 * PG_ERR_USAGE saying what is wrong, and `out` then empty.
 */
int pg_record_from_json(pg_record *out, const char *text, size_t len,
                        const char *display);

/* The benchmark named `name`, or NULL. */
const pg_record_bench *pg_record_find(const pg_record *rec, const char *name);

void pg_record_machine_clear(pg_record_machine *m);
void pg_record_clear(pg_record *rec);

#endif
