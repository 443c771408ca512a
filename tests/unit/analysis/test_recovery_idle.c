/* SPDX-License-Identifier: MIT */
/*
 * The cache-recovery study's idle clock (docs/probes.md, "Cache size and
 * recovery"): "recovery needs real idle time": a burst due at N min idle runs
 * once the drive has been idle N min in total since the cliff, busy periods
 * (the probes' busy rule) left out and counted as the study's pause.
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>

#include "nvmond/analysis/recovery.h"

#define S 1000

/* One observation of the drive: when, and busy by the probes' rule or not. */
struct obs {
	int64_t at;
	bool busy;
};

Test(recovery_idle, net_of_busy_periods)
{
	static const struct {
		const char *rule;
		struct obs o[8];
		size_t n;
		int64_t idle, paused;
		int64_t interval, left; /* the burst due at @interval: how much more it waits */
	} t[] = {
		{"an idle drive: idle time is the time since the cliff",
		 {{5 * S, false}, {10 * S, false}},
		 2,
		 10 * S,
		 0,
		 10 * S,
		 0},
		{"the time up to a busy observation is left out of the idle time",
		 {{5 * S, false}, {8 * S, true}, {10 * S, false}},
		 3,
		 7 * S,
		 3 * S,
		 10 * S,
		 3 * S},
		{"a busy period extends the wait by its length",
		 {{2 * S, false}, {4 * S, true}, {6 * S, true}, {9 * S, false}},
		 4,
		 5 * S,
		 4 * S,
		 5 * S,
		 0},
		{"busy all along: no idle time, the burst waits its whole interval",
		 {{1 * S, true}, {2 * S, true}, {60 * S, true}},
		 3,
		 0,
		 60 * S,
		 20 * S,
		 20 * S},
		{"time going back (a clock step) counts nothing",
		 {{5 * S, false}, {3 * S, false}, {6 * S, false}},
		 3,
		 6 * S,
		 0,
		 10 * S,
		 4 * S},
		{"the same instant twice counts nothing",
		 {{5 * S, false}, {5 * S, true}},
		 2,
		 5 * S,
		 0,
		 5 * S,
		 0},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct recovery_idle st = {0};
		recovery_idle_wait(&st, 0); /* the fill ended: the cliff */
		for (size_t k = 0; k < t[i].n; k++)
			recovery_idle_observe(&st, t[i].o[k].at, t[i].o[k].busy);
		cr_expect_eq(st.idle_ms, t[i].idle, "%s: idle %lld", t[i].rule,
			     (long long)st.idle_ms);
		cr_expect_eq(st.paused_ms, t[i].paused, "%s: paused %lld", t[i].rule,
			     (long long)st.paused_ms);
		cr_expect_eq(recovery_idle_left(&st, t[i].interval), t[i].left, "%s", t[i].rule);
	}
}

Test(recovery_idle, the_studys_own_runs_are_not_idle)
{
	/* "Idle" is the wait between the study's runs: a burst's own writes are not idle
	 * time, nor a pause; the clock runs again when the burst ended. */
	struct recovery_idle st = {0};

	recovery_idle_wait(&st, 1000);
	recovery_idle_observe(&st, 3000, false);
	recovery_idle_run(&st, 6000, false); /* burst 1 at 5 s idle */
	cr_expect_eq(st.idle_ms, 5000);
	recovery_idle_observe(&st, 50000, true); /* in the burst: not waiting */
	cr_expect_eq(st.idle_ms, 5000);
	cr_expect_eq(st.paused_ms, 0);
	recovery_idle_wait(&st, 9000); /* burst 1 ended */
	recovery_idle_observe(&st, 12000, true);
	recovery_idle_observe(&st, 16000, false);
	cr_expect_eq(st.idle_ms, 9000);
	cr_expect_eq(st.paused_ms, 3000);
	cr_expect_eq(recovery_idle_left(&st, 10000), 1000);
}
