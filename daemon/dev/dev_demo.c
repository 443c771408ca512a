/* SPDX-License-Identifier: MIT */
/*
 * Demo drives: two simulated controllers for machines without NVMe. Every value
 * is a closed-form function of wall-clock time, so the counters keep rising
 * across restarts and tests can ask for any moment.
 *
 * Drive 0 is a Samsung 950 PRO without airflow: its temperature swings with its
 * workload every five minutes, light-throttles (TMT1) at each peak and
 * heavy-throttles (TMT2) at every third. Drive 1 is a cool 980 PRO that never
 * throttles, with a Sensor 2 stuck above its WCTEMP (as on a real drive whose
 * Sensor 2 reads 81.8 °C forever while WCTEMP is 74.8 °C): a note, not an
 * alert, and implausible once it has not moved for 6 h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/dev/dev.h"

#define DEMO_EPOCH_MS 1704067200000LL /* 2024-01-01T00:00:00Z: "power on" */
#define MB	      1000000.0

struct demo_drive {
	const char *model, *serial, *firmware;
	uint16_t wctemp_k, cctemp_k;
	uint64_t capacity;
	double rated_bytes; /* endurance, drives percent_used */
	/* workload: writes and reads oscillate between 0.3 and 1.7 × the mean rate */
	double write_bps, read_bps;
	double written0, read0; /* bytes already written / read at the epoch */
	/* temperature: base + amp × (1 - cos)/2 over each period; every Nth peak hotter */
	double period_s, base_c, amp_c, heavy_amp_c;
	int heavy_every;       /* 0 = never */
	double tmt1_c, tmt2_c; /* thermal management thresholds (0 = no throttling) */
	double sensor_off_c[2];
	uint16_t sensor2_stuck_k; /* Sensor 2 reads this, always; 0 = it follows the drive */
	/* Get Features 04h over-temperature thresholds of sensors 1-2 (FFFFh = unset) */
	uint16_t sensor_limit_k[2];
	uint32_t power_cycles0, unsafe_shutdowns, err_log_entries;
};

static const struct demo_drive demo_drives[] = {
	{
		.model = "Samsung SSD 950 PRO 512GB",
		.serial = "DEMO950PRO00001",
		.firmware = "2B0QBXX7",
		.wctemp_k = 343, /* 70 °C */
		.cctemp_k = 353, /* 80 °C */
		.capacity = 512110190592ULL,
		.rated_bytes = 400e12, /* 400 TBW */
		.write_bps = 2.0 * MB,
		.read_bps = 3.5 * MB,
		.written0 = 40e12,
		.read0 = 61e12,
		.period_s = 300,
		.base_c = 45,
		.amp_c = 26,	   /* peaks at 71 °C: above TMT1 and WCTEMP */
		.heavy_amp_c = 31, /* peaks at 76 °C: above TMT2 */
		.heavy_every = 3,
		.tmt1_c = 68,
		.tmt2_c = 73,
		.sensor_off_c = {+4, -3},
		.sensor_limit_k = {353, 0xffff}, /* sensor 1: 80 °C */
		.power_cycles0 = 212,
		.unsafe_shutdowns = 9,
		.err_log_entries = 14,
	},
	{
		.model = "Samsung SSD 980 PRO 1TB",
		.serial = "DEMO980PRO00002",
		.firmware = "5B2QGXA7",
		.wctemp_k = 355, /* 82 °C */
		.cctemp_k = 358, /* 85 °C */
		.capacity = 1000204886016ULL,
		.rated_bytes = 600e12,
		.write_bps = 1.0 * MB,
		.read_bps = 2.0 * MB,
		.written0 = 12e12,
		.read0 = 20e12,
		.period_s = 420,
		.base_c = 36,
		.amp_c = 9,
		.heavy_amp_c = 9,
		.heavy_every = 0,
		.tmt1_c = 0,
		.tmt2_c = 0,
		.sensor_off_c = {+6, -2},
		.sensor2_stuck_k = 357, /* 83.85 °C, WCTEMP 81.85 °C */
		.sensor_limit_k = {0xffff, 0xffff},
		.power_cycles0 = 41,
		.unsafe_shutdowns = 2,
		.err_log_entries = 0,
	},
};

#define N_DEMO (sizeof(demo_drives) / sizeof(demo_drives[0]))

/*
 * Bytes moved by a rate oscillating as mean × (1 - 0.7 cos(2πt/P)): busiest mid-
 * period, when the drive is hottest, and never idle, so the counters always move.
 */
static double oscillating_total(double mean_bps, double period_s, double t)
{
	return mean_bps * (t - 0.7 * period_s / (2 * M_PI) * sin(2 * M_PI * t / period_s));
}

static double amp_of_period(const struct demo_drive *d, int64_t k)
{
	return d->heavy_every && k % d->heavy_every == d->heavy_every - 1 ? d->heavy_amp_c
									  : d->amp_c;
}

/* Phase in [0, 0.5] at which base + amp × (1 - cos 2πφ)/2 reaches @x, or -1 if never. */
static double phase_reaching(double base, double amp, double x)
{
	double f = (x - base) / amp;
	if (f >= 1)
		return -1;
	if (f <= 0)
		return 0;
	return acos(1 - 2 * f) / (2 * M_PI);
}

/*
 * Time above @x (seconds) and number of upward crossings of @x from the epoch to
 * @t, summed period by period in closed form.
 */
static void above(const struct demo_drive *d, double x, double t, double *ret_secs,
		  uint64_t *ret_crossings)
{
	int64_t full = (int64_t)floor(t / d->period_s);
	double secs = 0, phase = t / d->period_s - (double)full;
	uint64_t crossings = 0;

	/* Each kind of period (normal, heavy) contributes per whole period. */
	for (int heavy = 0; heavy <= 1; heavy++) {
		double amp = heavy ? d->heavy_amp_c : d->amp_c;
		int64_t count = !d->heavy_every ? (heavy ? 0 : full)
				: heavy		? full / d->heavy_every
						: full - full / d->heavy_every;
		double p0 = phase_reaching(d->base_c, amp, x);
		if (p0 < 0 || count <= 0)
			continue;
		secs += (double)count * (1 - 2 * p0) * d->period_s;
		crossings += p0 > 0 ? (uint64_t)count : 0;
	}
	/* The period in progress. */
	double p0 = phase_reaching(d->base_c, amp_of_period(d, full), x);
	if (p0 >= 0 && phase > p0) {
		double end = 1 - p0;
		secs += ((phase < end ? phase : end) - p0) * d->period_s;
		crossings += p0 > 0;
	}
	*ret_secs = secs;
	*ret_crossings = crossings;
}

/* A small deterministic wobble (±0.6 °C) so charts do not look drawn with a ruler. */
static double wobble(int64_t sec, unsigned salt)
{
	uint64_t x = (uint64_t)sec * 0x9e3779b97f4a7c15ULL ^ salt;
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	return ((double)(x % 1201) / 1000.0) - 0.6;
}

static uint16_t kelvin(double c)
{
	return (uint16_t)lround(c + 273.15);
}

static void demo_state(const struct demo_drive *d, int64_t now_ms, struct smart_log *ret)
{
	double t = (double)(now_ms - DEMO_EPOCH_MS) / 1000.0;
	if (t < 0)
		t = 0;
	int64_t k = (int64_t)floor(t / d->period_s);
	double phase = t / d->period_s - (double)k;
	double temp = d->base_c + amp_of_period(d, k) * (1 - cos(2 * M_PI * phase)) / 2 +
		      wobble((int64_t)t, 0);
	double written = d->written0 + oscillating_total(d->write_bps, d->period_s, t);
	double read = d->read0 + oscillating_total(d->read_bps, d->period_s, t);
	double warn_s, crit_s, t1_s = 0, t2_s = 0;
	uint64_t crossings, t1_n = 0, t2_n = 0;
	double wc = d->wctemp_k - 273.15, cc = d->cctemp_k - 273.15;

	above(d, wc, t, &warn_s, &crossings);
	above(d, cc, t, &crit_s, &crossings);
	if (d->tmt1_c > 0) {
		above(d, d->tmt1_c, t, &t1_s, &t1_n);
		above(d, d->tmt2_c, t, &t2_s, &t2_n);
		t1_s -= t2_s; /* time in heavy throttling is not light-throttling time */
	}

	struct smart_log s = {
		.critical_warning = temp >= wc ? SMART_CRIT_TEMPERATURE : 0,
		.temperature_k = kelvin(temp),
		.avail_spare = 100,
		.spare_thresh = 10,
		.data_units_read = (u128)(read / BYTES_PER_UNIT),
		.data_units_written = (u128)(written / BYTES_PER_UNIT),
		.host_read_commands = (u128)(read / 65536),
		.host_write_commands = (u128)(written / 131072),
		.controller_busy_time = (u128)(t / 60 / 20),
		.power_cycles = d->power_cycles0 + (u128)(t / (7 * 86400)),
		.power_on_hours = 1200 + (u128)(t / 3600),
		.unsafe_shutdowns = d->unsafe_shutdowns,
		.num_err_log_entries = d->err_log_entries,
		.warning_temp_time = (uint32_t)(warn_s / 60),
		.critical_temp_time = (uint32_t)(crit_s / 60),
		.thm_temp1_trans_count = (uint32_t)t1_n,
		.thm_temp2_trans_count = (uint32_t)t2_n,
		.thm_temp1_total_time = (uint32_t)t1_s,
		.thm_temp2_total_time = (uint32_t)t2_s,
	};
	double used = written / d->rated_bytes * 100;
	s.percent_used = used > 255 ? 255 : (uint8_t)used;
	s.temp_sensor_k[0] = kelvin(temp + d->sensor_off_c[0] + wobble((int64_t)t, 1));
	s.temp_sensor_k[1] = d->sensor2_stuck_k
				     ? d->sensor2_stuck_k
				     : kelvin(temp + d->sensor_off_c[1] + wobble((int64_t)t, 2));
	*ret = s;
}

static int demo_scan(void *ctx, int64_t now_ms, struct dev_info **ret, size_t *ret_n)
{
	struct dev_info *v = calloc(N_DEMO, sizeof(*v));

	(void)ctx;
	(void)now_ms;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < N_DEMO; i++) {
		const struct demo_drive *d = &demo_drives[i];
		struct idctl id = {
			.vid = 0x144d,
			.wctemp_k = d->wctemp_k,
			.cctemp_k = d->cctemp_k,
			.tnvmcap = d->capacity,
			.nn = 1,
		};
		uint8_t page[IDCTL_SIZE];

		snprintf(id.serial, sizeof(id.serial), "%s", d->serial);
		snprintf(id.model, sizeof(id.model), "%s", d->model);
		snprintf(id.firmware, sizeof(id.firmware), "%s", d->firmware);
		/* Through the wire format, like a real controller's answer. */
		idctl_encode(&id, page);
		idctl_decode(page, &v[i].id);
		snprintf(v[i].name, sizeof(v[i].name), "demo%zu", i);
		snprintf(v[i].path, sizeof(v[i].path), "demo:%zu", i);
		v[i].n_ns = 1;
		v[i].ns[0] = (struct dev_ns){.nsid = 1, .size_bytes = d->capacity, .lba_size = 512};
		snprintf(v[i].ns[0].name, sizeof(v[i].ns[0].name), "demo%zun1", i);
	}
	*ret = v;
	*ret_n = N_DEMO;
	return 0;
}

static int demo_read_smart(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			   uint8_t ret_page[SMART_LOG_SIZE])
{
	(void)ctx;
	for (size_t i = 0; i < N_DEMO; i++) {
		char want[16];
		snprintf(want, sizeof(want), "demo%zu", i);
		if (strcmp(name, want) == 0) {
			if (who && (strcmp(who->serial, demo_drives[i].serial) != 0 ||
				    (who->model && who->model[0] &&
				     strcmp(who->model, demo_drives[i].model) != 0)))
				return -ESTALE;
			struct smart_log s;
			demo_state(&demo_drives[i], now_ms, &s);
			smart_encode(&s, ret_page);
			return 0;
		}
	}
	return -ENODEV;
}

static int demo_read_sensor_limits(void *ctx, const char *name, const struct dev_ident *who,
				   uint8_t sensors, uint16_t ret_k[SMART_NUM_SENSORS])
{
	(void)ctx;
	for (size_t i = 0; i < N_DEMO; i++) {
		char want[16];
		snprintf(want, sizeof(want), "demo%zu", i);
		if (strcmp(name, want) != 0)
			continue;
		if (who && strcmp(who->serial, demo_drives[i].serial) != 0)
			return -ESTALE;
		memset(ret_k, 0, SMART_NUM_SENSORS * sizeof(*ret_k));
		for (int k = 0; k < 2; k++)
			if (sensors & (1u << k))
				ret_k[k] = demo_drives[i].sensor_limit_k[k];
		return 0;
	}
	return -ENODEV;
}

static const struct dev_backend_ops demo_ops = {
	.name = "demo",
	.scan = demo_scan,
	.read_smart = demo_read_smart,
	.read_sensor_limits = demo_read_sensor_limits,
};

int dev_demo_open(struct dev_backend **ret)
{
	struct dev_backend *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	b->ops = &demo_ops;
	*ret = b;
	return 0;
}
