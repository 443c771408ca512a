/* SPDX-License-Identifier: MIT */
/*
 * The daemon's probe schedules ([device] probe_schedule): each drive's
 * entries, parsed again when their text changed, and a timer that starts the
 * ones due through probe_svc_start_on_loop() (every gate, as any start). See
 * probe_svc_sched_internal.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvmond/core/log.h"
#include "nvmond/probe/probe_conf.h"
#include "nvmond/util/timefmt.h"

#include "probe_svc_internal.h"

static int svc_load_schedules(struct probe_svc *p, struct probe_dev *d,
			      const struct device_row *row, char err[PROBE_SVC_ERR_MAX])
{
	struct cfg_device cd;
	char e[PROBE_SCHED_ERR];

	cfg_device_for(&p->cfg, row->model, row->serial, &cd);
	if (strcmp(cd.probe_schedule, d->sched.text) == 0 && d->sched.text[0])
		return 0;
	if (probe_sched_parse(cd.probe_schedule, d->sched.v, &d->sched.n, e) < 0) {
		snprintf(err, PROBE_SVC_ERR_MAX, "[device \"%s\"] probe_schedule: %s", cd.match, e);
		d->sched.n = 0;
		return -EINVAL;
	}
	snprintf(d->sched.text, sizeof(d->sched.text), "%s", cd.probe_schedule);
	for (size_t i = 0; i < PROBE_SCHED_MAX; i++)
		d->sched.next_due[i] = 0;
	return 0;
}

static int64_t utc_offset_s(int64_t now_ms)
{
	time_t t = (time_t)(now_ms / 1000);
	struct tm tm;

	return localtime_r(&t, &tm) ? tm.tm_gmtoff : 0;
}

int64_t probe_svc_sched_tick(struct loop *l, void *userdata)
{
	struct probe_svc *p = userdata;
	struct fleet_device *v = NULL;
	size_t n = 0;
	int64_t now = timefmt_now_ms(), next = -1;

	probe_svc_reap(p);
	if (fleet_snapshot(p->fleet, &v, &n) < 0)
		return loop_timer_lazy(l, p->sched_timer, SCHED_TICK_MS, SCHED_TICK_MS);
	for (size_t i = 0; i < n; i++) {
		char err[PROBE_SVC_ERR_MAX];
		struct probe_dev *d = probe_svc_dev_find(p, v[i].row.id, true);
		if (!d || svc_load_schedules(p, d, &v[i].row, err) < 0)
			continue;
		for (size_t k = 0; k < d->sched.n; k++) {
			uint64_t seed = (uint64_t)v[i].row.id * 0x9e3779b97f4a7c15ull + k;
			bool due = false;
			if (d->sched.next_due[k] && now >= d->sched.next_due[k])
				due = true;
			if (!d->sched.next_due[k] || due)
				d->sched.next_due[k] =
					probe_sched_next(&d->sched.v[k], now, utc_offset_s(now),
							 probe_conf(&p->cfg)->jitter_ms, seed);
			if (next < 0 || d->sched.next_due[k] - now < next)
				next = d->sched.next_due[k] - now > 0 ? d->sched.next_due[k] - now
								      : 0;
			if (!due)
				continue;
			if (!v[i].row.online || d->job || d->series.active)
				continue; /* one at a time; the next occurrence will do */
			struct start_call c = {
				.svc = p,
				.device_id = v[i].row.id,
				.preset = d->sched.v[k].preset,
				.trigger = "schedule",
				/* "xN cooldown D": one series, as the API's repeat */
				.repeat = d->sched.v[k].repeat,
				.cooldown_ms = d->sched.v[k].cooldown_ms};
			int r = probe_svc_start_on_loop(&c);
			if (r < 0)
				log_info("scheduled probe %s on %s skipped: %s",
					 probe_preset_get(c.preset)->name, v[i].row.name, c.reason);
		}
	}
	free(v);
	/*
	 * At the next start due, and in between a look in a wakeup the loop has
	 * anyway: a clock stepped or a resume from suspend (the monotonic clock
	 * stood still) shows at the next poll; a new drive's schedule is read.
	 */
	return loop_timer_lazy(l, p->sched_timer, SCHED_TICK_MS, next);
}

/* Every schedule must parse: a typo should stop the start (or reload), not a probe at 3 am. */
int probe_svc_schedules_check(const struct cfg *c, char ret_err[PROBE_SVC_ERR_MAX])
{
	int64_t iv[RECOVERY_MAX_INTERVALS];
	size_t n_iv;
	char err[RECOVERY_ERR_MAX];

	if (recovery_intervals_parse(probe_conf(c)->recovery_intervals, iv, &n_iv, err) < 0) {
		snprintf(ret_err, PROBE_SVC_ERR_MAX, "[probes] recovery_intervals: %s", err);
		return -EINVAL;
	}
	for (size_t i = 0; i < c->n_devices; i++) {
		struct probe_sched v[PROBE_SCHED_MAX];
		size_t n;
		char e[PROBE_SCHED_ERR];
		if (probe_sched_parse(c->devices[i].probe_schedule, v, &n, e) < 0) {
			snprintf(ret_err, PROBE_SVC_ERR_MAX, "[device \"%s\"] probe_schedule: %s",
				 c->devices[i].match, e);
			return -EINVAL;
		}
	}
	return 0;
}
