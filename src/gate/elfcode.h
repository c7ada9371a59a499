/*
 * elfcode.h - whether two built libraries would load the same code.
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

#endif
