/* SPDX-License-Identifier: MIT */
/*
 * What a poll does with a controller (issue 11): the decision as a table (the
 * same decision on the fixture sysfs trees: tests/unit/dev/test_dev_facts.c).
 */
#include <criterion/criterion.h>

#include "nvmond/dev/dev.h"
#include "nvmond/monitor/pollplan.h"

Test(pollplan, table)
{
	static const struct {
		enum nvme_runtime_status rt;
		bool wake;
		enum dev_access access;
		enum poll_action want;
	} cases[] = {
		/* a suspended drive is left asleep, whatever the access … */
		{NVME_RUNTIME_SUSPENDED, false, DEV_ACCESS_ADMIN, POLL_ASLEEP},
		{NVME_RUNTIME_SUSPENDED, false, DEV_ACCESS_SYSFS, POLL_ASLEEP},
		/* … unless wake_sleeping = yes */
		{NVME_RUNTIME_SUSPENDED, true, DEV_ACCESS_ADMIN, POLL_SMART},
		{NVME_RUNTIME_SUSPENDED, true, DEV_ACCESS_SYSFS, POLL_HWMON},
		/* on its way down or up: not asleep */
		{NVME_RUNTIME_SUSPENDING, false, DEV_ACCESS_ADMIN, POLL_SMART},
		{NVME_RUNTIME_RESUMING, false, DEV_ACCESS_ADMIN, POLL_SMART},
		{NVME_RUNTIME_ACTIVE, false, DEV_ACCESS_ADMIN, POLL_SMART},
		{NVME_RUNTIME_ACTIVE, false, DEV_ACCESS_SYSFS, POLL_HWMON},
		{NVME_RUNTIME_UNSUPPORTED, false, DEV_ACCESS_ADMIN, POLL_SMART},
		{NVME_RUNTIME_UNKNOWN, false, DEV_ACCESS_ADMIN, POLL_SMART},
		{NVME_RUNTIME_UNKNOWN, false, DEV_ACCESS_SYSFS, POLL_HWMON},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(poll_plan(cases[i].rt, cases[i].wake, cases[i].access), cases[i].want,
			     "case %zu: %s wake=%d access=%d", i,
			     nvme_runtime_status_name(cases[i].rt), cases[i].wake, cases[i].access);
}

Test(pollplan, names)
{
	cr_expect_str_eq(poll_action_name(POLL_SMART), "smart");
	cr_expect_str_eq(poll_action_name(POLL_HWMON), "hwmon");
	cr_expect_str_eq(poll_action_name(POLL_ASLEEP), "asleep");
	cr_expect_str_eq(poll_action_name((enum poll_action)42), "unknown");
}

/*
 * configuration.md, [store] commit_interval: 0 commits every poll; longer, the
 * samples wait, but never longer than commit_interval (the next round would
 * pass it: commit now), and a full batch goes at once.
 */
Test(pollplan, commit_due_table)
{
	static const struct {
		int64_t since, now, poll, commit;
		size_t pending;
		bool want;
		const char *why;
	} cases[] = {
		{0, 0, 1000, 0, 0, false, "nothing pending"},
		{5000, 5000, 1000, 10000, 0, false, "nothing pending, whatever the age"},
		{5000, 5000, 1000, 0, 2, true, "0: every poll"},
		{5000, 5000, 10000, 0, 64, true, "0: every poll, slow poll too"},
		{5000, 5000, 1000, 10000, 2, false, "just read: waits"},
		{5000, 13999, 1000, 10000, 18, false, "under 9 s old: waits"},
		{5000, 14000, 1000, 10000, 20, false, "at 9 s the next round is at 10 s: waits"},
		{5000, 14001, 1000, 10000, 20, true, "a late round: the next would pass 10 s"},
		{5000, 15000, 1000, 10000, 22, true, "10 s old: now"},
		{5000, 65000, 1000, 10000, 2, true, "long overdue (a failing store): now"},
		{5000, 5000, 10000, 10000, 2, false, "poll as long as the interval: waits a round"},
		{5000, 15000, 10000, 10000, 4, true, "… and no more: every other poll"},
		{5000, 5000, 30000, 10000, 2, true, "poll longer than the interval: every poll"},
		{5000, 5000, 100, 1000, 999, false, "a fast poll below the batch: waits"},
		{5000, 5000, 100, 1000, 1000, true, "a full batch: now"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(poll_commit_due(cases[i].since, cases[i].now, cases[i].poll,
					     cases[i].commit, cases[i].pending, 1000),
			     cases[i].want, "case %zu: %s", i, cases[i].why);
}
