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
#define SWEEP_DAYS	30
#define SERIES_GAP_MS	30000 /* [probes] cooldown's default */
#define RECOVERY_BURSTS 6     /* [probes] recovery_intervals' default: 5m … 90m */
#define GROUP_SHARE	0.75  /* probe_demo_share(2): two drives move 1.5× one */

/* Phase @k of preset @p. */
struct job {
	const char *name, *op;
	bool random;
	uint32_t bs, depth;
};

static size_t n_phases_of(enum probe_preset_id p)
{
	return probe_preset_get(p)->n_phases;
}

static struct job job_of(enum probe_preset_id p, size_t k)
{
	const struct probe_preset *pre = probe_preset_get(p);

	return (struct job){pre->phase[k].name, probe_op_name(pre->phase[k].op),
			    pre->phase[k].random, pre->phase[k].block_size, pre->phase[k].depth};
}

/* How a run goes: its own rate factors, and its place in a series. */
struct run_opts {
	bool throttle_dip;
	double f_rd, f_wr; /* × every rate (1: as the drive's figures) */
	double wobble;	   /* each interval × [1 - wobble/2, 1 + wobble/2) */
	uint32_t series_index, series_of;
	const struct dev_demo_drive *source; /* copy-to: the drive read, else NULL */
	const char *preset;		     /* the preset stored, else p's */
	double wr_limit;		     /* bytes a write phase ends at, else p's */
	double unfolded; /* the cache's share still to fold (after a cliff), 0 … 1 */
	bool group;
};

/* ---- probe runs ------------------------------------------------------------ */

/*
 * Bytes per second of @j on @d with an empty cache. A sequential transfer below
 * 1 MiB (the sweep's) is bound by the I/Os per second the drive does at its
 * depth as well, as probe_demo.c models it.
 */
static void phase_rates(const struct dev_demo_drive *d, const struct job *j, double *rd, double *wr)
{
	const struct dev_demo_perf *m = &d->perf;
	int deep = j->depth > 1;

	if (j->random) {
		*rd = m->rnd_read[deep] * 4096;
		*wr = m->rnd_write[deep] * 4096;
	} else {
		*rd = m->seq_read[deep];
		*wr = m->seq_write[deep];
		if (j->bs < (1u << 20)) {
			double rio = fmin(m->rnd_read[0] * j->depth, m->rnd_read[1]) * 1.5;
			double wio = fmin(m->rnd_write[0] * j->depth, m->rnd_write[1]) * 1.5;
			*rd = 1.0 / (1.0 / *rd + 1.0 / (rio * j->bs));
			*wr = 1.0 / (1.0 / *wr + 1.0 / (wio * j->bs));
		}
	}
	if (strcmp(j->op, "copy") == 0) {
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
 * SUSTAINED_LIMIT; a sweep's point PROBE_SWEEP_POINT_MS or its byte limit. A byte
 * limit ends the phase within its last interval, which is as long as it took.
 * @dip: the interval range [a, b) runs at 55 % (throttling).
 */
static void make_phase(const struct gen *g, struct demo_run *run, enum probe_preset_id p, size_t k,
		       size_t dip_a, size_t dip_b, uint64_t id, double cap,
		       const struct run_opts *o)
{
	const struct dev_demo_drive *d = g->d;
	struct demo_run_phase *ph = &run->phase[k];
	struct job j = job_of(p, k);
	bool sustained = p == PROBE_SUSTAINED_WRITE, sweep = p == PROBE_SWEEP;
	bool reads = strcmp(j.op, "write") != 0, writes = strcmp(j.op, "read") != 0;
	double rd_rate, wr_rate, cache = 0, secs = DEMO_RUN_INTERVAL_MS / 1000.0;
	double wr_limit = o->wr_limit > 0	      ? o->wr_limit
			  : sustained		      ? SUSTAINED_LIMIT
			  : sweep		      ? PROBE_SWEEP_WRITE_BYTES
			  : strcmp(j.op, "copy") == 0 ? FILE_BYTES / 2
						      : FILE_BYTES;
	double rd_limit = sweep ? PROBE_SWEEP_POINT_BYTES : 0; /* 0: none */
	int64_t cliff_at = -1, duration = sweep ? PROBE_SWEEP_POINT_MS : PHASE_MS;

	phase_rates(d, &j, &rd_rate, &wr_rate);
	if (o->source) /* copy-to: as fast as the slower side, a little under */
		rd_rate = wr_rate = 0.83 * fmin(o->source->perf.seq_read[1], d->perf.seq_write[1]);
	double native = d->perf.native_write * o->f_wr;
	rd_rate *= o->f_rd;
	wr_rate *= o->f_wr;
	wr_rate = dev_demo_cache_rate(wr_rate, native, 1 - o->unfolded);
	if (cap > 0) {
		rd_rate = fmin(rd_rate, cap);
		wr_rate = fmin(wr_rate, cap);
		native = fmin(native, cap);
	}
	*ph = (struct demo_run_phase){
		.name = j.name,
		.op = j.op,
		.random = j.random,
		.block_size = j.bs,
		.depth = j.depth,
		.offset_ms = k ? run->phase[k - 1].offset_ms + run->phase[k - 1].elapsed_ms : 0};
	for (size_t i = 0; i < DEMO_RUN_POINTS_MAX; i++) {
		double f = (1 - o->wobble / 2 + o->wobble * rnd(g, 20 + k, id * 1024 + i)) *
			   (i >= dip_a && i < dip_b ? 0.55 : 1);
		double rd = reads ? rd_rate * f * secs : 0, wr = 0, frac = 1;
		bool capped = false;

		if (writes) {
			double fast = wr_rate * f * secs, room = d->perf.cache_bytes - cache;
			wr = room <= 0	    ? native * f * secs
			     : fast <= room ? fast
					    : room + (1 - room / fast) * native * f * secs;
			cache += wr;
			if (wr >= wr_limit - (double)ph->wr_bytes) {
				frac = (wr_limit - (double)ph->wr_bytes) / wr;
				capped = true;
			}
			if (sustained && room <= 0 && cliff_at < 0)
				cliff_at = ph->elapsed_ms + DEMO_RUN_INTERVAL_MS;
		} else if (rd_limit > 0 && rd >= rd_limit - (double)ph->rd_bytes) {
			frac = (rd_limit - (double)ph->rd_bytes) / rd;
			capped = true;
		}
		if (o->source)
			rd = wr; /* copy-to: what it wrote, it read */
		rd *= frac;
		wr *= frac;
		rd -= fmod(rd, ph->block_size);
		wr -= fmod(wr, ph->block_size);
		int64_t step = (int64_t)(DEMO_RUN_INTERVAL_MS * frac + 0.5);
		int64_t t = ph->elapsed_ms + (step < 1 ? 1 : step);
		ph->point[ph->n_points++] = (struct demo_point){t, (uint64_t)rd, (uint64_t)wr};
		ph->rd_bytes += (uint64_t)rd;
		ph->wr_bytes += (uint64_t)wr;
		ph->elapsed_ms = t;
		if (!sustained && (t >= duration || capped))
			break;
		if (sustained && (capped || (cliff_at >= 0 && t - cliff_at >= 6000))) {
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
 * A run of preset @p at @start. @o->throttle_dip: its first phase dips while
 * the drive throttles, and its SMART samples show the T1 time rising
 * meanwhile. On a degraded link every rate is capped by what the link carries.
 * Return: 0 or -ENOMEM.
 */
static int make_run(const struct gen *g, struct demo_run *run, enum probe_preset_id p,
		    int64_t start, uint64_t id, const struct run_opts *o)
{
	struct sample at;
	int64_t dip_from = -1, dip_to = -1;
	double cap = link_cap(demo_year_link_at(g, start));

	memset(run, 0, sizeof(*run));
	run->preset = probe_preset_get(p)->name;
	run->started_ms = start;
	run->series_index = o->series_index;
	run->series_of = o->series_of;
	run->copy_to = probe_preset_get(p)->copy_to;
	if (o->preset)
		run->preset = o->preset;
	run->group = o->group;
	run->n_phases = n_phases_of(p);
	run->phase = calloc(run->n_phases, sizeof(*run->phase));
	if (!run->phase)
		return -ENOMEM;
	for (size_t k = 0; k < run->n_phases; k++) {
		/* The read phase: it runs its whole PHASE_MS (a write phase ends
		 * once the probe file is written). */
		size_t a = o->throttle_dip && k == 0 ? 8 : 0,
		       b = o->throttle_dip && k == 0 ? 14 : 0;

		make_phase(g, run, p, k, a, b, id, cap, o);
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
	return 0;
}

/*
 * A seq1m-q8 series of DEMO_YEAR_SERIES_OF runs from @start, each
 * SERIES_GAP_MS after the last ended. @newest: its best run is the 950 PRO's
 * (1.039 × read, 1.051 × write); an older one's a little slower.
 */
static int make_series(const struct gen *g, struct demo_run *runs, int64_t start, uint64_t id,
		       bool newest)
{
	static const double f[2][2][DEMO_YEAR_SERIES_OF] = {
		{{1.008, 1.026, 1.017}, {1.022, 1.041, 1.030}},
		{{1.021, 1.039, 1.030}, {1.036, 1.028, 1.051}},
	};
	int r = 0;

	for (uint32_t i = 0; r == 0 && i < DEMO_YEAR_SERIES_OF; i++) {
		struct run_opts o = {.f_rd = f[newest][0][i],
				     .f_wr = f[newest][1][i],
				     .wobble = 0.01,
				     .series_index = i + 1,
				     .series_of = DEMO_YEAR_SERIES_OF};
		r = make_run(g, &runs[i], PROBE_SEQ1M_Q8, start, id * 8 + i, &o);
		start = runs[i].ended_ms + SERIES_GAP_MS;
	}
	return r;
}

/*
 * The cache-recovery study from @start (demo_year.h): the fill to its cliff,
 * then a burst at each interval after the fill's end until one runs at 95 %
 * of the rate before the cliff. The cache folds as probe_demo.c has it: the
 * fill leaves it full, idle time folds it (DEV_DEMO_FOLD_MS for all of it),
 * each burst adds what it wrote. @ret_n: the runs made.
 */
static int make_study(const struct gen *g, struct demo_run *runs, int64_t start, size_t *ret_n)
{
	static const int mins[RECOVERY_BURSTS] = {5, 10, 20, 40, 60, 90};
	const double cache = g->d->perf.cache_bytes;
	struct run_opts o = {.f_rd = 1,
			     .f_wr = 1,
			     .wobble = 0.01,
			     .series_index = 1,
			     .series_of = 1 + RECOVERY_BURSTS,
			     .preset = "cache-recovery",
			     .wr_limit = cache * 1.25};
	double burst = fmin(fmax(cache / 10, GIB), FILE_BYTES), used, pre;
	int r = make_run(g, &runs[0], PROBE_SUSTAINED_WRITE, start, 7777, &o);
	size_t n = 1;

	if (r < 0)
		return r;
	const struct demo_run_phase *f = &runs[0].phase[0];
	pre = (double)f->point[0].wr_bytes / (DEMO_RUN_INTERVAL_MS / 1000.0);
	used = cache;
	int64_t fill_end = runs[0].ended_ms, last = fill_end;
	for (size_t i = 0; i < RECOVERY_BURSTS; i++) {
		int64_t at = fill_end + mins[i] * MS_PER_MIN;
		used = fmax(0, used - (double)(at - last) / (double)DEV_DEMO_FOLD_MS * cache);
		o.series_index = (uint32_t)(i + 2);
		o.wr_limit = burst;
		o.unfolded = used / cache;
		o.preset = "cache-recovery";
		r = make_run(g, &runs[n], PROBE_SUSTAINED_WRITE, at, 7778 + i, &o);
		if (r < 0)
			break;
		runs[n].stopped = false;
		const struct demo_run_phase *b = &runs[n].phase[0];
		double rate = (double)b->wr_bytes / ((double)b->elapsed_ms / 1000.0);
		used = used > 0 ? fmin(cache, used + (double)b->wr_bytes) : 0;
		last = runs[n].ended_ms;
		n++;
		if (rate >= 0.95 * pre)
			break;
	}
	*ret_n = n;
	return r;
}

static int by_start(const void *a, const void *b)
{
	const struct demo_run *x = a, *y = b;

	return (x->started_ms > y->started_ms) - (x->started_ms < y->started_ms);
}

int demo_year_make_runs(const struct gen *g, struct demo_year *y)
{
	int64_t today = floor_div(g->now, MS_PER_DAY) * MS_PER_DAY;
	size_t cap = DEMO_YEAR_DAYS / RUN_EVERY_DAYS + DEMO_YEAR_DAYS / SUSTAINED_DAYS +
		     DEMO_YEAR_DAYS / SWEEP_DAYS + DEMO_YEAR_SERIES * DEMO_YEAR_SERIES_OF + 6 +
		     RECOVERY_BURSTS,
	       n = 0;
	int64_t dip_at = -1;
	/* Days back to each series: the newer in the last month, the older on the
	 * narrow link where the drive has one (its best then well under rated). */
	int64_t series_ago[DEMO_YEAR_SERIES] = {20, 80};
	const struct run_opts plain = {.f_rd = 1, .f_wr = 1, .wobble = 0.06};
	int r = 0;

	if (g->link_to > g->link_from)
		series_ago[1] = (today - (g->link_from + g->link_to) / 2) / MS_PER_DAY;
	y->runs = calloc(cap, sizeof(*y->runs));
	if (!y->runs)
		return -ENOMEM;
	/* The throttle dip: during the last spell's first episode. */
	for (size_t i = 0; i < g->n_ep; i++)
		if (g->ep[i].s < today - 14 * MS_PER_DAY)
			dip_at = (g->ep[i].s + g->ep[i].e) / 2 - 3000;
	for (int64_t day = today - DEMO_YEAR_DAYS * MS_PER_DAY + MS_PER_DAY; r == 0 && day <= today;
	     day += MS_PER_DAY) {
		int64_t k = (day - (today - DEMO_YEAR_DAYS * MS_PER_DAY)) / MS_PER_DAY;
		int64_t jitter = (int64_t)(10 * MS_PER_MIN * rnd(g, 30, (uint64_t)k)) / 1000 * 1000;
		int64_t ago = (today - day) / MS_PER_DAY;

		if (dip_at >= 0 && floor_div(dip_at, MS_PER_DAY) * MS_PER_DAY == day && n < cap) {
			struct run_opts o = plain;
			o.throttle_dip = true;
			r = make_run(g, &y->runs[n++], PROBE_SEQ1M_Q8, dip_at, (uint64_t)k * 2 + 1,
				     &o);
		}
		/* The newest runs stay clear of the probe budgets of the first hour. */
		if (r == 0 && k % SUSTAINED_DAYS == 0 && day <= today - 9 * MS_PER_DAY && n < cap)
			r = make_run(g, &y->runs[n++], PROBE_SUSTAINED_WRITE,
				     day + 4 * MS_PER_HOUR + jitter, (uint64_t)k * 2, &plain);
		else if (r == 0 && k % RUN_EVERY_DAYS == 0 && day <= today - 2 * MS_PER_DAY &&
			 n < cap)
			/* the five of a phase or two, in turn (not sustained-write, sweep) */
			r = make_run(g, &y->runs[n++],
				     (enum probe_preset_id)((k / RUN_EVERY_DAYS) %
							    PROBE_SUSTAINED_WRITE),
				     day + 3 * MS_PER_HOUR + jitter, (uint64_t)k * 2, &plain);
		/* A sweep a month, each measuring a little differently. */
		if (r == 0 && k % SWEEP_DAYS == SWEEP_DAYS / 2 && day <= today - 2 * MS_PER_DAY &&
		    n < cap) {
			struct run_opts o = plain;
			o.f_rd = 0.97 + 0.06 * rnd(g, 31, (uint64_t)k);
			o.f_wr = 0.97 + 0.06 * rnd(g, 32, (uint64_t)k);
			r = make_run(g, &y->runs[n++], PROBE_SWEEP, day + 5 * MS_PER_HOUR + jitter,
				     (uint64_t)k * 2, &o);
		}
		for (size_t s = 0; r == 0 && s < DEMO_YEAR_SERIES; s++)
			if (ago == series_ago[s] && n + DEMO_YEAR_SERIES_OF <= cap) {
				r = make_series(g, &y->runs[n], day + 6 * MS_PER_HOUR + jitter,
						(uint64_t)k, s == 0);
				n += DEMO_YEAR_SERIES_OF;
			}
	}
	/* A copy-to from demo0, two days back: the drive's newest run, clear of the
	 * probe budgets of the first hour. */
	struct dev_demo_drive src;
	if (r == 0 && dev_demo_drive(0, &src) == 0 && strcmp(src.serial, g->d->serial) != 0 &&
	    n < cap) {
		struct run_opts o = plain;
		o.source = &src;
		r = make_run(g, &y->runs[n], PROBE_COPY_TO,
			     today - 2 * MS_PER_DAY + 8 * MS_PER_HOUR,
			     (uint64_t)DEMO_YEAR_DAYS * 2 + 1, &o);
		y->runs[n++].source_index = 0;
	}
	if (r == 0 && strstr(g->d->model, "980 PRO") && n + 1 + RECOVERY_BURSTS <= cap) {
		size_t k = 0;
		r = make_study(g, &y->runs[n], today - 10 * MS_PER_DAY + 9 * MS_PER_HOUR, &k);
		n += k;
	}
	/* The group run: demo0 and demo1 together, each at 75 % of solo. */
	struct dev_demo_drive m0, m1;
	if (r == 0 && dev_demo_drive(0, &m0) == 0 && dev_demo_drive(1, &m1) == 0 &&
	    (!strcmp(m0.serial, g->d->serial) || !strcmp(m1.serial, g->d->serial)) && n < cap) {
		struct run_opts o = plain;
		o.f_rd = o.f_wr = GROUP_SHARE;
		o.wobble = 0.02;
		o.group = true;
		r = make_run(g, &y->runs[n++], PROBE_SEQ1M_Q8,
			     today - 3 * MS_PER_DAY + 7 * MS_PER_HOUR,
			     (uint64_t)DEMO_YEAR_DAYS * 2 + 3, &o);
	}
	y->n_runs = n;
	/* The dip's run is in an afternoon, after its day's others. */
	qsort(y->runs, n, sizeof(*y->runs), by_start);
	return r;
}
