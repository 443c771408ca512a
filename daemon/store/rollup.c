/* SPDX-License-Identifier: MIT */
/*
 * Long history on the main loop: the rollup timer that calls
 * store_rollup_step() (the range endpoint is api/series_api.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/core/cfg.h"
#include "nvmond/core/log.h"
#include "nvmond/store/rollup.h"
#include "nvmond/analysis/series.h"
#include "nvmond/store/store.h"
#include "nvmond/util/timefmt.h"

#define ROLLUP_PERIOD_MS  (60 * 1000) /* steady state: a step a minute */
#define ROLLUP_CATCHUP_MS 20	      /* between steps while catching up */
/* After a failure (a full disk): soon, then less often, so a freed disk is seen soon. */
#define ROLLUP_RETRY_MIN_MS (5 * 1000)
#define ROLLUP_RETRY_MAX_MS (60 * 1000)

struct rollup {
	struct store *store;
	struct store_rollup_cfg cfg;
	int64_t timer;
	struct loop *loop;
	int64_t retry_ms; /* the wait before the next try after a failure; 0 = not failing */
};

int rollup_new(struct store *s, const struct store_rollup_cfg *c, struct rollup **ret)
{
	struct rollup *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->store = s;
	r->cfg = *c;
	*ret = r;
	return 0;
}

static int64_t rollup_tick(struct loop *l, void *userdata)
{
	struct rollup *ru = userdata;
	bool more = false;
	int r;

	r = store_rollup_step(ru->store, &ru->cfg, timefmt_now_ms(), &more);
	if (r < 0) {
		if (!ru->retry_ms)
			log_warn("rollups: %s (%s); retrying in %d s, then less often up to every "
				 "minute",
				 strerror(-r), store_rollup_errmsg(ru->store),
				 ROLLUP_RETRY_MIN_MS / 1000);
		ru->retry_ms = ru->retry_ms ? ru->retry_ms * 2 : ROLLUP_RETRY_MIN_MS;
		if (ru->retry_ms > ROLLUP_RETRY_MAX_MS)
			ru->retry_ms = ROLLUP_RETRY_MAX_MS;
		return loop_timer_lazy(l, ru->timer, ru->retry_ms, ru->retry_ms);
	}
	if (ru->retry_ms)
		log_info("rollups: building again");
	ru->retry_ms = 0;
	if (more)
		return loop_timer_lazy(l, ru->timer, ROLLUP_CATCHUP_MS, ROLLUP_CATCHUP_MS);
	/* Caught up: only a poll brings new samples, so the next step waits for one's wakeup. */
	return loop_timer_lazy(l, ru->timer, ROLLUP_PERIOD_MS, -1);
}

int rollup_start(struct rollup *r, struct loop *l)
{
	int64_t id = loop_add_timer(l, 0, rollup_tick, r);

	if (id < 0)
		return (int)id;
	r->loop = l;
	r->timer = id;
	return 0;
}

struct rollup *rollup_free(struct rollup *r)
{
	if (!r)
		return NULL;
	if (r->loop && r->timer > 0)
		(void)loop_cancel_timer(r->loop, r->timer);
	free(r);
	return NULL;
}
