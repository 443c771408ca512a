/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The probe presets, as a table: each one's phases (operation, pattern, block
 * size, depth) and what kind of run it is. Pure: the probe service runs them
 * (probe_preset_job(), probe.h), the demo year draws its past runs from them.
 */

enum probe_op {
	PROBE_OP_READ,
	PROBE_OP_WRITE,
	PROBE_OP_COPY, /* read region A and write region B at once */
};

/** probe_op_name() - "read", "write" or "copy", as a run's phases are stored. */
const char *probe_op_name(enum probe_op op);

/*
 * Presets: the tests people know. Reads and writes are separate phases (reads
 * first, on data laid out when the probe file was made); copy-self is one
 * phase; sustained-write writes until a cliff holds or its byte limit.
 */
enum probe_preset_id {
	PROBE_SEQ1M_Q8,
	PROBE_SEQ1M_Q1,
	PROBE_RND4K_Q32,
	PROBE_RND4K_Q1,
	PROBE_COPY_SELF,
	PROBE_SUSTAINED_WRITE,
	PROBE_SWEEP,
	PROBE_CACHE_RECOVERY,
	PROBE_COPY_TO, /* a second drive's: see probe_plan.source */
	_PROBE_PRESET_MAX,
};

/*
 * sweep: sequential reads at every power of two from PROBE_MIN_BLOCK to
 * PROBE_MAX_BLOCK, then writes at the same sizes, one phase per point. A run
 * skips the sizes its target cannot address (below its logical block size,
 * or larger than the probe area) and runs each at [probes] sweep_depth.
 */
#define PROBE_SWEEP_POINTS	18	       /* 512 B … 64 MiB */
#define PROBE_SWEEP_POINT_MS	1500	       /* per point at most (and phase_duration) */
#define PROBE_SWEEP_POINT_BYTES (1ull << 30)   /* a read point at most */
#define PROBE_SWEEP_WRITE_BYTES (256ull << 20) /* a write point at most (and the area), as ATTO */
#define PROBE_SWEEP_DEPTH	4	       /* [probes] sweep_depth's default, as ATTO's */

#define PROBE_MAX_PHASES (2 * PROBE_SWEEP_POINTS)

struct probe_preset {
	const char *name;
	const char *label; /* "SEQ1M Q8T1" */
	size_t n_phases;
	struct {
		const char *name; /* "read", "write", "copy" */
		enum probe_op op;
		bool random;
		uint32_t block_size, depth;
	} phase[PROBE_MAX_PHASES];
	bool sustained; /* stop at a cliff; byte limit = sustained_limit */
	bool sweep;	/* one phase per transfer size, see PROBE_SWEEP_POINTS */
	/* cache-recovery: runs only as a study (probe_study.h), each run one write of
	 * the study's size (its fill, or a burst), byte-limited; never alone */
	bool study;
	bool copy_to; /* reads another drive's probe area while writing this one's */
};

/** probe_preset_get() - Return: the preset, or NULL. */
const struct probe_preset *probe_preset_get(enum probe_preset_id id);

/* What probe_preset_names() leaves out. */
enum {
	PROBE_NAMES_NO_COPY_TO = 1 << 0, /* the preset of a second drive's */
	PROBE_NAMES_NO_STUDY = 1 << 1,	 /* the studies (cache-recovery) */
};

/* Room for every preset's name, comma-separated. */
#define PROBE_PRESET_NAMES_MAX 160

/**
 * probe_preset_names() - The presets' names in the table's order, ", " between them
 * ("seq1m-q8, seq1m-q1, …"), without those @skip (PROBE_NAMES_*) leaves out, into
 * @buf of @size bytes (PROBE_PRESET_NAMES_MAX holds them all).
 * Return: @buf.
 */
const char *probe_preset_names(char *buf, size_t size, unsigned skip);

/** probe_preset_find() - By name. Return: the preset, or NULL. */
const struct probe_preset *probe_preset_find(const char *name, enum probe_preset_id *ret_id);
