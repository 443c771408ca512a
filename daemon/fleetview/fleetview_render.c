/* SPDX-License-Identifier: MIT */
/*
 * GET /api/v1/fleet's JSON (pure, see fleetview.h): the hosts once per refresh,
 * the status around them per request.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "nvmond/fleetview/fleetview.h"
#include "nvmond/util/timefmt.h"

/* A figure: null when unknown, an integer when whole, else two decimals. */
static json_t *figure(double v)
{
	if (!isfinite(v))
		return json_null();
	v = round(v * 100) / 100;
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

/* Seconds since the epoch as RFC 3339 (ms), null when unknown. */
static json_t *time_of(double secs)
{
	char buf[TIMEFMT_MAX];

	if (!isfinite(secs) || secs <= 0)
		return json_null();
	return json_string(timefmt_rfc3339((int64_t)llround(secs * 1000.0), buf));
}

static json_t *time_ms(int64_t ms)
{
	char buf[TIMEFMT_MAX];

	return ms > 0 ? json_string(timefmt_rfc3339(ms, buf)) : json_null();
}

static int set(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v) == 0 ? 0 : -ENOMEM;
}

static json_t *render_drive(const struct fv_drive *d)
{
	json_t *o = json_object(), *alerts = json_array();
	int r = 0;

	if (!o || !alerts) {
		json_decref(o);
		json_decref(alerts);
		return NULL;
	}
	for (size_t i = 0; i < d->n_alerts; i++)
		r |= json_array_append_new(alerts,
					   json_pack("{s:s, s:s}", "rule", d->alerts[i].rule,
						     "severity", d->alerts[i].severity));
	r |= set(o, "device", json_string(d->device));
	r |= set(o, "model", json_string(d->model));
	r |= set(o, "serial", json_string(d->serial));
	r |= set(o, "firmware", json_string(d->firmware));
	r |= set(o, "label", json_string(d->label));
	r |= set(o, "location", json_string(d->location));
	r |= set(o, "verdict", json_string(fleetview_verdict_name(d->verdict)));
	r |= set(o, "problem", json_boolean(fleetview_drive_problem(d)));
	r |= set(o, "temperature_c", figure(d->temperature_c));
	r |= set(o, "wctemp_c", figure(d->wctemp_c));
	r |= set(o, "cctemp_c", figure(d->cctemp_c));
	r |= set(o, "percent_used", figure(d->used_ratio * 100));
	r |= set(o, "tbw_percent", figure(d->tbw_ratio * 100));
	r |= set(o, "up", d->up < 0 ? json_null() : json_boolean(d->up));
	r |= set(o, "last_seen", time_of(d->last_sample));
	r |= set(o, "alerts", alerts);
	if (r) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *render_host(const struct fv_host *h, double eval_ts)
{
	json_t *o = json_object(), *labels = json_object(), *drives = json_array();
	int r = 0;

	if (!o || !labels || !drives) {
		json_decref(o);
		json_decref(labels);
		json_decref(drives);
		return NULL;
	}
	for (size_t i = 0; i < h->n_labels; i++)
		r |= set(labels, h->label_names[i], json_string(h->label_values[i]));
	for (size_t i = 0; i < h->n_drives && !r; i++) {
		json_t *d = render_drive(&h->drives[i]);
		r |= d ? json_array_append_new(drives, d) : -ENOMEM;
	}
	r |= set(o, "host", json_string(h->host[0] ? h->host : h->instance));
	r |= set(o, "job", json_string(h->job));
	r |= set(o, "instance", json_string(h->instance));
	r |= set(o, "host_id", json_string(h->host_id));
	r |= set(o, "public_url", json_string(h->public_url));
	r |= set(o, "labels", labels);
	r |= set(o, "reporting", json_boolean(h->reporting));
	r |= set(o, "last_seen", time_of(h->last_seen));
	r |= set(o, "silent_s",
		 isfinite(h->last_seen) && eval_ts > 0
			 ? figure(eval_ts - h->last_seen > 0 ? eval_ts - h->last_seen : 0)
			 : json_null());
	r |= set(o, "drives_stale", json_boolean(h->drives_stale));
	r |= set(o, "worst", json_string(fleetview_verdict_name(h->worst)));
	r |= set(o, "problems", json_integer((json_int_t)h->problems));
	r |= set(o, "drives", drives);
	if (r) {
		json_decref(o);
		return NULL;
	}
	return o;
}

char *fleetview_render_hosts(const struct fv_view *v)
{
	json_t *a = json_array();
	char *text;

	if (!a)
		return NULL;
	for (size_t i = 0; i < v->n_hosts; i++) {
		json_t *h = render_host(&v->hosts[i], v->eval_ts);
		if (!h || json_array_append_new(a, h) != 0) {
			json_decref(a);
			return NULL;
		}
	}
	text = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return text;
}

char *fleetview_render_body(const struct fv_status *s, const char *hosts_json, size_t *ret_len)
{
	const struct fv_view *v = s->view;
	json_t *o = json_object();
	char *head, *out;
	size_t hlen, alen;
	int r = 0;

	if (!o)
		return NULL;
	r |= set(o, "configured", json_boolean(s->configured));
	r |= set(o, "engine", s->engine ? json_string(s->engine) : json_null());
	r |= set(o, "ok", json_boolean(s->configured && !s->error && v));
	r |= set(o, "error", s->error ? json_string(s->error) : json_null());
	r |= set(o, "error_since", s->error ? time_ms(s->error_since_ms) : json_null());
	r |= set(o, "updated", time_ms(v ? s->updated_ms : 0));
	r |= set(o, "age_ms", v ? json_integer(s->age_ms) : json_null());
	r |= set(o, "interval_ms", json_integer(s->interval_ms));
	r |= set(o, "refreshing", json_boolean(s->refreshing));
	r |= set(o, "stale_after_ms", json_integer(s->stale_after_ms));
	r |= set(o, "query_ms", v ? json_integer(s->query_ms) : json_null());
	r |= set(o, "engine_ms", v ? json_integer(s->engine_ms) : json_null());
	r |= set(o, "hosts_count", json_integer(v ? (json_int_t)v->n_hosts : 0));
	r |= set(o, "drives_count", json_integer(v ? (json_int_t)v->n_drives : 0));
	r |= set(o, "problems", json_integer(v ? (json_int_t)v->n_problems : 0));
	r |= set(o, "not_reporting", json_integer(v ? (json_int_t)v->n_not_reporting : 0));
	if (s->unchanged)
		r |= set(o, "unchanged", json_true());
	head = r ? NULL : json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!head)
		return NULL;
	if (s->unchanged) {
		*ret_len = strlen(head);
		return head;
	}
	/* {…} becomes {…,"hosts":[…]}: the hosts text is spliced in, not parsed again. */
	if (!hosts_json)
		hosts_json = "[]";
	hlen = strlen(head);
	alen = strlen(hosts_json);
	out = malloc(hlen + sizeof(",\"hosts\":") - 1 + alen + 2);
	if (!out) {
		free(head);
		return NULL;
	}
	memcpy(out, head, hlen - 1);
	memcpy(out + hlen - 1, ",\"hosts\":", sizeof(",\"hosts\":") - 1);
	memcpy(out + hlen - 1 + sizeof(",\"hosts\":") - 1, hosts_json, alen);
	memcpy(out + hlen - 1 + sizeof(",\"hosts\":") - 1 + alen, "}", 2);
	free(head);
	*ret_len = hlen - 1 + sizeof(",\"hosts\":") - 1 + alen + 1;
	return out;
}
