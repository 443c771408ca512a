/* SPDX-License-Identifier: MIT */
/*
 * The cache-recovery study (issue 13): how fast a drive's write cache refills
 * after a cliff. Its runs are a series (probe_series_state): run 1 fills the
 * cache past its measured size (stopping when the cliff holds), then a short
 * burst runs at each idle interval after the cliff, until one runs at 95 % of
 * the rate before the cliff. The rules are analysis/recovery.c's; here: the
 * plan from the store and the configuration, and the study read back as JSON.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/analysis/recovery.h"
#include "nvmond/probe/probe_conf.h"
#include "nvmond/probe/probe_study.h"
#include "nvmond/store/store_probe.h"
#include "nvmond/store/store_probe_cache.h"
#include "nvmond/store/store_probe_study.h"
#include "nvmond/util/timefmt.h"

#include "probe_study_internal.h"

int probe_study_setup(const struct cfg *c, struct store *s, const struct device_row *row,
		      int64_t now_ms, struct probe_study *ret, char reason[PROBE_REASON_MAX])
{
	struct probe_cache_row cache;
	struct cfg_device cd;
	char err[RECOVERY_ERR_MAX];
	int r;

	*ret = (struct probe_study){0};
	r = recovery_intervals_parse(probe_conf(c)->recovery_intervals, ret->interval_ms,
				     &ret->n_intervals, err);
	if (r < 0) {
		snprintf(reason, PROBE_REASON_MAX, "[probes] recovery_intervals: %s", err);
		return r;
	}
	r = store_probe_cache_latest(s, row->id, now_ms + 1, &cache);
	if (r == -ENOENT) {
		snprintf(reason, PROBE_REASON_MAX,
			 "cache-recovery needs the drive's write-cache size: no sustained-write "
			 "has found its cliff yet (run sustained-write first)");
		return -ENODATA;
	}
	if (r < 0) {
		snprintf(reason, PROBE_REASON_MAX, "database: %s", store_strerror(s));
		return r;
	}
	cfg_device_for(c, row->model, row->serial, &cd);
	ret->cache_bytes = cache.bytes;
	ret->cache_run_id = cache.run_id;
	ret->pre_rate = cache.rate_before;
	ret->fill_bytes = recovery_fill_bytes(cache.bytes, cd.probe_sustained_limit);
	/* The budget is checked by each run's own reservation (all or nothing). */
	ret->burst_bytes = recovery_burst_bytes(cache.bytes, cd.probe_file_size, UINT64_MAX);
	if (!ret->fill_bytes || !ret->burst_bytes) {
		snprintf(reason, PROBE_REASON_MAX,
			 "the %" PRIu64 " MB write cache cannot be filled within "
			 "probe_sustained_limit (%" PRIu64 " MB)",
			 cache.bytes / 1000000, cd.probe_sustained_limit / 1000000);
		return -EDQUOT;
	}
	return 0;
}

static double write_rate(const struct probe_phase_row *ph)
{
	return ph->elapsed_ms > 0 ? (double)ph->wr.bytes * 1000.0 / (double)ph->elapsed_ms : 0;
}

static void idle_text(int64_t ms, char *buf, size_t len)
{
	if (ms < 120000)
		snprintf(buf, len, "%.0f s", (double)ms / 1000.0);
	else
		snprintf(buf, len, "%.0f min", (double)ms / 60000.0);
}

static void verdict_text(const struct recovery_verdict *v, char *buf, size_t len)
{
	char idle[32];

	idle_text(v->idle_ms, idle, sizeof(idle));
	if (v->recovered)
		snprintf(buf, len, "cache recovered after %s idle", idle);
	else
		snprintf(buf, len,
			 "not within %s (best burst %.0f %% of the rate before the cliff)", idle,
			 v->best_pct);
}

bool probe_study_after(struct probe_study *st, const struct probe_outcome *o, uint32_t index,
		       char verdict[PROBE_REASON_MAX])
{
	if (index <= 1) {
		/* The fill: idle counts from its end; its own cliff is the fresher
		 * rate when it began on an empty cache (recovery_pre_rate). */
		st->cliff_ms = o->run.ended_ms;
		for (size_t i = 0; o->n_phases && i < o->n_ev[0]; i++)
			if (o->ev[0][i].kind == CLIFF_CLIFF) {
				st->pre_rate = recovery_pre_rate(st->cache_bytes, st->pre_rate,
								 o->ev[0][i].bytes_before,
								 o->ev[0][i].rate_before);
				break;
			}
		return false;
	}
	if (!o->n_phases)
		return false;
	/* The daemon's clock: idle net of busy periods; the CLI's: the time since the cliff. */
	struct recovery_point pt = {st->idle_net ? st->idle.idle_ms
						 : o->run.started_ms - st->cliff_ms,
				    write_rate(&o->phase[0])};
	struct recovery_verdict v;
	recovery_judge(&pt, 1, st->pre_rate, &v);
	if (verdict)
		verdict_text(&v, verdict, PROBE_REASON_MAX);
	return v.recovered;
}

void probe_study_print_plan(FILE *out, const struct probe_study *st)
{
	fprintf(out,
		"cache-recovery: write cache %.1f GB (measured by probe %" PRId64
		"), %.0f MB/s before its cliff\n",
		(double)st->cache_bytes / 1e9, st->cache_run_id, st->pre_rate / 1e6);
	fprintf(out, "  fill: up to %.1f GB, to the cliff\n", (double)st->fill_bytes / 1e9);
	for (size_t i = 0; i < st->n_intervals; i++) {
		char idle[32];
		idle_text(st->interval_ms[i], idle, sizeof(idle));
		fprintf(out, "  burst %zu: %.1f GB after %s idle\n", i + 1,
			(double)st->burst_bytes / 1e9, idle);
	}
	fprintf(out, "  until a burst runs at %.0f %% of the rate before the cliff\n",
		RECOVERY_RECOVERED * 100);
}

/* ---- the study as stored ---- */

static bool measured(const char *state)
{
	return !strcmp(state, "done") || !strcmp(state, "stopped");
}

static int fill_pre_rate(struct store *s, const struct probe_run_row *fill, double *ret)
{
	struct probe_event_row *ev = NULL;
	struct probe_cache_row c;
	size_t n = 0;
	int r;

	/* The measurement the study started from, and the fill's own cliff. */
	r = store_probe_cache_latest(s, fill->device_id, fill->started_ms, &c);
	if (r == -ENOENT)
		c = (struct probe_cache_row){0};
	else if (r < 0)
		return r;
	*ret = c.rate_before;
	r = store_probe_events_get(s, fill->id, &ev, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		if (ev[i].ev.kind == CLIFF_CLIFF) {
			*ret = recovery_pre_rate(c.bytes, c.rate_before, ev[i].ev.bytes_before,
						 ev[i].ev.rate_before);
			break;
		}
	free(ev);
	return 0;
}

int probe_study_json_add(struct store *s, const struct probe_run_row *run, json_t *detail)
{
	const char *preset = run->preset;
	int64_t sid = run->series_id;
	struct probe_run_row *runs = NULL;
	struct recovery_point pts[RECOVERY_MAX_INTERVALS];
	size_t n = 0, n_pts = 0;
	double pre = 0;
	json_t *points = NULL, *o = NULL;
	int r;

	if (!preset || strcmp(preset, "cache-recovery") || !sid)
		return 0;
	r = store_probe_series_runs(s, sid, &runs, &n);
	if (r < 0)
		return r;
	if (!n || runs[0].series_index != 1) {
		free(runs);
		return 0;
	}
	const struct probe_run_row *fill = &runs[0];
	r = fill_pre_rate(s, fill, &pre);
	if (r < 0)
		goto out;
	r = -ENOMEM;
	points = json_array();
	if (!points)
		goto out;
	bool running = false, broken = !measured(fill->state) && strcmp(fill->state, "running");
	bool last_ran = false;
	int64_t paused_total = -1; /* the study's pauses by its last burst; -1: not known */
	running = !strcmp(fill->state, "running");
	for (size_t i = 1; i < n; i++) {
		const struct probe_run_row *b = &runs[i];
		struct probe_phase_row *ph = NULL;
		size_t n_ph = 0;
		if (!strcmp(b->state, "running")) {
			running = true;
			continue;
		}
		if (!measured(b->state)) {
			broken = true;
			continue;
		}
		r = store_probe_phases_get(s, b->id, &ph, &n_ph);
		if (r < 0)
			goto out;
		if (n_ph && n_pts < RECOVERY_MAX_INTERVALS) {
			struct recovery_point *p = &pts[n_pts++];
			/* The daemon's bursts: idle net of busy periods, and the pauses;
			 * else (the CLI's) the time since the cliff. */
			int64_t idle = b->started_ms - fill->ended_ms, paused = -1;
			int rb = store_probe_study_burst_get(s, b->id, &idle, &paused);
			if (rb < 0 && rb != -ENOENT) {
				free(ph);
				r = rb;
				goto out;
			}
			if (paused > paused_total)
				paused_total = paused;
			*p = (struct recovery_point){idle, write_rate(&ph[0])};
			json_t *pj = json_pack(
				"{s:I, s:f, s:f, s:f, s:f, s:o}", "run_id", (json_int_t)b->id,
				"idle_s", (double)p->idle_ms / 1000.0, "idle_min",
				(double)p->idle_ms / 60000.0, "mb_s", p->rate / 1e6, "pct",
				pre > 0 ? p->rate / pre * 100.0 : 0.0, "paused_s",
				paused >= 0 ? json_real((double)paused / 1000.0) : json_null());
			if (!pj || json_array_append_new(points, pj) < 0) {
				free(ph);
				r = -ENOMEM;
				goto out;
			}
		}
		free(ph);
		last_ran = b->series_index == b->series_of;
	}
	struct recovery_verdict v;
	char text[PROBE_REASON_MAX] = "", when[TIMEFMT_MAX];
	const char *state;
	recovery_judge(pts, n_pts, pre, &v);
	if (v.known && v.recovered)
		state = "recovered";
	else if (running)
		state = "running";
	else if (v.known && last_ran)
		state = "not_recovered";
	else if (broken)
		state = "ended";
	else
		state = "waiting";
	if (v.known && (v.recovered || last_ran))
		verdict_text(&v, text, sizeof(text));
	r = -ENOMEM; /* until "recovery" is in @detail */
	o = json_pack("{s:I, s:I, s:f, s:s?, s:o, s:s, s:s?}", "series_id", (json_int_t)sid,
		      "fill_bytes", (json_int_t)fill->bytes_written, "pre_cliff_mb_s", pre / 1e6,
		      "cliff_at", fill->ended_ms ? timefmt_rfc3339(fill->ended_ms, when) : NULL,
		      "points", points, "state", state, "verdict", text[0] ? text : NULL);
	points = NULL;
	if (!o)
		goto out;
	struct probe_cache_row c;
	if (store_probe_cache_latest(s, fill->device_id, fill->started_ms, &c) == 0 &&
	    json_object_set_new(o, "cache_bytes", json_integer((json_int_t)c.bytes)) < 0)
		goto out;
	if (json_object_set_new(o, "paused_s",
				paused_total >= 0 ? json_real((double)paused_total / 1000.0)
						  : json_null()) < 0)
		goto out;
	r = json_object_set_new(detail, "recovery", o) < 0 ? -ENOMEM : 0;
	o = NULL;
out:
	json_decref(points);
	json_decref(o);
	free(runs);
	return r;
}

void probe_study_print(FILE *out, const json_t *detail)
{
	const json_t *rec = json_object_get(detail, "recovery"), *p;
	size_t i;

	if (!rec)
		return;
	fprintf(out, "cache-recovery study %lld: %.0f MB/s before the cliff\n",
		(long long)json_integer_value(json_object_get(rec, "series_id")),
		json_number_value(json_object_get(rec, "pre_cliff_mb_s")));
	fprintf(out, "%10s %10s %8s\n", "idle min", "MB/s", "% pre");
	json_array_foreach(json_object_get(rec, "points"), i, p)
	{
		fprintf(out, "%10.1f %10.1f %7.0f%%\n",
			json_number_value(json_object_get(p, "idle_min")),
			json_number_value(json_object_get(p, "mb_s")),
			json_number_value(json_object_get(p, "pct")));
	}
	const json_t *paused = json_object_get(rec, "paused_s");
	if (json_is_number(paused) && json_number_value(paused) > 0)
		fprintf(out, "idle net of busy periods: the study paused %.0f s for a busy drive\n",
			json_number_value(paused));
	const char *v = json_string_value(json_object_get(rec, "verdict"));
	fprintf(out, "%s\n", v ? v : json_string_value(json_object_get(rec, "state")));
}
