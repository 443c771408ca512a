/* SPDX-License-Identifier: MIT */
/*
 * GET /api/v1/fleet's JSON (pure, see fleetview.h): the hosts once per refresh,
 * the status around them per request.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <zlib.h>

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

char *fleetview_render_head(const struct fv_status *s, size_t *ret_len)
{
	const struct fv_view *v = s->view;
	json_t *o = json_object();
	char *head;
	size_t hlen;
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
	hlen = strlen(head);
	if (!s->unchanged) {
		/* {…} becomes {…,"hosts": and the hosts and FLEETVIEW_BODY_TAIL follow. */
		static const char key[] = ",\"hosts\":";
		char *h = realloc(head, hlen + sizeof(key));
		if (!h) {
			free(head);
			return NULL;
		}
		head = h;
		memcpy(head + hlen - 1, key, sizeof(key));
		hlen += sizeof(key) - 2;
	}
	*ret_len = hlen;
	return head;
}

char *fleetview_render_body(const struct fv_status *s, const char *hosts_json, size_t *ret_len)
{
	size_t hlen, alen;
	char *head = fleetview_render_head(s, &hlen), *out;

	if (!head || s->unchanged) {
		if (head)
			*ret_len = hlen;
		return head;
	}
	if (!hosts_json)
		hosts_json = "[]";
	alen = strlen(hosts_json);
	out = realloc(head, hlen + alen + sizeof(FLEETVIEW_BODY_TAIL));
	if (!out) {
		free(head);
		return NULL;
	}
	memcpy(out + hlen, hosts_json, alen);
	memcpy(out + hlen + alen, FLEETVIEW_BODY_TAIL, sizeof(FLEETVIEW_BODY_TAIL));
	*ret_len = hlen + alen + sizeof(FLEETVIEW_BODY_TAIL) - 1;
	return out;
}

/* ---- gzip made once per view ---------------------------------------------- */

/* Raw deflate (no header) of @in onto @out, ended as @flush says. Return: 0 or -ENOMEM. */
static int deflate_raw(const void *in, size_t len, int level, int flush, void **out,
		       size_t *out_len)
{
	z_stream z = {0};
	size_t cap;
	unsigned char *buf;
	int r;

	if (len > UINT_MAX ||
	    deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, (uLong)len) + 16;
	buf = realloc(*out, *out_len + cap);
	if (!buf) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = buf + *out_len;
	z.avail_out = (uInt)cap;
	r = deflate(&z, flush);
	*out = buf;
	*out_len += cap - z.avail_out;
	deflateEnd(&z);
	return (flush == Z_FINISH ? r == Z_STREAM_END : r == Z_OK && z.avail_in == 0) ? 0 : -ENOMEM;
}

int fleetview_deflate_part(const char *text, size_t len, struct fv_deflated *ret)
{
	struct fv_deflated d = {0};

	/* Once per view, so the effort of level 6 pays: 8,000 drives are 3 MB of JSON. */
	if (deflate_raw(text, len, 6, Z_SYNC_FLUSH, &d.data, &d.len) < 0) {
		free(d.data);
		return -ENOMEM;
	}
	d.crc = crc32(crc32(0L, Z_NULL, 0), (const Bytef *)text, (uInt)len);
	d.raw_len = len;
	*ret = d;
	return 0;
}

void fleetview_deflated_free(struct fv_deflated *d)
{
	free(d->data);
	*d = (struct fv_deflated){0};
}

int fleetview_gzip_join(const char *head, size_t head_len, const struct fv_deflated *mid,
			const char *tail, size_t tail_len, void **ret, size_t *ret_len)
{
	static const unsigned char hdr[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
	void *out = malloc(sizeof(hdr));
	size_t len = sizeof(hdr);
	uLong crc = crc32(0L, Z_NULL, 0);
	unsigned char trailer[8];
	uint32_t isize;

	if (!out)
		return -ENOMEM;
	memcpy(out, hdr, sizeof(hdr));
	/* Deflate streams that end on a byte boundary, none final but the last, make one. */
	if (deflate_raw(head, head_len, 1, Z_SYNC_FLUSH, &out, &len) < 0)
		goto fail;
	unsigned char *grown = realloc(out, len + mid->len);
	if (!grown)
		goto fail;
	out = grown;
	memcpy((char *)out + len, mid->data, mid->len);
	len += mid->len;
	if (deflate_raw(tail, tail_len, 1, Z_FINISH, &out, &len) < 0)
		goto fail;
	crc = crc32(crc, (const Bytef *)head, (uInt)head_len);
	crc = crc32_combine(crc, mid->crc, (z_off_t)mid->raw_len);
	crc = crc32_combine(crc, crc32(crc32(0L, Z_NULL, 0), (const Bytef *)tail, (uInt)tail_len),
			    (z_off_t)tail_len);
	isize = (uint32_t)((head_len + mid->raw_len + tail_len) & 0xffffffffu);
	for (int i = 0; i < 4; i++) {
		trailer[i] = (unsigned char)(crc >> (8 * i));
		trailer[4 + i] = (unsigned char)(isize >> (8 * i));
	}
	grown = realloc(out, len + sizeof(trailer));
	if (!grown)
		goto fail;
	out = grown;
	memcpy((char *)out + len, trailer, sizeof(trailer));
	*ret = out;
	*ret_len = len + sizeof(trailer);
	return 0;
fail:
	free(out);
	return -ENOMEM;
}
