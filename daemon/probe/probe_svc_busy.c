/* SPDX-License-Identifier: MIT */
/*
 * Whether a drive is busy with foreground I/O, for the probes' busy rule
 * (probe_busy()): the drive's diskstats at each poll, the last minute of
 * them; a demo drive's test hook (dev_demo_foreground()). On the loop.
 */
#define _GNU_SOURCE
#include <stdint.h>

#include "nvmond/core/loop.h"
#include "nvmond/demo/demo.h"
#include "nvmond/probe/probe_conf.h"
#include "nvmond/probe/probe_safety.h"
#include "nvmond/util/timefmt.h"

#include "probe_svc_internal.h"

/* Foreground I/O over the last minute, from the snapshots taken at @since_mono or later. */
static void busy_of_since(const struct probe_dev *d, int64_t since_mono, struct gate_facts *g)
{
	const struct busy_snap *last, *first = NULL;
	int64_t now;

	if (d->busy.n < 2)
		return;
	last = &d->busy.snap[(d->busy.pos + BUSY_HIST - 1) % BUSY_HIST];
	now = last->mono_ms;
	for (size_t i = 0; i < d->busy.n; i++) {
		const struct busy_snap *b =
			&d->busy.snap[(d->busy.pos + BUSY_HIST - 1 - i) % BUSY_HIST];
		if (b->mono_ms < since_mono)
			break;
		first = b;
		if (now - b->mono_ms >= BUSY_WINDOW_MS)
			break;
	}
	if (!first || now - first->mono_ms < BUSY_WINDOW_MS / 2)
		return;
	double secs = (double)(now - first->mono_ms) / 1000.0;
	g->busy_known = true;
	g->busy_iops = (double)(last->ds.ios - first->ds.ios) / secs;
	g->busy_bps = (double)(last->ds.sectors - first->ds.sectors) * 512 / secs;
}

/* A demo drive: the foreground I/O its test hook asks for (dev_demo_foreground()). */
static void busy_of_demo(const struct probe_svc *p, const struct probe_dev *d, struct gate_facts *g)
{
	struct fleet_device fd;

	if (fleet_get(p->fleet, d->device_id, &fd) == 0 &&
	    dev_demo_foreground(p->backend, fd.row.name, &g->busy_iops, &g->busy_bps) == 0)
		g->busy_known = true;
}

/* The facts of the busy rule from @since_mono on (INT64_MIN: the last minute, all of it). */
static void facts_since(const struct probe_svc *p, const struct probe_dev *d, int64_t since_mono,
			struct gate_facts *g)
{
	if (p->sim_busy)
		busy_of_demo(p, d, g);
	else
		busy_of_since(d, since_mono, g);
}

void probe_svc_busy_of(const struct probe_svc *p, const struct probe_dev *d, struct gate_facts *g)
{
	facts_since(p, d, INT64_MIN, g);
}

static bool busy_rule(const struct probe_svc *p, const struct gate_facts *g)
{
	return probe_busy(g->busy_known, g->busy_iops, g->busy_bps, probe_conf(&p->cfg)->busy_iops,
			  (double)probe_conf(&p->cfg)->busy_mbps * 1e6);
}

bool probe_svc_busy_since(const struct probe_svc *p, const struct probe_dev *d, int64_t since_mono,
			  struct gate_facts *g)
{
	facts_since(p, d, since_mono, g);
	return busy_rule(p, g);
}

bool probe_svc_busy(const struct probe_svc *p, const struct probe_dev *d, struct gate_facts *g)
{
	probe_svc_busy_of(p, d, g);
	return busy_rule(p, g);
}

void probe_svc_on_sample(void *ctx, const struct device_row *dev, const struct sample *s)
{
	struct probe_svc *p = ctx;
	struct probe_dev *d;
	struct probe_diskstat ds;

	(void)s;
	/* A drive new here: the scheduler reads its schedule now, not at its next look. */
	if (!probe_svc_dev_find(p, dev->id, false) && p->loop && p->sched_timer > 0)
		(void)loop_timer_pull(p->loop, p->sched_timer, 0);
	if (p->sim_busy)
		return; /* no diskstats: busy_of_demo() */
	d = probe_svc_dev_find(p, dev->id, true);
	/* The whole drive: every namespace (and so every partition) of it. */
	if (!d || probe_drive_diskstat("/sys", dev->name, &ds) < 0)
		return;
	d->busy.snap[d->busy.pos] = (struct busy_snap){.mono_ms = timefmt_mono_ms(), .ds = ds};
	d->busy.pos = (d->busy.pos + 1) % BUSY_HIST;
	if (d->busy.n < BUSY_HIST)
		d->busy.n++;
}
