/* SPDX-License-Identifier: MIT */
/*
 * The fleet page's requests to the engine (fleetview_svc.c runs the thread that
 * makes them): a POST of a form per part of the view under query_url, all at once on
 * one curl multi handle, with one deadline for the whole refresh, the answers parsed
 * and merged into a view (fleetview.c).
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <curl/curl.h>

#include "nvmond/api/api_params.h"
#include "nvmond/core/log.h"
#include "nvmond/fleetview/fleetview.h"
#include "nvmond/fleetview/fleetview_svc.h"
#include "nvmond/util/timefmt.h"
#include "fleetview_svc_internal.h"

/* The engine's query API (Prometheus HTTP API v1), under query_url: not routes of nvmond. */
#define ENGINE_API "/api/v1/"

/* ---- talking to the engine ---------------------------------------------------- */

static size_t on_body(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct body *b = userdata;
	size_t n = size * nmemb;

	if (b->len + n > FLEETVIEW_BODY_MAX) {
		b->too_big = true;
		return 0;
	}
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64 * 1024;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p)
			return 0;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
	return n;
}

static int on_progress(void *clientp, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	const struct fleetview_svc *s = clientp;

	(void)a, (void)b, (void)c, (void)d;
	return atomic_load(&s->stop) ? 1 : 0; /* shutting down: cut the transfer */
}

/* The request headers of every transfer. Return: 0, or -ENOMEM. */
static int call_headers(struct call *k)
{
	char line[TOKEN_MAX + 64];
	struct curl_slist *h = NULL, *n;

	curl_slist_free_all(k->headers);
	k->headers = NULL;
	h = curl_slist_append(h, "Content-Type: application/x-www-form-urlencoded");
	if (!h)
		return -ENOMEM;
	n = curl_slist_append(h, "Accept: application/json");
	if (n && k->set->token[0]) {
		snprintf(line, sizeof(line), "Authorization: Bearer %s", k->set->token);
		n = curl_slist_append(h, line);
	}
	if (n && k->set->org_id[0]) {
		snprintf(line, sizeof(line), "X-Scope-OrgID: %s", k->set->org_id);
		n = curl_slist_append(h, line);
	}
	if (!n) {
		curl_slist_free_all(h);
		return -ENOMEM;
	}
	k->headers = h;
	return 0;
}

/* Set @x up as a POST of @form (taken) to @path of the engine. Return: 0, or -ENOMEM. */
static int xfer_setup(struct call *k, struct xfer *x, const char *path, char *form)
{
	int64_t left = k->deadline_mono - timefmt_mono_ms();

	free(x->body.p);
	x->body = (struct body){0};
	free(x->form);
	x->form = form;
	if (!form)
		return -ENOMEM;
	if (!x->easy && !(x->easy = curl_easy_init()))
		return -ENOMEM;
	snprintf(x->url, sizeof(x->url), "%s%s", k->set->url, path);
	x->cerr[0] = '\0';
	x->done = CURLE_OK;
	curl_easy_reset(x->easy);
	curl_easy_setopt(x->easy, CURLOPT_URL, x->url);
	curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, k->headers);
	curl_easy_setopt(x->easy, CURLOPT_POSTFIELDS, x->form);
	curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS, (long)(left > 1 ? left : 1));
	curl_easy_setopt(x->easy, CURLOPT_CONNECTTIMEOUT_MS, (long)(left > 1 ? left : 1));
	curl_easy_setopt(x->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(x->easy, CURLOPT_ERRORBUFFER, x->cerr);
	curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, &x->body);
	curl_easy_setopt(x->easy, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(x->easy, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(x->easy, CURLOPT_XFERINFODATA, k->svc);
	curl_easy_setopt(x->easy, CURLOPT_ACCEPT_ENCODING, ""); /* gzip when the engine offers it */
	curl_easy_setopt(x->easy, CURLOPT_USERAGENT, "nvmond");
	curl_easy_setopt(x->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x);
	if (k->set->ca_file[0])
		curl_easy_setopt(x->easy, CURLOPT_CAINFO, k->set->ca_file);
	if (k->set->user[0]) {
		curl_easy_setopt(x->easy, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(x->easy, CURLOPT_USERNAME, k->set->user);
		curl_easy_setopt(x->easy, CURLOPT_PASSWORD, k->set->password);
	}
	return 0;
}

/*
 * Run transfers @from … @to - 1 of @k at once (the engine answers them in parallel)
 * until every one is done, the deadline passed (each has it as its timeout) or the
 * service stops. Return: 0 (each transfer's outcome is in its .done), or -ENOMEM.
 */
static int xfer_run(struct call *k, int from, int to)
{
	int64_t t0 = timefmt_mono_ms();
	int left = 0, r = 0;
	CURLMsg *msg;

	for (int i = from; i < to; i++) {
		if (curl_multi_add_handle(k->multi, k->x[i].easy) != CURLM_OK) {
			r = -ENOMEM;
			break;
		}
		k->x[i].running = true;
		left++;
	}
	while (left > 0 && r == 0) {
		int still = 0, q;
		if (curl_multi_perform(k->multi, &still) != CURLM_OK) {
			r = -ENOMEM;
			break;
		}
		while ((msg = curl_multi_info_read(k->multi, &q))) {
			struct xfer *x = NULL;
			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
			x->done = msg->data.result;
			curl_multi_remove_handle(k->multi, x->easy);
			x->running = false;
			left--;
		}
		if (left > 0 && curl_multi_poll(k->multi, NULL, 0, 100, NULL) != CURLM_OK)
			r = -ENOMEM;
	}
	for (int i = from; i < to; i++)
		if (k->x[i].running) {
			curl_multi_remove_handle(k->multi, k->x[i].easy);
			k->x[i].running = false;
			k->x[i].done = CURLE_ABORTED_BY_CALLBACK;
		}
	k->engine_ms += timefmt_mono_ms() - t0;
	return r;
}

/*
 * The answer of a done transfer: its body in @ret_body (owned by @x), or why not. A
 * 4xx/5xx answer with a JSON body is handed on: the parser reads the engine's error.
 * Return: 0, or negative errno with @err filled.
 */
static int xfer_answer(struct call *k, struct xfer *x, const char **ret_body, size_t *ret_len,
		       char *err)
{
	const char *path = x->url + strlen(k->set->url);
	long status = 0;

	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	if (x->done != CURLE_OK) {
		if (x->body.too_big) {
			fleetview_errf(err, "%s%s: the answer is larger than %u MiB",
				       k->set->display, path, FLEETVIEW_BODY_MAX >> 20);
			return -E2BIG;
		}
		if (x->done == CURLE_OPERATION_TIMEDOUT) {
			fleetview_errf(err, "%s: no answer within %lld ms ([fleet] timeout)",
				       k->set->display, (long long)k->set->timeout_ms);
			return -ETIMEDOUT;
		}
		if (x->done == CURLE_ABORTED_BY_CALLBACK) {
			fleetview_errf(err, "%s: stopped", k->set->display);
			return -ECANCELED;
		}
		fleetview_errf(err, "%s: %s", k->set->display,
			       x->cerr[0] ? x->cerr : curl_easy_strerror(x->done));
		return -EHOSTUNREACH;
	}
	if (status != 200 &&
	    !(status >= 400 && status < 600 && x->body.len && x->body.p[0] == '{')) {
		fleetview_errf(err, "%s%s: HTTP %ld%s%.120s", k->set->display, path, status,
			       x->body.len ? ": " : "", x->body.len ? x->body.p : "");
		return status == 401 || status == 403 ? -EACCES : -EPROTO;
	}
	*ret_body = x->body.p ? x->body.p : "";
	*ret_len = x->body.len;
	return 0;
}

/* application/x-www-form-urlencoded: @key=@value@extra, the value escaped. */
static char *form_of(const char *key, const char *value, const char *extra)
{
	char *esc = curl_easy_escape(NULL, value, 0), *out = NULL;

	if (esc && asprintf(&out, "%s=%s%s", key, esc, extra) < 0)
		out = NULL;
	curl_free(esc);
	return out;
}

/*
 * One refresh: every part of the fleet's instant queries and the hosts known, asked at
 * once; then the hosts gone (they depend on both); merged with @prev.
 */
int fleetview_refresh(struct call *k, const struct fv_view *prev, struct fv_view *ret, char *err)
{
	struct promq_result now[FV_PARTS] = {0}, known = {0}, gone = {0};
	const char *jobs[FLEETVIEW_GONE_MAX], *insts[FLEETVIEW_GONE_MAX], *body;
	struct fv_answer a = {.prev = prev, .stale_after_s = (double)k->set->stale_after_ms / 1000};
	char perr[PROMQ_ERR_MAX], extra[96];
	double now_s = (double)timefmt_now_ms() / 1000;
	size_t n_gone, len;
	int r = 0;

	if (call_headers(k) < 0) {
		fleetview_errf(err, "out of memory");
		return -ENOMEM;
	}
	/* nocache=1: VictoriaMetrics answers "now" 30 s late otherwise (-search.latencyOffset). */
	for (int p = 0; p < FV_PARTS && r == 0; p++)
		r = xfer_setup(
			k, &k->x[p], ENGINE_API "query",
			form_of("query", fleetview_query_part((enum fv_part)p), "&nocache=1"));
	snprintf(extra, sizeof(extra), "&start=%.3f&end=%.3f&nocache=1",
		 now_s - (double)k->set->forget_after_ms / 1000, now_s);
	if (r == 0)
		r = xfer_setup(k, &k->x[X_KNOWN], ENGINE_API "series",
			       form_of("match[]", FLEETVIEW_KNOWN_MATCH, extra));
	if (r == 0)
		r = xfer_run(k, 0, X_KNOWN + 1);
	if (r < 0) {
		fleetview_errf(err, "out of memory");
		goto out;
	}
	for (int p = 0; p < FV_PARTS; p++) {
		r = xfer_answer(k, &k->x[p], &body, &len, err);
		if (r < 0)
			goto out;
		r = promq_parse_vector(body, len, &now[p], perr);
		if (r < 0) {
			fleetview_errf(err, "%s: the %s query: %s", k->set->display,
				       fleetview_part_name((enum fv_part)p), perr);
			goto out;
		}
		a.now[p] = &now[p];
		if (now[p].eval_ts > a.eval_ts)
			a.eval_ts = now[p].eval_ts;
	}
	/* The engine's time: its answers'. With no series at all, this machine's. */
	if (a.eval_ts <= 0)
		a.eval_ts = now_s;
	r = xfer_answer(k, &k->x[X_KNOWN], &body, &len, err);
	if (r == 0 && (r = promq_parse_series(body, len, &known, perr)) < 0)
		fleetview_errf(err, "%s: the hosts known: %s", k->set->display, perr);
	if (r < 0)
		goto out;
	a.known = &known;
	n_gone = fleetview_gone_hosts(&a, jobs, insts, FLEETVIEW_GONE_MAX);
	if (n_gone) {
		char *q = fleetview_query_gone(jobs, insts, n_gone,
					       (long long)(k->set->forget_after_ms / 1000));
		r = q ? xfer_setup(k, &k->x[X_GONE], ENGINE_API "query",
				   form_of("query", q, "&nocache=1"))
		      : -ENOMEM;
		free(q);
		if (r == 0)
			r = xfer_run(k, X_GONE, X_GONE + 1);
		if (r < 0) {
			fleetview_errf(err, "out of memory");
			goto out;
		}
		r = xfer_answer(k, &k->x[X_GONE], &body, &len, err);
		if (r == 0 && (r = promq_parse_vector(body, len, &gone, perr)) < 0)
			fleetview_errf(err, "%s: the hosts not reporting: %s", k->set->display,
				       perr);
		if (r < 0)
			goto out;
		a.gone = &gone;
	}
	r = fleetview_merge(&a, ret);
	if (r < 0)
		fleetview_errf(err, "out of memory");
out:
	for (int p = 0; p < FV_PARTS; p++)
		promq_result_free(&now[p]);
	promq_result_free(&known);
	promq_result_free(&gone);
	for (int i = 0; i < X_MAX; i++) { /* the answers' memory back now, not in an interval */
		free(k->x[i].body.p);
		k->x[i].body = (struct body){0};
	}
	return r;
}

/* The handles of the refreshes, kept by the thread. */
void fleetview_call_free(struct call *k)
{
	for (int i = 0; i < X_MAX; i++) {
		curl_easy_cleanup(k->x[i].easy);
		free(k->x[i].form);
		free(k->x[i].body.p);
	}
	curl_multi_cleanup(k->multi);
	curl_slist_free_all(k->headers);
}
