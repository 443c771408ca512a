/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/dev/dev.h"

/*
 * What one poll does with one controller (pure): read the health log, read
 * only the temperatures from hwmon, or leave a sleeping drive alone. Reading
 * hwmon's temp*_input makes the kernel send Get Log Page, so a suspended
 * drive is not read at all unless [daemon] wake_sleeping = yes.
 */
enum poll_action {
	POLL_SMART,  /* the health log: every field */
	POLL_HWMON,  /* no permission for admin commands: hwmon temperatures only */
	POLL_ASLEEP, /* runtime-suspended: send nothing, the drive shows as asleep */
};

/**
 * poll_plan() - The action for a controller whose PCI function is in state
 * @rt, with @wake_sleeping as configured and @access as the scan (or an
 * earlier poll) found it. Pure.
 */
enum poll_action poll_plan(enum nvme_runtime_status rt, bool wake_sleeping, enum dev_access access);

/** poll_action_name() - "smart", "hwmon", "asleep". Pure. */
const char *poll_action_name(enum poll_action a);

/**
 * poll_commit_due() - Whether the samples buffered since @pending_since_ms
 * (monotonic; @pending of them, 0 = none) are committed at the end of the poll
 * round at @now_ms, with [store] commit_interval @commit_interval_ms and
 * [daemon] poll_interval @poll_interval_ms. 0 commits after every round. Else
 * they wait, so that one commit covers several rounds, as long as the next
 * round would not make the oldest wait longer than @commit_interval_ms; a
 * buffer of @batch samples or more is committed at once. Pure.
 */
bool poll_commit_due(int64_t pending_since_ms, int64_t now_ms, int64_t poll_interval_ms,
		     int64_t commit_interval_ms, size_t pending, size_t batch);
