/* SPDX-License-Identifier: MIT */
/*
 * One probe run: target, phases, safety checks while it runs, analysis, and
 * its stored form. See probe_run.h. Never logs: the outcome carries the reason.
 * The target is opened and checked in probe_target.c; the run as JSON is in
 * probe_result.c.
 *
 * Before the target is opened, and again before every phase, the drive is
 * looked up by its serial and model (never by a name from an earlier scan),
 * and the open target is checked against it: a raw namespace by its device
 * number, NSID and WWID and the identity of every controller it is reached
 * through; the probe file by its recorded inode and the controller under its
 * filesystem. A raw namespace is written only through an O_EXCL handle held
 * for the whole run (the kernel then refuses mounts, swap, md/dm and
 * partition scans of it, in every mount namespace), and only while libblkid
 * finds no signature on it: checked before every write phase and every second
 * of one. Every write is covered by a lease recorded first (see
 * probe_hooks.charge), so whatever ends the run, no byte escapes the budget.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nvmond/probe/probe_run.h"
#include "nvmond/probe/probe_safety.h"
#include "nvmond/store/store.h"

#include "probe_run_internal.h"

void probe_run_set_reason(struct exec_ctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->reason, sizeof(x->reason), fmt, ap);
	va_end(ap);
}

int64_t probe_run_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The run's bytes so far: read (@rd), written (@wr), or both. */
static uint64_t run_bytes_so_far(const struct exec_ctx *x, bool rd, bool wr)
{
	uint64_t b = (rd ? x->phase_bytes - x->phase_wr : 0) + (wr ? x->phase_wr : 0);

	for (size_t k = 0; k < x->phase; k++)
		b += (rd ? x->out->res[k].rd.bytes : 0) + (wr ? x->out->res[k].wr.bytes : 0);
	return b;
}

/*
 * Foreground I/O on @d's drive (of run @x): it moved more than the probe's own
 * @probe bytes allow. Return: 2 (abort) with x->reason, or 0.
 */
static int foreground_check(struct exec_ctx *x, struct exec_ctx *d, uint64_t probe, int64_t run_ms)
{
	struct probe_diskstat now;

	if (!d->watch_disk || run_ms < d->next_ds_ms)
		return 0;
	d->next_ds_ms = run_ms + 1000;
	if (probe_drive_diskstat(d->plan->sysfs, d->ctrl, &now) < 0)
		return 0;
	if (probe_abort_check(now.sectors - d->ds.sectors,
			      (probe - d->ds_probe_bytes + d->in_flight) / 512, 0, 0, x->reason)) {
		if (d != x) {
			char why[PROBE_REASON_MAX];
			snprintf(why, sizeof(why), "%s", x->reason);
			probe_run_set_reason(x, "drive copied from (%s): %s", d->plan->serial, why);
		}
		return 2;
	}
	d->ds = now;
	d->ds_probe_bytes = probe;
	return 0;
}

/* copy-to: the drive read reaching its warning temperature stops the run too. */
static int source_smart(struct exec_ctx *x, int64_t run_ms)
{
	struct exec_ctx *sx = x->src;
	struct smart_log s;
	char why[PROBE_REASON_MAX];

	if (run_ms < sx->next_smart_ms)
		return 0;
	sx->next_smart_ms = run_ms + 1000;
	int r = x->h->read_smart_source
			? x->h->read_smart_source(x->h->ctx, sx->ctrl,
						  x->out->run.started_ms + run_ms, &s)
			: -EOPNOTSUPP;
	if (r == -ETIMEDOUT) {
		probe_run_set_reason(
			x,
			"drive copied from (%s): it did not answer a SMART read in "
			"time (unresponsive): stopped, its temperature cannot be watched",
			sx->plan->serial);
		return 2;
	}
	if (r < 0)
		return 0;
	if (!probe_abort_check(0, 0, s.temperature_k, sx->plan->wctemp_k, why))
		return 0;
	probe_run_set_reason(x, "drive copied from (%s): %s", sx->plan->serial, why);
	return 2;
}

/* ---- leases: no write without a record that covers it ---- */

static int charge(struct exec_ctx *x, uint64_t lease)
{
	int r = x->h->charge ? x->h->charge(x->h->ctx, lease, x->written + x->phase_wr) : 0;

	if (r < 0) {
		x->charge_failed = true;
		probe_run_set_reason(
			x, "cannot record the probe's writes in the database (%s): stopped writing",
			strerror(-r));
		return r;
	}
	x->last_charge_ns = probe_run_mono_ns();
	return 0;
}

/* Grant writes up to @want bytes of the run, recording a lease past it first. */
static int lease_run(struct exec_ctx *x, uint64_t want, uint64_t *ret_granted)
{
	if (want > x->lease && want <= x->plan->allowed_write) {
		int64_t ns = probe_run_mono_ns() - x->phase_t0_ns;
		double rate = ns > 1000000 ? (double)x->phase_sub * 1e9 / (double)ns : 0;
		uint64_t next = probe_lease_next(want, x->plan->allowed_write, rate);
		int r = charge(x, next);
		if (r < 0)
			return r;
		x->lease = next;
	}
	*ret_granted = x->lease;
	return 0;
}

/* The engine's lease, in its phase's own bytes. */
int probe_run_phase_lease(void *ctx, uint64_t want, uint64_t *ret_granted)
{
	struct exec_ctx *x = ctx;
	uint64_t g = 0;
	int r;

	x->phase_sub = want;
	r = lease_run(x, x->base + want, &g);
	*ret_granted = g > x->base ? g - x->base : 0;
	return r;
}

/* One SMART sample into the run's record; 1 when the drive reached WCTEMP. */
static int sample_smart(struct exec_ctx *x, int64_t run_ms)
{
	struct probe_outcome *o = x->out;
	struct smart_log s;
	int r = x->h->read_smart
			? x->h->read_smart(x->h->ctx, x->ctrl, o->run.started_ms + run_ms, &s)
			: -EOPNOTSUPP;

	if (r == -ETIMEDOUT) {
		/* A hung controller (the guard's deadline): never write on blind. */
		x->smart_unanswered = true;
		probe_run_set_reason(x, "the drive did not answer a SMART read in time "
					"(unresponsive): stopped, its temperature cannot be "
					"watched");
		return 1;
	}
	if (r < 0)
		return 0;
	if (o->n_thermal == x->thermal_cap) {
		size_t cap = x->thermal_cap ? 2 * x->thermal_cap : 64;
		struct cliff_thermal *v = realloc(o->thermal, cap * sizeof(*v));
		if (!v)
			return 0;
		o->thermal = v;
		x->thermal_cap = cap;
	}
	o->thermal[o->n_thermal++] = (struct cliff_thermal){
		.t_ms = run_ms,
		.temp_k = s.temperature_k,
		.t1_count = s.thm_temp1_trans_count,
		.t2_count = s.thm_temp2_trans_count,
		.t1_time_s = s.thm_temp1_total_time,
		.t2_time_s = s.thm_temp2_total_time,
		.warning_temp_time_min = s.warning_temp_time,
	};
	return probe_abort_check(0, 0, s.temperature_k, x->plan->wctemp_k, x->reason);
}

int probe_run_on_tick(void *ctx, const struct probe_point *v, size_t n)
{
	struct exec_ctx *x = ctx;
	int64_t run_ms = x->phase_offset_ms + v[n - 1].t_ms;

	x->phase_bytes += v[n - 1].rd_bytes + v[n - 1].wr_bytes;
	x->phase_wr += v[n - 1].wr_bytes;
	if (x->h->progress)
		x->h->progress(x->h->ctx, x->step, v, n);
	if (x->h->cancelled && x->h->cancelled(x->h->ctx)) {
		probe_run_set_reason(x, "cancelled");
		return 2;
	}
	/* What was written is on record every second (the lease covers the rest). */
	if (x->writing && probe_run_mono_ns() - x->last_charge_ns >= 1000000000LL &&
	    charge(x, x->lease) < 0)
		return 2;
	if (x->writing && x->sig_fd >= 0 && run_ms >= x->next_sig_ms) {
		x->next_sig_ms = run_ms + 1000;
		if (probe_target_signature(x, " during the write phase"))
			return 2;
	}
	if (run_ms >= x->next_smart_ms) {
		x->next_smart_ms = run_ms + 1000;
		if (sample_smart(x, run_ms))
			return 2;
	}
	/* copy-to: this drive only writes, the other only reads; each is watched. */
	if (foreground_check(x, x, run_bytes_so_far(x, !x->src, true), run_ms))
		return 2;
	if (x->src && (foreground_check(x, x->src, run_bytes_so_far(x, true, false), run_ms) ||
		       source_smart(x, run_ms)))
		return 2;
	if (x->sustained) {
		if (n > x->cp_cap) {
			size_t cap = n * 2;
			struct cliff_point *cp = realloc(x->cp, cap * sizeof(*cp));
			if (!cp)
				return 0;
			x->cp = cp;
			x->cp_cap = cap;
		}
		for (size_t i = 0; i < n; i++)
			x->cp[i] = (struct cliff_point){.t_ms = v[i].t_ms, .bytes = v[i].wr_bytes};
		if (cliff_sustained(x->cp, n, NULL, NULL))
			return 1;
	}
	return 0;
}

static const char *stop_name(enum probe_stop s)
{
	switch (s) {
	case PROBE_STOP_DONE:
		return "done";
	case PROBE_STOP_EARLY:
		return "early";
	case PROBE_STOP_ABORTED:
		return "aborted";
	case PROBE_STOP_FAILED:
		return "failed";
	}
	return "?";
}

static void analyse(struct probe_outcome *o, size_t k)
{
	const struct probe_result *res = &o->res[k];
	struct cliff_point *cp = calloc(res->n_series ? res->n_series : 1, sizeof(*cp));
	bool writes = res->wr.bytes > 0;

	o->n_ev[k] = 0;
	if (!cp)
		return;
	for (size_t i = 0; i < res->n_series; i++)
		cp[i] = (struct cliff_point){
			.t_ms = res->series[i].t_ms,
			.bytes = writes ? res->series[i].wr_bytes : res->series[i].rd_bytes,
		};
	/* Thermal samples in the phase's own time. */
	struct cliff_thermal *th = calloc(o->n_thermal ? o->n_thermal : 1, sizeof(*th));
	if (th) {
		for (size_t i = 0; i < o->n_thermal; i++) {
			th[i] = o->thermal[i];
			th[i].t_ms -= o->phase[k].offset_ms;
		}
		(void)cliff_analyze(cp, res->n_series, th, o->n_thermal, NULL, o->ev[k],
				    CLIFF_MAX_EVENTS, &o->n_ev[k]);
	}
	free(th);
	free(cp);
}

/* The block device: the target as probe_target.c opens it, its disk's I/O watched. */
static int block_open(struct exec_ctx *x, int *ret_fd, uint64_t *ret_area, bool *ret_writable)
{
	int r = probe_target_open(x, ret_fd, ret_area, ret_writable);

	if (r == 0)
		x->watch_disk = probe_drive_diskstat(x->plan->sysfs, x->ctrl, &x->ds) == 0;
	return r;
}

static int block_run(struct exec_ctx *x, const struct probe_job *j, int64_t start_ms,
		     struct probe_result *res)
{
	(void)start_ms; /* real time */
	if (x->src)
		return probe_engine_run_copy(x->src->fd, x->fd, j, probe_run_on_tick, x, res);
	return probe_engine_run(x->fd, j, probe_run_on_tick, x, res);
}

const struct probe_run_engine probe_run_block = {
	.open = block_open,
	.check = probe_target_check,
	.run = block_run,
};

static const struct probe_run_engine *engine_of(const struct probe_plan *plan)
{
	return plan->own_probes ? &probe_run_sim : &probe_run_block;
}

/*
 * How a run goes: on, phase after phase, until one of the last three. The
 * last phase's stop decides between going on and stopped: a sustained-write
 * phase stopped at its cliff lets the next phase run.
 */
enum run_end {
	RUN_GOING,   /* the last phase ran to its end (or none ran yet) */
	RUN_STOPPED, /* the last phase stopped early (a sustained cliff) */
	RUN_ABORTED, /* a check stopped it: the target's reason says why */
	RUN_FAILED,  /* refused, or an error: out->run.reason says where */
};

/* probe_execute()'s state: the drives, the preset, how far it got. */
struct run {
	struct exec_ctx x; /* the target's, and the run's */
	const struct probe_preset *pre;
	const struct probe_run_engine *eng;
	enum run_end end;
	bool skipped_writes; /* a write phase was left out (no budget, a read-only target) */
	uint32_t align;	     /* a sweep's smallest transfer: the target's block size */
	int64_t offset;	     /* the next phase's start, in the run's time */
};

/* The run fails with @x's reason as the run's. */
static void run_fail(struct run *rn, const struct exec_ctx *x)
{
	snprintf(rn->x.out->run.reason, sizeof(rn->x.out->run.reason), "%s", x->reason);
	rn->end = RUN_FAILED;
}

/*
 * copy-to: open plan->source's drive for reading only (its probe file as
 * nvmond made it, or its raw namespace), looked up by identity as the target
 * is. Its state goes to x->src. Return: 0, or negative errno with x->reason.
 */
static int source_open(struct exec_ctx *x)
{
	const struct probe_plan *sp = x->plan->source;
	struct exec_ctx *sx = calloc(1, sizeof(*sx));
	struct probe_outcome *so = calloc(1, sizeof(*so));
	int r;

	if (!sx || !so) {
		free(sx);
		free(so);
		probe_run_set_reason(x, "out of memory");
		return -ENOMEM;
	}
	*sx = (struct exec_ctx){.plan = sp,
				.role = RUN_SOURCE,
				.h = x->h,
				.out = so,
				.fd = -1,
				.area = sp->file_size,
				.sig_fd = -1};
	x->src = sx;
	x->out->run.source_device_id = sp->device_id;
	sx->next_smart_ms = 1000;
	sx->next_ds_ms = 1000;
	r = engine_of(sp)->open(sx, &sx->fd, &sx->area, &sx->writable);
	if (r == 0 && (sx->writable || sx->sig_fd >= 0)) {
		r = -EPERM; /* never: it was asked for read-only */
		probe_run_set_reason(sx, "opened for writing: refused");
	}
	if (r < 0) {
		if (sx->fd >= 0)
			close(sx->fd);
		sx->fd = -1;
		probe_run_set_reason(x, "drive copied from (%s): %s", sp->serial, sx->reason);
		return r;
	}
	snprintf(x->out->run.source_target, sizeof(x->out->run.source_target), "%s",
		 so->run.target);
	return 0;
}

/* A drive's descriptors closed, a source's state freed. */
static void drive_close(struct exec_ctx *x)
{
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
	if (x->sig_fd >= 0)
		close(x->sig_fd);
	x->sig_fd = -1;
	if (x->role == RUN_SOURCE) {
		free(x->out);
		free(x);
	}
}

static bool is_cancelled(const struct exec_ctx *x)
{
	return x->h->cancelled && x->h->cancelled(x->h->ctx);
}

/* The outcome before anything runs: "failed", nothing moved. */
static void outcome_begin(struct probe_outcome *out)
{
	out->n_phases = 0;
	out->thermal = NULL;
	out->n_thermal = 0;
	out->run.bytes_written = 0;
	out->run.bytes_read = 0;
	out->run.nsid = 0;
	out->run.reason[0] = '\0';
	snprintf(out->run.state, sizeof(out->run.state), "failed");
}

/*
 * Phase 1: the preset and the plan agree (a copy-to reads another drive,
 * which it never writes; nothing else has a source). Return: 0, or -EINVAL
 * (the run fails).
 */
static int run_check_plan(struct run *rn)
{
	const struct probe_plan *plan = rn->x.plan;
	struct probe_outcome *out = rn->x.out;

	if (!rn->pre) {
		snprintf(out->run.reason, sizeof(out->run.reason), "unknown preset");
		return -EINVAL;
	}
	if (rn->pre->copy_to != !!plan->source ||
	    (plan->source && (plan->source->allowed_write || engine_of(plan->source) != rn->eng))) {
		snprintf(out->run.reason, sizeof(out->run.reason),
			 "copy-to needs the drive to copy from, and only reads it");
		return -EINVAL;
	}
	return 0;
}

/*
 * Phase 2: the drives opened, the source first (refused, nothing is written on
 * the other), then the target, whose first SMART sample must come: a drive
 * that does not answer is refused before the first write. Return: 0, or
 * negative errno (the run fails with the reason).
 */
static int run_open(struct run *rn)
{
	struct exec_ctx *x = &rn->x;
	int r;

	r = x->plan->source ? source_open(x) : 0;
	if (r == 0)
		r = rn->eng->open(x, &x->fd, &x->area, &x->writable);
	if (r == 0 && sample_smart(x, 0) && x->smart_unanswered)
		r = -ETIMEDOUT;
	if (r < 0) {
		run_fail(rn, x);
		return r;
	}
	x->next_smart_ms = 1000;
	x->next_ds_ms = 1000;
	/* A sweep runs the transfer sizes the target can address. */
	rn->align = 512; /* the simulated drives' LBA size */
	if (rn->pre->sweep && x->fd >= 0 && probe_target_align(x->fd, &rn->align) < 0)
		rn->align = 4096;
	return 0;
}

/* What phase @k does next. */
enum phase_go {
	PHASE_RUN,  /* its job is ready */
	PHASE_SKIP, /* left out: a sweep point the target cannot do, a write with no budget */
	PHASE_END,  /* the run cannot go on (rn->end says why) */
};

/*
 * Phase 3, for each of the preset's phases: its job @j (a write within what
 * is left of the run's reservation), or why it is left out.
 */
static enum phase_go phase_job(struct run *rn, size_t k, struct probe_job *j)
{
	struct exec_ctx *x = &rn->x;
	const struct probe_plan *plan = x->plan;
	uint64_t left = plan->allowed_write > x->base ? plan->allowed_write - x->base : 0;
	uint64_t max_write = left / MiB * MiB;

	probe_preset_job(rn->pre, k, x->area, plan->phase_ms, max_write, j);
	if (rn->pre->sweep) {
		if (j->block_size < rn->align || j->block_size > x->area)
			return PHASE_SKIP;
		j->depth = plan->sweep_depth ? plan->sweep_depth : PROBE_SWEEP_DEPTH;
	}
	if (j->op != PROBE_OP_READ && (!x->writable || max_write < j->block_size)) {
		if (rn->pre->n_phases > 1) {
			rn->skipped_writes = true;
			return PHASE_SKIP;
		}
		if (!x->out->run.reason[0])
			snprintf(x->out->run.reason, sizeof(x->out->run.reason),
				 "no write budget left");
		rn->end = RUN_FAILED;
		return PHASE_END;
	}
	if (x->src)
		j->length = x->src->area; /* all of the source's area is read */
	return PHASE_RUN;
}

/*
 * Before the phase (@writes: it writes the target): not cancelled, and each
 * drive of the run still the one opened. Return: 0, or -1 (aborted, with the
 * target's reason).
 */
static int phase_checks(struct run *rn, bool writes)
{
	struct exec_ctx *x = &rn->x;

	if (is_cancelled(x)) {
		probe_run_set_reason(x, "cancelled");
		return -1;
	}
	if (!rn->eng->check)
		return 0;
	if (rn->eng->check(x, x->fd, writes) < 0)
		return -1;
	if (x->src && rn->eng->check(x->src, x->src->fd, false) < 0) {
		probe_run_set_reason(x, "drive copied from: %s", x->src->reason);
		return -1;
	}
	return 0;
}

/* The run's state for phase @k of job @j: its place, its counters, its leases. */
static void phase_begin(struct run *rn, size_t k, struct probe_job *j)
{
	struct exec_ctx *x = &rn->x;

	x->phase = x->out->n_phases;
	x->step = k;
	x->in_flight = (uint64_t)j->depth * j->block_size;
	if (x->src)
		x->src->in_flight = x->in_flight;
	x->phase_offset_ms = rn->offset;
	x->phase_bytes = 0;
	x->phase_wr = 0;
	x->phase_sub = 0;
	x->phase_t0_ns = probe_run_mono_ns();
	x->writing = j->op != PROBE_OP_READ;
	x->next_sig_ms = rn->offset + 1000;
	x->sustained = rn->pre->sustained || (rn->pre->study && x->plan->study_fill);
	j->lease = probe_run_phase_lease;
	j->lease_ctx = x;
}

/* The phase's row from job @j and result @res. */
static void phase_row(struct run *rn, size_t k, const struct probe_job *j,
		      const struct probe_result *res)
{
	struct probe_phase_row *ph = &rn->x.out->phase[rn->x.phase];

	*ph = (struct probe_phase_row){
		.phase = rn->x.phase,
		.random = j->random,
		.block_size = j->block_size,
		.depth = j->depth,
		.elapsed_ms = res->elapsed_ns / 1000000,
		.offset_ms = rn->offset,
		.interval_ms = j->interval_ms,
		.rd = res->rd,
		.wr = res->wr,
		.cpu_user_us = res->cpu_user_us,
		.cpu_sys_us = res->cpu_sys_us,
	};
	snprintf(ph->name, sizeof(ph->name), "%s", rn->pre->phase[k].name);
	snprintf(ph->op, sizeof(ph->op), "%s", probe_op_name(j->op));
	snprintf(ph->stop, sizeof(ph->stop), "%s", stop_name(res->stop));
}

/*
 * After phase @k: what it moved on record (@r, the engine's answer: a phase
 * that measured nothing is not one), and whether the run goes on.
 */
static void phase_end(struct run *rn, size_t k, const struct probe_job *j, int r)
{
	struct exec_ctx *x = &rn->x;
	struct probe_outcome *out = x->out;
	const struct probe_result *res = &out->res[x->phase];

	if (r < 0 && res->stop != PROBE_STOP_FAILED) {
		/* Nothing measured: charge what its leases allowed. */
		if (x->lease > x->base)
			x->base = x->lease;
		snprintf(out->run.reason, sizeof(out->run.reason), "%s phase: %s",
			 rn->pre->phase[k].name, strerror(-r));
		rn->end = RUN_FAILED;
		return;
	}
	phase_row(rn, k, j, res);
	if (!rn->eng->name)
		snprintf(out->run.engine, sizeof(out->run.engine), "%s", res->engine);
	x->base += res->wr_submitted;
	x->written += res->wr.bytes;
	out->run.bytes_written = x->written;
	out->run.bytes_read += res->rd.bytes;
	out->n_phases++;
	rn->offset += out->phase[x->phase].elapsed_ms;
	if (r < 0) {
		snprintf(out->run.reason, sizeof(out->run.reason), "%s phase: %s",
			 rn->pre->phase[k].name, strerror(-r));
		rn->end = RUN_FAILED;
	} else {
		rn->end = res->stop == PROBE_STOP_ABORTED ? RUN_ABORTED
			  : res->stop == PROBE_STOP_EARLY ? RUN_STOPPED
							  : RUN_GOING;
	}
}

/* Phase 3: the preset's phases, one after the other, until one ends the run. */
static void run_phases(struct run *rn)
{
	struct exec_ctx *x = &rn->x;

	for (size_t k = 0; k < rn->pre->n_phases && rn->end < RUN_ABORTED; k++) {
		struct probe_job j;
		enum phase_go go = phase_job(rn, k, &j);
		if (go == PHASE_SKIP)
			continue;
		if (go == PHASE_END)
			return;
		if (phase_checks(rn, j.op != PROBE_OP_READ) < 0) {
			rn->end = RUN_ABORTED;
			return;
		}
		if (x->h->phase_start)
			x->h->phase_start(x->h->ctx, k);
		phase_begin(rn, k, &j);
		struct probe_result *res = &x->out->res[x->phase];
		*res = (struct probe_result){0};
		int r = rn->eng->run(x, &j, x->out->run.started_ms + rn->offset, res);
		x->writing = false;
		phase_end(rn, k, &j, r);
	}
}

/* Phase 4: the phases analysed, the run's state and reason from how it ended. */
static void run_settle(struct run *rn)
{
	struct probe_outcome *out = rn->x.out;

	/* A cancel that came while the last I/O drained still counts. */
	if (rn->end < RUN_ABORTED && is_cancelled(&rn->x)) {
		probe_run_set_reason(&rn->x, "cancelled");
		rn->end = RUN_ABORTED;
	}
	for (size_t k = 0; k < out->n_phases; k++)
		analyse(out, k);
	if (rn->end == RUN_FAILED)
		return; /* state stays "failed", the reason says where */
	if (rn->end == RUN_ABORTED) {
		snprintf(out->run.state, sizeof(out->run.state), "aborted");
		snprintf(out->run.reason, sizeof(out->run.reason), "%s", rn->x.reason);
		return;
	}
	bool stopped = rn->end == RUN_STOPPED;
	snprintf(out->run.state, sizeof(out->run.state), stopped ? "stopped" : "done");
	if (stopped)
		snprintf(out->run.reason, sizeof(out->run.reason),
			 "the write rate fell and stayed down");
	else if (rn->skipped_writes && !out->run.reason[0])
		snprintf(out->run.reason, sizeof(out->run.reason),
			 "write phase skipped: no write budget left");
	else if (rn->skipped_writes)
		strncat(out->run.reason, " (write phase skipped)",
			sizeof(out->run.reason) - strlen(out->run.reason) - 1);
}

/* Phase 5, whatever ended the run: what it may have written, the drives closed. */
static void run_close(struct run *rn)
{
	struct exec_ctx *x = &rn->x;
	struct probe_outcome *out = x->out;

	/* Every byte handed to the kernel may have reached the drive. */
	out->run.bytes_charged =
		x->base > out->run.bytes_written ? x->base : out->run.bytes_written;
	out->run.bytes_lease = x->lease;
	drive_close(x);
	if (x->src)
		drive_close(x->src);
	x->src = NULL;
	free(x->cp);
}

int probe_execute(const struct probe_plan *plan, const struct probe_hooks *h,
		  struct probe_outcome *out)
{
	struct run rn = {
		.x = {.plan = plan,
		      .role = RUN_TARGET,
		      .h = h,
		      .out = out,
		      .fd = -1,
		      .area = plan->file_size,
		      .writable = true,
		      .sig_fd = -1},
		.pre = probe_preset_get(plan->preset),
		.eng = engine_of(plan),
	};

	outcome_begin(out);
	rn.x.last_charge_ns = probe_run_mono_ns();
	if (run_check_plan(&rn) == 0 && run_open(&rn) == 0) {
		run_phases(&rn);
		run_settle(&rn);
	}
	run_close(&rn);
	return 0;
}

void probe_outcome_clear(struct probe_outcome *o)
{
	for (size_t k = 0; k < o->n_phases; k++)
		probe_result_clear(&o->res[k]);
	o->n_phases = 0;
	free(o->thermal);
	o->thermal = NULL;
	o->n_thermal = 0;
}

int probe_outcome_save(struct store *s, const struct probe_outcome *o)
{
	int r;

	for (size_t k = 0; k < o->n_phases; k++) {
		r = store_probe_phase_insert(s, o->run.id, &o->phase[k], o->res[k].series,
					     o->res[k].n_series, o->ev[k], o->n_ev[k]);
		if (r < 0)
			return r;
	}
	r = store_probe_thermal_insert(s, o->run.id, o->thermal, o->n_thermal);
	if (r < 0)
		return r;
	return store_probe_run_update(s, &o->run);
}
