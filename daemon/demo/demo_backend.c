/* SPDX-License-Identifier: MIT */
/*
 * The demo backend: simulated controllers for machines without NVMe (two by default,
 * up to DEV_DEMO_MAX; who they are: demo_drives.c). Every value is a
 * closed-form function of wall-clock time, so the counters keep rising across
 * restarts and tests can ask for any moment. The one state is what the drives
 * were told by Device Self-test commands (demo_selftest.c), behind a mutex.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/demo/demo.h"
#include "nvmond/dev/dev.h"
#include "nvmond/decode/sample.h"

#include "demo_selftest_internal.h"

/*
 * Bytes moved by a rate oscillating as mean × (1 - 0.7 cos(2πt/P)): busiest mid-
 * period, when the drive is hottest, and never idle, so the counters always move.
 */
static double oscillating_total(double mean_bps, double period_s, double t)
{
	return mean_bps * (t - 0.7 * period_s / (2 * M_PI) * sin(2 * M_PI * t / period_s));
}

static double amp_of_period(const struct dev_demo_drive *d, int64_t k)
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
static void above(const struct dev_demo_drive *d, double x, double t, double *ret_secs,
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

void dev_demo_state(const struct dev_demo_drive *d, int64_t now_ms, struct smart_log *ret)
{
	double t = (double)(now_ms - DEV_DEMO_EPOCH_MS) / 1000.0;
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
		.media_errors = d->media_errors,
		.num_err_log_entries = dev_demo_errors(d),
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

/*
 * The demo backend: @n drives, and what each was told by Device Self-test
 * commands (@st[i]), which the main loop and the self-test service's threads
 * may send and read at once: under @lock.
 */
struct demo_ctx {
	size_t n;
	pthread_mutex_t lock;
	struct demo_st_live *st;
	int64_t pel_live_ms; /* the first event log read (dev_demo_pel()); 0 = none yet */
};

/*
 * The drive under controller @name, after checking it is @who (the serial,
 * and the model unless empty). Return: 0 with its index and identity, -ENODEV
 * for no such drive, -ESTALE for another one.
 */
static int demo_lookup(const struct demo_ctx *c, const char *name, const struct dev_ident *who,
		       size_t *ret_i, struct dev_demo_drive *ret)
{
	struct dev_demo_drive d;

	if (!dev_demo_name_is(name))
		return -ENODEV;
	dev_demo_hang_wait(name); /* a test's hung controller: every command passes here */
	unsigned long i = strtoul(name + 4, NULL, 10);
	if (i >= c->n || (name[4] == '0' && name[5]) || dev_demo_drive(i, &d) < 0)
		return -ENODEV;
	if (who && (strcmp(who->serial, d.serial) != 0 ||
		    (who->model && who->model[0] && strcmp(who->model, d.model) != 0)))
		return -ESTALE;
	*ret_i = i;
	*ret = d;
	return 0;
}

static int demo_scan(void *ctx, int64_t now_ms, struct dev_info **ret, size_t *ret_n)
{
	const struct demo_ctx *c = ctx;
	struct dev_info *v = calloc(c->n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		struct dev_demo_drive d;
		uint8_t page[IDCTL_SIZE];

		(void)dev_demo_drive(i, &d);
		struct idctl id = {
			.vid = d.vid,
			.wctemp_k = d.wctemp_k,
			.cctemp_k = d.cctemp_k,
			.tnvmcap = d.capacity,
			.nn = 1,
			.oacs = d.no_selftest ? 0 : IDCTL_OACS_SELF_TEST,
			.elpe = 63, /* a 64-entry error log */
			.edstt = d.edstt_min,
			/* Issue 27: power states, APST, HCTM, the event log. */
			.npss = DEV_DEMO_NPSS,
			.apsta = d.apst ? IDCTL_APSTA_SUPPORTED : 0,
			.hctma = d.hctm ? IDCTL_HCTMA_SUPPORTED : 0,
			.mntmt = d.hctm ? 273 + 40 : 0,
			.mxtmt = d.hctm ? 273 + 85 : 0,
			.lpa = d.pel ? IDCTL_LPA_PEL | IDCTL_LPA_EXT_DATA : IDCTL_LPA_EXT_DATA,
			.pels = d.pel ? 16 : 0,
		};
		for (unsigned ps = 0; ps <= DEV_DEMO_NPSS; ps++)
			dev_demo_psd(ps, &id.ps[ps]);
		snprintf(id.serial, sizeof(id.serial), "%s", d.serial);
		snprintf(id.model, sizeof(id.model), "%s", d.model);
		snprintf(id.firmware, sizeof(id.firmware), "%s", d.firmware);
		/* Through the wire format, like a real controller's answer. */
		idctl_encode(&id, page);
		idctl_decode(page, &v[i].id);
		snprintf(v[i].name, sizeof(v[i].name), "demo%zu", i);
		snprintf(v[i].path, sizeof(v[i].path), "demo:%zu", i);
		v[i].n_ns = 1;
		v[i].ns[0] = (struct dev_ns){.nsid = 1, .size_bytes = d.capacity, .lba_size = 512};
		/* Issue 27: in use, a fifth of it plus a share of what was ever written. */
		struct smart_log s;
		dev_demo_state(&d, now_ms, &s);
		uint64_t blocks = d.capacity / 512, w = (uint64_t)s.data_units_written * 1000;
		v[i].ns[0].has_usage = true;
		v[i].ns[0].nsze = v[i].ns[0].ncap = blocks;
		v[i].ns[0].nuse = blocks / 5 + w / 50 % (blocks / 2);
		snprintf(v[i].ns[0].name, sizeof(v[i].ns[0].name), "demo%zun1", i);
		v[i].facts.link = d.link;
		v[i].facts.runtime = NVME_RUNTIME_ACTIVE;
		/* One read-only slot holding the running firmware, as many client drives have. */
		v[i].facts.has_fwlog = true;
		v[i].facts.fwlog.active_slot = 1;
		snprintf(v[i].facts.fwlog.frs[0], sizeof(v[i].facts.fwlog.frs[0]), "%s",
			 d.firmware);
	}
	*ret = v;
	*ret_n = c->n;
	return 0;
}

static int demo_read_smart(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			   uint8_t ret_page[SMART_LOG_SIZE])
{
	struct dev_demo_drive d;
	struct smart_log s;
	size_t i;
	int r = demo_lookup(ctx, name, who, &i, &d);

	if (r < 0)
		return r;
	dev_demo_state(&d, now_ms, &s);
	smart_encode(&s, ret_page);
	return 0;
}

uint64_t dev_demo_errors(const struct dev_demo_drive *d)
{
	uint64_t n = d->err_log_entries + d->media_errors;

	for (size_t m = 0; m < DEV_DEMO_ERR_MONTHS; m++)
		n += d->err_bursts[m];
	return n;
}

void dev_demo_error(const struct dev_demo_drive *d, uint64_t count, struct errlog_entry *ret)
{
	uint64_t media = d->err_log_entries + 1;

	for (size_t m = 0; m < DEV_DEMO_MEDIA_AFTER; m++)
		media += d->err_bursts[m];
	if (count == 0 || count > dev_demo_errors(d)) {
		*ret = (struct errlog_entry){0};
	} else if (count >= media && count < media + d->media_errors) {
		uint64_t k = count - media;
		*ret = (struct errlog_entry){
			.error_count = count,
			.sqid = 2,
			.cid = (uint16_t)(0x0140 + k),
			.sct = ERRLOG_SCT_MEDIA,
			.sc = 0x81, /* Unrecovered Read Error */
			.param_err_loc = ERRLOG_NA16,
			.lba = DEV_DEMO_MEDIA_LBA + 8 * k, /* one 4 KiB block after the other */
			.nsid = 1,
		};
	} else {
		*ret = (struct errlog_entry){
			.error_count = count,
			.cid = (uint16_t)(0x1000 + count),
			.sct = count % 3 ? ERRLOG_SCT_CMD_SPECIFIC : ERRLOG_SCT_GENERIC,
			.sc = count % 3 ? 0x09 : 0x02,
			.dnr = true,
			.param_err_loc = ERRLOG_NA16,
		};
	}
}

/*
 * The error log of a drive that tools have been pointed at (dev_demo_error()),
 * newest first, error counts dev_demo_errors() down to 1, then empty entries.
 */
static int demo_read_errlog(void *ctx, const char *name, const struct dev_ident *who,
			    int64_t now_ms, size_t n, bool ext_data, uint8_t *ret_page)
{
	uint8_t smart[SMART_LOG_SIZE];
	int r = demo_read_smart(ctx, name, who, now_ms, smart);

	(void)ext_data;
	if (r < 0)
		return r;
	struct dev_demo_drive d;
	if (dev_demo_drive(strtoul(name + 4, NULL, 10), &d) < 0)
		return -ENODEV;
	uint64_t total = dev_demo_errors(&d);
	for (size_t i = 0; i < n; i++) {
		struct errlog_entry e;

		dev_demo_error(&d, i < total ? total - i : 0, &e);
		errlog_encode_entry(&e, ret_page + i * ERRLOG_ENTRY_SIZE);
		if (!e.error_count)
			memset(ret_page + i * ERRLOG_ENTRY_SIZE, 0, ERRLOG_ENTRY_SIZE);
	}
	return 0;
}

static int demo_read_sensor_limits(void *ctx, const char *name, const struct dev_ident *who,
				   uint8_t sensors, uint16_t ret_k[SMART_NUM_SENSORS])
{
	struct dev_demo_drive d;
	size_t i;
	int r = demo_lookup(ctx, name, who, &i, &d);

	if (r < 0)
		return r;
	memset(ret_k, 0, SMART_NUM_SENSORS * sizeof(*ret_k));
	for (int k = 0; k < 2; k++)
		if (sensors & (1u << k))
			ret_k[k] = d.sensor_limit_k[k];
	return 0;
}

/* Device Self-test: the controller's answer, mapped as the real backend maps it. */
static int demo_selftest_start(void *ctx, const char *name, const struct dev_ident *who,
			       int64_t now_ms, uint32_t nsid, uint8_t stc)
{
	struct demo_ctx *c = ctx;
	struct dev_demo_drive d;
	size_t i;
	int r = demo_lookup(c, name, who, &i, &d);

	if (r < 0)
		return r;
	pthread_mutex_lock(&c->lock);
	uint16_t status = demo_st_command(&c->st[i], &d, now_ms, nsid, stc);
	pthread_mutex_unlock(&c->lock);
	return selftest_start_errno(status);
}

static int demo_read_selftest(void *ctx, const char *name, const struct dev_ident *who,
			      int64_t now_ms, uint8_t ret_page[SELFTEST_LOG_SIZE])
{
	struct demo_ctx *c = ctx;
	struct dev_demo_drive d;
	struct demo_st_live st;
	struct selftest_log log;
	size_t i;
	int r = demo_lookup(c, name, who, &i, &d);

	if (r < 0)
		return r;
	pthread_mutex_lock(&c->lock);
	st = c->st[i];
	pthread_mutex_unlock(&c->lock);
	r = selftest_log_errno(demo_st_log(&st, &d, now_ms, &log));
	if (r < 0)
		return r;
	selftest_encode(&log, ret_page);
	return 0;
}

static int demo_read_ocp(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			 uint8_t ret_page[OCP_LOG_SIZE])
{
	struct dev_demo_drive d;
	size_t i;
	int r = demo_lookup(ctx, name, who, &i, &d);

	return r < 0 ? r : dev_demo_ocp_page(&d, now_ms, ret_page);
}

/* The whole log built, the part asked for copied: as one reporting context sees it. */
static int demo_read_pel(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			 uint64_t offset, uint32_t len, bool ext_data,
			 uint8_t ret_head[PEL_HEADER_SIZE], uint8_t *ret_data)
{
	struct dev_demo_drive d;
	uint8_t *log;
	size_t i, n;
	int r = demo_lookup(ctx, name, who, &i, &d);

	(void)ext_data;
	if (r < 0)
		return r;
	struct demo_ctx *c = ctx;
	pthread_mutex_lock(&c->lock);
	if (!c->pel_live_ms)
		c->pel_live_ms = now_ms;
	int64_t live = c->pel_live_ms;
	pthread_mutex_unlock(&c->lock);
	r = dev_demo_pel(&d, i, now_ms, live, &log, &n);
	if (r < 0)
		return r;
	memcpy(ret_head, log, PEL_HEADER_SIZE);
	size_t got = offset < n ? (n - offset < len ? n - offset : len) : 0;
	if (got)
		memcpy(ret_data, log + offset, got);
	free(log);
	return (int)got;
}

static int demo_read_power(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			   uint8_t which, struct dev_power *ret)
{
	struct dev_demo_drive d;
	struct dev_power p;
	size_t i;
	int r = demo_lookup(ctx, name, who, &i, &d);

	if (r < 0)
		return r;
	dev_demo_power(&d, now_ms, &p);
	p.got &= which; /* only what was asked */
	*ret = p;
	return 0;
}

static void demo_free(void *ctx)
{
	struct demo_ctx *c = ctx;

	pthread_mutex_destroy(&c->lock);
	free(c->st);
	free(c);
}

static int demo_selftest_handover(void *ctx, const char *name, int64_t at_ms)
{
	struct demo_ctx *c = ctx;
	unsigned long i;

	if (!dev_demo_name_is(name) || (i = strtoul(name + 4, NULL, 10)) >= c->n)
		return -ENODEV;
	pthread_mutex_lock(&c->lock);
	if (!c->st[i].own_until_ms || at_ms < c->st[i].own_until_ms)
		c->st[i].own_until_ms = at_ms;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

static const struct dev_backend_ops demo_ops = {
	.name = "demo",
	.caps = DEV_CAP_OWN_PROBES | DEV_CAP_SIM_BUSY | DEV_CAP_HISTORY | DEV_CAP_OWN_SELFTESTS |
		DEV_CAP_SIMULATED,
	.scan = demo_scan,
	.read_smart = demo_read_smart,
	.free = demo_free,
	.read_errlog = demo_read_errlog,
	.read_sensor_limits = demo_read_sensor_limits,
	.selftest_start = demo_selftest_start,
	.read_selftest = demo_read_selftest,
	.selftest_handover = demo_selftest_handover,
	.read_ocp = demo_read_ocp,
	.read_pel = demo_read_pel,
	.read_power = demo_read_power,
};

int dev_demo_open_n(size_t n, struct dev_backend **ret)
{
	struct dev_backend *b;
	struct demo_ctx *c;

	if (n < 1 || n > DEV_DEMO_MAX)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	c = calloc(1, sizeof(*c));
	if (c)
		c->st = calloc(n, sizeof(*c->st));
	if (!b || !c || !c->st) {
		free(b);
		if (c)
			free(c->st);
		free(c);
		return -ENOMEM;
	}
	pthread_mutex_init(&c->lock, NULL);
	c->n = n;
	b->ops = &demo_ops;
	b->ctx = c;
	*ret = b;
	return 0;
}

/*
 * The demo drive under controller @name ("demo0" … "demo63", as demo_scan()
 * names them). Return: 0 with its index, or -ENODEV for a name that is none.
 */
static int demo_index_of(const char *name, size_t *ret)
{
	char *end;

	if (!dev_demo_name_is(name))
		return -ENODEV;
	unsigned long i = strtoul(name + 4, &end, 10);
	if (*end || i >= DEV_DEMO_MAX || (name[4] == '0' && name[5]))
		return -ENODEV;
	*ret = i;
	return 0;
}

int dev_demo_index(const char *name, size_t *ret)
{
	return demo_index_of(name, ret);
}

int dev_demo_find(const char *serial, size_t *ret_index, char ret_name[DEV_NAME_MAX],
		  char ret_path[DEV_NAME_MAX + 8])
{
	struct dev_demo_drive d;

	for (size_t i = 0; serial && dev_demo_drive(i, &d) == 0; i++)
		if (strcmp(d.serial, serial) == 0) {
			*ret_index = i;
			snprintf(ret_name, DEV_NAME_MAX, "demo%zu", i);
			snprintf(ret_path, DEV_NAME_MAX + 8, "demo:%zu", i);
			return 0;
		}
	return -ENODEV;
}

const char *dev_demo_selftest_schedule(const char *name)
{
	struct dev_demo_drive d;
	size_t i;

	if (demo_index_of(name, &i) < 0 || dev_demo_drive(i, &d) < 0)
		return NULL;
	return d.st_schedule; /* a string literal of demo_drives.c's table, or NULL */
}

/* The demo backend here, or in the device process (dev_remote.h). */
int dev_demo_selftest_handover(struct dev_backend *b, const char *name, int64_t at_ms)
{
	if (!b->ops->selftest_handover)
		return -EOPNOTSUPP;
	return b->ops->selftest_handover(b->ctx, name, at_ms);
}

int dev_demo_open(struct dev_backend **ret)
{
	return dev_demo_open_n(DEV_DEMO_DEFAULT, ret);
}
