/* SPDX-License-Identifier: MIT */
/* A range query's rows as the columnar JSON of GET /api/v1/devices/{id}/series. */
#include <math.h>

#include "nvmond/api/render.h"
#include "nvmond/api/series_render.h"
#include "nvmond/util/timefmt.h"

/*
 * Whole °C as everywhere in the API (K - 273; drives report whole Kelvin), an
 * average rounded; null when not reported. Integers also keep a year-long answer
 * small and quick to print.
 */
static json_t *celsius(double kelvin, uint32_t reported)
{
	if (!reported)
		return json_null();
	return json_integer((json_int_t)lround(kelvin - 273.0));
}

static int append(json_t *a, json_t *v)
{
	return json_array_append_new(a, v);
}

json_t *series_render(int64_t device_id, const struct series_query *q, const struct series_row *v,
		      size_t n)
{
	json_t *o = NULL, *t, *tmin, *tavg, *tmax, *sensors, *cw, *spare, *used, *wr, *rd, *media,
	       *c1, *c2, *s1, *s2, *cnt;
	char from[TIMEFMT_MAX], to[TIMEFMT_MAX];
	int r = 0;

	o = json_pack("{s:I, s:s, s:s, s:I, s:I, s:i, s:I}", "device_id", (json_int_t)device_id,
		      "from", timefmt_rfc3339(q->from_ms, from), "to",
		      timefmt_rfc3339(q->to_ms, to), "from_ms", (json_int_t)q->from_ms, "to_ms",
		      (json_int_t)q->to_ms, "resolution_s", q->res_s, "step_s",
		      (json_int_t)(q->step_ms / 1000));
	if (!o)
		return NULL;
	t = json_array(), tmin = json_array(), tavg = json_array(), tmax = json_array();
	cw = json_array(), spare = json_array(), used = json_array(), wr = json_array();
	rd = json_array(), media = json_array(), c1 = json_array(), c2 = json_array();
	s1 = json_array(), s2 = json_array(), cnt = json_array(), sensors = json_array();
	if (json_object_set_new(o, "points", json_integer((json_int_t)n)) < 0 ||
	    json_object_set_new(o, "t", t) < 0 || json_object_set_new(o, "n", cnt) < 0 ||
	    json_object_set_new(
		    o, "temp_c",
		    json_pack("{s:o, s:o, s:o}", "min", tmin, "avg", tavg, "max", tmax)) < 0 ||
	    json_object_set_new(o, "sensors", sensors) < 0 ||
	    json_object_set_new(o, "critical_warning", cw) < 0 ||
	    json_object_set_new(o, "avail_spare", spare) < 0 ||
	    json_object_set_new(o, "percent_used", used) < 0 ||
	    json_object_set_new(o, "data_written_bytes", wr) < 0 ||
	    json_object_set_new(o, "data_read_bytes", rd) < 0 ||
	    json_object_set_new(o, "media_errors", media) < 0 ||
	    json_object_set_new(o, "thm_temp1_trans_count", c1) < 0 ||
	    json_object_set_new(o, "thm_temp2_trans_count", c2) < 0 ||
	    json_object_set_new(o, "thm_temp1_total_time", s1) < 0 ||
	    json_object_set_new(o, "thm_temp2_total_time", s2) < 0)
		goto fail;

	for (size_t i = 0; i < n && r == 0; i++) {
		const struct series_row *x = &v[i];

		r |= append(t, json_integer(x->ts_ms / 1000));
		r |= append(cnt, json_integer(x->n));
		r |= append(tmin, celsius(x->temp_min_k, x->temp_n));
		r |= append(tavg, celsius(x->temp_avg_k, x->temp_n));
		r |= append(tmax, celsius(x->temp_max_k, x->temp_n));
		r |= append(cw, json_integer(x->critical_warning));
		r |= append(spare, json_integer(x->avail_spare));
		r |= append(used, json_integer(x->percent_used));
		r |= append(wr, render_u128(smart_bytes(x->data_units_written)));
		r |= append(rd, render_u128(smart_bytes(x->data_units_read)));
		r |= append(media, render_u128(x->media_errors));
		r |= append(c1, json_integer(x->thm_count[0]));
		r |= append(c2, json_integer(x->thm_count[1]));
		r |= append(s1, json_integer(x->thm_time[0]));
		r |= append(s2, json_integer(x->thm_time[1]));
	}
	if (r)
		goto fail;

	for (size_t k = 0; k < SMART_NUM_SENSORS; k++) {
		json_t *mn, *av, *mx, *s;
		bool reported = false;

		for (size_t i = 0; i < n && !reported; i++)
			reported = v[i].s_n[k] > 0;
		if (!reported)
			continue;
		mn = json_array(), av = json_array(), mx = json_array();
		s = json_pack("{s:i, s:o, s:o, s:o}", "sensor", (int)k + 1, "min", mn, "avg", av,
			      "max", mx);
		if (!s || append(sensors, s) < 0)
			goto fail;
		for (size_t i = 0; i < n && r == 0; i++) {
			r |= append(mn, celsius(v[i].s_min_k[k], v[i].s_n[k]));
			r |= append(av, celsius(v[i].s_avg_k[k], v[i].s_n[k]));
			r |= append(mx, celsius(v[i].s_max_k[k], v[i].s_n[k]));
		}
		if (r)
			goto fail;
	}
	return o;
fail:
	json_decref(o);
	return NULL;
}
