/* SPDX-License-Identifier: MIT */
/*
 * The requests of the HTTP sink types, each as its service documents it. Pure:
 * a notification, the sink's settings and a context in, a request out.
 *
 *   ntfy          POST <url>: body the message; Title, Priority (1-5), Tags;
 *                 Authorization: Bearer <token> when a token is set
 *                 (https://docs.ntfy.sh/publish/).
 *   gotify        POST <url>/message, X-Gotify-Key: <token>, JSON title / message /
 *                 priority (https://gotify.net/docs/pushmsg).
 *   slack         POST <url> (incoming webhook), JSON text + blocks
 *                 (https://api.slack.com/messaging/webhooks).
 *   discord       POST <url> (execute webhook), JSON content + one embed whose color
 *                 follows the severity (https://discord.com/developers/docs/resources/webhook).
 *   telegram      POST <api_url>/bot<token>/sendMessage, JSON chat_id / text
 *                 (https://core.telegram.org/bots/api#sendmessage).
 *   alertmanager  POST <url>/api/v2/alerts, a JSON list of one postable alert: labels,
 *                 annotations, startsAt, endsAt (Alertmanager's OpenAPI spec); endsAt is
 *                 the resolve time, or while firing now + 4 resend intervals, as
 *                 Prometheus sets it, so a silent nvmond lets the alert expire.
 *   webhook       POST <url>, nvmond's own JSON (alert_note_json()).
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "nvmond/util/timefmt.h"
#include "sink_internal.h"

void sink_request_free(struct sink_request *r)
{
	if (!r)
		return;
	free(r->url);
	for (size_t i = 0; i < r->n_headers; i++)
		free(r->headers[i]);
	free(r->body);
	memset(r, 0, sizeof(*r));
}

static __attribute__((format(printf, 2, 3))) int header_add(struct sink_request *r, const char *fmt,
							    ...)
{
	va_list ap;
	char *h = NULL;

	if (r->n_headers == SINK_HEADERS_MAX)
		return -ENOBUFS;
	va_start(ap, fmt);
	int k = vasprintf(&h, fmt, ap);
	va_end(ap);
	if (k < 0)
		return -ENOMEM;
	/* A header is one line: control characters from a note become spaces. */
	for (char *p = h; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	r->headers[r->n_headers++] = h;
	return 0;
}

static bool is(const struct alert_note *n, const char *state)
{
	return strcmp(n->state, state) == 0;
}

/* "[WARNING] throttling on nvme0 "bay 3" at rack 12 (Samsung SSD 950 PRO, serial S2GM…)" */
static void title_of(const struct alert_note *n, char *buf, size_t size)
{
	char tag[16], drive[2 * CFG_DEVICE_TEXT_MAX + 128];
	const char *t = is(n, "resolved") ? "resolved" : is(n, "test") ? "test" : n->severity;
	size_t i;

	for (i = 0; t[i] && i < sizeof(tag) - 1; i++)
		tag[i] = (char)(t[i] >= 'a' && t[i] <= 'z' ? t[i] - 32 : t[i]);
	tag[i] = '\0';
	snprintf(buf, size, "[%s] %s on %s", tag, n->rule,
		 alert_note_drive(n, drive, sizeof(drive)));
}

/*
 * A header value as RFC 2047 (section 4.1, the "B" encoding) when it is not
 * ASCII (a drive's label in UTF-8): ntfy decodes such a Title.
 */
static void header_text(const char *s, char *buf, size_t size)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), o;
	bool ascii = true;

	for (size_t i = 0; i < len; i++)
		ascii &= p[i] < 0x80;
	if (ascii) {
		snprintf(buf, size, "%s", s);
		return;
	}
	o = (size_t)snprintf(buf, size, "=?UTF-8?B?");
	for (size_t i = 0; i < len && o + 4 + 2 < size; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < len ? p[i + 2] : 0);
		buf[o++] = b64[v >> 18 & 63];
		buf[o++] = b64[v >> 12 & 63];
		buf[o++] = i + 1 < len ? b64[v >> 6 & 63] : '=';
		buf[o++] = i + 2 < len ? b64[v & 63] : '=';
	}
	snprintf(buf + o, size - o, "?=");
}

/* <base> + <suffix>, without a doubled '/'. */
static char *url_join(const char *base, const char *suffix)
{
	size_t len = strlen(base);
	char *u = NULL;

	while (len > 0 && base[len - 1] == '/')
		len--;
	return asprintf(&u, "%.*s%s", (int)len, base, suffix) < 0 ? NULL : u;
}

/* ntfy priority: 5 (max) critical, 4 (high) warning, 3 (default) otherwise. */
int sink_ntfy_priority(const struct alert_note *n)
{
	if (is(n, "resolved") || is(n, "test"))
		return 3;
	return !strcmp(n->severity, "critical") ? 5 : !strcmp(n->severity, "warning") ? 4 : 3;
}

/* Gotify priority: 8 (pop-up) critical, 5 (sound) warning, 2 (quiet) otherwise. */
int sink_gotify_priority(const struct alert_note *n)
{
	if (is(n, "resolved") || is(n, "test"))
		return 2;
	return !strcmp(n->severity, "critical") ? 8 : !strcmp(n->severity, "warning") ? 5 : 2;
}

/* Discord embed colour: red critical, orange warning, green resolved, blue otherwise. */
int sink_discord_color(const struct alert_note *n)
{
	if (is(n, "resolved"))
		return 0x2ECC71;
	return !strcmp(n->severity, "critical")	 ? 0xE74C3C
	       : !strcmp(n->severity, "warning") ? 0xE67E22
						 : 0x3498DB;
}

/* ntfy tag that its clients show as an emoji. */
static const char *ntfy_emoji(const struct alert_note *n)
{
	if (is(n, "resolved"))
		return "white_check_mark";
	if (is(n, "test"))
		return "test_tube";
	return !strcmp(n->severity, "critical")	 ? "rotating_light"
	       : !strcmp(n->severity, "warning") ? "warning"
						 : "information_source";
}

/* Slack mrkdwn: &, < and > are control characters and must be escaped. */
static void slack_escape(const char *s, char *buf, size_t size)
{
	size_t o = 0;

	for (; *s && o + 6 < size; s++) {
		const char *e = *s == '&'   ? "&amp;"
				: *s == '<' ? "&lt;"
				: *s == '>' ? "&gt;"
					    : NULL;
		if (e) {
			memcpy(buf + o, e, strlen(e));
			o += strlen(e);
		} else {
			buf[o++] = *s;
		}
	}
	buf[o] = '\0';
}

static int body_take(struct sink_request *r, json_t *j)
{
	if (!j)
		return -ENOMEM;
	r->body = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	if (!r->body)
		return -ENOMEM;
	return header_add(r, "Content-Type: application/json");
}

static int fmt_ntfy(const struct sink_conf *c, const struct alert_note *n, const char *title,
		    struct sink_request *r)
{
	const char *token = sink_conf_get(c, "token"), *tags = sink_conf_get(c, "tags");
	int e;

	r->url = strdup(sink_conf_get(c, "url"));
	r->body = strdup(n->message[0] ? n->message : title);
	if (!r->url || !r->body)
		return -ENOMEM;
	char enc[1024];
	header_text(title, enc, sizeof(enc));
	e = header_add(r, "Title: %s", enc);
	if (!e)
		e = header_add(r, "Priority: %d", sink_ntfy_priority(n));
	if (!e)
		e = header_add(r, "Tags: %s,nvmond,%s%s%s", ntfy_emoji(n), n->rule, tags ? "," : "",
			       tags ? tags : "");
	if (!e && token)
		e = header_add(r, "Authorization: Bearer %s", token);
	if (!e)
		e = header_add(r, "Content-Type: text/plain; charset=utf-8");
	return e;
}

static int fmt_gotify(const struct sink_conf *c, const struct alert_note *n, const char *title,
		      struct sink_request *r)
{
	r->url = url_join(sink_conf_get(c, "url"), "/message");
	if (!r->url)
		return -ENOMEM;
	int e = header_add(r, "X-Gotify-Key: %s", sink_conf_get(c, "token"));
	if (e)
		return e;
	return body_take(r, json_pack("{s:s, s:s, s:i}", "title", title, "message",
				      n->message[0] ? n->message : title, "priority",
				      sink_gotify_priority(n)));
}

static int fmt_slack(const struct sink_conf *c, const struct alert_note *n, const char *title,
		     struct sink_request *r)
{
	char drive[2 * CFG_DEVICE_TEXT_MAX + 128], body[sizeof(n->message) + sizeof(drive) + 2];
	char text[sizeof(body) * 5 + 1], ctx[256], esc_ctx[sizeof(ctx) * 5 + 1], hdr[151];
	char when[TIMEFMT_MAX];

	r->url = strdup(sink_conf_get(c, "url"));
	if (!r->url)
		return -ENOMEM;
	/* The header block holds 150 characters: the drive, label and location go here too. */
	snprintf(body, sizeof(body), "%s\n%s", n->message[0] ? n->message : n->rule,
		 alert_note_drive(n, drive, sizeof(drive)));
	slack_escape(body, text, sizeof(text));
	snprintf(ctx, sizeof(ctx), "nvmond%s%s · %s · %s · %s", n->host[0] ? " on " : "", n->host,
		 n->rule, n->state, timefmt_rfc3339(n->ts_ms, when));
	slack_escape(ctx, esc_ctx, sizeof(esc_ctx));
	/* A header block holds 150 characters. */
	snprintf(hdr, sizeof(hdr), "%.*s", (int)sizeof(hdr) - 1, title);
	return body_take(r, json_pack("{s:s++, s:[{s:s, s:{s:s, s:s}}, {s:s, s:{s:s, s:s}}, "
				      "{s:s, s:[{s:s, s:s}]}]}",
				      "text", title, ": ", n->message, "blocks", "type", "header",
				      "text", "type", "plain_text", "text", hdr, "type", "section",
				      "text", "type", "mrkdwn", "text", text, "type", "context",
				      "elements", "type", "mrkdwn", "text", esc_ctx));
}

static int fmt_discord(const struct sink_conf *c, const struct alert_note *n, const char *title,
		       struct sink_request *r)
{
	char when[TIMEFMT_MAX], drive[2 * CFG_DEVICE_TEXT_MAX + 128];

	r->url = strdup(sink_conf_get(c, "url"));
	if (!r->url)
		return -ENOMEM;
	alert_note_drive(n, drive, sizeof(drive));
	/* allowed_mentions: text from a drive never pings anyone. */
	return body_take(r,
			 json_pack("{s:s, s:{s:[]}, s:[{s:s, s:s, s:i, s:s, s:[{s:s, s:s, s:b}, "
				   "{s:s, s:s, s:b}, {s:s, s:s, s:b}]}]}",
				   "content", title, "allowed_mentions", "parse", "embeds", "title",
				   title, "description", n->message[0] ? n->message : title,
				   "color", sink_discord_color(n), "timestamp",
				   timefmt_rfc3339(n->ts_ms, when), "fields", "name", "Drive",
				   "value", drive, "inline", 0, "name", "Rule", "value", n->rule,
				   "inline", 1, "name", "State", "value", n->state, "inline", 1));
}

static int fmt_telegram(const struct sink_conf *c, const struct alert_note *n, const char *title,
			struct sink_request *r)
{
	const char *api = sink_conf_get(c, "api_url"), *chat = sink_conf_get(c, "chat_id");
	char path[CFG_SINK_VAL_MAX + 32], *end;
	json_t *id;

	snprintf(path, sizeof(path), "/bot%s/sendMessage", sink_conf_get(c, "token"));
	r->url = url_join(api ? api : "https://api.telegram.org", path);
	if (!r->url)
		return -ENOMEM;
	/* chat_id is an integer, or a string "@channelusername". */
	long long v = strtoll(chat, &end, 10);
	id = *chat && !*end && *chat != '@' ? json_integer(v) : json_string(chat);
	return body_take(r, json_pack("{s:o, s:s++, s:b}", "chat_id", id, "text", title, "\n",
				      n->message, "disable_web_page_preview", 1));
}

static int fmt_alertmanager(const struct sink_conf *c, const struct alert_note *n,
			    const struct sink_ctx *x, const char *title, struct sink_request *r)
{
	char starts[TIMEFMT_MAX], ends[TIMEFMT_MAX];
	int64_t ends_ms = is(n, "resolved") && n->resolved_ms
				  ? n->resolved_ms
				  : x->now_ms + 4 * (c->resend_ms > 0 ? c->resend_ms : 60000);

	r->url = url_join(sink_conf_get(c, "url"), "/api/v2/alerts");
	if (!r->url)
		return -ENOMEM;
	const char *token = sink_conf_get(c, "token");
	if (token && header_add(r, "Authorization: Bearer %s", token) < 0)
		return -ENOMEM;
	json_t *j = json_pack("[{s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s}, s:{s:s, s:s}, s:s, s:s}]",
			      "labels", "alertname", n->rule, "severity", n->severity, "instance",
			      n->host[0] ? n->host : x->host, "device", n->device, "serial",
			      n->serial, "model", n->model, "job", "nvmond", "annotations",
			      "message", n->message, "summary", title, "startsAt",
			      timefmt_rfc3339(n->started_ms ? n->started_ms : n->ts_ms, starts),
			      "endsAt", timefmt_rfc3339(ends_ms, ends));
	/* The drive's label and location describe it: annotations, not identity. */
	json_t *ann = json_object_get(json_array_get(j, 0), "annotations");
	if (ann && n->label[0] && json_object_set_new(ann, "label", json_string(n->label)) < 0)
		return json_decref(j), -ENOMEM;
	if (ann && n->location[0] &&
	    json_object_set_new(ann, "location", json_string(n->location)) < 0)
		return json_decref(j), -ENOMEM;
	return body_take(r, j);
}

int sink_format(const struct sink_conf *c, const struct alert_note *n, const struct sink_ctx *x,
		struct sink_request *ret)
{
	const char *t = c->type->name;
	char title[2 * CFG_DEVICE_TEXT_MAX + 256];
	struct sink_request r = {.method = "POST"};
	int e;

	title_of(n, title, sizeof(title));
	if (!strcmp(t, "ntfy"))
		e = fmt_ntfy(c, n, title, &r);
	else if (!strcmp(t, "gotify"))
		e = fmt_gotify(c, n, title, &r);
	else if (!strcmp(t, "slack"))
		e = fmt_slack(c, n, title, &r);
	else if (!strcmp(t, "discord"))
		e = fmt_discord(c, n, title, &r);
	else if (!strcmp(t, "telegram"))
		e = fmt_telegram(c, n, title, &r);
	else if (!strcmp(t, "alertmanager"))
		e = fmt_alertmanager(c, n, x, title, &r);
	else if (!strcmp(t, "webhook")) {
		r.url = strdup(sink_conf_get(c, "url"));
		e = r.url ? body_take(&r, alert_note_json(n)) : -ENOMEM;
	} else
		e = -EINVAL;
	if (e < 0) {
		sink_request_free(&r);
		return e;
	}
	*ret = r;
	return 0;
}
