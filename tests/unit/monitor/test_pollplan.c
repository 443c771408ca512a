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
