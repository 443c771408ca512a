/* SPDX-License-Identifier: MIT */
/*
 * The demo drives' log C0h, Persistent Event Log and power states (issue 27):
 * pure functions of the drive and the time asked for, as the rest of the demo
 * (demo.h), so that the live drives and their demo year agree.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/demo/demo.h"
#include "nvmond/util/units.h"

/* Five states, as many client drives: three operational, two not. */
static const struct power_state_desc demo_psd[DEV_DEMO_NPSS + 1] = {
	{.max_uw = 8500000, .enlat_us = 0, .exlat_us = 0},
	{.max_uw = 7000000, .enlat_us = 0, .exlat_us = 200},
	{.max_uw = 5500000, .enlat_us = 0, .exlat_us = 1000},
	{.max_uw = 70000, .non_operational = true, .enlat_us = 210, .exlat_us = 1200},
	{.max_uw = 5000, .non_operational = true, .enlat_us = 2000, .exlat_us = 8000},
};

void dev_demo_psd(unsigned ps, struct power_state_desc *ret)
{
	*ret = ps <= DEV_DEMO_NPSS ? demo_psd[ps] : (struct power_state_desc){0};
}

static double since_epoch_days(int64_t now_ms)
{
	return now_ms > DEV_DEMO_EPOCH_MS ? (double)(now_ms - DEV_DEMO_EPOCH_MS) / MS_PER_DAY : 0;
}

void dev_demo_ocp(const struct dev_demo_drive *d, int64_t now_ms, struct ocp_log *ret)
{
	struct smart_log s;
	double days = since_epoch_days(now_ms);

	dev_demo_state(d, now_ms, &s);
	double host = (double)s.data_units_written * BYTES_PER_UNIT;
	double host_read = (double)s.data_units_read * BYTES_PER_UNIT;
	/* Write amplification from 1.1, growing smoothly with the share u of the rated
	 * endurance written: the physical bytes are the integral of 1.1 + 1.2 u over
	 * the host's, so the drive's life figure is 1.1 + 0.6 u and an interval's
	 * 1.1 + 1.2 u, without steps. */
	double u = d->rated_bytes > 0 ? host / d->rated_bytes : 0;
	double wa = 1.1 + 0.6 * u;
	uint64_t rises = d->ocp_unc_every_days ? (uint64_t)(days / d->ocp_unc_every_days) : 0;

	*ret = (struct ocp_log){
		.phys_written_bytes = (u128)(host * wa),
		.phys_read_bytes = (u128)(host_read * 1.02),
		.bad_user_blocks = 12 + rises,
		.bad_user_norm = 100,
		.bad_system_blocks = 1,
		.bad_system_norm = 100,
		.xor_recoveries = 3 * rises,
		.uncorrectable_reads = 3 * rises,
		.soft_ecc_errors = (uint64_t)(days * 4),
		.e2e_detected = 0,
		.e2e_corrected = 0,
		.system_data_used_pct = s.percent_used / 2,
		.throttle_events =
			(uint8_t)(s.thm_temp1_trans_count > 255 ? 255 : s.thm_temp1_trans_count),
		.throttle_status = s.temperature_k >= d->tmt2_k && d->tmt2_k   ? 2
				   : s.temperature_k >= d->tmt1_k && d->tmt1_k ? 1
									       : 0,
		.spec_major = 2,
		.spec_minor = 0,
		.pcie_correctable = (uint64_t)(days / 3),
		.incomplete_shutdowns = d->unsafe_shutdowns,
		.free_blocks_pct = (uint8_t)(30 - s.percent_used / 5),
		.capacitor_health = 100,
		.version = 3,
	};
}

int64_t dev_demo_unc_rise_after(const struct dev_demo_drive *d, int64_t from_ms)
{
	int64_t p = (int64_t)d->ocp_unc_every_days * MS_PER_DAY;

	if (!p || d->ocp != DEMO_OCP_YES)
		return 0;
	if (from_ms <= DEV_DEMO_EPOCH_MS)
		return DEV_DEMO_EPOCH_MS + p;
	int64_t k = (from_ms - DEV_DEMO_EPOCH_MS + p - 1) / p;
	return DEV_DEMO_EPOCH_MS + (k ? k : 1) * p;
}

int dev_demo_ocp_page(const struct dev_demo_drive *d, int64_t now_ms, uint8_t page[OCP_LOG_SIZE])
{
	struct ocp_log l;

	if (d->ocp == DEMO_OCP_REFUSED)
		return -EOPNOTSUPP;
	dev_demo_ocp(d, now_ms, &l);
	ocp_encode(&l, page);
	if (d->ocp == DEMO_OCP_VENDOR) /* a vendor's own page: its GUID is not OCP's */
		memcpy(page + OCP_LOG_SIZE - OCP_GUID_LEN, "DEMO-VENDOR-C0h!", OCP_GUID_LEN);
	return 0;
}

void dev_demo_power(const struct dev_demo_drive *d, int64_t now_ms, struct dev_power *ret)
{
	double t = now_ms > DEV_DEMO_EPOCH_MS ? (double)(now_ms - DEV_DEMO_EPOCH_MS) / 1000.0 : 0;
	/* The workload's phase (dev_demo_state()): busiest mid-period. */
	double load = 1 - 0.7 * cos(2 * M_PI * t / d->period_s);
	struct dev_power p = {.got = DEV_POWER_PM};
	uint8_t ps = load > 1.2 ? 0 : load > 0.6 ? 1 : 2;

	/* Resting with APST on, the drive is found in PS3 (it slept between commands). */
	if (d->apst && d->apst_on && load < 0.45)
		ps = 3;
	p.pm_dw0 = ps;
	if (d->apst) {
		struct apst a = {.enabled = d->apst_on};
		/* The kernel's table: PS0-2 go to PS3 after 100 ms idle, PS3 to PS4 after 2 s. */
		for (int i = 0; i <= 2; i++)
			a.e[i] = (struct apst_entry){.itps = 3, .itpt_ms = 100};
		a.e[3] = (struct apst_entry){.itps = 4, .itpt_ms = 2000};
		p.apst_dw0 = apst_encode(&a, p.apst_table);
		p.got |= DEV_POWER_APST;
	}
	if (d->hctm) {
		p.hctm_dw0 = (uint32_t)d->tmt1_k << 16 | d->tmt2_k;
		p.got |= DEV_POWER_HCTM;
	}
	*ret = p;
}

/* ---- the Persistent Event Log ------------------------------------------- */

/* The events as they are made, put in time order at the end (pel_build()). */
struct pel_rec {
	int64_t ms;
	uint32_t seq; /* equal times keep the order they were made in */
	uint8_t type;
	uint16_t len;
	uint8_t *data;
};

struct pel_buf {
	struct pel_rec *v;
	size_t n, cap;
};

static int add(struct pel_buf *b, uint8_t type, int64_t ms, const void *data, size_t len)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		struct pel_rec *nv = realloc(b->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		b->v = nv;
		b->cap = cap;
	}
	struct pel_rec *r = &b->v[b->n];
	*r = (struct pel_rec){.ms = ms, .seq = (uint32_t)b->n, .type = type, .len = (uint16_t)len};
	r->data = malloc(len ? len : 1);
	if (!r->data)
		return -ENOMEM;
	memcpy(r->data, data, len);
	b->n++;
	return 0;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct pel_rec *x = a, *y = b;

	if (x->ms != y->ms)
		return x->ms < y->ms ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void pel_buf_free(struct pel_buf *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->v[i].data);
	free(b->v);
}

/* The log: the header, then the events oldest first. */
static int pel_build(struct pel_buf *b, const struct dev_demo_drive *d, int64_t now_ms,
		     uint8_t **ret_log, size_t *ret_len)
{
	size_t len = PEL_HEADER_SIZE;

	qsort(b->v, b->n, sizeof(*b->v), rec_cmp);
	for (size_t i = 0; i < b->n; i++)
		len += PEL_EVENT_HEADER_SIZE + b->v[i].len;
	uint8_t *p = malloc(len);
	if (!p)
		return -ENOMEM;
	size_t at = PEL_HEADER_SIZE;
	for (size_t i = 0; i < b->n; i++)
		at += pel_event_put(p + at, len - at, b->v[i].type, pel_ts_raw(b->v[i].ms), 1, 0,
				    b->v[i].data, b->v[i].len);
	pel_header_put(p, (uint32_t)b->n, at, 1, pel_ts_raw(now_ms), d->serial, d->model);
	*ret_log = p;
	*ret_len = at;
	return 0;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void rev_put(uint8_t *p, const char *rev)
{
	size_t n = strnlen(rev, 8);

	memset(p, ' ', 8);
	memcpy(p, rev, n);
}

/* The revision before @rev: its last character one lower ("2B0QBXX7" → "2B0QBXX6"). */
static void rev_before(uint8_t *p, const char *rev)
{
	rev_put(p, rev);
	size_t n = strnlen(rev, 8);
	if (n && p[n - 1] > '0')
		p[n - 1]--;
}

/*
 * demo0's firmware update, long before any demo year. The log's events are at fixed
 * times from the drives' power-on (DEV_DEMO_EPOCH_MS), so each is stored once across
 * restarts; the demo year is placed before the first start, so demo1's update in that
 * year (demo_year_facts.c) cannot be in its log without moving it each day.
 */
#define FW_COMMIT_DAY 200

/* The events of week @w (its power cycle): power-on, timestamp, APST, snapshot. */
static int week_events(struct pel_buf *b, const struct dev_demo_drive *d, size_t index, int64_t w)
{
	int64_t t = DEV_DEMO_EPOCH_MS + w * MS_PER_WEEK + 6 * 3600 * 1000LL;
	uint8_t data[SMART_LOG_SIZE];
	struct smart_log s;
	int r;

	memset(data, 0, 8 + 36);
	/* demo0 ran the revision before its own until its update on day 200
	 * (dev_demo_pel()). */
	if (index == 0 && w * 7 <= FW_COMMIT_DAY)
		rev_before(data, d->firmware);
	else
		rev_put(data, d->firmware);
	put_le(data + 8, 1, 2);					   /* CNTLID */
	put_le(data + 8 + 16, d->power_cycles0 + (uint64_t)w, 4);  /* controller power cycle */
	put_le(data + 8 + 20, (uint64_t)(MS_PER_WEEK - 60000), 8); /* on the week before */
	put_le(data + 8 + 28, pel_ts_raw(t), 8);
	if ((r = add(b, PEL_POWER_ON_RESET, t, data, 8 + 36)) < 0)
		return r;
	/* The kernel sets the Timestamp and APST as it brings the controller up. */
	memset(data, 0, 16);
	put_le(data, (uint64_t)(t - 30000) & ((1ull << 48) - 1), 8); /* from a reset: origin 0 */
	put_le(data + 8, 1500, 8);
	if ((r = add(b, PEL_TIMESTAMP_CHANGE, t + 1500, data, 16)) < 0)
		return r;
	if (d->apst) {
		memset(data, 0, 12);
		put_le(data, 2, 4); /* two command dwords logged */
		put_le(data + 4, FEAT_APST, 4);
		put_le(data + 8, d->apst_on, 4);
		if ((r = add(b, PEL_SET_FEATURE, t + 1600, data, 12)) < 0)
			return r;
	}
	dev_demo_state(d, t + 2000, &s);
	smart_encode(&s, data);
	return add(b, PEL_SMART_SNAPSHOT, t + 2000, data, SMART_LOG_SIZE);
}

/*
 * The live drive's passes over TMT2 in [@from_ms, @to_ms]: the temperature of
 * demo_backend.c, base + amp × (1 - cos 2πφ)/2 over each period, reaches TMT2 only
 * in its hotter periods (every heavy_every-th), at phase p0 on the way up; each
 * such pass is a thermal excursion (over by the peak's excess), at the same
 * time whenever the log is built.
 */
static int excursions(struct pel_buf *b, const struct dev_demo_drive *d, int64_t from_ms,
		      int64_t to_ms)
{
	if (!d->heavy_every || d->tmt2_c <= 0 || d->heavy_amp_c <= 0 || d->period_s <= 0)
		return 0;
	double f = (d->tmt2_c - d->base_c) / d->heavy_amp_c;
	if (f >= 1)
		return 0;
	double p0 = f <= 0 ? 0 : acos(1 - 2 * f) / (2 * M_PI);
	int64_t per = (int64_t)(d->period_s * 1000);
	int64_t k = from_ms > DEV_DEMO_EPOCH_MS ? (from_ms - DEV_DEMO_EPOCH_MS) / per : 0;
	uint8_t data[4] = {(uint8_t)lround(d->base_c + d->heavy_amp_c - d->tmt2_c),
			   (uint8_t)lround(d->tmt2_c), 0, 0};
	int r = 0;

	for (; r == 0; k++) {
		int64_t t = DEV_DEMO_EPOCH_MS + k * per + (int64_t)(p0 * (double)per);
		if (t > to_ms)
			break;
		if (t >= from_ms && k % d->heavy_every == d->heavy_every - 1)
			r = add(b, PEL_THERMAL_EXCURSION, t, data, sizeof(data));
	}
	return r;
}

int dev_demo_pel(const struct dev_demo_drive *d, size_t index, int64_t now_ms, int64_t live_ms,
		 uint8_t **ret_log, size_t *ret_len)
{
	struct pel_buf b = {0};
	uint8_t data[64];
	int r = 0;

	if (!d->pel)
		return -EOPNOTSUPP;
	int64_t days = now_ms > DEV_DEMO_EPOCH_MS ? (now_ms - DEV_DEMO_EPOCH_MS) / MS_PER_DAY : -1;
	for (int64_t day = 0; r == 0 && day <= days; day++) {
		int64_t d0 = DEV_DEMO_EPOCH_MS + day * MS_PER_DAY;
		if (day % 7 == 0 && d0 + 6 * 3600 * 1000LL + 2000 <= now_ms)
			r = week_events(&b, d, index, day / 7);
		/* demo1's first days: a sanitize, a new namespace, a format; demo0's new
		 * firmware on day 200. */
		if (index == 1 && day == 1 && d0 + 10 * 3600 * 1000LL <= now_ms) {
			memset(data, 0, 12);
			put_le(data, 0x7, 4);	  /* SANICAP */
			put_le(data + 4, 0x4, 4); /* crypto erase */
			r = add(&b, PEL_SANITIZE_START, d0 + 9 * 3600 * 1000LL, data, 12);
			memset(data, 0, 8);
			put_le(data, 0xFFFF, 2);
			put_le(data + 2, 0x0101, 2); /* succeeded */
			if (r == 0)
				r = add(&b, PEL_SANITIZE_DONE, d0 + 10 * 3600 * 1000LL, data, 8);
		}
		if (index == 1 && day == 2 && d0 + 10 * 3600 * 1000LL <= now_ms) {
			memset(data, 0, 48);
			put_le(data + 8, d->capacity / 512, 8);
			put_le(data + 24, d->capacity / 512, 8);
			put_le(data + 44, 1, 4);
			r = add(&b, PEL_NS_CHANGE, d0 + 9 * 3600 * 1000LL, data, 48);
			memset(data, 0, 12);
			put_le(data, 1, 4);
			if (r == 0)
				r = add(&b, PEL_FORMAT_START, d0 + 9 * 3600 * 1000LL + 60000, data,
					12);
			data[4] = 100;
			if (r == 0)
				r = add(&b, PEL_FORMAT_DONE, d0 + 10 * 3600 * 1000LL, data, 12);
		}
		if (index == 0 && day == FW_COMMIT_DAY && d0 + 17 * 3600 * 1000LL <= now_ms) {
			memset(data, 0, 24);
			rev_before(data, d->firmware);
			rev_put(data + 8, d->firmware);
			data[16] = 3; /* activate now */
			data[17] = 1;
			r = add(&b, PEL_FW_COMMIT, d0 + 17 * 3600 * 1000LL, data, 24);
		}
		/* demo0's one hardware error, in its first month (long before any demo year). */
		if (r == 0 && index == 0 && day == 30 && d0 + 3 * 3600 * 1000LL <= now_ms) {
			memset(data, 0, 4);
			put_le(data, 0x0003, 2);
			r = add(&b, PEL_HW_ERROR, d0 + 3 * 3600 * 1000LL, data, 4);
		}
	}
	/* A drive that throttles: its excursions over TMT2 since DEV_DEMO_PEL_LIVE_BEFORE_MS
	 * before the live drive was first read (the demo year, placed before the first
	 * start, has its hot spells elsewhere: its excursions would be there, but not at
	 * the same times from one day's start to the next). */
	if (r == 0)
		r = excursions(&b, d, live_ms - DEV_DEMO_PEL_LIVE_BEFORE_MS, now_ms);
	if (r == 0)
		r = pel_build(&b, d, now_ms, ret_log, ret_len);
	pel_buf_free(&b);
	return r;
}
