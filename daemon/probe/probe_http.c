/* SPDX-License-Identifier: MIT */
/*
 * The probe endpoints: list a drive's runs and budget, start a probe, read a
 * run (with the progress of a running one), cancel one. Handlers run on the
 * HTTP threads and reach the service's state through mainq_call().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "nvmond/api/api_params.h"
#include "nvmond/core/log.h"
#include "nvmond/probe/probe_body.h"
#include "nvmond/store/store_probe.h"
#include "nvmond/store/store_probe_group.h"
#include "nvmond/store/store_probe_cache.h"
#include "nvmond/util/timefmt.h"

#include "probe_svc_internal.h"

/* ---- HTTP ---- */

struct budget_call {
	struct probe_svc *svc;
	int64_t device_id;
	json_t *ret;
};

static int budget_on_loop(void *arg)
{
	struct budget_call *c = arg;
	struct fleet_device fd;
	struct cfg_device cd;
	struct probe_budget b;
	uint64_t day = 0, month = 0;
	int64_t now = timefmt_now_ms();
	struct probe_dev *d;

	if (fleet_get(c->svc->fleet, c->device_id, &fd) < 0)
		return -ENOENT;
	cfg_device_for(&c->svc->cfg, fd.row.model, fd.row.serial, &cd);
	probe_budget_for(&cd, fd.row.model, &b);
	if (store_probe_written_since(c->svc->store, c->device_id, now - MS_PER_DAY, &day) < 0 ||
	    store_probe_written_since(c->svc->store, c->device_id, now - 30 * MS_PER_DAY, &month) <
		    0)
		return -EIO;
	d = probe_svc_dev_find(c->svc, c->device_id, false);
	c->ret = json_pack("{s:{s:I, s:I, s:I, s:I}, s:o, s:s}", "budget", "day_bytes",
			   (json_int_t)b.day, "month_bytes", (json_int_t)b.month, "used_day_bytes",
			   (json_int_t)day, "used_month_bytes", (json_int_t)month, "running",
			   d && d->job ? json_integer(d->job->out.run.id) : json_null(),
			   "probe_dir", cd.probe_dir);
	return c->ret ? 0 : -ENOMEM;
}

/*
 * The drive's measured write-cache size: the newest, and its history (each
 * sustained-write that found a cliff), newest first. NULL on an error.
 */
static json_t *write_cache_json(struct store *s, int64_t device_id)
{
	struct probe_cache_row *v = NULL;
	size_t n = 0;
	json_t *hist, *o;

	if (store_probe_cache_sizes(s, device_id, 100, &v, &n) < 0)
		return NULL;
	hist = json_array();
	for (size_t i = 0; hist && i < n; i++) {
		char when[TIMEFMT_MAX];
		json_array_append_new(hist, json_pack("{s:I, s:s, s:I, s:f, s:f}", "run_id",
						      (json_int_t)v[i].run_id, "at",
						      timefmt_rfc3339(v[i].at_ms, when), "bytes",
						      (json_int_t)v[i].bytes, "mb_s_before",
						      v[i].rate_before / 1e6, "mb_s_after",
						      v[i].rate_after / 1e6));
	}
	o = json_pack("{s:o, s:o*}", "bytes",
		      n ? json_integer((json_int_t)v[0].bytes) : json_null(), "history", hist);
	free(v);
	return o;
}

void probe_http_list(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct probe_svc *p = ctx;
	struct budget_call bc = {.svc = p, .device_id = req->id};
	struct probe_run_row *v = NULL;
	size_t n = 0, limit;
	int64_t lim = 50;
	const struct api_param params[] = {
		{.name = "limit", .kind = API_PARAM_INT, .min = 1, .max = 1000, .dest.i64 = &lim},
	};
	int r;

	if (api_params_parse(req, params, sizeof(params) / sizeof(params[0]), ret) < 0)
		return;
	limit = (size_t)lim;
	r = mainq_call(p->mainq, budget_on_loop, &bc);
	if (r == -ENOENT)
		return api_reply_error(ret, 404, "no such device");
	if (r < 0)
		return api_reply_error(ret, r == -ECANCELED ? 503 : 500, "%s", strerror(-r));
	r = store_probe_runs_list(req->store, req->id, limit, &v, &n);
	if (r < 0) {
		json_decref(bc.ret);
		return api_reply_error(ret, 500, "database error");
	}
	json_t *runs = json_array();
	for (size_t i = 0; runs && i < n; i++) {
		json_t *o = probe_run_json(&v[i]);
		int64_t gid = 0;
		/* The group run it belongs to, so the dashboard lists it (issue 13). */
		if (o && store_probe_group_of(req->store, v[i].id, &gid) < 0)
			gid = 0;
		if (o)
			json_object_set_new(o, "group_id", gid ? json_integer(gid) : json_null());
		json_array_append_new(runs, o);
	}
	free(v);
	json_t *presets = json_array();
	for (size_t i = 0; presets && i < _PROBE_PRESET_MAX; i++)
		json_array_append_new(presets, json_string(probe_preset_get(i)->name));
	json_object_set_new(bc.ret, "device_id", json_integer(req->id));
	json_object_set_new(bc.ret, "presets", presets);
	json_object_set_new(bc.ret, "probes", runs);
	json_t *cache = write_cache_json(req->store, req->id);
	if (!cache) {
		json_decref(bc.ret);
		return api_reply_error(ret, 500, "database error");
	}
	json_object_set_new(bc.ret, "write_cache", cache);
	ret->json = bc.ret;
}

static struct probe_job_ctx *job_find(struct probe_svc *p, int64_t run_id)
{
	for (size_t i = 0; i < p->n_dev; i++)
		if (p->dev[i].job && p->dev[i].job->out.run.id == run_id)
			return p->dev[i].job;
	return NULL;
}

struct progress_call {
	struct probe_svc *svc;
	int64_t run_id;
	struct probe_progress ret;
};

/* A copy of a running probe's progress: -ESRCH when it runs no more. */
static int progress_on_loop(void *arg)
{
	struct progress_call *c = arg;
	struct probe_job_ctx *j = job_find(c->svc, c->run_id);
	int r;

	if (!j)
		return -ESRCH;
	pthread_mutex_lock(&j->lock);
	r = probe_progress_copy(&j->prog, &c->ret);
	pthread_mutex_unlock(&j->lock);
	return r;
}

struct rated_call {
	struct probe_svc *svc;
	int64_t device_id;
	struct probe_rated ret;
};

/* The drive's rating as configured now (the configuration lives on the loop). */
static int rated_on_loop(void *arg)
{
	struct rated_call *c = arg;
	struct fleet_device fd;

	if (fleet_get(c->svc->fleet, c->device_id, &fd) < 0)
		return -ENOENT;
	probe_rated_for(&c->svc->cfg, fd.row.model, fd.row.serial, &c->ret);
	return 0;
}

void probe_http_get(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct probe_svc *p = ctx;
	struct progress_call pc = {.svc = p, .run_id = req->id};
	json_t *o = NULL;
	int r = probe_run_detail_json(req->store, req->id, true, &o);

	if (r == -ENOENT)
		return api_reply_error(ret, 404, "no such probe");
	if (r < 0)
		return api_reply_error(ret, 500, "database error");
	struct rated_call rc = {.svc = p,
				.device_id = json_integer_value(json_object_get(o, "device_id"))};
	if (mainq_call(p->mainq, rated_on_loop, &rc) < 0)
		rc.ret = (struct probe_rated){0};
	if (probe_series_json_add(req->store, &rc.ret, o) < 0 ||
	    probe_group_json_add(req->store, o) < 0) {
		json_decref(o);
		return api_reply_error(ret, 500, "database error");
	}
	/* Its phases are stored when it ends; until then, where it is. */
	if (!strcmp(json_string_value(json_object_get(o, "state")) ?: "", "running") &&
	    mainq_call(p->mainq, progress_on_loop, &pc) == 0) {
		json_t *prog = probe_progress_json(&pc.ret);
		probe_progress_clear(&pc.ret);
		if (prog)
			json_object_set_new(o, "progress", prog);
	}
	ret->json = o;
}

struct cancel_call {
	struct probe_svc *svc;
	int64_t run_id;
};

static int cancel_on_loop(void *arg)
{
	struct cancel_call *c = arg;
	struct probe_job_ctx *j = job_find(c->svc, c->run_id);

	/* A run of a series, or the series by its id: the series stops. */
	for (size_t i = 0; i < c->svc->n_dev; i++)
		if (probe_series_cancel(c->svc, &c->svc->dev[i], c->run_id,
					"cancelled through the API")) {
			log_info("probe series: cancel requested through the API (run %" PRId64 ")",
				 c->run_id);
			return 0;
		}
	/* A member of a group, or the group by its id: every member stops. */
	bool group = false;
	for (size_t i = 0; i < c->svc->n_dev; i++) {
		struct probe_job_ctx *m = c->svc->dev[i].job;
		if (!m || !m->group || !(m->group->id == c->run_id || (j && j->group == m->group)))
			continue;
		group = true;
		if (probe_job_cancel(m, "the group was cancelled through the API"))
			log_info("probe %" PRId64 " (group %" PRId64
				 "): cancel requested through the API",
				 m->out.run.id, m->group->id);
	}
	if (group)
		return 0;
	if (!j)
		return -ESRCH;
	if (probe_job_cancel(j, "cancelled through the API"))
		log_info("probe %" PRId64 ": cancel requested through the API", c->run_id);
	return 0;
}

void probe_http_cancel(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct probe_svc *p = ctx;
	struct cancel_call c = {.svc = p, .run_id = req->id};
	json_t *o = NULL;
	int r = mainq_call(p->mainq, cancel_on_loop, &c);

	if (r == 0) {
		ret->status = 202;
		ret->json =
			json_pack("{s:I, s:s}", "id", (json_int_t)req->id, "state", "cancelling");
		return;
	}
	if (r == -ECANCELED)
		return api_reply_error(ret, 503, "shutting down");
	r = probe_run_detail_json(req->store, req->id, false, &o);
	if (r == -ENOENT)
		return api_reply_error(ret, 404, "no such probe");
	if (r < 0)
		return api_reply_error(ret, 500, "database error");
	api_reply_error(ret, 409, "probe %" PRId64 " is not running (%s)", req->id,
			json_string_value(json_object_get(o, "state")) ?: "?");
	json_decref(o);
}

/* The schedule of a cache-recovery study just started. */
static json_t *study_json(const struct probe_study *st, int64_t id)
{
	json_t *iv = json_array();

	for (size_t i = 0; iv && i < st->n_intervals; i++)
		json_array_append_new(iv, json_real((double)st->interval_ms[i] / 1000.0));
	return json_pack("{s:I, s:I, s:I, s:I, s:f, s:I, s:o*}", "id", (json_int_t)id, "of",
			 (json_int_t)(st->n_intervals + 1), "cache_bytes",
			 (json_int_t)st->cache_bytes, "fill_bytes", (json_int_t)st->fill_bytes,
			 "pre_cliff_mb_s", st->pre_rate / 1e6, "burst_bytes",
			 (json_int_t)st->burst_bytes, "intervals_s", iv);
}

void probe_http_post(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct probe_svc *p = ctx;
	struct start_call c = {.svc = p, .device_id = req->id, .trigger = "api"};
	struct probe_body b;
	char err[API_ERR_MAX];
	int r;

	if (probe_body_parse(req->body, req->body_len, req->id, &b, err) < 0)
		return api_reply_error(ret, 400, "%s", err);
	c.preset = b.preset;
	c.repeat = b.repeat;
	c.cooldown_ms = b.cooldown_ms;
	c.to_device_id = b.to_device_id;
	r = mainq_call(p->mainq, probe_svc_start_on_loop, &c);
	switch (r) {
	case 0:
		ret->status = 202;
		ret->json = json_pack("{s:I, s:s, s:s}", "id", (json_int_t)c.ret_id, "state",
				      "running", "preset", probe_preset_get(c.preset)->name);
		if (ret->json && probe_preset_get(c.preset)->study)
			json_object_set_new(ret->json, "study", study_json(&c.ret_study, c.ret_id));
		else if (ret->json && c.repeat > 1)
			json_object_set_new(ret->json, "series",
					    json_pack("{s:I, s:I, s:I}", "id", (json_int_t)c.ret_id,
						      "of", (json_int_t)c.repeat, "cooldown_ms",
						      (json_int_t)c.cooldown_ms));
		return;
	case -ENOENT:
		return api_reply_error(ret, 404, "%s", c.reason);
	case -EINVAL:
		if (c.to_device_id) /* the drive to copy to: none, or offline */
			return api_reply_error(ret, 400, "%s", c.reason);
		return api_reply_error(ret, 500, "%s", c.reason);
	case -EALREADY:
	case -ENODEV:
	case -ENODATA: /* cache-recovery: no write-cache size measured */
	case -EBUSY:   /* a device self-test runs */
	case -EAGAIN:
		if (r == -EAGAIN && probe_preset_get(c.preset)->sustained &&
		    strstr(c.reason, "sustained_every"))
			return api_reply_error(ret, 429, "%s", c.reason);
		return api_reply_error(ret, 409, "%s", c.reason);
	case -EDQUOT:
		return api_reply_error(ret, 429, "%s", c.reason);
	case -EPERM:
		return api_reply_error(ret, 403, "%s", c.reason);
	case -ECANCELED:
		return api_reply_error(ret, 503, "shutting down");
	default:
		return api_reply_error(ret, 500, "%s", c.reason[0] ? c.reason : strerror(-r));
	}
}
