/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/analysis/errclass.h"
#include "nvmond/decode/errlog.h"

/*
 * Error Information log entries in the store (migration 0006): one row per
 * device and error count, and where each drive's log was last read. Same
 * conventions as store.h: negative errno, malloc()ed result arrays, one
 * handle per thread.
 */
struct store;

struct errlog_row {
	struct errlog_entry e;
	enum errclass cls;
	bool before_watch; /* in the log when nvmond first read it: never alerted */
	int64_t seen_ms;   /* when nvmond read it */
};

/* Where a drive's log was last read. */
struct errlog_state {
	uint64_t read_count; /* num_err_log_entries then */
	int64_t read_ms;
	uint64_t lost; /* errors counted that the log no longer held, so far */
};

/**
 * store_errors_add() - Record the entries @v of @device_id and that its log was
 * read at @st, in one transaction: all or nothing. An error count already
 * stored for the device is left as it is.
 * Return: 0, or negative errno (nothing recorded).
 */
int store_errors_add(struct store *s, int64_t device_id, const struct errlog_row *v, size_t n,
		     const struct errlog_state *st);

/**
 * store_errlog_state_get() - Where the log of @device_id was last read.
 * Return: 0, -ENOENT when it never was, or negative errno.
 */
int store_errlog_state_get(struct store *s, int64_t device_id, struct errlog_state *ret);

/**
 * store_errors_range() - Entries of @device_id read in [from_ms, to_ms], newest
 * first (by the time read, then the error count), at most @limit.
 * Return: 0 or negative errno; *ret malloc()ed (NULL when none).
 */
int store_errors_range(struct store *s, int64_t device_id, int64_t from_ms, int64_t to_ms,
		       size_t limit, struct errlog_row **ret, size_t *ret_n);

/**
 * store_errors_count() - How many entries of @device_id of each class were read
 * in [from_ms, to_ms] (INT64_MIN, INT64_MAX: all of them).
 * Return: 0 or negative errno.
 */
int store_errors_count(struct store *s, int64_t device_id, int64_t from_ms, int64_t to_ms,
		       uint64_t ret[_ERRCLASS_MAX]);

/**
 * store_errors_last_alerting() - The newest entry of @device_id whose class
 * alerts (media, io), leaving out those from before nvmond watched the drive.
 * Return: 0, -ENOENT when there is none, or negative errno.
 */
int store_errors_last_alerting(struct store *s, int64_t device_id, struct errlog_row *ret);
