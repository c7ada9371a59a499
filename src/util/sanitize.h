/*
 * sanitize.h - PG_UNDER_ASAN is 1 when this file is compiled with
 * AddressSanitizer (gcc's __SANITIZE_ADDRESS__, clang's
 * __has_feature(address_sanitizer)): what cannot run beside it (memory
 * limits on its shadow memory, valgrind) checks this.
 */
#ifndef PG_SANITIZE_H
#define PG_SANITIZE_H

#if defined(__SANITIZE_ADDRESS__)
#define PG_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PG_UNDER_ASAN 1
#endif
#endif

#endif
