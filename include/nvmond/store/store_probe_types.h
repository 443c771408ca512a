/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * What a probe measures, in the shapes the store keeps it (store_probe.h,
 * migrations/0003_probes.sql). They are the store's: the probe engine fills
 * them and the probe file records its identity in them, so probe includes the
 * store and never the other way (docs/architecture.md#layers).
 */

/* A preset's name (probe_run_row.preset, the presets of analysis/probe_preset.c). */
#define PROBE_NAME_MAX 32

/* One interval of the series. */
struct probe_point {
	int64_t t_ms; /* end of the interval, since the phase started */
	uint64_t rd_bytes, wr_bytes;
};

/* One direction of a phase: bytes, I/Os and the latency quantiles. */
struct probe_dir_stats {
	uint64_t bytes, ios;
	uint64_t lat_p50_ns, lat_p99_ns, lat_p999_ns, lat_max_ns;
};

/* What identifies a probe file nvmond made, across reboots. */
struct probe_file_id {
	uint64_t ino;
	uint64_t gen;	  /* inode generation (FS_IOC_GETVERSION), when has_gen */
	int64_t btime_ns; /* birth time (statx), when has_btime */
	bool has_gen, has_btime;
	uint64_t size;
};
