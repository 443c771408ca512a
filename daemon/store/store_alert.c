/* SPDX-License-Identifier: MIT */
/*
 * Throttle events and alerts in SQLite. Named, parameter-bound statements,
 * prepared once per handle (store_stmt()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "nvmond/store/store.h"
#include "nvmond/store/store_alert.h"
#include "store_internal.h"

#define EVENT_COLS                                                                                 \
	"id, kind, start_ms, end_ms, last_rise_ms, duration_s, transitions, peak_k, late, "        \
	"counter_reset"
#define ALERT_COLS                                                                                 \
	"id, device_id, rule, severity, state, message, started_ms, updated_ms, resolved_ms, "     \
	"acked_ms, notified_ms"

static const char sql_event_insert[] =
	"INSERT INTO throttle_events (device_id, kind, start_ms, end_ms, last_rise_ms, duration_s, "
	"transitions, peak_k, late, counter_reset) VALUES (:device_id, :kind, :start_ms, :end_ms, "
	":last_rise_ms, :duration_s, :transitions, :peak_k, :late, :counter_reset)";
static const char sql_event_update[] =
	"UPDATE throttle_events SET start_ms = :start_ms, end_ms = :end_ms, "
	"last_rise_ms = :last_rise_ms, duration_s = :duration_s, transitions = :transitions, "
	"peak_k = :peak_k, late = :late, counter_reset = :counter_reset WHERE id = :id";
static const char sql_events_open[] = "SELECT " EVENT_COLS " FROM throttle_events "
				      "WHERE device_id = :device_id AND end_ms IS NULL ORDER BY id";
static const char sql_events_range[] =
	"SELECT " EVENT_COLS " FROM throttle_events WHERE device_id = :device_id "
	"AND start_ms <= :to_ms AND (end_ms IS NULL OR end_ms >= :from_ms) "
	"ORDER BY start_ms, id LIMIT :limit";
static const char sql_alert_insert[] =
	"INSERT INTO alerts (device_id, rule, severity, state, message, started_ms, updated_ms, "
	"resolved_ms, acked_ms, notified_ms) VALUES (:device_id, :rule, :severity, :state, "
	":message, :started_ms, :updated_ms, :resolved_ms, :acked_ms, :notified_ms)";
static const char sql_alert_update[] =
	"UPDATE alerts SET severity = :severity, state = :state, message = :message, "
	"updated_ms = :updated_ms, resolved_ms = :resolved_ms, acked_ms = :acked_ms, "
	"notified_ms = :notified_ms WHERE id = :id";
static const char sql_alert_get[] = "SELECT " ALERT_COLS ", notified_ms FROM alerts WHERE id = :id";
static const char sql_alert_ack[] =
	"UPDATE alerts SET acked_ms = coalesce(acked_ms, :now_ms) WHERE id = :id";
static const char sql_alerts_firing[] = "SELECT " ALERT_COLS ", notified_ms FROM alerts "
					"WHERE state = 'firing' ORDER BY id DESC";
static const char sql_alerts_recent[] =
	"SELECT " ALERT_COLS ", notified_ms FROM alerts ORDER BY id DESC LIMIT :limit";
static const char sql_alerts_latest[] =
	"SELECT " ALERT_COLS ", (SELECT max(b.notified_ms) FROM alerts b "
	"WHERE b.device_id = a.device_id AND b.rule = a.rule) FROM alerts a "
	"WHERE a.id IN (SELECT max(id) FROM alerts GROUP BY device_id, rule) ORDER BY a.id";

/* The columns an insert and an update of a throttle event share. */
static int bind_event(struct store *s, sqlite3_stmt *st, const struct throttle_event *ev)
{
	return store_bind(
		s, st, store_p_i64(":start_ms", ev->start_ms), store_p_opt(":end_ms", ev->end_ms),
		store_p_i64(":last_rise_ms", ev->last_rise_ms),
		store_p_i64(":duration_s", (int64_t)ev->duration_s),
		store_p_i64(":transitions", ev->transitions), store_p_i64(":peak_k", ev->peak_k),
		store_p_i64(":late", ev->late), store_p_i64(":counter_reset", ev->counter_reset));
}

int store_event_insert(struct store *s, int64_t device_id, const struct throttle_event *ev,
		       int64_t *ret_id)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_event_insert, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", device_id),
			       store_p_text(":kind", throttle_kind_name(ev->kind)));
	if (r == 0)
		r = bind_event(s, st, ev);
	if (r == 0)
		r = store_run(s, st, false);
	if (r < 0)
		return r;
	*ret_id = sqlite3_last_insert_rowid(store_db(s));
	return 0;
}

int store_event_update(struct store *s, const struct throttle_event *ev)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_event_update, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", ev->id));
	if (r == 0)
		r = bind_event(s, st, ev);
	return r < 0 ? r : store_run(s, st, true);
}

static int read_event(sqlite3_stmt *st, struct throttle_event *ev)
{
	int kind = throttle_kind_from_name((const char *)sqlite3_column_text(st, 1));

	if (kind < 0)
		return -EIO;
	*ev = (struct throttle_event){
		.id = sqlite3_column_int64(st, 0),
		.kind = kind,
		.start_ms = sqlite3_column_int64(st, 2),
		.end_ms = sqlite3_column_int64(st, 3), /* NULL reads as 0: open */
		.last_rise_ms = sqlite3_column_int64(st, 4),
		.duration_s = (uint64_t)sqlite3_column_int64(st, 5),
		.transitions = (uint32_t)sqlite3_column_int64(st, 6),
		.peak_k = (uint16_t)sqlite3_column_int64(st, 7),
		.late = sqlite3_column_int(st, 8) != 0,
		.counter_reset = sqlite3_column_int(st, 9) != 0,
	};
	return 0;
}

static int read_event_cb(struct store *s, sqlite3_stmt *st, void *p)
{
	(void)s;
	return read_event(st, p);
}

int store_events_open(struct store *s, int64_t device_id, struct throttle_event **ret,
		      size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_events_open, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", device_id));
	return r < 0 ? r : store_collect(s, st, sizeof(**ret), read_event_cb, (void **)ret, ret_n);
}

int store_events_range(struct store *s, int64_t device_id, int64_t from_ms, int64_t to_ms,
		       size_t limit, struct throttle_event **ret, size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_events_range, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", device_id),
			       store_p_i64(":from_ms", from_ms), store_p_i64(":to_ms", to_ms),
			       store_p_u64(":limit", limit));
	return r < 0 ? r : store_collect(s, st, sizeof(**ret), read_event_cb, (void **)ret, ret_n);
}

/* The columns an insert and an update of an alert share. */
static int bind_alert(struct store *s, sqlite3_stmt *st, const struct alert_row *a)
{
	return store_bind(
		s, st, store_p_text(":severity", alert_severity_name(a->severity)),
		store_p_text(":state", a->firing ? "firing" : "resolved"),
		store_p_text(":message", a->message), store_p_i64(":updated_ms", a->updated_ms),
		store_p_opt(":resolved_ms", a->resolved_ms), store_p_opt(":acked_ms", a->acked_ms),
		store_p_opt(":notified_ms", a->notified_ms));
}

int store_alert_insert(struct store *s, const struct alert_row *a, int64_t *ret_id)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_alert_insert, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", a->device_id),
			       store_p_text(":rule", alert_rule_name(a->rule)),
			       store_p_i64(":started_ms", a->started_ms));
	if (r == 0)
		r = bind_alert(s, st, a);
	if (r == 0)
		r = store_run(s, st, false);
	if (r < 0)
		return r;
	*ret_id = sqlite3_last_insert_rowid(store_db(s));
	return 0;
}

int store_alert_update(struct store *s, const struct alert_row *a)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_alert_update, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", a->id));
	if (r == 0)
		r = bind_alert(s, st, a);
	return r < 0 ? r : store_run(s, st, true);
}

static int read_alert(struct store *s, sqlite3_stmt *st, void *p)
{
	(void)s;
	struct alert_row *a = p;
	int rule = alert_rule_from_name((const char *)sqlite3_column_text(st, 2));
	int sev = alert_severity_from_name((const char *)sqlite3_column_text(st, 3));
	const char *state = (const char *)sqlite3_column_text(st, 4);
	const char *msg = (const char *)sqlite3_column_text(st, 5);

	if (rule < 0 || sev < 0 || !state || !msg)
		return -EIO;
	*a = (struct alert_row){
		.id = sqlite3_column_int64(st, 0),
		.device_id = sqlite3_column_int64(st, 1),
		.rule = rule,
		.severity = sev,
		.firing = strcmp(state, "firing") == 0,
		.started_ms = sqlite3_column_int64(st, 6),
		.updated_ms = sqlite3_column_int64(st, 7),
		.resolved_ms = sqlite3_column_int64(st, 8),
		.acked_ms = sqlite3_column_int64(st, 9),
		.notified_ms = sqlite3_column_int64(st, 10),
		.last_notified_ms = sqlite3_column_int64(st, 11),
	};
	snprintf(a->message, sizeof(a->message), "%s", msg);
	return 0;
}

int store_alert_get(struct store *s, int64_t id, struct alert_row *ret)
{
	return store_first_by_id(s, sql_alert_get, id, sizeof(*ret), read_alert, ret);
}

int store_alert_ack(struct store *s, int64_t id, int64_t now_ms)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_alert_ack, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id), store_p_i64(":now_ms", now_ms));
	return r < 0 ? r : store_run(s, st, true);
}

int store_alerts_list(struct store *s, bool firing_only, size_t limit, struct alert_row **ret,
		      size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, firing_only ? sql_alerts_firing : sql_alerts_recent, &st);

	if (r == 0 && !firing_only)
		r = store_bind(s, st, store_p_u64(":limit", limit));
	return r < 0 ? r : store_collect(s, st, sizeof(**ret), read_alert, (void **)ret, ret_n);
}

int store_alerts_latest(struct store *s, struct alert_row **ret, size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_alerts_latest, &st);

	if (r < 0)
		return r;
	return store_collect(s, st, sizeof(**ret), read_alert, (void **)ret, ret_n);
}
