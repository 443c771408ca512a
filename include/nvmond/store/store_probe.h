/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/analysis/cliff.h"
#include "nvmond/store/store_probe_types.h"

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
	/* What the budget counts: the reservation while it runs, then every
	 * byte that may have reached the drive (>= bytes_written). */
	uint64_t bytes_charged;
	uint64_t bytes_lease; /* recorded while running: >= what it handed to the kernel */
	uint32_t nsid;	      /* the namespace read or written (file: holding it); 0 unknown */
	/* A repeated run (migrations/0009): the id of the series' first run, this
	 * run's place in it (1 …) and the runs asked for; all 0 for a single run. */
	int64_t series_id;
	uint32_t series_index, series_of;
	/* A copy-to run (migrations/0011): the drive read and what was read on it
	 * (its probe file or raw namespace); 0 and "" for every other run. */
	int64_t source_device_id;
	char source_target[576];
};

struct probe_phase_row {
	size_t phase;
	char name[16];
	char op[8];
	int random;
	uint32_t block_size, depth;
	char stop[16];
	int64_t elapsed_ms, offset_ms, interval_ms;
	struct probe_dir_stats rd, wr; /* lat_max_ns: 0 for phases stored before schema 9 */
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

/**
 * store_probe_runs_list() - Runs of @device_id, newest first, at most @limit:
 * the runs that wrote it and the copy-to runs that read it (source_device_id).
 */
int store_probe_runs_list(struct store *s, int64_t device_id, size_t limit,
			  struct probe_run_row **ret, size_t *ret_n);

/**
 * store_probe_runs_latest() - The newest finished run of each preset on @device_id
 * (state done, or stopped: a sustained-write that found its cliff), newest first;
 * runs as store_probe_runs_list() lists them. Return: 0 or negative errno.
 */
int store_probe_runs_latest(struct store *s, int64_t device_id, struct probe_run_row **ret,
			    size_t *ret_n);

/** store_probe_series_runs() - The runs of series @series_id, in order. */
int store_probe_series_runs(struct store *s, int64_t series_id, struct probe_run_row **ret,
			    size_t *ret_n);

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
 * store_probe_written_since() - Bytes charged to @device_id's budget by runs
 * started at or after @since_ms (the budget windows): running ones at their
 * reservation.
 */
int store_probe_written_since(struct store *s, int64_t device_id, int64_t since_ms, uint64_t *ret);

/**
 * store_probe_last_started() - When @preset last ran on @device_id: runs that
 * wrote count however they ended; skipped ones and ones refused before
 * writing do not. Return: 0 (*ret = 0 when never), or errno.
 */
int store_probe_last_started(struct store *s, int64_t device_id, const char *preset, int64_t *ret);

/**
 * store_probe_run_charge() - While run @id runs: its lease (the most it may
 * have written) and what it wrote so far. Return: 0, -ENOENT (not running),
 * or negative errno.
 */
int store_probe_run_charge(struct store *s, int64_t id, uint64_t lease, uint64_t written);

/**
 * store_probe_runs_recover() - Mark the runs of @device_id still "running"
 * as failed with @reason, charging each its lease (a run leaves one on
 * record before writing past it). Call only while holding the drive's probe
 * lock: a running run's owner holds it, so what is left is dead.
 * Return: how many, or negative errno.
 */
int store_probe_runs_recover(struct store *s, int64_t device_id, int64_t now_ms,
			     const char *reason);

/** store_probe_running_devices() - The devices with a run left "running". */
int store_probe_running_devices(struct store *s, int64_t **ret, size_t *ret_n);

/**
 * store_probe_file_get() - The probe file nvmond recorded making in @dir for
 * @device_id. Return: 0, -ENOENT (none), or negative errno.
 */
int store_probe_file_get(struct store *s, int64_t device_id, const char *dir,
			 struct probe_file_id *ret);

/** store_probe_file_put() - Record (or replace) that file. Return: 0 or negative errno. */
int store_probe_file_put(struct store *s, int64_t device_id, const char *dir,
			 const struct probe_file_id *id, int64_t now_ms);
