/*
 * box.h - the box that code from the revisions runs in.
 *
 * A pull request's code is hostile until proven otherwise, and perfgate
 * runs it: the project's build command, the compiler on its sources, the
 * measuring child that loads it, valgrind.  Each of those runs through
 * bubblewrap when the machine allows it (user namespaces): every file is
 * read-only but the paths the run is given to write and a private
 * temporary directory; the paths it must not see are hidden; there is no
 * network; and it has its own PID namespace, so that ending the run ends
 * every process in it, setsid() or not, and a perfgate killed outright
 * takes the whole box along.  The timing of what runs inside is the same
 * (docs/accuracy.md).
 *
 * Where no box can be made, runs go on as before (the report says so
 * once); `--sandbox require` makes that an error.
 */
#ifndef PG_BOX_H
#define PG_BOX_H

#include "strvec.h"

typedef enum pg_box_mode {
    PG_BOX_AUTO = 0, /* a box where the machine allows it */
    PG_BOX_REQUIRE,  /* a box, or an error */
    PG_BOX_OFF       /* no box */
} pg_box_mode;

#define PG_BOX_PATHS 4

/* What one run may touch: NULL ends each list early. */
typedef struct pg_box {
    const char *write[PG_BOX_PATHS]; /* writable (directories) */
    const char *hide[PG_BOX_PATHS];  /* replaced by an empty directory */
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
 * The command line that runs `argv` in `box`, in `cwd` (NULL: the current
 * directory), with `tmp` as its writable TMPDIR (NULL: none): bubblewrap's
 * options, then `argv`, into `out`.
 */
void pg_box_argv(pg_strvec *out, const pg_box *box, const char *tmp,
                 const char *cwd, char *const argv[]);

#endif
