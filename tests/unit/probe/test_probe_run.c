/* SPDX-License-Identifier: MIT */
/*
 * The demo drives' probe model with the analysis (a write-cache cliff and a
 * throttling dip), schedules, and probe runs through a real SQLite file.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvmond/analysis/cliff.h"
#include "nvmond/demo/demo.h"
#include "nvmond/dev/dev.h"
#include "nvmond/probe/probe_run.h"
#include "nvmond/util/timefmt.h"
#include "nvmond/probe/probe_sched.h"
#include "nvmond/store/store.h"
#include "nvmond/store/store_facts.h"
#include "nvmond/store/store_probe.h"
#include "nvmond/util/timefmt.h"

#define GB 1000000000.0

static struct cliff_thermal thermal_at(struct dev_backend *b, const char *name, int64_t ms,
				       int64_t t)
{
	uint8_t page[SMART_LOG_SIZE];
	struct smart_log s;

	cr_assert_eq(dev_read_smart(b, name, NULL, ms, page), 0);
	smart_decode(page, &s);
	return (struct cliff_thermal){.t_ms = t,
				      .temp_k = s.temperature_k,
				      .t1_count = s.thm_temp1_trans_count,
				      .t2_count = s.thm_temp2_trans_count,
				      .t1_time_s = s.thm_temp1_total_time,
				      .t2_time_s = s.thm_temp2_total_time,
				      .warning_temp_time_min = s.warning_temp_time};
}

/* demo0 sustained writing across one of its light-throttling episodes. */
Test(probe_demo, demo0_shows_a_cache_cliff_and_a_throttling_dip)
{
	struct dev_backend *b;
	int64_t t0 = 1796000000000LL, onset = 0;

	cr_assert_eq(dev_demo_open(&b), 0);
	/* The first light (TMT1 only) episode after t0. */
	struct cliff_thermal prev = thermal_at(b, "demo0", t0, 0);
	for (int64_t s = 1; s < 3600 && !onset; s++) {
		struct cliff_thermal c = thermal_at(b, "demo0", t0 + s * 1000, 0);
		if (c.t1_time_s > prev.t1_time_s && s > 60) {
			/* Cool for the minute before, and no TMT2 around it. */
			struct cliff_thermal before =
				thermal_at(b, "demo0", t0 + (s - 60) * 1000, 0);
			struct cliff_thermal end = thermal_at(b, "demo0", t0 + (s + 100) * 1000, 0);
			if (before.t1_time_s == prev.t1_time_s && end.t2_time_s == before.t2_time_s)
				onset = t0 + s * 1000;
		}
		prev = c;
	}
	cr_assert(onset, "no light throttling episode in an hour");

	int64_t start = onset - 20000;
	struct probe_sim_state st = {0};
	struct probe_job j = {.op = PROBE_OP_WRITE,
			      .block_size = 1 << 20,
			      .depth = 8,
			      .length = 1ull << 30,
			      .duration_ms = 150000,
			      .interval_ms = 250};
	struct probe_result res;
	cr_assert_eq(probe_demo_run(0, &st, &j, start, false, NULL, NULL, &res), 0);
	cr_assert_eq(res.n_series, 600);
	cr_expect_str_eq(res.engine, "demo");

	struct cliff_point *cp = calloc(res.n_series, sizeof(*cp));
	struct cliff_thermal th[151];
	for (size_t i = 0; i < res.n_series; i++)
		cp[i] = (struct cliff_point){res.series[i].t_ms, res.series[i].wr_bytes};
	for (int64_t s = 0; s <= 150; s++)
		th[s] = thermal_at(b, "demo0", start + s * 1000, s * 1000);
	struct cliff_event ev[8];
	size_t n = 0;
	cr_assert_eq(cliff_analyze(cp, res.n_series, th, 151, NULL, ev, 8, &n), 0);
	cr_assert_eq(n, 2, "events: %zu", n);
	/* The write cache (8 GB) runs out: a cliff, not thermal. */
	cr_expect_eq(ev[0].kind, CLIFF_CLIFF);
	cr_expect_eq(ev[0].cause, CLIFF_CAUSE_UNKNOWN);
	cr_expect(ev[0].bytes_before > 7.5 * GB && ev[0].bytes_before < 8.5 * GB, "%.2f GB",
		  ev[0].bytes_before / GB);
	cr_expect(ev[0].rate_before > 1.4 * GB && ev[0].rate_after < 0.7 * GB);
	/* Then the drive heats up: a dip that recovers, labeled throttling. */
	cr_expect_eq(ev[1].kind, CLIFF_DIP);
	cr_expect(ev[1].recovered);
	cr_expect_eq(ev[1].cause, CLIFF_CAUSE_THROTTLING);
	cr_expect(ev[1].start_ms >= 19000 && ev[1].start_ms <= 22000, "%lld",
		  (long long)ev[1].start_ms);
	cr_expect(ev[1].rate_during < 0.6 * ev[1].rate_before);

	/* An hour idle empties the cache; right away it is still full. */
	cr_expect_eq(st.idle_since_ms, start + 150000);
	struct probe_sim_state again = st;
	j.duration_ms = 2000;
	probe_result_clear(&res);
	cr_assert_eq(probe_demo_run(0, &again, &j, start + 151000, false, NULL, NULL, &res), 0);
	cr_expect_lt(res.series[0].wr_bytes, 0.2 * GB); /* native 0.6 GB/s */
	probe_result_clear(&res);
	again = st;
	again.cache_used = 24 * GB;
	cr_assert_eq(
		probe_demo_run(1, &again, &j, start + 150000 + 3600000, false, NULL, NULL, &res),
		0);
	cr_expect_gt(res.series[0].wr_bytes, 1.1 * GB);
	probe_result_clear(&res);
	free(cp);
	dev_backend_free(b);
}

Test(probe_sched, parses_and_rejects)
{
	struct probe_sched v[PROBE_SCHED_MAX];
	char err[PROBE_SCHED_ERR];
	size_t n = 9;

	cr_assert_eq(probe_sched_parse("", v, &n, err), 0);
	cr_expect_eq(n, 0);
	cr_assert_eq(probe_sched_parse("daily 03:00 seq1m-q8, weekly Sun 04:30 sustained-write", v,
				       &n, err),
		     0, "%s", err);
	cr_assert_eq(n, 2);
	cr_expect_eq(v[0].weekday, -1);
	cr_expect_eq(v[0].minute, 180);
	cr_expect_eq(v[0].preset, PROBE_SEQ1M_Q8);
	cr_expect_eq(v[1].weekday, 0);
	cr_expect_eq(v[1].minute, 270);
	cr_expect_eq(v[1].preset, PROBE_SUSTAINED_WRITE);
	const char *bad[] = {"daily 3am seq1m-q8", "daily 24:00 seq1m-q8", "daily 03:00 fast",
			     "weekly Xyz 03:00 seq1m-q8", "monthly 1 03:00 seq1m-q8", "daily 03:00",
			     "daily 03:00 seq1m-q8,", "daily 03:00 seq1m-q8 x",
			     /* "time must be HH:MM": nothing after the minutes */
			     "daily 03:00pm seq1m-q8", "daily 03:30x seq1m-q8",
			     "weekly Sun 04:30:00 seq1m-q8", "daily 03:001 seq1m-q8",
			     "daily 3:00am seq1m-q8"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(probe_sched_parse(bad[i], v, &n, err), -EINVAL, "%s", bad[i]);
}

Test(probe_sched, next_occurrence)
{
	struct probe_sched daily = {.weekday = -1, .minute = 180, .preset = PROBE_SEQ1M_Q8};
	struct probe_sched sunday = {.weekday = 0, .minute = 240, .preset = PROBE_SEQ1M_Q8};
	int64_t t, want;

	cr_assert_eq(timefmt_parse("2026-11-30T02:00:00Z", &t), 0); /* a Monday */
	cr_assert_eq(timefmt_parse("2026-11-30T03:00:00Z", &want), 0);
	cr_expect_eq(probe_sched_next(&daily, t, 0, 0, 1), want);
	cr_expect_eq(probe_sched_next(&daily, want, 0, 0, 1), want + 86400000);
	/* 03:00 in UTC+1 is 02:00Z: already past at 02:00Z, so tomorrow. */
	cr_assert_eq(timefmt_parse("2026-12-01T02:00:00Z", &want), 0);
	cr_expect_eq(probe_sched_next(&daily, t, 3600, 0, 1), want);
	cr_assert_eq(timefmt_parse("2026-12-06T04:00:00Z", &want), 0);
	cr_expect_eq(probe_sched_next(&sunday, t, 0, 0, 1), want);
	/* Jitter: within [0, 10 min), stable for a given seed, different across days. */
	int64_t a = probe_sched_next(&daily, t, 0, 600000, 7);
	cr_assert_eq(timefmt_parse("2026-11-30T03:00:00Z", &want), 0);
	cr_expect(a >= want && a < want + 600000);
	cr_expect_eq(probe_sched_next(&daily, t, 0, 600000, 7), a);
	int64_t b2 = probe_sched_next(&daily, a, 0, 600000, 7);
	cr_expect(b2 >= want + 86400000 && b2 < want + 86400000 + 600000);
}

Test(store_probe, runs_phases_budgets)
{
	char path[] = "/tmp/nvmond-store-probe-XXXXXX", db[64], err[STORE_ERR_MAX];
	struct store *s;
	struct device_row row = {.key = "M/S",
				 .model = "M",
				 .serial = "S",
				 .name = "nvme0",
				 .namespaces = "[]",
				 .first_seen_ms = 1,
				 .last_seen_ms = 1,
				 .online = 1};
	int64_t dev, id, skipped;

	cr_assert_not_null(mkdtemp(path));
	snprintf(db, sizeof(db), "%s/t.db", path);
	cr_assert_eq(store_open(db, &s, err), 0, "%s", err);
	cr_assert_eq(store_device_upsert(s, &row, &dev), 0);

	struct probe_outcome o = {.run = {.device_id = dev,
					  .preset = "sustained-write",
					  .trigger = "api",
					  .state = "running",
					  .started_ms = 1000000}};
	cr_assert_eq(store_probe_run_insert(s, &o.run, &o.run.id), 0);
	struct probe_run_row skip = {.device_id = dev,
				     .preset = "sustained-write",
				     .trigger = "schedule",
				     .state = "skipped",
				     .reason = "drive busy",
				     .started_ms = 2000000,
				     .ended_ms = 2000000};
	cr_assert_eq(store_probe_run_insert(s, &skip, &skipped), 0);

	struct probe_point pts[3] = {{250, 0, 100}, {500, 0, 200}, {750, 0, 50}};
	o.n_phases = 1;
	o.res[0].series = pts;
	o.res[0].n_series = 3;
	o.phase[0] = (struct probe_phase_row){.name = "write",
					      .op = "write",
					      .block_size = 4096,
					      .depth = 8,
					      .stop = "early",
					      .elapsed_ms = 750,
					      .interval_ms = 250,
					      .wr = {.bytes = 350, .ios = 3}};
	o.n_ev[0] = 1;
	o.ev[0][0] = (struct cliff_event){.kind = CLIFF_CLIFF,
					  .start_ms = 500,
					  .end_ms = 750,
					  .bytes_before = 300,
					  .rate_before = 1e9,
					  .rate_during = 2e8,
					  .rate_after = 2e8};
	struct cliff_thermal th[2] = {{.t_ms = 0, .temp_k = 320}, {.t_ms = 1000, .temp_k = 330}};
	o.thermal = th;
	o.n_thermal = 2;
	snprintf(o.run.state, sizeof(o.run.state), "stopped");
	o.run.bytes_written = 350;
	o.run.bytes_charged = 350;
	o.run.ended_ms = 1001000;
	cr_assert_eq(probe_outcome_save(s, &o), 0);

	json_t *j = NULL;
	cr_assert_eq(probe_run_detail_json(s, o.run.id, true, &j), 0);
	cr_expect_str_eq(json_string_value(json_object_get(j, "state")), "stopped");
	json_t *ph = json_array_get(json_object_get(j, "phases"), 0);
	cr_expect_eq(json_array_size(json_object_get(ph, "series")), 3);
	cr_expect_eq(json_integer_value(
			     json_array_get(json_array_get(json_object_get(ph, "series"), 1), 2)),
		     200);
	json_t *e = json_array_get(json_object_get(ph, "events"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(e, "kind")), "cliff");
	cr_expect_eq(json_integer_value(json_object_get(e, "bytes_before")), 300);
	cr_expect_eq(json_array_size(json_object_get(j, "smart")), 2);
	cr_expect(json_is_null(json_object_get(j, "link")), "no link recorded");
	cr_expect_eq(json_array_size(json_object_get(j, "notes")), 0);
	json_decref(j);
	/* Issue 11: on a link recorded degraded before the run started, the result says so. */
	cr_assert_eq(store_link_insert(s, &(struct store_link_row){.device_id = dev,
								   .ts_ms = o.run.started_ms - 1,
								   .link = {80, 2, 160, 4}}),
		     0);
	cr_assert_eq(probe_run_detail_json(s, o.run.id, false, &j), 0);
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(j, "link"), "text")),
			 "PCIe 8.0 GT/s x2 (max 16.0 GT/s x4)");
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(j, "notes"), 0)),
			 "link degraded: PCIe 8.0 GT/s x2 (max 16.0 GT/s x4) runs below what the "
			 "drive supports; the throughput measured here is capped by the link");
	json_decref(j);
	cr_expect_eq(probe_run_detail_json(s, 999, true, &j), -ENOENT);

	uint64_t w = 0;
	cr_assert_eq(store_probe_written_since(s, dev, 0, &w), 0);
	cr_expect_eq(w, 350);
	cr_assert_eq(store_probe_written_since(s, dev, 1000001, &w), 0);
	cr_expect_eq(w, 0);
	int64_t last = -1;
	cr_assert_eq(store_probe_last_started(s, dev, "sustained-write", &last), 0);
	cr_expect_eq(last, 1000000); /* the skipped one does not count */
	cr_assert_eq(store_probe_last_started(s, dev, "seq1m-q8", &last), 0);
	cr_expect_eq(last, 0);

	struct probe_run_row *v = NULL;
	size_t n = 0;
	cr_assert_eq(store_probe_runs_list(s, dev, 10, &v, &n), 0);
	cr_assert_eq(n, 2);
	cr_expect_eq(v[0].id, skipped); /* newest first */
	cr_expect_str_eq(v[0].reason, "drive busy");
	free(v);

	/* docs/probes.md (Safety): the budget is charged up front while a run runs... */
	struct probe_run_row r2 = {.device_id = dev,
				   .preset = "seq1m-q1",
				   .trigger = "api",
				   .state = "running",
				   .started_ms = 3000000,
				   .bytes_charged = 1000};
	cr_assert_eq(store_probe_run_insert(s, &r2, &id), 0);
	cr_assert_eq(store_probe_written_since(s, dev, 0, &w), 0);
	cr_expect_eq(w, 350 + 1000);
	cr_assert_eq(store_probe_run_charge(s, id, 600, 400), 0);
	cr_assert_eq(store_probe_written_since(s, dev, 0, &w), 0);
	cr_expect_eq(w, 350 + 1000, "the reservation holds while it runs");
	/* ...and a run whose process died is charged its lease, not 0. */
	cr_expect_eq(store_probe_runs_recover(s, dev, 4000000, "died"), 1);
	cr_assert_eq(store_probe_run_get(s, id, &r2), 0);
	cr_expect_str_eq(r2.state, "failed");
	cr_expect_str_eq(r2.reason, "died");
	cr_expect_eq(r2.ended_ms, 4000000);
	cr_expect_eq(r2.bytes_charged, 600);
	cr_expect_eq(r2.bytes_written, 400);
	cr_assert_eq(store_probe_written_since(s, dev, 0, &w), 0);
	cr_expect_eq(w, 350 + 600);
	cr_expect_eq(store_probe_run_charge(s, id, 700, 500), -ENOENT, "only a running run");
	cr_expect_eq(store_probe_runs_recover(s, dev, 5000000, "again"), 0);

	/* sustained_every: a failed run that wrote counts, one refused before writing not. */
	struct probe_run_row f1 = {.device_id = dev,
				   .preset = "copy-self",
				   .trigger = "api",
				   .state = "failed",
				   .started_ms = 6000000,
				   .ended_ms = 6000001};
	cr_assert_eq(store_probe_run_insert(s, &f1, &id), 0);
	cr_assert_eq(store_probe_last_started(s, dev, "copy-self", &last), 0);
	cr_expect_eq(last, 0);
	f1.started_ms = 7000000;
	f1.bytes_charged = 1;
	cr_assert_eq(store_probe_run_insert(s, &f1, &id), 0);
	cr_assert_eq(store_probe_last_started(s, dev, "copy-self", &last), 0);
	cr_expect_eq(last, 7000000);
	cr_assert_eq(store_probe_last_started(s, dev, "seq1m-q1", &last), 0);
	cr_expect_eq(last, 3000000);

	/* The probe files nvmond made. */
	struct probe_file_id fid = {
		.ino = 12, .gen = 4294967295u, .has_gen = true, .size = 1 << 20};
	struct probe_file_id got;
	cr_expect_eq(store_probe_file_get(s, dev, "/srv/p", &got), -ENOENT);
	cr_assert_eq(store_probe_file_put(s, dev, "/srv/p", &fid, 1), 0);
	cr_assert_eq(store_probe_file_get(s, dev, "/srv/p", &got), 0);
	cr_expect(got.ino == 12 && got.gen == 4294967295u && got.has_gen && !got.has_btime &&
		  got.size == 1 << 20);
	fid = (struct probe_file_id){.ino = 13, .btime_ns = -5, .has_btime = true, .size = 2};
	cr_assert_eq(store_probe_file_put(s, dev, "/srv/p", &fid, 2), 0);
	cr_assert_eq(store_probe_file_get(s, dev, "/srv/p", &got), 0);
	cr_expect(got.ino == 13 && !got.has_gen && got.has_btime && got.btime_ns == -5);
	cr_expect_eq(store_probe_file_get(s, dev, "/srv/q", &got), -ENOENT);
	store_close(s);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", path);
	cr_expect_eq(system(cmd), 0);
}

/* The run's SMART reads, through a demo backend at the run's simulated time. */
struct sim_reads {
	struct dev_backend *b;
	char ctrl[32]; /* the controller the run asked */
	int n;
};

static int sim_smart(void *ctx, const char *ctrl, int64_t now_ms, struct smart_log *ret)
{
	struct sim_reads *c = ctx;
	uint8_t page[SMART_LOG_SIZE];
	int r = dev_read_smart(c->b, ctrl, NULL, now_ms, page);

	snprintf(c->ctrl, sizeof(c->ctrl), "%s", ctrl);
	c->n++;
	return r < 0 ? r : smart_decode(page, ret);
}

/*
 * Rule (issue 26, probe_run_internal.h): a plan of a backend that answers its
 * probes itself (DEV_CAP_OWN_PROBES) runs on the simulated engine, which finds
 * its drive by the plan's serial, as the block engine finds a controller in
 * sysfs: no index comes with the plan. A copy-to between the two engines is
 * refused.
 */
Test(probe_run, own_probes_find_their_drive_by_identity)
{
	struct dev_demo_drive d;
	struct sim_reads c = {0};
	struct probe_outcome o;
	struct probe_hooks h = {.read_smart = sim_smart, .ctx = &c};
	const int64_t start = 1796005160000LL;

	cr_assert_eq(dev_demo_open_n(2, &c.b), 0);
	cr_assert_eq(dev_demo_drive(1, &d), 0);
	struct probe_plan p = {
		.device_id = 1,
		.preset = PROBE_SEQ1M_Q1,
		.trigger = "cli",
		.own_probes = true,
		.nsid = 1,
		.file_size = 1ull << 30,
		.allowed_write = 2ull << 30,
		.phase_ms = 250,
		.wctemp_k = d.wctemp_k,
	};
	snprintf(p.serial, sizeof(p.serial), "%s", d.serial);
	snprintf(p.model, sizeof(p.model), "%s", d.model);

	o = (struct probe_outcome){.run = {.id = 1, .device_id = 1, .started_ms = start}};
	cr_assert_eq(probe_execute(&p, &h, &o), 0);
	cr_expect_str_eq(o.run.state, "done", "%s", o.run.reason);
	cr_expect_str_eq(o.run.target, "demo:1");
	cr_expect_str_eq(o.run.engine, "demo");
	cr_expect_str_eq(c.ctrl, "demo1", "SMART read from the drive of the serial");
	cr_expect_gt(c.n, 0);
	cr_expect_eq(o.n_phases, 2);
	cr_expect_gt(o.run.bytes_read, 0);
	cr_expect_gt(o.run.bytes_written, 0);
	probe_outcome_clear(&o);

	/* No simulated drive has that serial: refused before any phase. */
	snprintf(p.serial, sizeof(p.serial), "NOT-A-DEMO-SERIAL");
	o = (struct probe_outcome){.run = {.id = 2, .device_id = 1, .started_ms = start}};
	cr_assert_eq(probe_execute(&p, &h, &o), 0);
	cr_expect_str_eq(o.run.state, "failed");
	cr_expect(strstr(o.run.reason, "no simulated drive") != NULL, "%s", o.run.reason);
	cr_expect_eq(o.n_phases, 0);
	probe_outcome_clear(&o);

	/* copy-to from a drive on the block engine onto a simulated one. */
	struct probe_plan src = p;
	snprintf(p.serial, sizeof(p.serial), "%s", d.serial);
	src.own_probes = false;
	src.allowed_write = 0;
	p.preset = PROBE_COPY_TO;
	p.source = &src;
	o = (struct probe_outcome){.run = {.id = 3, .device_id = 1, .started_ms = start}};
	cr_assert_eq(probe_execute(&p, &h, &o), 0);
	cr_expect_str_eq(o.run.state, "failed");
	cr_expect(strstr(o.run.reason, "copy-to needs") != NULL, "%s", o.run.reason);
	probe_outcome_clear(&o);
	dev_backend_free(c.b);
}

/*
 * docs/probes.md (Budget): with no write budget left a preset's write phases
 * are skipped and its reads run ("write phase skipped: no write budget
 * left"); a preset that only writes (copy-self, one phase) has nothing left
 * to run: it fails, saying so, before any phase.
 */
Test(probe_run, no_write_budget_skips_the_writes_or_fails_a_write_only_preset)
{
	struct dev_demo_drive d;
	struct sim_reads c = {0};
	struct probe_outcome o;
	struct probe_hooks h = {.read_smart = sim_smart, .ctx = &c};
	const int64_t start = 1796005160000LL;

	cr_assert_eq(dev_demo_open_n(2, &c.b), 0);
	cr_assert_eq(dev_demo_drive(1, &d), 0);
	struct probe_plan p = {
		.device_id = 1,
		.preset = PROBE_COPY_SELF,
		.trigger = "cli",
		.own_probes = true,
		.nsid = 1,
		.file_size = 1ull << 30,
		.allowed_write = 0,
		.phase_ms = 250,
		.wctemp_k = d.wctemp_k,
	};
	snprintf(p.serial, sizeof(p.serial), "%s", d.serial);
	snprintf(p.model, sizeof(p.model), "%s", d.model);

	o = (struct probe_outcome){.run = {.id = 1, .device_id = 1, .started_ms = start}};
	cr_assert_eq(probe_execute(&p, &h, &o), 0);
	cr_expect_str_eq(o.run.state, "failed");
	cr_expect_str_eq(o.run.reason, "no write budget left");
	cr_expect_eq(o.n_phases, 0);
	probe_outcome_clear(&o);

	p.preset = PROBE_SEQ1M_Q1;
	o = (struct probe_outcome){.run = {.id = 2, .device_id = 1, .started_ms = start}};
	cr_assert_eq(probe_execute(&p, &h, &o), 0);
	cr_expect_str_eq(o.run.state, "done", "%s", o.run.reason);
	cr_expect_str_eq(o.run.reason, "write phase skipped: no write budget left");
	cr_expect_eq(o.n_phases, 1, "the read phase ran");
	cr_expect_gt(o.run.bytes_read, 0);
	cr_expect_eq(o.run.bytes_written, 0);
	cr_expect_eq(o.run.bytes_charged, 0);
	probe_outcome_clear(&o);
	dev_backend_free(c.b);
}

/*
 * One run of @preset on demo drive @index through probe_execute(), into @o,
 * started at *@clock_ms, which moves on by the run's phases: the next run starts
 * right after it. The clock is the simulated drive's, never the wall clock: demo0
 * peaks at its warning temperature once every 5 minutes, and a run there aborts.
 */
static void sim_execute(struct sim_reads *c, size_t index, enum probe_preset_id preset,
			uint64_t allowed_write, unsigned together, int64_t *clock_ms,
			struct probe_outcome *o)
{
	struct dev_demo_drive d;
	struct probe_hooks h = {.read_smart = sim_smart, .ctx = c};

	cr_assert_eq(dev_demo_drive(index, &d), 0);
	struct probe_plan p = {
		.device_id = (int64_t)index + 1,
		.preset = preset,
		.trigger = "cli",
		.own_probes = true,
		.nsid = 1,
		.file_size = 16ull << 30,
		.allowed_write = allowed_write,
		.phase_ms = 500,
		.wctemp_k = d.wctemp_k,
		.together = together,
	};
	snprintf(p.serial, sizeof(p.serial), "%s", d.serial);
	snprintf(p.model, sizeof(p.model), "%s", d.model);
	*o = (struct probe_outcome){
		.run = {.id = 1, .device_id = p.device_id, .started_ms = *clock_ms}};
	cr_assert_eq(probe_execute(&p, &h, o), 0);
	for (size_t k = 0; k < o->n_phases; k++)
		*clock_ms += o->phase[k].elapsed_ms;
	/* a sustained write stops at its cliff, or is done at its byte limit */
	cr_assert(!strcmp(o->run.state, "done") ||
			  (preset == PROBE_SUSTAINED_WRITE && !strcmp(o->run.state, "stopped")),
		  "%s: %s", o->run.state, o->run.reason);
}

/* MB/s of phase @k, reads or writes. */
static double phase_mbps(const struct probe_outcome *o, size_t k, bool write)
{
	const struct probe_phase_row *ph = &o->phase[k];

	return (double)(write ? ph->wr.bytes : ph->rd.bytes) / 1e3 /
	       (double)(ph->elapsed_ms ? ph->elapsed_ms : 1);
}

/*
 * Rule (issue 26, probe_demo.c): the simulated engine keeps each drive's write
 * cache between runs, whoever runs them, as a real drive keeps its own: after a
 * sustained write filled demo0's 8 GB cache, a write right away runs at its native
 * 0.6 GB/s, where it ran at its 1.2 GB/s before; another drive's cache is its own.
 * The plan's group (together) shares the host's bandwidth: two at once, 75 % each.
 */
Test(probe_run, the_simulated_engine_keeps_each_drives_cache_and_shares_a_groups_bandwidth,
     .timeout = 60)
{
	struct sim_reads c = {0};
	struct probe_outcome o;
	struct dev_demo_drive d0;
	struct smart_log cool;
	/* a trough of demo0's 5-minute temperature cycle, 10,000 cycles after its epoch */
	int64_t clock_ms = DEV_DEMO_EPOCH_MS + 10000 * 300000LL;

	cr_assert_eq(dev_demo_drive(0, &d0), 0);
	dev_demo_state(&d0, clock_ms, &cool);
	cr_assert_lt(cool.temperature_k, d0.wctemp_k - 20, "demo0 starts cool: %u K",
		     cool.temperature_k);
	cr_assert_eq(dev_demo_open_n(2, &c.b), 0);
	sim_execute(&c, 0, PROBE_SEQ1M_Q1, 1ull << 30, 0, &clock_ms, &o);
	double before = phase_mbps(&o, 1, true);
	probe_outcome_clear(&o);
	cr_expect_gt(before, 1000, "demo0's write into its empty cache: %.0f MB/s", before);

	sim_execute(&c, 0, PROBE_SUSTAINED_WRITE, 9ull << 30, 0, &clock_ms, &o);
	cr_expect_gt(o.run.bytes_written, 8e9, "the cliff at the cache's 8 GB");
	probe_outcome_clear(&o);

	sim_execute(&c, 0, PROBE_SEQ1M_Q1, 1ull << 30, 0, &clock_ms, &o);
	double after = phase_mbps(&o, 1, true);
	probe_outcome_clear(&o);
	cr_expect_lt(after, 700, "demo0 right after its cache filled: %.0f MB/s", after);

	/* demo1's cache is its own; its reads alone, then with another drive. */
	sim_execute(&c, 1, PROBE_SEQ1M_Q1, 1ull << 30, 0, &clock_ms, &o);
	double alone = phase_mbps(&o, 0, false), wr1 = phase_mbps(&o, 1, true);
	probe_outcome_clear(&o);
	cr_expect_gt(wr1, 2500, "demo1's write (3.0 GB/s, its cache empty): %.0f MB/s", wr1);
	sim_execute(&c, 1, PROBE_SEQ1M_Q1, 1ull << 30, 2, &clock_ms, &o);
	double two = phase_mbps(&o, 0, false);
	probe_outcome_clear(&o);
	cr_expect(two > 0.68 * alone && two < 0.82 * alone,
		  "two at once: %.0f MB/s against %.0f alone (75 %%, each run's own 0.98-1.05)",
		  two, alone);
	dev_backend_free(c.b);
}
