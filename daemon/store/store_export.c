/* SPDX-License-Identifier: MIT */
/*
 * Where each remote-write export is in the samples (store_export.h): named,
 * parameter-bound statements.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <sqlite3.h>

#include "nvmond/store/store_export.h"
#include "store_internal.h"

static const char sql_export_add[] =
	"INSERT INTO exports (name, created_ms) VALUES (:name, :now_ms) ON CONFLICT DO NOTHING";
static const char sql_export_get[] = "SELECT created_ms FROM exports WHERE name = :name";
static const char sql_cursors[] =
	"SELECT device_id, sent_ms FROM export_cursors WHERE export = :name ORDER BY device_id";
/* A cursor never moves back: two writers of one export cannot undo each other. */
static const char sql_cursor_set[] =
	"INSERT INTO export_cursors (export, device_id, sent_ms) VALUES (:name, :device_id, :sent) "
	"ON CONFLICT (export, device_id) DO UPDATE SET sent_ms = max(sent_ms, excluded.sent_ms)";
static const char sql_pending[] = "SELECT count(*), min(ts_ms) FROM samples "
				  "WHERE device_id = :device_id AND ts_ms > :after_ms";

static int read_i64(struct store *s, sqlite3_stmt *st, void *ret)
{
	(void)s;
	*(int64_t *)ret = sqlite3_column_int64(st, 0);
	return 0;
}

int store_export_start(struct store *s, const char *name, int64_t now_ms, int64_t *ret_created_ms)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_export_add, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_text(":name", name), store_p_i64(":now_ms", now_ms));
	if (r == 0)
		r = store_run(s, st, false);
	if (r == 0)
		r = store_stmt(s, sql_export_get, &st);
	if (r == 0)
		r = store_bind(s, st, store_p_text(":name", name));
	if (r == 0)
		r = store_collect_first(s, st, sizeof(int64_t), read_i64, ret_created_ms);
	return r;
}

static int read_cursor(struct store *s, sqlite3_stmt *st, void *ret)
{
	(void)s;
	*(struct export_cursor *)ret = (struct export_cursor){
		.device_id = sqlite3_column_int64(st, 0), .sent_ms = sqlite3_column_int64(st, 1)};
	return 0;
}

int store_export_cursors(struct store *s, const char *name, struct export_cursor **ret,
			 size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_cursors, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_text(":name", name));
	return r < 0 ? r : store_collect(s, st, sizeof(**ret), read_cursor, (void **)ret, ret_n);
}

struct advance {
	const char *name;
	const struct export_cursor *v;
	size_t n;
};

static int advance_txn(struct store *s, void *ctx)
{
	const struct advance *a = ctx;
	sqlite3_stmt *st;
	int r = 0;

	for (size_t i = 0; r == 0 && i < a->n; i++) {
		r = store_stmt(s, sql_cursor_set, &st);
		if (r == 0)
			r = store_bind(s, st, store_p_text(":name", a->name),
				       store_p_i64(":device_id", a->v[i].device_id),
				       store_p_i64(":sent", a->v[i].sent_ms));
		if (r == 0)
			r = store_run(s, st, false);
	}
	return r;
}

int store_export_advance(struct store *s, const char *name, const struct export_cursor *v, size_t n)
{
	struct advance a = {.name = name, .v = v, .n = n};

	return store_transaction(s, "recording an export's progress", advance_txn, &a);
}

struct pending {
	uint64_t n;
	int64_t oldest_ms;
};

static int read_pending(struct store *s, sqlite3_stmt *st, void *ret)
{
	(void)s;
	struct pending *p = ret;

	p->n = (uint64_t)sqlite3_column_int64(st, 0);
	p->oldest_ms = sqlite3_column_int64(st, 1); /* NULL: 0 */
	return 0;
}

int store_export_pending(struct store *s, int64_t device_id, int64_t after_ms, uint64_t *ret_n,
			 int64_t *ret_oldest_ms)
{
	struct pending p = {0};
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_pending, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", device_id),
			       store_p_i64(":after_ms", after_ms));
	if (r == 0)
		r = store_collect_first(s, st, sizeof(p), read_pending, &p);
	if (r < 0)
		return r;
	*ret_n = p.n;
	*ret_oldest_ms = p.oldest_ms;
	return 0;
}
