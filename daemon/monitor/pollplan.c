/* SPDX-License-Identifier: MIT */
/* What one poll does with one controller. Pure. See pollplan.h. */
#include "nvmond/monitor/pollplan.h"

enum poll_action poll_plan(enum nvme_runtime_status rt, bool wake_sleeping, enum dev_access access)
{
	if (nvme_runtime_asleep(rt) && !wake_sleeping)
		return POLL_ASLEEP;
	return access == DEV_ACCESS_SYSFS ? POLL_HWMON : POLL_SMART;
}

const char *poll_action_name(enum poll_action a)
{
	switch (a) {
	case POLL_SMART:
		return "smart";
	case POLL_HWMON:
		return "hwmon";
	case POLL_ASLEEP:
		return "asleep";
	}
	return "unknown";
}
