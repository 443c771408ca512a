/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The daemon's probe schedules ([device] probe_schedule): each drive's parsed
 * entries and when each is due next, and the timer that starts the ones due.
 * Owned by probe_svc_sched.c; probe_svc.c arms the timer at the start and
 * clears a drive's text at a reload (parsed again at the next tick).
 */
#include <stddef.h>
#include <stdint.h>

#include "nvmond/core/cfg.h"
#include "nvmond/core/loop.h"
#include "nvmond/probe/probe_sched.h"
#include "nvmond/probe/probe_svc.h"

#define SCHED_TICK_MS 15000 /* a look in a wakeup the loop has anyway (clock steps, new drives) */

/* One drive's schedule. */
struct probe_sched_state {
	struct probe_sched v[PROBE_SCHED_MAX];
	size_t n;
	int64_t next_due[PROBE_SCHED_MAX]; /* wall-clock ms; 0: not computed yet */
	char text[256];			   /* what v was parsed from; "": parse again */
};

/* The scheduler's timer: starts the probes that are due. On the loop. */
int64_t probe_svc_sched_tick(struct loop *l, void *userdata);

/* Every schedule must parse: a typo should stop the start (or reload), not a probe at 3 am. */
int probe_svc_schedules_check(const struct cfg *c, char ret_err[PROBE_SVC_ERR_MAX]);
