/* SPDX-License-Identifier: MIT */
/*
 * Group runs in the daemon (several drives at once): the start of all the
 * drives' probes or none, and POST /api/v1/probes. See probe_group.h.
 *
 * Every drive passes its own gates exactly as a probe started alone does
 * (probe_svc_start_on_loop() with hold: identity, target, lock, budget,
 * temperature, self-test, busy for a scheduled one); only when all passed
 * are the runs recorded and their threads started.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "nvmond/core/log.h"
#include "nvmond/probe/probe_body.h"
#include "nvmond/util/timefmt.h"

#include "probe_svc_internal.h"

struct member_order {
	size_t index; /* in the call */
	char serial[21];
};

static int by_serial(const void *a, const void *b)
{
	const struct member_order *x = a, *y = b;

	return strcmp(x->serial, y->serial);
}

int probe_svc_group_start_on_loop(void *arg)
{
	struct group_call *c = arg;
	struct probe_svc *p = c->svc;
	struct member_order order[PROBE_GROUP_MAX];
	struct probe_job_ctx *job[PROBE_GROUP_MAX] = {0};
	struct probe_group_run *g;
	int64_t now = timefmt_now_ms();
	size_t i, k;
	int r;

	probe_svc_reap(p);
	if (c->n < 2 || c->n > PROBE_GROUP_MAX) {
		snprintf(c->reason, sizeof(c->reason), "devices: 2 … %d drives", PROBE_GROUP_MAX);
		return -EINVAL;
	}
	for (i = 0; i < c->n; i++) {
		struct fleet_device fd;
		for (k = 0; k < i; k++)
			if (c->device_id[k] == c->device_id[i]) {
				snprintf(c->reason, sizeof(c->reason),
					 "devices: drive %" PRId64 " is named twice",
					 c->device_id[i]);
				return -EINVAL;
			}
		if (fleet_get(p->fleet, c->device_id[i], &fd) < 0) {
			c->ret_refused = c->device_id[i];
			snprintf(c->reason, sizeof(c->reason), "drive %" PRId64 ": no such device",
				 c->device_id[i]);
			return -ENOENT;
		}
		order[i] = (struct member_order){.index = i};
		snprintf(order[i].serial, sizeof(order[i].serial), "%s", fd.row.serial);
	}
	/* The locks in one order (by serial): two groups never wait on each other. */
	qsort(order, c->n, sizeof(order[0]), by_serial);
	for (k = 0; k < c->n; k++) {
		i = order[k].index;
		struct start_call sc = {.svc = p,
					.device_id = c->device_id[i],
					.preset = c->preset,
					.trigger = c->trigger,
					.hold = true};
		r = probe_svc_start_on_loop(&sc);
		if (r < 0) {
			struct fleet_device fd;
			c->ret_refused = c->device_id[i];
			snprintf(c->reason, sizeof(c->reason), "drive %s (%" PRId64 "): %s",
				 fleet_get(p->fleet, c->device_id[i], &fd) == 0 ? fd.row.name : "?",
				 c->device_id[i], sc.reason);
			goto refused;
		}
		job[i] = sc.ret_job;
	}
	g = calloc(1, sizeof(*g));
	r = g ? probe_group_sync_init(&g->sync, c->n) : -ENOMEM;
	if (r < 0) {
		free(g);
		snprintf(c->reason, sizeof(c->reason), "%s", strerror(-r));
		goto refused;
	}
	for (i = 0; i < c->n; i++) {
		job[i]->group = g;
		g->users++;
	}
	/* Every drive passed: on record, and the threads go (they meet at the first phase). */
	for (i = 0; i < c->n; i++) {
		struct probe_dev *d = probe_svc_dev_find(p, c->device_id[i], false);
		char reason[PROBE_REASON_MAX];
		job[i]->plan.together = (unsigned)c->n;
		r = probe_job_launch(p, d, job[i], now, reason);
		job[i] = NULL; /* launched, or discarded */
		if (r < 0) {
			snprintf(c->reason, sizeof(c->reason), "drive %" PRId64 ": %s",
				 c->device_id[i], reason);
			for (k = 0; k < c->n; k++) {
				struct probe_dev *o = probe_svc_dev_find(p, c->device_id[k], false);
				if (k < i && o && o->job && o->job->group == g)
					(void)probe_job_cancel(o->job, "the group could not start");
				probe_job_discard(job[k]);
			}
			return r;
		}
		c->ret_run_id[i] = d->job->out.run.id;
	}
	c->ret_id = g->id;
	log_info("probe group %" PRId64 ": %s on %zu drives together", g->id,
		 probe_preset_get(c->preset)->name, c->n);
	return 0;
refused:
	for (i = 0; i < c->n; i++)
		probe_job_discard(job[i]);
	return r;
}

/* POST /api/v1/probes {"preset": P, "devices": [id, …]} */
void probe_http_group_post(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct probe_svc *p = ctx;
	struct group_call c = {.svc = p, .trigger = "api"};
	struct probe_group_body b;
	char err[API_ERR_MAX];
	size_t i;
	int r;

	if (probe_group_body_parse(req->body, req->body_len, &b, err) < 0)
		return api_reply_error(ret, 400, "%s", err);
	c.preset = b.preset;
	c.n = b.n;
	memcpy(c.device_id, b.device_id, sizeof(c.device_id));
	r = mainq_call(p->mainq, probe_svc_group_start_on_loop, &c);
	if (r == 0) {
		json_t *runs = json_array();
		for (i = 0; runs && i < c.n; i++)
			json_array_append_new(runs, json_pack("{s:I, s:I}", "device_id",
							      (json_int_t)c.device_id[i], "id",
							      (json_int_t)c.ret_run_id[i]));
		ret->status = 202;
		ret->json = json_pack("{s:I, s:s, s:s, s:o}", "group_id", (json_int_t)c.ret_id,
				      "state", "running", "preset",
				      probe_preset_get(c.preset)->name, "runs", runs);
		return;
	}
	if (r == -ECANCELED)
		return api_reply_error(ret, 503, "shutting down");
	if (r == -EINVAL)
		return api_reply_error(ret, 400, "%s", c.reason);
	if (r == -ENOMEM)
		return api_reply_error(ret, 500, "%s", c.reason[0] ? c.reason : strerror(-r));
	/* Refused as a whole: nothing started. */
	api_reply_error(ret, r == -ENOENT ? 404 : 409, "group refused, nothing started: %s",
			c.reason);
	if (ret->json)
		json_object_set_new(ret->json, "device_id", json_integer(c.ret_refused));
}
