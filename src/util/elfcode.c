/*
 * elfcode.c - comparing what two ELF files would load.
 */
#include "elfcode.h"
#include "fs.h"
#include "str.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
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

/* Reads the ELF64 file at `path`, its headers into *e and *ph; NULL when
 * it cannot be read or is not one. */
static char *read_elf(const char *path, size_t *len, Elf64_Ehdr **e,
                      Elf64_Phdr **ph)
{
    char *data = NULL;

    if (pg_read_file(&data, len, path, ELF_MAX) < 0)
        return NULL;
    if (!(*ph = program_headers(data, *len, e))) {
        free(data);
        return NULL;
    }
    return data;
}

/* Reads `path` and sets aside what does not change what is loaded. */
static char *load(const char *path, size_t *len, Elf64_Ehdr **e,
                  Elf64_Phdr **ph)
{
    char *data = read_elf(path, len, e, ph);

    if (!data)
        return NULL;
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

int pg_elfcode_asks_valgrind(const char *path)
{
    /* valgrind.h's "special instruction preamble": rotations of a
     * register by amounts summing to a multiple of its width, which do
     * nothing on a processor and are a request under valgrind. */
    static const unsigned char x86_64[] = {
        0x48, 0xc1, 0xc7, 0x03, 0x48, 0xc1, 0xc7, 0x0d,
        0x48, 0xc1, 0xc7, 0x3d, 0x48, 0xc1, 0xc7, 0x33}; /* rolq %rdi */
    static const unsigned char arm64[] = {0x8c, 0x0d, 0xcc, 0x93, 0x8c, 0x35,
                                          0xcc, 0x93, 0x8c, 0xcd, 0xcc, 0x93,
                                          0x8c, 0xf5, 0xcc, 0x93}; /* ror x12 */
    const unsigned char *seq;
    char *data = NULL;
    size_t len = 0;
    Elf64_Ehdr *e;
    Elf64_Phdr *ph;
    int found = 0, i;

    if (!(data = read_elf(path, &len, &e, &ph)))
        return -1;
    seq = e->e_machine == EM_X86_64    ? x86_64
          : e->e_machine == EM_AARCH64 ? arm64
                                       : NULL;
    for (i = 0; seq && !found && i < e->e_phnum; i++) {
        size_t off = ph[i].p_offset, n = ph[i].p_filesz;
        if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X) || off > len ||
            n > len - off)
            continue;
        found = memmem(data + off, n, seq, sizeof(x86_64)) != NULL;
    }
    free(data);
    return found;
}

static int by_start(const void *x, const void *y)
{
    const pg_elf_func *a = x, *b = y;

    return a->start < b->start ? -1 : a->start > b->start;
}

/* Section `i`'s header, its bytes checked to lie within the file; NULL if
 * not. */
static const Elf64_Shdr *section(const char *data, size_t len,
                                 const Elf64_Ehdr *e, size_t i)
{
    const Elf64_Shdr *sh;

    if (e->e_shentsize != sizeof(Elf64_Shdr) || i >= e->e_shnum ||
        e->e_shoff > len ||
        (size_t)e->e_shnum * sizeof(Elf64_Shdr) > len - e->e_shoff)
        return NULL;
    sh = (const Elf64_Shdr *)(data + e->e_shoff) + i;
    /* Sections with no bytes in the file are of no use here. */
    if (sh->sh_type == SHT_NOBITS || sh->sh_offset > len ||
        sh->sh_size > len - sh->sh_offset)
        return NULL;
    return sh;
}

/* The functions of symbol table `sym` (its strings in section sh_link). */
static int read_symbols(pg_elf_funcs *out, const char *data, size_t len,
                        const Elf64_Ehdr *e, const Elf64_Shdr *sym,
                        uint64_t base)
{
    const Elf64_Shdr *str = section(data, len, e, sym->sh_link);
    const Elf64_Sym *s = (const Elf64_Sym *)(data + sym->sh_offset);
    size_t n = sym->sh_size / sizeof(*s), i;

    if (!str || sym->sh_entsize != sizeof(*s) || !str->sh_size)
        return -1;
    out->strings = pg_malloc(str->sh_size + 1);
    memcpy(out->strings, data + str->sh_offset, str->sh_size);
    out->strings[str->sh_size] = '\0';
    out->v = pg_calloc(n ? n : 1, sizeof(*out->v));
    for (i = 0; i < n; i++) {
        if (ELF64_ST_TYPE(s[i].st_info) != STT_FUNC || !s[i].st_size ||
            s[i].st_shndx == SHN_UNDEF || s[i].st_name >= str->sh_size ||
            s[i].st_value < base)
            continue;
        out->v[out->n].start = s[i].st_value - base;
        out->v[out->n].end = out->v[out->n].start + s[i].st_size;
        out->v[out->n].name = out->strings + s[i].st_name;
        out->n++;
    }
    qsort(out->v, out->n, sizeof(*out->v), by_start);
    return 0;
}

int pg_elf_funcs_read(pg_elf_funcs *out, const char *path)
{
    char *data = NULL;
    size_t len, i;
    Elf64_Ehdr *e;
    Elf64_Phdr *ph;
    const Elf64_Shdr *table = NULL;
    uint64_t base = UINT64_MAX;
    int err = -1;

    memset(out, 0, sizeof(*out));
    if (pg_read_file(&data, &len, path, ELF_MAX) < 0)
        return -1;
    if (!(ph = program_headers(data, len, &e)))
        goto done;
    /* Addresses are from the first loaded page, as the loader's base. */
    for (i = 0; i < e->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr < base)
            base = ph[i].p_vaddr & ~(uint64_t)0xfff;
    for (i = 0; i < e->e_shnum; i++) {
        const Elf64_Shdr *sh = section(data, len, e, i);
        if (sh && (sh->sh_type == SHT_SYMTAB ||
                   (sh->sh_type == SHT_DYNSYM && !table)))
            table = sh;
    }
    if (table && base != UINT64_MAX)
        err = read_symbols(out, data, len, e, table, base);
    out->base = base;
done:
    free(data);
    if (err < 0)
        pg_elf_funcs_clear(out);
    return err;
}

const pg_elf_func *pg_elf_funcs_at(const pg_elf_funcs *f, uint64_t offset)
{
    size_t lo = 0, hi = f->n, i;

    /* The last function starting at or before `offset`; sizes may nest
     * (aliases), so a few before it are looked at too. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->v[mid].start <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (i = lo; i-- > 0 && lo - i <= 8;)
        if (offset < f->v[i].end)
            return &f->v[i];
    return NULL;
}

const pg_elf_func *pg_elf_funcs_named(const pg_elf_funcs *f, const char *name)
{
    size_t i;

    for (i = 0; i < f->n; i++)
        if (!strcmp(f->v[i].name, name))
            return &f->v[i];
    return NULL;
}

void pg_elf_funcs_clear(pg_elf_funcs *f)
{
    free(f->v);
    free(f->strings);
    memset(f, 0, sizeof(*f));
}

void *pg_elf_symbol(void *handle, const char *name)
{
    struct link_map *map = NULL;
    pg_elf_funcs funcs;
    const pg_elf_func *found = NULL;
    void *p = dlsym(handle, name);
    size_t i;
    int n = 0;

    if (p || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map ||
        !map->l_name || !*map->l_name ||
        pg_elf_funcs_read(&funcs, map->l_name) < 0)
        return p;
    for (i = 0; i < funcs.n; i++)
        if (!strcmp(funcs.v[i].name, name) &&
            (!found || found->start != funcs.v[i].start)) {
            found = &funcs.v[i];
            n++;
        }
    if (n == 1)
        p = (void *)(map->l_addr + funcs.base + found->start);
    pg_elf_funcs_clear(&funcs);
    return p;
}

int pg_elf_has_runpath(const char *path)
{
    char *data = NULL;
    size_t len = 0;
    Elf64_Ehdr *e;
    Elf64_Phdr *ph;
    int found = 0, i;

    if (!(data = read_elf(path, &len, &e, &ph)))
        return -1;
    for (i = 0; !found && i < e->e_phnum; i++) {
        size_t off = ph[i].p_offset, n = ph[i].p_filesz, k;
        if (ph[i].p_type != PT_DYNAMIC || off > len || n > len - off)
            continue;
        for (k = 0; k + sizeof(Elf64_Dyn) <= n; k += sizeof(Elf64_Dyn)) {
            Elf64_Dyn d;
            memcpy(&d, data + off + k, sizeof(d));
            if (d.d_tag == DT_NULL)
                break;
            found |= d.d_tag == DT_RPATH || d.d_tag == DT_RUNPATH;
        }
    }
    free(data);
    return found;
}
