/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Repeated runs in the daemon (repeat = N, and the cache-recovery study): one
 * drive's series, the idle time between its runs, its end. Owned by
 * probe_svc_series.c; probe_svc.c begins a series at its first run (and
 * counts each next one it starts), probe_svc.c's shutdown stops its timer.
 */
#include <stdbool.h>
#include <stdint.h>

#include "nvmond/probe/probe.h"

#include "probe_study_internal.h"

struct probe_svc;
struct probe_dev;
struct probe_job_ctx;

/*
 * A repeated preset (repeat = N): its runs one after the other, each a normal
 * run started by probe_svc_start_on_loop(), with an idle cooldown between.
 */
struct probe_series_state {
	/* probe_svc.c (start_series()): set at the first run */
	bool active; /* probe_svc_series.c clears it at the end */
	struct probe_svc *svc;
	int64_t series_id;	 /* the id of its first run */
	int64_t last_run_id;	 /* the run that ran last (or runs); probe_svc.c at each */
	uint32_t next_index, of; /* the run to start next (1 …), the runs asked for */
	enum probe_preset_id preset;
	char trigger[16];
	int64_t cooldown_ms;
	bool is_study;		  /* a cache-recovery study: its fill, then a burst per interval */
	struct probe_study study; /* probe_study.c's, and probe_svc_series.c's idle clock */
	/* probe_svc_series.c */
	int64_t timer; /* the cooldown's timer, 0 when none */
};

/* After run @j of @d's series, the idle time before the next, or the end. On the loop. */
void probe_series_after_run(struct probe_svc *p, struct probe_dev *d,
			    const struct probe_job_ctx *j);

/* A run @d's series did not run (refused at its start, cancelled while idle), on record. */
void probe_series_skip_record(struct probe_svc *p, struct probe_dev *d, const char *reason);

/*
 * Stop the series of drive @d (its cooldown, and its running run with @why)
 * when @run_id is its id or one of its runs. On the loop.
 * Return: true when it was one of its runs.
 */
bool probe_series_cancel(struct probe_svc *p, struct probe_dev *d, int64_t run_id, const char *why);
