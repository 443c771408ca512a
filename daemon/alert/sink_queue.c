/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* pthread_setname_np() */
/*
 * The sinks: each a thread behind a bounded queue, with retries and backoff,
 * counters, and (for the types that want it) firing alerts sent again until
 * they resolve. The sink threads are edges: they log their own failures, by
 * sink name (never a setting: it may be a secret).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "nvmond/alert/mqtt_ha.h"
#include "nvmond/core/log.h"
#include "nvmond/util/mono_cond.h"
#include "nvmond/util/redact.h"
#include "nvmond/util/timefmt.h"
#include "nvmond/util/utf8.h"
#include "sink_internal.h"

#define ACTIVE_MAX 256 /* firing alerts a resending sink keeps track of */

struct sink {
	struct alert_sinks *owner; /* for the outbox's done hook */
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	struct alert_note *q; /* ring of cap entries */
	size_t cap, head, n;
	struct alert_sink_stats st;
	struct sink_conf conf; /* under lock; each delivery works on a copy */
	void *state;	       /* of the type's start() */
	/* resending sinks: the firing alerts, and when to send them again (monotonic) */
	struct alert_note *active;
	size_t n_active;
	int64_t next_resend_ms;
	/* a held connection (mqtt): what was last logged of it, main loop only */
	bool conn_told, conn_up;
	char conn_err[160];
};

struct alert_sinks {
	pthread_mutex_t lock; /* the list; each sink has its own lock */
	struct sink *v[ALERT_SINKS_MAX];
	size_t n;
	/* the drives' latest states, for a sink that starts (a reload) before the next poll */
	struct mqtt_drive_state *snap;
	size_t n_snap;
	alert_sink_done_fn done; /* the outbox's: set before any note is sent */
	void *done_ctx;
};

char *alert_note_drive(const struct alert_note *n, char *buf, size_t size)
{
	char named[2 * CFG_DEVICE_TEXT_MAX + 16] = "";

	if (n->label[0])
		snprintf(named, sizeof(named), " \"%s\"", n->label);
	if (n->location[0])
		snprintf(named + strlen(named), sizeof(named) - strlen(named), " at %s",
			 n->location);
	snprintf(buf, size, "%s%s (%s, serial %s)", n->device[0] ? n->device : "-", named,
		 n->model[0] ? n->model : "-", n->serial[0] ? n->serial : "-");
	return buf;
}

json_t *alert_note_json(const struct alert_note *n)
{
	char started[TIMEFMT_MAX], ts[TIMEFMT_MAX], resolved[TIMEFMT_MAX];

	json_t *j = json_pack(
		"{s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s*}", "alert_id",
		(json_int_t)n->alert_id, "device_id", (json_int_t)n->device_id, "device", n->device,
		"model", n->model, "serial", n->serial, "rule", n->rule, "severity", n->severity,
		"state", n->state, "message", n->message, "time", timefmt_rfc3339(n->ts_ms, ts),
		"started", timefmt_rfc3339(n->started_ms, started), "resolved",
		n->resolved_ms ? timefmt_rfc3339(n->resolved_ms, resolved) : NULL);
	/* What the operator calls the drive and the host (issue 24); null when unset. */
	if (j &&
	    (json_object_set_new(j, "label", n->label[0] ? json_string(n->label) : json_null()) <
		     0 ||
	     json_object_set_new(j, "location",
				 n->location[0] ? json_string(n->location) : json_null()) < 0 ||
	     json_object_set_new(j, "host", n->host[0] ? json_string(n->host) : json_null()) < 0)) {
		json_decref(j);
		return NULL;
	}
	/* The receiver's key against a duplicate after a crash (alerts.md). */
	if (j && n->note_id)
		json_object_set_new(j, "notification_id", json_integer(n->note_id));
	return j;
}

static void count(struct sink *s, uint64_t *field)
{
	pthread_mutex_lock(&s->lock);
	(*field)++;
	pthread_mutex_unlock(&s->lock);
}

void sink_msg_clean(char *dst, size_t size, const char *msg)
{
	redact_userinfo(dst, size, msg);
	utf8_copy(dst, size, dst);
}

void sink_curl_error(const char *url, int rc, const char *cerr, const char *where, char *err,
		     size_t errsize)
{
	char why[CURL_ERROR_SIZE];
	bool ambiguous = redact_url_ambiguous(url);

	/*
	 * libcurl names hosts in its messages; where the usual parse splits the
	 * userinfo early, its "host" is a piece of it ("Could not resolve host:
	 * admin"): then only its fixed text for @rc.
	 */
	redact_userinfo(why, sizeof(why),
			!ambiguous && cerr && cerr[0] ? cerr : curl_easy_strerror((CURLcode)rc));
	snprintf(err, errsize, "%s: %s%s", where, why,
		 ambiguous ? " (percent-encode the URL's user:password: %2F for a slash, %3F ?, "
			     "%23 #, %40 the at sign)"
			   : "");
}

/* A delivery failed: count it and say why in one step (never a URL's userinfo). */
static void fail(struct sink *s, const char *why)
{
	char msg[sizeof(s->st.last_error)];

	sink_msg_clean(msg, sizeof(msg), why);
	pthread_mutex_lock(&s->lock);
	s->st.failed++;
	memcpy(s->st.last_error, msg, sizeof(msg));
	pthread_mutex_unlock(&s->lock);
	log_warn("alert sink %s: %s", s->st.name, msg);
}

/* Sleep @ms unless asked to stop. Return: true when stopping. */
static bool sleep_or_stop(struct sink *s, int64_t ms)
{
	struct timespec until;
	bool stop;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&s->lock);
	while (!s->stop && pthread_cond_timedwait(&s->cond, &s->lock, &until) != ETIMEDOUT)
		;
	stop = s->stop;
	pthread_mutex_unlock(&s->lock);
	return stop;
}

/* The sink is done with @n (delivered or given up): the outbox may forget it. */
static void done(struct sink *s, const struct alert_note *n)
{
	if (n->note_id && s->owner && s->owner->done)
		s->owner->done(s->owner->done_ctx, s->st.name, n->note_id);
}

/* Deliver @n with @c, trying up to its attempts with a doubling backoff. */
static void deliver(struct sink *s, const struct sink_conf *c, const struct alert_note *n,
		    bool resend)
{
	char err[SINK_ERR_MAX] = "", why[SINK_ERR_MAX + 64];
	int64_t backoff = c->retry_min_ms;

	for (uint32_t attempt = 1;; attempt++) {
		int r = c->type->deliver(c, n, err, sizeof(err));
		if (r == 0) {
			count(s, resend ? &s->st.resent : &s->st.delivered);
			if (!resend)
				done(s, n);
			return;
		}
		if (r == -EPROTO || attempt >= c->attempts) {
			if (attempt > 1)
				snprintf(why, sizeof(why), "%s; gave up after %u attempts", err,
					 attempt);
			else
				snprintf(why, sizeof(why), "%s", err);
			fail(s, why);
			if (!resend)
				done(s, n);
			return;
		}
		count(s, &s->st.retries);
		if (sleep_or_stop(s, backoff))
			return;
		backoff = backoff * 2 > c->retry_max_ms ? c->retry_max_ms : backoff * 2;
	}
}

static struct alert_note *active_find(struct sink *s, int64_t alert_id)
{
	for (size_t i = 0; i < s->n_active; i++)
		if (s->active[i].alert_id == alert_id)
			return &s->active[i];
	return NULL;
}

/*
 * Track @n in a resending sink (locked). An escalation that changes the
 * severity changes the labels of the alert: @ret_old gets the old one, to be
 * resolved. Return: true when @ret_old is filled.
 */
static bool active_track(struct sink *s, const struct alert_note *n, struct alert_note *ret_old)
{
	struct alert_note *a;

	if (s->conf.resend_ms <= 0 || n->alert_id <= 0)
		return false;
	a = active_find(s, n->alert_id);
	if (!strcmp(n->state, "resolved")) {
		if (a)
			*a = s->active[--s->n_active];
		return false;
	}
	if (a) {
		bool changed = strcmp(a->severity, n->severity) != 0;
		if (changed) {
			*ret_old = *a;
			snprintf(ret_old->state, sizeof(ret_old->state), "resolved");
			ret_old->resolved_ms = n->ts_ms;
		}
		*a = *n;
		return changed;
	}
	if (s->n_active == ACTIVE_MAX)
		return false;
	if (!s->active && !(s->active = calloc(ACTIVE_MAX, sizeof(*s->active))))
		return false;
	if (s->n_active == 0)
		s->next_resend_ms = timefmt_mono_ms() + s->conf.resend_ms;
	s->active[s->n_active++] = *n;
	return false;
}

/* Send the firing alerts again (Alertmanager forgets them after their endsAt). */
static void resend_all(struct sink *s, const struct sink_conf *c)
{
	struct alert_note *v;
	size_t n;

	pthread_mutex_lock(&s->lock);
	n = s->n_active;
	v = n ? malloc(n * sizeof(*v)) : NULL;
	if (v)
		memcpy(v, s->active, n * sizeof(*v));
	s->next_resend_ms = timefmt_mono_ms() + s->conf.resend_ms;
	pthread_mutex_unlock(&s->lock);
	for (size_t i = 0; v && i < n; i++) {
		v[i].ts_ms = timefmt_now_ms();
		deliver(s, c, &v[i], true);
	}
	free(v);
}

static void mono_to_timespec(int64_t ms, struct timespec *ret)
{
	ret->tv_sec = ms / 1000;
	ret->tv_nsec = (ms % 1000) * 1000000;
}

static void *sink_main(void *arg)
{
	struct sink *s = arg;
	sigset_t pipe_set;
	char comm[16];

	snprintf(comm, sizeof(comm), "sink:%.10s", s->st.name);
	(void)pthread_setname_np(pthread_self(), comm);
	/* A hook that exits without reading stdin must not kill the daemon. */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);

	for (;;) {
		struct alert_note note, old;
		struct sink_conf c;
		bool resend = false, resolve_old = false;

		pthread_mutex_lock(&s->lock);
		while (!s->stop && s->n == 0) {
			if (s->conf.resend_ms > 0 && s->n_active) {
				struct timespec until;
				if (timefmt_mono_ms() >= s->next_resend_ms) {
					resend = true;
					break;
				}
				mono_to_timespec(s->next_resend_ms, &until);
				pthread_cond_timedwait(&s->cond, &s->lock, &until);
			} else {
				pthread_cond_wait(&s->cond, &s->lock);
			}
		}
		if (s->stop) {
			pthread_mutex_unlock(&s->lock);
			break;
		}
		if (!resend) {
			note = s->q[s->head];
			s->head = (s->head + 1) % s->cap;
			s->n--;
			resolve_old = active_track(s, &note, &old);
		}
		int r = sink_conf_copy(&s->conf, &c);
		pthread_mutex_unlock(&s->lock);
		if (r < 0) {
			fail(s, "out of memory");
			continue;
		}
		if (resend) {
			resend_all(s, &c);
		} else {
			if (resolve_old)
				deliver(s, &c, &old, true);
			deliver(s, &c, &note, false);
		}
		sink_conf_free(&c);
	}
	return NULL;
}

/* A queue of @cap, keeping what waits in it (the oldest first; beyond @cap, dropped and counted). Locked. */
static int sink_resize(struct sink *s, size_t cap)
{
	struct alert_note *q;
	size_t keep;

	cap = cap ? cap : 1;
	if (cap == s->cap)
		return 0;
	q = calloc(cap, sizeof(*q));
	if (!q)
		return -ENOMEM;
	keep = s->n < cap ? s->n : cap;
	for (size_t i = 0; i < keep; i++)
		q[i] = s->q[(s->head + i) % s->cap];
	s->st.dropped += s->n - keep;
	free(s->q);
	s->q = q;
	s->cap = cap;
	s->head = 0;
	s->n = keep;
	return 0;
}

/* Stop the thread and the type's connection; free @s. What still waits is dropped. */
static void sink_free(struct sink *s)
{
	if (!s)
		return;
	if (s->running) {
		pthread_mutex_lock(&s->lock);
		s->stop = true;
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
	}
	if (s->state && s->conf.type && s->conf.type->stop)
		s->conf.type->stop(s->state);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	sink_conf_free(&s->conf);
	free(s->active);
	free(s->q);
	free(s);
}

/* A new sink, running, that takes over @c. */
static int sink_new(struct alert_sinks *owner, struct sink_conf *c, struct sink **ret)
{
	struct sink *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->owner = owner;
	pthread_mutex_init(&s->lock, NULL);
	(void)mono_cond_init(&s->cond);
	s->conf = *c;
	memset(c, 0, sizeof(*c));
	snprintf(s->st.name, sizeof(s->st.name), "%s", s->conf.name);
	snprintf(s->st.type, sizeof(s->st.type), "%s", s->conf.type->name);
	r = sink_resize(s, s->conf.queue);
	if (r == 0 && s->conf.type->start) {
		r = s->conf.type->start(&s->conf, &s->state);
		s->conf.state = s->state;
	}
	if (r == 0)
		r = -pthread_create(&s->thread, NULL, sink_main, s);
	if (r < 0) {
		sink_free(s);
		return r;
	}
	s->running = true;
	s->st.enabled = true;
	*ret = s;
	return 0;
}

/* New settings for a running sink of the same type: from its next delivery on. */
static int sink_update(struct sink *s, struct sink_conf *c)
{
	int r;

	pthread_mutex_lock(&s->lock);
	r = sink_resize(s, c->queue);
	if (r == 0) {
		sink_conf_free(&s->conf);
		s->conf = *c;
		memset(c, 0, sizeof(*c));
		if (s->conf.resend_ms <= 0)
			s->n_active = 0;
		pthread_cond_broadcast(&s->cond);
	}
	pthread_mutex_unlock(&s->lock);
	return r;
}

int alert_sinks_check(const struct cfg *c, char *err, size_t errsize)
{
	struct sink_conf *v;
	size_t n;
	int r = sink_confs_load(c, &v, &n, err, errsize);

	if (r == 0)
		sink_confs_free(v, n);
	return r;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_FAILED_INIT;

static void curl_init_once(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/*
 * At the first transfer, not at start: libcurl's global init sets OpenSSL up, and
 * that maps about 2 MiB of libcrypto into the daemon (issue 14 §1, RSS under load),
 * which a daemon with no HTTP or mail sink never needs.
 */
int sink_curl_init(void)
{
	pthread_once(&curl_once, curl_init_once);
	return curl_init_rc == CURLE_OK ? 0 : -ENOMEM;
}

int alert_sinks_new(const struct cfg *c, struct alert_sinks **ret, char *err, size_t errsize)
{
	struct alert_sinks *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	r = alert_sinks_reconfigure(s, c, err, errsize);
	if (r < 0) {
		alert_sinks_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

int alert_sinks_reconfigure(struct alert_sinks *s, const struct cfg *c, char *err, size_t errsize)
{
	struct sink *v[ALERT_SINKS_MAX] = {0}, *old[ALERT_SINKS_MAX];
	struct sink_conf *confs;
	size_t n, n_old;
	int r = sink_confs_load(c, &confs, &n, err, errsize);

	if (r < 0)
		return r;
	pthread_mutex_lock(&s->lock);
	n_old = s->n;
	memcpy(old, s->v, sizeof(old));
	s->n = 0;
	pthread_mutex_unlock(&s->lock);
	for (size_t i = 0; i < n && r == 0; i++) {
		for (size_t k = 0; k < n_old; k++) {
			if (!old[k] || strcmp(old[k]->st.name, confs[i].name) != 0)
				continue;
			/* Same name and type, no connection to remake: keep it running. */
			if (old[k]->conf.type == confs[i].type && !confs[i].type->start) {
				r = sink_update(old[k], &confs[i]);
				v[i] = old[k];
				old[k] = NULL;
			}
			break;
		}
		if (!v[i] && r == 0) {
			for (size_t k = 0; k < n_old; k++)
				if (old[k] && !strcmp(old[k]->st.name, confs[i].name)) {
					sink_free(old[k]);
					old[k] = NULL;
				}
			r = sink_new(s, &confs[i], &v[i]);
		}
		if (r < 0)
			snprintf(err, errsize, "sink %s: cannot start: %s", confs[i].name,
				 strerror(-r));
	}
	for (size_t k = 0; k < n_old; k++)
		sink_free(old[k]);
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < n; i++)
		if (v[i]) {
			s->v[s->n++] = v[i];
			if (v[i]->state && v[i]->conf.type->states && s->n_snap)
				v[i]->conf.type->states(v[i]->state, s->snap, s->n_snap);
		}
	pthread_mutex_unlock(&s->lock);
	sink_confs_free(confs, n);
	return r;
}

struct alert_sinks *alert_sinks_free(struct alert_sinks *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		sink_free(s->v[i]);
	pthread_mutex_destroy(&s->lock);
	free(s->snap);
	free(s);
	return NULL;
}

/* Queue @n in @k. Return: 0 or -ENOBUFS (full: dropped and counted). */
static int sink_push(struct sink *k, const struct alert_note *n)
{
	int r = 0;

	pthread_mutex_lock(&k->lock);
	if (k->n < k->cap) {
		k->q[(k->head + k->n) % k->cap] = *n;
		k->n++;
		k->st.queued++;
		pthread_cond_signal(&k->cond);
	} else {
		k->st.dropped++;
		r = -ENOBUFS;
	}
	pthread_mutex_unlock(&k->lock);
	return r;
}

int alert_sinks_send(struct alert_sinks *s, const struct alert_note *n)
{
	int accepted = 0;

	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n; i++) {
		struct sink *k = s->v[i];
		pthread_mutex_lock(&k->lock);
		bool wants = sink_wants(&k->conf, n);
		pthread_mutex_unlock(&k->lock);
		if (wants && sink_push(k, n) == 0)
			accepted++;
	}
	pthread_mutex_unlock(&s->lock);
	return accepted;
}

int alert_sinks_send_to(struct alert_sinks *s, const char *name, const struct alert_note *n)
{
	int r = -ENOENT;

	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i]->st.name, name)) {
			r = sink_push(s->v[i], n);
			break;
		}
	pthread_mutex_unlock(&s->lock);
	return r;
}

/*
 * A held connection's changes, logged once each (the publisher itself never
 * logs): connected, or why not (a refused password, a broker that is down);
 * nothing while the first attempt is under way. The reason is the sink's
 * last_error while it lasts.
 */
static void sink_conn_check(struct sink *k)
{
	char err[sizeof(k->conn_err)] = "";
	bool up;

	if (!k->state || !k->conf.type->status)
		return;
	up = k->conf.type->status(k->state, err, sizeof(err));
	sink_msg_clean(err, sizeof(err), err);
	if (up && (!k->conn_told || !k->conn_up))
		log_info("sink %s: connected to the %s broker", k->st.name, k->st.type);
	else if (!up && err[0] && (!k->conn_told || k->conn_up || strcmp(err, k->conn_err)))
		log_warn("sink %s: %s", k->st.name, err);
	else
		return;
	k->conn_told = true;
	k->conn_up = up;
	snprintf(k->conn_err, sizeof(k->conn_err), "%s", err);
	if (!up) {
		pthread_mutex_lock(&k->lock);
		snprintf(k->st.last_error, sizeof(k->st.last_error), "%s", err);
		pthread_mutex_unlock(&k->lock);
	}
}

void alert_sinks_states(struct alert_sinks *s, const struct mqtt_drive_state *d, size_t n)
{
	pthread_mutex_lock(&s->lock);
	if (n && n != s->n_snap) {
		struct mqtt_drive_state *v = realloc(s->snap, (n ? n : 1) * sizeof(*v));
		if (!v) {
			pthread_mutex_unlock(&s->lock);
			return; /* the next poll tries again */
		}
		s->snap = v;
	}
	if (n)
		memcpy(s->snap, d, n * sizeof(*d));
	s->n_snap = n;
	/* The type's states() copies them and returns: no network here. */
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i]->state && s->v[i]->conf.type->states)
			s->v[i]->conf.type->states(s->v[i]->state, d, n);
	for (size_t i = 0; i < s->n; i++)
		sink_conn_check(s->v[i]);
	pthread_mutex_unlock(&s->lock);
}

void alert_sinks_seed(struct alert_sinks *s, const struct alert_note *n)
{
	struct alert_note unused;

	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n; i++) {
		struct sink *k = s->v[i];
		pthread_mutex_lock(&k->lock);
		if (sink_wants(&k->conf, n))
			(void)active_track(k, n, &unused);
		pthread_cond_signal(&k->cond);
		pthread_mutex_unlock(&k->lock);
	}
	pthread_mutex_unlock(&s->lock);
}

size_t alert_sinks_stats(struct alert_sinks *s, struct alert_sink_stats ret[ALERT_SINKS_MAX])
{
	size_t n;

	pthread_mutex_lock(&s->lock);
	n = s->n;
	for (size_t i = 0; i < n; i++) {
		struct sink *k = s->v[i];
		pthread_mutex_lock(&k->lock);
		ret[i] = k->st;
		ret[i].pending = k->n;
		pthread_mutex_unlock(&k->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return n;
}

size_t alert_sinks_targets(struct alert_sinks *s, const struct alert_note *n,
			   char ret[ALERT_SINKS_MAX][CFG_SINK_NAME_MAX])
{
	size_t k = 0;

	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n && k < ALERT_SINKS_MAX; i++) {
		struct sink *x = s->v[i];
		pthread_mutex_lock(&x->lock);
		if (sink_wants(&x->conf, n))
			snprintf(ret[k++], CFG_SINK_NAME_MAX, "%s", x->st.name);
		pthread_mutex_unlock(&x->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return k;
}

bool alert_sinks_has(struct alert_sinks *s, const char *name)
{
	bool has = false;

	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n && !has; i++)
		has = !strcmp(s->v[i]->st.name, name);
	pthread_mutex_unlock(&s->lock);
	return has;
}

void alert_sinks_on_done(struct alert_sinks *s, alert_sink_done_fn fn, void *ctx)
{
	s->done = fn;
	s->done_ctx = ctx;
}
