/* SPDX-License-Identifier: MIT */
/*
 * One remote-write request with libcurl (Remote-Write 1.0, "Protocol"): a POST
 * of the snappy-compressed WriteRequest with Content-Encoding: snappy,
 * Content-Type: application/x-protobuf, X-Prometheus-Remote-Write-Version:
 * 0.1.0 and a User-Agent, over a handle kept per export (its connection is
 * reused). The answer's status, Retry-After and the start of its body are
 * kept for rw_answer_classify(); nothing here logs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "nvmond/config.h"
#include "export_internal.h"

void *export_http_new(void)
{
	return curl_easy_init();
}

void export_http_free(void *handle)
{
	if (handle)
		curl_easy_cleanup(handle);
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct export_reply *r = userdata;
	size_t n = size * nmemb, room = sizeof(r->body) - 1 - r->body_len;

	memcpy(r->body + r->body_len, ptr, n < room ? n : room);
	r->body_len += n < room ? n : room;
	r->body[r->body_len] = '\0';
	return n; /* the rest is read and dropped */
}

static size_t on_header(char *buf, size_t size, size_t nitems, void *userdata)
{
	struct export_reply *r = userdata;
	size_t n = size * nitems;
	static const char name[] = "retry-after:";

	if (n > sizeof(name) - 1 && strncasecmp(buf, name, sizeof(name) - 1) == 0) {
		size_t v = sizeof(name) - 1, e = n;
		while (v < n && (buf[v] == ' ' || buf[v] == '\t'))
			v++;
		while (e > v && (buf[e - 1] == '\r' || buf[e - 1] == '\n' || buf[e - 1] == ' '))
			e--;
		snprintf(r->retry_after, sizeof(r->retry_after), "%.*s", (int)(e - v), buf + v);
	}
	return n;
}

/* libcurl's progress callback: non-zero aborts the transfer (CURLE_ABORTED_BY_CALLBACK). */
static int on_progress(void *p, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return atomic_load((atomic_bool *)p) ? 1 : 0;
}

int export_http_post(void *handle, const struct export_conf *c, const uint8_t *body, size_t len,
		     atomic_bool *stop, struct export_reply *ret)
{
	CURL *h = handle;
	struct curl_slist *hdr = NULL;
	char auth[CFG_SINK_VAL_MAX + 32];
	int r = 0;

	memset(ret, 0, sizeof(*ret));
	curl_easy_reset(h); /* keeps the connection, drops the last request's options */
	hdr = curl_slist_append(hdr, "Content-Encoding: snappy");
	hdr = curl_slist_append(hdr, "Content-Type: application/x-protobuf");
	hdr = curl_slist_append(hdr, "X-Prometheus-Remote-Write-Version: 0.1.0");
	hdr = curl_slist_append(hdr, "Expect:"); /* no 100-continue round trip */
	if (c->bearer[0]) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", c->bearer);
		hdr = curl_slist_append(hdr, auth);
		explicit_bzero(auth, sizeof(auth));
	}
	if (!hdr) {
		snprintf(ret->curl_error, sizeof(ret->curl_error), "out of memory");
		return -EIO;
	}
	curl_easy_setopt(h, CURLOPT_URL, c->url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_POST, 1L);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, (const char *)body);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "nvmond/" NVMOND_VERSION);
	if (c->basic_user[0]) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(h, CURLOPT_USERNAME, c->basic_user);
		curl_easy_setopt(h, CURLOPT_PASSWORD, c->basic_password);
	}
	if (c->tls_ca_file[0])
		curl_easy_setopt(h, CURLOPT_CAINFO, c->tls_ca_file);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)c->timeout_ms);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)c->timeout_ms);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, ret->curl_error);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, ret);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, ret);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, stop);
	CURLcode rc = curl_easy_perform(h);
	if (rc == CURLE_OK) {
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &ret->status);
	} else {
		r = rc == CURLE_ABORTED_BY_CALLBACK ? -ECANCELED : -EIO;
		if (!ret->curl_error[0])
			snprintf(ret->curl_error, sizeof(ret->curl_error), "%s",
				 curl_easy_strerror(rc));
	}
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(hdr);
	return r;
}
