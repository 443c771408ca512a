/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Private to a probe run (probe_run.c, probe_target.c): its state while it
 * runs, and the functions one file of it calls in the other.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/dev/nvme_sysfs.h"
#include "nvmond/probe/probe_run.h"
#include "nvmond/probe/probe_safety.h"
#include "nvmond/util/units.h"

/*
 * A run reaches one drive, or for copy-to a pair: the source, the drive read
 * (opened read-only, never written), and the target, the drive written (the
 * run's own). Each has its own state (struct exec_ctx); the target's holds
 * the run's.
 */
enum run_role {
	RUN_TARGET, /* the run's drive */
	RUN_SOURCE, /* copy-to's drive read: opened read-only, never written */
};

struct exec_ctx {
	const struct probe_plan *plan;
	enum run_role role;
	const struct probe_hooks *h;
	struct probe_outcome *out;
	size_t phase;
	size_t step;		 /* the running phase in the preset (progress): sweeps skip some */
	int64_t phase_offset_ms; /* phase start since the run started */
	int64_t next_smart_ms;	 /* run time of the next SMART sample */
	size_t thermal_cap;
	bool sustained;
	struct cliff_point *cp; /* sustained-write: the series as cliff points */
	size_t cp_cap;
	/* the drive as opened (the engine's open) */
	int fd;	       /* -1: none (the simulated engine) */
	uint64_t area; /* the bytes of it a phase may use */
	bool writable; /* it may be written (a read-only probe file, a source: not) */
	char ctrl[NVME_SYSFS_NAME_MAX]; /* the drive's controller, looked up by identity */
	bool raw;
	struct nvme_sysfs_ns ns;   /* raw: the namespace as first opened */
	int sig_fd;		   /* raw, writable: a buffered handle for libblkid, or -1 */
	int64_t next_sig_ms;	   /* run time of the next signature check while writing */
	bool writing;		   /* the phase running writes */
	struct probe_file_id file; /* the probe file as opened */
	/* foreground I/O: every namespace of the drive */
	bool watch_disk;
	struct probe_diskstat ds;
	uint64_t ds_probe_bytes; /* the probe's bytes when ds was read */
	/*
	 * What the phase may have in flight (depth × block size): the kernel
	 * counts a large transfer as its pieces complete, the probe when all of
	 * it has, so up to this much of the disk's count is the probe's own
	 * before the probe has counted it (a 64 MiB sweep point at depth 4: 256 MiB).
	 */
	uint64_t in_flight;
	int64_t next_ds_ms;
	uint64_t phase_bytes; /* this phase's bytes so far */
	/* writes: leases and what they cover */
	uint64_t lease;	     /* recorded through h->charge: nothing is submitted past it */
	uint64_t base;	     /* bytes submitted by the layout and the phases before this */
	uint64_t written;    /* bytes completed by the layout and the phases before this */
	uint64_t phase_wr;   /* bytes this phase wrote so far (from its series) */
	int64_t phase_t0_ns; /* monotonic start of the running phase */
	uint64_t phase_sub;  /* the running phase's submitted bytes, as its leases saw them */
	int64_t last_charge_ns;
	bool charge_failed;
	/* A SMART read got no answer within [daemon] device_timeout: the drive's
	 * temperature cannot be watched, so the run does not go on (issue 15). */
	bool smart_unanswered;
	char reason[PROBE_REASON_MAX];
	/* copy-to: the target's state links its source's (the pair), else NULL */
	struct exec_ctx *src;
};

/*
 * How a run reaches its drive; probe_execute() picks one by the plan
 * (probe_run_engine_of()): the block device (probe_target.c opens and checks
 * it, probe_engine.c runs the phases through io_uring), or, for a backend that
 * answers probes itself (DEV_CAP_OWN_PROBES), the model of the drive
 * (probe_demo.c). Each finds its drive from the plan's identity (serial and
 * model), as a real drive's controller is found in sysfs: no name or index
 * comes with the plan.
 */
struct probe_run_engine {
	/* The run's engine as stored; NULL: the one each phase names (io_uring, psync). */
	const char *name;
	/*
	 * Open the drive of x->plan: x->ctrl, x->out->run.target (and nsid),
	 * *@ret_fd (-1: none), *@ret_area, *@ret_writable (left as it is when
	 * always writable). Return: 0, or negative errno with x->reason.
	 */
	int (*open)(struct exec_ctx *x, int *ret_fd, uint64_t *ret_area, bool *ret_writable);
	/* Before each phase: the same drive and target (NULL: nothing can change under it). */
	int (*check)(struct exec_ctx *x, int fd, bool writes);
	/*
	 * Run phase @j on x's drive from @start_ms (wall clock), calling
	 * probe_run_on_tick(@x) after each interval; copy-to reads x->src's
	 * drive. Return: as probe_engine_run().
	 */
	int (*run)(struct exec_ctx *x, const struct probe_job *j, int64_t start_ms,
		   struct probe_result *res);
};

/* The two engines. */
extern const struct probe_run_engine probe_run_block; /* probe_run.c */
extern const struct probe_run_engine probe_run_sim;   /* probe_demo.c */

/* probe_run.c */

/* The run's reason (why it stopped or was refused), printf-style. */
void probe_run_set_reason(struct exec_ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t probe_run_mono_ns(void);

/* After each interval of a phase: the run's checks (a probe_tick_fn on an exec_ctx). */
int probe_run_on_tick(void *ctx, const struct probe_point *v, size_t n);

/* The engine's lease, in its phase's own bytes (a probe_lease_fn). */
int probe_run_phase_lease(void *ctx, uint64_t want, uint64_t *ret_granted);

/* probe_target.c */

/* Open the target: the probe file, or the raw namespace. */
int probe_target_open(struct exec_ctx *x, int *ret_fd, uint64_t *ret_area, bool *ret_writable);

/* Before each phase: the same drive, the same target; for writes, still blank. */
int probe_target_check(struct exec_ctx *x, int fd, bool writes);

/* 1 when a signature is on the raw namespace (or it cannot be read). */
int probe_target_signature(struct exec_ctx *x, const char *when);
