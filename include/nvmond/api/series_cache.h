/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/analysis/series.h"

/*
 * Closed 1-hour rollup buckets never change, so GET …/series keeps them in memory,
 * per device, in a compact layout (exact integers, the averages as stored) instead of
 * reading and decoding them from SQLite on every request. Buckets not closed yet
 * (store_rollup_done()) and finer resolutions are read from the store each time.
 * Bounded by a byte cap: least recently used devices go first.
 */
struct series_cache;
struct store;

#define SERIES_CACHE_MAX_BYTES (16u << 20) /* about 16 drive-years of hourly buckets */

/** series_cache_new() - Return: an empty cache of at most @max_bytes, or NULL (ENOMEM). */
struct series_cache *series_cache_new(size_t max_bytes);

/** series_cache_free() - Accepts NULL. Return: NULL. */
struct series_cache *series_cache_free(struct series_cache *c);

/**
 * series_cache_read() - The answer rows of @q for @device_id: the rows of
 * q->res_s in [q->from_ms, q->to_ms] merged into buckets of q->step_ms
 * (series_rebucket()). Closed hourly buckets come from @c (filled or extended
 * from @s first); the rest from @s. @c NULL: everything from @s.
 * *ret is malloc()ed (NULL when there are none).
 * Return: 0 or negative errno (a store error: store_rollup_errmsg(@s)).
 */
int series_cache_read(struct series_cache *c, struct store *s, int64_t device_id,
		      const struct series_query *q, struct series_row **ret, size_t *ret_n);

/** series_cache_bytes() - Memory held by the buckets in @c. */
size_t series_cache_bytes(struct series_cache *c);
