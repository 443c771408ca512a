/* SPDX-License-Identifier: MIT */
/*
 * probe_execute()'s sequence of phases (probe_run.c: the plan checked, the
 * drives opened, each phase, the settling, the close) on the simulated
 * engine: the demo backend's drives answer, in real time, so a run takes its
 * phases' time (an interval of 250 ms at least) and touches no disk. Each case names the
 * rule it pins; test_probe_exec.c runs the block engine on a real file.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "nvmond/demo/demo.h"
#include "nvmond/dev/dev.h"
#include "nvmond/probe/probe_run.h"

#define START_MS 1796005160000LL

/* What the hooks saw. */
struct seen {
	struct dev_backend *b;
	int smart_reads;    /* the target's SMART reads */
	int phases_started; /* phase_start calls */
	size_t last_phase;  /* the preset's last phase: a cancel comes once it started */
	bool in_tick;	    /* progress was told: the next cancelled() is the engine's tick's */
	bool cancel_after_ticks; /* cancelled() is true, but never at a tick */
};

static int h_smart(void *ctx, const char *ctrl, int64_t now_ms, struct smart_log *ret)
{
	struct seen *c = ctx;
	uint8_t page[SMART_LOG_SIZE];
	int r = dev_read_smart(c->b, ctrl, NULL, now_ms, page);

	c->smart_reads++;
	return r < 0 ? r : smart_decode(page, ret);
}

static void h_progress(void *ctx, size_t phase, const struct probe_point *v, size_t n)
{
	struct seen *c = ctx;

	(void)phase;
	(void)v;
	(void)n;
	c->in_tick = true;
}

/*
 * A cancel that comes while the last phase's I/O drains: after the phase's
 * checks (which ask before phase_start), and never at one of the engine's
 * ticks (each comes right after progress), so only the run's end can see it.
 */
static bool h_cancelled(void *ctx)
{
	struct seen *c = ctx;

	if (c->in_tick) {
		c->in_tick = false;
		return false;
	}
	return c->cancel_after_ticks && c->phases_started > 0 &&
	       (size_t)c->phases_started - 1 >= c->last_phase;
}

static void h_phase_start(void *ctx, size_t step)
{
	struct seen *c = ctx;

	(void)step;
	c->phases_started++;
}

static struct dev_backend *demo;

static void setup(void)
{
	cr_assert_eq(dev_demo_open_n(2, &demo), 0);
}

static void teardown(void)
{
	demo = dev_backend_free(demo);
}

TestSuite(probe_execute, .init = setup, .fini = teardown);

/* A run of @preset on demo drive @index (its simulated engine), 100 ms a phase. */
static struct probe_plan plan_of(size_t index, enum probe_preset_id preset)
{
	struct dev_demo_drive d;
	struct probe_plan p = {
		.device_id = 1 + (int64_t)index,
		.preset = preset,
		.trigger = "cli",
		.own_probes = true,
		.nsid = 1,
		.file_size = 1ull << 30,
		.allowed_write = 2ull << 30,
		.phase_ms = 100,
	};

	cr_assert_eq(dev_demo_drive(index, &d), 0);
	p.wctemp_k = d.wctemp_k;
	snprintf(p.serial, sizeof(p.serial), "%s", d.serial);
	snprintf(p.model, sizeof(p.model), "%s", d.model);
	return p;
}

static void execute(const struct probe_plan *p, struct seen *c, struct probe_outcome *o)
{
	struct probe_hooks h = {.read_smart = h_smart,
				.read_smart_source = h_smart,
				.progress = h_progress,
				.cancelled = h_cancelled,
				.phase_start = h_phase_start,
				.ctx = c};

	c->b = demo;
	c->last_phase = probe_preset_get(p->preset)->n_phases - 1;
	*o = (struct probe_outcome){
		.run = {.id = 1, .device_id = p->device_id, .started_ms = START_MS}};
	cr_assert_eq(probe_execute(p, &h, o), 0);
}

/*
 * probe_run.c, run_open(): "the drives opened, the source first (refused,
 * nothing is written on the other)", the source "looked up by identity as the
 * target is" (docs/probes.md, copy-to: "Both are looked up and re-checked"):
 * a copy-to whose source is not the drive it names fails before the target
 * is opened or read.
 */
Test(probe_execute, copy_to_source_looked_up_before_the_target_is_opened)
{
	struct probe_plan tgt = plan_of(1, PROBE_COPY_TO), src = plan_of(0, PROBE_COPY_TO);
	struct probe_outcome o;
	struct seen c = {0};

	src.allowed_write = 0;
	snprintf(src.serial, sizeof(src.serial), "GONE-SERIAL");
	tgt.source = &src;
	execute(&tgt, &c, &o);
	cr_expect_str_eq(o.run.state, "failed");
	cr_expect_str_eq(o.run.reason,
			 "drive copied from (GONE-SERIAL): no simulated drive has serial "
			 "GONE-SERIAL");
	cr_expect_str_eq(o.run.target, "", "the target was never opened");
	cr_expect_eq(c.smart_reads, 0, "nor read");
	cr_expect_eq(o.n_phases, 0);
	cr_expect_eq(o.run.bytes_written, 0);
	cr_expect_eq(o.run.bytes_charged, 0);
	probe_outcome_clear(&o);

	/* The same pair with the source present: it copies. */
	src = plan_of(0, PROBE_COPY_TO);
	src.allowed_write = 0;
	c = (struct seen){0};
	execute(&tgt, &c, &o);
	cr_expect_str_eq(o.run.state, "done", "%s", o.run.reason);
	cr_expect_eq(o.run.source_device_id, 1);
	cr_expect_gt(o.run.bytes_written, 0);
	probe_outcome_clear(&o);
}

/*
 * probe_run.c, run_check_plan(): "a copy-to reads another drive, which it
 * never writes" — a plan that would let it write its source fails before
 * anything is opened ("copy-to needs the drive to copy from, and only reads
 * it"); docs/probes.md, copy-to: the source is "opened read-only".
 */
Test(probe_execute, copy_to_writable_source_is_refused)
{
	struct probe_plan tgt = plan_of(1, PROBE_COPY_TO), src = plan_of(0, PROBE_COPY_TO);
	struct probe_outcome o;
	struct seen c = {0};

	src.allowed_write = 1ull << 30; /* its plan allows writing it */
	tgt.source = &src;
	execute(&tgt, &c, &o);
	cr_expect_str_eq(o.run.state, "failed");
	cr_expect_str_eq(o.run.reason, "copy-to needs the drive to copy from, and only reads it");
	cr_expect_str_eq(o.run.target, "", "nothing opened");
	cr_expect_eq(o.run.source_device_id, 0);
	cr_expect_eq(c.phases_started, 0);
	cr_expect_eq(o.run.bytes_written + o.run.bytes_read, 0);
	probe_outcome_clear(&o);
}

/*
 * probe_run.c, phase_end(): "a phase that measured nothing is not one" — an
 * engine that fails a phase (here the simulated one refuses a phase of no
 * duration, -EINVAL) ends the run "failed", the reason naming the phase, with
 * no phase on record and the phases after it never started.
 */
Test(probe_execute, failed_phase_ends_the_run_without_measuring)
{
	struct probe_plan p = plan_of(1, PROBE_SEQ1M_Q1);
	struct probe_outcome o;
	struct seen c = {0};

	p.phase_ms = 0; /* the read phase: no duration, no byte limit */
	cr_assert_eq(probe_preset_get(p.preset)->n_phases, 2);
	execute(&p, &c, &o);
	cr_expect_str_eq(o.run.state, "failed");
	cr_expect_str_eq(o.run.reason, "read phase: Invalid argument");
	cr_expect_eq(c.phases_started, 1, "the write phase never started");
	cr_expect_eq(o.n_phases, 0, "nothing measured, nothing on record");
	cr_expect_eq(o.run.bytes_read, 0);
	cr_expect_eq(o.run.bytes_written, 0);
	probe_outcome_clear(&o);
}

/*
 * probe_run.c, run_settle(): "A cancel that came while the last I/O drained
 * still counts" (docs/probes.md, Safety: a cancel "counts even when it comes
 * after the last write was issued"): the run is aborted, "cancelled", though
 * every phase ran to its end; its phases stay on record.
 */
Test(probe_execute, cancel_while_the_last_phase_drains_ends_it_cancelled)
{
	struct probe_plan p = plan_of(1, PROBE_COPY_SELF); /* one phase, which writes */
	struct probe_outcome o;
	struct seen c = {0};

	execute(&p, &c, &o);
	cr_assert_str_eq(o.run.state, "done", "without the cancel: %s", o.run.reason);
	probe_outcome_clear(&o);
	c = (struct seen){.cancel_after_ticks = true};
	execute(&p, &c, &o);
	cr_expect_eq(c.phases_started, 1, "the cancel came after the last phase's checks");
	cr_expect_str_eq(o.run.state, "aborted");
	cr_expect_str_eq(o.run.reason, "cancelled");
	cr_expect_eq(o.n_phases, 1, "what ran is kept");
	cr_expect_gt(o.run.bytes_written, 0);
	probe_outcome_clear(&o);
}
