/* SPDX-License-Identifier: MIT */
/*
 * Device self-test results and what nvmond did about self-tests, in SQLite
 * (selftest_results, selftest_actions; migration 0008). See store_selftest.h.
 * The 64-bit fields of a result (power-on hours, LBA) are stored as counters
 * are: INTEGER while they fit in int64, decimal TEXT beyond.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <sqlite3.h>

#include "nvmond/store/store_selftest.h"
#include "store_internal.h"

/* The order read_result() reads. */
#define RESULT_COLS                                                                                \
	"id, device_id, seen_ms, code, result, segment, valid, poh, nsid, lba, sct, sc, vendor, "  \
	"origin"
#define ACTION_COLS "id, device_id, ts_ms, kind, code, nsid, origin, reason"

static const char sql_result_insert[] =
	"INSERT INTO selftest_results (device_id, seen_ms, code, result, segment, valid, poh, "
	"nsid, lba, sct, sc, vendor, origin) VALUES (:device_id, :seen_ms, :code, :result, "
	":segment, :valid, :poh, :nsid, :lba, :sct, :sc, :vendor, NULLIF(:origin, ''))";
static const char sql_result_list[] = "SELECT " RESULT_COLS " FROM selftest_results "
				      "WHERE device_id = :device_id ORDER BY id DESC LIMIT :limit";
static const char sql_result_last_of[] = "SELECT " RESULT_COLS " FROM selftest_results "
					 "WHERE device_id = :device_id AND code = :code "
					 "ORDER BY id DESC LIMIT 1";
static const char sql_action_insert[] =
	"INSERT INTO selftest_actions (device_id, ts_ms, kind, code, nsid, origin, reason) "
	"VALUES (:device_id, :ts_ms, :kind, :code, :nsid, :origin, :reason)";
static const char sql_action_list[] =
	"SELECT " ACTION_COLS " FROM selftest_actions WHERE device_id = :device_id "
	"AND (:kind IS NULL OR kind = :kind) ORDER BY ts_ms DESC, id DESC LIMIT :limit";
static const char sql_action_last_scheduled[] =
	"SELECT max(ts_ms) FROM selftest_actions WHERE device_id = :device_id AND code = :code "
	"AND kind IN ('start', 'skip') AND origin IN ('schedule', 'catch-up')";

static const char *const kind_names[] = {
	[STORE_SELFTEST_START] = "start",
	[STORE_SELFTEST_ABORT] = "abort",
	[STORE_SELFTEST_SKIP] = "skip",
};
#define N_KINDS ((int)(sizeof(kind_names) / sizeof(kind_names[0])))

/*
 * A char array of @size bytes as text: at most @size - 1 of them, so what is
 * stored always reads back into the same array with its NUL.
 */
static struct store_param p_text_in(const char *name, const char *v, size_t size)
{
	return store_p_textn(name, v, size - 1);
}

/* Column @i, NULL read as "". */
static int column_text_or_empty(struct store *s, sqlite3_stmt *st, int i, char *buf, size_t size)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL) {
		buf[0] = '\0';
		return 0;
	}
	return store_column_text(s, st, i, buf, size);
}

/* @rows is an array of struct store_selftest_row; @i indexes it. */
static int bind_result(struct store *s, sqlite3_stmt *st, const void *rows, size_t i)
{
	const struct store_selftest_row *v = &((const struct store_selftest_row *)rows)[i];
	const struct selftest_result *r = &v->r;

	return store_bind(s, st, store_p_i64(":device_id", v->device_id),
			  store_p_i64(":seen_ms", v->seen_ms), store_p_i64(":code", r->code),
			  store_p_i64(":result", r->result), store_p_i64(":segment", r->segment),
			  store_p_i64(":valid", r->valid), store_p_u128(":poh", r->poh),
			  store_p_i64(":nsid", r->nsid), store_p_u128(":lba", r->lba),
			  store_p_i64(":sct", r->sct), store_p_i64(":sc", r->sc),
			  store_p_i64(":vendor", r->vendor),
			  p_text_in(":origin", v->origin, sizeof(v->origin)));
}

static int read_result(struct store *s, sqlite3_stmt *st, void *ret)
{
	struct store_selftest_row v = {0};
	struct selftest_result *t = &v.r;
	/* Columns 3 … 12 (but 7 and 9, the 64-bit ones), their fields and bounds. */
	static const struct {
		int col;
		uint64_t max;
	} small[] = {
		{3, 0xf},	 {4, 0xf},	  {5, UINT8_MAX},  {6, UINT8_MAX},
		{8, UINT32_MAX}, {10, UINT8_MAX}, {11, UINT8_MAX}, {12, UINT16_MAX},
	};
	uint64_t n[sizeof(small) / sizeof(small[0])];
	int r;

	for (size_t k = 0; k < sizeof(small) / sizeof(small[0]); k++) {
		r = store_column_uint(s, st, small[k].col, small[k].max, &n[k]);
		if (r < 0)
			return r;
	}
	r = store_column_u64(s, st, 7, &t->poh);
	if (r == 0)
		r = store_column_u64(s, st, 9, &t->lba);
	if (r == 0)
		r = column_text_or_empty(s, st, 13, v.origin, sizeof(v.origin));
	if (r < 0)
		return r;
	v.id = sqlite3_column_int64(st, 0);
	v.device_id = sqlite3_column_int64(st, 1);
	v.seen_ms = sqlite3_column_int64(st, 2);
	t->code = (uint8_t)n[0];
	t->result = (uint8_t)n[1];
	t->segment = (uint8_t)n[2];
	t->valid = (uint8_t)n[3];
	t->nsid = (uint32_t)n[4];
	t->sct = (uint8_t)n[5];
	t->sc = (uint8_t)n[6];
	t->vendor = (uint16_t)n[7];
	*(struct store_selftest_row *)ret = v;
	return 0;
}

static int read_action(struct store *s, sqlite3_stmt *st, void *ret)
{
	struct store_selftest_action a = {0};
	const char *kind = (const char *)sqlite3_column_text(st, 3);
	uint64_t code, nsid;
	int r, k;

	for (k = 0; k < N_KINDS; k++)
		if (kind && strcmp(kind, kind_names[k]) == 0)
			break;
	if (k == N_KINDS)
		return store_failf(s, -EIO, "column kind: unknown action '%s'", kind ? kind : "");
	r = store_column_uint(s, st, 4, UINT8_MAX, &code);
	if (r == 0)
		r = store_column_uint(s, st, 5, UINT32_MAX, &nsid);
	if (r == 0)
		r = store_column_text(s, st, 6, a.origin, sizeof(a.origin));
	if (r == 0)
		r = store_column_text(s, st, 7, a.reason, sizeof(a.reason));
	if (r < 0)
		return r;
	a.id = sqlite3_column_int64(st, 0);
	a.device_id = sqlite3_column_int64(st, 1);
	a.ts_ms = sqlite3_column_int64(st, 2);
	a.kind = (enum store_selftest_action_kind)k;
	a.code = (uint8_t)code;
	a.nsid = (uint32_t)nsid;
	*(struct store_selftest_action *)ret = a;
	return 0;
}

struct results_add {
	const struct store_selftest_row *v;
	size_t n;
};

static int results_add_txn(struct store *s, void *ctx)
{
	const struct results_add *a = ctx;

	return store_insert_rows(s, sql_result_insert, a->v, a->n, bind_result,
				 "inserting self-test results");
}

int store_selftest_add(struct store *s, const struct store_selftest_row *v, size_t n)
{
	struct results_add a = {.v = v, .n = n};

	if (n == 0)
		return 0;
	return store_transaction(s, "storing self-test results", results_add_txn, &a);
}

/* sql_result_list, bound: the newest @limit results of device @id. */
static int result_list_stmt(struct store *s, int64_t id, size_t limit, sqlite3_stmt **ret)
{
	int r = store_stmt(s, sql_result_list, ret);

	if (r == 0)
		r = store_bind(s, *ret, store_p_i64(":device_id", id),
			       store_p_u64(":limit", limit));
	return r;
}

int store_selftest_newest(struct store *s, int64_t id, struct store_selftest_row *ret)
{
	sqlite3_stmt *st;
	int r = result_list_stmt(s, id, 1, &st);

	return r < 0 ? r : store_collect_first(s, st, sizeof(*ret), read_result, ret);
}

int store_selftest_list(struct store *s, int64_t id, size_t limit, struct store_selftest_row **ret,
			size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = result_list_stmt(s, id, limit, &st);

	return r < 0 ? r : store_collect(s, st, sizeof(**ret), read_result, (void **)ret, ret_n);
}

int store_selftest_last_of(struct store *s, int64_t id, uint8_t code,
			   struct store_selftest_row *ret)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_result_last_of, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", id), store_p_i64(":code", code));
	return r < 0 ? r : store_collect_first(s, st, sizeof(*ret), read_result, ret);
}

int store_selftest_action_add(struct store *s, const struct store_selftest_action *a)
{
	sqlite3_stmt *st;
	int r;

	if ((int)a->kind < 0 || (int)a->kind >= N_KINDS)
		return store_failf(s, -EINVAL, "self-test action: unknown kind %d", (int)a->kind);
	r = store_stmt(s, sql_action_insert, &st);
	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", a->device_id),
			       store_p_i64(":ts_ms", a->ts_ms),
			       store_p_text(":kind", kind_names[a->kind]),
			       store_p_i64(":code", a->code), store_p_i64(":nsid", a->nsid),
			       p_text_in(":origin", a->origin, sizeof(a->origin)),
			       p_text_in(":reason", a->reason, sizeof(a->reason)));
	return r < 0 ? r : store_run(s, st, true);
}

int store_selftest_actions(struct store *s, int64_t id, int kind, size_t limit,
			   struct store_selftest_action **ret, size_t *ret_n)
{
	sqlite3_stmt *st;
	int r;

	if (kind >= N_KINDS)
		return store_failf(s, -EINVAL, "self-test actions: unknown kind %d", kind);
	r = store_stmt(s, sql_action_list, &st);
	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", id),
			       kind < 0 ? store_p_null(":kind")
					: store_p_text(":kind", kind_names[kind]),
			       store_p_u64(":limit", limit));
	return r < 0 ? r : store_collect(s, st, sizeof(**ret), read_action, (void **)ret, ret_n);
}

int store_selftest_last_scheduled(struct store *s, int64_t id, uint8_t code, int64_t *ret_ms)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_action_last_scheduled, &st), rc;

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", id), store_p_i64(":code", code));
	if (r < 0)
		return r;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		r = store_fail(s, rc, "reading when the schedule last ran a self-test");
	else if (sqlite3_column_type(st, 0) == SQLITE_NULL)
		r = -ENOENT; /* max() of no rows */
	else
		*ret_ms = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return r;
}
