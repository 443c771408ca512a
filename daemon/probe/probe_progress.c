/* SPDX-License-Identifier: MIT */
/*
 * A running probe's progress. Pure: see probe_progress.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/probe/probe_progress.h"

void probe_progress_init(struct probe_progress *p, enum probe_preset_id preset, int64_t phase_ms,
			 uint64_t write_limit)
{
	*p = (struct probe_progress){
		.preset = preset, .phase_ms = phase_ms, .write_limit = write_limit};
}

static void series_sum(const struct probe_progress *p, uint64_t *ret_rd, uint64_t *ret_wr)
{
	uint64_t rd = 0, wr = 0;

	for (size_t i = 0; i < p->n; i++) {
		rd += p->v[i].rd_bytes;
		wr += p->v[i].wr_bytes;
	}
	*ret_rd = rd;
	*ret_wr = wr;
}

int probe_progress_update(struct probe_progress *p, size_t phase, const struct probe_point *v,
			  size_t n)
{
	if (n > p->cap) {
		size_t cap = p->cap ? p->cap : 64;
		while (cap < n)
			cap *= 2;
		struct probe_point *nv = realloc(p->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		p->v = nv;
		p->cap = cap;
	}
	if (phase != p->phase) {
		uint64_t rd, wr;
		series_sum(p, &rd, &wr);
		p->done_rd += rd;
		p->done_wr += wr;
		p->phase = phase;
		p->n = 0;
	}
	/* The hooks pass the whole series each tick: only its new end is copied. */
	if (n > p->n)
		memcpy(p->v + p->n, v + p->n, (n - p->n) * sizeof(*v));
	else if (n > 0)
		memcpy(p->v, v, n * sizeof(*v));
	p->n = n;
	return 0;
}

double probe_progress_fraction(const struct probe_progress *p)
{
	const struct probe_preset *pre = probe_preset_get(p->preset);
	double f;

	if (!pre || pre->n_phases == 0)
		return 0;
	if (pre->sustained) {
		uint64_t rd, wr;
		series_sum(p, &rd, &wr);
		f = p->write_limit ? (double)(p->done_wr + wr) / (double)p->write_limit : 0;
	} else {
		double in_phase = p->n && p->phase_ms > 0
					  ? (double)p->v[p->n - 1].t_ms / (double)p->phase_ms
					  : 0;
		if (in_phase > 1)
			in_phase = 1;
		f = ((double)p->phase + in_phase) / (double)pre->n_phases;
	}
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

double probe_progress_mb_per_s(const struct probe_progress *p)
{
	if (!p->n)
		return 0;
	const struct probe_point *last = &p->v[p->n - 1];
	int64_t dt = p->n > 1 ? last->t_ms - p->v[p->n - 2].t_ms : last->t_ms;
	return dt > 0 ? (double)(last->rd_bytes + last->wr_bytes) / (double)dt / 1000.0 : 0;
}

int probe_progress_copy(const struct probe_progress *p, struct probe_progress *ret)
{
	struct probe_progress c = *p;

	c.v = NULL;
	c.cap = 0;
	if (p->n) {
		c.v = malloc(p->n * sizeof(*c.v));
		if (!c.v)
			return -ENOMEM;
		memcpy(c.v, p->v, p->n * sizeof(*c.v));
		c.cap = p->n;
	}
	*ret = c;
	return 0;
}

json_t *probe_progress_json(const struct probe_progress *p)
{
	const struct probe_preset *pre = probe_preset_get(p->preset);
	uint64_t rd, wr;
	int64_t elapsed = p->n ? p->v[p->n - 1].t_ms : 0;
	json_t *o, *series;

	series_sum(p, &rd, &wr);
	series = json_array();
	for (size_t i = 0; series && i < p->n; i++)
		if (json_array_append_new(series, json_pack("[I, I, I]", (json_int_t)p->v[i].t_ms,
							    (json_int_t)p->v[i].rd_bytes,
							    (json_int_t)p->v[i].wr_bytes)) < 0) {
			json_decref(series);
			return NULL;
		}
	if (!series)
		return NULL;
	o = json_pack("{s:I, s:s, s:I, s:I, s:f, s:I, s:I, s:f, s:o}", "phase",
		      (json_int_t)p->phase, "name",
		      pre && p->phase < pre->n_phases && pre->phase[p->phase].name
			      ? pre->phase[p->phase].name
			      : "",
		      "phases", (json_int_t)(pre ? pre->n_phases : 0), "elapsed_ms",
		      (json_int_t)elapsed, "fraction", probe_progress_fraction(p), "bytes_read",
		      (json_int_t)(p->done_rd + rd), "bytes_written", (json_int_t)(p->done_wr + wr),
		      "mb_per_s", probe_progress_mb_per_s(p), "series", series);
	return o;
}

void probe_progress_clear(struct probe_progress *p)
{
	free(p->v);
	p->v = NULL;
	p->n = p->cap = 0;
}
