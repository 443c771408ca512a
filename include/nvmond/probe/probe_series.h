/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "nvmond/analysis/rated.h"
#include "nvmond/core/cfg.h"
#include "nvmond/probe/probe.h"

/*
 * Repeated runs and the spec check (issue 13): the rated figures of a drive,
 * the summary of a series (best, median, spread per phase) and the comparison
 * of a sequential preset's result with the drive's rating.
 */
struct store;

#define PROBE_REPEAT_MAX	  10
#define PROBE_COOLDOWN_DEFAULT_MS 30000
#define PROBE_COOLDOWN_MAX_MS	  (3600 * 1000LL)

/* A drive's rating and where it comes from. */
struct probe_rated {
	struct rated_speed speed; /* 0 = not rated in that direction */
	const char *source;	  /* "config", "builtin", or NULL when unknown */
};

/**
 * probe_rated_for() - [device "X"] rated_read_mbps / rated_write_mbps, each
 * else the built-in table's figure for @model.
 */
void probe_rated_for(const struct cfg *c, const char *model, const char *serial,
		     struct probe_rated *ret);

/**
 * probe_preset_spec_checked() - Whether @p is compared with the rating: the
 * data sheets' sequential rates are measured at large transfers and a high
 * queue depth, so only sequential read/write phases of 128 KiB or more at a
 * depth of 8 or more are (seq1m-q8; not seq1m-q1, the random presets, the copy
 * or sustained-write, whose rate after the cache is not what a data sheet rates,
 * nor cache-recovery's fill and bursts).
 */
bool probe_preset_spec_checked(const struct probe_preset *p);

/**
 * probe_series_json_add() - Add to @detail (probe_run_detail_json()) its
 * "series" (when the run belongs to one: its runs, and per phase and direction
 * the best, median, min, max and spread of the measured runs, and a note when
 * it ended early) and its "spec" (measured ÷ rated, with the best of the series
 * when there is one), and a note when the series is below its rating.
 * Return: 0 or negative errno.
 */
int probe_series_json_add(struct store *s, const struct probe_rated *rated, json_t *detail);

/**
 * probe_series_check() - The below_rated rule on the series @series_id as
 * stored (rated_check() on its best figures, the link at its last run's start
 * and the hottest SMART sample of its runs).
 * Return: 0 with @ret, or negative errno.
 */
int probe_series_check(struct store *s, int64_t series_id, const struct probe_rated *rated,
		       struct rated_verdict *ret);

/** probe_print_series() - The series and spec lines of @detail, for the CLI table. */
void probe_print_series(FILE *out, const json_t *detail);

struct probe_run_row;

/**
 * probe_series_skip_insert() - A run of a series that did not run, on record: @row
 * (its drive and its place in the series) started and ended at @now_ms, in state
 * "skipped" with @preset, @trigger and @reason; the CLI's series and the service's share it.
 * Return: 0 or the store's < 0.
 */
int probe_series_skip_insert(struct store *s, struct probe_run_row *row, const char *preset,
			     const char *trigger, const char *reason, int64_t now_ms);
