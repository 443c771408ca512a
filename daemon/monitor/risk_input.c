/* SPDX-License-Identifier: MIT */
/*
 * The risk rules' inputs for one drive, from the fleet and the store. See
 * risk_input.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/analysis/series.h"
#include "nvmond/decode/pel.h"
#include "nvmond/monitor/risk_input.h"
#include "nvmond/store/store_drive.h"
#include "nvmond/store/store_rollup.h"
#include "nvmond/util/units.h"

struct risk_windows risk_windows(int64_t now_ms)
{
	return (struct risk_windows){
		.errors_from = now_ms - RISK_ERRORS_DAYS * MS_PER_DAY,
		.spare_from = now_ms - RISK_SPARE_FIT_DAYS * MS_PER_DAY,
		.blocks_from = now_ms - RISK_BLOCKS_DAYS * MS_PER_DAY,
		.hw_from = now_ms - RISK_HW_DAYS * MS_PER_DAY,
	};
}

void risk_refresh_now(struct risk_gathered *g, const struct fleet_device *d, unsigned neighbours,
		      const char *neighbour, int64_t now_ms)
{
	struct risk_input *in = &g->in;
	const struct fleet_ocp *o = &d->drive.ocp;

	in->now_ms = now_ms;
	in->spare = g->spare;
	in->smart_known = d->has_sample && d->last.source == SAMPLE_SOURCE_SMART;
	if (in->smart_known) {
		const struct smart_log *s = &d->last.smart;
		in->smart_ms = d->last.ts_ms;
		in->critical_warning = s->critical_warning;
		in->percent_used = s->percent_used;
		in->avail_spare = s->avail_spare;
		in->spare_thresh = s->spare_thresh;
		in->power_on_hours = s->power_on_hours;
		in->media_now = s->media_errors;
	}
	if (o->present && o->have) {
		in->ocp_ms = o->read_ms;
		in->unc_now = o->log.uncorrectable_reads;
		in->blocks_now = o->log.bad_user_blocks + o->log.bad_system_blocks;
	} else {
		in->unc_known = in->blocks_known = false;
	}
	in->neighbours_bad = neighbours;
	snprintf(g->neighbour, sizeof(g->neighbour), "%s", neighbour ? neighbour : "");
	in->neighbour = g->neighbour;
}

int risk_gather(struct store *s, const struct fleet_device *d, unsigned neighbours,
		const char *neighbour, int64_t now_ms, struct risk_gathered *ret)
{
	struct risk_windows w = risk_windows(now_ms);
	struct risk_gathered g = {0};
	struct risk_input *in = &g.in;
	struct series_row *v = NULL;
	struct store_ocp_row then;
	size_t n = 0;
	int64_t at;
	int r;

	in->history_ms = now_ms;
	/* The spare's hourly values over the fit's window. */
	r = store_rollup_read(s, d->row.id, 3600, w.spare_from, now_ms, &v, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n && g.in.n_spare < RISK_SPARE_POINTS_MAX; i++)
		if (v[i].n)
			g.spare[g.in.n_spare++] = (struct risk_spare_point){
				.ts_ms = v[i].ts_ms, .spare = v[i].avail_spare};
	free(v);
	/* Errors in their window: the error log's, the health log's count then. */
	r = store_io_errors_count(s, d->row.id, w.errors_from, now_ms, &in->io_errors);
	if (r < 0)
		return r;
	r = store_media_errors_since(s, d->row.id, w.errors_from, &in->media_then, &at);
	if (r < 0 && r != -ENOENT)
		return r;
	in->media_known = r == 0;
	/* The C0h counters at the start of their windows (the first read inside). */
	if (d->drive.ocp.present && d->drive.ocp.have) {
		r = store_ocp_first_since(s, d->row.id, w.errors_from, &then);
		if (r < 0 && r != -ENOENT)
			return r;
		in->unc_known = r == 0;
		in->unc_then = r == 0 ? then.l.uncorrectable_reads : 0;
		r = store_ocp_first_since(s, d->row.id, w.blocks_from, &then);
		if (r < 0 && r != -ENOENT)
			return r;
		in->blocks_known = r == 0;
		in->blocks_then = r == 0 ? then.l.bad_user_blocks + then.l.bad_system_blocks : 0;
	}
	r = store_pel_count(s, d->row.id, PEL_HW_ERROR, w.hw_from, now_ms, &in->hw_errors);
	if (r < 0)
		return r;
	risk_refresh_now(&g, d, neighbours, neighbour, now_ms);
	*ret = g;
	ret->in.spare = ret->spare;
	ret->in.neighbour = ret->neighbour;
	return 0;
}
