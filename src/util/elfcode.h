/*
 * elfcode.h - what an ELF file holds: whether two built libraries would
 * load the same code, its functions by address and by name, and a
 * function of a loaded library that dlsym() cannot see.
 *
 * Two shared libraries load the same code and data when their loadable
 * segments (PT_LOAD) are byte for byte the same, once what does not change
 * what runs is set aside: the build id (a hash that may cover the debug
 * information, which holds paths) and the section headers' place in the
 * file (which moves with the size of that debug information).  A
 * benchmark whose two sides load the same code cannot have changed, and
 * is not measured.
 */
#ifndef PG_ELFCODE_H
#define PG_ELFCODE_H

/*
 * 1 when the ELF files `a` and `b` load the same code and data; 0 when
 * they differ, or when either cannot be read or is not a 64-bit ELF file
 * (then they are measured, which is always safe).
 */
int pg_elfcode_same(const char *a, const char *b);

#include <stddef.h>
#include <stdint.h>

/* A function's code: [start, end) from where the file is loaded. */
typedef struct pg_elf_func {
    uint64_t start, end;
    const char *name; /* in the table's strings */
} pg_elf_func;

/* The functions of an ELF file, by address. */
typedef struct pg_elf_funcs {
    pg_elf_func *v;
    size_t n;
    char *strings;
    uint64_t base; /* the first loaded page's address in the file */
} pg_elf_funcs;

/*
 * Reads the functions of the 64-bit ELF file at `path` from its symbol
 * table (.symtab, which has the static ones; else .dynsym), addresses
 * taken from where its first segment is loaded (as dladdr's dli_fbase).
 * 0, or -1 when the file cannot be read or has neither table; `out` is
 * empty then, and pg_elf_funcs_clear() frees it either way.
 */
int pg_elf_funcs_read(pg_elf_funcs *out, const char *path);
/* The function whose code holds `offset`; NULL when none does. */
const pg_elf_func *pg_elf_funcs_at(const pg_elf_funcs *f, uint64_t offset);
/* The function named `name`; NULL when the file has none. */
const pg_elf_func *pg_elf_funcs_named(const pg_elf_funcs *f, const char *name);
void pg_elf_funcs_clear(pg_elf_funcs *f);

/*
 * The function `name` of the library `handle` (dlopen()'s): dlsym()'s
 * answer, else the one function of that name in the library's own symbol
 * table, which also has what the library does not export (a project's
 * archive built with -fvisibility=hidden, a static function).  NULL when
 * there is none, or several (static functions of one name in two files).
 */
void *pg_elf_symbol(void *handle, const char *name);

/*
 * 1 when the code of the 64-bit ELF file at `path` (its executable
 * segments) holds valgrind's client-request preamble, the instructions
 * through which code asks valgrind about itself (RUNNING_ON_VALGRIND) or
 * tells a tool what to do (CALLGRIND_TOGGLE_COLLECT): code that could act
 * one way when counted and another when run.  0 when it does not, or on
 * a processor whose preamble perfgate does not know; -1 when the file
 * cannot be read.
 */
int pg_elfcode_asks_valgrind(const char *path);

/*
 * 1 when the 64-bit ELF file at `path` searches paths of its own for the
 * libraries it loads (DT_RPATH or DT_RUNPATH: a program that loads a
 * library of its build tree, which may differ where the program does
 * not); 0 when it does not; -1 when the file cannot be read.
 */
int pg_elf_has_runpath(const char *path);

#endif
