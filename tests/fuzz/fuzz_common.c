/* SPDX-License-Identifier: MIT */
/* What every harness shares (fuzz.h): the report of a failed FUZZ_CHECK(), the
 * schedule harnesses' times. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "nvmond/util/timefmt.h"

void fuzz_fail(const char *what, const char *file, int line)
{
	fprintf(stderr, "%s:%d: invariant failed: %s\n", file, line, what);
	abort();
}

void fuzz_sched_times(const uint8_t *data, size_t size, int64_t *ret_at, int64_t *ret_off)
{
	const uint8_t *nul = memchr(data, 0, size);
	uint64_t a = 0, o = 0;

	*ret_at = 1796005160000LL; /* 2026-11-30T02:19:20Z */
	*ret_off = 0;
	if (!nul || (size_t)(data + size - (nul + 1)) < 16)
		return;
	memcpy(&a, nul + 1, 8);
	memcpy(&o, nul + 9, 8);
	/* The clock: 1970 to a year before 9999 (an occurrence lies ahead); the zones: ±14 h. */
	*ret_at = (int64_t)(a % (uint64_t)(TIMEFMT_MAX_MS - 400 * 24 * 3600 * 1000LL));
	*ret_off = (int64_t)(o % (28 * 3600 + 1)) - 14 * 3600;
}
