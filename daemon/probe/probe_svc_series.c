/* SPDX-License-Identifier: MIT */
/*
 * Repeated probe runs in the daemon (`repeat`, and the cache-recovery study's
 * bursts): the idle time between runs on a main-loop timer, the next run
 * through probe_svc_start_on_loop() (every gate again), the end of a series
 * and its spec check. See probe_svc.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/core/log.h"
#include "nvmond/probe/probe_run.h"
#include "nvmond/probe/probe_series.h"
#include "nvmond/store/store_probe.h"
#include "nvmond/store/store_probe_study.h"
#include "nvmond/util/timefmt.h"

#include "probe_svc_internal.h"

static bool run_measured(const char *state)
{
	return !strcmp(state, "done") || !strcmp(state, "stopped");
}

/*
 * The series of @d ended (all its runs, or one that did not finish): the spec
 * check goes to the listener (the below_rated rule).
 */
static void series_end(struct probe_svc *p, struct probe_dev *d)
{
	struct probe_series_state *s = &d->series;
	struct fleet_device fd;
	struct probe_rated rated;
	struct rated_verdict v;

	if (s->timer && p->loop)
		(void)loop_cancel_timer(p->loop, s->timer);
	s->timer = 0;
	s->active = false;
	log_info("probe series %" PRId64 " (%s) ended", s->series_id,
		 probe_preset_get(s->preset)->name);
	if (!p->on_rated || !probe_preset_spec_checked(probe_preset_get(s->preset)) ||
	    fleet_get(p->fleet, d->device_id, &fd) < 0)
		return;
	probe_rated_for(&p->cfg, fd.row.model, fd.row.serial, &rated);
	if (!rated.source || probe_series_check(p->store, s->series_id, &rated, &v) < 0)
		return;
	/* The rule needs a repeated run: a series that measured once says nothing. */
	struct probe_run_row *runs = NULL;
	size_t n = 0, measured = 0;
	if (store_probe_series_runs(p->store, s->series_id, &runs, &n) == 0)
		for (size_t i = 0; i < n; i++)
			measured += run_measured(runs[i].state);
	free(runs);
	if (v.known && measured >= 2)
		p->on_rated(p->on_rated_ctx, &fd.row, &v, timefmt_now_ms());
}

/* A run the series did not run (refused at its start, cancelled in the cooldown), on record. */
void probe_series_skip_record(struct probe_svc *p, struct probe_dev *d, const char *reason)
{
	struct probe_series_state *s = &d->series;
	struct probe_run_row skip = {.device_id = d->device_id,
				     .series_id = s->series_id,
				     .series_index = s->next_index,
				     .series_of = s->of};

	(void)probe_series_skip_insert(p->store, &skip, probe_preset_get(s->preset)->name,
				       s->trigger, reason, timefmt_now_ms());
}

/* The study looks at the drive this often while it waits (its idle clock's resolution). */
#define STUDY_TICK_MS 1000

/* The interval the study's next burst is due at (idle since the cliff), or -1: none. */
static int64_t study_interval(const struct probe_series_state *s)
{
	if (!s->is_study || s->next_index < 2 || s->next_index - 2 >= s->study.n_intervals)
		return -1;
	return s->study.interval_ms[s->next_index - 2];
}

/* The idle time before the next run: the cooldown, or until the study's clock is looked at. */
static int64_t series_wait_ms(const struct probe_series_state *s)
{
	int64_t iv = study_interval(s);

	if (iv < 0)
		return s->cooldown_ms;
	int64_t left = recovery_idle_left(&s->study.idle, iv);
	return left < STUDY_TICK_MS ? left : STUDY_TICK_MS;
}

/*
 * Recovery needs real idle time: the study's idle clock goes on only while the
 * drive is not busy (the probes' rule); a busy drive pauses it, which puts the
 * burst (and the later ones) off. Return: true when the burst is due, with the
 * clock stopped for its run.
 */
static bool study_due(struct probe_svc *p, struct probe_dev *d)
{
	struct probe_series_state *s = &d->series;
	struct probe_study *st = &s->study;
	struct gate_facts g = {.scheduled = true};
	int64_t now = timefmt_mono_ms();
	bool busy = probe_svc_busy_since(p, d, st->own_end_mono, &g);

	recovery_idle_observe(&st->idle, now, busy);
	if (busy != st->busy_seen)
		log_info("cache-recovery study %" PRId64 ": %s (%.0f IO/s, %.1f MB/s); %.0f s idle "
			 "since the cliff, %.0f s paused",
			 s->series_id,
			 busy ? "the drive is busy: the wait pauses"
			      : "the drive is idle again: the wait goes on",
			 g.busy_iops, g.busy_bps / 1e6, (double)st->idle.idle_ms / 1000.0,
			 (double)st->idle.paused_ms / 1000.0);
	st->busy_seen = busy;
	if (recovery_idle_left(&st->idle, study_interval(s)) > 0)
		return false;
	recovery_idle_run(&st->idle, now, busy);
	return true;
}

static int64_t series_next(struct loop *l, void *userdata)
{
	struct probe_dev *d = userdata;
	struct probe_series_state *s = &d->series;
	struct probe_svc *p = s->svc;

	if (study_interval(s) >= 0 && !study_due(p, d))
		return series_wait_ms(s);
	struct start_call c = {.svc = p,
			       .device_id = d->device_id,
			       .preset = s->preset,
			       .trigger = s->trigger,
			       .next_of_series = true};

	(void)l;
	s->timer = 0;
	if (probe_svc_start_on_loop(&c) < 0) {
		log_info("probe series %" PRId64 ": run %u of %u not started: %s", s->series_id,
			 s->next_index, s->of, c.reason);
		series_end(p, d);
		return -1;
	}
	if (s->is_study) {
		const struct recovery_idle *id = &s->study.idle;
		log_info("cache-recovery study %" PRId64 ": burst %u of %u (probe %" PRId64
			 ") after %.0f s idle since the cliff, %.0f s paused for a busy drive",
			 s->series_id, s->next_index - 2, s->of - 1, c.ret_id,
			 (double)id->idle_ms / 1000.0, (double)id->paused_ms / 1000.0);
		if (store_probe_study_burst_put(p->store, c.ret_id, id->idle_ms, id->paused_ms) < 0)
			log_warn("probe %" PRId64 ": cannot store its idle time: %s", c.ret_id,
				 store_strerror(p->store));
	}
	return -1;
}

/* After run @j of @d's series: the cooldown before the next, or the end. */
void probe_series_after_run(struct probe_svc *p, struct probe_dev *d, const struct probe_job_ctx *j)
{
	struct probe_series_state *s = &d->series;

	char verdict[PROBE_REASON_MAX] = "";
	bool over = false;

	if (s->is_study && run_measured(j->out.run.state)) {
		over = probe_study_after(&s->study, &j->out, j->out.run.series_index, verdict);
		if (verdict[0])
			log_info("cache-recovery study %" PRId64 ": burst %u of %u: %s",
				 s->series_id, j->out.run.series_index - 1, s->of - 1, verdict);
	}
	if (over || !run_measured(j->out.run.state) || atomic_load(&j->cancel) ||
	    s->next_index > s->of || !p->loop) {
		series_end(p, d);
		return;
	}
	if (s->is_study) {
		/* The study waits: its idle clock runs again from the end of its own writes. */
		s->study.idle_net = true;
		s->study.own_end_mono = timefmt_mono_ms();
		s->study.busy_seen = false;
		recovery_idle_wait(&s->study.idle, s->study.own_end_mono);
	}
	/* Idle: nothing of nvmond's runs on the drive until the timer fires. */
	int64_t t = loop_add_timer(p->loop, series_wait_ms(s), series_next, d);
	if (t < 0) {
		probe_series_skip_record(p, d, "cannot arm the cooldown's timer");
		series_end(p, d);
		return;
	}
	s->timer = t;
}

bool probe_series_cancel(struct probe_svc *p, struct probe_dev *d, int64_t run_id, const char *why)
{
	struct probe_series_state *s = &d->series;

	if (!s->active || (run_id != s->series_id && run_id != s->last_run_id))
		return false;
	if (d->job && d->job->out.run.series_id == s->series_id) {
		/* Its end (finish_on_loop) ends the series. */
		(void)probe_job_cancel(d->job, why);
		return true;
	}
	char reason[PROBE_REASON_MAX];
	snprintf(reason, sizeof(reason), "%s during the cooldown", why);
	probe_series_skip_record(p, d, reason);
	series_end(p, d);
	return true;
}

void probe_svc_on_rated(struct probe_svc *p, probe_rated_fn fn, void *ctx)
{
	p->on_rated = fn;
	p->on_rated_ctx = ctx;
}
