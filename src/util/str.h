/*
 * str.h - the one growable string buffer used everywhere (after libgit2's
 * git_str and git's strbuf).  A buffer may carry a size cap: output from a
 * child process goes into a capped buffer that keeps the newest bytes, so a
 * runaway compiler or solution cannot exhaust perfgate's memory.
 */
#ifndef PG_STR_H
#define PG_STR_H

#include <stdarg.h>
#include <stddef.h>

typedef struct pg_str {
    char *ptr;     /* always NUL-terminated once anything was added */
    size_t size;   /* bytes used, without the NUL */
    size_t alloc;  /* bytes allocated */
    size_t cap;    /* 0: unlimited; else the most bytes kept (the newest) */
    int truncated; /* set when a capped buffer dropped old bytes */
} pg_str;

#define PG_STR_INIT                                                            \
    {                                                                          \
        NULL, 0, 0, 0, 0                                                       \
    }

/* Initializes an empty buffer that keeps at most `cap` bytes (0: no cap). */
void pg_str_init(pg_str *s, size_t cap);

/* Frees the buffer's memory and makes it empty again. */
void pg_str_clear(pg_str *s);

/* Empties the buffer, keeping its memory. */
void pg_str_reset(pg_str *s);

/*
 * Appends; a capped buffer drops its oldest bytes to stay within its cap.
 * Allocation failure aborts the process: perfgate has no useful way on.
 */
void pg_str_put(pg_str *s, const char *data, size_t len);
void pg_str_puts(pg_str *s, const char *text);
void pg_str_putc(pg_str *s, char c);
void pg_str_printf(pg_str *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void pg_str_vprintf(pg_str *s, const char *fmt, va_list ap);

/* The contents, "" when empty; owned by the buffer. */
const char *pg_str_cstr(const pg_str *s);

/* Hands the contents to the caller (free() it) and empties the buffer. */
char *pg_str_detach(pg_str *s);

/* Removes trailing whitespace. */
void pg_str_rtrim(pg_str *s);

/* The last `lines` lines of `text`, appended to `out`. */
void pg_str_put_tail_lines(pg_str *out, const char *text, int lines);

/*
 * The length of the UTF-8 character that starts at `s` (1 to 4), or 0 when
 * the bytes there are not a valid one (a stray continuation byte, an
 * overlong form, a surrogate, beyond U+10FFFF, or cut short).
 */
size_t pg_utf8_char_len(const unsigned char *s, size_t avail);

/*
 * `text` as text that is safe to show anywhere: valid UTF-8, with every
 * invalid byte, and every control character but newline and tab (an
 * escape sequence, a carriage return, C1 controls, the bidirectional
 * controls such as U+202E), replaced by U+FFFD.
 * Text from compilers and user code, and commit subjects in any encoding,
 * pass through this before perfgate writes them.  NULL gives NULL.
 */
char *pg_text_clean(const char *text);

/* Replaces *text by pg_text_clean(*text). */
void pg_text_clean_in_place(char **text);

/* The largest n <= max at which `text` can be cut without splitting a
 * UTF-8 character. */
size_t pg_utf8_cut(const char *text, size_t max);

/* printf into a new heap string (free() it); aborts on allocation failure. */
char *pg_strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* strdup that aborts on allocation failure; NULL gives NULL. */
char *pg_strdup(const char *s);

/*
 * perfgate's one answer to memory that cannot be had for its own data:
 * "perfgate: out of memory" on stderr, and abort().  (What a problem or
 * a solution asks for, in the measuring child, is a case's to fail, not
 * perfgate's: engine/plugin.c says which case did not fit.)  cJSON
 * allocates through pg_malloc too (pg_json_hooks).
 */
void pg_out_of_memory(void) __attribute__((noreturn));

/* malloc/calloc/realloc that abort on allocation failure. */
void *pg_malloc(size_t size);
void *pg_calloc(size_t n, size_t size);
void *pg_realloc(void *p, size_t size);

#endif
