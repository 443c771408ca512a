/* SPDX-License-Identifier: MIT */
/*
 * The fleet page's service (see fleetview_svc.h): a thread that asks the engine
 * (libcurl, one reused handle, a deadline for the whole refresh), the last good view
 * rendered once, and GET /api/v1/fleet answered from it on the HTTP threads. The
 * requests to the engine are in fleetview_engine.c.
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
#include "nvmond/fleetview/fleetview_conf.h"
#include "nvmond/fleetview/fleetview_svc.h"
#include "nvmond/util/mono_cond.h"
#include "nvmond/util/secret_file.h"
#include "nvmond/util/timefmt.h"
#include "fleetview_svc_internal.h"

#define MIN_INTERVAL_MS 1000 /* the view is kept at least this long, whatever poll_interval */

/* ---- settings --------------------------------------------------------------- */

/* A message into @err (FLEETVIEW_ERR_MAX bytes), cut to fit. */
void fleetview_errf(char *err, const char *fmt, ...)
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

/*
 * The secret in @path: its first line, trailing blanks cut, the file judged as a
 * secret (secret_file.h). @key names it in messages.
 */
static int token_read(const char *key, const char *path, char ret[TOKEN_MAX], char *err)
{
	char why[FLEETVIEW_ERR_MAX];
	int r = secret_file_read(path, ret, TOKEN_MAX, SECRET_TRIM_BLANKS, why, sizeof(why));

	if (r == -ENODATA)
		fleetview_errf(err, "[fleet] %s %s: nothing in its first line", key, path);
	else if (r == -E2BIG)
		fleetview_errf(err, "[fleet] %s %s: longer than %d bytes", key, path,
			       TOKEN_MAX - 1);
	else if (r < 0)
		fleetview_errf(err, "[fleet] %s %s", key, why);
	return r < 0 ? -EINVAL : 0;
}

static int settings_of(const struct cfg *c, struct settings *ret, char *err)
{
	const struct fleet_conf *f = fleet_conf(c);
	struct settings s = {0};
	struct stat st;
	size_t n;

	if (fleetview_check_query_url(f->query_url, err, FLEETVIEW_ERR_MAX) < 0) {
		char why[FLEETVIEW_ERR_MAX];
		snprintf(why, sizeof(why), "%s", err);
		fleetview_errf(err, "[fleet] query_url: %s", why);
		return -EINVAL;
	}
	snprintf(s.url, sizeof(s.url), "%s", f->query_url);
	n = strlen(s.url);
	while (n > 0 && s.url[n - 1] == '/')
		s.url[--n] = '\0';
	url_display(s.url, s.display, sizeof(s.display));
	if (!f->basic_auth_user[0] != !f->basic_auth_password_file[0]) {
		fleetview_errf(err,
			       "[fleet] basic_auth_user and basic_auth_password_file go together");
		return -EINVAL;
	}
	if (f->basic_auth_user[0] && f->bearer_token_file[0]) {
		fleetview_errf(err, "[fleet] bearer_token_file or basic auth, not both");
		return -EINVAL;
	}
	if (strchr(f->basic_auth_user, ':')) {
		fleetview_errf(err, "[fleet] basic_auth_user: no ':' in a user name (RFC 7617)");
		return -EINVAL;
	}
	if (f->bearer_token_file[0] &&
	    token_read("bearer_token_file", f->bearer_token_file, s.token, err) < 0)
		return -EINVAL;
	if (f->basic_auth_password_file[0] &&
	    token_read("basic_auth_password_file", f->basic_auth_password_file, s.password, err) <
		    0)
		return -EINVAL;
	snprintf(s.user, sizeof(s.user), "%s", f->basic_auth_user);
	if (f->tls_ca_file[0] && stat(f->tls_ca_file, &st) < 0) {
		fleetview_errf(err, "[fleet] tls_ca_file %s: %s", f->tls_ca_file, strerror(errno));
		return -EINVAL;
	}
	snprintf(s.ca_file, sizeof(s.ca_file), "%s", f->tls_ca_file);
	snprintf(s.org_id, sizeof(s.org_id), "%s", f->org_id);
	s.timeout_ms = f->timeout_ms;
	s.interval_ms =
		c->poll_interval_ms > MIN_INTERVAL_MS ? c->poll_interval_ms : MIN_INTERVAL_MS;
	s.stale_after_ms = f->stale_after_ms;
	s.forget_after_ms = f->forget_after_ms;
	*ret = s;
	return 0;
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
static bool query_due(const struct fleetview_svc *s, int64_t now, int64_t *ret_wait_ms)
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
		if (!query_due(s, now, &wait_ms)) {
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
			r = fleetview_refresh(&k, s->have_view ? &s->view : NULL, &v, err);
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
	fleetview_call_free(&k);
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
	int r;

	s = calloc(1, sizeof(*s));
	if (!s) {
		fleetview_errf(err, "out of memory");
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
		fleetview_errf(err, "cannot start libcurl");
		return -ENOMEM;
	}
	pthread_mutex_init(&s->lock, NULL);
	(void)mono_cond_init(&s->wake);
	atomic_init(&s->stop, false);
	r = -pthread_create(&s->thread, NULL, thread_main, s);
	if (r < 0) {
		fleetview_errf(err, "cannot start the fleet thread: %s", strerror(-r));
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
