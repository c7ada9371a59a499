/*
 * memshim.c - libperfgate-memory.so: the allocator's entry points, counted.
 *
 * perfgate's memory pass (src/gate/run/mempass.c) starts perfgate-measure
 * with this library in LD_PRELOAD, so that its malloc, calloc, realloc,
 * free and the aligned allocators are the ones every object in the process
 * binds: the user's libraries, the problem, and the C library itself, whose
 * strdup, asprintf, getline and fopen allocate through them.  Each passes
 * the call on to glibc's own allocator (__libc_malloc and friends) and
 * keeps, under one lock:
 *
 *   - every live block's requested size, in a table of its own (mapped,
 *     never malloc'd), so that a free is charged exactly what its block
 *     took, whenever it was allocated;
 *   - how many allocations and frees were made, the bytes asked for, the
 *     live bytes and their highest mark since the last reset;
 *   - anonymous mappings made outside malloc (mmap called by the user's
 *     code): their count and bytes, which the heap figures do not hold;
 *   - frees of blocks it never saw allocated.
 *
 * perfgate-measure reads and resets them around each counted call through
 * perfgate_memory_read(), found with dlsym (it is absent when the library
 * was not preloaded).  Nothing here is timed: the timed rounds run in other
 * processes, with glibc's allocator as it is.
 *
 * This file links nothing of perfgate's and must not allocate: it is the
 * allocator.  It is built without sanitizers, which bring their own.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <errno.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "memshim.h"

#include "banned.h"

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);

#define EXPORT __attribute__((visibility("default")))

/* One live block: its address and requested size.  0: an empty slot;
 * TOMB: a removed one, which lookups pass over. */
typedef struct slot {
    uintptr_t ptr;
    size_t size;
} slot;

#define TOMB ((uintptr_t)1)

static struct {
    slot *table;
    size_t cap;  /* a power of two; 0 before the first block */
    size_t used; /* live blocks and tombstones */
    pg_memshim_counts n;
} shim;

static volatile int lock_word;

static void lock(void)
{
    while (__atomic_test_and_set(&lock_word, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&lock_word, __ATOMIC_RELAXED))
            ;
}

static void unlock(void)
{
    __atomic_clear(&lock_word, __ATOMIC_RELEASE);
}

static size_t hash(uintptr_t p, size_t cap)
{
    uint64_t h = (uint64_t)p * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

static void *map_pages(size_t bytes)
{
    void *p = (void *)syscall(SYS_mmap, NULL, bytes, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void put(slot *table, size_t cap, uintptr_t p, size_t size)
{
    size_t i = hash(p, cap);

    while (table[i].ptr > TOMB)
        i = (i + 1) & (cap - 1);
    table[i].ptr = p;
    table[i].size = size;
}

/* Room for one more block: once the table is half used (live blocks and
 * tombstones), a new one at least four times the live blocks, the
 * tombstones dropped, so that code that allocates and frees millions of
 * times keeps a table the size of what it holds.  0, or -1 when no memory
 * is left, and the block then goes untracked. */
static int make_room(void)
{
    size_t cap = 1 << 16, live = 0, i;
    slot *table;

    if (shim.cap && (shim.used + 1) * 2 <= shim.cap)
        return 0;
    for (i = 0; i < shim.cap; i++)
        live += shim.table[i].ptr > TOMB;
    while (cap < 4 * (live + 1))
        cap *= 2;
    if (!(table = map_pages(cap * sizeof(slot))))
        return -1;
    shim.used = 0;
    for (i = 0; i < shim.cap; i++)
        if (shim.table[i].ptr > TOMB) {
            put(table, cap, shim.table[i].ptr, shim.table[i].size);
            shim.used++;
        }
    if (shim.table)
        syscall(SYS_munmap, shim.table, shim.cap * sizeof(slot));
    shim.table = table;
    shim.cap = cap;
    return 0;
}

/* A new block of `size` bytes at `p` (lock held). */
static void born(void *p, size_t size)
{
    shim.n.allocs++;
    shim.n.bytes += size;
    if (make_room() < 0) {
        shim.n.untracked++;
        return;
    }
    put(shim.table, shim.cap, (uintptr_t)p, size);
    shim.used++;
    shim.n.live += size;
    if (shim.n.live > shim.n.peak)
        shim.n.peak = shim.n.live;
}

/* Takes the block at `p` out of the table: 1 and its size in *size, or
 * 0 when it was never seen (lock held). */
static int take(void *p, size_t *size)
{
    size_t i;

    for (i = shim.cap ? hash((uintptr_t)p, shim.cap) : 0;
         shim.cap && shim.table[i].ptr; i = (i + 1) & (shim.cap - 1))
        if (shim.table[i].ptr == (uintptr_t)p) {
            *size = shim.table[i].size;
            shim.n.live -= *size;
            shim.table[i].ptr = TOMB;
            return 1;
        }
    return 0;
}

/* The block at `p` is freed (lock held). */
static void died(void *p)
{
    size_t size;

    shim.n.frees++;
    if (!take(p, &size))
        shim.n.unknown_frees++;
}

/* Puts back a block taken out of the table that was not freed after all
 * (lock held). */
static void kept(void *p, size_t size)
{
    if (make_room() < 0)
        return;
    put(shim.table, shim.cap, (uintptr_t)p, size);
    shim.used++;
    shim.n.live += size;
}

static void *counted(void *p, size_t size)
{
    if (p) {
        lock();
        born(p, size);
        unlock();
    }
    return p;
}

EXPORT void *malloc(size_t n)
{
    return counted(__libc_malloc(n), n);
}

EXPORT void *calloc(size_t n, size_t size)
{
    return counted(__libc_calloc(n, size), n * size);
}

EXPORT void free(void *p)
{
    if (!p)
        return;
    lock();
    died(p);
    unlock();
    __libc_free(p);
}

/* A realloc is a free of the old block and an allocation of the new one
 * (as DHAT counts it); realloc(p, 0) frees p, as glibc's does. */
EXPORT void *realloc(void *p, size_t n)
{
    size_t old = 0;
    void *q;
    int known;

    if (!p)
        return malloc(n);
    /* Out of the table first, so that another thread's new block at the
     * same address is not lost; put back when glibc fails and keeps it. */
    lock();
    known = take(p, &old);
    unlock();
    q = __libc_realloc(p, n);
    lock();
    if (q || !n) {
        shim.n.frees++;
        shim.n.unknown_frees += !known;
        if (q)
            born(q, n);
    } else if (known) {
        kept(p, old);
    }
    unlock();
    return q;
}

EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(p, n * size);
}

EXPORT void *memalign(size_t align, size_t n)
{
    return counted(__libc_memalign(align, n), n);
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
    return memalign(align, n);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    void *p;

    if (align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    if (!(p = memalign(align, n)))
        return ENOMEM;
    *out = p;
    return 0;
}

EXPORT void *valloc(size_t n)
{
    return memalign((size_t)sysconf(_SC_PAGESIZE), n);
}

EXPORT void *pvalloc(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return memalign(page, (n + page - 1) / page * page);
}

/* Anonymous mappings the user's code makes itself: an arena of its own,
 * which the heap's figures cannot see.  glibc's own calls (malloc's large
 * blocks among them) do not come here. */
EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd,
                  off_t off)
{
    void *p = (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);

    if (p != MAP_FAILED && (flags & MAP_ANONYMOUS)) {
        lock();
        shim.n.maps++;
        shim.n.mapped += len;
        unlock();
    }
    return p;
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
                    off_t off)
{
    return mmap(addr, len, prot, flags, fd, off);
}

EXPORT void perfgate_memory_read(pg_memshim_counts *out, int reset_peak)
{
    lock();
    if (reset_peak)
        shim.n.peak = shim.n.live;
    *out = shim.n;
    unlock();
}
