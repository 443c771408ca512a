/* SPDX-License-Identifier: MIT */
/* What one poll does with one controller, and when its samples are committed. Pure.
 * See pollplan.h. */
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

bool poll_commit_due(int64_t pending_since_ms, int64_t now_ms, int64_t poll_interval_ms,
		     int64_t commit_interval_ms, size_t pending, size_t batch)
{
	if (pending == 0)
		return false;
	if (commit_interval_ms <= 0 || pending >= batch)
		return true;
	return now_ms - pending_since_ms + poll_interval_ms > commit_interval_ms;
}
