/*
 * box.h - the box that code from the revisions runs in.
 *
 * A pull request's code is hostile until proven otherwise, and perfgate
 * runs it: the project's build command, the compiler on its sources, the
 * measuring child that loads it, valgrind.  Each of those runs through
 * bubblewrap when the machine allows it (user namespaces): every file is
 * read-only but the paths the run is given to write and a private
 * temporary directory; the paths it must not see are hidden, and with
 * them the places that hold the machine's secrets and sockets (homes,
 * /tmp, /run), but for what the run needs of them; there is no network,
 * and no unix socket can be opened (seccomp); and it has its own PID
 * namespace, so that ending the run ends
 * every process in it, setsid() or not, and a perfgate killed outright
 * takes the whole box along.  Its environment starts empty: PATH, the
 * locale, the terminal, the compilers' variables that perfgate keys its
 * builds on, CUDA's, and what pass_env: names are let through; HOME is
 * its private temporary directory.  The tokens CI systems put in the
 * environment never reach the pull request's code, or what it prints.  The
 * timing of what runs inside is the same (docs/accuracy.md).
 *
 * Where no box can be made, runs go on as before (the report says so
 * once); `--sandbox require` makes that an error.
 */
#ifndef PG_BOX_H
#define PG_BOX_H

#include "str.h"
#include "strvec.h"

typedef enum pg_box_mode {
    PG_BOX_AUTO = 0, /* a box where the machine allows it */
    PG_BOX_REQUIRE,  /* a box, or an error */
    PG_BOX_OFF       /* no box */
} pg_box_mode;

#define PG_BOX_PATHS 4

/* The most a run may write to its private temporary directory (TMPDIR,
 * HOME), which is a tmpfs of the box's own: a build that fills it gets
 * "No space left on device", not the machine's disk. */
#define PG_BOX_TMP_BYTES (1ULL << 30)

/* What one run may touch: NULL ends each list early. */
typedef struct pg_box {
    const char *write[PG_BOX_PATHS]; /* writable (directories) */
    const char *hide[PG_BOX_PATHS];  /* replaced by an empty directory */
    /* files the run reads wherever they are (the libraries it loads, its
     * run file), shown read-only where a hidden place holds them */
    const char *show[PG_BOX_PATHS];
} pg_box;

/* "auto", "require", "off" into `out`; -1 for anything else. */
int pg_box_parse_mode(pg_box_mode *out, const char *text);

/* The mode for the rest of the process (default: PERFGATE_SANDBOX, else
 * auto). */
void pg_box_set_mode(pg_box_mode mode);
pg_box_mode pg_box_mode_get(void);

/*
 * Whether runs are boxed: bubblewrap is looked for and tried once, with
 * the answer kept.  1 when they are; 0 when not, with `why` (static
 * storage) saying why: the mode is off, bubblewrap is missing, or the
 * machine refuses it (its own words).
 */
int pg_box_ready(const char **why);

/*
 * The environment variables every boxed run is also given, by name,
 * beyond the box's own few (pass_env:); NULL or 0 for none.  Kept for
 * the rest of the process.
 */
void pg_box_pass_env(char *const *names, size_t n);

/* 1 when `name` can be an environment variable's name: letters, digits
 * and _, not starting with a digit. */
int pg_box_env_name_ok(const char *name);

/*
 * Appends to `out` the variables pass_env: lets into the box that are
 * set, one "NAME=VALUE" line each: what a build key must hold, since
 * they reach the build.
 */
void pg_box_describe_env(pg_str *out);

/*
 * As pg_box_describe_env, with the box's own names before them (but the
 * terminal's) and every LC_*: all of the environment a boxed run gets
 * from perfgate's.
 */
void pg_box_describe_kept_env(pg_str *out);

/*
 * A file or directory runs need that may lie in a place the box hides
 * (homes, /tmp, /run): perfgate's data directory, its temporary ones,
 * perfgate-measure's, a config's adapters' directories, the files a
 * function's input is read from.  Each is shown alone, read-only.  The
 * environment's PATH, compilers' and CUDA's directories, and perfgate's
 * own, are shown without asking (a tool's in a home with the first
 * directory below the home on its way: ~/.pyenv for ~/.pyenv/shims).
 */
void pg_box_show(const char *path);

/* The descriptor the box's seccomp filter is read from (pg_box_argv()). */
#define PG_BOX_SECCOMP_FD 5

/*
 * In a child about to run a boxed command: the box's seccomp filter on
 * descriptor PG_BOX_SECCOMP_FD, where bubblewrap reads it.  0, or -1 when
 * it cannot be made (then the command must not run).
 */
int pg_box_seccomp_fd(void);

/*
 * The command line that runs `argv` in `box`, in `cwd` (NULL: the current
 * directory), with `tmp` as its writable TMPDIR (NULL: none; in the box an
 * empty tmpfs of PG_BOX_TMP_BYTES at that path): bubblewrap's options,
 * then `argv`, into `out`.
 */
void pg_box_argv(pg_strvec *out, const pg_box *box, const char *tmp,
                 const char *cwd, char *const argv[]);

#endif
