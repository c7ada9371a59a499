/*
 * elfcode.c's "the two libraries load the same code": on ELF files made
 * here byte by byte (no compiler), what is loaded decides, the build id and
 * the section headers' place do not, and a file that is not what it says
 * is never "the same".
 */
#include <elf.h>
#include <stdlib.h>

#include "elfcode.h"
#include "fs.h"
#include "test.h"

/*
 * The file: the ELF header, two program headers (a PT_LOAD over the first
 * LOADED bytes, and a PT_NOTE with a GNU build id inside it), code, the
 * note, and then what is not loaded (debug information) and the section
 * headers' place after it.
 */
#define PHDRS 64
#define CODE 256
#define NOTE 512
#define LOADED 1024

typedef struct elf {
    unsigned char bytes[LOADED + 256];
    size_t len;
} elf;

static Elf64_Ehdr *ehdr(elf *f)
{
    return (Elf64_Ehdr *)f->bytes;
}

static Elf64_Phdr *phdr(elf *f, int i)
{
    return (Elf64_Phdr *)(f->bytes + PHDRS) + i;
}

static void make(elf *f, unsigned char code, unsigned char build_id,
                 size_t debug)
{
    Elf64_Ehdr *e = ehdr(f);
    Elf64_Nhdr *n = (Elf64_Nhdr *)(f->bytes + NOTE);
    size_t i;

    memset(f, 0, sizeof(*f));
    memcpy(e->e_ident, ELFMAG, SELFMAG);
    e->e_ident[EI_CLASS] = ELFCLASS64;
    e->e_ident[EI_DATA] = ELFDATA2LSB;
    e->e_ident[EI_VERSION] = EV_CURRENT;
    e->e_type = ET_DYN;
    e->e_machine = EM_X86_64;
    e->e_version = EV_CURRENT;
    e->e_phoff = PHDRS;
    e->e_ehsize = sizeof(*e);
    e->e_phentsize = sizeof(Elf64_Phdr);
    e->e_phnum = 2;
    e->e_shentsize = sizeof(Elf64_Shdr);
    phdr(f, 0)->p_type = PT_LOAD;
    phdr(f, 0)->p_flags = PF_R | PF_X;
    phdr(f, 0)->p_filesz = phdr(f, 0)->p_memsz = LOADED;
    phdr(f, 0)->p_align = 4096;
    phdr(f, 1)->p_type = PT_NOTE;
    phdr(f, 1)->p_offset = phdr(f, 1)->p_vaddr = NOTE;
    phdr(f, 1)->p_filesz = phdr(f, 1)->p_memsz = sizeof(*n) + 4 + 20;
    phdr(f, 1)->p_align = 4;
    for (i = 0; i < 64; i++)
        f->bytes[CODE + i] = (unsigned char)(code + i);
    n->n_namesz = 4;
    n->n_descsz = 20;
    n->n_type = NT_GNU_BUILD_ID;
    memcpy(f->bytes + NOTE + sizeof(*n), "GNU", 4);
    memset(f->bytes + NOTE + sizeof(*n) + 4, build_id, 20);
    /* Debug information: not loaded; the section headers come after. */
    memset(f->bytes + LOADED, 0xdb, debug);
    f->len = LOADED + debug;
    e->e_shoff = f->len;
    e->e_shnum = (Elf64_Half)(debug / 16);
}

/* pg_elfcode_same() on the two files as written. */
static int same(const char *dir, const elf *a, const elf *b)
{
    char *pa = pg_path_join(dir, "a.so"), *pb = pg_path_join(dir, "b.so");
    int r;

    REQUIRE(pg_write_file(pa, a->bytes, a->len, 0) == 0);
    REQUIRE(pg_write_file(pb, b->bytes, b->len, 0) == 0);
    r = pg_elfcode_same(pa, pb);
    /* The same both ways round. */
    CHECK(pg_elfcode_same(pb, pa) == r);
    free(pa);
    free(pb);
    return r;
}

static void what_is_loaded_decides(void)
{
    char *dir = pg_test_scratch();
    static elf a, b;

    REQUIRE(dir);
    make(&a, 1, 0xaa, 64);
    make(&b, 1, 0xaa, 64);
    CHECK(same(dir, &a, &b) == 1);
    /* One byte of code. */
    b.bytes[CODE + 10] ^= 1;
    CHECK(same(dir, &a, &b) == 0);
    /* The last byte loaded, and the ELF header. */
    make(&b, 1, 0xaa, 64);
    b.bytes[LOADED - 1] = 7;
    CHECK(same(dir, &a, &b) == 0);
    make(&b, 1, 0xaa, 64);
    ehdr(&b)->e_entry = 0x40;
    CHECK(same(dir, &a, &b) == 0);
    /* How a segment is mapped. */
    make(&b, 1, 0xaa, 64);
    phdr(&b, 0)->p_flags |= PF_W;
    CHECK(same(dir, &a, &b) == 0);
    /* What is not loaded. */
    make(&b, 1, 0xaa, 64);
    b.bytes[LOADED + 3] = 0;
    CHECK(same(dir, &a, &b) == 1);
    pg_rm_rf(dir);
    free(dir);
}

static void the_build_id_and_debug_information_do_not(void)
{
    char *dir = pg_test_scratch();
    static elf a, b;

    REQUIRE(dir);
    /* Another build id, more debug information (the section headers
     * further on): the same code. */
    make(&a, 1, 0xaa, 64);
    make(&b, 1, 0xbb, 192);
    CHECK(same(dir, &a, &b) == 1);
    /* But a note that is not a build id is loaded like code. */
    make(&b, 1, 0xaa, 64);
    ((Elf64_Nhdr *)(b.bytes + NOTE))->n_type = NT_GNU_ABI_TAG;
    CHECK(same(dir, &a, &b) == 0);
    pg_rm_rf(dir);
    free(dir);
}

static void a_file_that_is_not_what_it_says_is_not_the_same(void)
{
    char *dir = pg_test_scratch(), *missing;
    static elf a, b;

    REQUIRE(dir);
    make(&a, 1, 0xaa, 64);
    /* Both alike, and both wrong: still measured. */
    make(&b, 1, 0xaa, 64);
    b.len = 32; /* cut inside the ELF header */
    CHECK(same(dir, &b, &b) == 0);
    make(&b, 1, 0xaa, 64);
    ehdr(&b)->e_ident[EI_CLASS] = ELFCLASS32;
    CHECK(same(dir, &b, &b) == 0);
    make(&b, 1, 0xaa, 64);
    memcpy(b.bytes, "#!/bin/sh\n", 10);
    CHECK(same(dir, &b, &b) == 0);
    /* Program headers past the end of the file. */
    make(&b, 1, 0xaa, 64);
    ehdr(&b)->e_phnum = 0xffff;
    CHECK(same(dir, &b, &b) == 0);
    make(&b, 1, 0xaa, 64);
    ehdr(&b)->e_phoff = (Elf64_Off)-8;
    CHECK(same(dir, &b, &b) == 0);
    /* A segment that says it is longer than the file. */
    make(&b, 1, 0xaa, 64);
    phdr(&b, 0)->p_filesz = 1 << 20;
    CHECK(same(dir, &b, &b) == 0);
    make(&b, 1, 0xaa, 64);
    phdr(&b, 0)->p_offset = (Elf64_Off)-1;
    CHECK(same(dir, &b, &b) == 0);
    /* A note whose sizes run past its segment: read no further (and no
     * crash), the rest compared as it is. */
    make(&b, 1, 0xaa, 64);
    ((Elf64_Nhdr *)(b.bytes + NOTE))->n_descsz = 0xffffffffu;
    CHECK(same(dir, &b, &b) == 1);
    make(&b, 1, 0xaa, 64);
    phdr(&b, 1)->p_filesz = 1 << 30;
    CHECK(same(dir, &b, &b) == 1);
    /* A file that is not there. */
    missing = pg_path_join(dir, "missing.so");
    CHECK(pg_elfcode_same(missing, missing) == 0);
    pg_rm_rf(dir);
    free(missing);
    free(dir);
}

#if defined(__x86_64__)
/* valgrind.h's preamble, as RUNNING_ON_VALGRIND compiles it: in this very
 * program's code, never run. */
void pg_test_asks_valgrind(void);
void pg_test_asks_valgrind(void)
{
    __asm__ volatile("rolq $3, %%rdi\n\trolq $13, %%rdi\n\t"
                     "rolq $61, %%rdi\n\trolq $51, %%rdi" ::
                         : "rdi");
}
#endif

static void code_that_asks_valgrind_is_seen(void)
{
#if defined(__x86_64__)
    CHECK(pg_elfcode_asks_valgrind("/proc/self/exe") == 1);
#endif
    CHECK(pg_elfcode_asks_valgrind("/bin/true") == 0);
    CHECK(pg_elfcode_asks_valgrind("/nonexistent/lib.so") == -1);
}

const pg_test pg_tests_elfcode[] = {
    {"code_that_asks_valgrind_is_seen", code_that_asks_valgrind_is_seen},
    {"what_is_loaded_decides", what_is_loaded_decides},
    {"the_build_id_and_debug_information_do_not",
     the_build_id_and_debug_information_do_not},
    {"a_file_that_is_not_what_it_says_is_not_the_same",
     a_file_that_is_not_what_it_says_is_not_the_same},
    PG_TESTS_END};
