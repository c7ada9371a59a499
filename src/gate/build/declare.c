/*
 * declare.c - a function's prototype read from its header (declare.h).
 */
#include "declare.h"
#include "build.h"
#include "error.h"
#include "fs.h"
#include "function.h"
#include "prototype.h"
#include "str.h"
#include "strvec.h"
#include "words.h"

#include <stdlib.h>
#include <string.h>

#include "banned.h"

typedef struct tok {
    const char *at;
    size_t len;
    int ident;
} tok;

typedef struct toks {
    tok *v;
    size_t n, alloc;
} toks;

/* What a typedef names. */
enum { TD_PLAIN, TD_AGGREGATE, TD_FUNCTION, TD_POINTER, TD_ARRAY };

typedef struct tdef {
    tok name;
    size_t from, to; /* its type's tokens, in the whole text's list */
    int kind;
} tdef;

typedef struct scan {
    toks t;
    tdef *defs;
    size_t ndefs;
    size_t decl_from, decl_to; /* the last declaration of the function */
    int found;
    pg_strvec functions; /* every function the text declares */
} scan;

static void push(toks *t, const char *at, size_t len, int ident)
{
    if (t->n == t->alloc) {
        t->alloc = t->alloc ? 2 * t->alloc : 1024;
        t->v = pg_realloc(t->v, t->alloc * sizeof(*t->v));
    }
    t->v[t->n].at = at;
    t->v[t->n].len = len;
    t->v[t->n].ident = ident;
    t->n++;
}

static int ident_char(char c, int first)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (!first && c >= '0' && c <= '9');
}

static int is(const tok *t, const char *word)
{
    return t->len == strlen(word) && !strncmp(t->at, word, t->len);
}

/* The tokens of `text`: names, numbers, literals (as one), punctuation;
 * lines the preprocessor left (#pragma) skipped. */
static void tokenize(toks *t, const char *text)
{
    const char *p = text;
    int line_start = 1;

    while (*p) {
        const char *q = p;
        if (*p == '\n') {
            line_start = 1;
            p++;
            continue;
        }
        if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v') {
            p++;
            continue;
        }
        if (*p == '#' && line_start) {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        line_start = 0;
        if (ident_char(*p, 1)) {
            while (ident_char(*q, 0))
                q++;
            push(t, p, (size_t)(q - p), 1);
        } else if (*p >= '0' && *p <= '9') {
            while (ident_char(*q, 0) || *q == '.')
                q++;
            push(t, p, (size_t)(q - p), 0);
        } else if (*p == '"' || *p == '\'') {
            for (q = p + 1; *q && *q != *p && *q != '\n'; q++)
                if (*q == '\\' && q[1])
                    q++;
            if (*q == *p)
                q++;
            push(t, p, (size_t)(q - p), 0);
        } else if (!strncmp(p, "...", 3)) {
            q = p + 3;
            push(t, p, 3, 0);
        } else {
            q = p + 1;
            push(t, p, 1, 0);
        }
        p = q;
    }
}

/* The index after the group that opens at `i` (`(`, `[` or `{`), or n. */
static size_t skip_group(const toks *t, size_t i)
{
    int depth = 0;

    for (; i < t->n; i++) {
        char c = t->v[i].len == 1 ? t->v[i].at[0] : 0;
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if ((c == ')' || c == ']' || c == '}') && --depth == 0)
            return i + 1;
    }
    return t->n;
}

static int punct(const tok *t, char c)
{
    return t->len == 1 && t->at[0] == c;
}

/* Words that say nothing of a type perfgate makes: dropped. */
static int noise_word(const tok *t)
{
    static const char *const words[] = {
        "__extension__", "_Noreturn", "__noreturn__",
        "_Nonnull",      "_Nullable", "_Null_unspecified",
        "__nonnull",     "__wur",     "__restrict",
        "__restrict__",  "restrict",  "__inline",
        "__inline__",    "inline",    "extern",
        "static",        "volatile",  "__volatile__",
        "__const",       NULL};
    size_t i;

    for (i = 0; t->ident && words[i]; i++)
        if (is(t, words[i]))
            return 1;
    return 0;
}

/* The tokens without attributes, asm labels and [[...]]. */
static void strip(toks *out, const toks *in)
{
    size_t i = 0;

    while (i < in->n) {
        const tok *t = &in->v[i];
        if (t->ident &&
            (is(t, "__attribute__") || is(t, "__attribute") ||
             is(t, "__declspec") || is(t, "__asm__") || is(t, "__asm") ||
             is(t, "asm") || is(t, "_Alignas") || is(t, "__typeof__")) &&
            i + 1 < in->n && punct(&in->v[i + 1], '(')) {
            i = skip_group(in, i + 1);
            continue;
        }
        if (punct(t, '[') && i + 1 < in->n && punct(&in->v[i + 1], '[')) {
            i = skip_group(in, i);
            continue;
        }
        if (is(t, "__const"))
            push(out, "const", 5, 1);
        else if (!noise_word(t))
            push(out, t->at, t->len, t->ident);
        i++;
    }
}

/* A typedef statement [from, to) (after the word typedef). */
static void add_typedef(scan *s, size_t from, size_t to)
{
    const toks *t = &s->t;
    size_t i, name = to;
    int kind = TD_PLAIN, depth = 0;

    for (i = from; i < to; i++) {
        /* Parentheses outside any braces: a function's (sizeof() in a
         * struct's member is not). */
        if (punct(&t->v[i], '(') && depth == 0)
            kind = TD_FUNCTION;
        if (punct(&t->v[i], '(') || punct(&t->v[i], '[') ||
            punct(&t->v[i], '{'))
            depth++;
        else if (punct(&t->v[i], ')') || punct(&t->v[i], ']') ||
                 punct(&t->v[i], '}'))
            depth--;
        else if (depth == 0 && t->v[i].ident)
            name = i;
    }
    if (kind == TD_FUNCTION) {
        /* int (*NAME)(...), or a function type: the name in the first
         * parentheses. */
        for (i = from, name = to, depth = 0; i + 1 < to; i++)
            if (punct(&t->v[i], '{')) {
                i = skip_group(t, i) - 1;
            } else if (punct(&t->v[i], '(')) {
                size_t k = i + 1;
                while (k < to && punct(&t->v[k], '*'))
                    k++;
                if (k < to && t->v[k].ident)
                    name = k;
                break;
            }
    } else if (name < to && name + 1 < to && punct(&t->v[name + 1], '[')) {
        kind = TD_ARRAY;
    }
    if (name >= to)
        return;
    for (i = from; kind == TD_PLAIN && i < name; i++)
        if (is(&t->v[i], "struct") || is(&t->v[i], "union") ||
            is(&t->v[i], "enum"))
            kind = TD_AGGREGATE;
        else if (punct(&t->v[i], '*'))
            kind = TD_POINTER;
    s->defs = pg_realloc(s->defs, (s->ndefs + 1) * sizeof(*s->defs));
    s->defs[s->ndefs].name = t->v[name];
    s->defs[s->ndefs].from = from;
    s->defs[s->ndefs].to = kind == TD_FUNCTION ? from : name;
    s->defs[s->ndefs].kind = kind;
    s->ndefs++;
}

/* A statement [from, to) that is not a typedef: the functions it
 * declares (a name before '(' outside any parentheses). */
static void add_statement(scan *s, size_t from, size_t to, const char *name)
{
    const toks *t = &s->t;
    size_t i;

    for (i = from; i + 1 < to; i++) {
        if (punct(&t->v[i], '(') || punct(&t->v[i], '[') ||
            punct(&t->v[i], '{')) {
            size_t end = skip_group(t, i);
            if (end > to)
                return;
            i = end - 1;
            continue;
        }
        if (!t->v[i].ident || !punct(&t->v[i + 1], '('))
            continue;
        pg_strvec_pushf(&s->functions, "%.*s", (int)t->v[i].len, t->v[i].at);
        if (is(&t->v[i], name)) {
            s->found = 1;
            s->decl_from = from;
            s->decl_to = skip_group(t, i + 1);
        }
        return;
    }
}

static void read_text(scan *s, const char *name)
{
    const toks *t = &s->t;
    size_t i = 0, start = 0;

    while (i < t->n) {
        const tok *k = &t->v[i];
        if (punct(k, ';')) {
            if (start < i && is(&t->v[start], "typedef"))
                add_typedef(s, start + 1, i);
            else if (start < i)
                add_statement(s, start, i, name);
            start = ++i;
        } else if (punct(k, '{') && i > start && punct(&t->v[i - 1], ')')) {
            /* A function's body: its declaration, then past the body. */
            add_statement(s, start, i, name);
            start = i = skip_group(t, i);
        } else if (punct(k, '(') || punct(k, '[') || punct(k, '{')) {
            i = skip_group(t, i);
        } else {
            i++;
        }
    }
}

static const tdef *find_def(const scan *s, const tok *t)
{
    size_t i;

    /* The last definition wins, as C's scope would have it. */
    for (i = s->ndefs; t->ident && i-- > 0;)
        if (s->defs[i].name.len == t->len &&
            !strncmp(s->defs[i].name.at, t->at, t->len))
            return &s->defs[i];
    return NULL;
}

/* Whether C as people write it has a space between `a` and `b`. */
static int spaced(const tok *a, const tok *b)
{
    if (punct(b, '(') || punct(b, ')') || punct(b, ',') || punct(a, '('))
        return 0;
    if (punct(a, ','))
        return 1;
    return (a->ident || punct(a, '*')) && (b->ident || punct(b, '*'));
}

/* The declaration's tokens, typedef names replaced, as text; NULL with
 * *why when a type cannot be told. */
static char *resolve(const scan *s, const char *name, const char *header,
                     char **why)
{
    toks cur = {NULL, 0, 0}, next = {NULL, 0, 0};
    pg_str out = PG_STR_INIT;
    size_t i, k;
    int round, changed = 1;

    for (i = s->decl_from; i < s->decl_to; i++)
        push(&cur, s->t.v[i].at, s->t.v[i].len, s->t.v[i].ident);
    for (round = 0; changed && round < 32 && !*why; round++) {
        changed = 0;
        next.n = 0;
        for (i = 0; i < cur.n && !*why; i++) {
            const tok *t = &cur.v[i];
            const tdef *d =
                is(t, name) || pg_prototype_known_type(t->at, t->len)
                    ? NULL
                    : find_def(s, t);
            if (!d) {
                push(&next, t->at, t->len, t->ident);
                continue;
            }
            if (d->kind == TD_FUNCTION || d->kind == TD_ARRAY)
                *why = pg_strdupf(
                    "'%.*s' is %s in %s, which perfgate cannot make: write "
                    "a problem file for it (perfgate init --problem), or an "
                    "adapter that takes plain arguments",
                    (int)t->len, t->at,
                    d->kind == TD_FUNCTION ? "a function pointer" : "an array",
                    header);
            else if (d->kind == TD_POINTER && i > 0 &&
                     (is(&cur.v[i - 1], "const") ||
                      (i + 1 < cur.n && is(&cur.v[i + 1], "const"))))
                *why = pg_strdupf(
                    "'%.*s' is a pointer in %s, and a const one here, which "
                    "perfgate cannot tell from a pointer to const: write the "
                    "prototype with the pointer spelled out in function:, "
                    "keeping header:",
                    (int)t->len, t->at, header);
            for (k = d->from; k < d->to && !*why; k++)
                push(&next, s->t.v[k].at, s->t.v[k].len, s->t.v[k].ident);
            changed = 1;
        }
        {
            toks swap = cur;
            cur = next;
            next = swap;
        }
    }
    for (i = 0; i < cur.n && !*why; i++)
        pg_str_printf(&out, "%s%.*s",
                      i && spaced(&cur.v[i - 1], &cur.v[i]) ? " " : "",
                      (int)cur.v[i].len, cur.v[i].at);
    free(cur.v);
    free(next.v);
    if (*why) {
        pg_str_clear(&out);
        return NULL;
    }
    return pg_str_detach(&out);
}

int pg_declare_read(char **prototype, char **why, const char *text,
                    const char *name, const char *header)
{
    toks raw = {NULL, 0, 0};
    scan s;
    char hint[160];

    *prototype = NULL;
    *why = NULL;
    memset(&s, 0, sizeof(s));
    tokenize(&raw, text);
    strip(&s.t, &raw);
    free(raw.v);
    read_text(&s, name);
    if (!s.found)
        *why = pg_strdupf("%s declares no function '%s'%s", header, name,
                          pg_suggest_text(hint, sizeof(hint), name,
                                          pg_strvec_list(&s.functions)));
    else
        *prototype = resolve(&s, name, header, why);
    free(s.t.v);
    free(s.defs);
    pg_strvec_clear(&s.functions);
    return *why ? 1 : 0;
}

/* The function's name as function: gives it: a bare name, or the name
 * before the prototype's first '('; a new string. */
static char *function_name(const char *written)
{
    const char *paren = strchr(written, '('), *end, *p;

    if (!paren)
        paren = written + strlen(written);
    end = paren;
    while (end > written && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    p = end;
    while (p > written && ident_char(p[-1], 0))
        p--;
    return pg_strdupf("%.*s", (int)(end - p), p);
}

int pg_declare_side(const pg_rev rev[2], const char *header)
{
    int s;

    for (s = 1; s >= 0; s--) {
        char *path;
        int there;
        if (!rev[s].dir)
            continue;
        path = pg_path_join(rev[s].dir, header);
        there = pg_path_is_file(path);
        free(path);
        if (there)
            return s;
    }
    return -1;
}

int pg_declare_function(pg_bench_config *b, const char *display,
                        const pg_rev rev[2], const char *out_dir,
                        double timeout)
{
    pg_function *f = b->function;
    const pg_fmark *at = &f->header_mark;
    char *name = function_name(f->prototype), *source = NULL, *text = NULL;
    char *proto = NULL, *why = NULL;
    pg_build build;
    int s = pg_declare_side(rev, f->header), err = 0;

    memset(&build, 0, sizeof(build));
    if (s < 0) {
        err = pg_error_set(PG_ERR_USAGE,
                           "%s:%d:%d: header: %s is in neither side's tree: "
                           "give its path from the repository's root, such "
                           "as include/%s",
                           display, at->at.line, at->at.col + at->quoted,
                           f->header, pg_path_basename(f->header));
        goto done;
    }
    /* The header, then what function: says (a prototype written with the
     * header's macros and types is the last declaration). */
    source = pg_strdupf("#include \"%s/%s\"\n%s%s\n", rev[s].dir, f->header,
                        strchr(f->prototype, '(') ? f->prototype : "",
                        strchr(f->prototype, '(') ? ";" : "");
    if ((err = pg_build_preprocess(&build, &text, b, rev[s].dir, out_dir,
                                   source, timeout)) < 0)
        goto done;
    if (!build.ok) {
        char *first = build.log ? strchr(build.log, '\n') : NULL;
        err = pg_error_set(
            PG_ERR_USAGE,
            "%s:%d:%d: header: %s does not preprocess with the benchmark's "
            "cflags and include: (the %s's tree%s%.*s); add the directories "
            "it includes from to include:, or the -D it needs to cflags",
            display, at->at.line, at->at.col + at->quoted, f->header,
            s ? "head" : "base", first ? ": " : "",
            first ? (int)strcspn(first + 1, "\n") : 0, first ? first + 1 : "");
        goto done;
    }
    if (pg_declare_read(&proto, &why, text, name, f->header)) {
        at = &f->mark;
        err = pg_error_set(PG_ERR_USAGE, "%s:%d:%d: %s", display, at->at.line,
                           at->at.col + at->quoted, why);
        goto done;
    }
    {
        pg_prototype p;
        size_t col;
        at = &f->mark;
        if (pg_prototype_parse(&p, proto, &col) < 0) {
            err = pg_error_set(PG_ERR_USAGE,
                               "%s:%d:%d: %s as %s declares it (%s): %s%s",
                               display, at->at.line, at->at.col + at->quoted,
                               name, f->header, proto, pg_error_last(),
                               strstr(pg_error_last(), "has no name")
                                   ? " (write its prototype with names in "
                                     "function:, keeping header: for its "
                                     "types)"
                                   : "");
            goto done;
        }
        pg_prototype_clear(&p);
    }
    f->declared = f->prototype;
    f->prototype = proto;
    proto = NULL;
    err = pg_config_function_ready(b, display);
done:
    pg_build_clear(&build);
    free(name);
    free(source);
    free(text);
    free(proto);
    free(why);
    return err;
}
