/* SPDX-License-Identifier: MIT */
/*
 * The fleet page's service (see fleetview_svc.h): a thread that asks the engine
 * (libcurl, one reused handle, a deadline for the whole refresh), the last good view
 * rendered once, and GET /api/v1/fleet answered from it on the HTTP threads.
 */
#define _GNU_SOURCE /* asprintf, pthread_setname_np */
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

#define MIN_INTERVAL_MS 1000 /* the view is kept at least this long, whatever poll_interval */
#define TOKEN_MAX	4096
/* The engine's query API (Prometheus HTTP API v1), under query_url: not routes of nvmond. */
#define ENGINE_API "/api/v1/"

struct settings {
	char url[sizeof(((struct cfg *)0)->fleet_query_url)];	     /* without a trailing '/' */
	char display[sizeof(((struct cfg *)0)->fleet_query_url)];    /* without user:password@ */
	char token[TOKEN_MAX];					     /* "" = none */
	char user[sizeof(((struct cfg *)0)->fleet_basic_auth_user)]; /* basic auth; "" = none */
	char password[TOKEN_MAX];
	char ca_file[CFG_PATH_MAX];
	char org_id[sizeof(((struct cfg *)0)->fleet_org_id)];
	int64_t timeout_ms, interval_ms, stale_after_ms, forget_after_ms;
};

/* A rendered "hosts" array and its deflated form, shared by the requests that send it. */
struct blob {
	atomic_int refs;
	struct fv_deflated z;
	size_t len;
	char text[];
};

struct fleetview_svc {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* the thread waits on it */
	pthread_t thread;
	bool thread_started;
	atomic_bool stop;
	struct settings set;
	uint64_t set_gen; /* bumped by every reconfigure */
	/* The last good view, of settings view_gen. */
	struct fv_view view;
	bool have_view;
	uint64_t view_gen;
	struct blob *hosts;
	int64_t updated_ms, updated_mono, query_ms, engine_ms;
	/* The last refresh's failure ("" = it worked), of settings error_gen. */
	char error[FLEETVIEW_ERR_MAX];
	uint64_t error_gen;
	int64_t error_since_ms;
	int64_t last_request_mono, last_attempt_mono;
	bool want;	 /* a request asked for a refresh */
	bool refreshing; /* the thread is taking a view */
};

/* ---- settings --------------------------------------------------------------- */

/* A message into @err (FLEETVIEW_ERR_MAX bytes), cut to fit. */
static void errf(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void errf(char *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, FLEETVIEW_ERR_MAX, fmt, ap);
	va_end(ap);
}

int fleetview_check_query_url(const char *value, char *err, size_t errsize)
{
	const char *host;

	if (!value[0])
		return 0;
	if (strncmp(value, "http://", 7) == 0)
		host = value + 7;
	else if (strncmp(value, "https://", 8) == 0)
		host = value + 8;
	else {
		snprintf(err, errsize, "'%s': use http://HOST:PORT or https://HOST:PORT", value);
		return -EINVAL;
	}
	if (!host[0] || host[0] == '/' || host[0] == ':') {
		snprintf(err, errsize, "'%s': no host", value);
		return -EINVAL;
	}
	for (const char *p = value; *p; p++)
		if (*p == '?' || *p == '#' || (unsigned char)*p <= ' ' || *p == 0x7f) {
			snprintf(err, errsize,
				 "'%s': the base URL of the query API only (no query, fragment or "
				 "blank), e.g. http://vmselect:8481/select/0/prometheus",
				 value);
			return -EINVAL;
		}
	return 0;
}

/* @url without "user:password@", for messages and the API. */
static void url_display(const char *url, char *ret, size_t size)
{
	const char *host = strstr(url, "://");
	const char *at, *slash;

	host = host ? host + 3 : url;
	slash = strchr(host, '/');
	at = memchr(host, '@', slash ? (size_t)(slash - host) : strlen(host));
	if (!at) {
		snprintf(ret, size, "%s", url);
		return;
	}
	snprintf(ret, size, "%.*s%s", (int)(host - url), url, at + 1);
}

/* The secret in @path: its first line, trailing blanks cut. @key names it in messages. */
static int token_read(const char *key, const char *path, char ret[TOKEN_MAX], char *err)
{
	char buf[TOKEN_MAX + 1];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f) {
		errf(err, "[fleet] %s %s: %s", key, path, strerror(errno));
		return -EINVAL;
	}
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	n = strcspn(buf, "\r\n");
	if (n >= TOKEN_MAX) {
		errf(err, "[fleet] %s %s: longer than %d bytes", key, path, TOKEN_MAX - 1);
		return -EINVAL;
	}
	while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	if (!n) {
		errf(err, "[fleet] %s %s: nothing in its first line", key, path);
		return -EINVAL;
	}
	memcpy(ret, buf, n + 1);
	return 0;
}

static int settings_of(const struct cfg *c, struct settings *ret, char *err)
{
	struct settings s = {0};
	struct stat st;
	size_t n;

	if (fleetview_check_query_url(c->fleet_query_url, err, FLEETVIEW_ERR_MAX) < 0) {
		char why[FLEETVIEW_ERR_MAX];
		snprintf(why, sizeof(why), "%s", err);
		errf(err, "[fleet] query_url: %s", why);
		return -EINVAL;
	}
	snprintf(s.url, sizeof(s.url), "%s", c->fleet_query_url);
	n = strlen(s.url);
	while (n > 0 && s.url[n - 1] == '/')
		s.url[--n] = '\0';
	url_display(s.url, s.display, sizeof(s.display));
	if (!c->fleet_basic_auth_user[0] != !c->fleet_basic_auth_password_file[0]) {
		errf(err, "[fleet] basic_auth_user and basic_auth_password_file go together");
		return -EINVAL;
	}
	if (c->fleet_basic_auth_user[0] && c->fleet_bearer_token_file[0]) {
		errf(err, "[fleet] bearer_token_file or basic auth, not both");
		return -EINVAL;
	}
	if (strchr(c->fleet_basic_auth_user, ':')) {
		errf(err, "[fleet] basic_auth_user: no ':' in a user name (RFC 7617)");
		return -EINVAL;
	}
	if (c->fleet_bearer_token_file[0] &&
	    token_read("bearer_token_file", c->fleet_bearer_token_file, s.token, err) < 0)
		return -EINVAL;
	if (c->fleet_basic_auth_password_file[0] &&
	    token_read("basic_auth_password_file", c->fleet_basic_auth_password_file, s.password,
		       err) < 0)
		return -EINVAL;
	snprintf(s.user, sizeof(s.user), "%s", c->fleet_basic_auth_user);
	if (c->fleet_tls_ca_file[0] && stat(c->fleet_tls_ca_file, &st) < 0) {
		errf(err, "[fleet] tls_ca_file %s: %s", c->fleet_tls_ca_file, strerror(errno));
		return -EINVAL;
	}
	snprintf(s.ca_file, sizeof(s.ca_file), "%s", c->fleet_tls_ca_file);
	snprintf(s.org_id, sizeof(s.org_id), "%s", c->fleet_org_id);
	s.timeout_ms = c->fleet_timeout_ms;
	s.interval_ms =
		c->poll_interval_ms > MIN_INTERVAL_MS ? c->poll_interval_ms : MIN_INTERVAL_MS;
	s.stale_after_ms = c->fleet_stale_after_ms;
	s.forget_after_ms = c->fleet_forget_after_ms;
	*ret = s;
	return 0;
}

/* ---- talking to the engine ---------------------------------------------------- */

struct body {
	char *p;
	size_t len, cap;
	bool too_big;
};

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

/* The transfers of a refresh: every part, the hosts known, the hosts gone. */
enum {
	X_KNOWN = FV_PARTS,
	X_GONE,
	X_MAX,
};

/* One request to the engine: a POST of a form to a path under query_url. */
struct xfer {
	CURL *easy; /* kept from refresh to refresh: its connection stays open */
	char *form;
	struct body body;
	char url[sizeof(((struct settings *)0)->url) + 32];
	char cerr[CURL_ERROR_SIZE];
	CURLcode done;
	bool running;
};

/* The engine, its deadline and the handles for one refresh (the thread keeps them). */
struct call {
	struct fleetview_svc *svc;
	const struct settings *set;
	CURLM *multi;
	struct xfer x[X_MAX];
	struct curl_slist *headers;
	int64_t deadline_mono;
	int64_t engine_ms; /* time spent waiting for answers */
};

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
			errf(err, "%s%s: the answer is larger than %u MiB", k->set->display, path,
			     FLEETVIEW_BODY_MAX >> 20);
			return -E2BIG;
		}
		if (x->done == CURLE_OPERATION_TIMEDOUT) {
			errf(err, "%s: no answer within %lld ms ([fleet] timeout)", k->set->display,
			     (long long)k->set->timeout_ms);
			return -ETIMEDOUT;
		}
		if (x->done == CURLE_ABORTED_BY_CALLBACK) {
			errf(err, "%s: stopped", k->set->display);
			return -ECANCELED;
		}
		errf(err, "%s: %s", k->set->display,
		     x->cerr[0] ? x->cerr : curl_easy_strerror(x->done));
		return -EHOSTUNREACH;
	}
	if (status != 200 &&
	    !(status >= 400 && status < 600 && x->body.len && x->body.p[0] == '{')) {
		errf(err, "%s%s: HTTP %ld%s%.120s", k->set->display, path, status,
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
static int refresh(struct call *k, const struct fv_view *prev, struct fv_view *ret, char *err)
{
	struct promq_result now[FV_PARTS] = {0}, known = {0}, gone = {0};
	const char *jobs[FLEETVIEW_GONE_MAX], *insts[FLEETVIEW_GONE_MAX], *body;
	struct fv_answer a = {.prev = prev, .stale_after_s = (double)k->set->stale_after_ms / 1000};
	char perr[PROMQ_ERR_MAX], extra[96];
	double now_s = (double)timefmt_now_ms() / 1000;
	size_t n_gone, len;
	int r = 0;

	if (call_headers(k) < 0) {
		errf(err, "out of memory");
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
		errf(err, "out of memory");
		goto out;
	}
	for (int p = 0; p < FV_PARTS; p++) {
		r = xfer_answer(k, &k->x[p], &body, &len, err);
		if (r < 0)
			goto out;
		r = promq_parse_vector(body, len, &now[p], perr);
		if (r < 0) {
			errf(err, "%s: the %s query: %s", k->set->display,
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
		errf(err, "%s: the hosts known: %s", k->set->display, perr);
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
			errf(err, "out of memory");
			goto out;
		}
		r = xfer_answer(k, &k->x[X_GONE], &body, &len, err);
		if (r == 0 && (r = promq_parse_vector(body, len, &gone, perr)) < 0)
			errf(err, "%s: the hosts not reporting: %s", k->set->display, perr);
		if (r < 0)
			goto out;
		a.gone = &gone;
	}
	r = fleetview_merge(&a, ret);
	if (r < 0)
		errf(err, "out of memory");
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
static void call_free(struct call *k)
{
	for (int i = 0; i < X_MAX; i++) {
		curl_easy_cleanup(k->x[i].easy);
		free(k->x[i].form);
		free(k->x[i].body.p);
	}
	curl_multi_cleanup(k->multi);
	curl_slist_free_all(k->headers);
}

/* ---- the thread ------------------------------------------------------------------ */

static struct blob *blob_new(const char *text)
{
	size_t len = strlen(text);
	struct blob *b = malloc(sizeof(*b) + len + 1);

	if (!b)
		return NULL;
	atomic_init(&b->refs, 1);
	b->len = len;
	memcpy(b->text, text, len + 1);
	if (fleetview_deflate_part(b->text, len, &b->z) < 0) {
		free(b);
		return NULL;
	}
	return b;
}

static void blob_unref(struct blob *b)
{
	if (b && atomic_fetch_sub(&b->refs, 1) == 1) {
		fleetview_deflated_free(&b->z);
		free(b);
	}
}

static int64_t cond_deadline_wait(pthread_cond_t *c, pthread_mutex_t *m, int64_t ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return pthread_cond_timedwait(c, m, &ts);
}

/* Caller holds the lock: whether the thread should ask the engine now, else how long to wait. */
static bool due(const struct fleetview_svc *s, int64_t now, int64_t *ret_wait_ms)
{
	const struct settings *st = &s->set;
	bool looked_at = s->last_request_mono && now - s->last_request_mono <= 2 * st->interval_ms;
	int64_t next = s->last_attempt_mono + st->interval_ms;

	*ret_wait_ms = -1; /* until woken */
	if (!st->url[0])
		return false;
	if (s->want)
		return true;
	if (!looked_at)
		return false;
	if (!s->last_attempt_mono || now >= next)
		return true;
	*ret_wait_ms = next - now;
	return false;
}

static void *thread_main(void *arg)
{
	struct fleetview_svc *s = arg;
	struct call k = {.svc = s, .multi = curl_multi_init()};

	(void)pthread_setname_np(pthread_self(), "fleetview");
	pthread_mutex_lock(&s->lock);
	while (!atomic_load(&s->stop)) {
		int64_t now = timefmt_mono_ms(), wait_ms;

		if (s->have_view && s->view_gen != s->set_gen) {
			/* Another engine: its view goes. */
			fleetview_view_free(&s->view);
			blob_unref(s->hosts);
			s->hosts = NULL;
			s->have_view = false;
		}
		if (!due(s, now, &wait_ms)) {
			if (wait_ms < 0)
				pthread_cond_wait(&s->wake, &s->lock);
			else
				cond_deadline_wait(&s->wake, &s->lock, wait_ms);
			continue;
		}
		struct settings set = s->set;
		uint64_t gen = s->set_gen;
		struct fv_view v = {0};
		char err[FLEETVIEW_ERR_MAX] = "";
		char *hosts = NULL;
		int r;

		s->want = false;
		s->refreshing = true;
		s->last_attempt_mono = now;
		pthread_mutex_unlock(&s->lock);
		/* Only this thread replaces s->view: reading it unlocked is safe. */
		k.set = &set;
		k.deadline_mono = now + set.timeout_ms;
		k.engine_ms = 0;
		if (!k.multi) {
			r = -ENOMEM;
			snprintf(err, sizeof(err), "cannot start libcurl");
		} else {
			r = refresh(&k, s->have_view ? &s->view : NULL, &v, err);
		}
		if (r == 0) {
			hosts = fleetview_render_hosts(&v);
			if (!hosts) {
				r = -ENOMEM;
				snprintf(err, sizeof(err), "out of memory");
			}
		}
		struct blob *b = hosts ? blob_new(hosts) : NULL;
		free(hosts);
		if (r == 0 && !b) {
			r = -ENOMEM;
			snprintf(err, sizeof(err), "out of memory");
		}
		int64_t took = timefmt_mono_ms() - now;
		pthread_mutex_lock(&s->lock);
		if (gen != s->set_gen || r == -ECANCELED) {
			fleetview_view_free(&v); /* reconfigured meanwhile, or stopping */
			blob_unref(b);
		} else if (r == 0) {
			fleetview_view_free(&s->view);
			blob_unref(s->hosts);
			s->view = v;
			s->hosts = b;
			s->have_view = true;
			s->view_gen = gen;
			s->updated_ms = timefmt_now_ms() - took;
			s->updated_mono = now;
			s->query_ms = took;
			s->engine_ms = k.engine_ms;
			if (s->error[0])
				log_info("fleet: %s answers again", set.display);
			s->error[0] = '\0';
		} else {
			fleetview_view_free(&v);
			blob_unref(b);
			if (!s->error[0] || s->error_gen != gen) {
				s->error_since_ms = timefmt_now_ms();
				log_warn("fleet: %s (the fleet page shows the last good answer)",
					 err);
			}
			snprintf(s->error, sizeof(s->error), "%s", err);
			s->error_gen = gen;
		}
		s->refreshing = false;
	}
	pthread_mutex_unlock(&s->lock);
	call_free(&k);
	return NULL;
}

/* ---- the endpoint ------------------------------------------------------------------ */

static void on_fleet(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct fleetview_svc *s = ctx;
	struct fv_status st = {0};
	struct fv_view counts = {0};
	struct blob *hosts = NULL;
	char engine[sizeof(s->set.display)], error[FLEETVIEW_ERR_MAX];
	int64_t now, since = 0;
	bool has_since = false;
	const struct api_param params[] = {
		{.name = "since", .kind = API_PARAM_TIME, .dest.i64 = &since, .given = &has_since},
	};

	if (api_params_parse(req, params, 1, ret) < 0)
		return;
	pthread_mutex_lock(&s->lock);
	now = timefmt_mono_ms();
	st.configured = s->set.url[0] != '\0';
	st.interval_ms = s->set.interval_ms;
	st.stale_after_ms = s->set.stale_after_ms;
	if (st.configured) {
		bool have = s->have_view && s->view_gen == s->set_gen;

		/*
		 * Never wait for the engine: answer with the view there is (none yet: say so),
		 * with its age, and have the thread take a new one when it is an interval old
		 * (while requests come, it takes one every interval anyway).
		 */
		s->last_request_mono = now;
		if ((have && now - s->updated_mono >= s->set.interval_ms) ||
		    (!have &&
		     (!s->last_attempt_mono || now - s->last_attempt_mono >= s->set.interval_ms))) {
			s->want = true;
			pthread_cond_signal(&s->wake);
		}
		st.refreshing = s->refreshing || s->want;
		snprintf(engine, sizeof(engine), "%s", s->set.display);
		st.engine = engine;
		if (s->error[0] && s->error_gen == s->set_gen) {
			snprintf(error, sizeof(error), "%s", s->error);
			st.error = error;
			st.error_since_ms = s->error_since_ms;
		}
		if (s->have_view && s->view_gen == s->set_gen) {
			counts = s->view;
			counts.hosts = NULL; /* the counts only: the hosts are in the blob */
			st.view = &counts;
			st.updated_ms = s->updated_ms;
			st.age_ms = now - s->updated_mono;
			st.query_ms = s->query_ms;
			st.engine_ms = s->engine_ms;
			/* The client has this view already: the status alone. */
			st.unchanged = has_since && since == s->updated_ms;
			if (!st.unchanged) {
				hosts = s->hosts;
				atomic_fetch_add(&hosts->refs, 1);
			}
		}
	}
	pthread_mutex_unlock(&s->lock);
	ret->content_type = "application/json";
	if (!hosts) { /* the status alone, or no view yet */
		ret->text = fleetview_render_body(&st, NULL, &ret->text_len);
		if (!ret->text)
			api_reply_error(ret, 500, "out of memory");
		return;
	}
	/* The hosts as rendered and deflated once for this view; this request's head. */
	size_t hlen, tlen = sizeof(FLEETVIEW_BODY_TAIL) - 1;
	char *head = fleetview_render_head(&st, &hlen), *text = NULL;
	if (head) {
		text = malloc(hlen + hosts->len + tlen + 1);
		if (text) {
			memcpy(text, head, hlen);
			memcpy(text + hlen, hosts->text, hosts->len);
			memcpy(text + hlen + hosts->len, FLEETVIEW_BODY_TAIL, tlen + 1);
			ret->text = text;
			ret->text_len = hlen + hosts->len + tlen;
			if (fleetview_gzip_join(head, hlen, &hosts->z, FLEETVIEW_BODY_TAIL, tlen,
						&ret->text_gzip, &ret->text_gzip_len) < 0)
				ret->text_gzip = NULL; /* the server compresses it, then */
		}
	}
	free(head);
	blob_unref(hosts);
	if (!ret->text)
		api_reply_error(ret, 500, "out of memory");
}

struct api_endpoint fleetview_svc_endpoint(struct fleetview_svc *s)
{
	return (struct api_endpoint){"GET", "/api/v1/fleet", API_EP_QUERY, on_fleet, s};
}

/* ---- life ---------------------------------------------------------------------- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void curl_init_once(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int fleetview_svc_new(const struct cfg *c, struct fleetview_svc **ret, char err[FLEETVIEW_ERR_MAX])
{
	struct fleetview_svc *s;
	pthread_condattr_t ca;
	int r;

	s = calloc(1, sizeof(*s));
	if (!s) {
		errf(err, "out of memory");
		return -ENOMEM;
	}
	r = settings_of(c, &s->set, err);
	if (r < 0) {
		free(s);
		return r;
	}
	pthread_once(&curl_once, curl_init_once);
	if (curl_init_rc != CURLE_OK) {
		free(s);
		errf(err, "cannot start libcurl");
		return -ENOMEM;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_condattr_destroy(&ca);
	atomic_init(&s->stop, false);
	r = -pthread_create(&s->thread, NULL, thread_main, s);
	if (r < 0) {
		errf(err, "cannot start the fleet thread: %s", strerror(-r));
		fleetview_svc_free(s);
		return r;
	}
	s->thread_started = true;
	s->want = s->set.url[0] != '\0'; /* a first view at start: the first visitor sees one */
	*ret = s;
	return 0;
}

int fleetview_svc_reconfigure(struct fleetview_svc *s, const struct cfg *c,
			      char err[FLEETVIEW_ERR_MAX])
{
	struct settings set;
	int r = settings_of(c, &set, err);

	if (r < 0)
		return r;
	pthread_mutex_lock(&s->lock);
	bool same_engine =
		strcmp(set.url, s->set.url) == 0 && strcmp(set.token, s->set.token) == 0 &&
		strcmp(set.ca_file, s->set.ca_file) == 0 &&
		strcmp(set.org_id, s->set.org_id) == 0 && strcmp(set.user, s->set.user) == 0 &&
		strcmp(set.password, s->set.password) == 0;
	s->set = set;
	if (!same_engine) {
		s->set_gen++;
		s->last_attempt_mono = 0;
		s->want = set.url[0] != '\0';
	}
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

struct fleetview_svc *fleetview_svc_free(struct fleetview_svc *s)
{
	if (!s)
		return NULL;
	if (s->thread_started) {
		pthread_mutex_lock(&s->lock);
		atomic_store(&s->stop, true);
		pthread_cond_broadcast(&s->wake);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
	}
	fleetview_view_free(&s->view);
	blob_unref(s->hosts);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s);
	return NULL;
}
