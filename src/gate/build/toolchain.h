/*
 * toolchain.h - who compiles: the C compiler, the CUDA compiler and the
 * tools a project's build finds by itself, each asked once a process.
 *
 * A compiler's identity is what makes its output what it is: the file
 * PATH finds for it, that file's size and time, what it says of its
 * version, and the environment variables that move its search paths.
 * The build cache keys builds by it (affected.h), history records the
 * first line of its version (record.h).  perfgate asks before it forks
 * its builds (pg_toolchain_probe), so that forty builds share one answer
 * rather than asking forty times.
 */
#ifndef PG_TOOLCHAIN_H
#define PG_TOOLCHAIN_H

#include "cache.h"
#include "str.h"

/* The C compiler: $CC, else "cc". */
const char *pg_toolchain_cc(void);

/* The C++ compiler: $CXX, else "c++". */
const char *pg_toolchain_cxx(void);

/* The C compiler's identity, as an id (asked once). */
const char *pg_toolchain_cc_id(void);

/* The first line the C compiler says of its version, or "unknown". */
const char *pg_toolchain_cc_version(void);

/* nvcc's identity and that of the host compilers it runs (asked once). */
const char *pg_toolchain_nvcc_id(void);

/* The identity of the compilers and tools a project's build finds by
 * itself, as CMake and configure scripts do: cc, c++, gcc, g++, ld, ar. */
const char *pg_toolchain_project_id(void);

/*
 * Appends to `doc` the identity of each program the shell command
 * `command` names that PATH finds (cmake, make, ninja, the compilers it
 * calls by name): its file, size and time.
 */
void pg_toolchain_tools_doc(pg_str *doc, const char *command);

/*
 * Asks, now, what the builds ahead will ask: the C compiler always, nvcc
 * when `cuda`.  Called before builds are forked, whose answers would die
 * with them.
 */
void pg_toolchain_probe(int cuda);

#endif
