/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * A fuzz harness: libFuzzer's entry point. Built two ways (tests/fuzz/CMakeLists.txt):
 * with clang's -fsanitize=fuzzer (NVMOND_FUZZ=ON), and with replay.c's main, which
 * feeds it every file of the corpus (the ctest fuzz.<name> of the normal builds).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of the input (for the text parsers); abort()s on ENOMEM. */
static inline char *fuzz_strdup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* The input padded with zeros (or cut) to exactly @n bytes: a fixed-size log page. */
static inline void fuzz_page(const uint8_t *data, size_t size, uint8_t *page, size_t n)
{
	memset(page, 0, n);
	memcpy(page, data, size < n ? size : n);
}

/* A failed invariant: abort(), which both libFuzzer and the replay report. */
#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond))                                                                       \
			fuzz_fail(#cond, __FILE__, __LINE__);                                      \
	} while (0)

void fuzz_fail(const char *what, const char *file, int line) __attribute__((noreturn));

/*
 * The time and zone a schedule harness asks at: the 16 bytes after the text's
 * NUL, if any (within years 1970 to 9998, within ±14 h); else
 * 2026-11-30T02:19:20Z in UTC (fuzz_common.c).
 */
void fuzz_sched_times(const uint8_t *data, size_t size, int64_t *ret_at, int64_t *ret_off);
