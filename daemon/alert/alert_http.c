/* SPDX-License-Identifier: MIT */
/*
 * The alerts service's HTTP endpoints: a device's throttle events
 * (/api/v1/devices/{id}/events), the active alerts and their history with the
 * sinks' counters (/api/v1/alerts), acknowledging an alert and sending a test
 * notification, and their JSON. They run on the HTTP threads: reads go through
 * the request's own store handle, the ack reaches the main loop through
 * mainq_call(). See alert_svc_internal.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/api/api_params.h"
#include "nvmond/api/drive_api.h"
#include "nvmond/core/log.h"
#include "nvmond/store/store_alert.h"
#include "nvmond/util/timefmt.h"
#include "nvmond/util/utf8.h"
#include "alert_svc_internal.h"

#define EVENTS_DEFAULT_SPAN_MS (7 * 24 * 3600 * 1000LL)
#define EVENTS_LIMIT_MAX       10000
#define HISTORY_DEFAULT	       100

static json_t *time_or_null(int64_t ms)
{
	char buf[TIMEFMT_MAX];

	return ms ? json_string(timefmt_rfc3339(ms, buf)) : json_null();
}

static json_t *event_json(const struct throttle_event *ev)
{
	return json_pack("{s:I, s:s, s:s, s:o, s:o, s:b, s:I, s:I, s:I, s:o, s:b, s:b}", "id",
			 (json_int_t)ev->id, "source", "throttle", "kind",
			 throttle_kind_name(ev->kind), "start", time_or_null(ev->start_ms), "end",
			 time_or_null(ev->end_ms), "ongoing", ev->end_ms == 0, "duration_s",
			 (json_int_t)ev->duration_s, "transitions", (json_int_t)ev->transitions,
			 "peak_k", (json_int_t)ev->peak_k, "peak_c",
			 ev->peak_k ? json_integer(ev->peak_k - 273) : json_null(), "late",
			 ev->late, "counter_reset", ev->counter_reset);
}

static void handle_events(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	(void)ctx;
	struct api_samples_query q = {.to_ms = req->now_ms};
	int64_t limit = EVENTS_LIMIT_MAX;
	bool has_from;
	/* Issue 27: ?kind=a,b (throttle kinds and the event log's) and ?source. */
	static const char *const sources[] = {"all", "throttle", "pel", NULL};
	const char *kind = NULL;
	int source = 0;
	const struct api_param params[] = {
		{.name = "from",
		 .kind = API_PARAM_TIME,
		 .dest.i64 = &q.from_ms,
		 .given = &has_from},
		{.name = "to", .kind = API_PARAM_TIME, .dest.i64 = &q.to_ms},
		{.name = "limit",
		 .kind = API_PARAM_INT,
		 .min = 1,
		 .max = EVENTS_LIMIT_MAX,
		 .dest.i64 = &limit},
		{.name = "kind", .kind = API_PARAM_STRING, .dest.str = &kind},
		{.name = "source", .kind = API_PARAM_ENUM, .names = sources, .dest.index = &source},
	};
	struct throttle_event *v = NULL;
	struct store_pel_row *pv = NULL;
	struct fleet_device fd;
	struct drive_kinds kinds;
	char err[256];
	size_t n = 0, np = 0;
	int r;

	if (api_params_parse(req, params, sizeof(params) / sizeof(params[0]), ret) < 0)
		return;
	if (drive_kinds_parse(kind, &kinds, err, sizeof(err)) < 0)
		return api_reply_error(ret, 400, "%s", err);
	if (!has_from)
		q.from_ms = q.to_ms - EVENTS_DEFAULT_SPAN_MS;
	if (q.from_ms > q.to_ms)
		return api_reply_error(ret, 400, "parameter 'from' is after 'to'");
	q.limit = (size_t)limit;
	if (fleet_get(req->fleet, req->id, &fd) < 0)
		return api_reply_error(ret, 404, "no such device");
	r = source == 2
		    ? 0
		    : store_events_range(req->store, req->id, q.from_ms, q.to_ms, q.limit, &v, &n);
	if (r == 0 && source != 1 && (kinds.all || kinds.n_pel))
		r = store_pel_range(req->store, req->id, q.from_ms, q.to_ms,
				    kinds.all ? STORE_PEL_ALL_KINDS : kinds.pel, q.limit, &pv, &np);
	if (r < 0) {
		free(v);
		log_errno(LOG_LVL_WARNING, -r, "api: reading the events of device %" PRId64,
			  req->id);
		return api_reply_error(ret, 500, "database error");
	}
	/* Both kinds of events by start time, oldest first, at most limit of them. */
	json_t *arr = json_array();
	size_t i = 0, k = 0;
	while ((i < n || k < np) && json_array_size(arr) < q.limit) {
		bool take_pel = k < np && (i == n || pv[k].ts_ms < v[i].start_ms);
		if (take_pel) {
			json_array_append_new(arr, render_pel_event(&pv[k++]));
			continue;
		}
		if (kinds.all || kinds.throttle[v[i].kind])
			json_array_append_new(arr, event_json(&v[i]));
		i++;
	}
	free(v);
	free(pv);
	/* The range's ends are times, 0 (1970) too, as every other endpoint gives them. */
	char from[TIMEFMT_MAX], to[TIMEFMT_MAX];
	ret->json = json_pack("{s:I, s:s, s:s, s:o}", "device_id", (json_int_t)req->id, "from",
			      timefmt_rfc3339(q.from_ms, from), "to", timefmt_rfc3339(q.to_ms, to),
			      "events", arr);
}

/*
 * @s as a JSON string even when it is not valid UTF-8 (a message an older
 * nvmond cut inside a character, a broken drive's serial): jansson refuses
 * those, and the whole alert would drop out of the answer. Bytes that are not
 * UTF-8 become U+FFFD (utf8_copy()). NULL only when out of memory.
 */
static json_t *text_json(const char *s)
{
	json_t *j = json_string(s);
	size_t size = strlen(s) * 3 + 1; /* each byte at worst U+FFFD */
	char *buf;

	if (j)
		return j;
	buf = malloc(size);
	if (!buf)
		return NULL;
	utf8_copy(buf, size, s);
	j = json_string(buf);
	free(buf);
	return j;
}

/* NULL only when out of memory. */
static json_t *alert_json(struct fleet *f, const struct alert_row *r)
{
	struct fleet_device fd;
	bool known = fleet_get(f, r->device_id, &fd) == 0;

	return json_pack(
		"{s:I, s:I, s:o, s:o, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "id",
		(json_int_t)r->id, "device_id", (json_int_t)r->device_id, "device",
		text_json(known ? fd.row.name : ""), "serial",
		text_json(known ? fd.row.serial : ""), "rule", alert_rule_name(r->rule), "severity",
		alert_severity_name(r->severity), "state", r->firing ? "firing" : "resolved",
		"message", text_json(r->message), "started", time_or_null(r->started_ms), "updated",
		time_or_null(r->updated_ms), "resolved", time_or_null(r->resolved_ms), "acked",
		time_or_null(r->acked_ms), "notified", time_or_null(r->notified_ms));
}

/* Each of the @n alerts @v as JSON into the array @arr. Return: 0, or -ENOMEM. */
static int alerts_append(json_t *arr, struct fleet *f, const struct alert_row *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!arr || json_array_append_new(arr, alert_json(f, &v[i])) < 0)
			return -ENOMEM;
	return 0;
}

static json_t *stats_json(const struct alert_sink_stats *s)
{
	return json_pack("{s:s, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s}", "type", s->type,
			 "enabled", s->enabled, "queued", (json_int_t)s->queued, "delivered",
			 (json_int_t)s->delivered, "failed", (json_int_t)s->failed, "dropped",
			 (json_int_t)s->dropped, "retries", (json_int_t)s->retries, "resent",
			 (json_int_t)s->resent, "pending", (json_int_t)s->pending, "last_error",
			 s->last_error);
}

/*
 * Each sink by name with its counters (never its settings: they may hold
 * secrets). "exec" and "webhook" are there even when not configured, as before
 * named sinks, with enabled false.
 */
static json_t *sinks_json(struct alert_svc *a)
{
	struct alert_sink_stats v[ALERT_SINKS_MAX];
	size_t n = alert_sinks_stats(a->sinks, v);
	json_t *j = json_pack("{s:{s:b}}", "journal", "enabled", 1);

	for (size_t i = 0; j && i < n; i++)
		json_object_set_new(j, v[i].name, stats_json(&v[i]));
	for (int k = 0; j && k < 2; k++) {
		const char *name = k ? "webhook" : "exec";
		if (!json_object_get(j, name)) {
			struct alert_sink_stats off = {.enabled = false};
			snprintf(off.type, sizeof(off.type), "%s", name);
			json_object_set_new(j, name, stats_json(&off));
		}
	}
	return j;
}

static void handle_alerts(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct alert_svc *a = ctx;
	struct alert_row *act = NULL, *hist = NULL;
	size_t n_act = 0, n_hist = 0;
	int64_t limit = HISTORY_DEFAULT;
	const struct api_param params[] = {
		{.name = "limit",
		 .kind = API_PARAM_INT,
		 .min = 1,
		 .max = EVENTS_LIMIT_MAX,
		 .dest.i64 = &limit},
	};
	int r;

	if (api_params_parse(req, params, sizeof(params) / sizeof(params[0]), ret) < 0)
		return;
	r = store_alerts_list(req->store, true, 0, &act, &n_act);
	if (r == 0)
		r = store_alerts_list(req->store, false, (size_t)limit, &hist, &n_hist);
	if (r < 0) {
		free(act);
		log_errno(LOG_LVL_WARNING, -r, "api: reading alerts");
		return api_reply_error(ret, 500, "database error");
	}
	json_t *ja = json_array(), *jh = json_array();
	/* An alert missing from the answer would be a lie: all of them, or a 500. */
	r = alerts_append(ja, req->fleet, act, n_act);
	if (r == 0)
		r = alerts_append(jh, req->fleet, hist, n_hist);
	free(act);
	free(hist);
	if (r < 0) {
		json_decref(ja);
		json_decref(jh);
		return api_reply_error(ret, 500, "out of memory");
	}
	ret->json =
		json_pack("{s:o, s:o, s:o}", "active", ja, "history", jh, "sinks", sinks_json(a));
}

struct ack_call {
	struct alert_svc *a;
	int64_t id, now_ms;
	struct alert_row row;
};

/* On the main loop: the writer store and the slots are ours here. */
static int ack_on_loop(void *arg)
{
	struct ack_call *c = arg;
	int r = store_alert_ack(c->a->store, c->id, c->now_ms);

	if (r < 0)
		return r;
	r = store_alert_get(c->a->store, c->id, &c->row);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->a->n_devs; i++)
		for (int k = 0; k < _ALERT_RULE_MAX; k++)
			if (c->a->devs[i].slots[k].firing &&
			    c->a->devs[i].slots[k].alert_id == c->id)
				c->a->devs[i].slots[k].acked = true;
	return 0;
}

static void handle_ack(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct ack_call c = {.a = ctx, .id = req->id, .now_ms = req->now_ms};
	int r = mainq_call(c.a->mainq, ack_on_loop, &c);

	if (r == -ENOENT)
		return api_reply_error(ret, 404, "no such alert");
	if (r < 0) {
		log_errno(LOG_LVL_WARNING, -r, "api: acknowledging alert %" PRId64, req->id);
		return api_reply_error(ret, r == -ECANCELED ? 503 : 500, "cannot acknowledge: %s",
				       strerror(-r));
	}
	log_info("alert %" PRId64 " (%s) acknowledged", c.id, alert_rule_name(c.row.rule));
	ret->json = alert_json(req->fleet, &c.row);
	if (!ret->json)
		api_reply_error(ret, 500, "out of memory"); /* never a 200 with {} */
}

struct test_fill {
	struct alert_svc *a;
	struct alert_note *n;
	int64_t now_ms;
};

/* On the main loop: the note names this host as the running configuration does. */
static int test_fill_on_main(void *arg)
{
	struct test_fill *t = arg;

	alert_svc_note_fill(t->n, &t->a->cfg, NULL, "test", "info", "test",
			    "test notification from nvmond (POST /api/v1/alerts/test)", t->now_ms,
			    t->now_ms);
	return 0;
}

static void handle_test(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct alert_svc *a = ctx;
	struct alert_note n;
	const char *sink = NULL;
	const struct api_param params[] = {
		{.name = "sink", .kind = API_PARAM_STRING, .dest.str = &sink},
	};
	int accepted;

	if (api_params_parse(req, params, sizeof(params) / sizeof(params[0]), ret) < 0)
		return;
	int r = mainq_call(a->mainq, test_fill_on_main,
			   &(struct test_fill){.a = a, .n = &n, .now_ms = req->now_ms});
	if (r < 0)
		return api_reply_error(ret, 503, "%s", strerror(-r));
	snprintf(n.device, sizeof(n.device), "-");
	if (sink) {
		r = alert_sinks_send_to(a->sinks, sink, &n);
		if (r == -ENOENT)
			return api_reply_error(ret, 404, "no such sink");
		if (r < 0)
			return api_reply_error(ret, 503, "the sink's queue is full");
		log_warn("alert test (sink %s): %s", sink, n.message);
		accepted = 1;
	} else {
		log_warn("alert test: %s", n.message);
		accepted = alert_sinks_send(a->sinks, &n);
	}
	ret->json = json_pack("{s:s, s:i, s:o}", "sent", "journal", "queued_sinks", accepted,
			      "sinks", sinks_json(a));
}

void alert_svc_endpoints_init(struct alert_svc *a)
{
	a->endpoints[0] = (struct api_endpoint){"GET", "/api/v1/devices/{id}/events",
						API_EP_STORE | API_EP_QUERY, handle_events, a};
	a->endpoints[1] = (struct api_endpoint){"GET", "/api/v1/alerts",
						API_EP_STORE | API_EP_QUERY, handle_alerts, a};
	a->endpoints[2] = (struct api_endpoint){"POST", "/api/v1/alerts/{id}/ack", API_EP_AUTH,
						handle_ack, a};
	a->endpoints[3] = (struct api_endpoint){"POST", "/api/v1/alerts/test",
						API_EP_AUTH | API_EP_QUERY, handle_test, a};
}
