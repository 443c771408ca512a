/* SPDX-License-Identifier: MIT */
/*
 * The demo year's past probe runs (see demo_year.h): every preset every few
 * days, sustained-write every four weeks, and on a throttling drive one run
 * whose read rate dips while it throttles. Pure.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "demo_year_internal.h"

#define GIB		(1024.0 * 1024 * 1024)
#define FILE_BYTES	GIB  /* [device] probe_file_size's default */
#define PHASE_MS	5000 /* [probes] phase_duration's default */
#define SUSTAINED_LIMIT 64e9 /* [device] probe_sustained_limit's default */
#define RUN_EVERY_DAYS	5
#define SUSTAINED_DAYS	28

const char *const demo_year_presets[DEMO_YEAR_PRESETS] = {
	"seq1m-q8", "seq1m-q1", "rnd4k-q32", "rnd4k-q1", "copy-self", "sustained-write",
};

/* The presets' phases (probe_engine.c's table; a unit test keeps them equal). */
static const struct {
	size_t n;
	struct {
		const char *name;
		bool random;
		uint32_t bs, depth;
	} ph[2];
} shapes[DEMO_YEAR_PRESETS] = {
	{2, {{"read", false, 1u << 20, 8}, {"write", false, 1u << 20, 8}}},
	{2, {{"read", false, 1u << 20, 1}, {"write", false, 1u << 20, 1}}},
	{2, {{"read", true, 4096, 32}, {"write", true, 4096, 32}}},
	{2, {{"read", true, 4096, 1}, {"write", true, 4096, 1}}},
	{1, {{"copy", false, 1u << 20, 8}}},
	{1, {{"write", false, 1u << 20, 8}}},
};

/* ---- probe runs ------------------------------------------------------------ */

/* Bytes per second of phase @k of preset @p on @d with an empty cache. */
static void phase_rates(const struct dev_demo_drive *d, size_t p, size_t k, double *rd, double *wr)
{
	const struct dev_demo_perf *m = &d->perf;
	int deep = shapes[p].ph[k].depth > 1;

	if (shapes[p].ph[k].random) {
		*rd = m->rnd_read[deep] * 4096;
		*wr = m->rnd_write[deep] * 4096;
	} else {
		*rd = m->seq_read[deep];
		*wr = m->seq_write[deep];
	}
	if (strcmp(shapes[p].ph[k].name, "copy") == 0) {
		*rd *= 0.3;
		*wr *= 0.3;
	}
}

/*
 * What a degraded PCIe link carries each way, in bytes per second (0: the link
 * is not degraded, the drive sets the pace): its lanes at their rate, less the
 * line code (8b/10b up to 5 GT/s, 128b/130b from 8 GT/s) and about 10 % of
 * packet overhead.
 */
static double link_cap(const struct nvme_pcie_link *l)
{
	if (!nvme_pcie_link_degraded(l) || !l->cur_speed_dgts || !l->cur_width)
		return 0;
	double code = l->cur_speed_dgts <= 50 ? 0.8 : 128.0 / 130.0;
	return l->cur_width * l->cur_speed_dgts / 10.0 * 1e9 / 8 * code * 0.9;
}

static void latencies(double bytes, double secs, uint32_t bs, uint32_t depth, uint64_t ret[3])
{
	double iops = bytes / bs / (secs > 0 ? secs : 1);
	double lat = iops > 0 ? (double)depth / iops * 1e9 : 0;

	ret[0] = (uint64_t)lat;
	ret[1] = (uint64_t)(lat * 1.6);
	ret[2] = (uint64_t)(lat * 3.1);
}

/*
 * One phase. Reads run PHASE_MS; writes until the probe file is written once
 * (copy: half of it); sustained-write until its cache's cliff has held 6 s or
 * SUSTAINED_LIMIT. @dip: the interval range [a, b) runs at 55 % (throttling).
 */
static void make_phase(const struct gen *g, struct demo_run *run, size_t p, size_t k, size_t dip_a,
		       size_t dip_b, uint64_t id, double cap)
{
	const struct dev_demo_drive *d = g->d;
	struct demo_run_phase *ph = &run->phase[k];
	bool sustained = p == DEMO_YEAR_PRESETS - 1, reads = strcmp(shapes[p].ph[k].name, "write");
	bool writes = strcmp(shapes[p].ph[k].name, "read") != 0;
	double rd_rate, wr_rate, cache = 0, secs = DEMO_RUN_INTERVAL_MS / 1000.0;
	double wr_limit = sustained				      ? SUSTAINED_LIMIT
			  : strcmp(shapes[p].ph[k].name, "copy") == 0 ? FILE_BYTES / 2
								      : FILE_BYTES;
	int64_t cliff_at = -1;

	phase_rates(d, p, k, &rd_rate, &wr_rate);
	double native = d->perf.native_write;
	if (cap > 0) {
		rd_rate = fmin(rd_rate, cap);
		wr_rate = fmin(wr_rate, cap);
		native = fmin(native, cap);
	}
	*ph = (struct demo_run_phase){.name = shapes[p].ph[k].name,
				      .random = shapes[p].ph[k].random,
				      .block_size = shapes[p].ph[k].bs,
				      .depth = shapes[p].ph[k].depth,
				      .offset_ms = k ? run->phase[0].elapsed_ms : 0};
	for (size_t i = 0; i < DEMO_RUN_POINTS_MAX; i++) {
		double f = (0.97 + 0.06 * rnd(g, 20 + k, id * 1024 + i)) *
			   (i >= dip_a && i < dip_b ? 0.55 : 1);
		double rd = reads ? rd_rate * f * secs : 0, wr = 0;
		int64_t t = (int64_t)(i + 1) * DEMO_RUN_INTERVAL_MS;

		if (writes) {
			double fast = wr_rate * f * secs, room = d->perf.cache_bytes - cache;
			wr = room <= 0	    ? native * f * secs
			     : fast <= room ? fast
					    : room + (1 - room / fast) * native * f * secs;
			cache += wr;
			if (wr > wr_limit - (double)ph->wr_bytes)
				wr = wr_limit - (double)ph->wr_bytes;
			if (sustained && room <= 0 && cliff_at < 0)
				cliff_at = t;
		}
		rd -= fmod(rd, ph->block_size);
		wr -= fmod(wr, ph->block_size);
		ph->point[ph->n_points++] = (struct demo_point){t, (uint64_t)rd, (uint64_t)wr};
		ph->rd_bytes += (uint64_t)rd;
		ph->wr_bytes += (uint64_t)wr;
		ph->elapsed_ms = t;
		if (!writes && t >= PHASE_MS)
			break;
		if (writes && !sustained && (t >= PHASE_MS || (double)ph->wr_bytes >= wr_limit))
			break;
		if (sustained &&
		    ((double)ph->wr_bytes >= wr_limit || (cliff_at >= 0 && t - cliff_at >= 6000))) {
			ph->early = cliff_at >= 0 && t - cliff_at >= 6000;
			break;
		}
	}
	double el = (double)ph->elapsed_ms / 1000.0;
	if (ph->rd_bytes)
		latencies((double)ph->rd_bytes, el, ph->block_size, ph->depth, ph->rd_lat_ns);
	if (ph->wr_bytes)
		latencies((double)ph->wr_bytes, el, ph->block_size, ph->depth, ph->wr_lat_ns);
	run->bytes_read += ph->rd_bytes;
	run->bytes_written += ph->wr_bytes;
}

/*
 * A run of preset @p at @start. @throttle_dip: its first phase dips while the
 * drive throttles, and its SMART samples show the T1 time rising meanwhile. On
 * a degraded link every rate is capped by what the link carries.
 */
static void make_run(const struct gen *g, struct demo_run *run, size_t p, int64_t start,
		     uint64_t id, bool throttle_dip)
{
	struct sample at;
	int64_t dip_from = -1, dip_to = -1;
	double cap = link_cap(demo_year_link_at(g, start));

	memset(run, 0, sizeof(*run));
	run->preset = demo_year_presets[p];
	run->started_ms = start;
	run->n_phases = shapes[p].n;
	for (size_t k = 0; k < run->n_phases; k++) {
		/* The read phase: it runs its whole PHASE_MS (a write phase ends
		 * once the probe file is written). */
		size_t a = throttle_dip && k == 0 ? 8 : 0, b = throttle_dip && k == 0 ? 14 : 0;

		make_phase(g, run, p, k, a, b, id, cap);
		if (a < b) {
			dip_from = run->phase[k].offset_ms + (int64_t)a * DEMO_RUN_INTERVAL_MS;
			dip_to = run->phase[k].offset_ms + (int64_t)b * DEMO_RUN_INTERVAL_MS;
		}
		run->stopped |= run->phase[k].early;
	}
	const struct demo_run_phase *last = &run->phase[run->n_phases - 1];
	int64_t total = last->offset_ms + last->elapsed_ms;
	run->ended_ms = start + total;

	demo_year_sample_at(g, start, &at);
	uint32_t t1 = at.smart.thm_temp1_total_time, n1 = at.smart.thm_temp1_trans_count;
	for (int64_t t = 0; t <= total && run->n_thermal < DEMO_RUN_THERMAL_MAX; t += 1000) {
		bool in = dip_from >= 0 && t > dip_from && t <= dip_to + 1000;
		if (in && t - 1000 <= dip_from)
			n1++;
		if (in)
			t1++;
		run->thermal[run->n_thermal++] = (struct cliff_thermal){
			.t_ms = t,
			.temp_k = at.smart.temperature_k,
			.t1_count = n1,
			.t2_count = at.smart.thm_temp2_trans_count,
			.t1_time_s = t1,
			.t2_time_s = at.smart.thm_temp2_total_time,
			.warning_temp_time_min = at.smart.warning_temp_time,
		};
	}
}

int demo_year_make_runs(const struct gen *g, struct demo_year *y)
{
	int64_t today = floor_div(g->now, MS_DAY) * MS_DAY;
	size_t cap = DEMO_YEAR_DAYS / RUN_EVERY_DAYS + DEMO_YEAR_DAYS / SUSTAINED_DAYS + 4, n = 0;
	int64_t dip_at = -1;

	y->runs = calloc(cap, sizeof(*y->runs));
	if (!y->runs)
		return -ENOMEM;
	/* The throttle dip: during the last spell's first episode. */
	for (size_t i = 0; i < g->n_ep; i++)
		if (g->ep[i].s < today - 14 * MS_DAY)
			dip_at = (g->ep[i].s + g->ep[i].e) / 2 - 3000;
	for (int64_t day = today - DEMO_YEAR_DAYS * MS_DAY + MS_DAY; day <= today; day += MS_DAY) {
		int64_t k = (day - (today - DEMO_YEAR_DAYS * MS_DAY)) / MS_DAY;
		int64_t jitter = (int64_t)(10 * MS_MIN * rnd(g, 30, (uint64_t)k)) / 1000 * 1000;

		if (dip_at >= 0 && floor_div(dip_at, MS_DAY) * MS_DAY == day && n < cap)
			make_run(g, &y->runs[n++], 0, dip_at, (uint64_t)k * 2 + 1, true);
		/* The newest runs stay clear of the probe budgets of the first hour. */
		if (k % SUSTAINED_DAYS == 0 && day <= today - 9 * MS_DAY && n < cap)
			make_run(g, &y->runs[n++], DEMO_YEAR_PRESETS - 1,
				 day + 4 * MS_HOUR + jitter, (uint64_t)k * 2, false);
		else if (k % RUN_EVERY_DAYS == 0 && day <= today - 2 * MS_DAY && n < cap)
			make_run(g, &y->runs[n++],
				 (size_t)(k / RUN_EVERY_DAYS) % (DEMO_YEAR_PRESETS - 1),
				 day + 3 * MS_HOUR + jitter, (uint64_t)k * 2, false);
	}
	y->n_runs = n;
	return 0;
}
