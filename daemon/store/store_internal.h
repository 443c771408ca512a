/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * For the feature store modules (store_<feature>.c) only: they keep their own
 * prepared statements on the handle's connection. Nothing else includes this.
 */
#include <sqlite3.h>

struct store;

#include <stdbool.h>
#include <stdint.h>

/** store_db() - The connection of @s. Return: the sqlite3 handle (never NULL). */
sqlite3 *store_db(struct store *s);

/**
 * store_errno() - Map SQLite result @rc to a negative errno (-EBUSY locked,
 * -ENOSPC full, -ENOMEM, -EROFS, -EPROTO schema, -EIO) and keep SQLite's message
 * for store_strerror().
 */
int store_errno(struct store *s, int rc);

/**
 * store_stmt() - The prepared statement for @sql, which must be a string with
 * static storage: it is prepared once per handle, cached by its address, and
 * comes back reset with no bindings. Reset it (sqlite3_reset(), store_run()) when
 * done; never finalize it — store_close() does.
 * Return: 0, or negative errno.
 */
int store_stmt(struct store *s, const char *sql, sqlite3_stmt **ret);

/** store_bind_*() - Bind by parameter name (":name"). Return: 0, or -EINVAL (no such name). */
int store_bind_i64(sqlite3_stmt *st, const char *name, int64_t v);
int store_bind_double(sqlite3_stmt *st, const char *name, double v);
int store_bind_text(sqlite3_stmt *st, const char *name, const char *v);

/**
 * store_run() - Step a statement that returns no rows, then reset it.
 * Return: 0; -ENOENT when @must_change and no row changed; negative errno.
 */
int store_run(struct store *s, sqlite3_stmt *st, bool must_change);

/* Reads the current row of @st into @ret; fails through store_failf() on @s. */
typedef int (*store_row_fn)(struct store *s, sqlite3_stmt *st, void *ret);

/**
 * store_collect() - Step @st to the end, reading each row with @read into a
 * growing array of @size-byte elements (*ret, malloc()ed; NULL when none); resets @st.
 * Return: 0, the first negative errno of @read, or negative errno.
 */
int store_collect(struct store *s, sqlite3_stmt *st, size_t size, store_row_fn read, void **ret,
		  size_t *ret_n);

/** store_exec_sql() - store_stmt() + store_run() of a static statement ("BEGIN IMMEDIATE"). */
int store_exec_sql(struct store *s, const char *sql);
