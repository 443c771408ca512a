/* SPDX-License-Identifier: MIT */
/*
 * GET /api/v1/devices/{id}/series?from=&to=&points=|step=: the range, read at
 * the coarsest resolution that still gives the points asked for.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/api/api_params.h"
#include "nvmond/api/series_cache.h"
#include "nvmond/api/series_api.h"
#include "nvmond/api/series_render.h"
#include "nvmond/core/log.h"
#include "nvmond/util/timefmt.h"

#define SERIES_SPAN_DEFAULT (24 * 3600 * 1000LL)
#define SERIES_STEP_MIN_MS  1000LL
/* Ten years: far beyond any useful step, and rounding it up to whole rollup
 * buckets (series_plan()) stays far from overflow. */
#define SERIES_STEP_MAX_MS (3650 * 24 * 3600 * 1000LL)

static void series_get(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	const struct series_api *a = ctx;
	const struct store_rollup_cfg *rc = a->rollup;
	struct series_row *out = NULL;
	size_t n_out = 0;
	struct fleet_device d;
	struct series_query q;
	int64_t from_ms = 0, to_ms = req->now_ms, step_ms = 0, pts = 0;
	bool has_from, has_points, has_step;
	const struct api_param params[] = {
		{.name = "from", .kind = API_PARAM_TIME, .dest.i64 = &from_ms, .given = &has_from},
		{.name = "to", .kind = API_PARAM_TIME, .dest.i64 = &to_ms},
		{.name = "points",
		 .kind = API_PARAM_INT,
		 .min = 1,
		 .max = SERIES_POINTS_MAX,
		 .dest.i64 = &pts,
		 .given = &has_points},
		{.name = "step",
		 .kind = API_PARAM_DURATION,
		 .min = SERIES_STEP_MIN_MS,
		 .max = SERIES_STEP_MAX_MS,
		 .dest.i64 = &step_ms,
		 .given = &has_step},
	};
	int r;

	if (api_params_parse(req, params, sizeof(params) / sizeof(params[0]), ret) < 0)
		return;
	if (has_points && has_step)
		return api_reply_error(ret, 400, "give 'points' or 'step', not both");
	if (!has_from)
		from_ms = to_ms > SERIES_SPAN_DEFAULT ? to_ms - SERIES_SPAN_DEFAULT : 0;
	if (series_plan(from_ms, to_ms, (unsigned)pts, step_ms, req->now_ms, rc->keep_raw_ms,
			rc->keep_1m_ms, &q) < 0)
		return api_reply_error(ret, 400,
				       "'from' after 'to', a time before 1970, or more than %d "
				       "points in the range",
				       SERIES_POINTS_MAX);
	if (fleet_get(req->fleet, req->id, &d) < 0)
		return api_reply_error(ret, 404, "no such device");

	r = series_cache_read(a->cache, req->store, req->id, &q, &out, &n_out);
	if (r == -ENOMEM)
		return api_reply_error(ret, 500, "out of memory");
	if (r < 0) {
		log_warn("api: reading the series of device %" PRId64 ": %s", req->id,
			 store_rollup_errmsg(req->store));
		return api_reply_error(ret, 500, "database error");
	}
	r = series_render(req->id, &q, out, n_out, &ret->text, &ret->text_len);
	free(out);
	if (r < 0)
		return api_reply_error(ret, 500, "out of memory");
	ret->content_type = "application/json";
}

struct api_endpoint series_endpoint(const struct series_api *a)
{
	return (struct api_endpoint){
		.method = "GET",
		.pattern = "/api/v1/devices/{id}/series",
		.flags = API_EP_STORE | API_EP_QUERY,
		.fn = series_get,
		.ctx = (void *)a,
	};
}
