/* SPDX-License-Identifier: MIT */
/* [probes]'s keys (probe_conf.h): what core's reader applies and checks, what the docs list. */
#include <errno.h>
#include <stdio.h>

#include "nvmond/analysis/recovery.h"
#include "nvmond/probe/probe_conf.h"
#include "nvmond/probe/probe_sched.h"
#include "nvmond/util/units.h"

/* recovery_intervals: a list of durations (analysis/recovery.h), checked as the file is read. */
static int check_recovery_intervals(const char *value, char *err, size_t errsize)
{
	int64_t v[RECOVERY_MAX_INTERVALS];
	char e[RECOVERY_ERR_MAX];
	size_t n;

	if (recovery_intervals_parse(value, v, &n, e) < 0) {
		snprintf(err, errsize, "%s", e);
		return -EINVAL;
	}
	return 0;
}

int probe_conf_check_schedule(const char *value, char *err, size_t errsize)
{
	struct probe_sched v[PROBE_SCHED_MAX];
	char e[PROBE_SCHED_ERR];
	size_t n;

	if (probe_sched_parse(value, v, &n, e) < 0) {
		snprintf(err, errsize, "%s", e);
		return -EINVAL;
	}
	return 0;
}

#define P struct probe_conf

static const struct cfg_key probe_keys[] = {
	CFG_KEY_UINT32(P, "probes", "temp_margin", temp_margin_c, 0, 50, "5"),
	CFG_KEY_UINT32(P, "probes", "busy_iops", busy_iops, 0, 10000000, "50"),
	CFG_KEY_UINT32(P, "probes", "busy_mbps", busy_mbps, 0, 100000, "5"),
	CFG_KEY_DURATION(P, "probes", "phase_duration", phase_ms, 500, MS_PER_HOUR, "5s"),
	CFG_KEY_DURATION(P, "probes", "jitter", jitter_ms, 0, MS_PER_DAY, "10m"),
	CFG_KEY_DURATION(P, "probes", "sustained_every", sustained_every_ms, 0, 366 * MS_PER_DAY,
			 "7d"),
	CFG_KEY_UINT32(P, "probes", "min_free", min_free_pct, 0, 50, "5"),
	CFG_KEY_UINT32(P, "probes", "sweep_depth", sweep_depth, 1, 32, "4"),
	CFG_KEY_PATH(P, "probes", "lock_dir", lock_dir, 0, ""),
	CFG_KEY_PATH(P, "probes", "recovery_intervals", recovery_intervals, 1,
		     "5m,10m,20m,40m,60m,90m", .syntax = "list of durations",
		     .check = check_recovery_intervals),
};

const struct cfg_section probe_cfg_section = CFG_SECTION("probes", probe_keys, P);

const struct probe_conf *probe_conf(const struct cfg *c)
{
	return cfg_section_get(c, &probe_cfg_section);
}
