/* SPDX-License-Identifier: MIT */
/*
 * nvmond-histgen: fill a database with a long synthetic history, the way the
 * daemon would have left it: samples every INTERVAL for DRIVES drives over
 * DAYS days ending now, inserted a day at a time through the store API, with
 * the rollup builder and pruning run after each day as the daemon's timer would.
 *
 * Usage: nvmond-histgen DB [DAYS=365] [DRIVES=4] [INTERVAL_S=10] [KEEP_RAW_DAYS=7]
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvmond/store/store.h"
#include "nvmond/store/store_rollup.h"
#include "nvmond/util/timefmt.h"

#define MS_DAY (24 * 3600 * 1000LL)

/* A small deterministic generator: the history is the same on every run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static double rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

struct drive {
	int64_t id;
	u128 written, read;
	uint32_t thm1, thm1_s;
	double base_c;
};

static void make_sample(struct drive *d, int64_t ts, int64_t interval_ms, struct sample *ret)
{
	double day = fmod((double)ts / MS_DAY, 1.0);
	double c = d->base_c + 8 * sin(day * 2 * M_PI) + rnd() * 3;
	bool busy = fmod((double)ts / 3600000.0, 24.0) < 2; /* a nightly 2-hour backup */
	struct sample s = {.device_id = d->id, .ts_ms = ts};

	/* 512,000-byte data units: ~20 MB/s while busy, ~200 kB/s otherwise. */
	d->written += (u128)((busy ? 40.0 : 0.4) * (double)interval_ms / 1000 * (0.5 + rnd()));
	d->read += (u128)((busy ? 10.0 : 1.0) * (double)interval_ms / 1000 * rnd());
	if (c > d->base_c + 9 && rnd() < 0.01) {
		d->thm1++;
		d->thm1_s += 5;
	}
	s.smart.temperature_k = (uint16_t)(c + 273.15);
	s.smart.temp_sensor_k[0] = (uint16_t)(c + 273.15 + 4);
	s.smart.temp_sensor_k[1] = (uint16_t)(c + 273.15 - 3);
	s.smart.avail_spare = 100;
	s.smart.spare_thresh = 10;
	s.smart.percent_used = (uint8_t)(d->written / 20000000u);
	s.smart.data_units_written = d->written;
	s.smart.data_units_read = d->read;
	s.smart.power_on_hours = (u128)(ts / 3600000);
	s.smart.thm_temp1_trans_count = d->thm1;
	s.smart.thm_temp1_total_time = d->thm1_s;
	*ret = s;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : NULL;
	int days = argc > 2 ? atoi(argv[2]) : 365;
	int drives = argc > 3 ? atoi(argv[3]) : 4;
	int64_t interval_ms = (argc > 4 ? atoll(argv[4]) : 10) * 1000;
	int keep_raw_days = argc > 5 ? atoi(argv[5]) : 7;
	struct store_rollup_cfg rc = {
		.keep_raw_ms = keep_raw_days * MS_DAY,
		.keep_1m_ms = ROLLUP_KEEP_1M_MS,
		.grace_ms = ROLLUP_GRACE_MS,
	};
	char err[STORE_ERR_MAX];
	struct drive *dv;
	struct store *s;
	struct sample *buf;
	size_t per_day, total = 0;
	int64_t now = timefmt_now_ms(), start;
	int r;

	if (!path || days < 1 || drives < 1 || interval_ms < 1000) {
		fprintf(stderr, "usage: %s DB [DAYS] [DRIVES] [INTERVAL_S] [KEEP_RAW_DAYS]\n",
			argv[0]);
		return 2;
	}
	r = store_open(path, &s, err);
	if (r < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	start = now - days * MS_DAY;
	per_day = (size_t)(MS_DAY / interval_ms) * (size_t)drives;
	buf = calloc(per_day, sizeof(*buf));
	dv = calloc((size_t)drives, sizeof(*dv));
	if (!buf || !dv)
		return 1;
	for (int i = 0; i < drives; i++) {
		struct device_row row = {.wctemp_k = 343, .cctemp_k = 353, .online = 0};

		snprintf(row.model, sizeof(row.model), "Samsung SSD 980 PRO 1TB");
		snprintf(row.serial, sizeof(row.serial), "HISTGEN%04d", i);
		snprintf(row.firmware, sizeof(row.firmware), "5B2QGXA7");
		snprintf(row.key, sizeof(row.key), "%s/%s", row.model, row.serial);
		snprintf(row.name, sizeof(row.name), "nvme%d", i);
		snprintf(row.namespaces, sizeof(row.namespaces), "[]");
		row.capacity_bytes = (u128)1000204886016ULL;
		row.first_seen_ms = start;
		row.last_seen_ms = now;
		if (store_device_upsert(s, &row, &dv[i].id) < 0) {
			fprintf(stderr, "device: %s\n", store_strerror(s));
			return 1;
		}
		dv[i].base_c = 38 + 4 * i;
	}

	for (int64_t day = start; day < now; day += MS_DAY) {
		size_t n = 0;
		bool more = true;

		for (int64_t ts = day; ts < day + MS_DAY && ts < now; ts += interval_ms)
			for (int i = 0; i < drives; i++)
				make_sample(&dv[i], ts, interval_ms, &buf[n++]);
		if (store_samples_insert(s, buf, n) < 0) {
			fprintf(stderr, "insert: %s\n", store_strerror(s));
			return 1;
		}
		total += n;
		while (more) {
			int64_t sim_now = day + MS_DAY < now ? day + MS_DAY : now;

			r = store_rollup_step(s, &rc, sim_now, &more);
			if (r < 0) {
				fprintf(stderr, "rollup: %s\n", store_rollup_errmsg(s));
				return 1;
			}
		}
	}
	store_checkpoint(s);
	store_close(s);
	printf("%zu samples for %d drives over %d days generated into %s\n", total, drives, days,
	       path);
	free(buf);
	free(dv);
	return 0;
}
