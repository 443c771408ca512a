/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/cliff.h"
#include "nvmond/probe.h"

/*
 * Probe runs in the store (migrations/0003_probes.sql). Same conventions as
 * store.h: negative errno, ret_* written on success, *ret arrays malloc()ed.
 */
struct store;

struct probe_run_row {
	int64_t id, device_id;
	char preset[PROBE_NAME_MAX];
	char trigger[16]; /* schedule, api, cli */
	char state[16];	  /* running, done, stopped, aborted, failed, skipped */
	char reason[256];
	char target[576];
	char engine[16];
	int64_t started_ms;
	int64_t ended_ms; /* 0 while running */
	uint64_t bytes_written, bytes_read;
};

struct probe_phase_row {
	size_t phase;
	char name[16];
	char op[8];
	int random;
	uint32_t block_size, depth;
	char stop[16];
	int64_t elapsed_ms, offset_ms, interval_ms;
	struct probe_dir_stats rd, wr; /* lat_max_ns is not stored */
	int64_t cpu_user_us, cpu_sys_us;
};

/** store_probe_run_insert() - Insert @row (id ignored). Return: 0 with *ret_id, or errno. */
int store_probe_run_insert(struct store *s, const struct probe_run_row *row, int64_t *ret_id);

/** store_probe_run_update() - Update state, reason, target, engine, end, bytes of row->id. */
int store_probe_run_update(struct store *s, const struct probe_run_row *row);

/**
 * store_probe_phase_insert() - A phase with its series and events, in one transaction.
 * Return: 0 or negative errno (nothing stored).
 */
int store_probe_phase_insert(struct store *s, int64_t run_id, const struct probe_phase_row *ph,
			     const struct probe_point *v, size_t n, const struct cliff_event *ev,
			     size_t n_ev);

/** store_probe_thermal_insert() - The SMART samples of a run. Return: 0 or errno. */
int store_probe_thermal_insert(struct store *s, int64_t run_id, const struct cliff_thermal *v,
			       size_t n);

/** store_probe_runs_list() - Runs of @device_id, newest first, at most @limit. */
int store_probe_runs_list(struct store *s, int64_t device_id, size_t limit,
			  struct probe_run_row **ret, size_t *ret_n);

/** store_probe_run_get() - Return: 0, -ENOENT, or negative errno. */
int store_probe_run_get(struct store *s, int64_t id, struct probe_run_row *ret);

/** store_probe_phases_get() - Phases of run @id, in order. */
int store_probe_phases_get(struct store *s, int64_t id, struct probe_phase_row **ret,
			   size_t *ret_n);

/** store_probe_series_get() - Series of phase @phase of run @id. */
int store_probe_series_get(struct store *s, int64_t id, size_t phase, struct probe_point **ret,
			   size_t *ret_n);

/* An event as stored, with its phase. */
struct probe_event_row {
	size_t phase;
	struct cliff_event ev; /* start/end indexes are not stored (0) */
};

/** store_probe_events_get() - Events of run @id, by phase and time. */
int store_probe_events_get(struct store *s, int64_t id, struct probe_event_row **ret,
			   size_t *ret_n);

/** store_probe_thermal_get() - SMART samples of run @id. */
int store_probe_thermal_get(struct store *s, int64_t id, struct cliff_thermal **ret, size_t *ret_n);

/**
 * store_probe_written_since() - Bytes the probes wrote to @device_id in runs
 * started at or after @since_ms (the budget windows).
 */
int store_probe_written_since(struct store *s, int64_t device_id, int64_t since_ms, uint64_t *ret);

/**
 * store_probe_last_started() - When @preset last ran on @device_id (skipped
 * and failed runs do not count). Return: 0 (*ret = 0 when never), or errno.
 */
int store_probe_last_started(struct store *s, int64_t device_id, const char *preset, int64_t *ret);

/**
 * store_probe_runs_interrupt() - Mark runs still "running" (the daemon stopped
 * under them) as failed. Return: how many, or negative errno.
 */
int store_probe_runs_interrupt(struct store *s, int64_t now_ms);
