/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The cache-recovery study (a series: a fill to the cliff, then a burst per
 * idle interval): its plan and its verdicts. Owned by probe_study.c; used by
 * the daemon's start (probe_svc.c), its series (probe_svc_series.c), its API
 * (probe_http.c) and `nvmond probe` (probe_cli.c).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nvmond/analysis/recovery.h"
#include "nvmond/core/cfg.h"
#include "nvmond/probe/probe_run.h"
#include "nvmond/probe/probe_safety.h"
#include "nvmond/store/store.h"

/* One write of a study: its fill (to the cliff) or a burst. Made by whoever starts the run. */
struct probe_study_step {
	bool fill;
	uint64_t bytes;
};

/* A study, decided at its start. Who changes which field: */
struct probe_study {
	/* probe_study_setup() */
	uint64_t cache_bytes; /* the drive's measured write cache */
	int64_t cache_run_id; /* the sustained-write that measured it */
	uint64_t fill_bytes, burst_bytes;
	int64_t interval_ms[RECOVERY_MAX_INTERVALS];
	size_t n_intervals;
	/* probe_study_after(), after the fill */
	double pre_rate;  /* bytes/s before its cliff (the fill's own cliff, once found) */
	int64_t cliff_ms; /* when the fill ended: idle times count from here */
	/* probe_svc_series.c: the daemon's idle clock (analysis/recovery.h): idle
	 * since the cliff net of busy periods; a burst runs when it reaches the
	 * burst's interval. */
	bool idle_net;		   /* the clock runs (the daemon), else wall time (the CLI) */
	struct recovery_idle idle; /* monotonic ms */
	int64_t own_end_mono;	   /* the study's last run ended: its writes are not foreground */
	bool busy_seen;		   /* the last observation was busy (the log says it once) */
};

/*
 * Plan a cache-recovery study on @row: its measured cache (refused, -ENOENT,
 * when sustained-write never found one), [probes] recovery_intervals, the fill
 * and the burst sizes. Return: 0 with @ret; -ENODATA (no cache size measured),
 * -EINVAL (bad intervals), -EDQUOT (the fill exceeds probe_sustained_limit) or
 * other negative errno, with @reason.
 */
int probe_study_setup(const struct cfg *c, struct store *s, const struct device_row *row,
		      int64_t now_ms, struct probe_study *ret, char reason[PROBE_REASON_MAX]);

/*
 * After a run of study @st: the fill sets when the cliff came and its rate
 * before; a burst is judged. Return: true when the study is over (the cache
 * recovered), with @verdict (may be NULL) filled.
 */
bool probe_study_after(struct probe_study *st, const struct probe_outcome *o, uint32_t index,
		       char verdict[PROBE_REASON_MAX]);

/* The schedule of @st, one line per burst, for the log and the CLI. */
void probe_study_print_plan(FILE *out, const struct probe_study *st);
