/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * [probes]: how throughput probes run (docs/probes.md), a section the probe
 * service owns (core/cfg_section.h): its keys, defaults and ranges are the table
 * in probe_conf.c, which docs/configuration.md is checked against.
 */
#include <stdint.h>

#include "nvmond/core/cfg.h"
#include "nvmond/core/cfg_section.h"

struct probe_conf {
	uint32_t temp_margin_c;	     /* no scheduled probe within this of WCTEMP */
	uint32_t busy_iops;	     /* busy: more foreground I/O than this per second, */
	uint32_t busy_mbps;	     /* or MB/s, over the last minute */
	int64_t phase_ms;	     /* each phase of a preset runs this long */
	int64_t jitter_ms;	     /* scheduled probes start up to this late */
	int64_t sustained_every_ms;  /* sustained-write at most this often */
	uint32_t min_free_pct;	     /* the probe file's layout keeps this much free */
	uint32_t sweep_depth;	     /* the sweep preset's queue depth */
	char lock_dir[CFG_PATH_MAX]; /* per-drive probe locks; "" = probe_lock_dir_default() */
	/* cache-recovery's idle times after the cliff ("5m,10m,…"): recovery_intervals_parse() */
	char recovery_intervals[128];
};

/* The section, for main's list (cfg_sections_register()). */
extern const struct cfg_section probe_cfg_section;

/**
 * probe_conf_check_schedule() - The check of [device] probe_schedule's syntax
 * (probe_sched.h) as the file is read, through main's list. Return: 0, or -EINVAL.
 */
int probe_conf_check_schedule(const char *value, char *err, size_t errsize);

/** probe_conf() - [probes] of @c. */
const struct probe_conf *probe_conf(const struct cfg *c);
