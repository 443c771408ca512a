/* SPDX-License-Identifier: MIT */
/*
 * The probe service's timers: the schedule's tick (probe_svc_sched.c: what is
 * due, the jitter, one run at a time per drive, a reload) and a series' idle
 * time between its runs (probe_svc_series.c: the cooldown, the end, a cancel
 * in it, and the cache-recovery study's idle clock that a busy drive pauses).
 * Before issue 26 only the integration tests reached them.
 *
 * The service is made and started as the daemon does it (probe_svc_new(),
 * probe_svc_start()) on a real database (store_fixture.h: dev_a "A1", dev_b
 * "B2"), a fleet with both drives online, and no poller. The link wraps
 * (tests/CMakeLists.txt):
 * - timefmt_now_ms() and timefmt_mono_ms(): the clocks, set by each case;
 * - poller_add_listener(): nothing to listen to;
 * - loop_add_timer(): the schedule's tick and a series' timer, fired by hand
 *   (the delay each asked for is kept);
 * - probe_svc_start_on_loop(): every start the timers ask for is recorded;
 *   it then runs for real but with .hold (every gate, and a refused scheduled
 *   run on record as a real one is), and the job it prepared is discarded:
 *   nothing runs on a drive of this host. A case may script the answer instead.
 * TZ is UTC: schedules are in local time.
 */
#include "../store/store_fixture.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "nvmond/core/cfg.h"
#include "nvmond/core/loop.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/monitor/poller.h"
#include "nvmond/probe/probe.h"
#include "nvmond/probe/probe_conf.h"
#include "nvmond/store/store_probe.h"
#include "nvmond/store/store_probe_study.h"
#include "nvmond/util/units.h"

#include "../../../daemon/probe/probe_svc_internal.h"

#define DAY0	     1796169600000LL /* 2026-12-02T00:00:00Z, a Wednesday */
#define AT(h, m, ms) (DAY0 + (h)*MS_PER_HOUR + (m)*MS_PER_MIN + (ms))

/* ---- the wrapped functions ---- */

int64_t __wrap_timefmt_now_ms(void);
int64_t __wrap_timefmt_mono_ms(void);
int __wrap_poller_add_listener(struct poller *p, const struct poller_listener *l);
int64_t __real_loop_add_timer(struct loop *l, int64_t delay_ms, loop_timer_fn fn, void *userdata);
int64_t __wrap_loop_add_timer(struct loop *l, int64_t delay_ms, loop_timer_fn fn, void *userdata);
int __real_probe_svc_start_on_loop(void *arg);
int __wrap_probe_svc_start_on_loop(void *arg);

static int64_t now_ms, mono_ms;

int64_t __wrap_timefmt_now_ms(void)
{
	return now_ms;
}

int64_t __wrap_timefmt_mono_ms(void)
{
	return mono_ms;
}

int __wrap_poller_add_listener(struct poller *p, const struct poller_listener *l)
{
	(void)p;
	(void)l;
	return 0;
}

/* The latest timer asked for, the schedule's tick apart. */
static struct armed {
	loop_timer_fn fn;
	void *arg;
	int64_t delay_ms, id;
	int n;
} tick, timer;

int64_t __wrap_loop_add_timer(struct loop *l, int64_t delay_ms, loop_timer_fn fn, void *userdata)
{
	struct armed *a = fn == probe_svc_sched_tick ? &tick : &timer;

	*a = (struct armed){.fn = fn, .arg = userdata, .delay_ms = delay_ms, .n = a->n + 1};
	a->id = __real_loop_add_timer(l, delay_ms, fn, userdata);
	return a->id;
}

#define NO_SCRIPT 1
static int script_r = NO_SCRIPT; /* what a start answers; NO_SCRIPT: the real one, held */
static int64_t script_id;	 /* the run a scripted start that succeeds names */
static struct start_seen {
	int64_t device_id;
	enum probe_preset_id preset;
	char trigger[16];
	uint32_t repeat;
	int64_t cooldown_ms;
	bool next_of_series;
	int64_t now_ms, mono_ms;
	int r;
	char reason[PROBE_REASON_MAX];
} starts[16];
static int n_starts;

int __wrap_probe_svc_start_on_loop(void *arg)
{
	struct start_call *c = arg;
	struct start_seen *seen = &starts[n_starts < 16 ? n_starts : 15];
	int r;

	*seen = (struct start_seen){.device_id = c->device_id,
				    .preset = c->preset,
				    .repeat = c->repeat,
				    .cooldown_ms = c->cooldown_ms,
				    .next_of_series = c->next_of_series,
				    .now_ms = now_ms,
				    .mono_ms = mono_ms};
	snprintf(seen->trigger, sizeof(seen->trigger), "%s", c->trigger);
	n_starts++;
	if (script_r != NO_SCRIPT) {
		snprintf(c->reason, sizeof(c->reason), "scripted");
		c->ret_id = script_id;
		r = script_r;
	} else {
		c->hold = true; /* the gates and the locks, nothing started */
		r = __real_probe_svc_start_on_loop(c);
		if (r == 0)
			probe_job_discard(c->ret_job);
	}
	seen->r = r;
	snprintf(seen->reason, sizeof(seen->reason), "%s", r < 0 ? c->reason : "");
	return r;
}

/* ---- the service ---- */

static struct dev_backend_ops no_ops = {.name = "none"};
static struct dev_backend backend = {.ops = &no_ops};
static struct cfg c;
static struct fleet *f;
static struct loop *l;
static struct probe_svc *p;

static void setup(void)
{
	char err[CFG_ERR_MAX];

	store_fixture_setup();
	setenv("TZ", "UTC", 1);
	tzset();
	now_ms = AT(2, 50, 0);
	mono_ms = 1000000;
	tick = timer = (struct armed){0};
	n_starts = 0;
	script_r = NO_SCRIPT;
	/* [probes] is the probe service's section (probe_conf.h). */
	cr_assert_eq(
		cfg_sections_register((const struct cfg_section *const[]){&probe_cfg_section}, 1),
		0);
	cfg_defaults(&c);
	cr_assert_eq(cfg_set(&c, "probes", "lock_dir", dir, err), 0, "%s", err);
	f = fleet_new();
	l = loop_new();
	cr_assert_not_null(f);
	cr_assert_not_null(l);
}

static void teardown(void)
{
	p = probe_svc_free(p);
	loop_free(l);
	fleet_free(f);
	store_fixture_teardown();
}

TestSuite(probe_svc_sched, .init = setup, .fini = teardown);

static void put_drive(int64_t id)
{
	struct device_row row;

	cr_assert_eq(store_device_get(s, id, &row), 0);
	cr_assert_eq(fleet_put_device(f, &row), 0);
	cr_assert_eq(fleet_set_online(f, id, true, now_ms), 0);
}

/* The service on @c, started: its first tick armed at once. */
static void svc_up(void)
{
	char err[PROBE_SVC_ERR_MAX] = "";

	put_drive(dev_a);
	put_drive(dev_b);
	cr_assert_eq(probe_svc_new(&c, &backend, s, f, NULL, &p, err), 0, "%s", err);
	cr_assert_eq(probe_svc_start(p, l, NULL), 0);
	cr_assert_eq(tick.n, 1);
	cr_expect_eq(tick.delay_ms, 0, "the first look at once");
}

static void set(const char *section, const char *key, const char *value)
{
	char err[CFG_ERR_MAX];

	cr_assert_eq(cfg_set(&c, section, key, value, err), 0, "%s", err);
}

/* The schedule's tick at wall-clock @at: the delay it asks for next. */
static int64_t tick_at(int64_t at)
{
	now_ms = at;
	return tick.fn(l, tick.arg);
}

/* The runs on record for @id, newest first (*n). */
static struct probe_run_row *runs(int64_t id, size_t *n)
{
	struct probe_run_row *v = NULL;

	cr_assert_eq(store_probe_runs_list(s, id, 20, &v, n), 0);
	return v;
}

/* ---- the schedule ---- */

/*
 * docs/probes.md, Where and when: "daily HH:MM PRESET … in local time" — with
 * [probes] jitter = 0 at that minute exactly, as a scheduled run (trigger
 * "schedule", which the gates treat as one), once; the next day again.
 */
Test(probe_svc_sched, due_entry_starts_once_at_its_time)
{
	set("probes", "jitter", "0");
	set("device \"A1\"", "probe_schedule", "daily 03:00 seq1m-q8");
	svc_up();
	(void)tick_at(AT(2, 50, 0));
	cr_expect_eq(n_starts, 0);
	(void)tick_at(AT(2, 59, 59999));
	cr_expect_eq(n_starts, 0, "not before its time");
	(void)tick_at(AT(3, 0, 0));
	cr_assert_eq(n_starts, 1, "due at 03:00");
	cr_expect_eq(starts[0].device_id, dev_a);
	cr_expect_eq(starts[0].preset, PROBE_SEQ1M_Q8);
	cr_expect_str_eq(starts[0].trigger, "schedule");
	cr_expect_leq(starts[0].repeat, 1, "one run");
	cr_expect_eq(starts[0].r, 0, "%s", starts[0].reason);
	(void)tick_at(AT(3, 0, 15000));
	(void)tick_at(AT(3, 1, 0));
	cr_expect_eq(n_starts, 1, "not twice");
	(void)tick_at(AT(3, 0, 0) + MS_PER_DAY);
	cr_expect_eq(n_starts, 2, "tomorrow's");
}

/*
 * docs/probes.md: "Scheduled probes start up to [probes] jitter (10 min) after
 * their time"; probe_sched.h: the jitter is "drawn from @seed and the
 * occurrence (the same each time it is asked)": a tick before the start does
 * not move it.
 */
Test(probe_svc_sched, jitter_puts_the_start_later_by_less_than_jitter)
{
	set("probes", "jitter", "10m");
	set("device \"A1\"", "probe_schedule", "daily 03:00 seq1m-q8");
	svc_up();
	(void)tick_at(AT(2, 50, 0));
	struct probe_dev *d = probe_svc_dev_find(p, dev_a, false);
	cr_assert_not_null(d);
	int64_t due = d->sched.next_due[0];
	cr_expect_geq(due, AT(3, 0, 0));
	cr_expect_lt(due, AT(3, 10, 0), "%lld", (long long)(due - AT(3, 0, 0)));
	cr_assert_gt(due, AT(3, 0, 0), "later than its time (this drive's draw is not 0)");
	(void)tick_at(due - 1);
	cr_expect_eq(n_starts, 0, "not before its jittered time");
	cr_expect_eq(d->sched.next_due[0], due, "the same draw each time");
	(void)tick_at(due);
	cr_expect_eq(n_starts, 1);
	cr_expect_eq(starts[0].now_ms, due);
	cr_expect_geq(d->sched.next_due[0], AT(3, 0, 0) + MS_PER_DAY);
	cr_expect_lt(d->sched.next_due[0], AT(3, 10, 0) + MS_PER_DAY);
}

/*
 * docs/probes.md: "An entry may end in xN and cooldown D to run a repeated
 * series as the API's {"repeat": N, "cooldown": "D"} does".
 */
Test(probe_svc_sched, series_entry_starts_one_series)
{
	set("probes", "jitter", "0");
	set("device \"B2\"", "probe_schedule", "weekly Wed 03:00 seq1m-q8 x3 cooldown 45s");
	svc_up();
	(void)tick_at(AT(2, 50, 0));
	(void)tick_at(AT(3, 0, 0));
	cr_assert_eq(n_starts, 1);
	cr_expect_eq(starts[0].device_id, dev_b);
	cr_expect_eq(starts[0].repeat, 3);
	cr_expect_eq(starts[0].cooldown_ms, 45000);
	(void)tick_at(AT(3, 0, 0) + MS_PER_DAY);
	cr_expect_eq(n_starts, 1, "weekly: not on Thursday");
}

/*
 * probe_svc_sched.c: a drive offline, or with a run or a series' cooldown on
 * it, starts nothing at its time — "one at a time; the next occurrence will
 * do" (docs/probes.md: "The cooldown is idle: in the daemon no other probe
 * starts on the drive … until the series ends").
 */
Test(probe_svc_sched, busy_with_a_series_or_offline_waits_for_the_next_occurrence)
{
	set("probes", "jitter", "0");
	set("device \"A1\"", "probe_schedule", "daily 03:00 seq1m-q8");
	svc_up();
	(void)tick_at(AT(2, 50, 0));
	struct probe_dev *d = probe_svc_dev_find(p, dev_a, false);
	cr_assert_not_null(d);
	d->series = (struct probe_series_state){.active = true, .series_id = 5};
	(void)tick_at(AT(3, 0, 0));
	cr_expect_eq(n_starts, 0, "a series cools down on it");
	d->series.active = false;
	(void)tick_at(AT(3, 0, 15000));
	cr_expect_eq(n_starts, 0, "not late: the next occurrence will do");
	cr_assert_eq(fleet_set_online(f, dev_a, false, now_ms), 0);
	(void)tick_at(AT(3, 0, 0) + MS_PER_DAY);
	cr_expect_eq(n_starts, 0, "offline");
	cr_assert_eq(fleet_set_online(f, dev_a, true, now_ms), 0);
	(void)tick_at(AT(3, 0, 0) + 2 * MS_PER_DAY);
	cr_expect_eq(n_starts, 1);
	size_t n = 0;
	free(runs(dev_a, &n));
	cr_expect_eq(n, 0, "nothing on record for those");
}

/* A poll's snapshot of @d's drive at @mono: @ios since its start. */
static void snap(struct probe_dev *d, int64_t mono, uint64_t ios)
{
	d->busy.snap[d->busy.pos] = (struct busy_snap){.mono_ms = mono, .ds = {.ios = ios}};
	d->busy.pos = (d->busy.pos + 1) % BUSY_HIST;
	if (d->busy.n < BUSY_HIST)
		d->busy.n++;
}

/*
 * docs/probes.md: "Never on a busy or hot drive. A scheduled probe is skipped,
 * and the skip recorded with its reason, when the whole drive … did more than
 * busy_iops I/O per second … over the last minute"; the test waits for its
 * next occurrence.
 */
Test(probe_svc_sched, busy_drive_skips_its_time_on_record)
{
	set("probes", "jitter", "0");
	set("probes", "busy_iops", "50");
	set("device \"A1\"", "probe_schedule", "daily 03:00 seq1m-q8");
	svc_up();
	(void)tick_at(AT(2, 50, 0));
	struct probe_dev *d = probe_svc_dev_find(p, dev_a, false);
	for (int k = 0; k <= 6; k++)
		snap(d, mono_ms - 60000 + 10000 * k, 6000ull * (uint64_t)k); /* 600 IO/s */
	(void)tick_at(AT(3, 0, 0));
	cr_assert_eq(n_starts, 1);
	cr_expect_lt(starts[0].r, 0);
	size_t n = 0;
	struct probe_run_row *v = runs(dev_a, &n);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(v[0].state, "skipped");
	cr_expect_str_eq(v[0].trigger, "schedule");
	cr_expect(strstr(v[0].reason, "busy"), "%s", v[0].reason);
	cr_expect_eq(v[0].started_ms, AT(3, 0, 0));
	free(v);
	(void)tick_at(AT(3, 0, 15000));
	cr_expect_eq(n_starts, 1, "skipped, not retried every tick");
	d->busy = (struct probe_busy_hist){0}; /* idle (not known: not busy) */
	(void)tick_at(AT(3, 0, 0) + MS_PER_DAY);
	cr_expect_eq(n_starts, 2);
	cr_expect_eq(starts[1].r, 0, "%s", starts[1].reason);
}

/*
 * docs/configuration.md, [probes] sustained_every (7d): "sustained-write runs
 * at most this often per drive (0 = no limit)": its schedule's run within it
 * is skipped on record, naming the key.
 */
Test(probe_svc_sched, sustained_every_skips_a_scheduled_sustained_write)
{
	struct probe_run_row last = {.device_id = dev_a,
				     .state = "done",
				     .trigger = "api",
				     .preset = "sustained-write",
				     .started_ms = AT(3, 0, 0) - 6 * MS_PER_DAY,
				     .ended_ms = AT(3, 10, 0) - 6 * MS_PER_DAY};
	int64_t id;

	set("probes", "jitter", "0");
	/* Allowed to write (were it started: held, nothing is written). */
	set("device \"A1\"", "destructive", "yes");
	set("device \"A1\"", "probe_schedule", "daily 03:00 sustained-write");
	cr_assert_eq(store_probe_run_insert(s, &last, &id), 0);
	svc_up();
	(void)tick_at(AT(2, 50, 0));
	(void)tick_at(AT(3, 0, 0));
	cr_assert_eq(n_starts, 1);
	cr_expect_eq(starts[0].r, -EAGAIN);
	size_t n = 0;
	struct probe_run_row *v = runs(dev_a, &n);
	cr_assert_eq(n, 2);
	cr_expect_str_eq(v[0].state, "skipped");
	cr_expect(strstr(v[0].reason, "it runs at most every 168 h ([probes] sustained_every)"),
		  "%s", v[0].reason);
	free(v);
	(void)tick_at(AT(3, 0, 0) + MS_PER_DAY); /* 7 days after the last: not refused for it */
	cr_assert_eq(n_starts, 2);
	cr_expect_eq(starts[1].r, 0, "%s", starts[1].reason);
}

/*
 * probe_svc_sched_internal.h: a reload clears a drive's schedule text,
 * "parsed again at the next tick" (probe_svc_reconfigure() pulls it to now):
 * the new time applies, the old one no more.
 */
Test(probe_svc_sched, reload_moves_the_time)
{
	char err[PROBE_SVC_ERR_MAX];

	set("probes", "jitter", "0");
	set("device \"A1\"", "probe_schedule", "daily 03:00 seq1m-q8");
	svc_up();
	(void)tick_at(AT(2, 50, 0));
	set("device \"A1\"", "probe_schedule", "daily 05:00 seq1m-q8");
	cr_assert_eq(probe_svc_reconfigure(p, &c, err), 0, "%s", err);
	(void)tick_at(AT(2, 51, 0));
	(void)tick_at(AT(3, 0, 0));
	cr_expect_eq(n_starts, 0, "the old time");
	(void)tick_at(AT(5, 0, 0));
	cr_expect_eq(n_starts, 1, "the new one");
}

/* ---- a series' idle time ---- */

/* @d's series as probe_svc.c begins one, its run @index (1 …) of @of just ended @state. */
static void series_after(struct probe_dev *d, uint32_t index, uint32_t of, const char *state)
{
	struct probe_job_ctx *j = calloc(1, sizeof(*j));

	cr_assert_not_null(j);
	if (!d->series.active)
		d->series = (struct probe_series_state){.active = true,
							.svc = p,
							.series_id = 40,
							.last_run_id = 40,
							.of = of,
							.preset = PROBE_SEQ1M_Q8,
							.trigger = "api",
							.cooldown_ms = 45000};
	d->series.next_index = index + 1;
	j->out.run.series_id = 40;
	j->out.run.series_index = index;
	snprintf(j->out.run.state, sizeof(j->out.run.state), "%s", state);
	probe_series_after_run(p, d, j);
	free(j);
}

/*
 * docs/probes.md, Repeat runs: "repeat times with cooldown of idle between the
 * runs": after a run, a timer of the cooldown; when it fires, the series'
 * next run (every gate again, as its run); after the last run, the end.
 */
Test(probe_svc_sched, series_cooldown_then_its_next_run)
{
	svc_up();
	struct probe_dev *d = probe_svc_dev_find(p, dev_a, true);
	series_after(d, 1, 2, "done");
	cr_assert_eq(timer.n, 1, "the cooldown's timer");
	cr_expect_eq(timer.delay_ms, 45000);
	cr_expect_eq(d->series.timer > 0, true);
	cr_expect_eq(n_starts, 0, "idle until it fires");
	cr_expect_eq(timer.fn(l, timer.arg), -1, "it fires once");
	cr_assert_eq(n_starts, 1);
	cr_expect(starts[0].next_of_series);
	cr_expect_eq(starts[0].device_id, dev_a);
	cr_expect_eq(starts[0].preset, PROBE_SEQ1M_Q8);
	cr_expect_str_eq(starts[0].trigger, "api", "the series' trigger");
	cr_expect_eq(starts[0].r, 0, "%s", starts[0].reason);
	cr_expect(d->series.active);
	series_after(d, 2, 2, "done");
	cr_expect_eq(timer.n, 1, "the last run: no cooldown");
	cr_expect_not(d->series.active, "the series ended");
}

/*
 * docs/probes.md, Repeat runs: "A run that does not finish (refused at its
 * start, aborted, failed) ends the series"; "a run a gate refuses is recorded
 * skipped with why, in the series, and ends it".
 */
Test(probe_svc_sched, series_ends_at_a_run_that_did_not_finish)
{
	struct fleet_selftest st = {.running = SELFTEST_CODE_SHORT, .percent = 5};

	svc_up();
	struct probe_dev *d = probe_svc_dev_find(p, dev_a, true);
	series_after(d, 1, 3, "aborted");
	cr_expect_eq(timer.n, 0, "no cooldown after an aborted run");
	cr_expect_not(d->series.active);

	d->series.active = false;
	series_after(d, 1, 3, "done");
	cr_assert_eq(timer.n, 1);
	cr_assert_eq(fleet_put_selftest(f, dev_a, &st), 0); /* a gate refuses the next run */
	cr_expect_eq(timer.fn(l, timer.arg), -1);
	cr_assert_eq(n_starts, 1);
	cr_expect_eq(starts[0].r, -EBUSY);
	cr_expect_not(d->series.active, "refused: the series ended");
	size_t n = 0;
	struct probe_run_row *v = runs(dev_a, &n);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(v[0].state, "skipped");
	cr_expect_eq(v[0].series_id, 40);
	cr_expect_eq(v[0].series_index, 2);
	cr_expect_eq(v[0].series_of, 3);
	cr_expect_str_eq(v[0].reason, "a short device self-test is running on the drive (5 %)");
	free(v);
}

/*
 * docs/probes.md, Repeat runs: "A cancel (API) … stops the series, in a run
 * or in the cooldown (the run that would have come next is recorded skipped
 * with the reason)"; its timer no more.
 */
Test(probe_svc_sched, cancel_in_the_cooldown_ends_the_series_on_record)
{
	svc_up();
	struct probe_dev *d = probe_svc_dev_find(p, dev_a, true);
	series_after(d, 1, 3, "done");
	cr_assert(d->series.timer > 0);
	cr_expect_not(probe_series_cancel(p, d, 39, "cancelled"), "not one of its runs");
	cr_expect(probe_series_cancel(p, d, 40, "cancelled by the API"));
	cr_expect_not(d->series.active);
	cr_expect_eq(d->series.timer, 0);
	cr_expect_eq(loop_cancel_timer(l, timer.id), -ENOENT, "its timer is gone");
	size_t n = 0;
	struct probe_run_row *v = runs(dev_a, &n);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(v[0].state, "skipped");
	cr_expect_str_eq(v[0].reason, "cancelled by the API during the cooldown");
	cr_expect_eq(v[0].series_index, 2);
	free(v);
	cr_expect_eq(n_starts, 0);
}

/*
 * docs/probes.md, cache-recovery: "The daemon looks at the drive every second
 * while it waits: a second in which the drive is busy by the probes' rule … is
 * a pause, not idle time. A burst due at 20 min runs once the drive has been
 * idle 20 min in total since the cliff …: a busy period puts it, and the later
 * bursts, off by its length"; "until half a minute of it is known the drive
 * counts as idle".
 */
Test(probe_svc_sched, study_burst_waits_for_idle_time_net_of_busy)
{
	set("probes", "busy_iops", "50");
	svc_up();
	struct probe_dev *d = probe_svc_dev_find(p, dev_a, true);
	d->series = (struct probe_series_state){
		.active = true,
		.svc = p,
		.series_id = 40,
		.of = 3,
		.preset = PROBE_CACHE_RECOVERY,
		.trigger = "api",
		.is_study = true,
		.study = {.n_intervals = 2, .interval_ms = {5 * MS_PER_MIN, 10 * MS_PER_MIN}}};
	struct probe_run_row burst = {.device_id = dev_a,
				      .state = "running",
				      .trigger = "api",
				      .preset = "cache-recovery"};
	int64_t idle_ms = 0, paused_ms = 0;

	cr_assert_eq(store_probe_run_insert(s, &burst, &script_id), 0);
	/* The burst's start, as if launched: run script_id (a scripted start does
	 * not count the series' run, as the real one's start_series() does). */
	script_r = 0;
	int64_t t0 = mono_ms;
	series_after(d, 1, 3, "done"); /* the fill */
	cr_assert_eq(timer.n, 1);
	cr_expect_eq(timer.delay_ms, 1000, "it looks every second");
	cr_expect(d->series.study.idle_net);

	/* A minute busy (600 IO/s), then another, then idle. */
	uint64_t ios = 0;
	for (int64_t t = t0; t <= t0 + 2 * MS_PER_MIN; t += 10000, ios += 6000)
		snap(d, t, ios);
	mono_ms = t0 + 2 * MS_PER_MIN;
	cr_expect_eq(timer.fn(l, timer.arg), 1000, "busy: it waits on");
	cr_expect_eq(d->series.study.idle.paused_ms, 2 * MS_PER_MIN);
	cr_expect_eq(d->series.study.idle.idle_ms, 0);
	for (int64_t t = t0 + 2 * MS_PER_MIN + 10000; t <= t0 + 7 * MS_PER_MIN; t += 10000)
		snap(d, t, ios);
	mono_ms = t0 + 7 * MS_PER_MIN - 1;
	cr_expect_eq(timer.fn(l, timer.arg), 1, "1 ms of idle left: %lld",
		     (long long)d->series.study.idle.idle_ms);
	cr_expect_eq(n_starts, 0, "5 min idle less 1 ms: not yet");
	mono_ms = t0 + 7 * MS_PER_MIN;
	cr_expect_eq(timer.fn(l, timer.arg), -1);
	cr_assert_eq(n_starts, 1, "5 min idle, 2 min later than without the busy minutes");
	cr_expect(starts[0].next_of_series);
	cr_expect_eq(starts[0].preset, PROBE_CACHE_RECOVERY);
	/* The burst's point: its idle time since the fill's end, and how long it paused. */
	cr_assert_eq(store_probe_study_burst_get(s, script_id, &idle_ms, &paused_ms), 0);
	cr_expect_eq(idle_ms, 5 * MS_PER_MIN);
	cr_expect_eq(paused_ms, 2 * MS_PER_MIN);
}
