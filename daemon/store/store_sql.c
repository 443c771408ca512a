/* SPDX-License-Identifier: MIT */
/*
 * What every store file uses to talk to SQLite (store_internal.h): the handle's
 * statement cache, checked parameter binding, running and collecting statements,
 * transactions, inserts of many rows, and column readers that check what they read.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "nvmond/store/store.h"
#include "nvmond/util/u128.h"
#define STORE_SQL_BINDS /* the one file that calls sqlite3_bind_*() */
#include "store_internal.h"

const char store_sql_begin[] = "BEGIN IMMEDIATE";
const char store_sql_commit[] = "COMMIT";
const char store_sql_rollback[] = "ROLLBACK";

/* ---- statements --------------------------------------------------------- */

static int store_prepare(struct store *s, const char *sql, sqlite3_stmt **ret)
{
	sqlite3_stmt *st;
	int rc;

	if (s->n_cache == STORE_STMT_CACHE)
		return store_failf(s, -ENOSPC, "statement cache full");
	rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL);
	if (rc != SQLITE_OK)
		return store_fail(s, rc, "preparing a statement");
	s->cache[s->n_cache].sql = sql;
	s->cache[s->n_cache].st = st;
	s->n_cache++;
	*ret = st;
	return 0;
}

int store_stmt(struct store *s, const char *sql, sqlite3_stmt **ret)
{
	for (size_t i = 0; i < s->n_cache; i++)
		if (s->cache[i].sql == sql) {
			sqlite3_reset(s->cache[i].st);
			sqlite3_clear_bindings(s->cache[i].st);
			*ret = s->cache[i].st;
			return 0;
		}
	return store_prepare(s, sql, ret);
}

/* What a failed bind names: formatted only on failure (binds run per row, per poll). */
static void bind_what(const struct store_param *p, int i, char *buf, size_t size)
{
	if (p->name)
		snprintf(buf, size, "binding %s", p->name);
	else
		snprintf(buf, size, "binding ?%d", i);
}

int store_bind_list(struct store *s, sqlite3_stmt *st, const struct store_param *p, size_t n)
{
	char what[80];
	int r;

	for (size_t k = 0; k < n; k++) {
		int i = p[k].name ? sqlite3_bind_parameter_index(st, p[k].name) : (int)k + 1;
		char dec[U128_DEC_MAX];
		int rc;

		if (i == 0) {
			bind_what(&p[k], i, what, sizeof(what));
			r = store_failf(s, -EINVAL, "%s: no such parameter in \"%.60s\"", what,
					sqlite3_sql(st));
			goto fail;
		}
		switch (p[k].type) {
		case STORE_P_I64:
			rc = sqlite3_bind_int64(st, i, p[k].i);
			break;
		case STORE_P_DOUBLE:
			rc = sqlite3_bind_double(st, i, p[k].d);
			break;
		case STORE_P_TEXT:
			rc = sqlite3_bind_text(st, i, p[k].t,
					       p[k].max && p[k].t ? (int)strnlen(p[k].t, p[k].max)
								  : -1,
					       SQLITE_TRANSIENT);
			break;
		case STORE_P_NULL:
			rc = sqlite3_bind_null(st, i);
			break;
		case STORE_P_U128:
			if (p[k].u <= (u128)INT64_MAX)
				rc = sqlite3_bind_int64(st, i, (int64_t)p[k].u);
			else
				rc = sqlite3_bind_text(st, i, u128_to_dec(p[k].u, dec), -1,
						       SQLITE_TRANSIENT);
			break;
		default:
			rc = SQLITE_MISUSE;
			break;
		}
		if (rc != SQLITE_OK) {
			bind_what(&p[k], i, what, sizeof(what));
			r = store_fail(s, rc, what);
			goto fail;
		}
	}
	return 0;
fail:
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return r;
}

int store_run(struct store *s, sqlite3_stmt *st, bool must_change)
{
	int rc = sqlite3_step(st), r = 0;

	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		r = store_fail(s, rc, "writing");
	else if (must_change && sqlite3_changes(s->db) == 0)
		r = -ENOENT;
	sqlite3_reset(st);
	return r;
}

int store_collect(struct store *s, sqlite3_stmt *st, size_t size, store_row_fn read, void **ret,
		  size_t *ret_n)
{
	char *v = NULL;
	size_t n = 0, cap = 0;
	int rc, r = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			char *nv = realloc(v, ncap * size);
			if (!nv) {
				r = store_failf(s, -ENOMEM, "reading rows: out of memory");
				goto fail;
			}
			v = nv;
			cap = ncap;
		}
		r = read(s, st, v + n * size);
		if (r < 0)
			goto fail;
		n++;
	}
	if (rc != SQLITE_DONE) {
		r = store_fail(s, rc, "reading rows");
		goto fail;
	}
	sqlite3_reset(st);
	*ret = v;
	*ret_n = n;
	return 0;
fail:
	sqlite3_reset(st);
	free(v);
	return r;
}

int store_collect_first(struct store *s, sqlite3_stmt *st, size_t size, store_row_fn read,
			void *ret)
{
	void *v = NULL;
	size_t n = 0;
	int r = store_collect(s, st, size, read, &v, &n);

	if (r < 0)
		return r;
	if (n > 0)
		memcpy(ret, v, size);
	free(v);
	return n > 0 ? 0 : -ENOENT;
}

int store_first_by_id(struct store *s, const char *sql, int64_t id, size_t size, store_row_fn read,
		      void *ret)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id));
	return r < 0 ? r : store_collect_first(s, st, size, read, ret);
}

int store_all_by_id(struct store *s, const char *sql, int64_t id, size_t size, store_row_fn read,
		    void **ret, size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id));
	return r < 0 ? r : store_collect(s, st, size, read, ret, ret_n);
}

/* Run the static statement @sql, which returns no rows; a failure names it. */
static int store_exec_sql(struct store *s, const char *sql)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql, &st), rc;

	if (r < 0)
		return r;
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		r = store_fail(s, rc, sql);
	sqlite3_reset(st);
	return r;
}

/* ---- transactions ------------------------------------------------------- */

/* Undo an open transaction, keeping the message of the failure that caused it. */
static void store_rollback(struct store *s)
{
	sqlite3_stmt *st;

	if (sqlite3_get_autocommit(s->db))
		return; /* SQLite already rolled it back */
	if (store_stmt(s, store_sql_rollback, &st) < 0)
		return; /* prepared at open: cannot happen */
	sqlite3_step(st);
	sqlite3_reset(st);
}

int store_begin(struct store *s)
{
	return store_exec_sql(s, store_sql_begin);
}

int store_end(struct store *s, int r)
{
	if (r >= 0) {
		int k = store_exec_sql(s, store_sql_commit);
		if (k < 0)
			r = k;
	}
	if (r < 0)
		store_rollback(s);
	return r;
}

int store_transaction(struct store *s, const char *what, store_txn_fn fn, void *ctx)
{
	int r, k;

	r = store_exec_sql(s, store_sql_begin);
	if (r < 0)
		return store_fail_prefix(s, what, r);
	r = fn(s, ctx);
	if (r >= 0) {
		k = store_exec_sql(s, store_sql_commit);
		if (k < 0)
			r = store_fail_prefix(s, what, k);
	}
	if (r < 0)
		store_rollback(s);
	return r;
}

struct insert_rows {
	const char *sql;
	const void *rows;
	size_t n;
	store_bind_fn bind;
	const char *what;
};

static int insert_rows(struct store *s, void *ctx)
{
	const struct insert_rows *a = ctx;
	sqlite3_stmt *st;
	int r, rc;

	r = store_stmt(s, a->sql, &st);
	for (size_t i = 0; r == 0 && i < a->n; i++) {
		r = a->bind(s, st, a->rows, i);
		if (r < 0)
			break;
		rc = sqlite3_step(st);
		if (rc != SQLITE_DONE)
			r = store_fail(s, rc, a->what);
		sqlite3_reset(st);
	}
	return r;
}

int store_insert_rows(struct store *s, const char *sql, const void *rows, size_t n,
		      store_bind_fn bind, const char *what)
{
	struct insert_rows a = {.sql = sql, .rows = rows, .n = n, .bind = bind, .what = what};

	if (n == 0)
		return 0;
	if (!sqlite3_get_autocommit(s->db))
		return insert_rows(s, &a);
	return store_transaction(s, NULL, insert_rows, &a);
}

/* ---- columns ------------------------------------------------------------ */

int store_column_u128(struct store *s, sqlite3_stmt *st, int i, u128 *ret)
{
	int64_t n;
	int r;

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		n = sqlite3_column_int64(st, i);
		if (n < 0)
			break;
		*ret = (u128)n;
		return 0;
	case SQLITE_TEXT:
		r = u128_from_dec((const char *)sqlite3_column_text(st, i), ret);
		if (r < 0)
			break;
		return 0;
	default:
		break;
	}
	return store_failf(s, -EIO, "column %s: not a 128-bit counter", sqlite3_column_name(st, i));
}

int store_column_u64(struct store *s, sqlite3_stmt *st, int i, uint64_t *ret)
{
	u128 v;
	int r = store_column_u128(s, st, i, &v);

	if (r < 0)
		return r;
	if (v > UINT64_MAX)
		return store_failf(s, -EIO, "column %s: beyond 64 bits",
				   sqlite3_column_name(st, i));
	*ret = (uint64_t)v;
	return 0;
}

int store_column_uint(struct store *s, sqlite3_stmt *st, int i, uint64_t max, uint64_t *ret)
{
	int64_t n = sqlite3_column_int64(st, i);

	if (sqlite3_column_type(st, i) != SQLITE_INTEGER || n < 0 || (uint64_t)n > max)
		return store_failf(s, -EIO, "column %s: value out of range",
				   sqlite3_column_name(st, i));
	*ret = (uint64_t)n;
	return 0;
}

int store_column_text(struct store *s, sqlite3_stmt *st, int i, char *buf, size_t size)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	size_t len = (size_t)sqlite3_column_bytes(st, i);

	if (!t || len >= size)
		return store_failf(s, -EIO, "column %s: missing or longer than %zu bytes",
				   sqlite3_column_name(st, i), size - 1);
	memcpy(buf, t, len + 1);
	return 0;
}
