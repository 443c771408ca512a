/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

/*
 * The cache-recovery study's bursts as the daemon waited for them
 * (migrations/0013): each burst's idle time since the cliff net of busy
 * periods, and how long the study had paused for a busy drive.
 */
struct store;

/**
 * store_probe_study_burst_put() - Record burst run @run_id's net idle time
 * @idle_ms and the pauses @paused_ms before it.
 * Return: 0 or negative errno.
 */
int store_probe_study_burst_put(struct store *s, int64_t run_id, int64_t idle_ms,
				int64_t paused_ms);

/**
 * store_probe_study_burst_get() - What store_probe_study_burst_put() recorded.
 * Return: 0 with *ret_idle_ms and *ret_paused_ms, -ENOENT (none), or negative errno.
 */
int store_probe_study_burst_get(struct store *s, int64_t run_id, int64_t *ret_idle_ms,
				int64_t *ret_paused_ms);
