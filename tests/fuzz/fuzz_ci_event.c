/*
 * fuzz_ci_event.c - the GitHub event file carries what a pull request's
 * author wrote (titles, branch names, and for a fork much more).  Every
 * byte string, under each event name perfgate reads, must give revisions
 * that are commit ids or a refusal with a message, never a crash, a leak
 * or undefined behaviour.
 *
 * Built as a libFuzzer target with -DPERFGATE_FUZZ=ON (clang); its corpus
 * also runs as an ordinary test through run_corpus.c.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ci.h"
#include "error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What reaches git: a commit id, or the sha given, with "~1". */
static int plausible(const char *rev)
{
    size_t n = rev ? strspn(rev, "0123456789abcdefABCDEF") : 0;

    return !rev || ((n == 40 || n == 64) && (!rev[n] || !strcmp(rev + n, "~1")));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const events[] = {"pull_request", "pull_request_target",
                                         "merge_group", "push", "schedule"};
    static const char sha[] = "0123456789abcdef0123456789abcdef01234567";
    size_t i;

    for (i = 0; i < sizeof(events) / sizeof(*events); i++) {
        pg_ci ci;
        memset(&ci, 0, sizeof(ci));
        if (pg_ci_from_github_event(&ci, events[i], (const char *)data, size,
                                    sha) < 0) {
            if (!pg_error_last())
                __builtin_trap();
        } else if (!plausible(ci.base) || !plausible(ci.head) || !ci.what) {
            __builtin_trap();
        }
        pg_ci_clear(&ci);
        pg_error_clear();
    }
    return 0;
}
