/* SPDX-License-Identifier: MIT */
/*
 * A stored probe run as JSON (the API and `nvmond probe --json`) and as the
 * command's result table. See probe_run.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "nvmond/api/render.h"
#include "nvmond/probe/probe_copyto.h"
#include "nvmond/probe/probe_run.h"
#include "nvmond/probe/probe_study.h"
#include "nvmond/probe/probe_sweep.h"
#include "nvmond/store/store.h"
#include "nvmond/store/store_facts.h"
#include "nvmond/util/timefmt.h"

/* ---- JSON ---- */

static int set(json_t *o, const char *k, json_t *v)
{
	return json_object_set_new(o, k, v);
}

static json_t *time_json(int64_t ms)
{
	char buf[TIMEFMT_MAX];

	return ms ? json_string(timefmt_rfc3339(ms, buf)) : json_null();
}

json_t *probe_run_json(const struct probe_run_row *r)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	int e = set(o, "id", json_integer(r->id)) |
		set(o, "device_id", json_integer(r->device_id)) |
		set(o, "preset", json_string(r->preset)) |
		set(o, "trigger", json_string(r->trigger)) |
		set(o, "state", json_string(r->state)) | set(o, "reason", json_string(r->reason)) |
		set(o, "target", json_string(r->target)) |
		set(o, "engine", json_string(r->engine)) |
		set(o, "started", time_json(r->started_ms)) |
		set(o, "started_ms", json_integer(r->started_ms)) |
		set(o, "ended", time_json(r->ended_ms)) |
		set(o, "bytes_written", json_integer((json_int_t)r->bytes_written)) |
		set(o, "bytes_read", json_integer((json_int_t)r->bytes_read)) |
		set(o, "bytes_charged", json_integer((json_int_t)r->bytes_charged)) |
		set(o, "nsid", r->nsid ? json_integer(r->nsid) : json_null()) |
		set(o, "series_id", r->series_id ? json_integer(r->series_id) : json_null()) |
		set(o, "source_device_id",
		    r->source_device_id ? json_integer(r->source_device_id) : json_null()) |
		set(o, "source_target",
		    r->source_device_id ? json_string(r->source_target) : json_null());
	if (e) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *dir_json(const struct probe_dir_stats *d, int64_t elapsed_ms)
{
	double secs = elapsed_ms > 0 ? (double)elapsed_ms / 1000.0 : 1;

	return json_pack("{s:I, s:I, s:f, s:f, s:{s:I, s:I, s:I, s:I}}", "bytes",
			 (json_int_t)d->bytes, "ios", (json_int_t)d->ios, "mb_per_s",
			 (double)d->bytes / secs / 1e6, "iops", (double)d->ios / secs, "latency_ns",
			 "p50", (json_int_t)d->lat_p50_ns, "p99", (json_int_t)d->lat_p99_ns,
			 "p99_9", (json_int_t)d->lat_p999_ns, "max", (json_int_t)d->lat_max_ns);
}

static json_t *event_json(const struct cliff_event *e)
{
	return json_pack("{s:s, s:s, s:I, s:I, s:I, s:f, s:f, s:f, s:b}", "kind",
			 cliff_kind_name(e->kind), "cause", cliff_cause_name(e->cause), "start_ms",
			 (json_int_t)e->start_ms, "end_ms", (json_int_t)e->end_ms, "bytes_before",
			 (json_int_t)e->bytes_before, "mb_per_s_before", e->rate_before / 1e6,
			 "mb_per_s_during", e->rate_during / 1e6, "mb_per_s_after",
			 e->rate_after / 1e6, "recovered", e->recovered);
}

/*
 * "link": the drive's PCIe link when the run started (link_history), and a
 * note in "notes" when it ran below what the drive supports: every figure of
 * the run is capped by the link then, not by the drive.
 */
static int link_notes_add(struct store *s, const struct probe_run_row *run, json_t *o)
{
	struct store_link_row l;
	json_t *notes = json_array();
	char text[NVME_PCIE_LINK_STR_MAX];
	bool known = store_link_at(s, run->device_id, run->started_ms, &l) == 0;

	if (!notes || set(o, "notes", notes) < 0)
		return -ENOMEM;
	if (set(o, "link", known ? render_link(&l.link) : json_null()) < 0)
		return -ENOMEM;
	if (!known || !nvme_pcie_link_degraded(&l.link))
		return 0;
	nvme_pcie_link_format(&l.link, text, sizeof(text));
	return json_array_append_new(
		notes, json_sprintf("link degraded: %s runs below what the drive supports; the "
				    "throughput measured here is capped by the link",
				    text));
}

/* Phase @phase's series of run @id, as "series" of @p: [t_ms, read, written] per interval. */
static int series_add(struct store *s, int64_t id, size_t phase, json_t *p)
{
	struct probe_point *v = NULL;
	size_t n = 0;
	int r = store_probe_series_get(s, id, phase, &v, &n);

	if (r < 0)
		return r;
	r = -ENOMEM;
	json_t *series = json_array();
	if (!series || set(p, "series", series) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		json_t *pt = json_pack("[I, I, I]", (json_int_t)v[i].t_ms,
				       (json_int_t)v[i].rd_bytes, (json_int_t)v[i].wr_bytes);
		if (!pt || json_array_append_new(series, pt) < 0)
			goto out;
	}
	r = 0;
out:
	free(v);
	return r;
}

/*
 * Phase @ph of run @id into @phases: its figures, its cliff events (those of
 * @ev that are its), with @with_series its series. Return: 0 or negative errno.
 */
static int phase_add(struct store *s, int64_t id, const struct probe_phase_row *ph,
		     const struct probe_event_row *ev, size_t n_ev, bool with_series,
		     json_t *phases)
{
	json_t *p = json_pack(
		"{s:I, s:s, s:s, s:b, s:I, s:I, s:s, s:I, s:I, s:I, s:o, s:o, "
		"s:{s:I, s:I}, s:[]}",
		"phase", (json_int_t)ph->phase, "name", ph->name, "op", ph->op, "random",
		ph->random, "block_size", (json_int_t)ph->block_size, "depth",
		(json_int_t)ph->depth, "stop", ph->stop, "elapsed_ms", (json_int_t)ph->elapsed_ms,
		"offset_ms", (json_int_t)ph->offset_ms, "interval_ms", (json_int_t)ph->interval_ms,
		"read", dir_json(&ph->rd, ph->elapsed_ms), "write",
		dir_json(&ph->wr, ph->elapsed_ms), "cpu", "user_us", (json_int_t)ph->cpu_user_us,
		"sys_us", (json_int_t)ph->cpu_sys_us, "events");

	if (!p || json_array_append_new(phases, p) < 0)
		return -ENOMEM;
	json_t *evs = json_object_get(p, "events");
	for (size_t i = 0; i < n_ev; i++)
		if (ev[i].phase == ph->phase &&
		    json_array_append_new(evs, event_json(&ev[i].ev)) < 0)
			return -ENOMEM;
	return with_series ? series_add(s, id, ph->phase, p) : 0;
}

/* The run's SMART samples @th, as "smart" of @o. Return: 0 or -ENOMEM. */
static int smart_add(const struct cliff_thermal *th, size_t n_th, json_t *o)
{
	json_t *smart = json_array();

	if (!smart || set(o, "smart", smart) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n_th; i++) {
		json_t *t = json_pack(
			"{s:I, s:i, s:I, s:I, s:I, s:I, s:I}", "t_ms", (json_int_t)th[i].t_ms,
			"temp_k", th[i].temp_k, "tmt1_count", (json_int_t)th[i].t1_count,
			"tmt2_count", (json_int_t)th[i].t2_count, "tmt1_time_s",
			(json_int_t)th[i].t1_time_s, "tmt2_time_s", (json_int_t)th[i].t2_time_s,
			"warning_temp_time_min", (json_int_t)th[i].warning_temp_time_min);
		if (!t || json_array_append_new(smart, t) < 0)
			return -ENOMEM;
	}
	return 0;
}

int probe_run_detail_json(struct store *s, int64_t id, bool with_series, json_t **ret)
{
	struct probe_run_row run;
	struct probe_phase_row *ph = NULL;
	struct probe_event_row *ev = NULL;
	struct cliff_thermal *th = NULL;
	size_t n_ph = 0, n_ev = 0, n_th = 0;
	json_t *o = NULL, *phases;
	int r;

	r = store_probe_run_get(s, id, &run);
	if (r < 0)
		return r;
	r = store_probe_phases_get(s, id, &ph, &n_ph);
	if (r < 0)
		goto out;
	r = store_probe_events_get(s, id, &ev, &n_ev);
	if (r < 0)
		goto out;
	if (with_series) {
		r = store_probe_thermal_get(s, id, &th, &n_th);
		if (r < 0)
			goto out;
	}
	r = -ENOMEM;
	o = probe_run_json(&run);
	phases = json_array();
	if (!o || !phases || set(o, "phases", phases) < 0)
		goto out;
	const struct probe_preset *pre = probe_preset_find(run.preset, NULL);
	if (pre && set(o, "label", json_string(pre->label)) < 0)
		goto out;
	if (link_notes_add(s, &run, o) < 0)
		goto out;
	if (pre && pre->sweep && set(o, "sweep", probe_sweep_json(ph, n_ph)) < 0)
		goto out;
	if (pre && pre->copy_to) {
		r = probe_copyto_json_add(s, &run, o);
		if (r < 0)
			goto out;
		r = -ENOMEM;
	}
	if (pre && pre->study) {
		r = probe_study_json_add(s, &run, o);
		if (r < 0)
			goto out;
		r = -ENOMEM;
	}
	for (size_t k = 0; k < n_ph; k++) {
		r = phase_add(s, id, &ph[k], ev, n_ev, with_series, phases);
		if (r < 0)
			goto out;
	}
	r = with_series ? smart_add(th, n_th, o) : 0;
	if (r < 0)
		goto out;
	*ret = o;
	o = NULL;
	r = 0;
out:
	json_decref(o);
	free(ph);
	free(ev);
	free(th);
	return r;
}

static double jnum(const json_t *o, const char *path1, const char *path2)
{
	const json_t *v = json_object_get(o, path1);

	if (path2)
		v = json_object_get(v, path2);
	return json_number_value(v);
}

void probe_print_table(FILE *out, const json_t *d)
{
	const json_t *phases = json_object_get(d, "phases"), *p;
	size_t k;

	fprintf(out, "probe %lld  %s (%s) on %s  engine %s  %s\n",
		(long long)json_integer_value(json_object_get(d, "id")),
		json_string_value(json_object_get(d, "preset")),
		json_string_value(json_object_get(d, "label")) ?: "",
		json_string_value(json_object_get(d, "target")),
		json_string_value(json_object_get(d, "engine")),
		json_string_value(json_object_get(d, "state")));
	const char *reason = json_string_value(json_object_get(d, "reason"));
	if (reason && reason[0])
		fprintf(out, "  %s\n", reason);
	const json_t *notes = json_object_get(d, "notes"), *note;
	size_t n;
	json_array_foreach(notes, n, note) fprintf(out, "  note: %s\n", json_string_value(note));
	const json_t *sweep = json_object_get(d, "sweep");
	if (sweep) {
		probe_sweep_print(out, sweep);
		fprintf(out, "written by the probe: %.1f MB\n",
			(double)json_integer_value(json_object_get(d, "bytes_written")) / 1e6);
		return;
	}
	fprintf(out, "%-6s %-5s %10s %10s %10s %10s %10s %8s\n", "phase", "dir", "MB/s", "IOPS",
		"p50 µs", "p99 µs", "p99.9 µs", "CPU s");
	json_array_foreach(phases, k, p)
	{
		const char *dirs[2] = {"read", "write"};
		double cpu = (jnum(p, "cpu", "user_us") + jnum(p, "cpu", "sys_us")) / 1e6;
		for (int i = 0; i < 2; i++) {
			const json_t *dj = json_object_get(p, dirs[i]);
			if (json_integer_value(json_object_get(dj, "bytes")) == 0)
				continue;
			const json_t *lat = json_object_get(dj, "latency_ns");
			fprintf(out, "%-6s %-5s %10.1f %10.0f %10.1f %10.1f %10.1f %8.2f\n",
				json_string_value(json_object_get(p, "name")), dirs[i],
				jnum(dj, "mb_per_s", NULL), jnum(dj, "iops", NULL),
				(double)json_integer_value(json_object_get(lat, "p50")) / 1e3,
				(double)json_integer_value(json_object_get(lat, "p99")) / 1e3,
				(double)json_integer_value(json_object_get(lat, "p99_9")) / 1e3,
				cpu);
		}
		const json_t *evs = json_object_get(p, "events"), *e;
		size_t i;
		json_array_foreach(evs, i, e)
		{
			fprintf(out, "  %s (%s) at %.1f s after %.1f GB: %.0f → %.0f MB/s%s\n",
				json_string_value(json_object_get(e, "kind")),
				json_string_value(json_object_get(e, "cause")),
				(double)json_integer_value(json_object_get(e, "start_ms")) / 1e3,
				(double)json_integer_value(json_object_get(e, "bytes_before")) /
					1e9,
				jnum(e, "mb_per_s_before", NULL), jnum(e, "mb_per_s_during", NULL),
				json_is_true(json_object_get(e, "recovered")) ? ", recovered" : "");
		}
	}
	fprintf(out, "written by the probe: %.1f MB\n",
		(double)json_integer_value(json_object_get(d, "bytes_written")) / 1e6);
	probe_study_print(out, d);
	probe_copyto_print(out, d);
}
