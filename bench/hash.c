/*
 * hash.c - a 64-bit hash, 8 bytes a step, for bench/coverage.py: at 8
 * bytes a call takes a few nanoseconds, the size at which what the
 * harness costs and where the code lies are as large as the call.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
uint64_t hash64(const unsigned char *p, size_t len)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t k;
        memcpy(&k, p + i, 8);
        k *= 0xff51afd7ed558ccdULL;
        k ^= k >> 33;
        h = (h ^ k) * 0xc4ceb9fe1a85ec53ULL;
    }
    for (; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    h ^= h >> 29;
    return h;
}
