/* SPDX-License-Identifier: MIT */
/*
 * The demo year's I/O: generate each demo drive's year (demo_year.c, pure)
 * and store it through the same store functions the daemon's own subsystems
 * use, then roll it up. Never logs; main says what happened.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/analysis/cliff.h"
#include "nvmond/analysis/risk.h"
#include "nvmond/analysis/selftest_alert.h"
#include "nvmond/demo/demo.h"
#include "nvmond/demo/demo_year.h"
#include "nvmond/demo/demo_backfill.h"
#include "nvmond/monitor/devrow.h"
#include "nvmond/store/store.h"
#include "nvmond/store/store_alert.h"
#include "nvmond/store/store_drive.h"
#include "nvmond/store/store_errlog.h"
#include "nvmond/store/store_facts.h"
#include "nvmond/store/store_probe.h"
#include "nvmond/store/store_probe_group.h"
#include "nvmond/store/store_selftest.h"
#include "nvmond/util/units.h"

/* Rollup steps of a month: a year in a dozen transactions, not 1460. */
#define DEMO_BACKFILL_CHUNK_MS (30 * 24 * 3600 * 1000LL)

/* Whether any known device has a sample. */
static int has_samples(struct store *s, bool *ret)
{
	struct device_row *rows = NULL;
	size_t n = 0;
	int r = store_devices_list(s, &rows, &n);

	*ret = false;
	for (size_t i = 0; r == 0 && i < n && !*ret; i++) {
		struct sample last;
		int q = store_sample_latest(s, rows[i].id, &last);

		if (q == 0)
			*ret = true;
		else if (q != -ENOENT)
			r = q;
	}
	free(rows);
	return r;
}

/*
 * @series_id: the id of the series' first run, as `--repeat` links them; set
 * here when @run is that first run.
 */
static int store_run_of(struct store *s, int64_t device_id, size_t index,
			const struct demo_run *run, const int64_t *ids, int64_t *series_id,
			int64_t *ret_id)
{
	struct probe_run_row row = {
		.device_id = device_id,
		.started_ms = run->started_ms,
		.ended_ms = run->ended_ms,
		.bytes_written = run->bytes_written,
		.bytes_read = run->bytes_read,
		.bytes_charged = run->bytes_written,
		.bytes_lease = run->bytes_written,
		.nsid = 1,
		.series_index = run->series_index,
		.series_of = run->series_of,
	};
	struct probe_point pts[DEMO_RUN_POINTS_MAX];
	struct cliff_point cp[DEMO_RUN_POINTS_MAX];
	struct cliff_thermal th[DEMO_RUN_THERMAL_MAX];
	struct cliff_event ev[CLIFF_MAX_EVENTS];
	int r;

	/* copy-to: the drive read, stored before this one (ids[index], 0: not). */
	if (run->copy_to) {
		if (run->source_index >= DEV_DEMO_MAX || !ids[run->source_index])
			return 0;
		row.source_device_id = ids[run->source_index];
		snprintf(row.source_target, sizeof(row.source_target), "demo:%zu",
			 run->source_index);
	}
	snprintf(row.preset, sizeof(row.preset), "%s", run->preset);
	snprintf(row.trigger, sizeof(row.trigger), "schedule");
	snprintf(row.state, sizeof(row.state), "%s", run->stopped ? "stopped" : "done");
	if (run->stopped)
		snprintf(row.reason, sizeof(row.reason), "the write rate fell and stayed down");
	snprintf(row.target, sizeof(row.target), "demo:%zu", index);
	snprintf(row.engine, sizeof(row.engine), "%s", DEV_DEMO_ENGINE);
	if (run->series_index > 1)
		row.series_id = *series_id;
	r = store_probe_run_insert(s, &row, &row.id);
	if (r == 0 && run->series_index == 1) {
		row.series_id = *series_id = row.id; /* a series is known by its first run's id */
		r = store_probe_run_update(s, &row);
	}
	for (size_t k = 0; r == 0 && k < run->n_phases; k++) {
		const struct demo_run_phase *p = &run->phase[k];
		bool writes = p->wr_bytes > 0;
		struct probe_phase_row ph = {
			.phase = k,
			.random = p->random,
			.block_size = p->block_size,
			.depth = p->depth,
			.elapsed_ms = p->elapsed_ms,
			.offset_ms = p->offset_ms,
			.interval_ms = DEMO_RUN_INTERVAL_MS,
			.rd = {.bytes = p->rd_bytes,
			       .ios = p->rd_bytes / p->block_size,
			       .lat_p50_ns = p->rd_lat_ns[0],
			       .lat_p99_ns = p->rd_lat_ns[1],
			       .lat_p999_ns = p->rd_lat_ns[2]},
			.wr = {.bytes = p->wr_bytes,
			       .ios = p->wr_bytes / p->block_size,
			       .lat_p50_ns = p->wr_lat_ns[0],
			       .lat_p99_ns = p->wr_lat_ns[1],
			       .lat_p999_ns = p->wr_lat_ns[2]},
		};
		size_t n_ev = 0;

		snprintf(ph.name, sizeof(ph.name), "%s", p->name);
		snprintf(ph.op, sizeof(ph.op), "%s", p->op);
		snprintf(ph.stop, sizeof(ph.stop), "%s", p->early ? "early" : "done");
		for (size_t i = 0; i < p->n_points; i++) {
			pts[i] = (struct probe_point){p->point[i].t_ms, p->point[i].rd_bytes,
						      p->point[i].wr_bytes};
			cp[i] = (struct cliff_point){p->point[i].t_ms,
						     writes ? p->point[i].wr_bytes
							    : p->point[i].rd_bytes};
		}
		/* Dips and cliffs as the probe finds them: the same analysis. */
		for (size_t i = 0; i < run->n_thermal; i++) {
			th[i] = run->thermal[i];
			th[i].t_ms -= p->offset_ms;
		}
		(void)cliff_analyze(cp, p->n_points, th, run->n_thermal, NULL, ev, CLIFF_MAX_EVENTS,
				    &n_ev);
		r = store_probe_phase_insert(s, row.id, &ph, pts, p->n_points, ev, n_ev);
	}
	if (r == 0)
		r = store_probe_thermal_insert(s, row.id, run->thermal, run->n_thermal);
	if (r == 0)
		*ret_id = row.id;
	return r;
}

/*
 * The error log as the poller would have stored it, one read at a time (each
 * with where the log was read, so the live poller takes in only what comes
 * after the last), then the firmware and link rows as its scans would have.
 */
static int store_facts_of(struct store *s, int64_t id, const struct demo_year *y)
{
	struct errlog_row *rows = calloc(y->n_errors ? y->n_errors : 1, sizeof(*rows));
	int r = rows ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < y->n_errors; i++)
		rows[i] = (struct errlog_row){.e = y->errors[i].e,
					      .cls = y->errors[i].cls,
					      .before_watch = y->errors[i].before_watch,
					      .seen_ms = y->errors[i].seen_ms};
	for (size_t i = 0; r == 0 && i < y->n_reads; i++) {
		const struct demo_errlog_read *rd = &y->reads[i];
		struct errlog_state st = {.read_count = rd->count, .read_ms = rd->ms};

		r = store_errors_add(s, id, rows + rd->first, rd->n, &st);
	}
	free(rows);
	for (size_t i = 0; r == 0 && i < y->n_fw; i++) {
		struct store_fw_row row = {.device_id = id, .ts_ms = y->fw[i].ms};

		snprintf(row.old_rev, sizeof(row.old_rev), "%s", y->fw[i].old_rev);
		snprintf(row.new_rev, sizeof(row.new_rev), "%s", y->fw[i].new_rev);
		r = store_fw_insert(s, &row);
	}
	for (size_t i = 0; r == 0 && i < y->n_links; i++)
		r = store_link_insert(s, &(struct store_link_row){.device_id = id,
								  .ts_ms = y->links[i].ms,
								  .link = y->links[i].link});
	return r;
}

#define DEMO_SELFTESTS_MAX    160   /* a year: 53 weekly, 12 monthly, and a few */
#define DEMO_SELFTEST_SEEN_MS 30000 /* the log is read within this of a test's end */

/*
 * The self-tests the drive ran over the year, as the self-test service would
 * have stored them (not started by nvmond: origin none), and for a failure
 * the selftest_failed alert it would have raised, resolved by the next
 * passing test of that type.
 */
static int store_selftests_of(struct store *s, int64_t id, const struct dev_demo_drive *d,
			      int64_t now_ms, struct demo_backfill_stats *st)
{
	struct demo_selftest *v = calloc(DEMO_SELFTESTS_MAX, sizeof(*v));
	struct store_selftest_row *rows = calloc(DEMO_SELFTESTS_MAX, sizeof(*rows));
	size_t n;
	int r = v && rows ? 0 : -ENOMEM;

	n = r ? 0
	      : demo_selftest_history(d, now_ms - DEV_DEMO_ST_PERIOD_MS, now_ms, v,
				      DEMO_SELFTESTS_MAX);
	for (size_t i = 0; i < n; i++) {
		int64_t seen = v[i].ended_ms + DEMO_SELFTEST_SEEN_MS;
		rows[i] = (struct store_selftest_row){
			.device_id = id, .seen_ms = seen < now_ms ? seen : now_ms, .r = v[i].r};
		/* The drive's schedule is the one the daemon runs for it (selftest_plan.c). */
		if (v[i].scheduled)
			snprintf(rows[i].origin, sizeof(rows[i].origin), "schedule");
	}
	if (r == 0 && n)
		r = store_selftest_add(s, rows, n);
	for (size_t i = 0; r == 0 && i < n; i++)
		if (v[i].scheduled) /* as the scheduler records its starts */
			r = store_selftest_action_add(
				s, &(struct store_selftest_action){.device_id = id,
								   .ts_ms = v[i].started_ms,
								   .kind = STORE_SELFTEST_START,
								   .code = v[i].r.code,
								   .nsid = DEV_SELFTEST_NSID_ALL,
								   .origin = "schedule"});
	for (size_t i = 0; r == 0 && i < n; i++) {
		char what[128];
		int64_t resolved = 0;
		if (!selftest_result_failed(&rows[i].r))
			continue;
		for (size_t k = i + 1; k < n && !resolved; k++)
			if (rows[k].r.code == rows[i].r.code &&
			    rows[k].r.result == SELFTEST_RES_NO_ERROR)
				resolved = rows[k].seen_ms;
		struct alert_row a = {
			.device_id = id,
			.rule = ALERT_SELFTEST_FAILED,
			.severity = ALERT_SEV_CRITICAL,
			.firing = !resolved,
			.started_ms = rows[i].seen_ms,
			.updated_ms = resolved ? resolved : rows[i].seen_ms,
			.resolved_ms = resolved,
			.notified_ms = rows[i].seen_ms,
		};
		int64_t al_id;
		snprintf(a.message, sizeof(a.message), "%s self-test failed: %s",
			 selftest_code_name(rows[i].r.code),
			 selftest_result_describe(&rows[i].r, what, sizeof(what)));
		r = store_alert_insert(s, &a, &al_id);
		st->alerts += r == 0;
	}
	if (r == 0)
		st->selftests += n;
	free(v);
	free(rows);
	return r;
}

/* A power row of @d at @t when it differs from *@last (issue 27). */
static int power_row(struct store *s, int64_t id, const struct dev_demo_drive *d, int64_t t,
		     struct store_power_row *last, size_t *n)
{
	struct dev_power p;
	struct power_state_desc psd;

	dev_demo_power(d, t, &p);
	struct power_mgmt pm = power_mgmt_decode(p.pm_dw0);
	dev_demo_psd(pm.ps, &psd);
	struct store_power_row row = {.device_id = id,
				      .ts_ms = t,
				      .ps = pm.ps,
				      .wh = pm.wh,
				      .max_uw = psd.max_uw,
				      .non_operational = psd.non_operational,
				      .apst_enabled = d->apst ? d->apst_on : -1,
				      .apst_idle_ms = d->apst && d->apst_on ? 100 : -1,
				      .tmt1_k = d->hctm ? d->tmt1_k : -1,
				      .tmt2_k = d->hctm ? d->tmt2_k : -1};
	if (last->device_id && last->ps == row.ps)
		return 0;
	*last = row;
	(*n)++;
	return store_power_insert(s, &row);
}

/*
 * What the drive knew beyond its health log over the year (issue 27): its C0h
 * daily (hourly for the last day), its power state about every 6 hours (every
 * 30 s for the last 6 hours), its namespace's usage monthly, and its verdict: ok at
 * the year's start, watch from the first rise of its uncorrectable reads
 * (recent_errors) on. Its event log is read live at the first poll.
 */
static int store_logs_of(struct store *s, int64_t id, const struct dev_demo_drive *d, int64_t day0,
			 int64_t now_ms, struct demo_backfill_stats *st)
{
	struct store_power_row last = {0};
	int r = 0;

	for (int64_t t = day0 + 12 * 3600 * 1000LL; r == 0 && d->ocp == DEMO_OCP_YES && t <= now_ms;
	     t += t < now_ms - MS_PER_DAY ? MS_PER_DAY : 3600 * 1000LL) {
		struct store_ocp_row row = {.device_id = id, .ts_ms = t};
		struct smart_log sm;
		dev_demo_ocp(d, t, &row.l);
		dev_demo_state(d, t, &sm);
		row.host_written_units = sm.data_units_written;
		r = store_ocp_insert(s, &row);
		st->logs += r == 0;
	}
	/* Every 6 hours and 97 s: a whole number of the workload's periods would find it
	 * in the same state each time. */
	for (int64_t t = day0; r == 0 && t < now_ms - 6 * 3600 * 1000LL;
	     t += 6 * 3600 * 1000LL + 97000)
		r = power_row(s, id, d, t, &last, &st->logs);
	for (int64_t t = now_ms - 6 * 3600 * 1000LL; r == 0 && t <= now_ms; t += 30000)
		r = power_row(s, id, d, t, &last, &st->logs);
	for (int64_t t = day0; r == 0 && t <= now_ms; t += 30 * MS_PER_DAY) {
		struct smart_log sm;
		dev_demo_state(d, t, &sm);
		uint64_t blocks = d->capacity / 512, w = (uint64_t)sm.data_units_written * 1000;
		struct store_ns_row ns = {.device_id = id,
					  .ts_ms = t,
					  .nsid = 1,
					  .nsze = blocks,
					  .ncap = blocks,
					  .nuse = blocks / 5 + w / 50 % (blocks / 2),
					  .lba_size = 512};
		r = store_ns_insert(s, &ns);
	}
	struct store_verdict_row v = {.device_id = id, .ts_ms = day0, .level = "ok"};
	snprintf(v.reasons, sizeof(v.reasons), "[]");
	if (r == 0)
		r = store_verdict_insert(s, &v);
	int64_t rise = dev_demo_unc_rise_after(d, day0 + 1);
	if (r == 0 && rise && rise < now_ms) {
		struct risk_verdict hv = {.known = true, .level = RISK_WATCH, .n = 1};
		const struct risk_rule_info *info = risk_rule_info(RISK_RECENT_ERRORS);
		/* Confirmed by the second read after the rise, as the rules want. */
		v.ts_ms = rise + 20000;
		snprintf(v.level, sizeof(v.level), "%s", risk_level_name(hv.level));
		snprintf(v.reasons, sizeof(v.reasons),
			 "[{\"rule\":\"%s\",\"level\":\"watch\",\"reason\":\"in the last %d "
			 "days: 3 uncorrectable reads (OCP log)\",\"source\":\"%s\"}]",
			 info->name, RISK_ERRORS_DAYS, info->source);
		r = store_verdict_insert(s, &v);
	}
	return r;
}

static int store_year(struct store *s, int64_t id, size_t index, struct demo_year *y,
		      const int64_t *ids, int64_t *group_runs, struct demo_backfill_stats *st)
{
	int r;

	for (size_t i = 0; i < y->n_samples; i++)
		y->samples[i].device_id = id;
	r = store_samples_insert(s, y->samples, y->n_samples);
	for (size_t i = 0; r == 0 && i < y->n_events; i++) {
		int64_t ev_id;
		r = store_event_insert(s, id, &y->events[i], &ev_id);
	}
	for (size_t i = 0; r == 0 && i < y->n_alerts; i++) {
		const struct demo_alert *a = &y->alerts[i];
		struct alert_row row = {
			.device_id = id,
			.rule = a->rule,
			.severity = a->severity,
			.firing = false,
			.started_ms = a->started_ms,
			.updated_ms = a->resolved_ms,
			.resolved_ms = a->resolved_ms,
			.notified_ms = a->started_ms,
		};
		int64_t al_id;

		snprintf(row.message, sizeof(row.message), "%s", a->message);
		r = store_alert_insert(s, &row, &al_id);
	}
	int64_t series_id = 0;
	for (size_t i = 0; r == 0 && i < y->n_runs; i++) {
		int64_t run_id = 0;
		r = store_run_of(s, id, index, &y->runs[i], ids, &series_id, &run_id);
		if (r == 0 && y->runs[i].group)
			group_runs[index] = run_id;
	}
	if (r == 0)
		r = store_facts_of(s, id, y);
	if (r == 0) {
		st->samples += y->n_samples;
		st->events += y->n_events;
		st->alerts += y->n_alerts;
		st->runs += y->n_runs;
		st->errors += y->n_errors;
	}
	return r;
}

int demo_backfill(struct store *s, struct dev_backend *b, const struct store_rollup_cfg *rc,
		  int64_t now_ms, struct demo_backfill_stats *ret)
{
	struct demo_backfill_stats st = {0};
	int64_t ids[DEV_DEMO_MAX] = {0};	/* by demo drive index, once stored */
	int64_t group_runs[DEV_DEMO_MAX] = {0}; /* the group run's member on each */
	struct dev_info *v = NULL;
	size_t n = 0;
	bool any;
	int r;

	*ret = st;
	r = has_samples(s, &any);
	if (r < 0 || any)
		return r;
	r = dev_scan(b, now_ms, &v, &n);
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct dev_demo_drive d;
		struct demo_year y;
		struct device_row row;
		unsigned long index;
		int64_t id;

		if (!dev_demo_name_is(v[i].name))
			continue; /* not a demo drive: it keeps its real history only */
		index = strtoul(v[i].name + 4, NULL, 10);
		if (dev_demo_drive(index, &d) < 0)
			continue;
		r = demo_year_generate(&d, DEMO_BACKFILL_SEED ^ index, now_ms, &y);
		if (r < 0)
			break;
		devrow_from_scan(b, &v[i], now_ms, &row);
		if (y.n_samples) {
			row.first_seen_ms = y.samples[0].ts_ms;
			row.last_seen_ms = y.samples[y.n_samples - 1].ts_ms;
		}
		r = store_device_upsert(s, &row, &id);
		if (r == 0)
			r = store_year(s, id, index, &y, ids, group_runs, &st);
		if (r == 0)
			ids[index] = id;
		if (r == 0)
			r = store_selftests_of(s, id, &d, now_ms, &st);
		if (r == 0 && (r = store_begin(s)) == 0) /* its thousands of rows in one commit */
			r = store_end(s,
				      store_logs_of(s, id, &d, now_ms - DEMO_YEAR_DAYS * MS_PER_DAY,
						    now_ms, &st));
		demo_year_free(&y);
		st.drives += r == 0;
	}
	free(v);
	/* The group run: its members as POST /api/v1/probes links them, the
	 * group known by its first member's id. */
	int64_t group_id = 0;
	size_t members = 0;
	for (size_t i = 0; r == 0 && i < DEV_DEMO_MAX; i++)
		members += group_runs[i] != 0;
	for (size_t i = 0; r == 0 && members >= 2 && i < DEV_DEMO_MAX; i++) {
		if (!group_runs[i])
			continue;
		if (!group_id)
			group_id = group_runs[i];
		r = store_probe_group_add(s, group_id, group_runs[i]);
		if (r == 0)
			r = store_probe_group_skew(s, group_runs[i], 40 + 60 * (int64_t)i);
	}
	/* The rollups, as the timer builds them, only back to back. */
	struct store_rollup_cfg big = *rc;
	big.chunk_ms = DEMO_BACKFILL_CHUNK_MS;
	for (bool more = true; r == 0 && more;)
		r = store_rollup_step(s, &big, now_ms, &more);
	if (r == 0)
		*ret = st;
	return r;
}
