/* SPDX-License-Identifier: MIT */
/*
 * The HTTP sink types: their keys, and delivery of what sink_format() makes
 * with libcurl. Messages name the sink's scheme and host only: the rest of a
 * URL may hold a secret (Slack, Discord, Telegram), and so may its userinfo
 * (redact.h: never shown, however the URL parses).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "nvmond/util/redact.h"
#include "nvmond/util/timefmt.h"
#include "sink_internal.h"

struct type_keys {
	const char *type;
	const char *const keys[7];
};

/* The keys of each HTTP type beside the common ones; *_file: the secret from a file. */
static const struct type_keys http_keys[] = {
	{"webhook", {"url", "url_file"}},
	{"ntfy", {"url", "url_file", "token", "token_file", "tags"}},
	{"gotify", {"url", "token", "token_file"}},
	{"slack", {"url", "url_file"}},
	{"discord", {"url", "url_file"}},
	{"telegram", {"token", "token_file", "chat_id", "api_url"}},
	{"alertmanager", {"url", "token", "token_file"}},
};

static bool is_http_url(const char *v)
{
	return (!strncmp(v, "http://", 7) && v[7]) || (!strncmp(v, "https://", 8) && v[8]);
}

int sink_http_check_key(const struct sink_type *t, const char *key, const char *value, char *err,
			size_t errsize)
{
	for (size_t i = 0; i < sizeof(http_keys) / sizeof(http_keys[0]); i++) {
		if (strcmp(http_keys[i].type, t->name) != 0)
			continue;
		for (size_t k = 0; k < 7 && http_keys[i].keys[k]; k++) {
			if (strcmp(http_keys[i].keys[k], key) != 0)
				continue;
			if ((!strcmp(key, "url") || !strcmp(key, "api_url")) &&
			    !is_http_url(value)) {
				/* Not the value: it may be a secret URL written wrong. */
				snprintf(err, errsize, "%s: not an http:// or https:// URL", key);
				return -EINVAL;
			}
			if (!value[0]) {
				snprintf(err, errsize, "%s: empty", key);
				return -EINVAL;
			}
			return 0;
		}
	}
	snprintf(err, errsize, "unknown key '%s' for a sink of type %s", key, t->name);
	return -EINVAL;
}

int sink_http_check_conf(const struct sink_conf *c, const char **ret_key, char *err, size_t errsize)
{
	const char *url = sink_conf_get(c, "url");

	/* A url written in the file was checked as its key; one read from url_file was not. */
	if (url && !is_http_url(url)) {
		*ret_key = "url_file";
		/* Not the value: it is a secret. */
		snprintf(err, errsize,
			 "url_file: its first line is not an http:// or https:// URL");
		return -EINVAL;
	}
	return 0;
}

static size_t discard(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	(void)ptr;
	(void)userdata;
	return size * nmemb;
}

/* One request. Return: 0 on 2xx; -EAGAIN (retry) or -EPROTO (4xx: would fail again). */
static int http_perform(const struct sink_request *q, int64_t timeout_ms, char *err, size_t errsize)
{
	struct curl_slist *hdr = NULL;
	char cerr[CURL_ERROR_SIZE] = "", where[256];
	long code = 0;
	CURL *c = sink_curl_init() == 0 ? curl_easy_init() : NULL;
	int r = -EAGAIN;

	redact_url_origin(q->url, where, sizeof(where));
	if (!c) {
		snprintf(err, errsize, "curl_easy_init failed");
		return -ENOMEM;
	}
	for (size_t i = 0; i < q->n_headers; i++)
		hdr = curl_slist_append(hdr, q->headers[i]);
	hdr = curl_slist_append(hdr, "Expect:"); /* no 100-continue round trip */
	curl_easy_setopt(c, CURLOPT_URL, q->url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, q->method);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, q->body ? q->body : "");
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)timeout_ms);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "nvmond");
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	CURLcode rc = curl_easy_perform(c);
	if (rc != CURLE_OK) {
		sink_curl_error(q->url, rc, cerr, where, err, errsize);
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		if (code >= 200 && code < 300)
			r = 0;
		else {
			snprintf(err, errsize, "%s: HTTP status %ld", where, code);
			if (code >= 400 && code < 500 && code != 408 && code != 429)
				r = -EPROTO;
		}
	}
	curl_slist_free_all(hdr);
	curl_easy_cleanup(c);
	return r;
}

int sink_http_deliver(const struct sink_conf *c, const struct alert_note *n, char *err,
		      size_t errsize)
{
	char host[256] = "";
	struct sink_request q;
	struct sink_ctx x = {.host = host, .now_ms = timefmt_now_ms()};
	int r;

	if (gethostname(host, sizeof(host) - 1) < 0)
		snprintf(host, sizeof(host), "localhost");
	r = sink_format(c, n, &x, &q);
	if (r < 0) {
		snprintf(err, errsize, "cannot format the request: %s", strerror(-r));
		return r;
	}
	r = http_perform(&q, c->timeout_ms, err, errsize);
	sink_request_free(&q);
	return r;
}
