/* SPDX-License-Identifier: MIT */
/*
 * The self-test schedule syntax ([selftests] default_schedule, [device "X"]
 * selftest_schedule): selftest_sched_parse() of any text, then next, previous,
 * due and catch-up. Times as fuzz_probe_sched.c takes them.
 * Rules: an accepted entry is within its documented ranges; its next time is
 * after the time asked and within 31 days; its previous at or before it and
 * within 31 days.
 */
#include "fuzz.h"
#include "nvmond/analysis/selftest_sched.h"

#define MONTH_MS (31 * 24 * 3600 * 1000LL)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strdup(data, size), err[SELFTEST_SCHED_ERR];
	struct selftest_sched e[SELFTEST_SCHED_MAX];
	int64_t at, off, last[SELFTEST_SCHED_TYPES], missed[SELFTEST_SCHED_TYPES];
	bool run[SELFTEST_SCHED_TYPES], due[SELFTEST_SCHED_TYPES];
	size_t n = 0;

	fuzz_sched_times(data, size, &at, &off);
	if (selftest_sched_parse(s, e, &n, err) < 0) {
		FUZZ_CHECK(strnlen(err, sizeof(err)) > 0 &&
			   strnlen(err, sizeof(err)) < sizeof(err));
		goto out;
	}
	FUZZ_CHECK(n <= SELFTEST_SCHED_MAX);
	for (size_t i = 0; i < n; i++) {
		int64_t next = selftest_sched_next(&e[i], at, off);
		int64_t prev = selftest_sched_prev(&e[i], at, off);

		FUZZ_CHECK(e[i].weekday >= -1 && e[i].weekday <= 6);
		FUZZ_CHECK(e[i].monthday >= 0 && e[i].monthday <= 28);
		FUZZ_CHECK(e[i].minute >= 0 && e[i].minute < 1440);
		FUZZ_CHECK(e[i].type == SELFTEST_SCHED_SHORT ||
			   e[i].type == SELFTEST_SCHED_EXTENDED);
		FUZZ_CHECK(selftest_sched_type_name(e[i].type) != NULL);
		FUZZ_CHECK(next > at && next - at <= MONTH_MS);
		FUZZ_CHECK(prev <= at && at - prev <= MONTH_MS);
	}
	last[SELFTEST_SCHED_SHORT] = SELFTEST_SCHED_NEVER;
	last[SELFTEST_SCHED_EXTENDED] = at - MONTH_MS;
	selftest_sched_catchup(e, n, last, at, off, run, missed);
	FUZZ_CHECK(!run[SELFTEST_SCHED_SHORT]); /* never ran: not caught up */
	selftest_sched_due(e, n, at, at + MONTH_MS, off, due);
	selftest_sched_due(e, n, at, at - 1, off, due); /* the clock went back */
	FUZZ_CHECK(!due[SELFTEST_SCHED_SHORT] && !due[SELFTEST_SCHED_EXTENDED]);
out:
	free(s);
	return 0;
}
