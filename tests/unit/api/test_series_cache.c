/* SPDX-License-Identifier: MIT */
/*
 * The series cache answers exactly what SQLite answers (series_cache.h: "a
 * monitor that reports a wrong number is worse than none"): the same JSON,
 * byte for byte, for random ranges and steps over a real database with raw,
 * 1-minute and 1-hour rows, across the open tail and the retention edges, for a
 * device with sensors, one whose temperature is sometimes missing (kept out of
 * the cache), and one with no samples; again after more buckets close (the
 * cache extends), and after the file is replaced (it reads again).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvmond/analysis/series.h"
#include "nvmond/api/series_cache.h"
#include "nvmond/api/series_render.h"
#include "nvmond/store/store.h"
#include "nvmond/store/store_rollup.h"

#define S    1000LL
#define MIN  (60 * S)
#define HOUR (60 * MIN)
#define DAY  (24 * HOUR)
#define T0   (1764460800000LL) /* an hour boundary */

static char dir[] = "/tmp/nvmond-test-series-cache-XXXXXX";
static char path[300];
static struct store *st;
static int64_t dev[3];
static const struct store_rollup_cfg cfg = {
	.keep_raw_ms = 2 * DAY, .keep_1m_ms = 6 * DAY, .grace_ms = 5 * MIN};

static void open_store(void)
{
	char err[STORE_ERR_MAX];

	cr_assert_eq(store_open(path, &st, err), 0, "%s", err);
	for (int i = 0; i < 3; i++) {
		struct device_row row = {.first_seen_ms = T0, .last_seen_ms = T0};

		snprintf(row.key, sizeof(row.key), "m/s%d", i);
		snprintf(row.model, sizeof(row.model), "m");
		snprintf(row.serial, sizeof(row.serial), "s%d", i);
		snprintf(row.namespaces, sizeof(row.namespaces), "[]");
		cr_assert_eq(store_device_upsert(st, &row, &dev[i]), 0);
	}
}

static void remove_db(void)
{
	char p[400];

	for (const char *sfx = ""; sfx; sfx = !*sfx ? "-wal" : sfx[1] == 'w' ? "-shm" : NULL) {
		snprintf(p, sizeof(p), "%s%s", path, sfx);
		unlink(p);
	}
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/c.db", dir);
	open_store();
}

static void teardown(void)
{
	store_close(st);
	remove_db();
	rmdir(dir);
}

/* Samples every 60 s over [from, to) for devices 0 and 1 (@salt changes the values). */
static void insert(int64_t from, int64_t to, unsigned salt)
{
	size_t cap = (size_t)((to - from) / MIN) * 2, n = 0;
	struct sample *v = calloc(cap, sizeof(*v));

	cr_assert_not_null(v);
	for (int64_t t = from; t < to; t += MIN)
		for (int d = 0; d < 2; d++) {
			struct sample *s = &v[n++];
			uint64_t k = (uint64_t)((t - T0) / MIN) * 2654435761u + salt + (unsigned)d;

			s->device_id = dev[d];
			s->ts_ms = t;
			/* Device 1 misses its temperature now and then: not kept in the cache. */
			/* Each hour its own range, so that merged hours differ from any one. */
			uint64_t h = (uint64_t)((t - T0) / HOUR) * 7 + salt;
			s->smart.temperature_k =
				d && k % 97 == 0 ? 0 : (uint16_t)(300 + h % 23 + k % (1 + h % 5));
			if (!d) {
				s->smart.temp_sensor_k[0] = (uint16_t)(310 + h % 11 + k % 7);
				s->smart.temp_sensor_k[2] =
					(uint16_t)(330 + h % 13 + k % (1 + h % 3));
			}
			s->smart.data_units_written = (u128)((t - T0) / S) * (d + 1) + salt;
			s->smart.data_units_read = (u128)((t - T0) / S) * 3;
			s->smart.power_on_hours = (u128)((t - T0) / HOUR);
			s->smart.percent_used = (uint8_t)(3 + (t - T0) / (5 * DAY));
			s->smart.avail_spare = 100;
			s->smart.critical_warning = k % 1000 == 0 ? 0x2 : 0;
			s->smart.warning_temp_time = (uint32_t)((t - T0) / HOUR);
			s->smart.thm_temp1_trans_count = (uint32_t)((t - T0) / (7 * HOUR));
		}
	cr_assert_eq(store_samples_insert(st, v, n), 0);
	free(v);
}

static void rollups(int64_t now)
{
	bool more = true;
	int steps = 0;

	while (more) {
		cr_assert_eq(store_rollup_step(st, &cfg, now, &more), 0, "%s",
			     store_rollup_errmsg(st));
		cr_assert_lt(++steps, 10000);
	}
}

static char *answer(struct series_cache *c, int64_t id, const struct series_query *q)
{
	struct series_row *v = NULL;
	size_t n = 0, len;
	char *text;

	cr_assert_eq(series_cache_read(c, st, id, q, &v, &n), 0, "%s", store_rollup_errmsg(st));
	cr_assert_eq(series_render(id, q, v, n, &text, &len), 0);
	cr_assert_eq(strlen(text), len);
	free(v);
	return text;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(uint64_t mod)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % mod;
}

/* @rounds random queries over [lo, hi] at @now: cached == uncached, byte for byte. */
static size_t compare(struct series_cache *c, int64_t now, int64_t lo, int64_t hi, int rounds)
{
	size_t hourly = 0;

	for (int i = 0; i < rounds; i++) {
		int64_t a = lo + (int64_t)next((uint64_t)(hi - lo)),
			b = lo + (int64_t)next((uint64_t)(hi - lo));
		int64_t from = a < b ? a : b, to = a < b ? b : a;
		unsigned points = 0;
		int64_t step = 0;
		struct series_query q;

		if (i % 4 == 3)
			step = (int64_t)(1 + next(48)) * 30 * MIN; /* an explicit step */
		else
			points = (unsigned)(1 + next(3000));
		if (i % 5 == 0)
			from -= from % HOUR; /* on a bucket boundary */
		if (series_plan(from, to, points, step, now, cfg.keep_raw_ms, cfg.keep_1m_ms, &q) <
		    0)
			continue;
		hourly += q.res_s == SERIES_RES_1H;
		for (int d = 0; d < 3; d++) {
			char *want = answer(NULL, dev[d], &q), *got = answer(c, dev[d], &q);
			cr_assert_str_eq(got, want,
					 "device %d, from %" PRId64 " to %" PRId64 ", step %" PRId64
					 " ms, res %d s: the cache's answer differs",
					 d, q.from_ms, q.to_ms, q.step_ms, q.res_s);
			free(want);
			free(got);
		}
	}
	return hourly;
}

/* Hourly answers whose range begins around the last closed bucket: where the cache hands over to SQLite. */
static void compare_handover(struct series_cache *c, int64_t now)
{
	int64_t done = 0;

	cr_assert_eq(store_rollup_done(st, SERIES_RES_1H, &done), 0);
	cr_assert_gt(done, T0);
	for (int64_t from = done - 3 * HOUR; from <= done + HOUR && from <= now; from += 5 * MIN) {
		for (int64_t step = HOUR; step <= 2 * HOUR; step += HOUR) {
			struct series_query q;

			cr_assert_eq(series_plan(from, now, 0, step, now, cfg.keep_raw_ms,
						 cfg.keep_1m_ms, &q),
				     0);
			cr_assert_eq(q.res_s, SERIES_RES_1H);
			for (int d = 0; d < 3; d++) {
				char *want = answer(NULL, dev[d], &q), *got = answer(c, dev[d], &q);
				cr_assert_str_eq(got, want,
						 "device %d from %" PRId64 " (done %" PRId64
						 "), step %" PRId64,
						 d, from, done, step);
				free(want);
				free(got);
			}
		}
	}
}

Test(series_cache, answers_exactly_as_sqlite, .init = setup, .fini = teardown, .timeout = 300)
{
	struct series_cache *c = series_cache_new(SERIES_CACHE_MAX_BYTES);
	int64_t now = T0 + 12 * DAY + 17 * MIN;

	cr_assert_not_null(c);
	insert(T0, now, 0);
	rollups(now);
	size_t hourly = compare(c, now, T0 - DAY, now + DAY, 300);
	cr_expect_gt(hourly, 50, "the hourly resolution (the cached one) was asked %zu times",
		     hourly);
	cr_expect_gt(series_cache_bytes(c), 0, "device 0's closed hours are kept");
	compare_handover(c, now);

	/* More hours close: the cache extends, and still agrees. */
	int64_t later = now + 2 * DAY + 29 * MIN;
	insert(now, later, 0);
	rollups(later);
	compare(c, later, T0 - DAY, later + DAY, 200);
	/* The open tail, the last hours, in detail. */
	compare(c, later, later - 6 * HOUR, later + HOUR, 100);
	compare_handover(c, later);

	/* The file replaced by another (a restore): other values, the cache reads again. */
	store_close(st);
	remove_db();
	open_store();
	insert(T0, now, 7);
	rollups(now);
	compare(c, now, T0 - DAY, now + DAY, 200);
	series_cache_free(c);
}

/* A cache too small for one device: everything still answered, from SQLite. */
Test(series_cache, over_its_cap_answers_from_sqlite, .init = setup, .fini = teardown,
     .timeout = 300)
{
	struct series_cache *c = series_cache_new(4096);
	int64_t now = T0 + 10 * DAY;

	cr_assert_not_null(c);
	insert(T0, now, 3);
	rollups(now);
	compare(c, now, T0, now, 100);
	cr_expect_leq(series_cache_bytes(c), 4096);
	series_cache_free(c);
}
