/* SPDX-License-Identifier: MIT */
/*
 * The notification outbox: notifications of alerts kept, one row per sink, until
 * that sink is done with them, so that a crash neither loses one nor (but for a crash inside the
 * moment of delivery) sends one twice. Named, parameter-bound statements.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "nvmond/store/store_outbox.h"
#include "store_internal.h"

static const char sql_outbox_add[] = "INSERT INTO notify_outbox (alert_id, sink, created_ms, note) "
				     "VALUES (:alert_id, :sink, :created_ms, :note)";
static const char sql_outbox_drop[] = "DELETE FROM notify_outbox WHERE id = :id";
static const char sql_outbox_pending[] =
	"SELECT id, alert_id, sink, note FROM notify_outbox ORDER BY id LIMIT :limit";
static const char sql_outbox_prune[] = "DELETE FROM notify_outbox WHERE created_ms < :before_ms";

int store_outbox_add(struct store *s, int64_t alert_id, const char *sink, int64_t now_ms,
		     const char *note, int64_t *ret_id)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_outbox_add, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":alert_id", alert_id),
			       store_p_text(":sink", sink), store_p_i64(":created_ms", now_ms),
			       store_p_text(":note", note));
	if (r == 0)
		r = store_run(s, st, false);
	if (r < 0)
		return r;
	*ret_id = sqlite3_last_insert_rowid(store_db(s));
	return 0;
}

int store_outbox_done(struct store *s, int64_t id)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_outbox_drop, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id));
	return r < 0 ? r : store_run(s, st, false);
}

static int read_outbox(struct store *s, sqlite3_stmt *st, void *ret)
{
	struct outbox_row *o = ret;
	const unsigned char *sink = sqlite3_column_text(st, 2);
	const unsigned char *note = sqlite3_column_text(st, 3);

	*o = (struct outbox_row){
		.id = sqlite3_column_int64(st, 0),
		.alert_id = sqlite3_column_int64(st, 1),
		.note = strdup(note ? (const char *)note : ""),
	};
	snprintf(o->sink, sizeof(o->sink), "%s", sink ? (const char *)sink : "");
	return o->note ? 0 : store_failf(s, -ENOMEM, "reading the outbox: out of memory");
}

int store_outbox_pending(struct store *s, size_t max, struct outbox_row **ret, size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_outbox_pending, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_u64(":limit", max));
	return r < 0 ? r : store_collect(s, st, sizeof(**ret), read_outbox, (void **)ret, ret_n);
}

void store_outbox_free(struct outbox_row *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].note);
	free(v);
}

int store_outbox_prune(struct store *s, int64_t before_ms)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_outbox_prune, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":before_ms", before_ms));
	return r < 0 ? r : store_run(s, st, false);
}
