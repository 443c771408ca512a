/* SPDX-License-Identifier: MIT */
/*
 * GET /api/v1/devices/{id}/series?from=&to=&points=|step=: the range, read at
 * the coarsest resolution that still gives the points asked for.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/api/series_api.h"
#include "nvmond/api/series_render.h"
#include "nvmond/core/cfg.h"
#include "nvmond/core/log.h"
#include "nvmond/util/timefmt.h"

#define SERIES_SPAN_DEFAULT (24 * 3600 * 1000LL)

static void series_get(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	const struct store_rollup_cfg *rc = ctx;
	const char *from = NULL, *to = NULL, *points = NULL, *step = NULL;
	struct series_row *rows = NULL, *out = NULL;
	size_t n = 0, n_out = 0;
	struct fleet_device d;
	struct series_query q;
	int64_t from_ms, to_ms, step_ms = 0;
	long pts = 0;
	int r;

	for (size_t i = 0; i < req->n_params; i++) {
		const char *k = req->params[i].key, *v = req->params[i].value;
		const char **slot = strcmp(k, "from") == 0     ? &from
				    : strcmp(k, "to") == 0     ? &to
				    : strcmp(k, "points") == 0 ? &points
				    : strcmp(k, "step") == 0   ? &step
							       : NULL;

		if (!slot)
			return api_reply_error(ret, 400,
					       "unknown query parameter (from, to, points, step)");
		if (!v || !v[0])
			return api_reply_error(ret, 400, "parameter '%s' needs a value", k);
		*slot = v;
	}
	if (points && step)
		return api_reply_error(ret, 400, "give 'points' or 'step', not both");
	to_ms = req->now_ms;
	if (to && timefmt_parse(to, &to_ms) < 0)
		return api_reply_error(ret, 400,
				       "parameter 'to' must be an RFC 3339 time or "
				       "unix milliseconds");
	from_ms = to_ms > SERIES_SPAN_DEFAULT ? to_ms - SERIES_SPAN_DEFAULT : 0;
	if (from && timefmt_parse(from, &from_ms) < 0)
		return api_reply_error(ret, 400,
				       "parameter 'from' must be an RFC 3339 time or "
				       "unix milliseconds");
	if (points) {
		char *end;

		pts = strtol(points, &end, 10);
		if (*end || pts < 1 || pts > SERIES_POINTS_MAX)
			return api_reply_error(ret, 400,
					       "parameter 'points' must be an integer from 1 to %d",
					       SERIES_POINTS_MAX);
	}
	if (step && (cfg_parse_duration_ms(step, &step_ms) < 0 || step_ms < 1000))
		return api_reply_error(ret, 400,
				       "parameter 'step' must be a duration of at least 1s "
				       "(\"60s\", \"5m\", \"1h\", or seconds)");
	if (series_plan(from_ms, to_ms, (unsigned)pts, step_ms, req->now_ms, rc->keep_raw_ms,
			rc->keep_1m_ms, &q) < 0)
		return api_reply_error(ret, 400,
				       "'from' after 'to', a time before 1970, or more than %d "
				       "points in the range",
				       SERIES_POINTS_MAX);
	if (fleet_get(req->fleet, req->id, &d) < 0)
		return api_reply_error(ret, 404, "no such device");

	r = store_rollup_read(req->store, req->id, q.res_s, q.from_ms, q.to_ms, &rows, &n);
	if (r < 0) {
		log_warn("api: reading the series of device %" PRId64 ": %s", req->id,
			 store_rollup_errmsg(req->store));
		return api_reply_error(ret, 500, "database error");
	}
	r = series_rebucket(rows, n, q.step_ms, &out, &n_out);
	free(rows);
	if (r < 0)
		return api_reply_error(ret, 500, "out of memory");
	ret->json = series_render(req->id, &q, out, n_out);
	free(out);
	if (!ret->json)
		api_reply_error(ret, 500, "out of memory");
}

struct api_endpoint series_endpoint(const struct store_rollup_cfg *c)
{
	return (struct api_endpoint){
		.method = "GET",
		.pattern = "/api/v1/devices/{id}/series",
		.flags = API_EP_STORE,
		.fn = series_get,
		.ctx = (void *)c,
	};
}
