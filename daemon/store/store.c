/* SPDX-License-Identifier: MIT */
/*
 * The SQLite store: schema migrations, devices and samples.
 *
 * Every statement is a named, parameter-bound statement, prepared once per
 * handle (SQLITE_PREPARE_PERSISTENT) and kept in the handle. The only SQL text
 * executed as a whole is a compiled-in migration file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sqlite3.h>

#include "nvmond/store/migrations.h"
#include "nvmond/store/store.h"
#include "nvmond/util/u128.h"
#include "store_internal.h"

#define STORE_BUSY_TIMEOUT_MS 2000

enum store_stmt {
	/* Valid on an empty database: used while migrating. */
	ST_BEGIN,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_USER_VERSION,
	/* Need the schema. */
	ST_DEVICE_UPSERT,
	ST_DEVICE_SET_ONLINE,
	ST_DEVICES_LIST,
	ST_DEVICE_GET,
	ST_SAMPLE_INSERT,
	ST_SAMPLES_RANGE,
	ST_SAMPLE_LATEST,
	_ST_MAX,
	ST_FIRST_SCHEMA = ST_DEVICE_UPSERT,
};

#define DEVICE_COLS                                                                                \
	"id, key, model, serial, firmware, wctemp_k, cctemp_k, capacity_bytes, name, namespaces, " \
	"first_seen_ms, last_seen_ms, online"

/* The order bind_sample() and read_sample() use. */
#define SAMPLE_COLS                                                                                \
	"device_id, ts_ms, critical_warning, temperature_k, avail_spare, spare_thresh, "           \
	"percent_used, endurance_grp_crit_warn, data_units_read, data_units_written, "             \
	"host_read_commands, host_write_commands, controller_busy_time, power_cycles, "            \
	"power_on_hours, unsafe_shutdowns, media_errors, num_err_log_entries, "                    \
	"warning_temp_time, critical_temp_time, temp_sensor1_k, temp_sensor2_k, temp_sensor3_k, "  \
	"temp_sensor4_k, temp_sensor5_k, temp_sensor6_k, temp_sensor7_k, temp_sensor8_k, "         \
	"thm_temp1_trans_count, thm_temp2_trans_count, thm_temp1_total_time, "                     \
	"thm_temp2_total_time"
#define SAMPLE_NCOLS 32

static const char *const stmt_sql[_ST_MAX] = {
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_USER_VERSION] = "PRAGMA user_version",
	[ST_DEVICE_UPSERT] =
		"INSERT INTO devices (key, model, serial, firmware, wctemp_k, cctemp_k, "
		"capacity_bytes, name, namespaces, first_seen_ms, last_seen_ms, online) "
		"VALUES (:key, :model, :serial, :firmware, :wctemp_k, :cctemp_k, :capacity_bytes, "
		":name, :namespaces, :first_seen_ms, :last_seen_ms, :online) "
		"ON CONFLICT (key) DO UPDATE SET model = excluded.model, serial = excluded.serial, "
		"firmware = excluded.firmware, wctemp_k = excluded.wctemp_k, "
		"cctemp_k = excluded.cctemp_k, capacity_bytes = excluded.capacity_bytes, "
		"name = excluded.name, namespaces = excluded.namespaces, "
		"last_seen_ms = excluded.last_seen_ms, online = excluded.online "
		"RETURNING id",
	[ST_DEVICE_SET_ONLINE] = "UPDATE devices SET online = :online, "
				 "last_seen_ms = CASE WHEN :online THEN :now_ms ELSE last_seen_ms "
				 "END WHERE id = :id",
	[ST_DEVICES_LIST] = "SELECT " DEVICE_COLS " FROM devices ORDER BY id",
	[ST_DEVICE_GET] = "SELECT " DEVICE_COLS " FROM devices WHERE id = :id",
	[ST_SAMPLE_INSERT] = "INSERT OR IGNORE INTO samples (" SAMPLE_COLS ") VALUES ("
			     "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
			     "?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, "
			     "?29, ?30, ?31, ?32)",
	[ST_SAMPLES_RANGE] =
		"SELECT " SAMPLE_COLS " FROM samples WHERE device_id = :device_id "
		"AND ts_ms >= :from_ms AND ts_ms <= :to_ms ORDER BY ts_ms LIMIT :limit",
	[ST_SAMPLE_LATEST] = "SELECT " SAMPLE_COLS " FROM samples WHERE device_id = :device_id "
			     "ORDER BY ts_ms DESC LIMIT 1",
};

#define STORE_STMT_CACHE 96

struct store {
	sqlite3 *db;
	bool readonly;
	sqlite3_stmt *stmt[_ST_MAX];
	/* The feature modules' statements (store_stmt()), keyed by their SQL's address. */
	struct {
		const char *sql;
		sqlite3_stmt *st;
	} cache[STORE_STMT_CACHE];
	size_t n_cache;
	char err[STORE_ERR_MAX];
};

/* Map a SQLite result code to a negative errno. */
static int errno_from_sqlite(sqlite3 *db, int rc)
{
	int sys;

	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_IOERR:
		sys = db ? sqlite3_system_errno(db) : 0;
		if (sys == ENOSPC || sys == EDQUOT)
			return -ENOSPC;
		return -EIO;
	case SQLITE_SCHEMA:
		return -EPROTO;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_CANTOPEN:
		sys = db ? sqlite3_system_errno(db) : 0;
		return sys > 0 ? -sys : -EIO;
	default:
		return -EIO;
	}
}

/* Record the failure of @what on @s. Return: the negative errno for @rc. */
static int store_fail(struct store *s, int rc, const char *what)
{
	snprintf(s->err, sizeof(s->err), "%s: %s (SQLite error %d)", what, sqlite3_errmsg(s->db),
		 rc);
	return errno_from_sqlite(s->db, rc);
}

static int store_failf(struct store *s, int r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int store_failf(struct store *s, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return r;
}

/* Messages are cut at STORE_ERR_MAX on purpose. */
static void err_printf(char buf[STORE_ERR_MAX], const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void err_printf(char buf[STORE_ERR_MAX], const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, STORE_ERR_MAX, fmt, ap);
	va_end(ap);
}

static void stmt_done(sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

/* Run a statement that returns no rows. */
static int store_exec(struct store *s, enum store_stmt id)
{
	sqlite3_stmt *st = s->stmt[id];
	int rc = sqlite3_step(st);
	int r = 0;

	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		r = store_fail(s, rc, stmt_sql[id]);
	stmt_done(st);
	return r;
}

/* Undo an open transaction, keeping the message of the failure that caused it. */
static void store_rollback(struct store *s)
{
	if (sqlite3_get_autocommit(s->db))
		return; /* SQLite already rolled it back */
	sqlite3_step(s->stmt[ST_ROLLBACK]);
	stmt_done(s->stmt[ST_ROLLBACK]);
}

static int store_prepare(struct store *s, enum store_stmt first, enum store_stmt end)
{
	for (enum store_stmt i = first; i < end; i++) {
		int rc = sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
					    &s->stmt[i], NULL);
		if (rc != SQLITE_OK) {
			int r = store_fail(s, rc, "preparing a statement");
			/* A statement that does not fit the schema: it is not ours. */
			return (rc & 0xff) == SQLITE_ERROR ? -EPROTO : r;
		}
	}
	return 0;
}

int store_latest_version(void)
{
	return migrations_count ? migrations[migrations_count - 1].version : 0;
}

int store_schema_version(struct store *s)
{
	sqlite3_stmt *st = s->stmt[ST_USER_VERSION];
	int rc = sqlite3_step(st);
	int r;

	if (rc == SQLITE_ROW)
		r = sqlite3_column_int(st, 0);
	else
		r = store_fail(s, rc, "reading PRAGMA user_version");
	stmt_done(st);
	return r;
}

/* Refuse a schema from a newer nvmond. */
static int store_check_not_newer(struct store *s, int version)
{
	if (version > store_latest_version())
		return store_failf(s, -EPROTO,
				   "database schema version %d is newer than this nvmond (knows up "
				   "to %d); upgrade nvmond or use another database",
				   version, store_latest_version());
	return 0;
}

/* Pragmas that take a value cannot be bound: these are fixed strings. */
static int store_pragma(struct store *s, const char *sql, const char *expect)
{
	sqlite3_stmt *st = NULL;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return store_fail(s, rc, sql);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		r = store_fail(s, rc, sql);
	else if (expect) {
		const char *got =
			rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
		if (!got || strcasecmp(got, expect) != 0)
			r = store_failf(s, -EIO, "%s: got \"%s\", need \"%s\"", sql, got ? got : "",
					expect);
	}
	sqlite3_finalize(st);
	return r;
}

/* Apply @m unless another process already did: one transaction, all or nothing. */
static int store_migrate_one(struct store *s, const struct migration *m)
{
	char *msg = NULL;
	int r, rc;

	r = store_exec(s, ST_BEGIN);
	if (r < 0)
		return r;

	r = store_schema_version(s);
	if (r < 0)
		goto fail;
	if (r >= m->version) {
		/* Migrated meanwhile by another connection. */
		r = store_exec(s, ST_COMMIT);
		if (r < 0)
			goto fail;
		return 0;
	}

	rc = sqlite3_exec(s->db, m->sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		snprintf(s->err, sizeof(s->err), "migration %s: %s", m->name,
			 msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		r = errno_from_sqlite(s->db, rc);
		goto fail;
	}

	/* Each migration file records its own number, so it stays usable with sqlite3(1). */
	r = store_schema_version(s);
	if (r < 0)
		goto fail;
	if (r != m->version) {
		r = store_failf(s, -EPROTO,
				"migration %s: leaves user_version at %d; it must end with "
				"\"PRAGMA user_version = %d;\"",
				m->name, r, m->version);
		goto fail;
	}

	r = store_exec(s, ST_COMMIT);
	if (r < 0) {
		char why[STORE_ERR_MAX];
		memcpy(why, s->err, sizeof(why));
		err_printf(s->err, "migration %s: %s", m->name, why);
		goto fail;
	}
	return 0;

fail:
	store_rollback(s);
	return r;
}

static int store_migrate(struct store *s)
{
	int version, r;

	version = store_schema_version(s);
	if (version < 0)
		return version;
	r = store_check_not_newer(s, version);
	if (r < 0)
		return r;

	for (size_t i = 0; i < migrations_count; i++) {
		const struct migration *m = &migrations[i];

		if (m->version <= version)
			continue;
		r = store_migrate_one(s, m);
		if (r < 0)
			return r;
	}

	version = store_schema_version(s);
	if (version < 0)
		return version;
	return store_check_not_newer(s, version);
}

static int store_open_full(const char *path, bool readonly, struct store **ret,
			   char ret_err[STORE_ERR_MAX])
{
	struct store *s;
	int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
	int rc, r;

	s = calloc(1, sizeof(*s));
	if (!s) {
		err_printf(ret_err, "%s: out of memory", path);
		return -ENOMEM;
	}
	s->readonly = readonly;
	flags |= readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;

	rc = sqlite3_open_v2(path, &s->db, flags, NULL);
	if (rc != SQLITE_OK) {
		r = store_fail(s, rc, "opening the database");
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);

	r = store_prepare(s, 0, ST_FIRST_SCHEMA);
	if (r < 0)
		goto fail;

	if (!readonly) {
		r = store_pragma(s, "PRAGMA journal_mode = WAL", "wal");
		if (r < 0)
			goto fail;
		r = store_pragma(s, "PRAGMA synchronous = NORMAL", NULL);
		if (r < 0)
			goto fail;
	}
	r = store_pragma(s, "PRAGMA foreign_keys = ON", NULL);
	if (r < 0)
		goto fail;

	if (readonly) {
		int version = store_schema_version(s);

		if (version < 0) {
			r = version;
			goto fail;
		}
		r = store_check_not_newer(s, version);
		if (r < 0)
			goto fail;
		if (version < store_latest_version()) {
			r = store_failf(
				s, -EPROTO,
				"database schema version %d is older than this nvmond "
				"(needs %d); let nvmond open it read-write once to migrate it",
				version, store_latest_version());
			goto fail;
		}
	} else {
		r = store_migrate(s);
		if (r < 0)
			goto fail;
	}

	r = store_prepare(s, ST_FIRST_SCHEMA, _ST_MAX);
	if (r < 0)
		goto fail;

	s->err[0] = '\0';
	*ret = s;
	return 0;

fail:
	err_printf(ret_err, "%s: %s", path, s->err);
	store_close(s);
	return r;
}

int store_open(const char *path, struct store **ret, char ret_err[STORE_ERR_MAX])
{
	return store_open_full(path, false, ret, ret_err);
}

int store_open_readonly(const char *path, struct store **ret, char ret_err[STORE_ERR_MAX])
{
	return store_open_full(path, true, ret, ret_err);
}

struct store *store_close(struct store *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < _ST_MAX; i++)
		sqlite3_finalize(s->stmt[i]);
	for (size_t i = 0; i < s->n_cache; i++)
		sqlite3_finalize(s->cache[i].st);
	sqlite3_close(s->db);
	free(s);
	return NULL;
}

sqlite3 *store_db(struct store *s)
{
	return s->db;
}

int store_errno(struct store *s, int rc)
{
	return store_fail(s, rc, "database");
}

int store_stmt(struct store *s, const char *sql, sqlite3_stmt **ret)
{
	sqlite3_stmt *st;
	int rc;

	for (size_t i = 0; i < s->n_cache; i++)
		if (s->cache[i].sql == sql) {
			sqlite3_reset(s->cache[i].st);
			sqlite3_clear_bindings(s->cache[i].st);
			*ret = s->cache[i].st;
			return 0;
		}
	/* Sized above the statements the modules have: running out is a bug. */
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

int store_bind_i64(sqlite3_stmt *st, const char *name, int64_t v)
{
	int i = sqlite3_bind_parameter_index(st, name);

	return i && sqlite3_bind_int64(st, i, v) == SQLITE_OK ? 0 : -EINVAL;
}

int store_bind_double(sqlite3_stmt *st, const char *name, double v)
{
	int i = sqlite3_bind_parameter_index(st, name);

	return i && sqlite3_bind_double(st, i, v) == SQLITE_OK ? 0 : -EINVAL;
}

int store_bind_text(sqlite3_stmt *st, const char *name, const char *v)
{
	int i = sqlite3_bind_parameter_index(st, name);

	return i && sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT) == SQLITE_OK ? 0 : -EINVAL;
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

int store_exec_sql(struct store *s, const char *sql)
{
	sqlite3_stmt *st;
	int r = store_stmt(s, sql, &st);

	return r < 0 ? r : store_run(s, st, false);
}

int store_set_busy_timeout(struct store *s, int ms)
{
	return sqlite3_busy_timeout(s->db, ms) == SQLITE_OK ? 0 : -EINVAL;
}

const char *store_strerror(const struct store *s)
{
	if (!s)
		return "no store";
	return s->err;
}

/* ---- values ------------------------------------------------------------- */

/* A 128-bit counter: INTEGER while it fits in int64, decimal TEXT beyond. */
static int bind_u128(sqlite3_stmt *st, int i, u128 v)
{
	char buf[U128_DEC_MAX];

	if (v <= (u128)INT64_MAX)
		return sqlite3_bind_int64(st, i, (int64_t)v);
	return sqlite3_bind_text(st, i, u128_to_dec(v, buf), -1, SQLITE_TRANSIENT);
}

static int column_u128(struct store *s, sqlite3_stmt *st, int i, u128 *ret)
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

/* An unsigned integer column no larger than @max. */
static int column_uint(struct store *s, sqlite3_stmt *st, int i, uint64_t max, uint64_t *ret)
{
	int64_t n = sqlite3_column_int64(st, i);

	if (sqlite3_column_type(st, i) != SQLITE_INTEGER || n < 0 || (uint64_t)n > max)
		return store_failf(s, -EIO, "column %s: value out of range",
				   sqlite3_column_name(st, i));
	*ret = (uint64_t)n;
	return 0;
}

static int column_text(struct store *s, sqlite3_stmt *st, int i, char *buf, size_t size)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	size_t len = (size_t)sqlite3_column_bytes(st, i);

	if (!t || len >= size)
		return store_failf(s, -EIO, "column %s: missing or longer than %zu bytes",
				   sqlite3_column_name(st, i), size - 1);
	memcpy(buf, t, len + 1);
	return 0;
}

static int bind_text(sqlite3_stmt *st, const char *name, const char *v, size_t size)
{
	return sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, name), v,
				 (int)strnlen(v, size), SQLITE_TRANSIENT);
}

static int bind_int64(sqlite3_stmt *st, const char *name, int64_t v)
{
	return sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, name), v);
}

/* ---- devices ------------------------------------------------------------ */

static int read_device(struct store *s, sqlite3_stmt *st, void *ret)
{
	struct device_row d = {0};
	uint64_t v;
	int r;

	d.id = sqlite3_column_int64(st, 0);
	if ((r = column_text(s, st, 1, d.key, sizeof(d.key))) < 0 ||
	    (r = column_text(s, st, 2, d.model, sizeof(d.model))) < 0 ||
	    (r = column_text(s, st, 3, d.serial, sizeof(d.serial))) < 0 ||
	    (r = column_text(s, st, 4, d.firmware, sizeof(d.firmware))) < 0)
		return r;
	r = column_uint(s, st, 5, UINT16_MAX, &v);
	if (r < 0)
		return r;
	d.wctemp_k = (uint16_t)v;
	r = column_uint(s, st, 6, UINT16_MAX, &v);
	if (r < 0)
		return r;
	d.cctemp_k = (uint16_t)v;
	r = column_u128(s, st, 7, &d.capacity_bytes);
	if (r < 0)
		return r;
	if ((r = column_text(s, st, 8, d.name, sizeof(d.name))) < 0 ||
	    (r = column_text(s, st, 9, d.namespaces, sizeof(d.namespaces))) < 0)
		return r;
	d.first_seen_ms = sqlite3_column_int64(st, 10);
	d.last_seen_ms = sqlite3_column_int64(st, 11);
	d.online = sqlite3_column_int(st, 12) != 0;
	*(struct device_row *)ret = d;
	return 0;
}

int store_device_upsert(struct store *s, const struct device_row *row, int64_t *ret_id)
{
	sqlite3_stmt *st = s->stmt[ST_DEVICE_UPSERT];
	int64_t id;
	int rc, r = 0;

	rc = bind_text(st, ":key", row->key, sizeof(row->key));
	if (rc == SQLITE_OK)
		rc = bind_text(st, ":model", row->model, sizeof(row->model));
	if (rc == SQLITE_OK)
		rc = bind_text(st, ":serial", row->serial, sizeof(row->serial));
	if (rc == SQLITE_OK)
		rc = bind_text(st, ":firmware", row->firmware, sizeof(row->firmware));
	if (rc == SQLITE_OK)
		rc = bind_int64(st, ":wctemp_k", row->wctemp_k);
	if (rc == SQLITE_OK)
		rc = bind_int64(st, ":cctemp_k", row->cctemp_k);
	if (rc == SQLITE_OK)
		rc = bind_u128(st, sqlite3_bind_parameter_index(st, ":capacity_bytes"),
			       row->capacity_bytes);
	if (rc == SQLITE_OK)
		rc = bind_text(st, ":name", row->name, sizeof(row->name));
	if (rc == SQLITE_OK)
		rc = bind_text(st, ":namespaces", row->namespaces[0] ? row->namespaces : "[]",
			       sizeof(row->namespaces));
	if (rc == SQLITE_OK)
		rc = bind_int64(st, ":first_seen_ms", row->first_seen_ms);
	if (rc == SQLITE_OK)
		rc = bind_int64(st, ":last_seen_ms", row->last_seen_ms);
	if (rc == SQLITE_OK)
		rc = bind_int64(st, ":online", row->online != 0);
	if (rc != SQLITE_OK) {
		r = store_fail(s, rc, "binding a device");
		goto out;
	}

	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		r = store_fail(s, rc == SQLITE_DONE ? SQLITE_ERROR : rc, "storing a device");
		goto out;
	}
	id = sqlite3_column_int64(st, 0);
	rc = sqlite3_step(st); /* let the statement finish */
	if (rc != SQLITE_DONE) {
		r = store_fail(s, rc, "storing a device");
		goto out;
	}
	*ret_id = id;
out:
	stmt_done(st);
	return r;
}

int store_device_set_online(struct store *s, int64_t id, int online, int64_t now_ms)
{
	sqlite3_stmt *st = s->stmt[ST_DEVICE_SET_ONLINE];
	int rc, r = 0;

	rc = bind_int64(st, ":online", online != 0);
	if (rc == SQLITE_OK)
		rc = bind_int64(st, ":now_ms", now_ms);
	if (rc == SQLITE_OK)
		rc = bind_int64(st, ":id", id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		r = store_fail(s, rc, "updating a device");
	else if (sqlite3_changes(s->db) == 0)
		r = store_failf(s, -ENOENT, "no device with id %" PRId64, id);
	stmt_done(st);
	return r;
}

int store_devices_list(struct store *s, struct device_row **ret, size_t *ret_n)
{
	return store_collect(s, s->stmt[ST_DEVICES_LIST], sizeof(**ret), read_device, (void **)ret,
			     ret_n);
}

int store_device_get(struct store *s, int64_t id, struct device_row *ret)
{
	sqlite3_stmt *st = s->stmt[ST_DEVICE_GET];
	int rc, r;

	rc = bind_int64(st, ":id", id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		r = read_device(s, st, ret);
	else if (rc == SQLITE_DONE)
		r = store_failf(s, -ENOENT, "no device with id %" PRId64, id);
	else
		r = store_fail(s, rc, "reading a device");
	stmt_done(st);
	return r;
}

/* ---- samples ------------------------------------------------------------ */

static int bind_sample(sqlite3_stmt *st, const struct sample *v)
{
	const struct smart_log *l = &v->smart;
	const u128 counters[] = {
		l->data_units_read,	l->data_units_written,	 l->host_read_commands,
		l->host_write_commands, l->controller_busy_time, l->power_cycles,
		l->power_on_hours,	l->unsafe_shutdowns,	 l->media_errors,
		l->num_err_log_entries,
	};
	const int64_t tail[] = {
		l->thm_temp1_trans_count,
		l->thm_temp2_trans_count,
		l->thm_temp1_total_time,
		l->thm_temp2_total_time,
	};
	int i = 1, rc;

	if ((rc = sqlite3_bind_int64(st, i++, v->device_id)) != SQLITE_OK ||
	    (rc = sqlite3_bind_int64(st, i++, v->ts_ms)) != SQLITE_OK ||
	    (rc = sqlite3_bind_int64(st, i++, l->critical_warning)) != SQLITE_OK ||
	    (rc = sqlite3_bind_int64(st, i++, l->temperature_k)) != SQLITE_OK ||
	    (rc = sqlite3_bind_int64(st, i++, l->avail_spare)) != SQLITE_OK ||
	    (rc = sqlite3_bind_int64(st, i++, l->spare_thresh)) != SQLITE_OK ||
	    (rc = sqlite3_bind_int64(st, i++, l->percent_used)) != SQLITE_OK ||
	    (rc = sqlite3_bind_int64(st, i++, l->endurance_grp_crit_warn)) != SQLITE_OK)
		return rc;
	for (size_t k = 0; k < sizeof(counters) / sizeof(counters[0]); k++)
		if ((rc = bind_u128(st, i++, counters[k])) != SQLITE_OK)
			return rc;
	if ((rc = sqlite3_bind_int64(st, i++, l->warning_temp_time)) != SQLITE_OK ||
	    (rc = sqlite3_bind_int64(st, i++, l->critical_temp_time)) != SQLITE_OK)
		return rc;
	for (size_t k = 0; k < SMART_NUM_SENSORS; k++)
		if ((rc = sqlite3_bind_int64(st, i++, l->temp_sensor_k[k])) != SQLITE_OK)
			return rc;
	for (size_t k = 0; k < sizeof(tail) / sizeof(tail[0]); k++)
		if ((rc = sqlite3_bind_int64(st, i++, tail[k])) != SQLITE_OK)
			return rc;
	return SQLITE_OK;
}

static int read_sample(struct store *s, sqlite3_stmt *st, void *ret)
{
	struct sample v = {0};
	struct smart_log *l = &v.smart;
	u128 *counters[] = {
		&l->data_units_read,	 &l->data_units_written,   &l->host_read_commands,
		&l->host_write_commands, &l->controller_busy_time, &l->power_cycles,
		&l->power_on_hours,	 &l->unsafe_shutdowns,	   &l->media_errors,
		&l->num_err_log_entries,
	};
	uint32_t *tail[] = {
		&l->thm_temp1_trans_count,
		&l->thm_temp2_trans_count,
		&l->thm_temp1_total_time,
		&l->thm_temp2_total_time,
	};
	uint64_t x;
	int i = 0, r;

	if (sqlite3_column_count(st) != SAMPLE_NCOLS)
		return store_failf(s, -EPROTO, "samples: unexpected column count");
	v.device_id = sqlite3_column_int64(st, i++);
	v.ts_ms = sqlite3_column_int64(st, i++);
	if ((r = column_uint(s, st, i++, UINT8_MAX, &x)) < 0)
		return r;
	l->critical_warning = (uint8_t)x;
	if ((r = column_uint(s, st, i++, UINT16_MAX, &x)) < 0)
		return r;
	l->temperature_k = (uint16_t)x;
	if ((r = column_uint(s, st, i++, UINT8_MAX, &x)) < 0)
		return r;
	l->avail_spare = (uint8_t)x;
	if ((r = column_uint(s, st, i++, UINT8_MAX, &x)) < 0)
		return r;
	l->spare_thresh = (uint8_t)x;
	if ((r = column_uint(s, st, i++, UINT8_MAX, &x)) < 0)
		return r;
	l->percent_used = (uint8_t)x;
	if ((r = column_uint(s, st, i++, UINT8_MAX, &x)) < 0)
		return r;
	l->endurance_grp_crit_warn = (uint8_t)x;
	for (size_t k = 0; k < sizeof(counters) / sizeof(counters[0]); k++)
		if ((r = column_u128(s, st, i++, counters[k])) < 0)
			return r;
	r = column_uint(s, st, i++, UINT32_MAX, &x);
	if (r < 0)
		return r;
	l->warning_temp_time = (uint32_t)x;
	r = column_uint(s, st, i++, UINT32_MAX, &x);
	if (r < 0)
		return r;
	l->critical_temp_time = (uint32_t)x;
	for (size_t k = 0; k < SMART_NUM_SENSORS; k++) {
		r = column_uint(s, st, i++, UINT16_MAX, &x);
		if (r < 0)
			return r;
		l->temp_sensor_k[k] = (uint16_t)x;
	}
	for (size_t k = 0; k < sizeof(tail) / sizeof(tail[0]); k++) {
		r = column_uint(s, st, i++, UINT32_MAX, &x);
		if (r < 0)
			return r;
		*tail[k] = (uint32_t)x;
	}
	*(struct sample *)ret = v;
	return 0;
}

int store_samples_insert(struct store *s, const struct sample *v, size_t n)
{
	sqlite3_stmt *st = s->stmt[ST_SAMPLE_INSERT];
	int rc, r;

	if (n == 0)
		return 0;

	r = store_exec(s, ST_BEGIN);
	if (r < 0)
		return r;

	for (size_t i = 0; i < n; i++) {
		rc = bind_sample(st, &v[i]);
		if (rc == SQLITE_OK)
			rc = sqlite3_step(st);
		if (rc != SQLITE_DONE) {
			r = store_fail(s, rc, "inserting samples");
			stmt_done(st);
			goto fail;
		}
		stmt_done(st);
	}

	r = store_exec(s, ST_COMMIT);
	if (r < 0)
		goto fail;
	return 0;

fail:
	store_rollback(s);
	return r;
}

int store_samples_range(struct store *s, int64_t device_id, int64_t from_ms, int64_t to_ms,
			size_t limit, struct sample **ret, size_t *ret_n)
{
	sqlite3_stmt *st = s->stmt[ST_SAMPLES_RANGE];
	int rc, r;

	rc = bind_int64(st, ":device_id", device_id);
	if (rc == SQLITE_OK)
		rc = bind_int64(st, ":from_ms", from_ms);
	if (rc == SQLITE_OK)
		rc = bind_int64(st, ":to_ms", to_ms);
	if (rc == SQLITE_OK)
		rc = bind_int64(st, ":limit", limit > INT64_MAX ? INT64_MAX : (int64_t)limit);
	if (rc != SQLITE_OK) {
		r = store_fail(s, rc, "reading samples");
		stmt_done(st);
		return r;
	}
	r = store_collect(s, st, sizeof(**ret), read_sample, (void **)ret, ret_n);
	sqlite3_clear_bindings(st);
	return r;
}

int store_sample_latest(struct store *s, int64_t device_id, struct sample *ret)
{
	sqlite3_stmt *st = s->stmt[ST_SAMPLE_LATEST];
	int rc, r;

	rc = bind_int64(st, ":device_id", device_id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		r = read_sample(s, st, ret);
	else if (rc == SQLITE_DONE)
		r = store_failf(s, -ENOENT, "device %" PRId64 " has no samples", device_id);
	else
		r = store_fail(s, rc, "reading the latest sample");
	stmt_done(st);
	return r;
}

int store_checkpoint(struct store *s)
{
	int rc = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);

	if (rc != SQLITE_OK)
		return store_fail(s, rc, "checkpointing the WAL");
	return 0;
}
