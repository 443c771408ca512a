/* SPDX-License-Identifier: MIT */
/*
 * The sink formats (pure: a note and the settings in, a request out), the
 * filters, and the checks of [sink "NAME"] sections with their FILE:LINE.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "../../../daemon/alert/sink_internal.h"
#include "nvmond/alert/sink_email.h"

static struct alert_note note_of(const char *severity, const char *state)
{
	struct alert_note n = {.alert_id = 7,
			       .device_id = 1,
			       .started_ms = 1764460800000LL, /* 2025-11-30T00:00:00Z */
			       .ts_ms = 1764460801000LL};
	snprintf(n.device, sizeof(n.device), "nvme0");
	snprintf(n.model, sizeof(n.model), "Samsung SSD 950 PRO 512GB");
	snprintf(n.serial, sizeof(n.serial), "S2GMNX0H");
	snprintf(n.rule, sizeof(n.rule), "temperature_critical");
	snprintf(n.severity, sizeof(n.severity), "%s", severity);
	snprintf(n.state, sizeof(n.state), "%s", state);
	snprintf(n.message, sizeof(n.message), "composite 84 °C >= 82 °C <b>&");
	if (!strcmp(state, "resolved"))
		n.resolved_ms = 1764460900000LL;
	return n;
}

/* Load [sink "s"] from "key=value" lines written to a real file. */
static int load(const char *const *lines, struct sink_conf **ret, size_t *ret_n, char *err,
		size_t errsize)
{
	char path[] = "/tmp/nvmond-sinkcfg-XXXXXX";
	int fd = mkstemp(path);
	struct cfg *c = malloc(sizeof(*c));
	char cerr[CFG_ERR_MAX];

	cr_assert_geq(fd, 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "[alerts]\nthrottling = yes\n\n[sink \"s\"]\n");
	for (; *lines; lines++)
		fprintf(f, "%s\n", *lines);
	fclose(f);
	cfg_defaults(c);
	int r = cfg_load(c, path, cerr);
	cr_assert_eq(r, 0, "%s", cerr);
	r = sink_confs_load(c, ret, ret_n, err, errsize);
	unlink(path);
	free(c);
	if (r == 0) {
		/* The message names the file: make it stable for the table below. */
		err[0] = '\0';
	} else {
		char *colon = strstr(err, ":");
		memmove(err, colon + 1, strlen(colon));
	}
	return r;
}

static struct sink_request format(const char *const *lines, const struct alert_note *n)
{
	struct sink_conf *v;
	size_t nv;
	char err[256];
	struct sink_request q;
	struct sink_ctx x = {.host = "nas", .now_ms = 1764460801000LL};

	cr_assert_eq(load(lines, &v, &nv, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(nv, 1);
	cr_assert_eq(sink_format(&v[0], n, &x, &q), 0);
	sink_confs_free(v, nv);
	return q;
}

static const char *header(const struct sink_request *q, const char *name)
{
	for (size_t i = 0; i < q->n_headers; i++)
		if (!strncasecmp(q->headers[i], name, strlen(name)) &&
		    q->headers[i][strlen(name)] == ':')
			return q->headers[i] + strlen(name) + 2;
	return NULL;
}

static json_t *body_json(const struct sink_request *q)
{
	json_error_t e;
	json_t *j = json_loads(q->body, 0, &e);
	cr_assert_not_null(j, "%s: %s", e.text, q->body);
	return j;
}

#define STR(j, path) json_string_value(json_object_get(j, path))

/* ntfy, docs.ntfy.sh/publish: POST to the topic URL, the message as body, Title,
 * Priority 1-5, Tags (emoji short codes), "Authorization: Bearer <token>". */
Test(sink_format, ntfy)
{
	const char *const cf[] = {"type = ntfy", "url = https://ntfy.example/disks",
				  "token = tk_secret", "tags = home", NULL};
	struct alert_note n = note_of("critical", "firing");
	struct sink_request q = format(cf, &n);

	cr_assert_str_eq(q.method, "POST");
	cr_assert_str_eq(q.url, "https://ntfy.example/disks");
	cr_assert_str_eq(q.body, n.message);
	cr_assert_str_eq(header(&q, "Title"), "[CRITICAL] temperature_critical on nvme0 (Samsung "
					      "SSD 950 PRO 512GB, serial S2GMNX0H)");
	cr_assert_str_eq(header(&q, "Priority"), "5");
	cr_assert_str_eq(header(&q, "Tags"), "rotating_light,nvmond,temperature_critical,home");
	cr_assert_str_eq(header(&q, "Authorization"), "Bearer tk_secret");
	sink_request_free(&q);
}

/* gotify.net/docs/pushmsg: POST /message, X-Gotify-Key, JSON title/message/priority. */
Test(sink_format, gotify)
{
	const char *const cf[] = {"type = gotify", "url = https://push.example/", "token = AppTok",
				  NULL};
	struct alert_note n = note_of("warning", "firing");
	struct sink_request q = format(cf, &n);
	json_t *j = body_json(&q);

	cr_assert_str_eq(q.url, "https://push.example/message");
	cr_assert_str_eq(header(&q, "X-Gotify-Key"), "AppTok");
	cr_assert_str_eq(header(&q, "Content-Type"), "application/json");
	cr_assert_str_eq(STR(j, "message"), n.message);
	cr_assert(strstr(STR(j, "title"), "[WARNING] temperature_critical"));
	cr_assert_eq(json_integer_value(json_object_get(j, "priority")), 5);
	json_decref(j);
	sink_request_free(&q);
}

/* api.slack.com/messaging/webhooks: JSON text (the fallback) and blocks; in mrkdwn
 * &, < and > are escaped (api.slack.com/reference/surfaces/formatting#escaping). */
Test(sink_format, slack)
{
	const char *const cf[] = {"type = slack", "url = https://hooks.slack.com/services/T/B/x",
				  NULL};
	struct alert_note n = note_of("warning", "firing");
	struct sink_request q = format(cf, &n);
	json_t *j = body_json(&q);
	json_t *blocks = json_object_get(j, "blocks");

	cr_assert(strstr(STR(j, "text"), n.message));
	cr_assert_eq(json_array_size(blocks), 3);
	cr_assert_str_eq(STR(json_array_get(blocks, 0), "type"), "header");
	json_t *sec = json_array_get(blocks, 1);
	cr_assert_str_eq(STR(sec, "type"), "section");
	cr_assert_str_eq(STR(json_object_get(sec, "text"), "type"), "mrkdwn");
	/* The message, then the drive (its label and location when set: issue 24). */
	cr_assert_str_eq(STR(json_object_get(sec, "text"), "text"),
			 "composite 84 °C &gt;= 82 °C &lt;b&gt;&amp;\n"
			 "nvme0 (Samsung SSD 950 PRO 512GB, serial S2GMNX0H)");
	json_decref(j);
	sink_request_free(&q);
}

/* discord.com/developers/docs/resources/webhook#execute-webhook: content + embeds,
 * an embed's color an integer; red critical, orange warning, green resolved. */
Test(sink_format, discord)
{
	static const struct {
		const char *severity, *state;
		int color;
	} t[] = {{"critical", "firing", 0xE74C3C},
		 {"warning", "escalated", 0xE67E22},
		 {"info", "firing", 0x3498DB},
		 {"critical", "resolved", 0x2ECC71}};
	const char *const cf[] = {"type = discord", "url = https://discord.com/api/webhooks/1/x",
				  NULL};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct alert_note n = note_of(t[i].severity, t[i].state);
		struct sink_request q = format(cf, &n);
		json_t *j = body_json(&q);
		json_t *e = json_array_get(json_object_get(j, "embeds"), 0);

		cr_assert_not_null(STR(j, "content"));
		cr_assert_eq(json_integer_value(json_object_get(e, "color")), t[i].color, "%s %s",
			     t[i].severity, t[i].state);
		cr_assert_str_eq(STR(e, "description"), n.message);
		cr_assert_eq(json_array_size(json_object_get(json_object_get(j, "allowed_mentions"),
							     "parse")),
			     0);
		json_decref(j);
		sink_request_free(&q);
	}
}

/* core.telegram.org/bots/api#sendmessage: POST <api>/bot<token>/sendMessage, chat_id
 * an Integer or a String (@channel), text. */
Test(sink_format, telegram)
{
	const char *const cf[] = {"type = telegram", "token = 123:ABC", "chat_id = -1001234", NULL};
	const char *const cf2[] = {"type = telegram", "token = 123:ABC", "chat_id = @disks",
				   "api_url = http://127.0.0.1:1/", NULL};
	struct alert_note n = note_of("warning", "firing");
	struct sink_request q = format(cf, &n);
	json_t *j = body_json(&q);

	cr_assert_str_eq(q.url, "https://api.telegram.org/bot123:ABC/sendMessage");
	cr_assert_eq(json_integer_value(json_object_get(j, "chat_id")), -1001234);
	cr_assert(strstr(STR(j, "text"), n.message));
	json_decref(j);
	sink_request_free(&q);
	q = format(cf2, &n);
	j = body_json(&q);
	cr_assert_str_eq(q.url, "http://127.0.0.1:1/bot123:ABC/sendMessage");
	cr_assert_str_eq(STR(j, "chat_id"), "@disks");
	json_decref(j);
	sink_request_free(&q);
}

/* Alertmanager's OpenAPI (api/v2/openapi.yaml, postableAlerts): a list of alerts with
 * labels, annotations, startsAt, endsAt; firing: endsAt = now + 4 resend intervals
 * (as Prometheus sets it); resolved: endsAt = the resolve time. */
Test(sink_format, alertmanager)
{
	const char *const cf[] = {"type = alertmanager", "url = http://am:9093",
				  "resend_interval = 1m", NULL};
	struct alert_note n = note_of("critical", "firing");
	struct sink_request q = format(cf, &n);
	json_t *j = body_json(&q), *a = json_array_get(j, 0), *l = json_object_get(a, "labels");

	cr_assert_str_eq(q.url, "http://am:9093/api/v2/alerts");
	cr_assert_eq(json_array_size(j), 1);
	cr_assert_str_eq(STR(l, "alertname"), "temperature_critical");
	cr_assert_str_eq(STR(l, "severity"), "critical");
	cr_assert_str_eq(STR(l, "instance"), "nas");
	cr_assert_str_eq(STR(l, "device"), "nvme0");
	cr_assert_str_eq(STR(l, "serial"), "S2GMNX0H");
	cr_assert_str_eq(STR(l, "model"), "Samsung SSD 950 PRO 512GB");
	cr_assert_str_eq(STR(json_object_get(a, "annotations"), "message"), n.message);
	cr_assert_str_eq(STR(a, "startsAt"), "2025-11-30T00:00:00.000Z");
	cr_assert_str_eq(STR(a, "endsAt"), "2025-11-30T00:04:01.000Z");
	json_decref(j);
	sink_request_free(&q);

	n = note_of("critical", "resolved");
	q = format(cf, &n);
	j = body_json(&q);
	cr_assert_str_eq(STR(json_array_get(j, 0), "endsAt"), "2025-11-30T00:01:40.000Z");
	json_decref(j);
	sink_request_free(&q);
}

/* ntfy: 5 max, 4 high, 3 default (docs.ntfy.sh/publish/#message-priority);
 * Gotify: 8+ pops up, 4-7 sound, 1-3 quiet (its Android client). */
Test(sink_format, priorities_follow_the_severity)
{
	static const struct {
		const char *severity, *state;
		int ntfy, gotify;
	} t[] = {{"critical", "firing", 5, 8},	 {"warning", "firing", 4, 5},
		 {"info", "firing", 3, 2},	 {"critical", "escalated", 5, 8},
		 {"critical", "resolved", 3, 2}, {"info", "test", 3, 2}};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct alert_note n = note_of(t[i].severity, t[i].state);
		cr_expect_eq(sink_ntfy_priority(&n), t[i].ntfy, "%zu", i);
		cr_expect_eq(sink_gotify_priority(&n), t[i].gotify, "%zu", i);
	}
}

/* A header is one line: a note's control characters never split it. */
Test(sink_format, headers_stay_one_line)
{
	const char *const cf[] = {"type = ntfy", "url = https://ntfy.example/disks", NULL};
	struct alert_note n = note_of("critical", "firing");
	snprintf(n.device, sizeof(n.device), "nvme0\r\nX-Evil: 1");
	struct sink_request q = format(cf, &n);

	for (size_t i = 0; i < q.n_headers; i++)
		cr_assert_null(strpbrk(q.headers[i], "\r\n"), "%s", q.headers[i]);
	sink_request_free(&q);
}

/* Filters: min_severity, rules, devices (serial or model), resolved = no; a test
 * notification passes every filter. */
Test(sink_format, filters)
{
	static const struct {
		const char *line, *severity, *state, *rule, *serial;
		bool wants;
	} t[] = {
		{"min_severity = warning", "info", "firing", "spare_low", "S1", false},
		{"min_severity = warning", "warning", "firing", "spare_low", "S1", true},
		{"min_severity = critical", "warning", "escalated", "spare_low", "S1", false},
		{"rules = spare_low, io_errors", "info", "firing", "io_errors", "S1", true},
		{"rules = spare_low, io_errors", "info", "firing", "throttling", "S1", false},
		{"devices = S1, S2", "info", "firing", "spare_low", "S2", true},
		{"devices = S1, S2", "info", "firing", "spare_low", "S3", false},
		{"devices = Samsung SSD 950 PRO 512GB", "info", "firing", "spare_low", "S3", true},
		{"resolved = no", "info", "resolved", "spare_low", "S1", false},
		{"resolved = yes", "info", "resolved", "spare_low", "S1", true},
		{"min_severity = critical", "info", "test", "test", "S1", true},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *const cf[] = {"type = ntfy", "url = https://n/t", t[i].line, NULL};
		struct sink_conf *v;
		size_t nv;
		char err[256];
		struct alert_note n = note_of(t[i].severity, t[i].state);

		snprintf(n.rule, sizeof(n.rule), "%s", t[i].rule);
		snprintf(n.serial, sizeof(n.serial), "%s", t[i].serial);
		cr_assert_eq(load(cf, &v, &nv, err, sizeof(err)), 0, "%s", err);
		cr_expect_eq(sink_wants(&v[0], &n), t[i].wants, "%s / %s %s %s %s", t[i].line,
			     t[i].severity, t[i].state, t[i].rule, t[i].serial);
		sink_confs_free(v, nv);
	}
}

/* Mistakes are refused at load with the line they are on; a missing key, with the
 * section's first line (line 5). */
Test(sink_format, mistakes_name_their_line)
{
	static const struct {
		const char *l1, *l2, *msg;
	} t[] = {
		{"url = https://n/t", NULL, "5: [sink \"s\"]: type is missing"},
		{"type = pager", NULL,
		 "5: type: 'pager' is not one of exec, webhook, ntfy, "
		 "gotify, slack, discord, telegram, alertmanager, email or mqtt"},
		{"type = ntfy", "url = ftp://n/t", "6: url: not an http:// or https:// URL"},
		{"type = ntfy", "chat_id = 1", "6: unknown key 'chat_id' for a sink of type ntfy"},
		{"type = ntfy", "min_severity = high",
		 "6: min_severity: 'high' is not info, warning or critical"},
		{"type = ntfy", "rules = throttling, nope", "6: rules: unknown rule 'nope'"},
		{"type = gotify", "url = https://g",
		 "5: [sink \"s\"]: type gotify needs token or "
		 "token_file"},
		{"type = slack", "url_file = /nonexistent/x",
		 "6: url_file: /nonexistent/x: No such file or directory"},
		{"type = ntfy", "resend_interval = 1m",
		 "6: unknown key 'resend_interval' for a sink of type ntfy"},
		{"type = exec", "path = bin/hook", "6: path: bin/hook: not an absolute path"},
		/* email: libcurl's SMTP URLs, addr-specs (mail_msg.h), starttls no|try|required */
		{"type = email", "url = https://m", "6: url: not an smtp:// or smtps:// URL"},
		{"type = email", "to = ops@example.org, bad",
		 "6: to: 'ops@example.org, bad' is not a list of 1 to 16 addresses "
		 "(local@domain, ...)"},
		{"type = email", "from = a b@example.org",
		 "6: from: 'a b@example.org' is not an address (local@domain)"},
		{"type = email", "starttls = maybe",
		 "6: starttls: 'maybe' is not no, try or required"},
		{"type = email", "url = smtp://m", "5: [sink \"s\"]: type email needs from"},
		/* mqtt: a TCP port, whole seconds of keepalive, topics without wildcards */
		{"type = mqtt", "port = 70000", "6: port: '70000' is not a number in 1 .. 65535"},
		{"type = mqtt", "keepalive = 1500ms",
		 "6: keepalive: '1500ms' is not whole seconds in 5s .. 1h"},
		{"type = mqtt", "topic_prefix = a/+/b",
		 "6: topic_prefix: 'a/+/b' is not a topic (no +, #, spaces or empty levels)"},
		{"type = mqtt", "discovery = maybe", "6: discovery: 'maybe' is not yes or no"},
		{"type = mqtt", "token = x", "6: unknown key 'token' for a sink of type mqtt"},
		{"type = mqtt", "port = 1883", "5: [sink \"s\"]: type mqtt needs host"},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *const cf[] = {t[i].l1, t[i].l2, NULL};
		struct sink_conf *v = NULL;
		size_t nv = 0;
		char err[256];

		cr_expect_lt(load(cf, &v, &nv, err, sizeof(err)), 0, "%zu", i);
		cr_expect_str_eq(err, t[i].msg);
	}
}

/* The email type's defaults (docs/configuration.md): a 30 s timeout, six attempts;
 * password_file gives the password, kept secret; ca_file is no secret's file. */
Test(sink_format, email_and_mqtt_defaults)
{
	char path[] = "/tmp/nvmond-secret-XXXXXX", line[64];
	int fd = mkstemp(path);
	struct sink_conf *v;
	size_t nv;
	char err[256];

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "pw\n", 3), 3);
	close(fd);
	snprintf(line, sizeof(line), "password_file = %s", path);
	const char *const em[] = {"type = email",
				  "url = smtp://m:25",
				  "from = n@example.org",
				  "to = a@example.org, b@example.org",
				  line,
				  "ca_file = /nonexistent/ca.pem",
				  NULL};
	cr_assert_eq(load(em, &v, &nv, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(v[0].timeout_ms, 30000);
	cr_expect_eq(v[0].attempts, 6);
	cr_expect_str_eq(sink_conf_get(&v[0], "password"), "pw");
	cr_expect(v[0].kv[v[0].n - 2].secret);
	/* ca_file is a path TLS reads, not a secret's file: kept as written, not opened */
	cr_expect_str_eq(sink_conf_get(&v[0], "ca_file"), "/nonexistent/ca.pem");
	sink_confs_free(v, nv);

	const char *const mq[] = {"type = mqtt", "host = broker", "keepalive = 30s", line, NULL};
	cr_assert_eq(load(mq, &v, &nv, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(v[0].timeout_ms, 10000);
	cr_expect_str_eq(sink_conf_get(&v[0], "password"), "pw");
	sink_confs_free(v, nv);
	unlink(path);
}

/*
 * Issue 23 §3: with credentials the SMTP password goes out only under TLS —
 * smtps://, or starttls = required (the default once a username is set) —
 * unless allow_plaintext_password says otherwise: "try" sends AUTH in clear to
 * a server that does not offer STARTTLS, and anyone on the path can strip the
 * offer. Each row names the rule.
 */
Test(sink_format, email_password_only_under_tls)
{
	static const struct {
		const char *rule, *url, *user;
		enum sink_email_starttls st;
		bool allow, ok;
	} t[] = {
		{"no credentials, try: fine", "smtp://m", NULL, SINK_EMAIL_STARTTLS_TRY, false,
		 true},
		{"no credentials, no: fine", "smtp://m", "", SINK_EMAIL_STARTTLS_NO, false, true},
		{"a username, required: fine", "smtp://m", "u", SINK_EMAIL_STARTTLS_REQUIRED, false,
		 true},
		{"a username, smtps://: fine", "smtps://m", "u", SINK_EMAIL_STARTTLS_NO, false,
		 true},
		{"a username, try: refused", "smtp://m", "u", SINK_EMAIL_STARTTLS_TRY, false,
		 false},
		{"a username, no: refused", "smtp://m", "u", SINK_EMAIL_STARTTLS_NO, false, false},
		{"a user in the URL, try: refused", "smtp://u:p@m", NULL, SINK_EMAIL_STARTTLS_TRY,
		 false, false},
		{"a user in the URL with '#', no: refused", "smtp://u:p#x@m", NULL,
		 SINK_EMAIL_STARTTLS_NO, false, false},
		{"a username, try, allow_plaintext_password: fine", "smtp://m", "u",
		 SINK_EMAIL_STARTTLS_TRY, true, true},
		{"a username, no, allow_plaintext_password: fine", "smtp://m", "u",
		 SINK_EMAIL_STARTTLS_NO, true, true},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct sink_email_cfg c = {.url = t[i].url,
					   .username = t[i].user,
					   .starttls = t[i].st,
					   .allow_plaintext_password = t[i].allow};
		char err[256] = "";
		cr_expect_eq(sink_email_auth_check(&c, err, sizeof(err)), t[i].ok ? 0 : -EINVAL,
			     "%s", t[i].rule);
		if (!t[i].ok)
			cr_expect(strstr(err, "would send the password in clear text") &&
					  strstr(err, "allow_plaintext_password = yes"),
				  "%s: %s", t[i].rule, err);
	}

	/* At load: the line of starttls (else of username); a username alone means required. */
	struct sink_conf *v = NULL;
	size_t nv = 0;
	char err[256];
	const char *const tries[] = {
		"type = email", "url = smtp://m", "from = a@b.example", "to = c@d.example",
		"username = u", "password = p",	  "starttls = try",	NULL};
	cr_expect_lt(load(tries, &v, &nv, err, sizeof(err)), 0);
	cr_expect(!strncmp(err, "11: starttls = try would send the password in clear text", 56),
		  "%s", err);
	const char *const none[] = {"type = email",
				    "url = smtp://m",
				    "from = a@b.example",
				    "to = c@d.example",
				    "username = u",
				    "starttls = no",
				    NULL};
	cr_expect_lt(load(none, &v, &nv, err, sizeof(err)), 0);
	cr_expect(!strncmp(err, "10: starttls = no would send the password in clear text", 55),
		  "%s", err);
	const char *const url_user[] = {"type = email",	      "url = smtp://u:p@m",
					"from = a@b.example", "to = c@d.example",
					"starttls = try",     NULL};
	cr_expect_lt(load(url_user, &v, &nv, err, sizeof(err)), 0);
	cr_expect(!strncmp(err, "9: starttls = try", 17), "%s", err);
	const char *const dflt[] = {"type = email",
				    "url = smtp://m",
				    "from = a@b.example",
				    "to = c@d.example",
				    "username = u",
				    "password = p",
				    NULL};
	cr_expect_eq(load(dflt, &v, &nv, err, sizeof(err)), 0, "%s", err);
	sink_confs_free(v, nv);
	const char *const allowed[] = {"type = email",
				       "url = smtp://m",
				       "from = a@b.example",
				       "to = c@d.example",
				       "username = u",
				       "starttls = try",
				       "allow_plaintext_password = yes",
				       NULL};
	cr_expect_eq(load(allowed, &v, &nv, err, sizeof(err)), 0, "%s", err);
	sink_confs_free(v, nv);
	const char *const bad[] = {"type = email", "allow_plaintext_password = maybe", NULL};
	cr_expect_lt(load(bad, &v, &nv, err, sizeof(err)), 0);
	cr_expect_str_eq(err, "6: allow_plaintext_password: 'maybe' is not yes or no");
}

/* Issue 23 §14: a url_file's URL is checked as http(s) at load, as a url is (never shown). */
Test(sink_format, url_file_is_an_http_url)
{
	char path[] = "/tmp/nvmond-secret-XXXXXX", line[64];
	int fd = mkstemp(path);
	struct sink_conf *v = NULL;
	size_t nv = 0;
	char err[256];

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "ftp://secret-host/x\n", 20), 20);
	close(fd);
	snprintf(line, sizeof(line), "url_file = %s", path);
	const char *const cf[] = {"type = slack", line, NULL};
	cr_expect_lt(load(cf, &v, &nv, err, sizeof(err)), 0);
	cr_expect_str_eq(err, "6: url_file: its first line is not an http:// or https:// URL");
	cr_expect_null(strstr(err, "secret-host"));
	unlink(path);
}

/* token_file: the first line of the file, the setting itself never written out. */
Test(sink_format, secrets_from_files)
{
	char path[] = "/tmp/nvmond-secret-XXXXXX", line[64];
	int fd = mkstemp(path);
	struct sink_conf *v;
	size_t nv;
	char err[256];

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "s3cr3t-token\n", 13), 13);
	close(fd);
	snprintf(line, sizeof(line), "token_file = %s", path);
	const char *const cf[] = {"type = gotify", "url = https://g", line, NULL};
	cr_assert_eq(load(cf, &v, &nv, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(sink_conf_get(&v[0], "token"), "s3cr3t-token");
	sink_confs_free(v, nv);

	const char *const both[] = {"type = gotify", "url = https://g", line, "token = x", NULL};
	cr_assert_lt(load(both, &v, &nv, err, sizeof(err)), 0);
	cr_assert(strstr(err, "token is set as well"), "%s", err);
	unlink(path);
}

/* "systemd/nvmond.conf … has a sample section of each type" (configuration.md): each
 * commented-out [sink] section, uncommented, loads as a sink (files made for its *_file
 * keys, the exec hook made /bin/true), and every type has one. */
Test(sink_format, sample_sections_load)
{
	char secret[] = "/tmp/nvmond-secret-XXXXXX", conf[] = "/tmp/nvmond-sample-XXXXXX";
	char url[] = "/tmp/nvmond-url-XXXXXX";
	char line[512], key[64], cerr[CFG_ERR_MAX], err[256];
	int sfd = mkstemp(secret), cfd = mkstemp(conf), ufd = mkstemp(url);
	bool in_sink = false;
	FILE *in = fopen(FIXTURES_DIR "/../../systemd/nvmond.conf", "r"), *out;
	struct cfg *c = malloc(sizeof(*c));
	struct sink_conf *v;
	size_t nv;

	cr_assert(sfd >= 0 && cfd >= 0 && ufd >= 0 && in && c);
	cr_assert_eq(write(sfd, "x\n", 2), 2);
	close(sfd);
	cr_assert_eq(write(ufd, "https://hooks.example/x\n", 24), 24); /* a url_file's URL */
	close(ufd);
	out = fdopen(cfd, "w");
	while (fgets(line, sizeof(line), in)) {
		if (line[0] == '[')
			in_sink = false;
		if (!strncmp(line, "#[sink ", 7))
			in_sink = true;
		if (!in_sink || line[0] != '#' || line[1] == ' ' || line[1] == '\n')
			continue;
		if (sscanf(line + 1, "%63[a-z_] =", key) == 1 && strlen(key) > 5 &&
		    !strcmp(key + strlen(key) - 5, "_file") && strcmp(key, "ca_file"))
			fprintf(out, "%s = %s\n", key, strcmp(key, "url_file") ? secret : url);
		else if (!strncmp(line + 1, "path = ", 7))
			fprintf(out, "path = /bin/true\n");
		else
			fputs(line + 1, out);
	}
	fclose(in);
	fclose(out);
	cfg_defaults(c);
	cr_assert_eq(cfg_load(c, conf, cerr), 0, "%s", cerr);
	cr_assert_eq(sink_confs_load(c, &v, &nv, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(nv, c->n_sinks);
	static const char *const types[] = {"exec",  "webhook", "ntfy",	    "gotify",
					    "slack", "discord", "telegram", "alertmanager",
					    "email", "mqtt"};
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		bool found = false;
		for (size_t i = 0; i < nv; i++)
			found |= !strcmp(v[i].type->name, types[t]);
		cr_expect(found, "no sample section of type %s", types[t]);
	}
	sink_confs_free(v, nv);
	free(c);
	unlink(secret);
	unlink(url);
	unlink(conf);
}

/*
 * Issue 24 §1: the drive's [device] label and location "appear in every
 * notification of every sink type". Each HTTP type's request (headers and body)
 * carries both; ntfy's Title is not ASCII then, so it goes as an RFC 2047
 * encoded word (RFC 2047, 4.1: "=?UTF-8?B?" base64 "?=").
 */
Test(sink_format, every_type_names_label_and_location)
{
	static const char *const types[][3] = {
		{"type = ntfy", "url = https://ntfy.example/d", NULL},
		{"type = gotify", "url = https://push.example/", "token = t"},
		{"type = slack", "url = https://hooks.slack.com/services/T/B/x", NULL},
		{"type = discord", "url = https://discord.com/api/webhooks/1/x", NULL},
		{"type = telegram", "token = 1:x", "chat_id = 42"},
		{"type = alertmanager", "url = http://am:9093", NULL},
		{"type = webhook", "url = https://hooks.example/n", NULL},
	};
	struct alert_note n = note_of("warning", "firing");

	snprintf(n.label, sizeof(n.label), "bay 3 – scratch");
	snprintf(n.location, sizeof(n.location), "rack 12 U4 slot 3");
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		const char *cf[4] = {types[i][0], types[i][1], types[i][2], NULL};
		struct sink_request q = format(cf, &n);

		if (i == 0) {
			cr_expect_str_eq(
				header(&q, "Title"),
				"=?UTF-8?B?W1dBUk5JTkddIHRlbXBlcmF0dXJlX2NyaXRpY2FsIG9uIG52bWU"
				"wICJiYXkgMyDigJMgc2NyYXRjaCIgYXQgcmFjayAxMiBVNCBzbG90IDMgKFN"
				"hbXN1bmcgU1NEIDk1MCBQUk8gNTEyR0IsIHNlcmlhbCBTMkdNTlgwSCk=?=");
		} else {
			/* JSON bodies may escape the en dash as \u2013: compare decoded. */
			json_t *j = json_loads(q.body, 0, NULL);
			char *flat = j ? json_dumps(j, 0) : NULL;
			cr_assert_not_null(flat, "%s", types[i][0]);
			cr_expect(strstr(flat, "bay 3 – scratch"), "%s: no label in %s",
				  types[i][0], flat);
			cr_expect(strstr(flat, "rack 12 U4 slot 3"), "%s: no location in %s",
				  types[i][0], flat);
			free(flat);
			json_decref(j);
		}
		sink_request_free(&q);
	}
}
