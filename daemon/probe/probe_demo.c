/* SPDX-License-Identifier: MIT */
/*
 * The simulated probe engine (probe_run_sim), for the drives of a backend that
 * answers probes itself (DEV_CAP_OWN_PROBES: the demo drives, daemon/demo/):
 * no I/O, a model of what such a drive does. It finds its drive by the plan's
 * serial (dev_demo_find()), as the block engine finds a controller in sysfs.
 *
 * - Rates by drive, pattern and queue depth (datasheet-like figures, from
 *   each demo drive's dev_demo_perf in demo.h).
 * - A write cache: writes run fast until it holds cache_bytes, then at the
 *   native rate; idle time empties it (fully after DEV_DEMO_FOLD_MS, 40 min).
 *   After a cliff the drive folds its cache while idle, and until the fold is
 *   done a write into the cache runs between the native and the fast rate by
 *   how much is folded (dev_demo_cache_rate(), demo.h): a cache-recovery
 *   study's bursts after 5, 10, 20, 40 min idle run slower, the one after
 *   60 min at the rate before the cliff.
 * - Thermal slowdown: while the drive's TMT1 (TMT2) time rises in its SMART log
 *   — demo0 throttles every five minutes, see demo_backend.c — every rate drops to
 *   55 % (35 %).
 * - Reading and writing the same drive at once (copy-self) shares it badly;
 *   a copy to another drive (copy-to) runs at the lower of the one's read and
 *   the other's write rate, less 5 %.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvmond/demo/demo.h"
#include "nvmond/probe/probe_run.h"
#include "nvmond/util/timefmt.h"

#include "probe_run_internal.h"

/*
 * A sequential rate at a transfer size other than 1 MiB (the sweep): small
 * transfers are bound by the I/Os per second the drive does at that depth (its
 * QD1 random rate times the depth, up to its deep one, half again for being
 * sequential), large ones run at its sequential rate; in between, the time of
 * a transfer is the sum of both.
 */
static double seq_rate(double seq, const double rnd[2], const struct probe_job *j)
{
	double iops = rnd[0] * j->depth * 1.5, bs = j->block_size;

	if (j->block_size >= (1u << 20))
		return seq;
	if (iops > rnd[1] * 1.5)
		iops = rnd[1] * 1.5;
	return 1.0 / (1.0 / seq + 1.0 / (iops * bs));
}

/* Read and write rates (bytes/s) of @j with an empty cache. */
static void base_rates(const struct dev_demo_perf *m, const struct probe_job *j, double *ret_rd,
		       double *ret_wr)
{
	int deep = j->depth > 1;

	if (j->random) {
		*ret_rd = m->rnd_read[deep] * j->block_size;
		*ret_wr = m->rnd_write[deep] * j->block_size;
	} else {
		*ret_rd = seq_rate(m->seq_read[deep], m->rnd_read, j);
		*ret_wr = seq_rate(m->seq_write[deep], m->rnd_write, j);
	}
	if (j->op == PROBE_OP_COPY) {
		*ret_rd *= 0.3;
		*ret_wr *= 0.3;
	}
}

/* A deterministic ±2 % wobble per interval. */
static double wobble(size_t i)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull;

	x ^= x >> 29;
	return 0.98 + 0.04 * (double)(x % 1000) / 1000.0;
}

/*
 * A run's own factor, 0.98 … 1.05, by drive, start time and direction: no two
 * runs of a real drive measure the same (the 950 PRO's best of 3 gave 2,598
 * MB/s read, 104 % of its 2,500 rated), yet the same run replays the same.
 */
double probe_demo_run_factor(int index, int64_t start_ms, bool write)
{
	uint64_t x = ((uint64_t)start_ms * 2 + write) * 0x9e3779b97f4a7c15ull + (uint64_t)index;

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 29;
	return 0.98 + 0.07 * (double)(x % 10000) / 10000.0;
}

/*
 * Drives probed together share the host's bandwidth (a chipset uplink, a
 * switch): @n of them move 1.5× one drive in total, so each gets 1.5/@n of its
 * solo rate (two 950 PROs under ATTO at once: each about 75 %).
 */
double probe_demo_share(unsigned n)
{
	return n <= 1 ? 1.0 : 1.5 / (double)n;
}

static void sleep_until_ns(int64_t mono_ns)
{
	struct timespec ts = {.tv_sec = mono_ns / 1000000000LL, .tv_nsec = mono_ns % 1000000000LL};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The thermal factor at @now_ms: from how TMT1/TMT2 times moved over the last second. */
static double thermal_factor(const struct dev_demo_drive *d, int64_t now_ms)
{
	struct smart_log a, c;

	dev_demo_state(d, now_ms - 1000, &a);
	dev_demo_state(d, now_ms, &c);
	if (c.thm_temp2_total_time > a.thm_temp2_total_time)
		return 0.35;
	if (c.thm_temp1_total_time > a.thm_temp1_total_time)
		return 0.55;
	return 1;
}

/* One simulated phase as it goes (demo_run()). */
struct sim_phase {
	const struct probe_job *j;
	struct dev_demo_drive drive;
	struct probe_sim_state *st;
	int64_t start_ms;
	double rd_rate, wr_rate, native; /* bytes/s: read, write into the cache, past it */
	double factor;			 /* the thermal factor, read every second */
	double rd_carry, wr_carry;	 /* the part of a transfer left to the next interval */
	uint64_t rd_total, wr_total, lease;
	int64_t interval, t; /* ms */
	struct probe_point *v;
	size_t n, cap;
};

/* Idle time since the drive's last write empties its cache. */
static void sim_idle(struct sim_phase *s)
{
	const struct dev_demo_perf *m = &s->drive.perf;
	struct probe_sim_state *st = s->st;

	if (st->idle_since_ms && s->start_ms > st->idle_since_ms) {
		double freed = (double)(s->start_ms - st->idle_since_ms) /
			       (double)DEV_DEMO_FOLD_MS * m->cache_bytes;
		st->cache_used =
			freed >= (double)st->cache_used ? 0 : st->cache_used - (uint64_t)freed;
	}
	if (!st->cache_used)
		st->folding = false;
}

/*
 * The phase's rates: drive @index's (a copy reading another drive, @rd_index,
 * runs at the slower of the two), this run's factor, the share of the host's
 * bandwidth, and a write into the cache by how much of a fold is done.
 * Return: 0 or -EINVAL.
 */
static int sim_rates(struct sim_phase *s, int rd_index, int index)
{
	const struct probe_job *j = s->j;
	const struct dev_demo_perf *m = &s->drive.perf;
	const struct probe_sim_state *st = s->st;

	/* A fold still going on: how much of it is done, as this run starts. */
	double folded = st->folding ? 1 - (double)st->cache_used / m->cache_bytes : 1;
	base_rates(m, j, &s->rd_rate, &s->wr_rate);
	s->native = m->native_write * probe_demo_run_factor(index, s->start_ms, true);
	double share = probe_demo_share(st->together);
	s->native *= share;
	s->rd_rate *= probe_demo_run_factor(index, s->start_ms, false) * share;
	s->wr_rate *= probe_demo_run_factor(index, s->start_ms, true) * share;
	bool two = j->op == PROBE_OP_COPY && rd_index != index;
	if (two) {
		/* Two drives: each does one thing, the slower sets the pace. */
		struct dev_demo_drive src;
		int deep = j->depth > 1;
		if (rd_index < 0 || dev_demo_drive((size_t)rd_index, &src) < 0)
			return -EINVAL;
		double rd = src.perf.seq_read[deep] *
			    probe_demo_run_factor(rd_index, s->start_ms, false);
		double wr = m->seq_write[deep] * probe_demo_run_factor(index, s->start_ms, true);
		s->rd_rate = s->wr_rate = 0.95 * (rd < wr ? rd : wr) * share;
	}
	s->wr_rate = dev_demo_cache_rate(s->wr_rate, s->native, folded);
	if (two)
		s->rd_rate = s->wr_rate; /* what it writes, it reads */
	return 0;
}

/* Whether the phase is over: its time, or its byte limit. */
static bool sim_over(const struct sim_phase *s)
{
	const struct probe_job *j = s->j;

	return (j->duration_ms > 0 && s->t >= j->duration_ms) ||
	       (j->max_bytes &&
		(j->op == PROBE_OP_READ ? s->rd_total : s->wr_total) >= j->max_bytes);
}

/* The bytes written in an interval of @secs: fast while the cache has room, native after. */
static uint64_t sim_write(struct sim_phase *s, double secs)
{
	const struct dev_demo_perf *m = &s->drive.perf;
	struct probe_sim_state *st = s->st;
	double fast = s->wr_rate * s->factor * wobble(s->n) * secs;
	double room = m->cache_bytes - (double)st->cache_used;
	uint64_t wr;

	if (room <= 0)
		wr = (uint64_t)(s->native * s->factor * wobble(s->n) * secs);
	else if (fast <= room)
		wr = (uint64_t)fast;
	else
		wr = (uint64_t)(room + (1 - room / fast) * s->native * s->factor * secs);
	/* The cache holds at most its size: past it, writes go native. */
	if (fast > room)
		st->folding = true;
	st->cache_used = (double)(st->cache_used + wr) > m->cache_bytes ? (uint64_t)m->cache_bytes
									: st->cache_used + wr;
	return wr;
}

/* Whole transfers of @b; the part of one left over goes with the next interval (@carry). */
static uint64_t sim_whole(uint64_t b, double *carry, uint32_t block_size)
{
	*carry += (double)(b % block_size);
	b -= b % block_size;
	if (*carry >= block_size) {
		uint64_t whole = (uint64_t)(*carry / block_size) * block_size;
		b += whole;
		*carry -= (double)whole;
	}
	return b;
}

/*
 * The simulated writes take leases as the engine's real ones do: @wr cut to
 * what is granted. Return: 0; 1 when the grant ran out (the last interval);
 * -1 when a lease was refused (the phase aborts).
 */
static int sim_lease(struct sim_phase *s, uint64_t *wr)
{
	const struct probe_job *j = s->j;
	uint64_t granted = s->lease;

	if (!*wr || !j->lease || s->wr_total + *wr <= s->lease)
		return 0;
	if (j->lease(j->lease_ctx, s->wr_total + *wr, &granted) < 0)
		return -1;
	if (granted > s->lease)
		s->lease = granted;
	if (s->wr_total + *wr <= s->lease)
		return 0;
	*wr = s->lease > s->wr_total ? (s->lease - s->wr_total) / j->block_size * j->block_size : 0;
	return 1;
}

/* The interval's point on the series. Return: 0 or -ENOMEM. */
static int sim_point(struct sim_phase *s, uint64_t rd, uint64_t wr)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct probe_point *nv = realloc(s->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = (struct probe_point){.t_ms = s->t, .rd_bytes = rd, .wr_bytes = wr};
	s->rd_total += rd;
	s->wr_total += wr;
	return 0;
}

/*
 * One interval: what it moves (the cache, whole transfers, the byte limit, the
 * leases), the time it takes, its point. Return: 0 go on; 1 the last one (a
 * byte limit or lease reached within it); -EINTR a lease refused (aborted,
 * no point); -ENOMEM.
 */
static int sim_interval(struct sim_phase *s, int64_t t0_ns, bool realtime)
{
	const struct probe_job *j = s->j;
	bool reads = j->op != PROBE_OP_WRITE, writes = j->op != PROBE_OP_READ;
	double secs = (double)s->interval / 1000.0;
	uint64_t rd = 0, wr = 0;

	if (s->t % 1000 == 0)
		s->factor = thermal_factor(&s->drive, s->start_ms + s->t);
	if (reads)
		rd = (uint64_t)(s->rd_rate * s->factor * wobble(s->n) * secs);
	if (writes)
		wr = sim_write(s, secs);
	/* What the interval would move, for the time a byte limit leaves of it. */
	double full = (double)(j->op == PROBE_OP_READ ? rd : wr);
	rd = sim_whole(rd, &s->rd_carry, j->block_size);
	wr = sim_whole(wr, &s->wr_carry, j->block_size);
	/* The byte limit ends the phase within this interval: it takes that long. */
	bool capped = false;
	if (j->max_bytes && j->op != PROBE_OP_READ && s->wr_total + wr > j->max_bytes) {
		wr = j->max_bytes - s->wr_total;
		capped = true;
	}
	int last = sim_lease(s, &wr);
	if (last < 0)
		return -EINTR;
	if (j->max_bytes && j->op == PROBE_OP_READ && s->rd_total + rd > j->max_bytes) {
		rd = j->max_bytes - s->rd_total;
		capped = true;
	}
	uint64_t done = j->op == PROBE_OP_READ ? rd : wr;
	int64_t step = s->interval;
	if ((capped || last) && full > 0 && (double)done < full) {
		step = (int64_t)((double)s->interval * (double)done / full);
		if (step < 1)
			step = 1;
	}
	s->t += step;
	if (realtime)
		sleep_until_ns(t0_ns + s->t * 1000000LL);
	int r = sim_point(s, rd, wr);
	return r < 0 ? r : last;
}

/* The phase's result: its series (taken from @s), totals and latencies by Little's law. */
static void sim_result(struct sim_phase *s, enum probe_stop stop, struct probe_result *ret)
{
	const struct probe_job *j = s->j;
	double secs = (double)s->t / 1000.0;

	*ret = (struct probe_result){
		.stop = stop,
		.wr_submitted = s->wr_total,
		.elapsed_ns = s->t * 1000000LL,
		.series = s->v,
		.n_series = s->n,
	};
	s->v = NULL;
	snprintf(ret->engine, sizeof(ret->engine), "%s", DEV_DEMO_ENGINE);
	struct probe_dir_stats *d[2] = {&ret->rd, &ret->wr};
	uint64_t tot[2] = {s->rd_total, s->wr_total};
	for (int k = 0; k < 2; k++) {
		if (!tot[k])
			continue;
		double iops = (double)tot[k] / j->block_size / (secs > 0 ? secs : 1);
		double lat = (double)j->depth / iops * 1e9; /* Little's law */
		*d[k] = (struct probe_dir_stats){
			.bytes = tot[k],
			.ios = tot[k] / j->block_size,
			.lat_p50_ns = (uint64_t)lat,
			.lat_p99_ns = (uint64_t)(lat * 1.6),
			.lat_p999_ns = (uint64_t)(lat * 3.1),
			.lat_max_ns = (uint64_t)(lat * 6),
		};
	}
}

/* @j on demo drive @index; a copy reads drive @rd_index (itself: copy-self). */
static int demo_run(int rd_index, int index, struct probe_sim_state *st, const struct probe_job *j,
		    int64_t start_ms, bool realtime, probe_tick_fn tick, void *tick_ctx,
		    struct probe_result *ret)
{
	struct sim_phase s = {
		.j = j,
		.st = st,
		.start_ms = start_ms,
		.factor = 1,
		.interval = j->interval_ms > 0 ? j->interval_ms : PROBE_INTERVAL_MS,
	};
	int64_t t0_ns = mono_ns();
	enum probe_stop stop = PROBE_STOP_DONE;
	int r = 0;

	if (index < 0 || dev_demo_drive((size_t)index, &s.drive) < 0 || j->block_size == 0 ||
	    j->depth == 0 || (j->duration_ms <= 0 && j->max_bytes == 0))
		return -EINVAL;
	sim_idle(&s);
	if (sim_rates(&s, rd_index, index) < 0)
		return -EINVAL;
	while (!sim_over(&s)) {
		r = sim_interval(&s, t0_ns, realtime);
		if (r == -EINTR) {
			stop = PROBE_STOP_ABORTED;
			break;
		}
		if (r < 0)
			goto out;
		int k = tick ? tick(tick_ctx, s.v, s.n) : 0;
		if (k == 1 || k == 2) {
			stop = k == 1 ? PROBE_STOP_EARLY : PROBE_STOP_ABORTED;
			break;
		}
		if (r == 1)
			break;
	}
	if (s.wr_total)
		st->idle_since_ms = start_ms + s.t;
	sim_result(&s, stop, ret);
	r = 0;
out:
	free(s.v);
	return r;
}

int probe_demo_run(int index, struct probe_sim_state *st, const struct probe_job *j,
		   int64_t start_ms, bool realtime, probe_tick_fn tick, void *tick_ctx,
		   struct probe_result *ret)
{
	return demo_run(index, index, st, j, start_ms, realtime, tick, tick_ctx, ret);
}

int probe_demo_run_copy(int rd_index, int index, struct probe_sim_state *st,
			const struct probe_job *j, int64_t start_ms, bool realtime,
			probe_tick_fn tick, void *tick_ctx, struct probe_result *ret)
{
	if (j->op != PROBE_OP_COPY)
		return -EINVAL;
	return demo_run(rd_index, index, st, j, start_ms, realtime, tick, tick_ctx, ret);
}

/* The drive of x->plan among the simulated ones: its controller and target. */
static int sim_open(struct exec_ctx *x, int *ret_fd, uint64_t *ret_area, bool *ret_writable)
{
	char name[DEV_NAME_MAX], path[DEV_NAME_MAX + 8];
	size_t index;

	(void)ret_area; /* the plan's probe file size: no file, no namespace to size */
	(void)ret_writable;
	*ret_fd = -1;
	if (dev_demo_find(x->plan->serial, &index, name, path) < 0 ||
	    (size_t)snprintf(x->ctrl, sizeof(x->ctrl), "%s", name) >= sizeof(x->ctrl)) {
		probe_run_set_reason(x, "no simulated drive has serial %s", x->plan->serial);
		return -ENODEV;
	}
	snprintf(x->out->run.target, sizeof(x->out->run.target), "%s", path);
	snprintf(x->out->run.engine, sizeof(x->out->run.engine), "%s", DEV_DEMO_ENGINE);
	x->out->run.nsid = x->plan->nsid;
	return 0;
}

/*
 * The engine's state of each drive it answers for, as a real drive keeps its own
 * cache between runs, whoever runs them (the daemon's service, a group, the
 * command line's series in one process). A drive runs one run at a time (its
 * probe lock); the lock is for the table, read and written by the runs' threads.
 */
static struct probe_sim_state sim_drives[DEV_DEMO_MAX];
static pthread_mutex_t sim_drives_lock = PTHREAD_MUTEX_INITIALIZER;

static int sim_run(struct exec_ctx *x, const struct probe_job *j, int64_t start_ms,
		   struct probe_result *res)
{
	size_t index, rd_index;
	struct probe_sim_state st;
	int r;

	if (dev_demo_index(x->ctrl, &index) < 0 || index >= DEV_DEMO_MAX ||
	    (x->src && dev_demo_index(x->src->ctrl, &rd_index) < 0))
		return -ENODEV;
	pthread_mutex_lock(&sim_drives_lock);
	st = sim_drives[index];
	pthread_mutex_unlock(&sim_drives_lock);
	st.together = x->plan->together;
	if (x->src)
		r = probe_demo_run_copy((int)rd_index, (int)index, &st, j, start_ms, true,
					probe_run_on_tick, x, res);
	else
		r = probe_demo_run((int)index, &st, j, start_ms, true, probe_run_on_tick, x, res);
	st.together = 0;
	pthread_mutex_lock(&sim_drives_lock);
	sim_drives[index] = st;
	pthread_mutex_unlock(&sim_drives_lock);
	return r;
}

const struct probe_run_engine probe_run_sim = {
	.name = DEV_DEMO_ENGINE,
	.open = sim_open,
	.run = sim_run,
};
