/* SPDX-License-Identifier: MIT */
/*
 * probe_svc_start_on_loop() without a thread: the checks of a start, each
 * with its reason (docs/api.md "POST /api/v1/devices/{id}/probes", docs/probes.md
 * "copy-to"), and with .hold (a group's member: the gates passed and the
 * locks taken, nothing started) the job it prepares: its plan, its locks, a
 * copy-to's source. Before issue 26 only the integration tests reached it.
 *
 * The service is made by hand (no loop, no mainq): a real database
 * (store_fixture.h: dev_a "A1", dev_b "B2"), a fleet with both drives, the
 * probe locks in the test's directory; neither drive has a probe_dir, so
 * their raw namespaces are only read (but by destructive = yes).
 */
#include "../store/store_fixture.h"

#include <errno.h>
#include <string.h>

#include "nvmond/core/cfg.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/probe/probe.h"
#include "nvmond/probe/probe_conf.h"
#include "nvmond/store/store_probe.h"

#include "../../../daemon/probe/probe_svc_internal.h"

static struct probe_svc *p;

static void put_drive(int64_t id)
{
	struct device_row row;

	cr_assert_eq(store_device_get(s, id, &row), 0);
	cr_assert_eq(fleet_put_device(p->fleet, &row), 0);
	cr_assert_eq(fleet_set_online(p->fleet, id, true, 0), 0);
}

static void setup(void)
{
	char err[CFG_ERR_MAX];

	store_fixture_setup();
	p = calloc(1, sizeof(*p));
	cr_assert_not_null(p);
	/* [probes] is the probe service's section (probe_conf.h). */
	cr_assert_eq(
		cfg_sections_register((const struct cfg_section *const[]){&probe_cfg_section}, 1),
		0);
	cfg_defaults(&p->cfg);
	cr_assert_eq(cfg_set(&p->cfg, "probes", "lock_dir", dir, err), 0, "%s", err);
	p->store = s;
	p->fleet = fleet_new();
	cr_assert_not_null(p->fleet);
	put_drive(dev_a);
	put_drive(dev_b);
}

static void teardown(void)
{
	fleet_free(p->fleet);
	free(p);
	store_fixture_teardown();
}

TestSuite(probe_svc, .init = setup, .fini = teardown);

static struct start_call call(int64_t device_id, enum probe_preset_id preset)
{
	return (struct start_call){
		.svc = p, .device_id = device_id, .preset = preset, .trigger = "api"};
}

/* docs/probes.md copy-to: "to" names the drive written, and only copy-to takes one. */
Test(probe_svc, copy_to_and_to_go_together)
{
	struct start_call c = call(dev_a, PROBE_COPY_TO);

	cr_assert_eq(probe_svc_start_on_loop(&c), -EINVAL);
	cr_expect_str_eq(c.reason, "copy-to needs the drive to copy to (\"to\")");
	c = call(dev_a, PROBE_SEQ1M_Q8);
	c.to_device_id = dev_b;
	cr_assert_eq(probe_svc_start_on_loop(&c), -EINVAL);
	cr_expect_str_eq(c.reason, "only copy-to copies to another drive (\"to\")");
}

/* copy-to copies to another drive (copy-self is the one onto itself), once. */
Test(probe_svc, copy_to_another_drive_once)
{
	struct start_call c = call(dev_a, PROBE_COPY_TO);

	c.to_device_id = dev_a;
	cr_assert_eq(probe_svc_start_on_loop(&c), -EINVAL);
	cr_expect(strstr(c.reason, "must be another drive"), "%s", c.reason);
	c = call(dev_a, PROBE_COPY_TO);
	c.to_device_id = dev_b;
	c.repeat = 2;
	cr_assert_eq(probe_svc_start_on_loop(&c), -EINVAL);
	cr_expect_str_eq(c.reason, "copy-to runs once (no repeat)");
}

/* An unknown drive: 404 for the run's own, 400 for the one a copy-to writes. */
Test(probe_svc, unknown_drives)
{
	struct start_call c = call(9999, PROBE_SEQ1M_Q8);

	cr_assert_eq(probe_svc_start_on_loop(&c), -ENOENT);
	cr_expect_str_eq(c.reason, "no such device");
	c = call(9999, PROBE_COPY_TO);
	c.to_device_id = dev_b;
	cr_assert_eq(probe_svc_start_on_loop(&c), -ENOENT, "the drive read is checked first");
	c = call(dev_a, PROBE_COPY_TO);
	c.to_device_id = 9999;
	cr_assert_eq(probe_svc_start_on_loop(&c), -EINVAL);
	cr_expect_str_eq(c.reason, "no such device to copy to");
}

/* An offline or unresponsive drive takes no probe (its temperature could not be watched). */
Test(probe_svc, offline_and_unresponsive_drives_refused)
{
	struct fleet_facts f = {.known = true, .unresponsive = true};
	struct start_call c = call(dev_a, PROBE_SEQ1M_Q8);

	cr_assert_eq(fleet_set_online(p->fleet, dev_a, false, 0), 0);
	cr_assert_eq(probe_svc_start_on_loop(&c), -ENODEV);
	cr_expect_str_eq(c.reason, "the device is offline");
	c = call(dev_a, PROBE_COPY_TO);
	c.to_device_id = dev_b;
	cr_assert_eq(probe_svc_start_on_loop(&c), -ENODEV);
	cr_expect_str_eq(c.reason, "the drive copied from is offline");
	cr_assert_eq(fleet_put_facts(p->fleet, dev_b, &f), 0);
	c = call(dev_b, PROBE_SEQ1M_Q8);
	cr_assert_eq(probe_svc_start_on_loop(&c), -ENODEV);
	cr_expect(strstr(c.reason, "the device is unresponsive"), "%s", c.reason);
}

/* One run per drive: a running probe, or a series cooling down, holds it. */
Test(probe_svc, one_run_per_drive)
{
	struct probe_job_ctx running = {.out.run.id = 77};
	struct probe_dev *d = probe_svc_dev_find(p, dev_a, true);
	struct start_call c = call(dev_a, PROBE_SEQ1M_Q8);

	cr_assert_not_null(d);
	d->job = &running;
	c.hold = true;
	cr_assert_eq(probe_svc_start_on_loop(&c), -EALREADY);
	cr_expect_str_eq(c.reason, "probe 77 is running on it");
	c = call(dev_a, PROBE_COPY_TO);
	c.to_device_id = dev_b;
	cr_assert_eq(probe_svc_start_on_loop(&c), -EALREADY);
	cr_expect_str_eq(c.reason, "probe 77 is running on the drive copied from");
	d->job = NULL;
	d->series = (struct probe_series_state){
		.active = true, .series_id = 5, .next_index = 2, .of = 3};
	c = call(dev_a, PROBE_SEQ1M_Q8);
	c.hold = true; /* were it let through: prepared, never started */
	cr_assert_eq(probe_svc_start_on_loop(&c), -EALREADY);
	cr_expect_str_eq(c.reason, "probe series 5 is cooling down on it before run 2 of 3");
}

/* A self-test running on either drive would be measured with it: refused, and named. */
Test(probe_svc, self_test_running_refuses)
{
	struct fleet_selftest st = {.running = SELFTEST_CODE_EXTENDED, .percent = 40};
	struct start_call c = call(dev_a, PROBE_COPY_TO);

	cr_assert_eq(fleet_put_selftest(p->fleet, dev_a, &st), 0);
	c.to_device_id = dev_b;
	cr_assert_eq(probe_svc_start_on_loop(&c), -EBUSY);
	cr_expect_str_eq(c.reason, "an extended device self-test is running on the drive "
				   "copied from (40 %)");
	c = call(dev_a, PROBE_SEQ1M_Q8);
	cr_assert_eq(probe_svc_start_on_loop(&c), -EBUSY);
	cr_expect_str_eq(c.reason, "an extended device self-test is running on the drive (40 %)");
}

/* A scheduled start that is refused is on record as "skipped", with why; one by hand is not. */
Test(probe_svc, refused_scheduled_start_is_recorded)
{
	struct fleet_selftest st = {.running = SELFTEST_CODE_SHORT, .percent = 10};
	struct start_call c = call(dev_a, PROBE_SEQ1M_Q8);
	struct probe_run_row *v = NULL;
	size_t n = 0;

	cr_assert_eq(fleet_put_selftest(p->fleet, dev_a, &st), 0);
	cr_assert_eq(probe_svc_start_on_loop(&c), -EBUSY);
	cr_assert_eq(store_probe_runs_list(s, dev_a, 10, &v, &n), 0);
	cr_expect_eq(n, 0, "a start by hand is answered, not recorded");
	free(v);
	c = call(dev_a, PROBE_SEQ1M_Q8);
	c.trigger = "schedule";
	cr_assert_eq(probe_svc_start_on_loop(&c), -EBUSY);
	cr_assert_eq(store_probe_runs_list(s, dev_a, 10, &v, &n), 0);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(v[0].state, "skipped");
	cr_expect_str_eq(v[0].trigger, "schedule");
	cr_expect_str_eq(v[0].preset, "seq1m-q8");
	cr_expect_str_eq(v[0].reason, c.reason);
	free(v);
}

/* hold: the gates passed and the drive's lock taken, nothing started or recorded. */
Test(probe_svc, hold_prepares_the_job)
{
	struct start_call c = call(dev_a, PROBE_SEQ1M_Q8);
	struct start_call again = call(dev_a, PROBE_SEQ1M_Q8);

	c.hold = true;
	cr_assert_eq(probe_svc_start_on_loop(&c), 0, "%s", c.reason);
	cr_assert_not_null(c.ret_job);
	cr_expect_geq(c.ret_job->lock_fd, 0);
	cr_expect_eq(c.ret_job->src_lock_fd, -1);
	cr_expect_eq(c.ret_job->plan.device_id, dev_a);
	cr_expect_null(c.ret_job->plan.source);
	cr_expect_str_eq(c.ret_job->serial, "A1");
	cr_expect_str_eq(c.ret_job->out.run.state, "running");
	cr_expect_eq(c.ret_job->plan.allowed_write, 0,
		     "a raw namespace without destructive is read");
	cr_expect_eq(c.ret_id, 0, "not on record");
	/* The lock is held: the same drive cannot be prepared twice. */
	again.hold = true;
	cr_assert_eq(probe_svc_start_on_loop(&again), -EALREADY);
	probe_job_discard(c.ret_job);
	cr_assert_eq(probe_svc_start_on_loop(&again), 0, "%s", again.reason);
	probe_job_discard(again.ret_job);
}

/* copy-to's pair: the drive written is the run's, the drive read is its source, both locked. */
Test(probe_svc, hold_copy_to_pairs_the_drives)
{
	struct start_call c = call(dev_a, PROBE_COPY_TO);
	char err[CFG_ERR_MAX];

	/* The drive written: its raw namespace, which only destructive = yes lets be written. */
	cr_assert_eq(cfg_set(&p->cfg, "device \"B2\"", "destructive", "yes", err), 0, "%s", err);
	c.to_device_id = dev_b;
	c.hold = true;
	cr_assert_eq(probe_svc_start_on_loop(&c), 0, "%s", c.reason);
	cr_assert_not_null(c.ret_job);
	cr_expect_eq(c.ret_job->plan.device_id, dev_b, "the run is the written drive's");
	cr_assert_eq(c.ret_job->plan.source, &c.ret_job->src_plan);
	cr_expect_eq(c.ret_job->src_plan.device_id, dev_a);
	cr_expect_eq(c.ret_job->src_plan.allowed_write, 0, "the source is only read");
	cr_expect_eq(c.ret_job->out.run.source_device_id, dev_a);
	cr_expect_gt(c.ret_job->plan.allowed_write, 0, "the target is written");
	cr_expect_geq(c.ret_job->lock_fd, 0);
	cr_expect_geq(c.ret_job->src_lock_fd, 0);
	cr_expect_str_eq(c.ret_job->serial, "B2");
	probe_job_discard(c.ret_job);
}

/* probe_svc_schedules_check(): a typo stops the start, named by its [device] section. */
Test(probe_svc, bad_schedule_is_named)
{
	char err[CFG_ERR_MAX], why[PROBE_SVC_ERR_MAX];

	cr_assert_eq(
		cfg_set(&p->cfg, "device \"A1\"", "probe_schedule", "daily 03:00 seq1m-q8", err), 0,
		"%s", err);
	cr_expect_eq(probe_svc_schedules_check(&p->cfg, why), 0, "%s", why);
	cr_assert_eq(
		cfg_set(&p->cfg, "device \"A1\"", "probe_schedule", "daily 25:00 seq1m-q8", err), 0,
		"%s", err);
	cr_assert_eq(probe_svc_schedules_check(&p->cfg, why), -EINVAL);
	cr_expect(strstr(why, "[device \"A1\"] probe_schedule: "), "%s", why);
}

/* A poll's snapshot of @d's drive at @mono_ms: @ios and @sectors since its start. */
static void snap(struct probe_dev *d, int64_t mono_ms, uint64_t ios, uint64_t sectors)
{
	d->busy.snap[d->busy.pos] =
		(struct busy_snap){.mono_ms = mono_ms, .ds = {.ios = ios, .sectors = sectors}};
	d->busy.pos = (d->busy.pos + 1) % BUSY_HIST;
	if (d->busy.n < BUSY_HIST)
		d->busy.n++;
}

/*
 * docs/probes.md: busy is what the whole drive did "over the last minute"
 * (/sys/block/NAME/stat): the rates between the newest snapshot and the oldest
 * one within 60 s of it, in sectors of 512 bytes; not known before half a
 * minute of snapshots.
 */
Test(probe_svc, busy_is_the_last_minute_of_the_drive)
{
	struct probe_dev *d = probe_svc_dev_find(p, dev_a, true);
	struct gate_facts g = {0};

	cr_assert_not_null(d);
	snap(d, 1000, 0, 0);
	snap(d, 20000, 1900, 0);
	probe_svc_busy_of(p, d, &g);
	cr_expect_not(g.busy_known, "19 s of snapshots: not known yet");
	/* An old burst, then a minute of 100 IO/s and 1 MB/s. */
	d->busy = (struct probe_busy_hist){0};
	snap(d, 0, 0, 0);
	snap(d, 10000, 900000, 90000000);
	for (int k = 0; k <= 6; k++)
		snap(d, 10000 + 10000 * k, 900000 + 1000 * k, 90000000 + 19531 * k);
	g = (struct gate_facts){0};
	probe_svc_busy_of(p, d, &g);
	cr_assert(g.busy_known);
	cr_expect_float_eq(g.busy_iops, 100.0, 1e-9, "%f", g.busy_iops);
	cr_expect_float_eq(g.busy_bps, 19531.0 * 512 / 10, 1e-6, "%f", g.busy_bps);
	cr_expect(probe_svc_busy(p, d, &g), "100 IO/s: over busy_iops (50)");
}

/*
 * probe_svc_internal.h: the study's idle clock asks for busy "since" its own
 * last write: the snapshots before it are left out, and with less than half a
 * minute after it the drive counts as not busy (not known).
 */
Test(probe_svc, busy_since_leaves_out_what_came_before)
{
	struct probe_dev *d = probe_svc_dev_find(p, dev_a, true);
	struct gate_facts g = {0};

	cr_assert_not_null(d);
	cr_assert_eq(cfg_set(&p->cfg, "probes", "busy_iops", "50", (char[CFG_ERR_MAX]){0}), 0);
	/* 1000 IO/s for 40 s (the study's own writes), then idle for 40 s. */
	for (int k = 0; k <= 4; k++)
		snap(d, 10000 * k, 10000 * k, 0);
	for (int k = 5; k <= 8; k++)
		snap(d, 10000 * k, 40000, 0);
	cr_expect(probe_svc_busy(p, d, &g), "the last minute holds the writes");
	g = (struct gate_facts){0};
	cr_expect_not(probe_svc_busy_since(p, d, 40000, &g), "since its own end: idle");
	cr_expect(g.busy_known);
	cr_expect_float_eq(g.busy_iops, 0.0, 1e-9);
	g = (struct gate_facts){0};
	(void)probe_svc_busy_since(p, d, 50000, &g);
	cr_expect(g.busy_known, "30 s since, the snapshot at 50 s counted: known");
	g = (struct gate_facts){0};
	cr_expect_not(probe_svc_busy_since(p, d, 60000, &g), "20 s since: not known, not busy");
	cr_expect_not(g.busy_known);
}
