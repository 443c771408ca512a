/* SPDX-License-Identifier: MIT */
/*
 * A drive's wear report from the store (its whole history: hourly rollups, then
 * finer rows up to the latest sample, and its probe runs), served at
 * GET /api/v1/devices/{id}/wear.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/core/log.h"
#include "nvmond/store/store_probe.h"
#include "nvmond/store/store_rollup.h"
#include "nvmond/api/wear_api.h"
#include "nvmond/api/wear_render.h"

#define WEAR_PROBE_RUNS_MAX 1000000 /* every run of a drive */

int wear_report_for(struct store *s, const struct fleet_device *d, uint64_t rated_bytes,
		    int64_t now_ms, struct wear_report *ret, u128 *daily, size_t days)
{
	struct wear_cfg wc = {
		.rated_bytes = rated_bytes,
		.unusual_factor = WEAR_UNUSUAL_FACTOR_DEFAULT,
		.unusual_min_bytes = WEAR_UNUSUAL_MIN_BYTES,
	};
	struct series_row *rows = NULL;
	struct probe_run_row *runs = NULL;
	struct wear_point *pts;
	u128 probe_bytes = 0;
	size_t n = 0, k = 0;
	int r;

	/* What nvmond's own probes wrote is counted apart. */
	r = store_probe_runs_list(s, d->row.id, WEAR_PROBE_RUNS_MAX, &runs, &k);
	if (r < 0)
		return r;
	for (size_t i = 0; i < k; i++)
		probe_bytes += runs[i].bytes_written;
	free(runs);

	r = store_rollup_read(s, d->row.id, SERIES_RES_1H, d->row.first_seen_ms, now_ms, &rows, &n);
	if (r < 0)
		return r;
	pts = malloc((n + 1) * sizeof(*pts));
	if (!pts) {
		free(rows);
		return -ENOMEM;
	}
	k = 0;
	for (size_t i = 0; i < n; i++)
		pts[k++] = (struct wear_point){.ts_ms = rows[i].last_ts_ms,
					       .data_units_written = rows[i].data_units_written,
					       .percent_used = rows[i].percent_used};
	free(rows);
	/* The newest sample may still wait in the poller's buffer. */
	if (d->has_sample && (k == 0 || d->last.ts_ms > pts[k - 1].ts_ms))
		pts[k++] =
			(struct wear_point){.ts_ms = d->last.ts_ms,
					    .data_units_written = d->last.smart.data_units_written,
					    .percent_used = d->last.smart.percent_used};
	if (k == 0) {
		free(pts);
		return -ENODATA;
	}
	r = wear_analyze(pts, k, &wc, d->row.model, probe_bytes, now_ms, ret);
	if (r == 0 && daily)
		wear_daily(pts, k, now_ms, days, daily);
	free(pts);
	return r;
}

struct rated_call {
	const struct cfg *cfg;
	const struct device_row *row;
	struct cfg_device dev;
};

/* On the main loop: the configuration belongs to it (SIGHUP replaces it there). */
static int rated_lookup(void *arg)
{
	struct rated_call *c = arg;

	cfg_device_for(c->cfg, c->row->model, c->row->serial, &c->dev);
	return 0;
}

static void wear_get(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	const struct wear_source *src = ctx;
	struct wear_report w;
	struct fleet_device d;
	struct rated_call rc;
	u128 daily[WEAR_DAILY_DAYS];
	int r;

	if (fleet_get(req->fleet, req->id, &d) < 0)
		return api_reply_error(ret, 404, "no such device");
	rc = (struct rated_call){.cfg = src->cfg, .row = &d.row};
	r = mainq_call(src->mainq, rated_lookup, &rc);
	if (r < 0)
		return api_reply_error(ret, 503, "shutting down");

	r = wear_report_for(req->store, &d, rc.dev.rated_bytes, req->now_ms, &w, daily,
			    WEAR_DAILY_DAYS);
	if (r == -ENODATA)
		return api_reply_error(ret, 404, "no samples of this device yet");
	if (r < 0) {
		log_warn("api: the wear of device %" PRId64 ": %s (%s)", req->id, strerror(-r),
			 store_rollup_errmsg(req->store));
		return api_reply_error(ret, 500, "database error");
	}
	ret->json = wear_render(req->id, &w, daily, WEAR_DAILY_DAYS, req->now_ms);
	if (!ret->json)
		api_reply_error(ret, 500, "out of memory");
}

struct api_endpoint wear_endpoint(const struct wear_source *src)
{
	return (struct api_endpoint){
		.method = "GET",
		.pattern = "/api/v1/devices/{id}/wear",
		.flags = API_EP_STORE,
		.fn = wear_get,
		.ctx = (void *)src,
	};
}
