/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/decode/ocp.h"
#include "nvmond/store/store.h"
#include "nvmond/util/u128.h"

/*
 * What a drive knows beyond its health log (migrations/0016_drive_logs.sql,
 * issue 27): log C0h samples, the power-state timeline, Persistent Event Log
 * entries and where the log was read to, the C0h probe, namespace usage, the
 * risk verdicts. The poller and the risk monitor write (the main loop's
 * handle); the API, /metrics and `nvmond status` read.
 */

/* One ocp_samples row. */
struct store_ocp_row {
	int64_t id, device_id, ts_ms;
	struct ocp_log l;
	u128 host_written_units; /* the health log's Data Units Written at that read */
};

/* One power_history row; -1 = not known. */
struct store_power_row {
	int64_t id, device_id, ts_ms;
	int ps, wh;
	int64_t max_uw;
	int non_operational;
	int apst_enabled;
	int64_t apst_idle_ms;
	int tmt1_k, tmt2_k;
};

#define STORE_PEL_KIND_MAX    24
#define STORE_PEL_SUMMARY_MAX 256
#define STORE_PEL_DETAIL_MAX  1024

/* One pel_events row. */
struct store_pel_row {
	int64_t id, device_id;
	uint64_t fingerprint;
	uint8_t type;
	int64_t ts_ms;	 /* the drive's time, or read_ms when unknown */
	bool time_known; /* the drive's timestamp was wall time */
	int64_t read_ms;
	bool late;
	char kind[STORE_PEL_KIND_MAX];
	char summary[STORE_PEL_SUMMARY_MAX];
	char detail[STORE_PEL_DETAIL_MAX]; /* JSON object */
};

/* One pel_cursors row (struct pel_cursor and when it was read). */
struct store_pel_cursor {
	uint64_t tll;
	uint32_t tnev;
	uint16_t generation;
	uint64_t anchor_off;
	uint32_t anchor_size;
	uint64_t anchor_fp;
	int64_t read_ms;
};

/* One ocp_probes row. */
struct store_ocp_probe {
	char firmware[9];
	bool ocp;
	char why[128];
	int64_t ts_ms;
};

/* One ns_usage row. */
struct store_ns_row {
	int64_t id, device_id, ts_ms;
	uint32_t nsid;
	uint64_t nsze, ncap, nuse;
	uint32_t lba_size;
	char ana_state[20];
};

#define STORE_VERDICT_REASONS_MAX 4096

/* One health_verdicts row. */
struct store_verdict_row {
	int64_t id, device_id, ts_ms;
	char level[16]; /* "ok", "watch", "replace_soon", "failed" */
	char reasons[STORE_VERDICT_REASONS_MAX];
};

/** store_ocp_insert() - Append @row (its id ignored). Return: 0 or negative errno. */
int store_ocp_insert(struct store *s, const struct store_ocp_row *row);

/**
 * store_ocp_last() - The newest C0h row of device @id at or before @to_ms.
 * Return: 0, -ENOENT when none, or negative errno.
 */
int store_ocp_last(struct store *s, int64_t id, int64_t to_ms, struct store_ocp_row *ret);

/**
 * store_ocp_first_since() - The oldest C0h row of device @id at or after @from_ms.
 * Return: 0, -ENOENT when none, or negative errno.
 */
int store_ocp_first_since(struct store *s, int64_t id, int64_t from_ms, struct store_ocp_row *ret);

/**
 * store_ocp_range() - C0h rows of device @id in [@from_ms, @to_ms], oldest
 * first, at most @limit (the newest ones when there are more).
 * *ret malloc()ed (NULL when none). Return: 0 or negative errno.
 */
int store_ocp_range(struct store *s, int64_t id, int64_t from_ms, int64_t to_ms, size_t limit,
		    struct store_ocp_row **ret, size_t *ret_n);

/** store_power_insert() - Append @row (its id ignored). Return: 0 or negative errno. */
int store_power_insert(struct store *s, const struct store_power_row *row);

/** store_power_last() - The newest power row of @id. Return: 0, -ENOENT, or negative errno. */
int store_power_last(struct store *s, int64_t id, struct store_power_row *ret);

/**
 * store_power_range() - The power rows of @id in [@from_ms, @to_ms], oldest
 * first, with the row in force at @from_ms first when there is one (a
 * timeline starts in the state it was in), at most @limit.
 * *ret malloc()ed. Return: 0 or negative errno.
 */
int store_power_range(struct store *s, int64_t id, int64_t from_ms, int64_t to_ms, size_t limit,
		      struct store_power_row **ret, size_t *ret_n);

/**
 * store_pel_add() - Insert the entries @v of device @id that are not stored
 * yet (by fingerprint), in one transaction; *@ret_added (may be NULL) gets
 * how many were new, and each new row's id is written into @v (0 for those
 * already there).
 * Return: 0 or negative errno (nothing stored).
 */
int store_pel_add(struct store *s, int64_t id, struct store_pel_row *v, size_t n,
		  size_t *ret_added);

/** Every kind (store_pel_range()'s @kinds). */
#define STORE_PEL_ALL_KINDS NULL

/**
 * store_pel_range() - Entries of device @id whose time is in [@from_ms,
 * @to_ms], oldest first, at most @limit (the oldest, as the throttle events);
 * @kinds (NULL: all) a NULL-terminated list of kind names to keep.
 * *ret malloc()ed. Return: 0 or negative errno.
 */
int store_pel_range(struct store *s, int64_t id, int64_t from_ms, int64_t to_ms,
		    const char *const *kinds, size_t limit, struct store_pel_row **ret,
		    size_t *ret_n);

/**
 * store_pel_count() - How many entries of device @id of event type @type have
 * a time in [@from_ms, @to_ms]; @type < 0: any. Return: 0 or negative errno.
 */
int store_pel_count(struct store *s, int64_t id, int type, int64_t from_ms, int64_t to_ms,
		    uint64_t *ret);

/** store_pel_cursor_get() - Return: 0, -ENOENT when the log was never read, or negative errno. */
int store_pel_cursor_get(struct store *s, int64_t id, struct store_pel_cursor *ret);

/** store_pel_cursor_put() - Replace the cursor of @id. Return: 0 or negative errno. */
int store_pel_cursor_put(struct store *s, int64_t id, const struct store_pel_cursor *c);

/** store_ocp_probe_get() - Return: 0, -ENOENT when never probed, or negative errno. */
int store_ocp_probe_get(struct store *s, int64_t id, struct store_ocp_probe *ret);

/** store_ocp_probe_put() - Replace what @id answered to C0h. Return: 0 or negative errno. */
int store_ocp_probe_put(struct store *s, int64_t id, const struct store_ocp_probe *p);

/** store_ns_insert() - Append @row (its id ignored). Return: 0 or negative errno. */
int store_ns_insert(struct store *s, const struct store_ns_row *row);

/**
 * store_ns_last() - The newest row of namespace @nsid of @id.
 * Return: 0, -ENOENT, or negative errno.
 */
int store_ns_last(struct store *s, int64_t id, uint32_t nsid, struct store_ns_row *ret);

/** store_verdict_insert() - Append @row (its id ignored). Return: 0 or negative errno. */
int store_verdict_insert(struct store *s, const struct store_verdict_row *row);

/** store_verdict_last() - The newest verdict of @id. Return: 0, -ENOENT, or negative errno. */
int store_verdict_last(struct store *s, int64_t id, struct store_verdict_row *ret);

/**
 * store_verdict_list() - Up to @limit verdicts of @id, newest first.
 * *ret malloc()ed. Return: 0 or negative errno.
 */
int store_verdict_list(struct store *s, int64_t id, size_t limit, struct store_verdict_row **ret,
		       size_t *ret_n);

/**
 * store_watched_at() - Whether nvmond was polling device @id around @ts_ms:
 * a raw sample, or a 1-minute or 1-hour rollup bucket with samples, within
 * @gap_ms of it.
 * Return: 1 watched, 0 not, or negative errno.
 */
int store_watched_at(struct store *s, int64_t id, int64_t ts_ms, int64_t gap_ms);

/**
 * store_media_errors_since() - The health log's media errors of @id at the
 * oldest raw sample or hourly rollup at or after @from_ms, and when.
 * Return: 0, -ENOENT when there is none, or negative errno.
 */
int store_media_errors_since(struct store *s, int64_t id, int64_t from_ms, u128 *ret,
			     int64_t *ret_ts_ms);

/**
 * store_io_errors_count() - How many error log entries of class media or io
 * of @id were read in [@from_ms, @to_ms], leaving out those that were in the
 * log before nvmond watched the drive (their time is unknown).
 * Return: 0 or negative errno.
 */
int store_io_errors_count(struct store *s, int64_t id, int64_t from_ms, int64_t to_ms,
			  uint64_t *ret);
