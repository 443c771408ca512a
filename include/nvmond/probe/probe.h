/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/analysis/probe_preset.h"
#include "nvmond/store/store_probe_types.h"

/*
 * The probe engine: sequential and random reads and writes of one block size
 * at one queue depth, on an fd opened with O_DIRECT, for a duration or a byte
 * count. io_uring (liburing) when the kernel allows it, else one pread/pwrite
 * at a time; the result says which. Buffers are page-aligned and filled with
 * incompressible (pseudo-random) data. It runs on the caller's thread (a probe
 * thread, never the main loop) and never logs.
 */

/* PROBE_NAME_MAX, struct probe_point and struct probe_dir_stats: store_probe_types.h. */
#define PROBE_INTERVAL_MS 250
#define PROBE_MAX_DEPTH	  256
#define PROBE_MAX_BLOCK	  (64u << 20)
#define PROBE_MIN_BLOCK	  512u
#define PROBE_SERIES_MAX  (1u << 20) /* intervals kept per phase */

enum probe_engine_kind {
	PROBE_ENGINE_AUTO, /* io_uring, else psync */
	PROBE_ENGINE_URING,
	PROBE_ENGINE_PSYNC,
};

/*
 * A write lease: the engine never submits a write past the bytes granted so
 * far. Before one would cross the grant it asks for more: *@ret_granted (in
 * this phase's submitted write bytes, >= @want when granted) is what the
 * caller has recorded as possibly written. Return 0 (a grant below @want stops
 * the writes: the budget is spent), or negative errno to abort the phase.
 */
typedef int (*probe_lease_fn)(void *ctx, uint64_t want, uint64_t *ret_granted);

/* One phase of work. */
struct probe_job {
	enum probe_op op;
	bool random;
	uint32_t block_size;	       /* multiple of the target's logical block size */
	uint32_t depth;		       /* in flight per direction (1 … PROBE_MAX_DEPTH) */
	uint64_t offset, length;       /* region read (READ, COPY) or written (WRITE) */
	uint64_t wr_offset, wr_length; /* COPY: the region written */
	int64_t duration_ms;	       /* stop issuing after this; 0 = no limit */
	uint64_t max_bytes;	       /* stop after this many bytes (written, or read for
					      READ); 0 = no limit */
	int64_t interval_ms;	       /* series interval; 0 = PROBE_INTERVAL_MS */
	enum probe_engine_kind engine;
	bool plain_ring;      /* io_uring without the COOP/DEFER taskrun flags (benchmarks) */
	uint64_t seed;	      /* random offsets and buffer contents; 0 = a fixed default */
	probe_lease_fn lease; /* NULL: only max_bytes limits the writes */
	void *lease_ctx;
};

/* Log-linear latency histogram: 32 buckets per power of two (≤ 3 % error). */
#define PROBE_HIST_SUB	   32
#define PROBE_HIST_OCT	   42
#define PROBE_HIST_NBUCKET (PROBE_HIST_SUB * PROBE_HIST_OCT)
struct probe_hist {
	uint64_t count;
	uint64_t bucket[PROBE_HIST_NBUCKET];
};

/** probe_hist_add() - Count one latency of @ns nanoseconds. */
void probe_hist_add(struct probe_hist *h, uint64_t ns);

/**
 * probe_hist_quantile() - The latency below which @q (0…1) of the samples fall.
 * Return: nanoseconds (the middle of the bucket), 0 when empty.
 */
uint64_t probe_hist_quantile(const struct probe_hist *h, double q);

enum probe_stop {
	PROBE_STOP_DONE,    /* duration or byte count reached */
	PROBE_STOP_EARLY,   /* the tick callback asked to stop (e.g. a sustained cliff) */
	PROBE_STOP_ABORTED, /* the tick callback aborted (foreground I/O, temperature), or
			       the lease refused more writes with an error */
	PROBE_STOP_FAILED,  /* an I/O failed (the return value says how) */
};

struct probe_result {
	char engine[16]; /* "io_uring" or "psync" */
	enum probe_stop stop;
	int64_t elapsed_ns; /* first submission to last completion (not the ring's set-up) */
	struct probe_dir_stats rd, wr;
	uint64_t wr_submitted;		 /* write bytes handed to the kernel, failed ones included:
				  what may have reached the drive */
	int64_t cpu_user_us, cpu_sys_us; /* this thread, during the phase */
	int64_t cpu_proc_us;	    /* the whole process, during the phase (io_uring workers too) */
	struct probe_point *series; /* malloc()ed, @n_series intervals */
	size_t n_series;
};

/*
 * Called on the probe thread at the end of every interval with the series so
 * far, also while the last I/Os drain. Return 0 to go on, 1 to stop early
 * (PROBE_STOP_EARLY), 2 to abort (PROBE_STOP_ABORTED, which wins over an
 * earlier stop); nothing more is submitted after 1 or 2, in-flight I/O is
 * drained either way.
 */
typedef int (*probe_tick_fn)(void *ctx, const struct probe_point *series, size_t n);

/**
 * probe_engine_run() - Run @j on @fd.
 * @fd:  opened with O_DIRECT (O_RDWR for writes); regions must fit in it
 * @ret: filled on success, and on a failed transfer with what was done until
 *       then (stop = PROBE_STOP_FAILED); free ret->series
 * The block size and the offsets must be multiples of probe_target_align(@fd).
 * Return: 0; -EINVAL for a bad job (or one not aligned for @fd); -EIO on a short or failed transfer (the
 * errno of the first failing I/O when there is one); -ENOSYS when
 * PROBE_ENGINE_URING is asked for and io_uring is unavailable.
 */
int probe_engine_run(int fd, const struct probe_job *j, probe_tick_fn tick, void *ctx,
		     struct probe_result *ret);

/**
 * probe_engine_run_copy() - Run the COPY job @j across two targets: read
 * @j->offset/length of @rd_fd while writing @j->wr_offset/wr_length of @wr_fd
 * (copy-to: one drive's probe area onto another's). @rd_fd may be read-only;
 * each region must fit its target and be aligned for it (probe_target_align()).
 * Return: as probe_engine_run(); -EINVAL also when @j is not a COPY job.
 */
int probe_engine_run_copy(int rd_fd, int wr_fd, const struct probe_job *j, probe_tick_fn tick,
			  void *ctx, struct probe_result *ret);

/**
 * probe_target_align() - The alignment O_DIRECT needs on @fd: a block device's
 * logical block size; a file's DIO offset alignment (statx, Linux 6.1), else
 * its filesystem's block device's logical block size, else 4096. Never below
 * PROBE_MIN_BLOCK.
 * Return: 0 with *@ret_align, or negative errno.
 */
int probe_target_align(int fd, uint32_t *ret_align);

/** probe_result_clear() - Free the series. */
void probe_result_clear(struct probe_result *r);

/** probe_fill_random() - Fill @buf with incompressible bytes from @state (xorshift). */
void probe_fill_random(void *buf, size_t len, uint64_t *state);

/**
 * probe_preset_job() - The job of phase @k of @p on a probe area of @area bytes
 * (reads over it all; writes over it all at most once; copy: first half read,
 * second half written; copy-to: all of it written, and read on the other drive,
 * whose area the run sets as the job's length).
 * @duration_ms: per phase
 * @max_write:   bytes a write phase may write (budget, sustained limit)
 * A sweep's point runs at most PROBE_SWEEP_POINT_MS and PROBE_SWEEP_POINT_BYTES
 * (a write one PROBE_SWEEP_WRITE_BYTES, and at most @area), at the preset's depth (the run sets
 * [probes] sweep_depth). A study's write (cache-recovery) writes @max_write, however
 * long it takes, as sustained-write does.
 */
void probe_preset_job(const struct probe_preset *p, size_t k, uint64_t area, int64_t duration_ms,
		      uint64_t max_write, struct probe_job *ret);
