/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * A drive's measured write-cache size (issue 13): the bytes a sustained-write
 * wrote before its cliff, with the rates before and after, one per run that
 * found a cliff. A query over the stored probe results (probe_runs,
 * probe_phases, probe_events), no table of its own: the history is the runs.
 */
struct store;

struct probe_cache_row {
	int64_t run_id;
	int64_t at_ms;	    /* when the cliff came */
	uint64_t bytes;	    /* written before the cliff: the cache */
	double rate_before; /* bytes/s into the cache */
	double rate_after;  /* bytes/s after it */
};

/**
 * store_probe_cache_sizes() - The cache sizes measured on @device_id, newest
 * first, at most @limit, each the first cliff of a sustained-write run.
 * Return: 0 (*ret malloc()ed, *ret_n may be 0), or negative errno.
 */
int store_probe_cache_sizes(struct store *s, int64_t device_id, size_t limit,
			    struct probe_cache_row **ret, size_t *ret_n);

/**
 * store_probe_cache_latest() - The newest one measured before @before_ms.
 * Return: 0, -ENOENT (never measured), or negative errno.
 */
int store_probe_cache_latest(struct store *s, int64_t device_id, int64_t before_ms,
			     struct probe_cache_row *ret);
