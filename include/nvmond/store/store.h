/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/decode/sample.h"

/*
 * The SQLite store. The only module that includes <sqlite3.h>.
 *
 * One writer handle lives on the main loop; HTTP threads each use their own
 * read-only handle (WAL lets them read while the writer writes). Handles are not
 * shared between threads.
 *
 * Errors are negative errno-style codes; store_strerror() of the last error on a
 * handle gives the SQLite message. -EBUSY: database locked; -ENOSPC: disk or
 * database full; -EPROTO: schema newer than this build; -EIO: other SQLite failure.
 */
struct store;

#define STORE_ERR_MAX 256

/**
 * store_open() - Open (create) the database read-write and migrate it.
 * Applies every migration whose number is above PRAGMA user_version, each in its
 * own transaction, in order. Sets WAL mode and a busy timeout.
 * @ret_err: a human message on failure
 * Return: 0, -EPROTO if the file comes from a newer nvmond, other negative errno.
 */
int store_open(const char *path, struct store **ret, char ret_err[STORE_ERR_MAX]);

/**
 * store_open_readonly() - Open an existing, migrated database for reading.
 * Return: 0 or negative errno.
 */
int store_open_readonly(const char *path, struct store **ret, char ret_err[STORE_ERR_MAX]);

/** store_close() - Accepts NULL. Return: NULL. */
struct store *store_close(struct store *s);

/**
 * store_set_busy_timeout() - How long a statement waits for another writer's lock
 * before failing with -EBUSY (the main loop keeps this short: it retries later
 * rather than stall polling).
 * Return: 0 or negative errno.
 */
int store_set_busy_timeout(struct store *s, int ms);

/** store_strerror() - Message of the last failure on @s. */
const char *store_strerror(const struct store *s);

/** store_schema_version() - PRAGMA user_version. Return: >= 0, or negative errno. */
int store_schema_version(struct store *s);

/** store_latest_version() - Highest migration this build knows. */
int store_latest_version(void);

/**
 * store_device_upsert() - Record @row (by row->key), refreshing identity, name,
 * namespaces, last_seen and online. Keeps first_seen and the id of a known key.
 * Return: 0 with *ret_id set, or negative errno.
 */
int store_device_upsert(struct store *s, const struct device_row *row, int64_t *ret_id);

/** store_device_set_online() - Return: 0 or negative errno (-ENOENT unknown id). */
int store_device_set_online(struct store *s, int64_t id, int online, int64_t now_ms);

/**
 * store_devices_list() - Every known device, by id. *ret is malloc()ed.
 * Return: 0 or negative errno.
 */
int store_devices_list(struct store *s, struct device_row **ret, size_t *ret_n);

/** store_device_get() - Return: 0, -ENOENT, or negative errno. */
int store_device_get(struct store *s, int64_t id, struct device_row *ret);

/**
 * store_samples_insert() - Insert @n samples in one transaction (all or nothing).
 * Return: 0, or negative errno (nothing inserted).
 */
int store_samples_insert(struct store *s, const struct sample *v, size_t n);

/**
 * store_samples_range() - Samples of @device_id with from_ms <= ts <= to_ms,
 * oldest first, at most @limit. *ret is malloc()ed (NULL when none).
 * Return: 0 or negative errno.
 */
int store_samples_range(struct store *s, int64_t device_id, int64_t from_ms, int64_t to_ms,
			size_t limit, struct sample **ret, size_t *ret_n);

/**
 * store_sample_latest() - Newest sample of @device_id.
 * Return: 0, -ENOENT when it has none, or negative errno.
 */
int store_sample_latest(struct store *s, int64_t device_id, struct sample *ret);

/**
 * store_begin() - Open a write transaction (BEGIN IMMEDIATE) on the writer, so
 * that several writes of a caller land together or not at all.
 * Return: 0, or negative errno.
 */
int store_begin(struct store *s);

/**
 * store_end() - COMMIT the transaction store_begin() opened when @r >= 0, else
 * ROLLBACK it (also when the COMMIT fails).
 * Return: @r, or the negative errno of a failed COMMIT.
 */
int store_end(struct store *s, int r);

/**
 * store_file_check() - Whether @s's path still names the file it opened. SQLite
 * keeps writing to a deleted file, and to the old one when another was moved in
 * its place: such writes are lost to anyone who reads the path.
 * Return: 0 (the same file, or a stat() error that proves nothing), -ENOENT
 * (deleted) or -ESTALE (another file there now).
 */
int store_file_check(struct store *s);

/** store_checkpoint() - Checkpoint the WAL (at shutdown). Return: 0 or negative errno. */
int store_checkpoint(struct store *s);
