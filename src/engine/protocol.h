/*
 * protocol.h - what perfgate-measure (src/measurer) says to perfgate: every
 * event, its word and its fields, declared once for the sender and the
 * readers (src/gate/run/run.c, src/gate/cases.c).  docs/internals.md ("The
 * measuring child's protocol") describes the same events for people.
 *
 * Each event is one line on the message channel (proc.h: pg_proc_send,
 * pg_proc_message): "[TOKEN ]WORD FIELDS".  PG_EV_X is the word, and
 * PG_EV_X_FMT the printf format of the whole line, word included, so that
 * the compiler checks every sender against it.  A reader matches the word
 * and reads the fields in the order given here.
 */
#ifndef PG_PROTOCOL_H
#define PG_PROTOCOL_H

/* `perfgate-measure SPEC`: the events of a run, with the run's token. */

/* STAGE ROUND SECONDS: "verifying", "warming" or "measuring", for the
 * progress line. */
#define PG_EV_PROGRESS "progress"
#define PG_EV_PROGRESS_FMT PG_EV_PROGRESS " %s %d %.3f"

/* "head", or nothing: the head was checked and found right; with no word,
 * both sides were and nothing is to be measured (verify_only). */
#define PG_EV_VERIFIED "verified"
#define PG_EV_VERIFIED_HEAD "head"

/* I BASE HEAD OVERHEAD INNER FLOPS BYTES LO HI QUANTUM: case I's times
 * (ns per call, estimate.h), the harness's cost per call, the calls per
 * sample, the work of one call, the case's 95% interval of the change,
 * and one sample's timer error over its calls (ns). */
#define PG_EV_CASE "case"
#define PG_EV_CASE_FMT                                                         \
    PG_EV_CASE " %zu %.6f %.6f %.6f %llu %.17g %.17g %.9f %.9f %.9g"

/* SLOTS SHIFT: round r ran each side at placement slot (r + SHIFT) %
 * SLOTS (pg_estimate_run), for the samples' owner to pool them. */
#define PG_EV_PLACED "placed"
#define PG_EV_PLACED_FMT PG_EV_PLACED " %d %d"

/* CASE SIDE FIRST NS...: a side's samples of a case, in round order from
 * sample FIRST, at most PG_EV_SAMPLES_PER_LINE a line. */
#define PG_EV_SAMPLES "samples"
#define PG_EV_SAMPLES_FMT PG_EV_SAMPLES " %zu %d %d"
#define PG_EV_SAMPLES_PER_LINE 64

/* RUNTIME SAMPLES THROTTLED KEPT_THROTTLED CLOCK_MHZ GATED: a CUDA
 * benchmark's device figures. */
#define PG_EV_GPU "gpu"
#define PG_EV_GPU_FMT PG_EV_GPU " %d %llu %llu %llu %.1f %d"

/* ROUNDS CALLS_BASE CALLS_HEAD SECONDS CHANGE LO HI STOP: measuring ended;
 * STOP is "clear" or "max_time". */
#define PG_EV_DONE "done"
#define PG_EV_DONE_FMT PG_EV_DONE " %d %llu %llu %.6f %.9f %.9f %.9f %s"

/* STATUS SIDE MESSAGE: the benchmark ends with STATUS (pg_status_name:
 * "incorrect", "crashed", ...), charged to SIDE ("base", "head", or "-"
 * for the problem's own code). */
#define PG_EV_FAIL "fail"
#define PG_EV_FAIL_FMT PG_EV_FAIL " %s %s %s"

/* FEATURES: the CPU features the code sees (codepath.h), space-separated;
 * under valgrind, the simulated CPU's.  Sent by counted and sampled runs. */
#define PG_EV_CPU "cpu"
#define PG_EV_CPU_FMT PG_EV_CPU " %s"

/* CASE SIDE CALLS ALLOCS FREES BYTES PEAK LEAKED MAPPED UNKNOWN
 * UNTRACKED NS: the heap of CALLS calls of a side on case CASE (counted in
 * a check, libperfgate-memory.so's counts): blocks allocated and freed, bytes
 * asked for, the most live bytes above a call's start in any one call, the
 * bytes left live after them all (negative: freed more than it took), bytes
 * mapped outside malloc, frees of blocks never seen allocated, blocks not
 * tracked; and the nanoseconds the counting took. */
#define PG_EV_MEMORY "memory"
#define PG_EV_MEMORY_FMT                                                       \
    PG_EV_MEMORY " %zu %d %d %llu %llu %llu %llu %lld %llu %llu %llu %lld"

/* TEXT: a step, under `compare -v`. */
#define PG_EV_TRACE "trace"
#define PG_EV_TRACE_FMT PG_EV_TRACE " %s"

/*
 * `perfgate-measure --side SIDE SPEC`: one side alone in a process of its
 * own, taking the samples perfgate asks for (src/gate/run/split.c), with the
 * run's token.  Requests come on PG_PROC_REQUEST_FD, one a line; each gets
 * one answer.  "fail", "verified" and "trace" are as above.
 */

/* PLACEMENTS ERROR MOST: loaded, set up (and checked, unless an earlier
 * process checked the same inputs): its solution lies at PLACEMENTS
 * addresses, 1 to PG_PLACEMENTS_MOST; a counted run's counter has an
 * error of ERROR a sample and takes at most MOST calls in one (0: any);
 * ERROR is 0 when it times. */
#define PG_PLACEMENTS_MOST 8
#define PG_EV_READY "ready"
#define PG_EV_READY_FMT PG_EV_READY " %zu %.17g %llu"

/* Request CASE K CALLS SLOT WARM: times CALLS calls of the side's solution
 * (K 0) or of the empty stand-in (K -1) on case CASE, at placement SLOT,
 * after an untimed call when WARM is 1.  Answer: "sample NS". */
#define PG_RQ_TIME "time"
#define PG_RQ_TIME_FMT PG_RQ_TIME " %zu %d %llu %zu %d"
#define PG_EV_SAMPLE "sample"
#define PG_EV_SAMPLE_FMT PG_EV_SAMPLE " %.17g"

/* Request CASE: the problem's flops() and bytes() of one call of case
 * CASE.  Answer: "figures FLOPS BYTES". */
#define PG_RQ_FIGURES "figures"
#define PG_RQ_FIGURES_FMT PG_RQ_FIGURES " %zu"
#define PG_EV_FIGURES "figures"
#define PG_EV_FIGURES_FMT PG_EV_FIGURES " %.17g %.17g"

/* Request: timing is over; the side is checked again (unless a later
 * process checks it) and the process ends.  Answer: "ended", or "fail". */
#define PG_RQ_END "end"
#define PG_EV_ENDED "ended"

/* `perfgate-measure --describe LIB NAME [CASES]`: a problem's own words,
 * without a token. */

/* CASES: the problem's default cases ("k=v,k=v;k=v"). */
#define PG_EV_CASES "cases"
#define PG_EV_CASES_FMT PG_EV_CASES " %s"

/* CASES: its default cases on a GPU, when it has its own. */
#define PG_EV_DEVICE "device"
#define PG_EV_DEVICE_FMT PG_EV_DEVICE " %s"

/* INDEX VALUE: the bytes one call of configured case INDEX moves, as the
 * problem's bytes() says. */
#define PG_EV_BYTES "bytes"
#define PG_EV_BYTES_FMT PG_EV_BYTES " %zu %.17g"

/* MESSAGE: the problem could not be loaded. */
#define PG_EV_ERROR "error"
#define PG_EV_ERROR_FMT PG_EV_ERROR " %s"

#endif
