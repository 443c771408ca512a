/* SPDX-License-Identifier: MIT */
/*
 * Repeated runs and the spec check: the series summary and measured ÷ rated
 * as JSON and as the CLI's lines. See probe_series.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/probe/probe_series.h"
#include "nvmond/store/store.h"
#include "nvmond/store/store_facts.h"
#include "nvmond/store/store_probe.h"

void probe_rated_for(const struct cfg *c, const char *model, const char *serial,
		     struct probe_rated *ret)
{
	struct cfg_device cd;
	struct rated_speed b = {0};
	bool builtin = rated_builtin_lookup(model, &b);
	uint32_t conf[_RATED_DIR_MAX];

	cfg_device_for(c, model, serial, &cd);
	conf[RATED_READ] = cd.rated_read_mbps;
	conf[RATED_WRITE] = cd.rated_write_mbps;
	*ret = (struct probe_rated){0};
	for (int d = 0; d < _RATED_DIR_MAX; d++) {
		if (conf[d]) {
			ret->speed.mbps[d] = conf[d];
			ret->source = "config";
		} else if (builtin) {
			ret->speed.mbps[d] = b.mbps[d];
		}
	}
	if (!ret->source && builtin) {
		ret->source = "builtin";
		ret->speed.ref = b.ref;
	}
}

bool probe_preset_spec_checked(const struct probe_preset *p)
{
	if (!p || p->sustained || p->study) /* a study's writes fill or probe the cache */
		return false;
	for (size_t k = 0; k < p->n_phases; k++)
		if (p->phase[k].op == PROBE_OP_COPY || p->phase[k].random ||
		    p->phase[k].block_size < (128u << 10) || p->phase[k].depth < 8)
			return false;
	return p->n_phases > 0;
}

static bool measured(const struct probe_run_row *r)
{
	return !strcmp(r->state, "done") || !strcmp(r->state, "stopped");
}

static double mbps(const struct probe_dir_stats *d, int64_t elapsed_ms)
{
	return elapsed_ms > 0 ? (double)d->bytes / ((double)elapsed_ms / 1000.0) / 1e6 : 0;
}

/* Per phase and direction, the MB/s of each measured run of a series. */
struct figures {
	size_t n_runs; /* measured */
	double v[PROBE_MAX_PHASES][_RATED_DIR_MAX][PROBE_REPEAT_MAX];
	size_t n[PROBE_MAX_PHASES][_RATED_DIR_MAX];
	char name[PROBE_MAX_PHASES][16];
	size_t n_phases;
};

static int figures_of(struct store *s, const struct probe_run_row *runs, size_t n_runs,
		      struct figures *ret)
{
	*ret = (struct figures){0};
	for (size_t i = 0; i < n_runs; i++) {
		struct probe_phase_row *ph = NULL;
		size_t n_ph = 0;
		if (!measured(&runs[i]) || ret->n_runs == PROBE_REPEAT_MAX)
			continue;
		int r = store_probe_phases_get(s, runs[i].id, &ph, &n_ph);
		if (r < 0)
			return r;
		ret->n_runs++;
		for (size_t k = 0; k < n_ph; k++) {
			size_t p = ph[k].phase;
			if (p >= PROBE_MAX_PHASES)
				continue;
			snprintf(ret->name[p], sizeof(ret->name[p]), "%s", ph[k].name);
			if (p + 1 > ret->n_phases)
				ret->n_phases = p + 1;
			const struct probe_dir_stats *dir[_RATED_DIR_MAX] = {&ph[k].rd, &ph[k].wr};
			for (int d = 0; d < _RATED_DIR_MAX; d++)
				if (dir[d]->bytes)
					ret->v[p][d][ret->n[p][d]++] =
						mbps(dir[d], ph[k].elapsed_ms);
		}
		free(ph);
	}
	return 0;
}

/* The best of each direction over the phases (a preset measures each in one phase). */
static void best_of(const struct figures *f, double ret[_RATED_DIR_MAX])
{
	for (int d = 0; d < _RATED_DIR_MAX; d++) {
		ret[d] = 0;
		for (size_t p = 0; p < f->n_phases; p++) {
			struct rated_stats st;
			if (f->n[p][d] && rated_stats_of(f->v[p][d], f->n[p][d], &st) == 0 &&
			    st.best > ret[d])
				ret[d] = st.best;
		}
	}
}

static int peak_temp_c(struct store *s, const struct probe_run_row *runs, size_t n)
{
	int peak = INT32_MIN;

	for (size_t i = 0; i < n; i++) {
		struct cliff_thermal *th = NULL;
		size_t n_th = 0;
		if (store_probe_thermal_get(s, runs[i].id, &th, &n_th) < 0)
			continue;
		for (size_t k = 0; k < n_th; k++)
			if (th[k].temp_k && (int)th[k].temp_k - 273 > peak)
				peak = (int)th[k].temp_k - 273;
		free(th);
	}
	return peak;
}

static int verdict_of(struct store *s, const struct probe_run_row *runs, size_t n,
		      const struct figures *f, const struct probe_rated *rated,
		      struct rated_verdict *ret)
{
	struct store_link_row l;
	char link[NVME_PCIE_LINK_STR_MAX] = "";
	struct rated_check_input in = {
		.runs = f->n_runs,
		.rated_mbps = {rated->speed.mbps[RATED_READ], rated->speed.mbps[RATED_WRITE]},
		.preset = n ? runs[0].preset : NULL,
		.link = link,
		.temp_c = peak_temp_c(s, runs, n),
	};

	best_of(f, in.best_mbps);
	if (n && store_link_at(s, runs[n - 1].device_id, runs[n - 1].started_ms, &l) == 0)
		nvme_pcie_link_format(&l.link, link, sizeof(link));
	rated_check(&in, ret);
	return 0;
}

int probe_series_check(struct store *s, int64_t series_id, const struct probe_rated *rated,
		       struct rated_verdict *ret)
{
	struct probe_run_row *runs = NULL;
	size_t n = 0;
	struct figures f;
	int r = store_probe_series_runs(s, series_id, &runs, &n);

	if (r == 0)
		r = figures_of(s, runs, n, &f);
	if (r == 0)
		r = verdict_of(s, runs, n, &f, rated, ret);
	free(runs);
	return r;
}

static json_t *stats_json(size_t phase, const char *name, int d, const double *v, size_t n)
{
	struct rated_stats st;
	json_t *runs = json_array();

	if (!runs || rated_stats_of(v, n, &st) < 0) {
		json_decref(runs);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		json_array_append_new(runs, json_real(v[i]));
	return json_pack("{s:I, s:s, s:s, s:o, s:f, s:f, s:f, s:f, s:f}", "phase",
			 (json_int_t)phase, "name", name, "dir", d == RATED_READ ? "read" : "write",
			 "mb_per_s", runs, "best_mb_per_s", st.best, "median_mb_per_s", st.median,
			 "min_mb_per_s", st.min, "max_mb_per_s", st.max, "spread", st.spread);
}

static json_t *series_json(const struct probe_run_row *self, const struct probe_run_row *runs,
			   size_t n, const struct figures *f)
{
	json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:[], s:[]}", "id", (json_int_t)self->series_id,
			      "index", (json_int_t)self->series_index, "of",
			      (json_int_t)self->series_of, "measured", (json_int_t)f->n_runs,
			      "runs", "phases");
	if (!o)
		return NULL;
	json_t *jr = json_object_get(o, "runs"), *jp = json_object_get(o, "phases");
	const struct probe_run_row *ended = NULL;
	bool running = false;
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(jr, json_pack("{s:I, s:I, s:s, s:s}", "id",
						    (json_int_t)runs[i].id, "index",
						    (json_int_t)runs[i].series_index, "state",
						    runs[i].state, "reason", runs[i].reason));
		if (!strcmp(runs[i].state, "running"))
			running = true;
		else if (!measured(&runs[i]) && !ended)
			ended = &runs[i];
	}
	for (size_t p = 0; p < f->n_phases; p++)
		for (int d = 0; d < _RATED_DIR_MAX; d++)
			if (f->n[p][d])
				json_array_append_new(
					jp, stats_json(p, f->name[p], d, f->v[p][d], f->n[p][d]));
	/* "complete": every run asked for measured; a series that ended early says why. */
	json_object_set_new(o, "complete", json_boolean(f->n_runs == self->series_of));
	if (ended)
		json_object_set_new(
			o, "note",
			json_sprintf("the series ended after %zu of %u runs: run %u %s%s%s",
				     f->n_runs, self->series_of, ended->series_index, ended->state,
				     ended->reason[0] ? ": " : "", ended->reason));
	else
		json_object_set_new(o, "note", json_null());
	json_object_set_new(o, "running", json_boolean(running));
	return o;
}

/* "spec": measured (the series' best, else this run's) ÷ rated, per direction. */
static json_t *spec_json(const struct probe_rated *rated, const double best[_RATED_DIR_MAX],
			 size_t n_runs, bool series, const struct rated_verdict *v)
{
	json_t *o = json_pack("{s:s?, s:s?, s:s, s:b, s:s?}", "source", rated->source, "ref",
			      rated->speed.ref, "basis", series ? "best of the series" : "this run",
			      "below", v->below, "message", v->below ? v->message : NULL);
	char text[96];

	(void)n_runs;
	for (int d = 0; o && d < _RATED_DIR_MAX; d++) {
		const char *k = d == RATED_READ ? "read" : "write";
		if (best[d] <= 0 || !rated->speed.mbps[d]) {
			json_object_set_new(o, k, json_null());
			continue;
		}
		rated_format(best[d], rated->speed.mbps[d], (enum rated_dir)d, text, sizeof(text));
		json_object_set_new(o, k,
				    json_pack("{s:f, s:I, s:f, s:s}", "measured_mb_per_s", best[d],
					      "rated_mb_per_s", (json_int_t)rated->speed.mbps[d],
					      "percent", best[d] * 100.0 / rated->speed.mbps[d],
					      "text", text));
	}
	return o;
}

int probe_series_json_add(struct store *s, const struct probe_rated *rated, json_t *detail)
{
	struct probe_run_row self, *runs = NULL;
	size_t n = 0;
	struct figures f;
	struct rated_verdict v = {0};
	double best[_RATED_DIR_MAX];
	int64_t id = json_integer_value(json_object_get(detail, "id"));
	int r = store_probe_run_get(s, id, &self);

	if (r < 0)
		return r;
	if (self.series_id) {
		r = store_probe_series_runs(s, self.series_id, &runs, &n);
	} else {
		runs = malloc(sizeof(*runs));
		if (!runs)
			return -ENOMEM;
		runs[0] = self;
		n = 1;
	}
	if (r == 0)
		r = figures_of(s, runs, n, &f);
	if (r < 0)
		goto out;
	r = -ENOMEM;
	if (self.series_id) {
		json_t *sj = series_json(&self, runs, n, &f);
		if (!sj || json_object_set_new(detail, "series", sj) < 0)
			goto out;
	} else if (json_object_set_new(detail, "series", json_null()) < 0) {
		goto out;
	}
	const struct probe_preset *pre = probe_preset_find(self.preset, NULL);
	if (!probe_preset_spec_checked(pre) || !rated->source || !f.n_runs) {
		r = json_object_set_new(detail, "spec", json_null());
		goto out;
	}
	best_of(&f, best);
	r = verdict_of(s, runs, n, &f, rated, &v);
	if (r < 0)
		goto out;
	r = -ENOMEM;
	json_t *sp = spec_json(rated, best, f.n_runs, self.series_id != 0, &v);
	if (!sp || json_object_set_new(detail, "spec", sp) < 0)
		goto out;
	json_t *notes = json_object_get(detail, "notes");
	if (v.below && json_is_array(notes))
		json_array_append_new(notes, json_string(v.message));
	r = 0;
out:
	free(runs);
	return r;
}

void probe_print_series(FILE *out, const json_t *d)
{
	const json_t *s = json_object_get(d, "series"), *sp = json_object_get(d, "spec"), *p;
	size_t i;

	if (json_is_object(s)) {
		fprintf(out, "series %lld: run %lld of %lld, %lld measured%s\n",
			(long long)json_integer_value(json_object_get(s, "id")),
			(long long)json_integer_value(json_object_get(s, "index")),
			(long long)json_integer_value(json_object_get(s, "of")),
			(long long)json_integer_value(json_object_get(s, "measured")),
			json_is_true(json_object_get(s, "running")) ? " (running)" : "");
		const char *note = json_string_value(json_object_get(s, "note"));
		if (note)
			fprintf(out, "  %s\n", note);
		fprintf(out, "%-6s %-5s %10s %10s %10s %10s %7s\n", "phase", "dir", "best",
			"median", "min", "max", "spread");
		json_array_foreach(json_object_get(s, "phases"), i, p)
		{
			fprintf(out, "%-6s %-5s %10.1f %10.1f %10.1f %10.1f %6.1f%%\n",
				json_string_value(json_object_get(p, "name")),
				json_string_value(json_object_get(p, "dir")),
				json_number_value(json_object_get(p, "best_mb_per_s")),
				json_number_value(json_object_get(p, "median_mb_per_s")),
				json_number_value(json_object_get(p, "min_mb_per_s")),
				json_number_value(json_object_get(p, "max_mb_per_s")),
				json_number_value(json_object_get(p, "spread")) * 100);
		}
	}
	if (json_is_object(sp)) {
		const char *dirs[2] = {"read", "write"};
		for (int k = 0; k < 2; k++) {
			const char *t = json_string_value(
				json_object_get(json_object_get(sp, dirs[k]), "text"));
			if (t)
				fprintf(out, "spec (%s): %s\n",
					json_string_value(json_object_get(sp, "basis")), t);
		}
	}
}

int probe_series_skip_insert(struct store *s, struct probe_run_row *row, const char *preset,
			     const char *trigger, const char *reason, int64_t now_ms)
{
	int64_t id;

	row->started_ms = now_ms;
	row->ended_ms = now_ms;
	snprintf(row->preset, sizeof(row->preset), "%s", preset);
	snprintf(row->trigger, sizeof(row->trigger), "%s", trigger);
	snprintf(row->state, sizeof(row->state), "skipped");
	snprintf(row->reason, sizeof(row->reason), "%s", reason);
	return store_probe_run_insert(s, row, &id);
}
