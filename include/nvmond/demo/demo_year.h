/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/analysis/alert.h"
#include "nvmond/analysis/probe_preset.h"
#include "nvmond/analysis/cliff.h"
#include "nvmond/analysis/errclass.h"
#include "nvmond/analysis/throttle.h"
#include "nvmond/decode/errlog.h"
#include "nvmond/decode/fwlog.h"
#include "nvmond/demo/demo.h"
#include "nvmond/dev/nvme_hwinfo.h"
#include "nvmond/decode/sample.h"

/*
 * A year of history for a demo drive, so that a first start shows every chart
 * at once. Pure: the drive, a seed and @now in; arrays out. The history ends
 * where the drive's live counters are at @now (dev_demo_state()), so the live
 * samples that follow continue it.
 *
 * What a year holds:
 * - samples: every 3 hours up to 30 days back, hourly up to 7 days back,
 *   every 10 minutes up to 6 hours back, every minute since, and every 2
 *   minutes around each throttle episode;
 * - temperatures with a daily rhythm (coolest at 03:00 UTC, hottest at 15:00),
 *   a season and busier weekdays; drives that throttle (the 950 PRO) have hot
 *   spells of a few days whose afternoons throttle (events and alerts that
 *   resolved);
 * - writes with a weekday pattern (weekdays busier than weekends), one unusual
 *   day 12 days back (9 × an ordinary day, a resolved write-rate alert) and
 *   the percentage used stepping up with them;
 * - probe runs of every preset (DEMO_YEAR_PRESETS): the read/write presets and
 *   copy-self every few days, sustained-write every four weeks (ending at its
 *   write cache's cliff), a transfer-size sweep every month (so the sweep
 *   chart has a previous sweep to draw faintly), and on a throttling drive one
 *   seq1m-q8 run during a hot afternoon whose read rate dips while the drive
 *   throttles; on every drive but demo0, two days back, its newest run: a copy-to
 *   from demo0 (the slower of demo0's reads and its writes, as a copy through
 *   memory runs), so both drives' pages show one;
 * - on a 980 PRO, ten days back, a cache-recovery study (preset "cache-recovery",
 *   a series): the fill to its cliff, then bursts of a tenth of the cache (at
 *   most the probe file) after 5, 10, 20, 40, 60 min idle, each as fast as the
 *   demo drives' fold allows (DEV_DEMO_FOLD_MS, demo.h), until one runs at the
 *   rate before the cliff (after 60 min);
 * - on demo0 and demo1 (the demo's two drives), three days back, a group run: seq1m-q8 on both at once,
 *   each at 75 % of its solo rate (probe_demo_share(2)), together 1.5× one;
 * - repeated seq1m-q8 series (DEMO_YEAR_SERIES of DEMO_YEAR_SERIES_OF runs, 30 s
 *   apart, as `--repeat 3` runs them): their best run reads at 1.039 × and
 *   writes at 1.051 × the drive's QD8 figures, the 950 PRO's 2,598 / 1,576 MB/s
 *   against its rated 2,500 / 1,500;
 * - the error log (dev_demo_error()), read as the poller reads it: the entries
 *   logged before the year at its start (before nvmond watched, never
 *   alerted), then each month's burst of benign entries in one read, and about
 *   day 200 the media entries in one read, with the health log's
 *   num_err_log_entries and media_errors rising in the sample of that moment
 *   and the io_errors and media_errors alerts they raised (resolved); the last
 *   read leaves the count where the live drive has it, so nothing is new at
 *   start;
 * - the firmware revision first seen at the start, and an update about day 200
 *   (firmware_was → firmware) with its firmware_changed alert (resolved);
 * - the PCIe link first seen at the start, and where the drive has a link_was,
 *   three weeks on it from about day 250, with its link_degraded alert
 *   (resolved); the probe runs on a degraded link are capped by it.
 */
#define DEMO_YEAR_DAYS	      365
#define DEMO_YEAR_UNUSUAL_AGO 12  /* days back to the unusual day */
#define DEMO_YEAR_UNUSUAL_X   9.0 /* its writes: this × an ordinary day's mean */
#define DEMO_RUN_POINTS_MAX   256 /* intervals of 250 ms per phase */
#define DEMO_RUN_THERMAL_MAX  80  /* SMART samples per run (one a second) */
#define DEMO_RUN_INTERVAL_MS  250
#define DEMO_RUN_PHASES_MAX   PROBE_MAX_PHASES /* a sweep's */
#define DEMO_YEAR_SERIES      2		       /* repeated series in a year */
#define DEMO_YEAR_SERIES_OF   3		       /* runs in each (best of 3) */

/*
 * The presets the demo year runs: probe_preset.h's first seven (enum
 * probe_preset_id 0 … PROBE_SWEEP), their phases as that table gives them.
 */
#define DEMO_YEAR_PRESETS (PROBE_SWEEP + 1)

struct demo_alert {
	enum alert_rule rule;
	enum alert_severity severity;
	char message[160];
	int64_t started_ms, resolved_ms;
};

struct demo_point {
	int64_t t_ms; /* end of the interval, since the phase started */
	uint64_t rd_bytes, wr_bytes;
};

struct demo_run_phase {
	const char *name; /* the preset's phase name: "read", "write 4K" (a sweep's) */
	const char *op;	  /* "read", "write" or "copy" */
	bool random;
	uint32_t block_size, depth;
	int64_t offset_ms, elapsed_ms;
	uint64_t rd_bytes, wr_bytes;
	uint64_t rd_lat_ns[3], wr_lat_ns[3]; /* p50, p99, p99.9; 0 without I/O */
	bool early;			     /* stopped at a cliff (sustained-write) */
	size_t n_points;
	struct demo_point point[DEMO_RUN_POINTS_MAX];
};

struct demo_run {
	const char *preset; /* a preset's name (probe_preset.h) */
	int64_t started_ms, ended_ms;
	bool stopped; /* "stopped" at a cliff, else "done" */
	uint64_t bytes_read, bytes_written;
	/* A run of a series: its place (1 …) of series_of; 0 of 0 for a single run.
	 * A series is its runs in a row, the first at series_index 1. */
	uint32_t series_index, series_of;
	/* copy-to (preset "copy-to"): read from demo drive source_index while
	 * writing this one; false for every other run. */
	bool copy_to;
	size_t source_index;
	/* A member of the group run (run together with the same run on the other
	 * member drive, same started_ms; demo_backfill links them). */
	bool group;
	size_t n_phases;
	struct demo_run_phase *phase; /* n_phases of them; demo_year_free() frees them */
	size_t n_thermal;
	struct cliff_thermal thermal[DEMO_RUN_THERMAL_MAX];
};

/* An error log entry as the poller stores it (store_errlog.h's errlog_row). */
struct demo_error {
	struct errlog_entry e;
	enum errclass cls; /* errclass_of() */
	bool before_watch; /* logged before the year: the first read's */
	int64_t seen_ms;
};

/* One read of the error log: it found errors[first … first + n - 1]. */
struct demo_errlog_read {
	int64_t ms;
	uint64_t count; /* num_err_log_entries then */
	size_t first, n;
};

/* A firmware_history row: old_rev "" = first seen. */
struct demo_fw {
	int64_t ms;
	char old_rev[FWLOG_REV_MAX], new_rev[FWLOG_REV_MAX];
};

/* A link_history row: the link from @ms on. */
struct demo_link {
	int64_t ms;
	struct nvme_pcie_link link;
};

struct demo_year {
	struct sample *samples; /* oldest first; device_id 0 */
	size_t n_samples;
	struct throttle_event *events; /* closed, oldest first; id 0 */
	size_t n_events;
	struct demo_alert *alerts; /* resolved, oldest first */
	size_t n_alerts;
	struct demo_run *runs; /* oldest first */
	size_t n_runs;
	int64_t unusual_day_ms;	   /* start (UTC midnight) of the unusual day */
	struct demo_error *errors; /* oldest first */
	size_t n_errors;
	struct demo_errlog_read *reads; /* oldest first; the first at the year's start */
	size_t n_reads;
	struct demo_fw fw[2]; /* oldest first */
	size_t n_fw;
	struct demo_link links[3]; /* oldest first */
	size_t n_links;
};

/**
 * demo_year_generate() - The year before @now_ms of demo drive @d.
 * @seed: the same seed, drive and @now give the same year
 * @ret:  filled on success; free with demo_year_free()
 * Return: 0 or -ENOMEM.
 */
int demo_year_generate(const struct dev_demo_drive *d, uint64_t seed, int64_t now_ms,
		       struct demo_year *ret);

/** demo_year_free() - Free the arrays of @y (accepts a zeroed one). */
void demo_year_free(struct demo_year *y);
