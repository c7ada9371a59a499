/* Adler-32 (RFC 1950), deferring the modulo as zlib does. */
#include <stddef.h>
#include <stdint.h>

#define MOD 65521u
#define NMAX 5552 /* the most bytes before the sums can overflow */

uint32_t checksum(const uint8_t *data, size_t len)
{
    uint32_t a = 1, b = 0;

    while (len > 0) {
        size_t n = len < NMAX ? len : NMAX;
        len -= n;
        while (n--) {
            a += *data++;
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    return (b << 16) | a;
}
