/* SPDX-License-Identifier: MIT */
/*
 * Scheduled self-tests: the schedule of each drive, the catch-up at start, and
 * the timer that starts (or skips, with why) what falls due. See selftest_svc.h;
 * the calendar arithmetic is analysis/selftest_sched.c (pure).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvmond/core/log.h"
#include "nvmond/demo/demo.h"
#include "nvmond/selftest/selftest_conf.h"
#include "nvmond/store/store_selftest.h"
#include "nvmond/util/timefmt.h"

#include "selftest_internal.h"

#define TICK_SLACK_MS 500 /* a due test starts this long after its minute begins */

static int64_t utc_offset_s(int64_t now_ms)
{
	time_t t = (time_t)(now_ms / 1000);
	struct tm tm;

	return localtime_r(&t, &tm) ? tm.tm_gmtoff : 0;
}

char *selftest_plan_schedule_of(const struct cfg *c, const struct device_row *row, char *buf,
				size_t len)
{
	struct cfg_device cd;

	cfg_device_for(c, row->model, row->serial, &cd);
	return selftest_schedule_in_effect(cd.selftest_schedule, selftest_conf(c)->default_schedule,
					   buf, len);
}

int selftest_plan_check(const struct cfg *c, char ret_err[SELFTEST_SVC_ERR_MAX])
{
	struct selftest_sched v[SELFTEST_SCHED_MAX];
	char e[SELFTEST_SCHED_ERR];
	size_t n;

	if (selftest_sched_parse(selftest_conf(c)->default_schedule, v, &n, e) < 0) {
		snprintf(ret_err, SELFTEST_SVC_ERR_MAX, "[selftests] default_schedule: %s", e);
		return -EINVAL;
	}
	for (size_t i = 0; i < c->n_devices; i++)
		if (selftest_sched_parse(c->devices[i].selftest_schedule, v, &n, e) < 0) {
			snprintf(ret_err, SELFTEST_SVC_ERR_MAX,
				 "[device \"%s\"] selftest_schedule: %s", c->devices[i].match, e);
			return -EINVAL;
		}
	return 0;
}

/* The next scheduled test of @d after @now into the fleet's view. */
static void plan_next(struct selftest_svc *t, struct stdev *d, int64_t now)
{
	int64_t off = utc_offset_s(now), best = 0;
	uint8_t code = 0;

	for (size_t i = 0; d->supported && i < d->n_sched; i++) {
		int64_t at = selftest_sched_next(&d->sched[i], now, off);
		uint8_t c = selftest_sched_type_code(d->sched[i].type);
		/* Two at once: the extended test runs (see plan_run()). */
		if (!best || at < best || (at == best && c == SELFTEST_CODE_EXTENDED)) {
			best = at;
			code = c;
		}
	}
	if (d->st.next_ms != best || d->st.next_code != code) {
		d->st.next_ms = best;
		d->st.next_code = code;
		(void)fleet_put_selftest(t->fleet, d->id, &d->st);
	}
	/* A new drive, a new schedule: the tick wakes the loop for it. */
	if (best && t->loop && t->plan_timer > 0)
		(void)loop_timer_pull(t->loop, t->plan_timer,
				      best - now > 0 ? best - now + TICK_SLACK_MS : 0);
}

/*
 * A drive of a backend whose drives run self-tests of their own
 * (DEV_CAP_OWN_SELFTESTS: the demo drives, demo.h st_schedule), and whose
 * schedule nobody configured, runs that schedule through the scheduler, as a
 * user's drive would: from now on the backend leaves its tests to the daemon.
 */
static void own_schedule(struct selftest_svc *t, struct stdev *d)
{
	struct cfg_device cd;
	const char *own;

	if (!t->own_selftests || d->sched_str[0])
		return;
	cfg_device_for(&t->cfg, d->row.model, d->row.serial, &cd);
	if (selftest_conf(&t->cfg)->default_schedule[0] ||
	    cfg_device_sets(&cd, "selftest_schedule"))
		return; /* configured, also as "none" */
	own = dev_demo_selftest_schedule(d->row.name);
	if (!own)
		return;
	snprintf(d->sched_str, sizeof(d->sched_str), "%s", own);
	if (dev_demo_selftest_handover(t->backend, d->row.name, timefmt_now_ms()) < 0)
		d->sched_str[0] = '\0';
}

void selftest_plan_load(struct selftest_svc *t, struct stdev *d)
{
	const char *s =
		selftest_plan_schedule_of(&t->cfg, &d->row, d->sched_str, sizeof(d->sched_str));
	char e[SELFTEST_SCHED_ERR];

	own_schedule(t, d);

	if (selftest_sched_parse(s, d->sched, &d->n_sched, e) < 0) {
		/* Checked at load: only a configuration changed under us gets here. */
		log_error("self-test: %s: schedule '%s': %s", d->row.key, s, e);
		d->n_sched = 0;
	}
	if (d->caught_up)
		plan_next(t, d, timefmt_now_ms());
}

static void record_skip(struct selftest_svc *t, struct stdev *d, uint8_t code,
			enum selftest_origin origin, int64_t now, const char *reason)
{
	struct store_selftest_action a = {
		.device_id = d->id,
		.ts_ms = now,
		.kind = STORE_SELFTEST_SKIP,
		.code = code,
		.nsid = DEV_SELFTEST_NSID_ALL,
	};

	snprintf(a.origin, sizeof(a.origin), "%s", selftest_origin_name(origin));
	snprintf(a.reason, sizeof(a.reason), "%s", reason);
	log_info("self-test: %s (%s): scheduled %s self-test skipped: %s", d->row.key, d->row.name,
		 selftest_code_name(code), reason);
	if (store_selftest_action_add(t->store, &a) < 0)
		log_error("self-test: %s: cannot record the skip: %s", d->row.key,
			  store_strerror(t->store));
}

/* A scheduled start out: what plan_started() records once it ends. */
struct plan_call {
	struct selftest_svc *t;
	int64_t id, now;
	bool due[SELFTEST_SCHED_TYPES];
	uint8_t code;
	enum selftest_origin origin;
};

static void plan_started(void *arg, int r, uint8_t ended, const char *reason)
{
	struct plan_call *pc = arg;
	struct selftest_svc *t = pc->t;
	struct stdev *d = selftest_dev_find(t, pc->id);

	(void)ended;
	if (r == -ECANCELED) { /* shutting down: nothing was sent */
		free(pc);
		return;
	}
	if (r == -ENOMEM || !d) {
		log_error("self-test: out of memory");
		free(pc);
		return;
	}
	if (r < 0)
		record_skip(t, d, pc->code, pc->origin, pc->now, reason);
	if (pc->due[0] && pc->due[1])
		record_skip(t, d, SELFTEST_CODE_SHORT, pc->origin, pc->now,
			    "the extended self-test was due at the same time");
	free(pc);
}

/* Run what is due (@due per type): the extended test when both are. */
static void plan_run(struct selftest_svc *t, int64_t id, const bool due[2],
		     enum selftest_origin origin, int64_t now)
{
	struct plan_call *pc = malloc(sizeof(*pc));

	if (!pc) {
		log_error("self-test: out of memory");
		return;
	}
	*pc = (struct plan_call){.t = t,
				 .id = id,
				 .now = now,
				 .due = {due[0], due[1]},
				 .code = due[1] ? SELFTEST_CODE_EXTENDED : SELFTEST_CODE_SHORT,
				 .origin = origin};
	/* What it did is recorded when it ends (plan_started()), on the loop. */
	selftest_req_queue(t, id, pc->code, DEV_SELFTEST_NSID_ALL, origin, plan_started, pc);
}

void selftest_plan_catch_up(struct selftest_svc *t, struct stdev *d, int64_t now)
{
	int64_t last[SELFTEST_SCHED_TYPES], missed[SELFTEST_SCHED_TYPES];
	bool run[SELFTEST_SCHED_TYPES] = {false, false};
	int64_t id = d->id;

	d->caught_up = true;
	d->checked_ms = now;
	if (!d->n_sched)
		return;
	for (int k = 0; k < SELFTEST_SCHED_TYPES; k++) {
		int r = store_selftest_last_scheduled(
			t->store, d->id, selftest_sched_type_code((enum selftest_sched_type)k),
			&last[k]);
		if (r == -ENOENT) {
			last[k] = SELFTEST_SCHED_NEVER;
		} else if (r < 0) {
			log_error("self-test: %s: %s: no catch-up", d->row.key,
				  store_strerror(t->store));
			return;
		}
	}
	selftest_sched_catchup(d->sched, d->n_sched, last, now, utc_offset_s(now), run, missed);
	plan_next(t, d, now);
	if (run[0] || run[1]) {
		char at[TIMEFMT_MAX];
		int k = run[1] ? 1 : 0;
		log_info("self-test: %s: the %s self-test due at %s was missed while nvmond was "
			 "down: catching it up once",
			 d->row.key, k ? "extended" : "short", timefmt_rfc3339(missed[k], at));
		plan_run(t, id, run, SELFTEST_ORIGIN_CATCHUP, now);
	}
}

/* Until the next minute's start, and a little: schedules name minutes. */
static int64_t next_tick_ms(int64_t now)
{
	return 60000 - now % 60000 + TICK_SLACK_MS;
}

/*
 * The tick's next run: at the nearest scheduled test (and a little), and in
 * between at each minute's start in a wakeup the loop has anyway, so that a
 * clock stepped or a resume from suspend (the monotonic clock stood still)
 * shows at the next poll. No schedule: no wakeup of its own.
 */
static int64_t plan_tick_next(struct selftest_svc *t, struct loop *l, int64_t now)
{
	int64_t next = -1;

	for (size_t i = 0; i < t->n_dev; i++) {
		int64_t at = t->dev[i].st.next_ms;
		if (at && (next < 0 || at - now < next))
			next = at - now > 0 ? at - now + TICK_SLACK_MS : 0;
	}
	return loop_timer_lazy(l, t->plan_timer, next_tick_ms(now), next);
}

static int64_t plan_tick(struct loop *l, void *userdata)
{
	struct selftest_svc *t = userdata;
	int64_t now = timefmt_now_ms(), off = utc_offset_s(now);

	for (size_t i = 0; i < t->n_dev; i++) {
		struct stdev *d = &t->dev[i];
		bool due[SELFTEST_SCHED_TYPES];
		int64_t id = d->id;
		if (!d->caught_up || !d->supported || !d->n_sched)
			continue;
		selftest_sched_due(d->sched, d->n_sched, d->checked_ms, now, off, due);
		/* A clock set back is not a reason to run the same occurrence again. */
		if (now > d->checked_ms)
			d->checked_ms = now;
		if (due[0] || due[1])
			plan_run(t, id, due, SELFTEST_ORIGIN_SCHEDULE, now);
		d = selftest_dev_find(t, id);
		if (d)
			plan_next(t, d, now);
	}
	return plan_tick_next(t, l, timefmt_now_ms());
}

int selftest_plan_start(struct selftest_svc *t, struct loop *l)
{
	int64_t r;

	t->loop = l;
	/* The drives' schedules are read at their first samples: they pull it nearer. */
	r = loop_add_timer_lazy(l, next_tick_ms(timefmt_now_ms()), -1, plan_tick, t);
	if (r < 0)
		return (int)r;
	t->plan_timer = r;
	return 0;
}
