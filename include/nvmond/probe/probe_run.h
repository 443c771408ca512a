/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "nvmond/analysis/cliff.h"
#include "nvmond/probe/probe.h"
#include "nvmond/probe/probe_file.h"
#include "nvmond/dev/dev.h"
#include "nvmond/decode/smart.h"
#include "nvmond/store/store_probe.h"

/*
 * One probe run from start to stored result, shared by the daemon (a probe
 * thread per run) and `nvmond probe` (the command's own thread): open the
 * target safely, run each phase of the preset (the engine, or the demo model),
 * sample SMART every second, abort on foreground I/O or WCTEMP, stop
 * sustained-write at a cliff, and analyse the series.
 */

/* Everything a run needs, decided before it starts. */
struct probe_plan {
	int64_t device_id;
	/* The configured drive. Its controller and namespace are looked up by
	 * these before the target is opened and again before every phase; a
	 * name cached from a scan is never trusted. */
	char serial[21], model[41];
	enum probe_preset_id preset;
	char trigger[16];
	/* The backend answers its probes itself (DEV_CAP_OWN_PROBES): the
	 * simulated engine (probe_demo.c) runs them, there is no block device. */
	bool own_probes;
	char probe_dir[512]; /* "": the raw namespace @nsid */
	uint32_t nsid;	     /* probe_namespace (default 1) */
	bool destructive;
	uint64_t file_size;
	uint64_t allowed_write; /* reserved: the layout and every phase together write no more */
	int64_t phase_ms;
	uint16_t wctemp_k;
	unsigned min_free_pct; /* the probe file's layout keeps this much free */
	uint32_t sweep_depth;  /* the sweep's queue depth; 0 = PROBE_SWEEP_DEPTH */
	bool study_fill;       /* cache-recovery: the fill (stops at its cliff), else a burst */
	/* Drives probed at once with this one (a group run; 0 or 1: alone). Real
	 * drives share the host's bandwidth by themselves; the simulated engine
	 * shares it among them (probe_demo_share()). */
	unsigned together;
	bool file_known;	      /* nvmond recorded making a probe file in probe_dir */
	struct probe_file_id file_id; /* that file, when file_known */
	/* copy-to: the drive read (its own plan, with allowed_write 0: its probe
	 * file or raw namespace is opened read-only, looked up and checked as
	 * this one's is); NULL for every other preset. */
	const struct probe_plan *source;
	const char *sysfs;     /* "/sys" */
	const char *mountinfo; /* "/proc/self/mountinfo" */
};

/* Hooks into whoever runs it; all called on the run's thread. */
struct probe_hooks {
	/* Read the SMART log of controller @ctrl (the drive's name at the start
	 * of the run; at @now_ms, for the demo drives). */
	int (*read_smart)(void *ctx, const char *ctrl, int64_t now_ms, struct smart_log *ret);
	/* The same for plan->source's drive (copy-to). May be NULL. */
	int (*read_smart_source)(void *ctx, const char *ctrl, int64_t now_ms,
				 struct smart_log *ret);
	/* After each interval: phase @phase, its series so far. May be NULL. */
	void (*progress)(void *ctx, size_t phase, const struct probe_point *v, size_t n);
	/* True when the run must stop now (shutdown, Ctrl-C). May be NULL. */
	bool (*cancelled)(void *ctx);
	/*
	 * Record, before any write passes it, the most the run may have
	 * written (@lease, never less than what it handed to the kernel), and
	 * what it wrote (@written); at least every second while it writes.
	 * Return 0, or negative errno: the run then stops writing. NULL: no
	 * record (tests).
	 */
	int (*charge)(void *ctx, uint64_t lease, uint64_t written);
	/* Record the probe file just made, before it gets its name. May be NULL. */
	int (*file_made)(void *ctx, const char *dir, const struct probe_file_id *id);
	/*
	 * Open block device @ns, namespace @nsid of drive @who, in @mode (a raw
	 * target; copy-to's source too): the daemon's goes to the device
	 * process, the only one that may open block devices. NULL: opened here
	 * by probe_ns_open() (the command line). Return: fd, or negative errno
	 * with @ret_reason.
	 */
	int (*open_ns)(void *ctx, const char *ns, const struct dev_ident *who, uint32_t nsid,
		       enum dev_ns_mode mode, char ret_reason[DEV_NS_REASON_MAX]);
	/* Right before phase @step starts (its checks passed): a group run waits
	 * there for its other drives (probe_group.h). May be NULL. */
	void (*phase_start)(void *ctx, size_t step);
	void *ctx;
};

/*
 * The simulated model's state of one drive (probe_demo.c): its write cache, how
 * full and since when idle, as a real drive keeps its own between runs. The
 * simulated engine keeps one for each drive it answers for, for the process's
 * life; probe_demo_run() takes one (the model's tests), with how many drives
 * share the host's bandwidth in this run.
 */
struct probe_sim_state {
	uint64_t cache_used;
	int64_t idle_since_ms;
	bool folding;	   /* the cache overflowed (a cliff) and has not emptied since */
	unsigned together; /* this run's: the plan's */
};

struct probe_outcome {
	struct probe_run_row run;
	size_t n_phases;
	struct probe_phase_row phase[PROBE_MAX_PHASES];
	struct probe_result res[PROBE_MAX_PHASES];
	struct cliff_event ev[PROBE_MAX_PHASES][CLIFF_MAX_EVENTS];
	size_t n_ev[PROBE_MAX_PHASES];
	struct cliff_thermal *thermal;
	size_t n_thermal;
};

/**
 * probe_execute() - Run @plan. @out->run must hold id, device_id, preset,
 * trigger and started_ms; the rest is filled: state "done", "stopped" (a
 * sustained cliff), "aborted" (with the reason) or "failed" (a refused
 * target or an error, with the reason), and bytes_charged: every byte that
 * may have reached the drive, whatever ended the run.
 * Return: 0 (see out->run.state), or -ENOMEM.
 */
int probe_execute(const struct probe_plan *plan, const struct probe_hooks *h,
		  struct probe_outcome *out);

/** probe_outcome_clear() - Free the series and samples. */
void probe_outcome_clear(struct probe_outcome *o);

/**
 * probe_outcome_save() - Store the phases, samples and the run's final row.
 * Return: 0 or negative errno.
 */
int probe_outcome_save(struct store *s, const struct probe_outcome *o);

/**
 * probe_demo_run() - Simulate @j on demo drive @index (see probe_demo.c), with
 * SMART read through @h at the simulated time. @realtime: pace the intervals by
 * the wall clock (the daemon); else as fast as possible from @start_ms (tests).
 * Return: 0 or -EINVAL.
 */
int probe_demo_run(int index, struct probe_sim_state *st, const struct probe_job *j,
		   int64_t start_ms, bool realtime, probe_tick_fn tick, void *tick_ctx,
		   struct probe_result *ret);

/**
 * probe_demo_run_factor() - Demo drive @index's rate factor (0.98 … 1.05) for a
 * run started at @start_ms, reads or @write: the run-to-run variation of a real
 * drive, the same for the same run.
 * Return: the factor.
 */
double probe_demo_run_factor(int index, int64_t start_ms, bool write);

/**
 * probe_demo_run_copy() - probe_demo_run() of the COPY job @j reading demo drive
 * @rd_index while writing drive @index (copy-to): the lower of the one's read
 * and the other's write rate, less a little. Return: 0 or -EINVAL.
 */
int probe_demo_run_copy(int rd_index, int index, struct probe_sim_state *st,
			const struct probe_job *j, int64_t start_ms, bool realtime,
			probe_tick_fn tick, void *tick_ctx, struct probe_result *ret);

/**
 * probe_demo_share() - The part of its solo rate each of @n demo drives probed
 * together gets (a group run): 1 alone, 1.5/@n for several (two: 75 % each).
 * Return: the factor.
 */
double probe_demo_share(unsigned n);

/* JSON of stored runs (API and CLI). */
/** probe_run_json() - A run row. Return: new reference, or NULL on ENOMEM. */
json_t *probe_run_json(const struct probe_run_row *r);

/**
 * probe_run_detail_json() - A run with its phases, events, and (when
 * @with_series) series and SMART samples, read from @s.
 * Return: 0 with *ret, -ENOENT, or negative errno.
 */
int probe_run_detail_json(struct store *s, int64_t id, bool with_series, json_t **ret);

/** probe_print_table() - The result table of a run detail (from probe_run_detail_json). */
void probe_print_table(FILE *out, const json_t *detail);
