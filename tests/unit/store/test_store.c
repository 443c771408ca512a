/* SPDX-License-Identifier: MIT */
/*
 * The store against real SQLite files in a temporary directory. A second, raw
 * SQLite connection plays "another process" (locks, schema from the future,
 * values written by hand).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "nvmond/store/migrations.h"
#include "nvmond/store/store.h"
#include "nvmond/store/store_facts.h"
#include "nvmond/util/u128.h"

static char dir[] = "/tmp/nvmond-test-store-XXXXXX";
static char db_path[400];
static char mnt[300]; /* the tmpfs of the full-disk test, when mounted */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(db_path, sizeof(db_path), "%s/nvmond.db", dir);
}

static void teardown(void)
{
	if (mnt[0])
		umount2(mnt, MNT_DETACH);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(store, .init = setup, .fini = teardown);

/* ---- helpers ------------------------------------------------------------- */

static struct store *open_rw(void)
{
	char err[STORE_ERR_MAX] = "";
	struct store *s = NULL;
	int r = store_open(db_path, &s, err);

	cr_assert_eq(r, 0, "store_open: %d %s", r, err);
	cr_assert_not_null(s);
	return s;
}

static sqlite3 *raw_open(void)
{
	sqlite3 *db = NULL;

	cr_assert_eq(sqlite3_open(db_path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	return db;
}

static void raw_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);

	cr_assert_eq(rc, SQLITE_OK, "%s: %s", sql, msg ? msg : "");
}

/* First column of the first row, as int64. */
static int64_t raw_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v;

	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int64_t count_samples(void)
{
	sqlite3 *db = raw_open();
	int64_t n = raw_int(db, "SELECT count(*) FROM samples");

	sqlite3_close(db);
	return n;
}

static struct device_row make_device(const char *serial, int64_t now_ms)
{
	struct device_row d = {0};

	snprintf(d.model, sizeof(d.model), "ACME NVMe 2TB");
	snprintf(d.serial, sizeof(d.serial), "%s", serial);
	snprintf(d.key, sizeof(d.key), "%s/%s", d.model, d.serial);
	snprintf(d.firmware, sizeof(d.firmware), "1.0.0");
	snprintf(d.name, sizeof(d.name), "nvme0");
	snprintf(d.namespaces, sizeof(d.namespaces), "[{\"nsid\":1}]");
	d.wctemp_k = 343;
	d.cctemp_k = 353;
	d.capacity_bytes = (u128)2000398934016ull;
	d.first_seen_ms = now_ms;
	d.last_seen_ms = now_ms;
	d.online = 1;
	return d;
}

static int64_t add_device(struct store *s, const char *serial)
{
	struct device_row d = make_device(serial, 1000);
	int64_t id = -1;

	cr_assert_eq(store_device_upsert(s, &d, &id), 0, "%s", store_strerror(s));
	return id;
}

/* Every field different, derived from @seed, so a swapped column shows. */
static struct sample make_sample(int64_t dev, int64_t ts, unsigned seed)
{
	struct sample v = {.device_id = dev, .ts_ms = ts};
	struct smart_log *l = &v.smart;

	l->critical_warning = (uint8_t)(seed + 1);
	l->temperature_k = (uint16_t)(300 + seed);
	l->avail_spare = (uint8_t)(90 + seed % 10);
	l->spare_thresh = 10;
	l->percent_used = (uint8_t)(seed * 3);
	l->endurance_grp_crit_warn = (uint8_t)(seed % 2);
	l->data_units_read = (u128)seed * 1000 + 1;
	l->data_units_written = (u128)seed * 1000 + 2;
	l->host_read_commands = (u128)seed * 1000 + 3;
	l->host_write_commands = (u128)seed * 1000 + 4;
	l->controller_busy_time = (u128)seed * 1000 + 5;
	l->power_cycles = (u128)seed * 1000 + 6;
	l->power_on_hours = (u128)seed * 1000 + 7;
	l->unsafe_shutdowns = (u128)seed * 1000 + 8;
	l->media_errors = (u128)seed * 1000 + 9;
	l->num_err_log_entries = (u128)seed * 1000 + 10;
	l->warning_temp_time = 4000000000u - seed;
	l->critical_temp_time = 11 + seed;
	for (int i = 0; i < SMART_NUM_SENSORS; i++)
		l->temp_sensor_k[i] = (uint16_t)(310 + i + seed);
	l->thm_temp1_trans_count = 21 + seed;
	l->thm_temp2_trans_count = 22 + seed;
	l->thm_temp1_total_time = 23 + seed;
	l->thm_temp2_total_time = UINT32_MAX - seed;
	return v;
}

static void assert_u128_eq(u128 a, u128 b, const char *what)
{
	char x[U128_DEC_MAX], y[U128_DEC_MAX];

	cr_assert(a == b, "%s: %s != %s", what, u128_to_dec(a, x), u128_to_dec(b, y));
}

static void assert_sample_eq(const struct sample *a, const struct sample *b)
{
	const struct smart_log *x = &a->smart, *y = &b->smart;

	cr_assert_eq(a->device_id, b->device_id);
	cr_assert_eq(a->ts_ms, b->ts_ms);
	cr_assert_eq(x->critical_warning, y->critical_warning);
	cr_assert_eq(x->temperature_k, y->temperature_k);
	cr_assert_eq(x->avail_spare, y->avail_spare);
	cr_assert_eq(x->spare_thresh, y->spare_thresh);
	cr_assert_eq(x->percent_used, y->percent_used);
	cr_assert_eq(x->endurance_grp_crit_warn, y->endurance_grp_crit_warn);
	assert_u128_eq(x->data_units_read, y->data_units_read, "data_units_read");
	assert_u128_eq(x->data_units_written, y->data_units_written, "data_units_written");
	assert_u128_eq(x->host_read_commands, y->host_read_commands, "host_read_commands");
	assert_u128_eq(x->host_write_commands, y->host_write_commands, "host_write_commands");
	assert_u128_eq(x->controller_busy_time, y->controller_busy_time, "controller_busy_time");
	assert_u128_eq(x->power_cycles, y->power_cycles, "power_cycles");
	assert_u128_eq(x->power_on_hours, y->power_on_hours, "power_on_hours");
	assert_u128_eq(x->unsafe_shutdowns, y->unsafe_shutdowns, "unsafe_shutdowns");
	assert_u128_eq(x->media_errors, y->media_errors, "media_errors");
	assert_u128_eq(x->num_err_log_entries, y->num_err_log_entries, "num_err_log_entries");
	cr_assert_eq(x->warning_temp_time, y->warning_temp_time);
	cr_assert_eq(x->critical_temp_time, y->critical_temp_time);
	for (int i = 0; i < SMART_NUM_SENSORS; i++)
		cr_assert_eq(x->temp_sensor_k[i], y->temp_sensor_k[i], "sensor %d", i + 1);
	cr_assert_eq(x->thm_temp1_trans_count, y->thm_temp1_trans_count);
	cr_assert_eq(x->thm_temp2_trans_count, y->thm_temp2_trans_count);
	cr_assert_eq(x->thm_temp1_total_time, y->thm_temp1_total_time);
	cr_assert_eq(x->thm_temp2_total_time, y->thm_temp2_total_time);
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- schema -------------------------------------------------------------- */

Test(store, migrates_new_database)
{
	struct store *s = open_rw();

	cr_assert_gt(store_latest_version(), 0);
	cr_assert_eq(store_latest_version(), migrations[migrations_count - 1].version);
	cr_assert_eq(store_schema_version(s), store_latest_version());
	cr_assert_str_empty(store_strerror(s));
	store_close(s);

	sqlite3 *db = raw_open();
	cr_assert_eq(raw_int(db, "PRAGMA user_version"), store_latest_version());
	cr_assert_eq(raw_int(db, "SELECT count(*) FROM sqlite_schema WHERE name IN "
				 "('devices', 'samples')"),
		     2);
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

Test(store, reopen_is_idempotent_and_keeps_data)
{
	struct store *s = open_rw();
	int64_t id = add_device(s, "S1");
	struct sample v = make_sample(id, 5000, 1), got;

	cr_assert_eq(store_samples_insert(s, &v, 1), 0);
	store_close(s);

	for (int i = 0; i < 3; i++) {
		s = open_rw();
		cr_assert_eq(store_schema_version(s), store_latest_version());
		cr_assert_eq(store_sample_latest(s, id, &got), 0, "%s", store_strerror(s));
		assert_sample_eq(&got, &v);
		store_close(s);
	}
	cr_assert_eq(count_samples(), 1);
}

Test(store, refuses_newer_schema)
{
	char err[STORE_ERR_MAX] = "", sql[64], want[128];
	struct store *s = NULL;
	sqlite3 *db = raw_open();
	int newer = store_latest_version() + 1;

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", newer);
	raw_exec(db, sql);
	sqlite3_close(db);

	cr_assert_eq(store_open(db_path, &s, err), -EPROTO);
	cr_assert_null(s, "ret is written only on success");
	snprintf(want, sizeof(want), "database schema version %d is newer than this nvmond", newer);
	cr_assert_not_null(strstr(err, want), "message: %s", err);
	cr_assert_not_null(strstr(err, "upgrade nvmond"), "message: %s", err);

	err[0] = '\0';
	cr_assert_eq(store_open_readonly(db_path, &s, err), -EPROTO);
	cr_assert_null(s);
	cr_assert_not_null(strstr(err, want), "message: %s", err);

	/* Nothing was applied to it. */
	db = raw_open();
	cr_assert_eq(raw_int(db, "PRAGMA user_version"), newer);
	cr_assert_eq(raw_int(db, "SELECT count(*) FROM sqlite_schema"), 0);
	sqlite3_close(db);
}

/* The whole file at @path (NULL, 0 when there is none). */
static uint8_t *slurp(const char *path, size_t *ret_n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	*ret_n = 0;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*ret_n = (size_t)n;
	return buf;
}

/* Both opens refuse the database at db_path and leave its files byte for byte. */
static void assert_refused_untouched(int newer)
{
	char err[STORE_ERR_MAX], want[128], wal[420], shm[420];
	size_t n_db, n_wal, n;
	uint8_t *db = slurp(db_path, &n_db), *w, *now;
	struct store *s = NULL;
	struct stat st;
	bool had_shm;

	snprintf(wal, sizeof(wal), "%s-wal", db_path);
	snprintf(shm, sizeof(shm), "%s-shm", db_path);
	w = slurp(wal, &n_wal);
	had_shm = stat(shm, &st) == 0;
	snprintf(want, sizeof(want), "database schema version %d is newer than this nvmond", newer);

	for (int ro = 0; ro <= 1; ro++) {
		err[0] = '\0';
		cr_assert_eq(ro ? store_open_readonly(db_path, &s, err)
				: store_open(db_path, &s, err),
			     -EPROTO, "ro %d: %s", ro, err);
		cr_assert_null(s);
		cr_assert_not_null(strstr(err, want), "ro %d: %s", ro, err);
		cr_assert_not_null(strstr(err, "not opened"), "ro %d: %s", ro, err);
		now = slurp(db_path, &n);
		cr_assert(n == n_db && memcmp(now, db, n) == 0, "ro %d: the database changed", ro);
		free(now);
		now = slurp(wal, &n);
		cr_assert(n == n_wal && (!n || memcmp(now, w, n) == 0), "ro %d: the -wal changed",
			  ro);
		cr_assert_eq(!now, !w, "ro %d: a -wal file made or removed", ro);
		free(now);
		cr_assert_eq(stat(shm, &st) == 0, had_shm, "ro %d: an -shm file made or removed",
			     ro);
	}
	free(db);
	free(w);
}

/* Issue 25: a downgraded nvmond never opens the newer database (the bytes stay). */
Test(store, refuses_newer_schema_without_opening_it)
{
	int newer = store_latest_version() + 1;
	sqlite3 *db = raw_open();
	char sql[64];

	/* A rollback-journal file: a read-write open would have made it WAL. */
	raw_exec(db, "CREATE TABLE t (x)");
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", newer);
	raw_exec(db, sql);
	sqlite3_close(db);
	assert_refused_untouched(newer);
}

Test(store, refuses_newer_schema_in_the_wal_without_opening_it)
{
	int newer = store_latest_version() + 3;
	sqlite3 *db = raw_open();
	char sql[64], wal[420];
	struct stat st;

	/* As a newer nvmond killed before its checkpoint leaves it: the version in the -wal. */
	raw_exec(db, "PRAGMA journal_mode = WAL");
	raw_exec(db, "PRAGMA wal_autocheckpoint = 0");
	cr_assert_eq(sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL), SQLITE_OK);
	raw_exec(db, "CREATE TABLE t (x)");
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", newer);
	raw_exec(db, sql);
	sqlite3_close(db);
	snprintf(wal, sizeof(wal), "%s-wal", db_path);
	cr_assert_eq(stat(wal, &st), 0);
	assert_refused_untouched(newer);
}

Test(store, readonly_refuses_unmigrated_database)
{
	char err[STORE_ERR_MAX] = "";
	struct store *s = NULL;
	sqlite3 *db = raw_open();

	raw_exec(db, "CREATE TABLE unrelated (x)");
	sqlite3_close(db);

	cr_assert_eq(store_open_readonly(db_path, &s, err), -EPROTO);
	cr_assert_null(s);
	cr_assert_not_null(strstr(err, "older"), "message: %s", err);
}

Test(store, readonly_missing_file)
{
	char err[STORE_ERR_MAX] = "";
	struct store *s = NULL;
	int r = store_open_readonly(db_path, &s, err);

	cr_assert_lt(r, 0);
	cr_assert_null(s);
	cr_assert_not_null(strstr(err, db_path), "message names the file: %s", err);
	cr_assert_eq(access(db_path, F_OK), -1, "read-only open must not create the file");
}

Test(store, failed_migration_rolls_back)
{
	char err[STORE_ERR_MAX] = "";
	struct store *s = NULL;
	sqlite3 *db = raw_open();

	/* A clashing table makes 0001 fail half-way (after "devices"). */
	raw_exec(db, "CREATE TABLE samples (x)");
	sqlite3_close(db);

	int r = store_open(db_path, &s, err);
	cr_assert_lt(r, 0);
	cr_assert_null(s);
	cr_assert_not_null(strstr(err, migrations[0].name), "message names the file: %s", err);
	cr_assert_not_null(strstr(err, "samples"), "message has the SQLite error: %s", err);

	db = raw_open();
	cr_assert_eq(raw_int(db, "PRAGMA user_version"), 0);
	cr_assert_eq(raw_int(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'devices'"), 0,
		     "the part of the migration that ran was rolled back");
	sqlite3_close(db);
}

Test(store, open_error_names_the_path)
{
	char err[STORE_ERR_MAX] = "", path[300];
	struct store *s = NULL;

	snprintf(path, sizeof(path), "%s/no/such/dir/x.db", dir);
	cr_assert_lt(store_open(path, &s, err), 0);
	cr_assert_null(s);
	cr_assert_not_null(strstr(err, path), "%s", err);
}

Test(store, close_and_strerror_accept_null)
{
	cr_assert_null(store_close(NULL));
	cr_assert_not_null(store_strerror(NULL));
}

/* ---- devices ------------------------------------------------------------- */

Test(store, upsert_keeps_id_and_first_seen)
{
	struct store *s = open_rw();
	struct device_row a = make_device("SA", 1000), b = make_device("SB", 1500), got;
	int64_t ida = 0, idb = 0, again = 0;

	cr_assert_eq(store_device_upsert(s, &a, &ida), 0, "%s", store_strerror(s));
	cr_assert_eq(store_device_upsert(s, &b, &idb), 0);
	cr_assert_neq(ida, idb);

	/* Seen again later, with new firmware, another name and a later "first_seen". */
	a.first_seen_ms = 9000;
	a.last_seen_ms = 9000;
	snprintf(a.firmware, sizeof(a.firmware), "2.0.1");
	snprintf(a.name, sizeof(a.name), "nvme3");
	snprintf(a.namespaces, sizeof(a.namespaces), "[]");
	a.capacity_bytes = U128_MAX;
	a.online = 0;
	cr_assert_eq(store_device_upsert(s, &a, &again), 0);
	cr_assert_eq(again, ida);

	cr_assert_eq(store_device_get(s, ida, &got), 0, "%s", store_strerror(s));
	cr_assert_eq(got.id, ida);
	cr_assert_str_eq(got.key, a.key);
	cr_assert_str_eq(got.model, a.model);
	cr_assert_str_eq(got.serial, "SA");
	cr_assert_str_eq(got.firmware, "2.0.1");
	cr_assert_str_eq(got.name, "nvme3");
	cr_assert_str_eq(got.namespaces, "[]");
	cr_assert_eq(got.wctemp_k, 343);
	cr_assert_eq(got.cctemp_k, 353);
	assert_u128_eq(got.capacity_bytes, U128_MAX, "capacity_bytes");
	cr_assert_eq(got.first_seen_ms, 1000, "first_seen is kept");
	cr_assert_eq(got.last_seen_ms, 9000);
	cr_assert_eq(got.online, 0);

	struct device_row *list = NULL;
	size_t n = 0;
	cr_assert_eq(store_devices_list(s, &list, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_lt(list[0].id, list[1].id);
	cr_assert_str_eq(list[0].serial, "SA");
	cr_assert_str_eq(list[1].serial, "SB");
	cr_assert_str_eq(list[1].namespaces, "[{\"nsid\":1}]");
	cr_assert_eq(list[1].first_seen_ms, 1500);
	free(list);
	store_close(s);
}

Test(store, set_online_and_unknown_ids)
{
	struct store *s = open_rw();
	int64_t id = add_device(s, "S1");
	struct device_row got;

	cr_assert_eq(store_device_set_online(s, id, 0, 7000), 0);
	cr_assert_eq(store_device_get(s, id, &got), 0);
	cr_assert_eq(got.online, 0);
	cr_assert_eq(got.last_seen_ms, 1000, "going offline does not move last_seen");

	cr_assert_eq(store_device_set_online(s, id, 1, 8000), 0);
	cr_assert_eq(store_device_get(s, id, &got), 0);
	cr_assert_eq(got.online, 1);
	cr_assert_eq(got.last_seen_ms, 8000);

	cr_assert_eq(store_device_set_online(s, id + 100, 1, 8000), -ENOENT);
	cr_assert_eq(store_device_get(s, id + 100, &got), -ENOENT);
	cr_assert_str_not_empty(store_strerror(s));

	store_close(s);
}

Test(store, empty_device_list)
{
	struct store *s = open_rw();
	struct device_row *list = NULL;
	size_t n = 99;

	cr_assert_eq(store_devices_list(s, &list, &n), 0);
	cr_assert_eq(n, 0);
	free(list);
	store_close(s);
}

/* ---- 128-bit counters ---------------------------------------------------- */

Test(store, u128_counters_round_trip)
{
	const u128 two64 = (u128)1 << 64;
	static const char *const kinds[] = {"integer", "text"}; /* how it must be stored */
	const struct {
		u128 v;
		int kind;
	} table[] = {
		{0, 0},
		{1, 0},
		{(u128)INT64_MAX - 1, 0},
		{(u128)INT64_MAX, 0},
		{(u128)INT64_MAX + 1, 1},
		{(u128)INT64_MAX + 2, 1},
		{two64 - 1, 1},
		{two64, 1},
		{two64 + 1, 1},
		{U128_MAX / 2, 1},
		{U128_MAX - 1, 1},
		{U128_MAX, 1},
	};
	struct store *s = open_rw();
	int64_t id = add_device(s, "S1");
	sqlite3 *db;

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		struct sample v = make_sample(id, (int64_t)i, (unsigned)i), got;
		char dec[U128_DEC_MAX];

		/* Neighbours in other columns catch a swapped or shifted column. */
		v.smart.data_units_read = table[i].v;
		v.smart.num_err_log_entries = table[i].v;
		v.smart.media_errors = table[i].v ^ 1;
		cr_assert_eq(store_samples_insert(s, &v, 1), 0, "%s", store_strerror(s));
		cr_assert_eq(store_sample_latest(s, id, &got), 0, "%s", store_strerror(s));
		assert_sample_eq(&got, &v);

		db = raw_open();
		sqlite3_stmt *st;
		cr_assert_eq(sqlite3_prepare_v2(db,
						"SELECT typeof(data_units_read), "
						"CAST(data_units_read AS TEXT) FROM samples "
						"WHERE ts_ms = ?1",
						-1, &st, NULL),
			     SQLITE_OK);
		sqlite3_bind_int64(st, 1, (int64_t)i);
		cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
		cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), kinds[table[i].kind],
				 "value %s", u128_to_dec(table[i].v, dec));
		cr_assert_str_eq((const char *)sqlite3_column_text(st, 1),
				 u128_to_dec(table[i].v, dec), "stored exactly");
		sqlite3_finalize(st);
		sqlite3_close(db);
	}
	store_close(s);
}

Test(store, counters_accept_text_and_reject_garbage)
{
	struct store *s = open_rw();
	int64_t id = add_device(s, "S1");
	struct sample v = make_sample(id, 1000, 1), got;
	sqlite3 *db;

	cr_assert_eq(store_samples_insert(s, &v, 1), 0);

	db = raw_open();
	raw_exec(db, "UPDATE samples SET media_errors = '7', power_cycles = "
		     "'340282366920938463463374607431768211455'");
	sqlite3_close(db);
	cr_assert_eq(store_sample_latest(s, id, &got), 0, "%s", store_strerror(s));
	assert_u128_eq(got.smart.media_errors, 7, "small value as TEXT");
	assert_u128_eq(got.smart.power_cycles, U128_MAX, "U128_MAX as TEXT");

	const char *bad[] = {
		"UPDATE samples SET media_errors = 'abc'",
		"UPDATE samples SET media_errors = -1",
		"UPDATE samples SET media_errors = '340282366920938463463374607431768211456'",
		"UPDATE samples SET media_errors = 1.5",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		db = raw_open();
		raw_exec(db, bad[i]);
		sqlite3_close(db);
		cr_assert_eq(store_sample_latest(s, id, &got), -EIO, "%s", bad[i]);
		cr_assert_not_null(strstr(store_strerror(s), "media_errors"), "%s",
				   store_strerror(s));
	}

	/* Fixed-width columns are range-checked too. */
	db = raw_open();
	raw_exec(db, "UPDATE samples SET media_errors = 0, percent_used = 256");
	sqlite3_close(db);
	cr_assert_eq(store_sample_latest(s, id, &got), -EIO);
	cr_assert_not_null(strstr(store_strerror(s), "percent_used"));
	store_close(s);
}

/* ---- samples ------------------------------------------------------------- */

Test(store, range_bounds_limit_order)
{
	struct store *s = open_rw();
	int64_t a = add_device(s, "SA"), b = add_device(s, "SB");
	struct sample v[20], *got = NULL, one;
	size_t n = 0;

	/* Device a at 1000..10000 inserted out of order; device b interleaved. */
	for (int i = 0; i < 10; i++) {
		int k = (i * 7) % 10; /* a permutation of 0..9 */
		v[i] = make_sample(a, 1000 + 1000 * k, (unsigned)k);
		v[10 + i] = make_sample(b, 1500 + 1000 * i, 50 + (unsigned)i);
	}
	cr_assert_eq(store_samples_insert(s, v, 20), 0, "%s", store_strerror(s));

	cr_assert_eq(store_samples_range(s, a, 2000, 5000, 100, &got, &n), 0);
	cr_assert_eq(n, 4, "both bounds are inclusive");
	for (size_t i = 0; i < n; i++) {
		struct sample want = make_sample(a, 2000 + 1000 * (int64_t)i, 1 + (unsigned)i);
		assert_sample_eq(&got[i], &want);
	}
	free(got);

	cr_assert_eq(store_samples_range(s, a, 0, INT64_MAX, 3, &got, &n), 0);
	cr_assert_eq(n, 3, "limit");
	cr_assert_eq(got[0].ts_ms, 1000, "oldest first");
	cr_assert_eq(got[2].ts_ms, 3000);
	free(got);

	cr_assert_eq(store_samples_range(s, b, 0, INT64_MAX, 1000, &got, &n), 0);
	cr_assert_eq(n, 10, "only the device asked for");
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(got[i].device_id, b);
	free(got);

	got = (void *)1;
	cr_assert_eq(store_samples_range(s, a, 5001, 5999, 100, &got, &n), 0);
	cr_assert_eq(n, 0);
	cr_assert_null(got, "NULL when none");
	cr_assert_eq(store_samples_range(s, a, 9000, 1000, 100, &got, &n), 0);
	cr_assert_eq(n, 0);
	cr_assert_eq(store_samples_range(s, a, 0, INT64_MAX, 0, &got, &n), 0);
	cr_assert_eq(n, 0, "limit 0");

	cr_assert_eq(store_sample_latest(s, a, &one), 0);
	cr_assert_eq(one.ts_ms, 10000);
	cr_assert_eq(store_sample_latest(s, b, &one), 0);
	cr_assert_eq(one.ts_ms, 10500);
	int64_t c = add_device(s, "SC");
	cr_assert_eq(store_sample_latest(s, c, &one), -ENOENT);

	/* A large range grows the result array across several reallocs. */
	struct sample *many = calloc(1000, sizeof(*many));
	for (int i = 0; i < 1000; i++)
		many[i] = make_sample(c, 100000 + i, (unsigned)i);
	cr_assert_eq(store_samples_insert(s, many, 1000), 0);
	cr_assert_eq(store_samples_range(s, c, 0, INT64_MAX, SIZE_MAX, &got, &n), 0);
	cr_assert_eq(n, 1000);
	for (int i = 0; i < 1000; i++)
		assert_sample_eq(&got[i], &many[i]);
	free(got);
	free(many);
	store_close(s);
}

Test(store, duplicate_timestamps_are_ignored)
{
	struct store *s = open_rw();
	int64_t id = add_device(s, "S1");
	struct sample v = make_sample(id, 1000, 1), w = make_sample(id, 1000, 2), got;

	cr_assert_eq(store_samples_insert(s, &v, 1), 0);
	cr_assert_eq(store_samples_insert(s, &w, 1), 0, "a retried batch must not fail");
	cr_assert_eq(count_samples(), 1);
	cr_assert_eq(store_sample_latest(s, id, &got), 0);
	assert_sample_eq(&got, &v);
	cr_assert_eq(store_samples_insert(s, NULL, 0), 0);
	store_close(s);
}

Test(store, failing_batch_inserts_nothing)
{
	struct store *s = open_rw();
	int64_t id = add_device(s, "S1");
	struct sample v[5];

	for (int i = 0; i < 5; i++)
		v[i] = make_sample(id, 1000 * (i + 1), (unsigned)i);
	v[3].device_id = id + 999; /* no such device: the foreign key fails on row 4 */

	int r = store_samples_insert(s, v, 5);
	cr_assert_lt(r, 0);
	cr_assert_neq(r, -EBUSY);
	cr_assert_str_not_empty(store_strerror(s));
	cr_assert_eq(count_samples(), 0, "rows 1-3 were rolled back");

	/* The handle is usable afterwards (no transaction left open). */
	v[3].device_id = id;
	cr_assert_eq(store_samples_insert(s, v, 5), 0, "%s", store_strerror(s));
	cr_assert_eq(count_samples(), 5);
	store_close(s);
}

Test(store, locked_database_is_ebusy_and_all_or_nothing, .timeout = 30)
{
	struct store *s = open_rw();
	int64_t id = add_device(s, "S1");
	struct sample v[50];
	sqlite3 *other = raw_open();

	for (int i = 0; i < 50; i++)
		v[i] = make_sample(id, 1000 * (i + 1), (unsigned)i);

	raw_exec(other, "BEGIN EXCLUSIVE");
	int64_t t0 = mono_ms();
	int r = store_samples_insert(s, v, 50);
	int64_t waited = mono_ms() - t0;
	cr_assert_eq(r, -EBUSY, "got %d: %s", r, store_strerror(s));
	cr_assert_geq(waited, 1500, "waits for the busy timeout first (%lld ms)",
		      (long long)waited);
	cr_assert_not_null(strstr(store_strerror(s), "locked"), "%s", store_strerror(s));
	raw_exec(other, "COMMIT");
	cr_assert_eq(count_samples(), 0);

	/* Released: the same batch goes in whole. */
	cr_assert_eq(store_samples_insert(s, v, 50), 0, "%s", store_strerror(s));
	cr_assert_eq(count_samples(), 50);
	sqlite3_close(other);
	store_close(s);
}

Test(store, readonly_reads_while_writer_holds_the_lock)
{
	struct store *s = open_rw(), *ro = NULL;
	char err[STORE_ERR_MAX] = "";
	int64_t id = add_device(s, "S1");
	struct sample v = make_sample(id, 1000, 1), w = make_sample(id, 2000, 2), got;
	struct sample *list = NULL;
	size_t n = 0;

	cr_assert_eq(store_samples_insert(s, &v, 1), 0);
	cr_assert_eq(store_open_readonly(db_path, &ro, err), 0, "%s", err);
	cr_assert_eq(store_schema_version(ro), store_latest_version());

	/* Another writer holds the exclusive lock with an uncommitted row. */
	sqlite3 *other = raw_open();
	raw_exec(other, "BEGIN EXCLUSIVE");
	raw_exec(other, "UPDATE devices SET name = 'uncommitted'");

	int64_t t0 = mono_ms();
	cr_assert_eq(store_sample_latest(ro, id, &got), 0, "%s", store_strerror(ro));
	assert_sample_eq(&got, &v);
	struct device_row d;
	cr_assert_eq(store_device_get(ro, id, &d), 0);
	cr_assert_str_eq(d.name, "nvme0", "uncommitted data is not visible");
	cr_assert_lt(mono_ms() - t0, 1000, "readers do not wait for the writer");
	raw_exec(other, "ROLLBACK");
	sqlite3_close(other);

	/* The reader sees what the writer commits next. */
	cr_assert_eq(store_samples_insert(s, &w, 1), 0);
	cr_assert_eq(store_samples_range(ro, id, 0, INT64_MAX, 10, &list, &n), 0);
	cr_assert_eq(n, 2);
	assert_sample_eq(&list[1], &w);
	free(list);

	/* And cannot write. */
	int r = store_samples_insert(ro, &v, 1);
	cr_assert_lt(r, 0);
	cr_assert_str_not_empty(store_strerror(ro));

	cr_assert_eq(store_checkpoint(s), 0, "%s", store_strerror(s));
	store_close(ro);
	store_close(s);
}

Test(store, two_writers_migrate_and_insert)
{
	struct store *a = open_rw(), *b = open_rw();
	int64_t id = add_device(a, "S1"), id2 = 0;
	struct device_row d = make_device("S1", 1);
	struct sample v = make_sample(id, 1000, 1), w = make_sample(id, 2000, 2);

	cr_assert_eq(store_device_upsert(b, &d, &id2), 0);
	cr_assert_eq(id2, id);
	cr_assert_eq(store_samples_insert(a, &v, 1), 0);
	cr_assert_eq(store_samples_insert(b, &w, 1), 0);
	cr_assert_eq(count_samples(), 2);
	store_close(a);
	store_close(b);
}

/* ---- a full disk --------------------------------------------------------- */

/*
 * A tiny tmpfs in a private mount namespace of this test process (Criterion runs
 * each test in its own process): nothing leaks to the host. Skipped where mounting
 * is not permitted.
 */
Test(store, full_disk_is_enospc_and_recovers, .timeout = 60)
{
	char path[300], filler[320], err[STORE_ERR_MAX] = "";
	struct store *s = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s/tmpfs", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", path, "tmpfs", 0, "size=1m") < 0)
		cr_skip_test("cannot mount a tmpfs here: %s", strerror(errno));
	snprintf(mnt, sizeof(mnt), "%s", path);

	snprintf(db_path, sizeof(db_path), "%s/nvmond.db", mnt);
	snprintf(filler, sizeof(filler), "%s/filler", mnt);
	cr_assert_eq(store_open(db_path, &s, err), 0, "%s", err);
	int64_t id = add_device(s, "S1");

	/* Some data that must survive. */
	struct sample *v = calloc(2000, sizeof(*v));
	for (int i = 0; i < 2000; i++)
		v[i] = make_sample(id, 1000 * (i + 1), (unsigned)i);
	cr_assert_eq(store_samples_insert(s, v, 100), 0, "%s", store_strerror(s));
	cr_assert_eq(store_checkpoint(s), 0);

	/* Fill the rest of the file system. */
	static char block[4096];
	fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0);
	while (write(fd, block, sizeof(block)) == (ssize_t)sizeof(block))
		;
	cr_assert_eq(errno, ENOSPC);
	close(fd);

	int r = store_samples_insert(s, v + 100, 1900);
	cr_assert_eq(r, -ENOSPC, "got %d: %s", r, store_strerror(s));

	struct sample *got = NULL;
	size_t n = 0;
	cr_assert_eq(store_samples_range(s, id, 0, INT64_MAX, SIZE_MAX, &got, &n), 0, "%s",
		     store_strerror(s));
	cr_assert_eq(n, 100, "nothing lost, nothing half-inserted");
	free(got);

	/* Space again: the same handle stores the whole batch. */
	cr_assert_eq(unlink(filler), 0);
	cr_assert_eq(store_samples_insert(s, v + 100, 1900), 0, "%s", store_strerror(s));
	cr_assert_eq(store_samples_range(s, id, 0, INT64_MAX, SIZE_MAX, &got, &n), 0);
	cr_assert_eq(n, 2000);
	assert_sample_eq(&got[1999], &v[1999]);
	free(got);
	free(v);
	store_close(s);

	/* The file is sound. */
	sqlite3 *db = raw_open();
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* ---- firmware and link history (issue 11) -------------------------------- */

Test(store, firmware_history_baseline_then_changes_newest_first)
{
	struct store *s = open_rw();
	int64_t id = add_device(s, "FW1"), other = add_device(s, "FW2");
	struct store_fw_row last, *v = NULL;
	size_t n = 0;

	cr_expect_eq(store_fw_last(s, id, &last), -ENOENT, "nothing recorded yet");
	cr_assert_eq(store_fw_insert(s, &(struct store_fw_row){.device_id = id,
							       .ts_ms = 1000,
							       .new_rev = "7.2.22"}),
		     0, "%s", store_strerror(s));
	cr_assert_eq(store_fw_insert(s, &(struct store_fw_row){.device_id = id,
							       .ts_ms = 5000,
							       .old_rev = "7.2.22",
							       .new_rev = "7.2.23"}),
		     0);
	cr_assert_eq(store_fw_insert(s, &(struct store_fw_row){.device_id = other,
							       .ts_ms = 9000,
							       .new_rev = "X"}),
		     0);
	cr_assert_eq(store_fw_last(s, id, &last), 0);
	cr_expect_str_eq(last.old_rev, "7.2.22");
	cr_expect_str_eq(last.new_rev, "7.2.23");
	cr_expect_eq(last.ts_ms, 5000);
	cr_assert_eq(store_fw_list(s, id, 10, &v, &n), 0);
	cr_assert_eq(n, 2);
	cr_expect_str_eq(v[1].old_rev, "", "the baseline has no old revision (NULL)");
	cr_expect_str_eq(v[1].new_rev, "7.2.22");
	free(v);
	sqlite3 *db = raw_open();
	cr_expect_eq(raw_int(db, "SELECT count(*) FROM firmware_history WHERE old_rev IS NULL"), 2);
	sqlite3_close(db);
	store_close(s);
}

Test(store, link_history_at_a_time)
{
	struct store *s = open_rw();
	int64_t id = add_device(s, "LNK");
	struct store_link_row l, *v = NULL;
	size_t n = 0;

	cr_expect_eq(store_link_at(s, id, 5000, &l), -ENOENT);
	cr_assert_eq(store_link_insert(s, &(struct store_link_row){.device_id = id,
								   .ts_ms = 1000,
								   .link = {160, 4, 160, 4}}),
		     0, "%s", store_strerror(s));
	cr_assert_eq(store_link_insert(s, &(struct store_link_row){.device_id = id,
								   .ts_ms = 3000,
								   .link = {80, 2, 160, 4}}),
		     0);
	cr_expect_eq(store_link_at(s, id, 500, &l), -ENOENT, "before any row");
	cr_assert_eq(store_link_at(s, id, 2999, &l), 0);
	cr_expect_eq(l.link.cur_width, 4);
	cr_assert_eq(store_link_at(s, id, 3000, &l), 0);
	cr_expect_eq(l.link.cur_speed_dgts, 80);
	cr_expect_eq(l.link.cur_width, 2);
	cr_expect_eq(l.link.max_speed_dgts, 160);
	cr_expect_eq(l.link.max_width, 4);
	cr_assert_eq(store_link_list(s, id, 1, &v, &n), 0);
	cr_expect_eq(n, 1);
	cr_expect_eq(v[0].ts_ms, 3000, "newest first");
	free(v);
	store_close(s);
}

Test(store, sysfs_identity_keeps_what_identify_said)
{
	struct store *s = open_rw();
	struct device_row d = make_device("PART", 1000), got;
	int64_t id, id2;

	cr_assert_eq(store_device_upsert(s, &d, &id), 0);
	/* asleep or without privileges: the identity from sysfs knows no limits */
	d.wctemp_k = d.cctemp_k = 0;
	d.capacity_bytes = 0;
	d.firmware[0] = '\0';
	d.last_seen_ms = 2000;
	cr_assert_eq(store_device_upsert(s, &d, &id2), 0);
	cr_assert_eq(id2, id);
	cr_assert_eq(store_device_get(s, id, &got), 0);
	cr_expect_eq(got.wctemp_k, 343);
	cr_expect_eq(got.cctemp_k, 353);
	cr_expect(got.capacity_bytes == (u128)2000398934016ull);
	cr_expect_str_eq(got.firmware, "1.0.0");
	cr_expect_eq(got.last_seen_ms, 2000);
	/* a real new value still replaces the old one */
	snprintf(d.firmware, sizeof(d.firmware), "1.0.1");
	d.wctemp_k = 345;
	cr_assert_eq(store_device_upsert(s, &d, &id2), 0);
	cr_assert_eq(store_device_get(s, id, &got), 0);
	cr_expect_str_eq(got.firmware, "1.0.1");
	cr_expect_eq(got.wctemp_k, 345);
	store_close(s);
}

/*
 * Rule (SQLite, "How To Corrupt An SQLite Database File" §2.2): closing any
 * descriptor of a database file drops the POSIX locks the whole process holds
 * on it, while SQLite's own count of them says they are held. A connection
 * opened while another of this process is open must not peek at the file:
 * the daemon's API threads did at each read-only open, and another process
 * (nvmond probe) closing its connection then found no lock of the daemon's,
 * took itself for the last connection and checkpointed and removed the -wal
 * under it (readers then failed: "disk I/O error", probes were lost).
 */
Test(store, a_second_open_keeps_the_first_ones_locks)
{
	char err[STORE_ERR_MAX] = "", wal[420];
	struct store *rw = open_rw();
	sqlite3 *w = raw_open(); /* this process's writes, beside the daemon's handle */

	snprintf(wal, sizeof(wal), "%s-wal", db_path);
	raw_exec(w, "CREATE TABLE IF NOT EXISTS t_locks (x)");
	for (int i = 0; i < 20; i++) {
		struct store *ro = NULL;
		int status = -1;
		pid_t pid;

		cr_assert_eq(store_open_readonly(db_path, &ro, err), 0, "round %d: %s", i, err);
		/* Another program opens, writes and closes: never the last connection
		 * (exec'd: a forked child would share this process's SQLite state). */
		pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			execlp("sqlite3", "sqlite3", "-cmd", ".timeout 5000", db_path,
			       "INSERT INTO t_locks VALUES (1)", (char *)NULL);
			_exit(127);
		}
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "round %d: the child", i);
		cr_expect_eq(access(wal, F_OK), 0,
			     "round %d: the other process's close removed the -wal: this process's "
			     "locks were gone",
			     i);
		raw_exec(w, "INSERT INTO t_locks VALUES (2)");
		cr_expect_eq(store_schema_version(ro), store_latest_version(), "round %d: reads",
			     i);
		store_close(ro);
	}
	cr_expect_eq(raw_int(w, "SELECT count(*) FROM t_locks"), 40);
	sqlite3_close(w);
	store_close(rw);
}
