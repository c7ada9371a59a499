/*
 * str.c - the growable string buffer.
 */
#include "str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

void pg_out_of_memory(void)
{
    static const char msg[] = "perfgate: out of memory\n";

    /* write(2), not stdio, which may itself need memory. */
    if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
        abort();
    abort();
}

void *pg_malloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        pg_out_of_memory();
    return p;
}

void *pg_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        pg_out_of_memory();
    return p;
}

void *pg_realloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q)
        pg_out_of_memory();
    return q;
}

char *pg_strdup(const char *s)
{
    size_t len;
    char *d;

    if (!s)
        return NULL;
    len = strlen(s);
    d = pg_malloc(len + 1);
    memcpy(d, s, len + 1);
    return d;
}

void pg_str_init(pg_str *s, size_t cap)
{
    memset(s, 0, sizeof(*s));
    s->cap = cap;
}

void pg_str_clear(pg_str *s)
{
    size_t cap = s->cap;

    free(s->ptr);
    pg_str_init(s, cap);
}

void pg_str_reset(pg_str *s)
{
    s->size = 0;
    s->truncated = 0;
    if (s->ptr)
        s->ptr[0] = '\0';
}

static void grow(pg_str *s, size_t need)
{
    size_t alloc;

    if (need + 1 <= s->alloc)
        return;
    alloc = s->alloc ? s->alloc : 64;
    while (alloc < need + 1)
        alloc *= 2;
    s->ptr = pg_realloc(s->ptr, alloc);
    s->alloc = alloc;
}

void pg_str_put(pg_str *s, const char *data, size_t len)
{
    if (s->cap && len >= s->cap) {
        /* Only the newest `cap` bytes of `data` survive. */
        data += len - s->cap;
        len = s->cap;
        s->size = 0;
        s->truncated = 1;
    } else if (s->cap && s->size + len > s->cap) {
        size_t drop = s->size + len - s->cap;
        memmove(s->ptr, s->ptr + drop, s->size - drop);
        s->size -= drop;
        s->truncated = 1;
    }
    grow(s, s->size + len);
    memcpy(s->ptr + s->size, data, len);
    s->size += len;
    s->ptr[s->size] = '\0';
    if (s->truncated) {
        /* What was cut off may have been a character's first bytes. */
        size_t skip = 0;
        while (skip < 3 && skip < s->size &&
               ((unsigned char)s->ptr[skip] & 0xc0) == 0x80)
            skip++;
        if (skip) {
            memmove(s->ptr, s->ptr + skip, s->size - skip + 1);
            s->size -= skip;
        }
    }
}

void pg_str_puts(pg_str *s, const char *text)
{
    pg_str_put(s, text, strlen(text));
}

void pg_str_putc(pg_str *s, char c)
{
    pg_str_put(s, &c, 1);
}

void pg_str_vprintf(pg_str *s, const char *fmt, va_list ap)
{
    char small[256];
    va_list copy;
    int n;

    va_copy(copy, ap);
    n = vsnprintf(small, sizeof(small), fmt, copy);
    va_end(copy);
    if (n < 0)
        return;
    if ((size_t)n < sizeof(small)) {
        pg_str_put(s, small, (size_t)n);
    } else {
        char *big = pg_malloc((size_t)n + 1);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        pg_str_put(s, big, (size_t)n);
        free(big);
    }
}

void pg_str_printf(pg_str *s, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    pg_str_vprintf(s, fmt, ap);
    va_end(ap);
}

const char *pg_str_cstr(const pg_str *s)
{
    return s->ptr ? s->ptr : "";
}

char *pg_str_detach(pg_str *s)
{
    char *p = s->ptr ? s->ptr : pg_strdup("");
    size_t cap = s->cap;

    pg_str_init(s, cap);
    return p;
}

void pg_str_rtrim(pg_str *s)
{
    while (s->size > 0 && strchr(" \t\r\n", s->ptr[s->size - 1]))
        s->ptr[--s->size] = '\0';
}

void pg_str_put_tail_lines(pg_str *out, const char *text, int lines)
{
    size_t len = strlen(text);
    size_t start;

    while (len > 0 && strchr(" \t\r\n", text[len - 1]))
        len--;
    start = len;
    while (start > 0) {
        if (text[start - 1] == '\n' && --lines == 0)
            break;
        start--;
    }
    pg_str_put(out, text + start, len - start);
}

char *pg_strdupf(const char *fmt, ...)
{
    pg_str s = PG_STR_INIT;
    va_list ap;

    va_start(ap, fmt);
    pg_str_vprintf(&s, fmt, ap);
    va_end(ap);
    return pg_str_detach(&s);
}

size_t pg_utf8_char_len(const unsigned char *s, size_t avail)
{
    unsigned c = s[0];
    size_t n, i;
    unsigned cp;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, cp = c & 0x07;
    else
        return 0;
    if (avail < n)
        return 0;
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    return n;
}

/*
 * Whether the 3-byte character at `p` is a bidirectional control (U+200E,
 * U+200F, U+202A to U+202E, U+2066 to U+2069): text that reads one way and
 * shows another ("Trojan Source").  U+061C, the other, is 2 bytes.
 */
static int is_bidi(const unsigned char *p)
{
    if (p[0] != 0xe2)
        return 0;
    if (p[1] == 0x80)
        return p[2] == 0x8e || p[2] == 0x8f || (p[2] >= 0xaa && p[2] <= 0xae);
    return p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9;
}

char *pg_text_clean(const char *text)
{
    static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */
    const unsigned char *p = (const unsigned char *)text;
    size_t len, i = 0;
    pg_str out = PG_STR_INIT;

    if (!text)
        return NULL;
    /* Printable ASCII (names, numbers, most subjects): as it is. */
    for (len = 0; p[len] >= 0x20 && p[len] < 0x7f; len++)
        ;
    if (!p[len])
        return pg_strdup(text);
    len += strlen(text + len);
    pg_str_init(&out, 0);
    grow(&out, len);
    out.ptr[0] = '\0';
    while (i < len) {
        size_t n = pg_utf8_char_len(p + i, len - i);
        int control = n == 1 ? (p[i] < 0x20 && p[i] != '\n' && p[i] != '\t') ||
                                   p[i] == 0x7f
                      : n == 2 ? (p[i] == 0xc2 && p[i + 1] < 0xa0) ||
                                     (p[i] == 0xd8 && p[i + 1] == 0x9c)
                               : n == 3 && is_bidi(p + i);
        if (!n || control)
            pg_str_puts(&out, replacement);
        else
            pg_str_put(&out, text + i, n);
        i += n ? n : 1;
    }
    return pg_str_detach(&out);
}

void pg_text_clean_in_place(char **text)
{
    char *clean = pg_text_clean(*text);

    free(*text);
    *text = clean;
}

size_t pg_utf8_cut(const char *text, size_t max)
{
    size_t len = strlen(text);

    if (len <= max)
        return len;
    /* Back off over continuation bytes to a character's first byte. */
    while (max > 0 && ((unsigned char)text[max] & 0xc0) == 0x80)
        max--;
    return max;
}
