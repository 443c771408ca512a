/* SPDX-License-Identifier: MIT */
/*
 * Probe runs in SQLite: runs, their phases, throughput series, cliff events and
 * temperatures, the probe files and the write budget. Named, parameter-bound
 * statements, prepared once per handle (store_stmt()).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "nvmond/store/store.h"
#include "nvmond/store/store_probe.h"
#include "store_internal.h"

#define RUN_COLS                                                                                   \
	"id, device_id, preset, trigger, state, reason, target, engine, started_ms, ended_ms, "    \
	"bytes_written, bytes_read, bytes_charged, bytes_lease, nsid, series_id, series_index, "   \
	"series_of, source_device_id, source_target"
#define PHASE_COLS                                                                                 \
	"phase, name, op, random, block_size, depth, stop, elapsed_ms, offset_ms, interval_ms, "   \
	"rd_bytes, rd_ios, wr_bytes, wr_ios, rd_p50_ns, rd_p99_ns, rd_p999_ns, wr_p50_ns, "        \
	"wr_p99_ns, wr_p999_ns, cpu_user_us, cpu_sys_us, rd_max_ns, wr_max_ns"

static const char sql_run_insert[] =
	"INSERT INTO probe_runs (device_id, preset, trigger, state, reason, target, engine, "
	"started_ms, ended_ms, bytes_written, bytes_read, bytes_charged, bytes_lease, nsid, "
	"series_id, series_index, series_of, source_device_id, source_target) "
	"VALUES (:device_id, :preset, :trigger, :state, :reason, :target, :engine, :started_ms, "
	":ended_ms, :bytes_written, :bytes_read, :bytes_charged, :bytes_lease, :nsid, "
	":series_id, :series_index, :series_of, :source_device_id, :source_target)";
static const char sql_run_update[] =
	"UPDATE probe_runs SET state = :state, reason = :reason, target = :target, "
	"engine = :engine, ended_ms = :ended_ms, bytes_written = :bytes_written, "
	"bytes_read = :bytes_read, bytes_charged = :bytes_charged, bytes_lease = :bytes_lease, "
	"nsid = :nsid, series_id = :series_id, series_index = :series_index, "
	"series_of = :series_of, source_device_id = :source_device_id, "
	"source_target = :source_target WHERE id = :id";
static const char sql_run_charge[] =
	"UPDATE probe_runs SET bytes_lease = :lease, bytes_written = :written "
	"WHERE id = :id AND state = 'running'";
static const char sql_runs_recover[] =
	"UPDATE probe_runs SET state = 'failed', reason = :reason, ended_ms = :now_ms, "
	"bytes_charged = max(bytes_lease, bytes_written) "
	"WHERE device_id = :device_id AND state = 'running'";
static const char sql_running_devices[] =
	"SELECT DISTINCT device_id FROM probe_runs WHERE state = 'running' ORDER BY device_id";
static const char sql_file_get[] = "SELECT ino, gen, btime_ns, size FROM probe_files "
				   "WHERE device_id = :device_id AND dir = :dir";
static const char sql_file_put[] =
	"INSERT OR REPLACE INTO probe_files (device_id, dir, ino, gen, btime_ns, size, made_ms) "
	"VALUES (:device_id, :dir, :ino, :gen, :btime_ns, :size, :made_ms)";
static const char sql_phase_insert[] =
	"INSERT INTO probe_phases (" PHASE_COLS ", run_id) VALUES (:phase, :name, :op, :random, "
	":block_size, :depth, :stop, :elapsed_ms, :offset_ms, :interval_ms, :rd_bytes, :rd_ios, "
	":wr_bytes, :wr_ios, :rd_p50_ns, :rd_p99_ns, :rd_p999_ns, :wr_p50_ns, :wr_p99_ns, "
	":wr_p999_ns, :cpu_user_us, :cpu_sys_us, :rd_max_ns, :wr_max_ns, :run_id)";
static const char sql_series_insert[] =
	"INSERT INTO probe_series (run_id, phase, t_ms, rd_bytes, wr_bytes) "
	"VALUES (:run_id, :phase, :t_ms, :rd_bytes, :wr_bytes)";
static const char sql_event_insert[] =
	"INSERT OR REPLACE INTO probe_events (run_id, phase, kind, cause, start_ms, end_ms, "
	"bytes_before, rate_before, rate_during, rate_after) VALUES (:run_id, :phase, :kind, "
	":cause, :start_ms, :end_ms, :bytes_before, :rate_before, :rate_during, :rate_after)";
static const char sql_thermal_insert[] =
	"INSERT OR REPLACE INTO probe_thermal (run_id, t_ms, temp_k, t1_count, t2_count, "
	"t1_time_s, t2_time_s, warn_time_min) VALUES (:run_id, :t_ms, :temp_k, :t1_count, "
	":t2_count, :t1_time_s, :t2_time_s, :warn_time_min)";
/* A drive's runs: the ones that wrote it, and the copy-to runs that read it. */
static const char sql_runs_list[] =
	"SELECT " RUN_COLS " FROM probe_runs WHERE id IN (SELECT id FROM probe_runs "
	"WHERE device_id = :device_id UNION SELECT id FROM probe_runs "
	"WHERE source_device_id = :device_id) ORDER BY id DESC LIMIT :limit";
/* The newest finished run (done, or stopped at a cliff) of each preset on a drive, as listed. */
static const char sql_runs_latest[] =
	"SELECT " RUN_COLS " FROM probe_runs WHERE id IN (SELECT max(id) FROM probe_runs "
	"WHERE (device_id = :device_id OR source_device_id = :device_id) "
	"AND state IN ('done', 'stopped') GROUP BY preset) ORDER BY id DESC";
static const char sql_series_runs[] = "SELECT " RUN_COLS " FROM probe_runs "
				      "WHERE series_id = :id ORDER BY id";
static const char sql_run_get[] = "SELECT " RUN_COLS " FROM probe_runs WHERE id = :id";
static const char sql_phases_get[] =
	"SELECT " PHASE_COLS " FROM probe_phases WHERE run_id = :id ORDER BY phase";
static const char sql_series_get[] = "SELECT t_ms, rd_bytes, wr_bytes FROM probe_series "
				     "WHERE run_id = :id AND phase = :phase ORDER BY t_ms";
static const char sql_events_get[] =
	"SELECT phase, kind, cause, start_ms, end_ms, bytes_before, rate_before, rate_during, "
	"rate_after FROM probe_events WHERE run_id = :id ORDER BY phase, start_ms";
static const char sql_thermal_get[] =
	"SELECT t_ms, temp_k, t1_count, t2_count, t1_time_s, t2_time_s, warn_time_min "
	"FROM probe_thermal WHERE run_id = :id ORDER BY t_ms";
static const char sql_written_since[] = "SELECT coalesce(sum(bytes_charged), 0) FROM probe_runs "
					"WHERE device_id = :device_id AND started_ms >= :since_ms";
/* A run that wrote counts, however it ended: failing is no way round the limit. */
static const char sql_last_started[] =
	"SELECT coalesce(max(started_ms), 0) FROM probe_runs WHERE device_id = :device_id "
	"AND preset = :preset AND (state IN ('running', 'done', 'stopped') OR bytes_charged > 0)";

static void col_str(sqlite3_stmt *st, int i, char *buf, size_t size)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	snprintf(buf, size, "%s", t ? (const char *)t : "");
}

static uint64_t col_u64(sqlite3_stmt *st, int i)
{
	int64_t v = sqlite3_column_int64(st, i);

	return v < 0 ? 0 : (uint64_t)v;
}

/* The columns an insert and an update of a run share. */
static int bind_run(struct store *s, sqlite3_stmt *st, const struct probe_run_row *row)
{
	return store_bind(
		s, st, store_p_text(":state", row->state), store_p_text(":reason", row->reason),
		store_p_text(":target", row->target), store_p_text(":engine", row->engine),
		store_p_opt(":ended_ms", row->ended_ms),
		store_p_u64(":bytes_written", row->bytes_written),
		store_p_u64(":bytes_read", row->bytes_read),
		store_p_u64(":bytes_charged", row->bytes_charged),
		store_p_u64(":bytes_lease", row->bytes_lease), store_p_opt(":nsid", row->nsid),
		store_p_opt(":series_id", row->series_id),
		store_p_opt(":series_index", row->series_index),
		store_p_opt(":series_of", row->series_of),
		store_p_opt(":source_device_id", row->source_device_id),
		row->source_device_id ? store_p_text(":source_target", row->source_target)
				      : store_p_null(":source_target"));
}

int store_probe_run_insert(struct store *s, const struct probe_run_row *row, int64_t *ret_id)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_run_insert, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", row->device_id),
			       store_p_text(":preset", row->preset),
			       store_p_text(":trigger", row->trigger),
			       store_p_i64(":started_ms", row->started_ms));
	if (r == 0)
		r = bind_run(s, st, row);
	if (r == 0)
		r = store_run(s, st, false);
	if (r < 0)
		return r;
	*ret_id = sqlite3_last_insert_rowid(store_db(s));
	return 0;
}

int store_probe_run_update(struct store *s, const struct probe_run_row *row)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_run_update, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", row->id));
	if (r == 0)
		r = bind_run(s, st, row);
	return r < 0 ? r : store_run(s, st, true);
}

static int phase_insert(struct store *s, int64_t run_id, const struct probe_phase_row *ph)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_phase_insert, &st);

	if (r == 0)
		r = store_bind(
			s, st, store_p_i64(":run_id", run_id),
			store_p_i64(":phase", (int64_t)ph->phase), store_p_text(":name", ph->name),
			store_p_text(":op", ph->op), store_p_i64(":random", ph->random),
			store_p_i64(":block_size", ph->block_size),
			store_p_i64(":depth", ph->depth), store_p_text(":stop", ph->stop),
			store_p_i64(":elapsed_ms", ph->elapsed_ms),
			store_p_i64(":offset_ms", ph->offset_ms),
			store_p_i64(":interval_ms", ph->interval_ms),
			store_p_u64(":rd_bytes", ph->rd.bytes), store_p_u64(":rd_ios", ph->rd.ios),
			store_p_u64(":wr_bytes", ph->wr.bytes), store_p_u64(":wr_ios", ph->wr.ios),
			store_p_u64(":rd_p50_ns", ph->rd.lat_p50_ns),
			store_p_u64(":rd_p99_ns", ph->rd.lat_p99_ns),
			store_p_u64(":rd_p999_ns", ph->rd.lat_p999_ns),
			store_p_u64(":wr_p50_ns", ph->wr.lat_p50_ns),
			store_p_u64(":wr_p99_ns", ph->wr.lat_p99_ns),
			store_p_u64(":wr_p999_ns", ph->wr.lat_p999_ns),
			store_p_i64(":cpu_user_us", ph->cpu_user_us),
			store_p_i64(":cpu_sys_us", ph->cpu_sys_us),
			store_p_u64(":rd_max_ns", ph->rd.lat_max_ns),
			store_p_u64(":wr_max_ns", ph->wr.lat_max_ns));
	return r < 0 ? r : store_run(s, st, false);
}

/* A phase with its series and events: the rows store_probe_phase_insert() stores. */
struct phase_rows {
	int64_t run_id;
	const struct probe_phase_row *ph;
	const struct probe_point *v;
	size_t n;
	const struct cliff_event *ev;
	size_t n_ev;
};

static int bind_point(struct store *s, sqlite3_stmt *st, const void *rows, size_t i)
{
	const struct phase_rows *p = rows;

	return store_bind(s, st, store_p_i64(":run_id", p->run_id),
			  store_p_i64(":phase", (int64_t)p->ph->phase),
			  store_p_i64(":t_ms", p->v[i].t_ms),
			  store_p_u64(":rd_bytes", p->v[i].rd_bytes),
			  store_p_u64(":wr_bytes", p->v[i].wr_bytes));
}

static int bind_cliff(struct store *s, sqlite3_stmt *st, const void *rows, size_t i)
{
	const struct phase_rows *p = rows;
	const struct cliff_event *e = &p->ev[i];

	return store_bind(s, st, store_p_i64(":run_id", p->run_id),
			  store_p_i64(":phase", (int64_t)p->ph->phase),
			  store_p_text(":kind", cliff_kind_name(e->kind)),
			  store_p_text(":cause", cliff_cause_name(e->cause)),
			  store_p_i64(":start_ms", e->start_ms), store_p_i64(":end_ms", e->end_ms),
			  store_p_u64(":bytes_before", e->bytes_before),
			  store_p_double(":rate_before", e->rate_before),
			  store_p_double(":rate_during", e->rate_during),
			  store_p_double(":rate_after", e->rate_after));
}

static int phase_rows_insert(struct store *s, void *ctx)
{
	const struct phase_rows *p = ctx;
	int r;

	r = phase_insert(s, p->run_id, p->ph);
	if (r == 0)
		r = store_insert_rows(s, sql_series_insert, p, p->n, bind_point,
				      "inserting a probe series");
	if (r == 0)
		r = store_insert_rows(s, sql_event_insert, p, p->n_ev, bind_cliff,
				      "inserting probe events");
	return r;
}

int store_probe_phase_insert(struct store *s, int64_t run_id, const struct probe_phase_row *ph,
			     const struct probe_point *v, size_t n, const struct cliff_event *ev,
			     size_t n_ev)
{
	struct phase_rows p = {.run_id = run_id, .ph = ph, .v = v, .n = n, .ev = ev, .n_ev = n_ev};

	return store_transaction(s, NULL, phase_rows_insert, &p);
}

struct thermal_rows {
	int64_t run_id;
	const struct cliff_thermal *v;
};

static int bind_thermal(struct store *s, sqlite3_stmt *st, const void *rows, size_t i)
{
	const struct thermal_rows *p = rows;
	const struct cliff_thermal *t = &p->v[i];

	return store_bind(s, st, store_p_i64(":run_id", p->run_id), store_p_i64(":t_ms", t->t_ms),
			  store_p_i64(":temp_k", t->temp_k), store_p_i64(":t1_count", t->t1_count),
			  store_p_i64(":t2_count", t->t2_count),
			  store_p_i64(":t1_time_s", t->t1_time_s),
			  store_p_i64(":t2_time_s", t->t2_time_s),
			  store_p_i64(":warn_time_min", t->warning_temp_time_min));
}

int store_probe_thermal_insert(struct store *s, int64_t run_id, const struct cliff_thermal *v,
			       size_t n)
{
	struct thermal_rows p = {.run_id = run_id, .v = v};

	return store_insert_rows(s, sql_thermal_insert, &p, n, bind_thermal,
				 "inserting probe temperatures");
}

static void read_run(sqlite3_stmt *st, struct probe_run_row *ret)
{
	*ret = (struct probe_run_row){
		.id = sqlite3_column_int64(st, 0),
		.device_id = sqlite3_column_int64(st, 1),
		.started_ms = sqlite3_column_int64(st, 8),
		.ended_ms = sqlite3_column_int64(st, 9), /* NULL reads as 0 */
		.bytes_written = col_u64(st, 10),
		.bytes_read = col_u64(st, 11),
		.bytes_charged = col_u64(st, 12),
		.bytes_lease = col_u64(st, 13),
		.nsid = (uint32_t)sqlite3_column_int64(st, 14),
		.series_id = sqlite3_column_int64(st, 15),
		.series_index = (uint32_t)sqlite3_column_int64(st, 16),
		.series_of = (uint32_t)sqlite3_column_int64(st, 17),
		.source_device_id = sqlite3_column_int64(st, 18),
	};
	col_str(st, 2, ret->preset, sizeof(ret->preset));
	col_str(st, 3, ret->trigger, sizeof(ret->trigger));
	col_str(st, 4, ret->state, sizeof(ret->state));
	col_str(st, 5, ret->reason, sizeof(ret->reason));
	col_str(st, 6, ret->target, sizeof(ret->target));
	col_str(st, 7, ret->engine, sizeof(ret->engine));
	col_str(st, 19, ret->source_target, sizeof(ret->source_target));
}

static int fill_run(struct store *s, sqlite3_stmt *st, void *p)
{
	(void)s;
	read_run(st, p);
	return 0;
}

int store_probe_runs_list(struct store *s, int64_t device_id, size_t limit,
			  struct probe_run_row **ret, size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_runs_list, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", device_id),
			       store_p_i64(":limit", (int64_t)limit));
	return r < 0 ? r : store_collect(s, st, sizeof(**ret), fill_run, (void **)ret, ret_n);
}

int store_probe_runs_latest(struct store *s, int64_t device_id, struct probe_run_row **ret,
			    size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_runs_latest, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", device_id));
	return r < 0 ? r : store_collect(s, st, sizeof(**ret), fill_run, (void **)ret, ret_n);
}

int store_probe_series_runs(struct store *s, int64_t series_id, struct probe_run_row **ret,
			    size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_series_runs, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", series_id));
	return r < 0 ? r : store_collect(s, st, sizeof(**ret), fill_run, (void **)ret, ret_n);
}

int store_probe_run_get(struct store *s, int64_t id, struct probe_run_row *ret)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_run_get, &st), rc;

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id));
	if (r < 0)
		return r;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		read_run(st, ret);
	else
		r = rc == SQLITE_DONE ? -ENOENT : store_errno(s, rc);
	sqlite3_reset(st);
	return r;
}

static int fill_phase(struct store *s, sqlite3_stmt *st, void *p)
{
	(void)s;
	struct probe_phase_row *ph = p;

	*ph = (struct probe_phase_row){
		.phase = (size_t)sqlite3_column_int64(st, 0),
		.random = sqlite3_column_int(st, 3),
		.block_size = (uint32_t)sqlite3_column_int64(st, 4),
		.depth = (uint32_t)sqlite3_column_int64(st, 5),
		.elapsed_ms = sqlite3_column_int64(st, 7),
		.offset_ms = sqlite3_column_int64(st, 8),
		.interval_ms = sqlite3_column_int64(st, 9),
		.rd = {.bytes = col_u64(st, 10),
		       .ios = col_u64(st, 11),
		       .lat_p50_ns = col_u64(st, 14),
		       .lat_p99_ns = col_u64(st, 15),
		       .lat_p999_ns = col_u64(st, 16),
		       .lat_max_ns = col_u64(st, 22)},
		.wr = {.bytes = col_u64(st, 12),
		       .ios = col_u64(st, 13),
		       .lat_p50_ns = col_u64(st, 17),
		       .lat_p99_ns = col_u64(st, 18),
		       .lat_p999_ns = col_u64(st, 19),
		       .lat_max_ns = col_u64(st, 23)},
		.cpu_user_us = sqlite3_column_int64(st, 20),
		.cpu_sys_us = sqlite3_column_int64(st, 21),
	};
	col_str(st, 1, ph->name, sizeof(ph->name));
	col_str(st, 2, ph->op, sizeof(ph->op));
	col_str(st, 6, ph->stop, sizeof(ph->stop));
	return 0;
}

int store_probe_phases_get(struct store *s, int64_t id, struct probe_phase_row **ret, size_t *ret_n)
{
	return store_all_by_id(s, sql_phases_get, id, sizeof(**ret), fill_phase, (void **)ret,
			       ret_n);
}

static int fill_point(struct store *s, sqlite3_stmt *st, void *p)
{
	(void)s;
	*(struct probe_point *)p = (struct probe_point){
		.t_ms = sqlite3_column_int64(st, 0),
		.rd_bytes = col_u64(st, 1),
		.wr_bytes = col_u64(st, 2),
	};
	return 0;
}

int store_probe_series_get(struct store *s, int64_t id, size_t phase, struct probe_point **ret,
			   size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_series_get, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id),
			       store_p_i64(":phase", (int64_t)phase));
	return r < 0 ? r : store_collect(s, st, sizeof(**ret), fill_point, (void **)ret, ret_n);
}

static int fill_event(struct store *s, sqlite3_stmt *st, void *p)
{
	(void)s;
	struct probe_event_row *e = p;
	const unsigned char *kind = sqlite3_column_text(st, 1);
	const unsigned char *cause = sqlite3_column_text(st, 2);

	*e = (struct probe_event_row){
		.phase = (size_t)sqlite3_column_int64(st, 0),
		.ev =
			{
				.kind = kind && strcmp((const char *)kind, "cliff") == 0
						? CLIFF_CLIFF
						: CLIFF_DIP,
				.cause = cause && strcmp((const char *)cause, "throttling") == 0
						 ? CLIFF_CAUSE_THROTTLING
						 : CLIFF_CAUSE_UNKNOWN,
				.start_ms = sqlite3_column_int64(st, 3),
				.end_ms = sqlite3_column_int64(st, 4),
				.bytes_before = col_u64(st, 5),
				.rate_before = sqlite3_column_double(st, 6),
				.rate_during = sqlite3_column_double(st, 7),
				.rate_after = sqlite3_column_double(st, 8),
			},
	};
	e->ev.recovered = e->ev.kind == CLIFF_DIP;
	return 0;
}

int store_probe_events_get(struct store *s, int64_t id, struct probe_event_row **ret, size_t *ret_n)
{
	return store_all_by_id(s, sql_events_get, id, sizeof(**ret), fill_event, (void **)ret,
			       ret_n);
}

static int fill_thermal(struct store *s, sqlite3_stmt *st, void *p)
{
	(void)s;
	*(struct cliff_thermal *)p = (struct cliff_thermal){
		.t_ms = sqlite3_column_int64(st, 0),
		.temp_k = (uint16_t)sqlite3_column_int(st, 1),
		.t1_count = (uint32_t)sqlite3_column_int64(st, 2),
		.t2_count = (uint32_t)sqlite3_column_int64(st, 3),
		.t1_time_s = (uint32_t)sqlite3_column_int64(st, 4),
		.t2_time_s = (uint32_t)sqlite3_column_int64(st, 5),
		.warning_temp_time_min = (uint32_t)sqlite3_column_int64(st, 6),
	};
	return 0;
}

int store_probe_thermal_get(struct store *s, int64_t id, struct cliff_thermal **ret, size_t *ret_n)
{
	return store_all_by_id(s, sql_thermal_get, id, sizeof(**ret), fill_thermal, (void **)ret,
			       ret_n);
}

static int one_i64(struct store *s, sqlite3_stmt *st, int64_t *ret)
{
	int rc = sqlite3_step(st), r = 0;

	if (rc == SQLITE_ROW)
		*ret = sqlite3_column_int64(st, 0);
	else
		r = store_errno(s, rc);
	sqlite3_reset(st);
	return r;
}

int store_probe_written_since(struct store *s, int64_t device_id, int64_t since_ms, uint64_t *ret)
{
	sqlite3_stmt *st;
	int64_t v = 0;
	int r = store_stmt(s, sql_written_since, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", device_id),
			       store_p_i64(":since_ms", since_ms));
	if (r == 0)
		r = one_i64(s, st, &v);
	if (r < 0)
		return r;
	*ret = v < 0 ? 0 : (uint64_t)v;
	return 0;
}

int store_probe_last_started(struct store *s, int64_t device_id, const char *preset, int64_t *ret)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_last_started, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", device_id),
			       store_p_text(":preset", preset));
	return r < 0 ? r : one_i64(s, st, ret);
}

int store_probe_run_charge(struct store *s, int64_t id, uint64_t lease, uint64_t written)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_run_charge, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":id", id), store_p_u64(":lease", lease),
			       store_p_u64(":written", written));
	return r < 0 ? r : store_run(s, st, true);
}

int store_probe_runs_recover(struct store *s, int64_t device_id, int64_t now_ms, const char *reason)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_runs_recover, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", device_id),
			       store_p_i64(":now_ms", now_ms), store_p_text(":reason", reason));
	if (r == 0)
		r = store_run(s, st, false);
	return r < 0 ? r : sqlite3_changes(store_db(s));
}

static int fill_id(struct store *s, sqlite3_stmt *st, void *p)
{
	(void)s;
	*(int64_t *)p = sqlite3_column_int64(st, 0);
	return 0;
}

int store_probe_running_devices(struct store *s, int64_t **ret, size_t *ret_n)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_running_devices, &st);

	if (r < 0)
		return r;
	return store_collect(s, st, sizeof(int64_t), fill_id, (void **)ret, ret_n);
}

int store_probe_file_get(struct store *s, int64_t device_id, const char *dir,
			 struct probe_file_id *ret)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_file_get, &st), rc;

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", device_id),
			       store_p_text(":dir", dir));
	if (r < 0)
		return r;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*ret = (struct probe_file_id){
			.ino = col_u64(st, 0),
			.has_gen = sqlite3_column_type(st, 1) != SQLITE_NULL,
			.gen = col_u64(st, 1),
			.has_btime = sqlite3_column_type(st, 2) != SQLITE_NULL,
			.btime_ns = sqlite3_column_int64(st, 2),
			.size = col_u64(st, 3),
		};
		r = 0;
	} else {
		r = rc == SQLITE_DONE ? -ENOENT : store_errno(s, rc);
	}
	sqlite3_reset(st);
	return r;
}

int store_probe_file_put(struct store *s, int64_t device_id, const char *dir,
			 const struct probe_file_id *id, int64_t now_ms)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql_file_put, &st);

	if (r == 0)
		r = store_bind(s, st, store_p_i64(":device_id", device_id),
			       store_p_text(":dir", dir), store_p_u64(":ino", id->ino),
			       id->has_gen ? store_p_u64(":gen", id->gen) : store_p_null(":gen"),
			       id->has_btime ? store_p_i64(":btime_ns", id->btime_ns)
					     : store_p_null(":btime_ns"),
			       store_p_u64(":size", id->size), store_p_i64(":made_ms", now_ms));
	return r < 0 ? r : store_run(s, st, true);
}
