/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The busy rule's facts in the daemon: each drive's diskstats at each poll
 * (the last minute of them), or on a backend with DEV_CAP_SIM_BUSY what it
 * simulates. Owned by probe_svc_busy.c, which alone writes the history; read
 * through its functions by the starts (probe_svc.c, probe_svc_group.c), the
 * series (probe_svc_series.c) and the API's busy check (probe_svc.c).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/monitor/poller.h"
#include "nvmond/probe/probe_safety.h"

#include "probe_plan_internal.h"

#define BUSY_WINDOW_MS 60000
#define BUSY_HIST      32

struct probe_svc;
struct probe_dev;

struct busy_snap {
	int64_t mono_ms;
	struct probe_diskstat ds;
};

/* One drive's diskstats at its last BUSY_HIST polls, a ring (probe_svc_on_sample()). */
struct probe_busy_hist {
	struct busy_snap snap[BUSY_HIST];
	size_t n, pos; /* how many are kept; where the next goes */
};

/*
 * Foreground I/O on @d over the last minute, from the poll-time snapshots
 * (busy_known); on a backend that simulates it, what it says (dev_demo_foreground()).
 */
void probe_svc_busy_of(const struct probe_svc *p, const struct probe_dev *d, struct gate_facts *g);

/* probe_svc_busy_of(), then whether it is over [probes] busy_iops / busy_mbps (probe_busy()). */
bool probe_svc_busy(const struct probe_svc *p, const struct probe_dev *d, struct gate_facts *g);

/*
 * Whether @d is busy now by the probes' rule (probe_busy()) for the
 * cache-recovery study's idle clock: on the drive's diskstats since
 * @since_mono (the study's own last write left out), on a simulated drive what
 * its backend says (dev_demo_foreground()). Not known counts as not busy.
 */
bool probe_svc_busy_since(const struct probe_svc *p, const struct probe_dev *d, int64_t since_mono,
			  struct gate_facts *g);

/* The poller's listener: the drive's diskstats at each poll, into its history. */
void probe_svc_on_sample(void *ctx, const struct device_row *dev, const struct sample *s);
