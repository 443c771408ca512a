/* SPDX-License-Identifier: MIT */
/*
 * The probe schedule syntax ([device "X"] probe_schedule, docs/configuration.md):
 * probe_sched_parse() of any text, then the next occurrence of each entry.
 * The input is the text up to a NUL byte; 16 bytes after it, if any, give the
 * time asked after (within years 1970 to 9999) and the zone's offset (within
 * ±14 h), else 2026-11-30T02:19:20Z in UTC.
 * Rules: an accepted entry is within its documented ranges; its next time is
 * after the time asked, within a week and the jitter of it.
 */
#include "fuzz.h"
#include "nvmond/probe/probe_sched.h"
#include "nvmond/probe/probe_series.h"
#include "nvmond/util/timefmt.h"

#define WEEK_MS	  (7 * 24 * 3600 * 1000LL)
#define JITTER_MS (10 * 60 * 1000LL)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strdup(data, size), err[PROBE_SCHED_ERR];
	struct probe_sched e[PROBE_SCHED_MAX];
	int64_t at, off;
	size_t n = 0;

	fuzz_sched_times(data, size, &at, &off);
	if (probe_sched_parse(s, e, &n, err) < 0) {
		FUZZ_CHECK(strnlen(err, sizeof(err)) > 0 &&
			   strnlen(err, sizeof(err)) < sizeof(err));
		goto out;
	}
	FUZZ_CHECK(n <= PROBE_SCHED_MAX);
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(e[i].weekday >= -1 && e[i].weekday <= 6);
		FUZZ_CHECK(e[i].minute >= 0 && e[i].minute < 1440);
		FUZZ_CHECK(e[i].repeat >= 1 && e[i].repeat <= PROBE_REPEAT_MAX);
		FUZZ_CHECK(e[i].cooldown_ms >= 0);
		for (int64_t jitter = 0; jitter <= JITTER_MS; jitter += JITTER_MS) {
			int64_t next = probe_sched_next(&e[i], at, off, jitter, (uint64_t)at);

			FUZZ_CHECK(next > at);
			FUZZ_CHECK(next - at <= WEEK_MS + jitter);
		}
	}
out:
	free(s);
	return 0;
}
