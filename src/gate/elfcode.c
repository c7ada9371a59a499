/*
 * elfcode.c - comparing what two ELF files would load.
 */
#include "elfcode.h"
#include "fs.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

#define ELF_MAX (1024UL * 1024 * 1024)

/* The file's headers, checked to lie within it; NULL when not ELF64. */
static Elf64_Phdr *program_headers(char *data, size_t len, Elf64_Ehdr **eh)
{
    Elf64_Ehdr *e = (Elf64_Ehdr *)data;

    if (len < sizeof(*e) || memcmp(e->e_ident, ELFMAG, SELFMAG) ||
        e->e_ident[EI_CLASS] != ELFCLASS64 ||
        e->e_phentsize != sizeof(Elf64_Phdr) || e->e_phoff > len ||
        (size_t)e->e_phnum * sizeof(Elf64_Phdr) > len - e->e_phoff)
        return NULL;
    *eh = e;
    return (Elf64_Phdr *)(data + e->e_phoff);
}

/* Zeroes the descriptor of every GNU build-id note in the file. */
static void blank_build_ids(char *data, size_t len, const Elf64_Ehdr *e,
                            const Elf64_Phdr *ph)
{
    int i;

    for (i = 0; i < e->e_phnum; i++) {
        size_t off = ph[i].p_offset, end;
        if (ph[i].p_type != PT_NOTE || off > len || ph[i].p_filesz > len - off)
            continue;
        end = off + ph[i].p_filesz;
        while (end - off >= sizeof(Elf64_Nhdr)) {
            const Elf64_Nhdr *n = (const Elf64_Nhdr *)(data + off);
            /* In size_t: a size near 2^32 must not wrap to a small one. */
            size_t name = ((size_t)n->n_namesz + 3) & ~(size_t)3;
            size_t desc = ((size_t)n->n_descsz + 3) & ~(size_t)3;
            off += sizeof(*n);
            if (name > end - off || desc > end - off - name)
                break;
            if (n->n_type == NT_GNU_BUILD_ID)
                memset(data + off + name, 0, n->n_descsz);
            off += name + desc;
        }
    }
}

/* Reads `path` and sets aside what does not change what is loaded. */
static char *load(const char *path, size_t *len, Elf64_Ehdr **e,
                  Elf64_Phdr **ph)
{
    char *data = NULL;

    if (pg_read_file(&data, len, path, ELF_MAX) < 0)
        return NULL;
    if (!(*ph = program_headers(data, *len, e))) {
        free(data);
        return NULL;
    }
    blank_build_ids(data, *len, *e, *ph);
    (*e)->e_shoff = 0;
    (*e)->e_shnum = 0;
    (*e)->e_shstrndx = 0;
    return data;
}

int pg_elfcode_same(const char *a, const char *b)
{
    char *da, *db = NULL;
    size_t la, lb;
    Elf64_Ehdr *ea, *eb;
    Elf64_Phdr *pa, *pb;
    int same = 0, i;

    if (!(da = load(a, &la, &ea, &pa)) || !(db = load(b, &lb, &eb, &pb)))
        goto done;
    if (memcmp(ea, eb, sizeof(*ea)) || ea->e_phnum != eb->e_phnum ||
        memcmp(pa, pb, (size_t)ea->e_phnum * sizeof(*pa)))
        goto done;
    same = 1;
    for (i = 0; same && i < ea->e_phnum; i++) {
        size_t off = pa[i].p_offset, n = pa[i].p_filesz;
        if (pa[i].p_type != PT_LOAD)
            continue;
        same = off <= la && n <= la - off && off <= lb && n <= lb - off &&
               !memcmp(da + off, db + off, n);
    }
done:
    free(da);
    free(db);
    return same;
}
