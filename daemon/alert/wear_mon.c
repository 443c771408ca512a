/* SPDX-License-Identifier: MIT */
/*
 * The wear rules, checked hourly on the main loop and fed to the alert service.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/core/log.h"
#include "nvmond/store/store_rollup.h"
#include "nvmond/util/timefmt.h"
#include "nvmond/api/wear_api.h"
#include "nvmond/alert/wear_mon.h"

struct wear_mon {
	struct store *store; /* the writer handle: main loop only */
	struct fleet *fleet;
	struct alert_svc *alerts;
	const struct cfg *cfg;
	struct loop *loop;
	int64_t timer;
};

int wear_mon_new(struct store *s, struct fleet *f, struct alert_svc *a, const struct cfg *c,
		 struct wear_mon **ret)
{
	struct wear_mon *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	*m = (struct wear_mon){.store = s, .fleet = f, .alerts = a, .cfg = c};
	*ret = m;
	return 0;
}

/* Check every drive with a sample. Return: true when one must be checked again soon. */
static bool wear_mon_check(struct wear_mon *m, int64_t now_ms)
{
	struct fleet_device *v = NULL;
	bool again = false;
	size_t n = 0, fed = 0;

	if (fleet_snapshot(m->fleet, &v, &n) < 0) {
		log_error("wear: out of memory");
		return true;
	}
	for (size_t i = 0; i < n; i++) {
		struct alert_cond conds[_ALERT_RULE_MAX];
		struct cfg_device cd;
		struct wear_report w;
		int r;

		if (!v[i].has_sample)
			continue;
		cfg_device_for(m->cfg, v[i].row.model, v[i].row.serial, &cd);
		r = wear_report_for(m->store, &v[i], cd.rated_bytes, now_ms, &w, NULL, 0);
		if (r == -ENODATA)
			continue;
		if (r < 0) {
			log_warn("wear: %s: %s (%s)", v[i].row.key, strerror(-r),
				 store_rollup_errmsg(m->store));
			continue;
		}
		wear_alert_conditions(&w, conds);
		r = alert_svc_feed(m->alerts, &v[i].row, conds, now_ms);
		if (r == -EAGAIN)
			again = true;
		else if (r < 0)
			log_errno(LOG_LVL_ERROR, -r, "wear: %s", v[i].row.key);
		else
			fed++;
	}
	free(v);
	/* What a test waits for when the check fires nothing ([alerts] wear = no). */
	log_debug("wear: checked %zu drive(s)", fed);
	return again;
}

static int64_t wear_mon_tick(struct loop *l, void *userdata)
{
	struct wear_mon *m = userdata;

	/* The wear comes from the samples, which only a poll brings: in a poll's wakeup. */
	return loop_timer_lazy(
		l, m->timer,
		wear_mon_check(m, timefmt_now_ms()) ? WEAR_MON_FIRST_MS : WEAR_MON_PERIOD_MS, -1);
}

int wear_mon_start(struct wear_mon *m, struct loop *l)
{
	int64_t id = loop_add_timer_lazy(l, WEAR_MON_FIRST_MS, -1, wear_mon_tick, m);

	if (id < 0)
		return (int)id;
	m->loop = l;
	m->timer = id;
	return 0;
}

struct wear_mon *wear_mon_free(struct wear_mon *m)
{
	if (!m)
		return NULL;
	if (m->loop && m->timer > 0)
		(void)loop_cancel_timer(m->loop, m->timer);
	free(m);
	return NULL;
}
