/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * For the store's own files (store*.c) only: the body of the handle, its error
 * message, the statement cache, checked binding of parameters, transactions and
 * column readers (store.c, store_sql.c). Nothing outside daemon/store includes this.
 */
#include <sqlite3.h>

#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/store/store.h"
#include "nvmond/util/u128.h"

#define STORE_WUR __attribute__((warn_unused_result))

/* Sized above the statements the store files have: running out is a bug. */
#define STORE_STMT_CACHE 128

/* The handle (store.h), shared by the store files. */
struct store {
	sqlite3 *db;
	bool readonly;
	char *path;	/* as opened, for store_file_check() */
	char *counted;	/* the path counted in store.c's open_paths (until closed) */
	dev_t file_dev; /* the file it opened: a deleted or replaced one */
	ino_t file_ino; /* shows as another inode (or none) at the path */
	/* Every prepared statement, keyed by its SQL's address. */
	struct {
		const char *sql;
		sqlite3_stmt *st;
	} cache[STORE_STMT_CACHE];
	size_t n_cache;
	char err[STORE_ERR_MAX];
};

/** store_db() - The connection of @s. Return: the sqlite3 handle (never NULL). */
sqlite3 *store_db(struct store *s);

/**
 * store_fail() - Record the failure of @what with SQLite result @rc on @s, with
 * SQLite's message, for store_strerror().
 * Return: @rc as a negative errno (-EBUSY locked, -ENOSPC full, -ENOMEM, -EROFS,
 * -EPROTO schema, -EIO).
 */
int store_fail(struct store *s, int rc, const char *what);

/** store_failf() - Record a message of our own on @s. Return: @r. */
int store_failf(struct store *s, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/** store_fail_prefix() - Put "@what: " (if not NULL) before the message on @s. Return: @r. */
int store_fail_prefix(struct store *s, const char *what, int r);

/** store_errno() - store_fail() of an unnamed database operation. */
int store_errno(struct store *s, int rc);

/**
 * store_stmt() - The prepared statement for @sql, which must be a string with
 * static storage: it is prepared once per handle, cached by its address, and
 * comes back reset with no bindings. Reset it (sqlite3_reset(), store_run()) when
 * done; never finalize it — store_close() does.
 * Return: 0, or negative errno.
 */
int store_stmt(struct store *s, const char *sql, sqlite3_stmt **ret) STORE_WUR;

extern const char store_sql_begin[], store_sql_commit[], store_sql_rollback[];

/* The statements of devices and samples: prepared when a handle opens, so a
 * database whose schema does not fit them is refused then (-EPROTO). */
extern const char store_sql_device_upsert[], store_sql_device_set_online[],
	store_sql_devices_list[], store_sql_device_get[];
extern const char store_sql_sample_insert[], store_sql_samples_range[], store_sql_sample_latest[];

/* ---- parameters --------------------------------------------------------- */

enum store_param_type {
	STORE_P_I64,
	STORE_P_DOUBLE,
	STORE_P_TEXT,
	STORE_P_NULL,
	STORE_P_U128, /* INTEGER while it fits in int64, decimal TEXT beyond */
};

/* One value to bind; build it with the store_p_*() helpers below. */
struct store_param {
	const char *name; /* ":name"; NULL: the parameter at its place in the list (?1, ?2, …) */
	enum store_param_type type;
	size_t max; /* STORE_P_TEXT: at most this many bytes (0: up to the NUL) */
	union {
		int64_t i;
		double d;
		const char *t;
		u128 u;
	};
};

static inline struct store_param store_p_i64(const char *name, int64_t v)
{
	return (struct store_param){.name = name, .type = STORE_P_I64, .i = v};
}

/* A count far below 2^63 (byte and I/O counts): saturates rather than wraps. */
static inline struct store_param store_p_u64(const char *name, uint64_t v)
{
	return store_p_i64(name, v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static inline struct store_param store_p_u128(const char *name, u128 v)
{
	return (struct store_param){.name = name, .type = STORE_P_U128, .u = v};
}

static inline struct store_param store_p_double(const char *name, double v)
{
	return (struct store_param){.name = name, .type = STORE_P_DOUBLE, .d = v};
}

static inline struct store_param store_p_null(const char *name)
{
	return (struct store_param){.name = name, .type = STORE_P_NULL};
}

/* 0 means "none": NULL in the database. */
static inline struct store_param store_p_opt(const char *name, int64_t v)
{
	return v ? store_p_i64(name, v) : store_p_null(name);
}

static inline struct store_param store_p_text(const char *name, const char *v)
{
	return (struct store_param){.name = name, .type = STORE_P_TEXT, .t = v};
}

/* A char array of @size bytes that need not end in a NUL. */
static inline struct store_param store_p_textn(const char *name, const char *v, size_t size)
{
	return (struct store_param){.name = name, .type = STORE_P_TEXT, .t = v, .max = size};
}

/**
 * store_bind_list() - Bind @n values to @st. On failure @st is reset with no
 * bindings and store_strerror() names the parameter.
 * Return: 0, -EINVAL (no such parameter), or negative errno.
 */
int store_bind_list(struct store *s, sqlite3_stmt *st, const struct store_param *p,
		    size_t n) STORE_WUR;

/* store_bind(s, st, store_p_i64(":id", id), …) - store_bind_list() of the values given. */
#define store_bind(s, st, ...)                                                                     \
	store_bind_list((s), (st), (const struct store_param[]){__VA_ARGS__},                      \
			sizeof((const struct store_param[]){__VA_ARGS__}) /                        \
				sizeof(struct store_param))

/*
 * Binding goes through store_bind(), whose result the compiler makes the caller
 * check: the raw binders of SQLite, which nothing checks, are for store_sql.c only.
 */
#ifndef STORE_SQL_BINDS
#pragma GCC poison sqlite3_bind_int sqlite3_bind_int64 sqlite3_bind_double sqlite3_bind_text
#pragma GCC poison sqlite3_bind_null sqlite3_bind_blob sqlite3_bind_value sqlite3_bind_zeroblob
#endif

/* ---- running ------------------------------------------------------------ */

/**
 * store_run() - Step a statement that returns no rows, then reset it.
 * Return: 0; -ENOENT when @must_change and no row changed; negative errno.
 */
int store_run(struct store *s, sqlite3_stmt *st, bool must_change) STORE_WUR;

/* Reads the current row of @st into @ret; fails through store_failf() on @s. */
typedef int (*store_row_fn)(struct store *s, sqlite3_stmt *st, void *ret);

/**
 * store_collect() - Step @st to the end, reading each row with @read into a
 * growing array of @size-byte elements (*ret, malloc()ed; NULL when none); resets @st.
 * Return: 0, the first negative errno of @read, or negative errno.
 */
int store_collect(struct store *s, sqlite3_stmt *st, size_t size, store_row_fn read, void **ret,
		  size_t *ret_n) STORE_WUR;

/**
 * store_collect_first() - As store_collect(), for a lookup: the first row read
 * with @read (@size bytes) into @ret, the others dropped; resets @st.
 * Return: 0; -ENOENT when @st returns no row; the first negative errno of
 * @read, or negative errno.
 */
int store_collect_first(struct store *s, sqlite3_stmt *st, size_t size, store_row_fn read,
			void *ret) STORE_WUR;

/**
 * store_first_by_id() - store_collect_first() of the static statement @sql
 * (store_stmt()) with @id bound to its one parameter, ":id": a lookup by id.
 * Return: as store_collect_first().
 */
int store_first_by_id(struct store *s, const char *sql, int64_t id, size_t size, store_row_fn read,
		      void *ret) STORE_WUR;

/**
 * store_all_by_id() - store_collect() of the static statement @sql with @id bound
 * to ":id": the rows that belong to one thing (a probe run's phases, events, ...).
 * Return: as store_collect().
 */
int store_all_by_id(struct store *s, const char *sql, int64_t id, size_t size, store_row_fn read,
		    void **ret, size_t *ret_n) STORE_WUR;

/* The work of one transaction: 0 (or more) to commit, negative errno to roll back. */
typedef int (*store_txn_fn)(struct store *s, void *ctx);

/**
 * store_transaction() - Run @fn in one write transaction (BEGIN IMMEDIATE):
 * COMMIT when it succeeds, ROLLBACK when it or the COMMIT fails, keeping the
 * message of the failure. @what (may be NULL) prefixes the message of a failed
 * BEGIN or COMMIT.
 * Return: what @fn returned, or negative errno.
 */
int store_transaction(struct store *s, const char *what, store_txn_fn fn, void *ctx) STORE_WUR;

/* Bind row @i of @rows to @st, with store_bind(). */
typedef int (*store_bind_fn)(struct store *s, sqlite3_stmt *st, const void *rows, size_t i);

/**
 * store_insert_rows() - Run the static statement @sql for each of @n rows, bound
 * by @bind: all or nothing, in the open transaction or else in one of its own.
 * @what names the rows in the message of a failed insert ("inserting samples").
 * Return: 0, or negative errno (nothing inserted).
 */
int store_insert_rows(struct store *s, const char *sql, const void *rows, size_t n,
		      store_bind_fn bind, const char *what) STORE_WUR;

/* ---- reading columns ---------------------------------------------------- */

/* Each one checks the column and fails through store_failf() on @s. Return: 0 or -EIO. */
int store_column_u128(struct store *s, sqlite3_stmt *st, int i, u128 *ret);
/* A 64-bit field stored as a counter (store_p_u128()): fails beyond 64 bits. */
int store_column_u64(struct store *s, sqlite3_stmt *st, int i, uint64_t *ret);
int store_column_uint(struct store *s, sqlite3_stmt *st, int i, uint64_t max, uint64_t *ret);
int store_column_text(struct store *s, sqlite3_stmt *st, int i, char *buf, size_t size);
