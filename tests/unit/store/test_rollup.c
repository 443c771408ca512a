/* SPDX-License-Identifier: MIT */
/* Rollups against a real SQLite file: building, values, reading across resolutions, pruning. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvmond/store/store.h"
#include "nvmond/store/store_rollup.h"

#define S    1000LL
#define MIN  (60 * S)
#define HOUR (60 * MIN)
#define DAY  (24 * HOUR)
#define T0   (1764460800000LL) /* an hour boundary */

static char dir[] = "/tmp/nvmond-test-rollup-XXXXXX";
static char path[300];
static struct store *st;
static int64_t dev[2];

static void setup(void)
{
	char err[STORE_ERR_MAX];

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.db", dir);
	cr_assert_eq(store_open(path, &st, err), 0, "%s", err);
	for (int i = 0; i < 2; i++) {
		struct device_row row = {.first_seen_ms = T0, .last_seen_ms = T0};

		snprintf(row.key, sizeof(row.key), "m/s%d", i);
		snprintf(row.model, sizeof(row.model), "m");
		snprintf(row.serial, sizeof(row.serial), "s%d", i);
		snprintf(row.namespaces, sizeof(row.namespaces), "[]");
		cr_assert_eq(store_device_upsert(st, &row, &dev[i]), 0);
	}
}

static void teardown(void)
{
	char p[400];

	store_close(st);
	for (const char *sfx = ""; sfx; sfx = !*sfx ? "-wal" : sfx[1] == 'w' ? "-shm" : NULL) {
		snprintf(p, sizeof(p), "%s%s", path, sfx);
		unlink(p);
	}
	rmdir(dir);
}

TestSuite(rollup, .init = setup, .fini = teardown);

/* Samples every 10 s over [from, to): device 0 at 300 + minute-of-hour K, device 1 cool. */
static void insert(int64_t from, int64_t to)
{
	size_t cap = (size_t)((to - from) / (10 * S)) * 2, n = 0;
	struct sample *v = calloc(cap, sizeof(*v));

	for (int64_t t = from; t < to; t += 10 * S)
		for (int d = 0; d < 2; d++) {
			struct sample *s = &v[n++];

			s->device_id = dev[d];
			s->ts_ms = t;
			s->smart.temperature_k = d ? 300 : (uint16_t)(300 + (t / MIN) % 60);
			s->smart.temp_sensor_k[0] = d ? 0 : (uint16_t)(310 + (t / (10 * S)) % 6);
			s->smart.data_units_written = (u128)((t - T0) / S);
			s->smart.percent_used = 3;
			s->smart.critical_warning = (t - T0) == 25 * MIN ? 0x2 : 0;
			s->smart.thm_temp1_trans_count = (uint32_t)((t - T0) / HOUR);
		}
	cr_assert_eq(store_samples_insert(st, v, n), 0);
	free(v);
}

static void run_all(const struct store_rollup_cfg *c, int64_t now)
{
	bool more = true;
	int steps = 0;

	while (more) {
		cr_assert_eq(store_rollup_step(st, c, now, &more), 0, "%s",
			     store_rollup_errmsg(st));
		cr_assert_lt(++steps, 1000);
	}
}

static const struct store_rollup_cfg keep_all = {
	.keep_raw_ms = 30 * DAY, .keep_1m_ms = 90 * DAY, .grace_ms = 5 * MIN};

Test(rollup, one_minute_values)
{
	struct series_row *v;
	size_t n;
	int64_t done;

	insert(T0, T0 + 3 * HOUR);
	run_all(&keep_all, T0 + 3 * HOUR);
	cr_assert_eq(store_rollup_done(st, 60, &done), 0);
	cr_assert_eq(done, T0 + 3 * HOUR - 5 * MIN, "grace: recent buckets wait");
	cr_assert_eq(store_rollup_done(st, 3600, &done), 0);
	cr_assert_eq(done, T0 + 2 * HOUR);

	/* Only rollups inside [T0, T0 + 1h) at 1-minute resolution. */
	cr_assert_eq(store_rollup_read(st, dev[0], 60, T0, T0 + HOUR - 1, &v, &n), 0);
	cr_assert_eq(n, 60);
	cr_assert_eq(v[7].ts_ms, T0 + 7 * MIN);
	cr_assert_eq(v[7].n, 6);
	cr_assert_eq(v[7].temp_min_k, 307);
	cr_assert_eq(v[7].temp_max_k, 307);
	cr_assert_eq(v[7].s_min_k[0], 310);
	cr_assert_eq(v[7].s_max_k[0], 315);
	cr_assert_float_eq(v[7].s_avg_k[0], 312.5, 1e-9);
	cr_assert_eq(v[7].s_n[1], 0, "sensor 2 never reported");
	cr_assert(v[7].data_units_written == (u128)(7 * 60 + 50), "last counter of the minute");
	cr_assert_eq(v[7].last_ts_ms, T0 + 7 * MIN + 50 * S);
	cr_assert_eq(v[25].critical_warning, 0x2);
	cr_assert_eq(v[26].critical_warning, 0);
	free(v);

	/* 1-hour rows from 1-minute rows. */
	cr_assert_eq(store_rollup_read(st, dev[0], 3600, T0, T0 + 2 * HOUR - 1, &v, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(v[0].n, 360);
	cr_assert_eq(v[0].temp_min_k, 300);
	cr_assert_eq(v[0].temp_max_k, 359);
	cr_assert_float_eq(v[0].temp_avg_k, 329.5, 1e-9);
	cr_assert_eq(v[0].critical_warning, 0x2);
	cr_assert(v[1].data_units_written == (u128)(2 * 3600 - 10));
	cr_assert_eq(v[1].thm_count[0], 1);
	free(v);
}

Test(rollup, read_fills_the_tail_from_finer_rows)
{
	struct series_row *v;
	size_t n;

	insert(T0, T0 + 3 * HOUR);
	run_all(&keep_all, T0 + 3 * HOUR);
	/* 1 h rows up to T0+2h, 1 min rows up to T0+2h55, then raw samples. */
	cr_assert_eq(store_rollup_read(st, dev[1], 3600, T0, T0 + 3 * HOUR, &v, &n), 0);
	cr_assert_eq(n, 2 + 55 + 30);
	cr_assert_eq(v[1].ts_ms, T0 + HOUR);
	cr_assert_eq(v[2].ts_ms, T0 + 2 * HOUR);
	cr_assert_eq(v[2].n, 6);
	cr_assert_eq(v[57].ts_ms, T0 + 2 * HOUR + 55 * MIN);
	cr_assert_eq(v[57].n, 1);
	for (size_t i = 1; i < n; i++)
		cr_assert_gt(v[i].ts_ms, v[i - 1].ts_ms, "in time order");
	free(v);
	cr_assert_eq(store_rollup_read(st, dev[1], 17, T0, T0, &v, &n), -EINVAL);
}

Test(rollup, prune_keeps_history_in_rollups)
{
	struct store_rollup_cfg c = {
		.keep_raw_ms = HOUR, .keep_1m_ms = 2 * HOUR, .grace_ms = 5 * MIN};
	struct sample *raw;
	struct series_row *v;
	size_t n;

	insert(T0, T0 + 6 * HOUR);
	run_all(&c, T0 + 6 * HOUR);
	/* Raw: only the last hour is left. */
	cr_assert_eq(store_samples_range(st, dev[0], 0, INT64_MAX, 100000, &raw, &n), 0);
	cr_assert_eq(raw[0].ts_ms, T0 + 5 * HOUR);
	free(raw);
	/* 1-minute rows: none before now - 2h. */
	cr_assert_eq(store_rollup_read(st, dev[0], 60, T0, T0 + 4 * HOUR - 1, &v, &n), 0);
	cr_assert_eq(n, 0);
	free(v);
	/* Hourly rows still cover every hour. */
	cr_assert_eq(store_rollup_read(st, dev[0], 3600, T0, T0 + 6 * HOUR, &v, &n), 0);
	cr_assert_geq(n, 5);
	for (int h = 0; h < 5; h++) {
		cr_assert_eq(v[h].ts_ms, T0 + h * HOUR);
		cr_assert_eq(v[h].n, 360);
	}
	free(v);

	/* Resumes after a restart: more samples, same database, rows appear. */
	store_close(st);
	char err[STORE_ERR_MAX];
	cr_assert_eq(store_open(path, &st, err), 0);
	insert(T0 + 6 * HOUR, T0 + 8 * HOUR);
	run_all(&c, T0 + 8 * HOUR);
	cr_assert_eq(store_rollup_read(st, dev[0], 3600, T0, T0 + 7 * HOUR - 1, &v, &n), 0);
	cr_assert_eq(n, 7);
	cr_assert_eq(v[6].n, 360);
	free(v);
}
