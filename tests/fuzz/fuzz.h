/*
 * fuzz.h: how a fuzz target is written. Each tests/fuzz/fuzz-NAME.c defines
 * one FUZZ_TARGET(NAME) that feeds arbitrary bytes to one parser and aborts
 * when an invariant breaks. Built by `make fuzz` with clang and libFuzzer
 * (AIVET_LIBFUZZER defined: the target becomes LLVMFuzzerTestOneInput), and
 * by `make check` with the ordinary compiler into tests/fuzz/replay, which
 * runs every target over its seed corpus so that a crash once found stays
 * fixed on every build, with or without clang.
 */
#ifndef AIVET_FUZZ_H
#define AIVET_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef AIVET_LIBFUZZER
#define FUZZ_ENTRY(name) \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_##name(data, size); }
#else
#define FUZZ_ENTRY(name)
#endif

#define FUZZ_TARGET(name) \
	int fuzz_##name(const uint8_t *data, size_t size); \
	FUZZ_ENTRY(name) \
	int fuzz_##name(const uint8_t *data, size_t size)

/* A broken invariant: say which, then abort so that libFuzzer keeps the input. */
#define FUZZ_ASSERT(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
		abort(); \
	} \
} while (0)

/* The input as a NUL-terminated string (embedded NULs cut it short, as in argv). */
char *fuzz_cstr(const uint8_t *data, size_t size);
/* A scratch directory, made once per NAME and removed at exit (libsodium initialised too). */
const char *fuzz_tmpdir(const char *name);
/* Writes a scratch file quickly (no fsync: it need not survive a crash). */
void fuzz_write_file(const char *path, const void *data, size_t len);

#endif
