/* SPDX-License-Identifier: MIT */
/* The wear report as the JSON of GET /api/v1/devices/{id}/wear. */
#include <math.h>

#include "nvmond/api/render.h"
#include "nvmond/api/wear_render.h"
#include "nvmond/util/timefmt.h"
#include "nvmond/util/units.h"

static const char *const window_name[_WEAR_WINDOW_MAX] = {"1d", "7d", "30d"};

static json_t *date_or_null(int64_t ms)
{
	char buf[TIMEFMT_MAX];

	return ms ? json_string(timefmt_rfc3339(ms, buf)) : json_null();
}

static json_t *render_rate(const struct wear_rate *r)
{
	if (!r->known)
		return json_pack("{s:b, s:I}", "known", 0, "span_s",
				 (json_int_t)(r->span_ms / 1000));
	return json_pack("{s:b, s:b, s:I, s:o, s:I}", "known", 1, "complete", r->complete, "span_s",
			 (json_int_t)(r->span_ms / 1000), "bytes", render_u128(r->bytes),
			 "bytes_per_day", (json_int_t)llround(r->bytes_per_day));
}

json_t *wear_render(int64_t device_id, const struct wear_report *w, const u128 *daily, size_t days,
		    int64_t now_ms)
{
	static const char *const src[] = {"unknown", "config", "builtin"};
	json_t *o, *rates, *dl;

	rates = json_pack("{s:o, s:o, s:o}", window_name[0], render_rate(&w->rate[0]),
			  window_name[1], render_rate(&w->rate[1]), window_name[2],
			  render_rate(&w->rate[2]));
	dl = json_array();
	for (size_t i = 0; dl && i < days; i++) {
		char buf[TIMEFMT_MAX];
		int64_t day = (now_ms / MS_PER_DAY - (int64_t)(days - 1 - i)) * MS_PER_DAY;

		timefmt_rfc3339(day, buf);
		buf[10] = '\0'; /* the date */
		if (json_array_append_new(dl, json_pack("{s:s, s:o}", "date", buf, "bytes",
							render_u128(daily[i]))) < 0) {
			json_decref(dl);
			dl = NULL;
		}
	}
	o = json_pack(
		"{s:I, s:o, s:o, s:o, s:{s:s, s:o, s:s, s:o, s:o, s:o}, s:i, s:o, s:s?, s:b, s:o, "
		"s:i, s:o, s:b, s:o, s:{s:b, s:I, s:f}, s:I, s:o}",
		"device_id", (json_int_t)device_id, "bytes_written", render_u128(w->bytes_written),
		"probe_bytes_written", render_u128(w->probe_bytes), "host_bytes_written",
		render_u128(w->host_bytes), "rating", "source", src[w->rating_source],
		"rated_bytes",
		w->rated_bytes ? json_integer((json_int_t)w->rated_bytes) : json_null(),
		"reference", w->rating_ref ? w->rating_ref : "", "rated_fraction",
		w->rated_bytes ? json_real(round(w->rated_fraction * 1e6) / 1e6) : json_null(),
		"warranty_years",
		w->warranty_years ? json_integer((json_int_t)w->warranty_years) : json_null(),
		"dwpd", w->dwpd ? json_integer((json_int_t)w->dwpd) : json_null(), "alert_level",
		w->alert_level, "rates", rates, "projection_basis",
		w->projectable ? window_name[w->basis] : NULL, "tbw_reached", w->tbw_reached,
		"tbw_date", date_or_null(w->tbw_date_ms), "percent_used", w->percent_used,
		"percent_used_per_day",
		w->used_per_day > 0 ? json_real(w->used_per_day) : json_null(),
		"percent_used_reached", w->used_reached, "percent_used_100_date",
		date_or_null(w->used_date_ms), "unusual_write_rate", "active", w->unusual,
		"avg_30d_bytes_per_day", (json_int_t)llround(w->avg_30d_bytes_per_day), "factor",
		w->unusual_factor, "counter_resets", (json_int_t)w->counter_resets, "daily", dl);
	return o;
}
