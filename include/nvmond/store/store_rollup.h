/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/analysis/series.h"

/*
 * Long history in the store (migrations/0004_rollups.sql): 1-minute rollups
 * built from raw samples, 1-hour rollups built from 1-minute ones, and pruning
 * of what is older than it is kept. The builder works in small steps, each one
 * short transaction, so the main loop calls it from a timer and readers never
 * wait long.
 */
struct store;

#define ROLLUP_KEEP_1M_MS (90LL * 24 * 3600 * 1000)
#define ROLLUP_GRACE_MS	  (5LL * 60 * 1000) /* buckets this recent may still get samples */

struct store_rollup_cfg {
	int64_t keep_raw_ms; /* raw samples older than this go, once rolled up */
	int64_t keep_1m_ms;  /* 1-minute rollups older than this go, once rolled up */
	int64_t grace_ms;    /* leave buckets ending within this of now alone */
	int64_t chunk_ms;    /* raw samples rolled up per step; 0 = 6 hours (the timer's) */
};

/**
 * store_rollup_step() - Build the next chunk of rollups (at most 6 hours of raw
 * samples into 1-minute rows, 7 days of 1-minute rows into 1-hour rows; more
 * with a larger c->chunk_ms) and prune one chunk of expired rows, in one
 * transaction.
 * @ret_more: true when there is more to do now (call again soon)
 * Return: 0 or negative errno (store_rollup_errmsg() tells why).
 */
int store_rollup_step(struct store *s, const struct store_rollup_cfg *c, int64_t now_ms,
		      bool *ret_more);

/**
 * store_rollup_read() - The rows of @device_id with from_ms <= ts <= to_ms at
 * resolution @res_s, oldest first. Where the rollups of @res_s are not built yet
 * (the most recent minutes), the rows come from the next finer resolution, so the
 * range is complete up to the newest sample. *ret is malloc()ed (NULL when none).
 * Return: 0 or negative errno.
 */
int store_rollup_read(struct store *s, int64_t device_id, int res_s, int64_t from_ms, int64_t to_ms,
		      struct series_row **ret, size_t *ret_n);

/**
 * store_rollup_done() - Every bucket of @res_s that starts before *ret is built
 * (0 when none is). Return: 0 or negative errno.
 */
int store_rollup_done(struct store *s, int res_s, int64_t *ret);

/** store_rollup_errmsg() - The SQLite message of the last failure on @s. */
const char *store_rollup_errmsg(struct store *s);
