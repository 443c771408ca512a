/* SPDX-License-Identifier: MIT */
/*
 * The demo year's health facts (see demo_year.h): the error log as the poller
 * reads it, the firmware revisions and the PCIe link, with the alerts they
 * raised. Pure. The entries are the live drive's (dev_demo_error(), a function
 * of the error count); the seed only picks when each was read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo_year_internal.h"

#define POLL_MS (10 * 1000LL) /* [daemon] poll_interval's default */

/*
 * A read at @day days after the year's first midnight, at a 3-hour mark: the
 * samples of every cadence land on those, so a sample shows the counts rise.
 */
static void read_at(struct gen *g, int64_t day, int64_t hour, uint64_t count, uint64_t media)
{
	g->rd[g->n_rd++] = (struct err_read){
		g->day0 + day * MS_PER_DAY + hour / 3 * 3 * MS_PER_HOUR, count, media};
}

void demo_year_plan_facts(struct gen *g)
{
	const struct dev_demo_drive *d = g->d;
	uint64_t count = d->err_log_entries;

	/* The first read takes in what the log held before. */
	g->rd[g->n_rd++] = (struct err_read){g->t0, count, 0};
	for (size_t m = 0; m < DEV_DEMO_ERR_MONTHS; m++) {
		/* A month's tools: on days 2-15 of it, at 09:00, 12:00 or 15:00. */
		if (m == DEV_DEMO_MEDIA_AFTER && d->media_errors) {
			/* One bad read between the bursts, on days 198-205, at any hour. */
			count += d->media_errors;
			read_at(g, 198 + (int64_t)(8 * rnd(g, 42, 0)),
				(int64_t)(24 * rnd(g, 43, 0)), count, d->media_errors);
		}
		if (!d->err_bursts[m])
			continue;
		count += d->err_bursts[m];
		read_at(g, 30 * (int64_t)m + 2 + (int64_t)(14 * rnd(g, 40, m)),
			9 + (int64_t)(9 * rnd(g, 41, m)), count, g->rd[g->n_rd - 1].media);
	}
	if (d->firmware_was[0])
		g->fw_ms = g->day0 + (196 + (int64_t)(8 * rnd(g, 44, 0))) * MS_PER_DAY +
			   17 * MS_PER_HOUR +
			   (int64_t)(3 * MS_PER_HOUR * rnd(g, 45, 0)) / 1000 * 1000;
	if (nvme_pcie_link_known(&d->link_was)) {
		g->link_from = g->day0 + (248 + (int64_t)(8 * rnd(g, 46, 0))) * MS_PER_DAY +
			       8 * MS_PER_HOUR +
			       (int64_t)(MS_PER_HOUR * rnd(g, 47, 0)) / 1000 * 1000;
		g->link_to = g->link_from + 20 * MS_PER_DAY +
			     (int64_t)(2 * MS_PER_DAY * rnd(g, 48, 0)) / 1000 * 1000;
	}
}

void demo_year_errors_at(const struct gen *g, int64_t ms, struct smart_log *s)
{
	const struct err_read *now = &g->rd[0], *last = &g->rd[g->n_rd - 1];

	for (size_t i = 1; i < g->n_rd && g->rd[i].ms <= ms; i++)
		now = &g->rd[i];
	s->num_err_log_entries = g->end.num_err_log_entries - (last->count - now->count);
	s->media_errors = g->end.media_errors - (last->media - now->media);
}

const struct nvme_pcie_link *demo_year_link_at(const struct gen *g, int64_t ms)
{
	return ms >= g->link_from && ms < g->link_to ? &g->d->link_was : &g->d->link;
}

static struct demo_alert *alert(struct demo_year *y, enum alert_rule rule, enum alert_severity sev,
				int64_t from, int64_t to)
{
	struct demo_alert *a = demo_year_push_alert(y);

	if (a)
		*a = (struct demo_alert){
			.rule = rule, .severity = sev, .started_ms = from, .resolved_ms = to};
	return a;
}

/* The entries each read found, and the alerts of those that alert. */
static int make_errors(const struct gen *g, struct demo_year *y)
{
	const struct err_read *last = &g->rd[g->n_rd - 1];

	y->errors = calloc(last->count ? last->count : 1, sizeof(*y->errors));
	y->reads = calloc(g->n_rd, sizeof(*y->reads));
	if (!y->errors || !y->reads)
		return -ENOMEM;
	for (size_t i = 0; i < g->n_rd; i++) {
		const struct err_read *r = &g->rd[i];
		struct demo_errlog_read *rr = &y->reads[y->n_reads++];
		int64_t newest_bad = -1;

		*rr = (struct demo_errlog_read){r->ms, r->count, y->n_errors, 0};
		for (uint64_t c = i ? g->rd[i - 1].count + 1 : 1; c <= r->count; c++) {
			struct demo_error *e = &y->errors[y->n_errors++];

			dev_demo_error(g->d, c, &e->e);
			e->cls = errclass_of(&e->e);
			e->before_watch = i == 0;
			e->seen_ms = r->ms;
			rr->n++;
			if (i && errclass_alerts(e->cls))
				newest_bad = (int64_t)(y->n_errors - 1);
		}
		struct demo_alert *a;
		if (newest_bad >= 0) {
			char desc[sizeof(((struct demo_alert *)0)->message) -
				  10]; /* "error log " */
			errclass_describe(&y->errors[newest_bad].e, desc, sizeof(desc));
			a = alert(y, ALERT_IO_ERRORS, ALERT_SEV_CRITICAL, r->ms,
				  r->ms + ALERT_IO_ERRORS_HOLD_MS + RESOLVE_MS);
			if (!a)
				return -ENOMEM;
			snprintf(a->message, sizeof(a->message), "error log %s", desc);
		}
		if (i && r->media > g->rd[i - 1].media) {
			a = alert(y, ALERT_MEDIA_ERRORS, ALERT_SEV_CRITICAL, r->ms,
				  r->ms + POLL_MS + RESOLVE_MS);
			if (!a)
				return -ENOMEM;
			snprintf(a->message, sizeof(a->message), "media errors increased by %llu",
				 (unsigned long long)(r->media - g->rd[i - 1].media));
		}
	}
	return 0;
}

static void fw_row(struct demo_year *y, int64_t ms, const char *old_rev, const char *new_rev)
{
	struct demo_fw *f = &y->fw[y->n_fw++];

	f->ms = ms;
	snprintf(f->old_rev, sizeof(f->old_rev), "%s", old_rev);
	snprintf(f->new_rev, sizeof(f->new_rev), "%s", new_rev);
}

int demo_year_make_facts(const struct gen *g, struct demo_year *y)
{
	const struct dev_demo_drive *d = g->d;
	struct demo_alert *a;
	int r = make_errors(g, y);

	if (r < 0)
		return r;
	if (!g->fw_ms) {
		fw_row(y, g->t0, "", d->firmware);
	} else {
		fw_row(y, g->t0, "", d->firmware_was);
		fw_row(y, g->fw_ms, d->firmware_was, d->firmware);
		a = alert(y, ALERT_FIRMWARE_CHANGED, ALERT_SEV_INFO, g->fw_ms,
			  g->fw_ms + ALERT_FIRMWARE_SHOW_MS + RESOLVE_MS);
		if (!a)
			return -ENOMEM;
		snprintf(a->message, sizeof(a->message), "firmware changed from %.20s to %.20s",
			 d->firmware_was, d->firmware);
	}
	y->links[y->n_links++] = (struct demo_link){g->t0, d->link};
	if (g->link_to > g->link_from) {
		y->links[y->n_links++] = (struct demo_link){g->link_from, d->link_was};
		y->links[y->n_links++] = (struct demo_link){g->link_to, d->link};
		if (nvme_pcie_link_degraded(&d->link_was)) {
			char link[NVME_PCIE_LINK_STR_MAX];
			nvme_pcie_link_format(&d->link_was, link, sizeof(link));
			a = alert(y, ALERT_LINK_DEGRADED, ALERT_SEV_WARNING, g->link_from,
				  g->link_to + RESOLVE_MS);
			if (!a)
				return -ENOMEM;
			snprintf(a->message, sizeof(a->message),
				 "%s: the link runs below what the drive supports, which caps its "
				 "throughput",
				 link);
		}
	}
	return 0;
}
