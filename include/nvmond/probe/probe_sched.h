/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/probe/probe.h"

/*
 * Calendar schedules of probes (pure): "daily 03:00 seq1m-q8" and
 * "weekly Sun 04:00 sustained-write", comma-separated, in local time; an entry
 * may end in "xN" (a series of N runs, as the API's "repeat") and "cooldown D"
 * (the idle between them, default 30 s): "daily 03:00 seq1m-q8 x3 cooldown 30s".
 */
#define PROBE_SCHED_MAX 8
#define PROBE_SCHED_ERR 128

struct probe_sched {
	int weekday; /* -1 daily, 0 Sunday … 6 Saturday */
	int minute;  /* of the day, 0 … 1439 */
	enum probe_preset_id preset;
	uint32_t repeat;     /* 1: one run; 2 … PROBE_REPEAT_MAX: a series */
	int64_t cooldown_ms; /* idle between the runs of a series */
};

/**
 * probe_sched_parse() - Parse @s ("" = no schedule).
 * Return: 0 with @ret / *ret_n, or -EINVAL with @ret_err.
 */
int probe_sched_parse(const char *s, struct probe_sched ret[PROBE_SCHED_MAX], size_t *ret_n,
		      char ret_err[PROBE_SCHED_ERR]);

/**
 * probe_sched_next() - The first time after @after_ms (unix ms) that @e is due,
 * in a zone @utc_offset_s east of UTC, plus a jitter in [0, @jitter_ms) drawn
 * from @seed and the occurrence (the same each time it is asked).
 */
int64_t probe_sched_next(const struct probe_sched *e, int64_t after_ms, int64_t utc_offset_s,
			 int64_t jitter_ms, uint64_t seed);
