/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdio.h>

#include <jansson.h>

/*
 * The cache-recovery study as stored (issue 13): its runs (the fill, then a
 * burst per idle interval), linked as a series, read back as points (idle
 * time, burst rate, % of the pre-cliff rate) and a verdict.
 */
struct store;
struct probe_run_row;

/**
 * probe_study_json_add() - Add to @detail (probe_run_detail_json() of @run, any
 * run of a cache-recovery study) its "recovery": {"series_id", "cache_bytes",
 * "pre_cliff_mb_s", "cliff_at", "points": [{"run_id", "idle_s", "idle_min",
 * "mb_s", "pct", "paused_s"}…], "paused_s", "state", "verdict"}: a daemon's
 * burst's idle time is net of busy periods and paused_s says how long the study
 * had paused for a busy drive by then (null for `nvmond probe`'s, whose idle is
 * the time since the cliff). Nothing for other presets.
 * Return: 0 or negative errno.
 */
int probe_study_json_add(struct store *s, const struct probe_run_row *run, json_t *detail);

/** probe_study_print() - The study's points and verdict of @detail, for the CLI. */
void probe_study_print(FILE *out, const json_t *detail);
