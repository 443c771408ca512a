/* SPDX-License-Identifier: MIT */
/*
 * Repeats in probe schedules (docs/probes.md, "Schedules"): "daily HH:MM PRESET
 * [xN [cooldown D]]" runs one series of N runs, D of idle between them, as the
 * API's {"repeat": N, "cooldown": "D"} does.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>

#include "nvmond/probe/probe_sched.h"
#include "nvmond/probe/probe_series.h"

Test(probe_sched, repeat_and_cooldown)
{
	static const struct {
		const char *s;
		const char *rule;
		int ok;
		uint32_t repeat;
		int64_t cooldown_ms;
	} t[] = {
		{"daily 03:00 seq1m-q8", "without xN an entry runs once", 1, 1, 30000},
		{"daily 03:00 seq1m-q8 x3", "xN: a series of N runs, cooldown 30 s by default", 1,
		 3, 30000},
		{"daily 03:00 seq1m-q8 x3 cooldown 2m", "cooldown D: the idle between the runs", 1,
		 3, 120000},
		{"weekly Sun 04:00 rnd4k-q1 X10 COOLDOWN 0s", "words in any case; 10 at most; 0 s",
		 1, 10, 0},
		{"daily 03:00  seq1m-q8\tx2  cooldown 1h", "any blanks; an hour at most", 1, 2,
		 3600000},
		{"daily 03:00 seq1m-q8 x1", "x1 is one run", 1, 1, 30000},
		{"daily 03:00 seq1m-q8 x11", "N is 1 … 10 (PROBE_REPEAT_MAX)", 0, 0, 0},
		{"daily 03:00 seq1m-q8 x0", "N is 1 … 10", 0, 0, 0},
		{"daily 03:00 seq1m-q8 x", "N is a number", 0, 0, 0},
		{"daily 03:00 seq1m-q8 x3b", "N is a number", 0, 0, 0},
		{"daily 03:00 seq1m-q8 x-3", "N is a number", 0, 0, 0},
		{"daily 03:00 seq1m-q8 x3 cooldown", "cooldown needs its duration", 0, 0, 0},
		{"daily 03:00 seq1m-q8 x3 cooldown soon", "cooldown is a duration", 0, 0, 0},
		{"daily 03:00 seq1m-q8 x3 cooldown 2h", "cooldown is at most an hour", 0, 0, 0},
		{"daily 03:00 seq1m-q8 cooldown 30s", "a cooldown needs a series (xN, N >= 2)", 0,
		 0, 0},
		{"daily 03:00 seq1m-q8 x1 cooldown 30s", "a cooldown needs a series", 0, 0, 0},
		{"daily 03:00 seq1m-q8 cooldown 30s x3", "xN comes before cooldown", 0, 0, 0},
		{"daily 03:00 seq1m-q8 x3 x3", "one xN", 0, 0, 0},
		{"daily 03:00 seq1m-q8 x3 cooldown 30s now", "nothing after the cooldown", 0, 0, 0},
		{"daily 03:00 cache-recovery x3", "a study follows recovery_intervals, no xN", 0, 0,
		 0},
		{"daily 03:00 cache-recovery", "a study once is fine", 1, 1, 30000},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct probe_sched v[PROBE_SCHED_MAX];
		char err[PROBE_SCHED_ERR] = "";
		size_t n = 0;
		int r = probe_sched_parse(t[i].s, v, &n, err);
		cr_expect_eq(r == 0, t[i].ok, "%s (%s): %d %s", t[i].s, t[i].rule, r, err);
		if (r < 0) {
			cr_expect_eq(r, -EINVAL, "%s", t[i].s);
			cr_expect(err[0], "%s: says why", t[i].s);
			continue;
		}
		cr_expect_eq(n, 1, "%s", t[i].s);
		cr_expect_eq(v[0].repeat, t[i].repeat, "%s (%s)", t[i].s, t[i].rule);
		cr_expect_eq(v[0].cooldown_ms, t[i].cooldown_ms, "%s (%s)", t[i].s, t[i].rule);
	}
}

Test(probe_sched, repeat_per_entry)
{
	/* Each entry has its own xN: a series at night, a single run on Sunday. */
	struct probe_sched v[PROBE_SCHED_MAX];
	char err[PROBE_SCHED_ERR];
	size_t n = 0;

	cr_assert_eq(probe_sched_parse("daily 03:00 seq1m-q8 x3 cooldown 10s, weekly Sun 04:00 "
				       "sustained-write",
				       v, &n, err),
		     0, "%s", err);
	cr_assert_eq(n, 2);
	cr_expect_eq(v[0].preset, PROBE_SEQ1M_Q8);
	cr_expect_eq(v[0].repeat, 3);
	cr_expect_eq(v[0].cooldown_ms, 10000);
	cr_expect_eq(v[1].preset, PROBE_SUSTAINED_WRITE);
	cr_expect_eq(v[1].weekday, 0);
	cr_expect_eq(v[1].repeat, 1);
}
