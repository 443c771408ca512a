/* SPDX-License-Identifier: MIT */
/*
 * The remote-write exports (export_svc.h): one thread per [export "NAME"].
 *
 * A round of a thread: at each tick (every `interval`) the live part goes out
 * first, then stored samples from the cursors on, batch after batch, until they
 * are all sent or the next tick is due; so a long catch-up never holds back the
 * live part for more than one request. A round follows the poll that ends
 * nearest its tick (rw_round.h): the main loop, in that poll's wakeup, takes
 * the live part's share of it (metrics_gather()) and records the cursors that
 * moved, so that an idle daemon wakes once per poll for both (without a poll
 * near enough, the round goes at its own time and asks the loop through
 * mainq). Every request waits out the backoff of
 * the failures before it (doubling from 250 ms up to 5 s, as Prometheus's own
 * sender, or the engine's Retry-After): a dead engine gets a request now and
 * then, not a storm.
 *
 * Stored samples go in time order per series (the specification's MUST): a
 * drive's samples are sent in cursor order, and no live series is a stored one.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <jansson.h>

#include "nvmond/core/log.h"
#include "nvmond/core/mainq.h"
#include "nvmond/export/export_svc.h"
#include "nvmond/export/rw_round.h"
#include "nvmond/export/rw_text.h"
#include "nvmond/metrics/metrics_stored.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/store/store.h"
#include "nvmond/store/store_export.h"
#include "nvmond/util/mono_cond.h"
#include "nvmond/util/timefmt.h"
#include "export_internal.h"

#define BACKOFF_MIN_MS	  250
#define BACKOFF_MAX_MS	  5000
#define DROP_LOG_EVERY_MS 10000

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_rc;

static void curl_init_once(void)
{
	curl_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int export_check(const struct cfg *c, char *err, size_t errsize)
{
	struct export_conf *v = NULL;
	size_t n = 0;
	int r = export_confs_load(c, &v, &n, err, errsize);

	for (size_t i = 0; i < n; i++)
		export_conf_wipe(&v[i]);
	free(v);
	return r;
}

/* ---- waiting -------------------------------------------------------------- */

/* Sleep until the monotonic @until_ms, a stop or a reload. Return: false when stopping. */
static bool wait_until(struct exporter *x, int64_t until_ms)
{
	struct timespec ts = {.tv_sec = until_ms / 1000, .tv_nsec = (until_ms % 1000) * 1000000};

	pthread_mutex_lock(&x->lock);
	while (!atomic_load(&x->stop) && !x->changed && timefmt_mono_ms() < until_ms)
		if (pthread_cond_timedwait(&x->cond, &x->lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&x->lock);
	return !atomic_load(&x->stop);
}

/*
 * Between rounds: until a poll's round ending in the window of the one due at
 * @tick_ms starts it (export_svc_round()), or the window's end, a stop or a
 * reload. Return: the live part's share the loop took for it (NULL: none, the
 * round asks through mainq); *@kicked: a poll's round started it.
 */
static struct metrics_gathered *wait_round(struct exporter *x, int64_t tick_ms, bool *kicked)
{
	struct rw_round_window w;
	struct metrics_gathered *g;

	rw_round_window(tick_ms, x->conf.interval_ms, x->conf.poll_ms, &w);
	struct timespec ts = {.tv_sec = w.by_ms / 1000, .tv_nsec = (w.by_ms % 1000) * 1000000};
	pthread_mutex_lock(&x->lock);
	x->round_from_mono = w.from_ms > 0 ? w.from_ms : 1;
	while (!atomic_load(&x->stop) && !x->changed && !x->kicked && timefmt_mono_ms() < w.by_ms)
		if (pthread_cond_timedwait(&x->cond, &x->lock, &ts) == ETIMEDOUT)
			break;
	x->round_from_mono = 0;
	*kicked = x->kicked;
	x->kicked = false;
	g = x->gathered;
	x->gathered = NULL;
	pthread_mutex_unlock(&x->lock);
	return g;
}

static void take_changes(struct exporter *x)
{
	pthread_mutex_lock(&x->lock);
	if (x->changed) {
		export_conf_wipe(&x->conf);
		x->conf = x->next;
		export_conf_wipe(&x->next);
		x->changed = false;
		snprintf(x->url_public, sizeof(x->url_public), "%s", x->conf.url_public);
		x->interval_ms = x->conf.interval_ms;
	}
	pthread_mutex_unlock(&x->lock);
}

/* ---- the main loop's part ------------------------------------------------- */

struct start_job {
	struct export_svc *svc;
	const char *name;
	int64_t created_ms;
};

static int start_on_main(void *arg)
{
	struct start_job *j = arg;

	return store_export_start(j->svc->writer, j->name, timefmt_now_ms(), &j->created_ms);
}

/* Under @x->lock: @id's cursor at @sent_ms among the pending ones. Return: 0 or -ENOMEM. */
int export_pending_put(struct exporter *x, int64_t id, int64_t sent_ms)
{
	size_t k = 0;

	while (k < x->n_pending && x->pending[k].device_id != id)
		k++;
	if (k == x->n_pending) {
		if (x->n_pending == x->cap_pending) {
			size_t cap = x->cap_pending ? 2 * x->cap_pending : 8;
			struct export_cursor *nv = realloc(x->pending, cap * sizeof(*nv));
			if (!nv)
				return -ENOMEM;
			x->pending = nv;
			x->cap_pending = cap;
		}
		x->pending[x->n_pending++] = (struct export_cursor){id, sent_ms};
	} else if (sent_ms > x->pending[k].sent_ms) {
		x->pending[k].sent_ms = sent_ms;
	}
	return 0;
}

/*
 * On the main loop (or once the threads are joined): the cursors of @x that
 * moved, recorded. Failing, they stay pending for the next time, and it says so.
 */
static int record_pending(struct exporter *x)
{
	struct export_cursor *v;
	size_t n;
	int r;

	pthread_mutex_lock(&x->lock);
	v = x->pending;
	n = x->n_pending;
	x->pending = NULL;
	x->n_pending = x->cap_pending = 0;
	pthread_mutex_unlock(&x->lock);
	if (!n) {
		free(v);
		return 0;
	}
	r = store_export_advance(x->svc->writer, x->name, v, n);
	if (r < 0) {
		log_errno(LOG_LVL_WARNING, -r,
			  "export %s: cannot record where it is (tried again after the next "
			  "poll)",
			  x->name);
		/* Back among the pending ones (any that came meanwhile are further on). */
		pthread_mutex_lock(&x->lock);
		for (size_t i = 0; i < n; i++)
			if (export_pending_put(x, v[i].device_id, v[i].sent_ms) < 0)
				break; /* dropped: sent again after a restart */
		pthread_mutex_unlock(&x->lock);
	}
	free(v);
	return r;
}

static int record_on_main(void *arg)
{
	return record_pending(arg);
}

/* ---- counters ------------------------------------------------------------- */

static void count(struct exporter *x, const struct rw_answer *a, uint64_t samples)
{
	int64_t now = timefmt_now_ms();

	pthread_mutex_lock(&x->lock);
	if (a->action == RW_DONE) {
		x->st.up = true;
		x->st.requests++;
		x->st.samples_sent += samples;
		x->st.last_success_ms = now;
	} else {
		x->st.up = false;
		x->st.requests_failed++;
		x->st.last_error_ms = now;
		snprintf(x->last_error, sizeof(x->last_error), "%s", a->message);
		if (a->action == RW_DROP)
			x->st.samples_dropped += samples;
	}
	pthread_mutex_unlock(&x->lock);
}

/* ---- one request ---------------------------------------------------------- */

/*
 * Send what @x->batch holds, once, after the backoff (unless that ends past
 * @deadline: then RW_RETRY without a request). Logs a change of state and each
 * refused batch (with the engine's message; at most one line per 10 s).
 */
enum rw_action export_send_batch(struct exporter *x, int64_t deadline, const char *what)
{
	struct export_reply rep;
	struct rw_answer a;
	uint8_t *body = NULL;
	size_t len = 0;
	uint64_t n = rw_batch_sample_count(x->batch);
	int64_t now = timefmt_mono_ms();

	if (n == 0)
		return RW_DONE;
	if (x->not_before_mono > now) {
		if (x->not_before_mono > deadline)
			return RW_RETRY;
		if (!wait_until(x, x->not_before_mono))
			return RW_RETRY;
	}
	int r = rw_batch_encode(x->batch, &body, &len, NULL);
	if (r < 0) {
		log_errno(LOG_LVL_WARNING, -r, "export %s: cannot encode %s of %" PRIu64 " samples",
			  x->name, what, n);
		return RW_RETRY;
	}
	r = export_http_post(x->http, &x->conf, body, len, &x->stop, &rep);
	free(body);
	if (r == -ECANCELED)
		return RW_RETRY;
	rw_answer_classify(r < 0 ? 0 : rep.status, rep.retry_after[0] ? rep.retry_after : NULL,
			   r < 0 ? rep.curl_error : rep.body,
			   r < 0 ? strlen(rep.curl_error) : rep.body_len, timefmt_now_ms(), &a);
	count(x, &a, n);
	now = timefmt_mono_ms();
	if (a.action == RW_RETRY) {
		if (x->failures++ == 0)
			log_warn("export %s: %s: %s (retrying with backoff; polling goes on)",
				 x->name, x->conf.url_public, a.message);
		x->not_before_mono =
			now + (a.retry_after_ms >= 0 ? a.retry_after_ms
						     : rw_backoff_ms(x->failures, BACKOFF_MIN_MS,
								     BACKOFF_MAX_MS));
		return RW_RETRY;
	}
	if (x->failures)
		log_info("export %s: %s answers again after %u failed requests", x->name,
			 x->conf.url_public, x->failures);
	x->failures = 0;
	x->not_before_mono = 0;
	if (a.action == RW_DROP) {
		/* The engine refuses it, and would again: dropped, said (each new reason at
		 * once, the same one every 10 s at most), counted. */
		if (now - x->drop_logged_mono >= DROP_LOG_EVERY_MS || !x->drop_logged_mono ||
		    strcmp(x->drop_logged, a.message) != 0) {
			log_warn("export %s: %s refused %s of %" PRIu64 " samples, dropped: %s%s",
				 x->name, x->conf.url_public, what, n, a.message,
				 x->drops_unlogged ? " (and more refused since the last line)"
						   : "");
			x->drop_logged_mono = now;
			x->drops_unlogged = 0;
			snprintf(x->drop_logged, sizeof(x->drop_logged), "%s", a.message);
		} else {
			x->drops_unlogged++;
		}
	}
	return a.action;
}

/* ---- the live part -------------------------------------------------------- */

/* @g: the live part's share the main loop took in a poll's wakeup (consumed); NULL: ask it. */
static void push_live(struct exporter *x, struct metrics_gathered *g, int64_t deadline)
{
	struct rw_label ext[EXPORT_EXT_MAX];
	struct rw_keys cur = {0};
	char *text = NULL;
	size_t len = 0;
	int64_t ts = timefmt_now_ms();

	/* Per series the timestamps only grow, whatever the wall clock does. */
	if (ts <= x->live_last_ts)
		ts = x->live_last_ts + 1;
	int r = g ? metrics_collect_gathered(g, x->ro, ts, true, &text, &len)
		  : metrics_collect(x->svc->metrics, x->svc->fleet, x->ro, ts, true, &text, &len);
	metrics_gathered_free(g);
	if (r < 0) {
		if (r != -ECANCELED)
			log_errno(LOG_LVL_WARNING, -r, "export %s: cannot gather the live series",
				  x->name);
		return;
	}
	for (size_t i = 0; i < x->conf.n_ext; i++)
		ext[i] = (struct rw_label){x->conf.ext_v[i].name, x->conf.ext_v[i].value};
	rw_batch_reset(x->batch);
	r = rw_live_build(x->batch, text, len, ext, x->conf.n_ext, ts, &x->live_prev, &cur);
	free(text);
	if (r < 0) {
		log_errno(LOG_LVL_WARNING, -r, "export %s: cannot build the live series", x->name);
		return;
	}
	/* Not sent again when it fails: the next tick's is newer. */
	if (export_send_batch(x, deadline, "the live series") == RW_DONE) {
		rw_keys_free(&x->live_prev);
		x->live_prev = cur;
		x->live_last_ts = ts;
	} else {
		rw_keys_free(&cur);
	}
}

/* ---- the thread ----------------------------------------------------------- */

/* Its read-only handle and where it is; Return: 0, or negative errno (tried again). */
static int exporter_prepare(struct exporter *x)
{
	char err[STORE_ERR_MAX];
	int r;

	if (!x->ro && (r = store_open_readonly(x->svc->db_path, &x->ro, err)) < 0) {
		log_warn("export %s: cannot open the database: %s", x->name, err);
		return r;
	}
	if (!x->created_ms) {
		struct start_job j = {.svc = x->svc, .name = x->name};
		r = mainq_call(x->svc->mainq, start_on_main, &j);
		if (r < 0)
			return r;
		x->created_ms = j.created_ms;
	}
	return export_refresh_devices(x);
}

static void *exporter_main(void *arg)
{
	struct exporter *x = arg;
	int64_t next_tick;
	char tname[16];

	/* "exp-NAME" in top -H, perf, and the benchmark's per-thread CPU. */
	snprintf(tname, sizeof(tname), "exp-%.11s", x->name);
	(void)pthread_setname_np(pthread_self(), tname);
	take_changes(x);
	while (exporter_prepare(x) < 0)
		if (!wait_until(x, timefmt_mono_ms() + 1000))
			return NULL;
	export_refresh_backlog(x); /* what waits from before (an outage, a restart) shows at once */
	log_info("export %s: remote write to %s every %lld ms, stored samples from %s on", x->name,
		 x->conf.url_public, (long long)x->conf.interval_ms,
		 timefmt_rfc3339(x->n_devs ? x->devs[0].sent_ms : x->created_ms,
				 (char[TIMEFMT_MAX]){0}));
	next_tick = timefmt_mono_ms();
	struct metrics_gathered *g = NULL;
	bool kicked = false;
	while (!atomic_load(&x->stop)) {
		take_changes(x);
		int64_t now = timefmt_mono_ms();
		if (kicked || now >= next_tick) {
			next_tick = rw_round_next(next_tick, now, x->conf.interval_ms);
			push_live(x, g, next_tick);
			g = NULL;
			if (export_refresh_devices(x) < 0)
				log_warn("export %s: cannot list the drives: %s", x->name,
					 store_strerror(x->ro));
			while (!atomic_load(&x->stop) && timefmt_mono_ms() < next_tick &&
			       export_catch_up_once(x, next_tick))
				;
			export_refresh_backlog(x);
			/* A round at its own time records its cursors now; a poll's, at the next. */
			pthread_mutex_lock(&x->lock);
			bool pending = x->n_pending > 0;
			pthread_mutex_unlock(&x->lock);
			if (!kicked && pending)
				(void)mainq_call(x->svc->mainq, record_on_main, x);
		}
		g = wait_round(x, next_tick, &kicked);
	}
	metrics_gathered_free(g);
	return NULL;
}

/* Stop @x's thread and wait for it. */
static void exporter_join(struct exporter *x)
{
	if (!x->started)
		return;
	atomic_store(&x->stop, true);
	pthread_mutex_lock(&x->lock);
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
	pthread_join(x->thread, NULL);
	x->started = false;
}

static struct exporter *exporter_free(struct exporter *x)
{
	if (!x)
		return NULL;
	exporter_join(x);
	/* The thread joined: whatever it last read from the cursors it recorded, or will
	 * read again at the next start. */
	export_http_free(x->http);
	rw_batch_free(x->batch);
	rw_keys_free(&x->live_prev);
	store_close(x->ro);
	free(x->devs);
	export_conf_wipe(&x->conf);
	export_conf_wipe(&x->next);
	metrics_gathered_free(x->gathered);
	free(x->pending);
	pthread_cond_destroy(&x->cond);
	pthread_mutex_destroy(&x->lock);
	free(x);
	return NULL;
}

static int exporter_start(struct export_svc *e, const struct export_conf *c, struct exporter **ret)
{
	struct exporter *x = calloc(1, sizeof(*x));
	int r;

	if (!x)
		return -ENOMEM;
	pthread_mutex_init(&x->lock, NULL);
	(void)mono_cond_init(&x->cond);
	x->svc = e;
	snprintf(x->name, sizeof(x->name), "%s", c->name);
	snprintf(x->st.name, sizeof(x->st.name), "%s", c->name);
	snprintf(x->url_public, sizeof(x->url_public), "%s", c->url_public);
	x->interval_ms = c->interval_ms;
	x->next = *c;
	x->changed = true;
	x->http = export_http_new();
	x->batch = rw_batch_new();
	if (!x->http || !x->batch) {
		exporter_free(x);
		return -ENOMEM;
	}
	r = -pthread_create(&x->thread, NULL, exporter_main, x);
	if (r < 0) {
		exporter_free(x);
		return r;
	}
	x->started = true;
	*ret = x;
	return 0;
}

/* ---- the service ---------------------------------------------------------- */

static void handle_list(void *ctx, const struct api_request *req, struct api_reply *ret);

int export_svc_new(const struct cfg *c, struct fleet *fleet, struct mainq *q, struct store *writer,
		   struct metrics_source *metrics, struct export_svc **ret, char *err,
		   size_t errsize)
{
	struct export_svc *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	pthread_mutex_init(&e->lock, NULL);
	e->mainq = q;
	e->writer = writer;
	e->fleet = fleet;
	e->metrics = metrics;
	snprintf(e->db_path, sizeof(e->db_path), "%s", c->database);
	e->endpoints[0] = (struct api_endpoint){
		.method = "GET", .pattern = "/api/v1/exports", .fn = handle_list, .ctx = e};
	/* /metrics shows the exports' counters; set before any thread reads it. */
	metrics->export_stats = export_svc_stats;
	metrics->export_ctx = e;
	int r = export_svc_reconfigure(e, c, err, errsize);
	if (r < 0) {
		metrics->export_stats = NULL;
		export_svc_free(e);
		return r;
	}
	*ret = e;
	return 0;
}

int export_svc_reconfigure(struct export_svc *e, const struct cfg *c, char *err, size_t errsize)
{
	struct export_conf *v = NULL;
	struct exporter **nv = NULL;
	size_t n = 0, k = 0;
	int r = export_confs_load(c, &v, &n, err, errsize);

	if (r < 0)
		return r;
	if (n) {
		pthread_once(&curl_once, curl_init_once);
		if (curl_rc != CURLE_OK) {
			snprintf(err, errsize, "libcurl's global init failed");
			r = -ENOMEM;
			goto out;
		}
	}
	nv = calloc(n ? n : 1, sizeof(*nv));
	struct exporter **retired =
		realloc(e->retired, (e->n_retired + e->n) * sizeof(*retired) + sizeof(*retired));
	if (!nv || !retired) {
		free(nv);
		if (retired)
			e->retired = retired;
		snprintf(err, errsize, "out of memory");
		r = -ENOMEM;
		goto out;
	}
	e->retired = retired;
	pthread_mutex_lock(&e->lock);
	for (size_t i = 0; i < n; i++) {
		struct exporter *x = NULL;
		for (size_t j = 0; j < e->n; j++)
			if (e->v[j] && strcmp(e->v[j]->name, v[i].name) == 0) {
				x = e->v[j];
				e->v[j] = NULL;
			}
		if (x) { /* running: the new settings at its next round */
			pthread_mutex_lock(&x->lock);
			export_conf_wipe(&x->next);
			x->next = v[i];
			x->changed = true;
			pthread_cond_broadcast(&x->cond);
			pthread_mutex_unlock(&x->lock);
		} else if ((r = exporter_start(e, &v[i], &x)) < 0) {
			log_errno(LOG_LVL_ERROR, -r, "export %s: cannot start", v[i].name);
			r = 0;
			continue;
		}
		nv[k++] = x;
	}
	/* No longer configured: stopped now, joined at free (it may be waiting on the loop). */
	for (size_t j = 0; j < e->n; j++)
		if (e->v[j]) {
			atomic_store(&e->v[j]->stop, true);
			pthread_mutex_lock(&e->v[j]->lock);
			pthread_cond_broadcast(&e->v[j]->cond);
			pthread_mutex_unlock(&e->v[j]->lock);
			log_info("export %s: no longer configured, stopped", e->v[j]->name);
			e->retired[e->n_retired++] = e->v[j];
		}
	free(e->v);
	e->v = nv;
	e->n = k;
	pthread_mutex_unlock(&e->lock);
out:
	for (size_t i = 0; i < n; i++)
		export_conf_wipe(&v[i]);
	free(v);
	return r;
}

void export_svc_round(void *ctx)
{
	struct export_svc *e = ctx;
	int64_t now = timefmt_mono_ms();

	/* e->v and e->retired change on the main loop only (reconfigure): read here
	 * without e->lock. A stopped export's last cursors too. */
	for (size_t i = 0; i < e->n_retired; i++)
		(void)record_pending(e->retired[i]);
	for (size_t i = 0; i < e->n; i++) {
		struct exporter *x = e->v[i];
		struct metrics_gathered *g = NULL;

		(void)record_pending(x);
		pthread_mutex_lock(&x->lock);
		bool due = x->round_from_mono && now >= x->round_from_mono && !x->kicked;
		pthread_mutex_unlock(&x->lock);
		if (!due)
			continue;
		/* Without it (ENOMEM) the round asks through mainq. */
		(void)metrics_gather(e->metrics, e->fleet, &g);
		pthread_mutex_lock(&x->lock);
		metrics_gathered_free(x->gathered);
		x->gathered = g;
		x->kicked = true;
		pthread_cond_broadcast(&x->cond);
		pthread_mutex_unlock(&x->lock);
	}
}

size_t export_svc_stats(void *ctx, struct metrics_export *ret, size_t max)
{
	struct export_svc *e = ctx;
	size_t n = 0;

	if (!e)
		return 0;
	pthread_mutex_lock(&e->lock);
	for (size_t i = 0; i < e->n && n < max; i++) {
		pthread_mutex_lock(&e->v[i]->lock);
		ret[n++] = e->v[i]->st;
		pthread_mutex_unlock(&e->v[i]->lock);
	}
	pthread_mutex_unlock(&e->lock);
	return n;
}

static json_t *time_or_null(int64_t ms)
{
	char buf[TIMEFMT_MAX];

	return ms ? json_string(timefmt_rfc3339(ms, buf)) : json_null();
}

static json_t *exporter_json(struct exporter *x)
{
	json_t *o;

	pthread_mutex_lock(&x->lock);
	const struct metrics_export *s = &x->st;
	o = json_pack("{s:s, s:s, s:s, s:I, s:b, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o}",
		      "name", x->name, "type", "remote_write", "url", x->url_public, "interval_ms",
		      (json_int_t)x->interval_ms, "up", s->up, "catching_up", x->catching_up,
		      "lag_ms", (json_int_t)s->lag_ms, "backlog_samples", (json_int_t)s->backlog,
		      "samples_sent", (json_int_t)s->samples_sent, "samples_dropped",
		      (json_int_t)s->samples_dropped, "requests", (json_int_t)s->requests,
		      "request_failures", (json_int_t)s->requests_failed, "last_success",
		      time_or_null(s->last_success_ms), "last_error_at",
		      time_or_null(s->last_error_ms), "last_error",
		      x->last_error[0] ? json_string(x->last_error) : json_null());
	pthread_mutex_unlock(&x->lock);
	return o;
}

static void handle_list(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct export_svc *e = ctx;
	json_t *list = json_array();

	(void)req;
	pthread_mutex_lock(&e->lock);
	for (size_t i = 0; list && i < e->n; i++)
		if (json_array_append_new(list, exporter_json(e->v[i])) < 0) {
			json_decref(list);
			list = NULL;
		}
	pthread_mutex_unlock(&e->lock);
	ret->json = list ? json_pack("{s:o}", "exports", list) : NULL;
	if (!ret->json)
		api_reply_error(ret, 500, "out of memory");
}

const struct api_endpoint *export_svc_endpoints(struct export_svc *e, size_t *ret_n)
{
	*ret_n = sizeof(e->endpoints) / sizeof(e->endpoints[0]);
	return e->endpoints;
}

struct export_svc *export_svc_free(struct export_svc *e)
{
	if (!e)
		return NULL;
	/* Tell every thread first, so they stop together, then join them. */
	for (size_t i = 0; i < e->n; i++)
		atomic_store(&e->v[i]->stop, true);
	/* Joined: the cursors they moved since the last poll, recorded. */
	for (size_t i = 0; i < e->n; i++) {
		exporter_join(e->v[i]);
		(void)record_pending(e->v[i]);
		exporter_free(e->v[i]);
	}
	for (size_t i = 0; i < e->n_retired; i++) {
		exporter_join(e->retired[i]);
		(void)record_pending(e->retired[i]);
		exporter_free(e->retired[i]);
	}
	free(e->v);
	free(e->retired);
	pthread_mutex_destroy(&e->lock);
	free(e);
	return NULL;
}
