/* SPDX-License-Identifier: MIT */
/*
 * The device-command guard's rules (dev_guard_rule.h), as tables: one command
 * per controller at a time; a command past its deadline makes the controller
 * unresponsive and refuses every later one until that command returns.
 */
#include <criterion/criterion.h>

#include "nvmond/dev/dev_guard_rule.h"

enum ev { START, TIMEOUT, DONE };

/* dev_guard_rule.h: "Free → RUN, busy → WAIT, stuck → REFUSE". */
Test(dev_guard_rule, admit_after_each_sequence)
{
	static const struct {
		const char *what;
		enum ev ev[4];
		size_t n;
		enum dev_guard_admit admit;
		bool unresponsive;
		uint64_t timeouts;
	} t[] = {
		{"a new controller runs a command", {0}, 0, DEV_GUARD_RUN, false, 0},
		{"a command on the worker: the next waits", {START}, 1, DEV_GUARD_WAIT, false, 0},
		{"an answer in time frees it", {START, DONE}, 2, DEV_GUARD_RUN, false, 0},
		{"past the deadline: unresponsive, nothing more is sent",
		 {START, TIMEOUT},
		 2,
		 DEV_GUARD_REFUSE,
		 true,
		 1},
		{"a second deadline of the same command counts once",
		 {START, TIMEOUT, TIMEOUT},
		 3,
		 DEV_GUARD_REFUSE,
		 true,
		 1},
		{"the stuck command returned: recovered, runs again",
		 {START, TIMEOUT, DONE},
		 3,
		 DEV_GUARD_RUN,
		 false,
		 1},
		{"a deadline without a command changes nothing",
		 {TIMEOUT},
		 1,
		 DEV_GUARD_RUN,
		 false,
		 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct dev_guard_slot s = {0};

		for (size_t k = 0; k < t[i].n; k++)
			switch (t[i].ev[k]) {
			case START:
				dev_guard_on_start(&s);
				break;
			case TIMEOUT:
				dev_guard_on_timeout(&s, 100 + (int64_t)k);
				break;
			case DONE:
				(void)dev_guard_on_done(&s);
				break;
			}
		cr_expect_eq(dev_guard_admit(&s), t[i].admit, "%s: admit", t[i].what);
		cr_expect_eq(dev_guard_slot_unresponsive(&s), t[i].unresponsive, "%s: unresponsive",
			     t[i].what);
		cr_expect_eq(s.n_timeouts, t[i].timeouts, "%s: timeouts", t[i].what);
	}
}

/* dev_guard_rule.h: on_done "Return: true when it had been stuck"; stuck since the first deadline. */
Test(dev_guard_rule, recovery_is_reported_once_and_since_is_the_first_deadline)
{
	struct dev_guard_slot s = {0};

	dev_guard_on_start(&s);
	cr_expect_not(dev_guard_on_done(&s), "an answer in time is no recovery");
	dev_guard_on_start(&s);
	dev_guard_on_timeout(&s, 500);
	dev_guard_on_timeout(&s, 900);
	cr_expect_eq(s.stuck_since_ms, 500);
	cr_expect(dev_guard_on_done(&s), "the stuck command returned: recovered");
	cr_expect_eq(s.stuck_since_ms, 0);
	cr_expect_not(dev_guard_on_done(&s));
}

/* dev_guard_rule.h: expired when now − start ≥ timeout. */
Test(dev_guard_rule, deadline_boundary)
{
	static const struct {
		int64_t now, start, timeout;
		bool expired;
	} t[] = {
		{1000, 1000, 5000, false}, {5999, 1000, 5000, false}, {6000, 1000, 5000, true},
		{9000, 1000, 5000, true},  {0, 0, 0, true},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(dev_guard_expired(t[i].now, t[i].start, t[i].timeout), t[i].expired,
			     "now %lld start %lld timeout %lld", (long long)t[i].now,
			     (long long)t[i].start, (long long)t[i].timeout);
}
