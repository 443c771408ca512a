/* SPDX-License-Identifier: MIT */
/*
 * The self-test endpoints (HTTP threads; the service's state through
 * mainq_call()):
 *   GET  /api/v1/devices/{id}/selftests        capability, running, next, history, skips
 *   POST /api/v1/devices/{id}/selftests        {"type": "short"|"extended"[, "nsid": N]}
 *   POST /api/v1/devices/{id}/selftests/abort
 * See docs/api.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "nvmond/analysis/selftest_alert.h"
#include "nvmond/api/api_params.h"
#include "nvmond/api/render.h"
#include "nvmond/api/selftest_render.h"
#include "nvmond/core/log.h"
#include "nvmond/selftest/selftest_body.h"
#include "nvmond/store/store_selftest.h"
#include "nvmond/util/mono_cond.h"
#include "nvmond/util/timefmt.h"

#include "selftest_internal.h"

#define HISTORY_LIMIT_DEFAULT 50
#define HISTORY_LIMIT_MAX     1000
#define SKIPS_LIMIT	      20
#define REQUEST_PING_MS	      1000 /* whether the loop still runs, while a request waits */

static json_t *time_pair(json_t *o, const char *key, const char *key_ms, int64_t ms)
{
	char buf[TIMEFMT_MAX];

	if (o) {
		json_object_set_new(o, key, json_string(timefmt_rfc3339(ms, buf)));
		json_object_set_new(o, key_ms, json_integer(ms));
	}
	return o;
}

/* What the GET needs from the main loop: the drive's schedule. */
struct sched_call {
	struct selftest_svc *t;
	int64_t id;
	char schedule[256];
};

static int sched_on_loop(void *arg)
{
	struct sched_call *c = arg;
	struct stdev *d = selftest_dev_find(c->t, c->id);

	if (d && d->loaded)
		snprintf(c->schedule, sizeof(c->schedule), "%s", d->sched_str);
	return 0;
}

static json_t *running_json(const struct fleet_selftest *st)
{
	if (!st->running)
		return json_null();
	json_t *o = json_pack("{s:s, s:i, s:i, s:o}", "type", selftest_code_name(st->running),
			      "code", st->running, "percent", st->percent, "nsid",
			      st->running_nsid ? json_integer(st->running_nsid) : json_null());
	return time_pair(o, "since", "since_ms", st->running_since_ms);
}

static void selftests_get(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct selftest_svc *t = ctx;
	int64_t limit = HISTORY_LIMIT_DEFAULT;
	const struct api_param params[] = {
		{.name = "limit",
		 .kind = API_PARAM_INT,
		 .min = 1,
		 .max = HISTORY_LIMIT_MAX,
		 .dest.i64 = &limit},
	};
	struct store_selftest_row *rows = NULL;
	struct store_selftest_action *skips = NULL;
	struct sched_call sc = {.t = t, .id = req->id};
	struct fleet_device fd;
	size_t n = 0, n_skips = 0;
	int r;

	if (api_params_parse(req, params, sizeof(params) / sizeof(params[0]), ret) < 0)
		return;
	if (fleet_get(req->fleet, req->id, &fd) < 0)
		return api_reply_error(ret, 404, "no such device");
	if (mainq_call(t->mainq, sched_on_loop, &sc) == -ECANCELED)
		return api_reply_error(ret, 503, "shutting down");
	r = store_selftest_list(req->store, req->id, (size_t)limit, &rows, &n);
	if (r == 0)
		r = store_selftest_actions(req->store, req->id, STORE_SELFTEST_SKIP, SKIPS_LIMIT,
					   &skips, &n_skips);
	if (r < 0) {
		free(rows);
		log_warn("api: reading the self-tests of device %" PRId64 ": %s", req->id,
			 store_strerror(req->store));
		return api_reply_error(ret, 500, "database error");
	}
	const struct fleet_selftest *st = &fd.selftest;
	json_t *hist = json_array(), *skip_arr = json_array(), *last = json_object();
	for (size_t i = 0; hist && i < n; i++)
		json_array_append_new(hist,
				      render_selftest_result(&rows[i].r, rows[i].id,
							     rows[i].seen_ms, rows[i].origin));
	for (size_t i = 0; skip_arr && i < n_skips; i++) {
		json_t *o = json_pack("{s:s, s:s, s:s}", "type", selftest_code_name(skips[i].code),
				      "origin", skips[i].origin, "reason", skips[i].reason);
		json_array_append_new(skip_arr, time_pair(o, "ts", "ts_ms", skips[i].ts_ms));
	}
	/* The last of each type: the newest of the history when it is there. */
	for (int k = 0; last && k < 2; k++) {
		uint8_t code = k ? SELFTEST_CODE_EXTENDED : SELFTEST_CODE_SHORT;
		struct store_selftest_row one;
		json_t *v = json_null();
		if (store_selftest_last_of(req->store, req->id, code, &one) == 0)
			v = render_selftest_result(&one.r, one.id, one.seen_ms, one.origin);
		json_object_set_new(last, k ? "extended" : "short", v);
	}
	free(rows);
	free(skips);
	json_t *supported =
		fd.facts.id_known ? json_boolean(fd.facts.selftest_supported) : json_null();
	const char *why = !fd.facts.id_known		 ? SELFTEST_WHY_UNKNOWN
			  : !fd.facts.selftest_supported ? SELFTEST_WHY_UNSUPPORTED
							 : NULL;
	json_t *next = json_null();
	if (st->next_ms) {
		next = json_pack("{s:s}", "type", selftest_code_name(st->next_code));
		time_pair(next, "at", "at_ms", st->next_ms);
	}
	ret->json =
		json_pack("{s:I, s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:o, s:o}", "device_id",
			  (json_int_t)req->id, "supported", supported, "unsupported_reason",
			  why ? json_string(why) : json_null(), "edstt_min",
			  fd.facts.id_known && fd.facts.edstt_min ? json_integer(fd.facts.edstt_min)
								  : json_null(),
			  "running", running_json(st), "schedule", sc.schedule, "next",
			  next ? next : json_null(), "last", last ? last : json_object(), "history",
			  hist ? hist : json_array(), "skips", skip_arr ? skip_arr : json_array());
	if (!ret->json)
		api_reply_error(ret, 500, "out of memory");
}

/*
 * A start or abort: the HTTP thread waits for its end, which comes on the loop
 * (selftest_svc_request()'s @done) once the drive answered. Shared by both
 * sides (@refs): whichever lets go last frees it.
 */
struct request_call {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int refs;
	bool done;
	int r;
	struct selftest_svc *t;
	int64_t id;
	uint8_t stc;
	uint32_t nsid;
	enum selftest_origin origin;
	uint8_t was_running; /* abort: the test it ended */
	char reason[SELFTEST_SVC_ERR_MAX];
};

static void request_unref(struct request_call *c)
{
	pthread_mutex_lock(&c->mu);
	bool last = --c->refs == 0;
	pthread_mutex_unlock(&c->mu);
	if (last) {
		pthread_cond_destroy(&c->cv);
		pthread_mutex_destroy(&c->mu);
		free(c);
	}
}

/* On the loop: the request ended. */
static void request_done(void *arg, int r, uint8_t ended, const char *reason)
{
	struct request_call *c = arg;

	pthread_mutex_lock(&c->mu);
	c->r = r;
	c->was_running = ended;
	snprintf(c->reason, sizeof(c->reason), "%s", reason ? reason : "");
	c->done = true;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
	request_unref(c);
}

/* Its first step, on the loop: the loop holds it from here to request_done(). */
static int request_on_loop(void *arg)
{
	struct request_call *c = arg;

	pthread_mutex_lock(&c->mu);
	c->refs++;
	pthread_mutex_unlock(&c->mu);
	selftest_svc_request(c->t, c->id, c->stc, c->nsid, c->origin, request_done, c);
	return 0;
}

static int ping_on_loop(void *arg)
{
	(void)arg;
	return 0;
}

/*
 * Send @c to the loop and wait for its end: its @r, or -ECANCELED when the
 * loop stopped first (checked every REQUEST_PING_MS: a loop that stopped
 * never ends it).
 */
static int request_wait(struct request_call *c)
{
	int r = mainq_call(c->t->mainq, request_on_loop, c);

	if (r < 0)
		return r; /* it never ran */
	pthread_mutex_lock(&c->mu);
	while (!c->done) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += REQUEST_PING_MS / 1000;
		if (pthread_cond_timedwait(&c->cv, &c->mu, &ts) != ETIMEDOUT || c->done)
			continue;
		pthread_mutex_unlock(&c->mu);
		r = mainq_call(c->t->mainq, ping_on_loop, NULL);
		pthread_mutex_lock(&c->mu);
		if (r == -ECANCELED && !c->done) {
			pthread_mutex_unlock(&c->mu);
			return -ECANCELED;
		}
	}
	r = c->r;
	pthread_mutex_unlock(&c->mu);
	return r;
}

/* A request for @req's device with @b, on the heap (request_unref()). */
static struct request_call *request_new(struct selftest_svc *t, const struct api_request *req,
					const struct selftest_body *b)
{
	struct request_call *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	*c = (struct request_call){.refs = 1,
				   .t = t,
				   .id = req->id,
				   .stc = b->stc,
				   .nsid = b->nsid,
				   .origin = b->origin};
	pthread_mutex_init(&c->mu, NULL);
	(void)mono_cond_init(&c->cv);
	return c;
}

static void reply_request(struct request_call *c, int r, struct api_reply *ret)
{
	switch (r) {
	case 0:
		if (c->stc == SELFTEST_CODE_ABORT) {
			ret->json = json_pack("{s:{s:s, s:i}}", "aborted", "type",
					      selftest_code_name(c->was_running), "code",
					      c->was_running);
		} else {
			ret->status = 202;
			ret->json = json_pack("{s:{s:s, s:i, s:I}}", "started", "type",
					      selftest_code_name(c->stc), "code", c->stc, "nsid",
					      (json_int_t)c->nsid);
		}
		if (!ret->json)
			api_reply_error(ret, 500, "out of memory");
		return;
	case -ENOENT:
		return api_reply_error(ret, 404, "%s", c->reason);
	case -EINVAL:
		return api_reply_error(ret, 400, "%s", c->reason);
	case -EOPNOTSUPP:
	case -EBUSY:
	case -EALREADY:
	case -ENODEV:
	case -EAGAIN:
	case -ESTALE:
		return api_reply_error(ret, 409, "%s", c->reason);
	case -ECANCELED:
		return api_reply_error(ret, 503, "shutting down");
	default:
		return api_reply_error(ret, 500, "%s", c->reason[0] ? c->reason : strerror(-r));
	}
}

/* POST …/selftests and …/selftests/abort: the HTTP thread waits for the drive, the loop does not. */
static void request_reply(struct selftest_svc *t, const struct api_request *req, bool abort,
			  struct api_reply *ret)
{
	struct request_call *c;
	struct selftest_body b;
	char err[API_ERR_MAX];

	if (selftest_body_parse(req->body, req->body_len, abort, &b, err) < 0)
		return api_reply_error(ret, 400, "%s", err);
	c = request_new(t, req, &b);
	if (!c)
		return api_reply_error(ret, 500, "out of memory");
	int r = request_wait(c);
	reply_request(c, r, ret);
	request_unref(c);
}

static void selftests_post(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	request_reply(ctx, req, false, ret);
}

static void selftests_abort(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	request_reply(ctx, req, true, ret);
}

void selftest_api_init(struct selftest_svc *t)
{
	t->endpoints[0] = (struct api_endpoint){"GET", "/api/v1/devices/{id}/selftests",
						API_EP_STORE | API_EP_QUERY, selftests_get, t};
	t->endpoints[1] = (struct api_endpoint){"POST", "/api/v1/devices/{id}/selftests",
						API_EP_AUTH | API_EP_BODY, selftests_post, t};
	t->endpoints[2] = (struct api_endpoint){"POST", "/api/v1/devices/{id}/selftests/abort",
						API_EP_AUTH | API_EP_BODY, selftests_abort, t};
}
