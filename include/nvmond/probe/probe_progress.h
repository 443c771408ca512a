/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "nvmond/probe/probe.h"

/*
 * Where a running probe is: its phase, the bytes so far and the phase's series
 * so far, folded in tick by tick on the probe's thread and read as a copy by
 * whoever shows it (GET /api/v1/probes/{id}, the terminal's progress bar).
 * Pure: no clock, no locks; the caller serialises.
 */
struct probe_progress {
	enum probe_preset_id preset;
	int64_t phase_ms;	   /* planned length of a timed phase */
	uint64_t write_limit;	   /* sustained-write: bytes it may write */
	size_t phase;		   /* index of the phase running, among those run */
	uint64_t done_rd, done_wr; /* bytes of the phases before it */
	struct probe_point *v;	   /* this phase's series so far */
	size_t n, cap;
};

/** probe_progress_init() - An empty progress of @preset. */
void probe_progress_init(struct probe_progress *p, enum probe_preset_id preset, int64_t phase_ms,
			 uint64_t write_limit);

/**
 * probe_progress_update() - Fold in a tick: phase @phase with its series so
 * far @v[0..@n) (as the probe hooks pass it). A new phase index closes the one
 * before. Return: 0, or -ENOMEM (the progress stays as it was).
 */
int probe_progress_update(struct probe_progress *p, size_t phase, const struct probe_point *v,
			  size_t n);

/**
 * probe_progress_fraction() - How much of the run is done, 0 to 1: timed
 * phases by their time, sustained-write by its bytes against its limit.
 */
double probe_progress_fraction(const struct probe_progress *p);

/** probe_progress_mb_per_s() - The rate of the last interval, MB (10^6 B) per second. */
double probe_progress_mb_per_s(const struct probe_progress *p);

/** probe_progress_copy() - A deep copy into @ret. Return: 0, or -ENOMEM. */
int probe_progress_copy(const struct probe_progress *p, struct probe_progress *ret);

/**
 * probe_progress_json() - {"phase", "name", "phases", "elapsed_ms", "fraction",
 * "bytes_read", "bytes_written", "mb_per_s" (last interval), "series" (this
 * phase's, [t_ms, read bytes, written bytes] as stored runs have it)}.
 * Return: new reference, or NULL on ENOMEM.
 */
json_t *probe_progress_json(const struct probe_progress *p);

/** probe_progress_clear() - Free the series; @p may be reused after init. */
void probe_progress_clear(struct probe_progress *p);
