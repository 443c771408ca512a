/* SPDX-License-Identifier: MIT */
/*
 * Notification sinks: an exec hook and a webhook, each a thread behind a
 * bounded queue. These threads are edges: they log their own failures.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "nvmond/alert/alert_sink.h"
#include "nvmond/core/log.h"
#include "nvmond/util/timefmt.h"

struct sink_worker {
	struct alert_sinks *owner;
	const char *name;
	unsigned bit; /* ALERT_SINK_* */
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	struct alert_note *q; /* ring of cap entries */
	size_t cap, head, n;
	struct alert_sink_stats st;
	void (*deliver)(struct sink_worker *w, const struct alert_note *n);
};

/*
 * The settings of each sink are guarded by its worker's lock: a reload
 * (alert_sinks_reconfigure) changes them while the worker delivers, and each
 * delivery works on a copy taken when it starts.
 */
struct alert_sinks {
	char *exec_path;
	int64_t exec_timeout_ms;
	char *webhook_url;
	int64_t webhook_timeout_ms;
	uint32_t webhook_attempts;
	int64_t retry_min_ms, retry_max_ms;
	struct sink_worker exec, webhook;
	alert_sink_done_fn done; /* set before any note is sent */
	void *done_ctx;
};

/* What one webhook delivery works with. */
struct webhook_settings {
	char *url;
	int64_t timeout_ms;
	uint32_t attempts;
	int64_t retry_min_ms, retry_max_ms;
};

json_t *alert_note_json(const struct alert_note *n)
{
	char started[TIMEFMT_MAX], ts[TIMEFMT_MAX], resolved[TIMEFMT_MAX];
	json_t *j;

	j = json_pack("{s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s*}", "alert_id",
		      (json_int_t)n->alert_id, "device_id", (json_int_t)n->device_id, "device",
		      n->device, "model", n->model, "serial", n->serial, "rule", n->rule,
		      "severity", n->severity, "state", n->state, "message", n->message, "time",
		      timefmt_rfc3339(n->ts_ms, ts), "started",
		      timefmt_rfc3339(n->started_ms, started), "resolved",
		      n->resolved_ms ? timefmt_rfc3339(n->resolved_ms, resolved) : NULL);
	/* The receiver's key against a duplicate after a crash (alerts.md). */
	if (j && n->note_id)
		json_object_set_new(j, "notification_id", json_integer(n->note_id));
	return j;
}

/* The sink is done with @n (delivered or given up): the outbox may forget it. */
static void done(struct sink_worker *w, const struct alert_note *n)
{
	if (n->note_id && w->owner->done)
		w->owner->done(w->owner->done_ctx, w->bit, n->note_id);
}

static void fail(struct sink_worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A delivery failed: count it and say why in one step, so that a reader of
 * the counters never sees the failure without its reason.
 */
static void fail(struct sink_worker *w, const char *fmt, ...)
{
	char buf[sizeof(w->st.last_error)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&w->lock);
	w->st.failed++;
	memcpy(w->st.last_error, buf, sizeof(buf));
	pthread_mutex_unlock(&w->lock);
	log_warn("alert %s: %s", w->name, buf);
}

static void count(struct sink_worker *w, uint64_t *field)
{
	pthread_mutex_lock(&w->lock);
	(*field)++;
	pthread_mutex_unlock(&w->lock);
}

/* Sleep @ms unless asked to stop. Return: true when stopping. */
static bool sleep_or_stop(struct sink_worker *w, int64_t ms)
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
	pthread_mutex_lock(&w->lock);
	while (!w->stop && pthread_cond_timedwait(&w->cond, &w->lock, &until) != ETIMEDOUT)
		;
	stop = w->stop;
	pthread_mutex_unlock(&w->lock);
	return stop;
}

static void *worker_main(void *arg)
{
	struct sink_worker *w = arg;
	sigset_t pipe_set;

	/* A hook that exits without reading stdin must not kill the daemon. */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);

	for (;;) {
		struct alert_note note;

		pthread_mutex_lock(&w->lock);
		while (!w->stop && w->n == 0)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->stop) {
			pthread_mutex_unlock(&w->lock);
			break;
		}
		note = w->q[w->head];
		w->head = (w->head + 1) % w->cap;
		w->n--;
		pthread_mutex_unlock(&w->lock);
		w->deliver(w, &note);
	}
	return NULL;
}

static void worker_init(struct sink_worker *w, struct alert_sinks *owner, const char *name,
			void (*deliver)(struct sink_worker *, const struct alert_note *))
{
	pthread_condattr_t ca;

	w->owner = owner;
	w->name = name;
	w->deliver = deliver;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
}

/* A queue of @cap, keeping what waits in it (the oldest first; beyond @cap, dropped and counted). Locked. */
static int worker_resize(struct sink_worker *w, size_t cap)
{
	struct alert_note *q;
	size_t keep;

	cap = cap ? cap : 1;
	if (cap == w->cap)
		return 0;
	q = calloc(cap, sizeof(*q));
	if (!q)
		return -ENOMEM;
	keep = w->n < cap ? w->n : cap;
	for (size_t i = 0; i < keep; i++)
		q[i] = w->q[(w->head + i) % w->cap];
	w->st.dropped += w->n - keep;
	free(w->q);
	w->q = q;
	w->cap = cap;
	w->head = 0;
	w->n = keep;
	return 0;
}

/* Start the thread (with a queue of @cap) unless it runs; else resize its queue. */
static int worker_start(struct sink_worker *w, size_t cap)
{
	int r;

	pthread_mutex_lock(&w->lock);
	r = worker_resize(w, cap);
	pthread_mutex_unlock(&w->lock);
	if (r < 0 || w->running)
		return r;
	w->stop = false;
	r = -pthread_create(&w->thread, NULL, worker_main, w);
	if (r < 0)
		return r;
	pthread_mutex_lock(&w->lock);
	w->running = true;
	w->st.enabled = true;
	pthread_mutex_unlock(&w->lock);
	return 0;
}

/* Stop the thread: what still waits is dropped (and counted), a hook in flight gets its timeout. */
static void worker_stop(struct sink_worker *w)
{
	pthread_mutex_lock(&w->lock);
	if (!w->running) {
		pthread_mutex_unlock(&w->lock);
		return;
	}
	w->running = false;
	w->st.enabled = false;
	w->stop = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_mutex_lock(&w->lock);
	w->st.dropped += w->n;
	w->n = 0;
	pthread_mutex_unlock(&w->lock);
}

static void worker_free(struct sink_worker *w)
{
	worker_stop(w);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w->q);
	w->q = NULL;
}

static bool worker_push(struct sink_worker *w, const struct alert_note *n)
{
	bool ok;

	pthread_mutex_lock(&w->lock);
	if (!w->running) {
		pthread_mutex_unlock(&w->lock);
		return false;
	}
	ok = w->n < w->cap;
	if (ok) {
		w->q[(w->head + w->n) % w->cap] = *n;
		w->n++;
		w->st.queued++;
		pthread_cond_signal(&w->cond);
	} else {
		w->st.dropped++;
	}
	pthread_mutex_unlock(&w->lock);
	return ok;
}

/* ---- exec hook ---------------------------------------------------------- */

static void exec_run(struct sink_worker *w, const struct alert_note *n);

/* A hook run that ended, however it ended, is not run again after a restart. */
static void exec_deliver(struct sink_worker *w, const struct alert_note *n)
{
	exec_run(w, n);
	done(w, n);
}

static void exec_run(struct sink_worker *w, const struct alert_note *n)
{
	struct alert_sinks *s = w->owner;
	char env_store[13][256], ts[TIMEFMT_MAX], started[TIMEFMT_MAX];
	const char *path = getenv("PATH");
	int in[2], status = 0;
	size_t ne = 0;
	json_t *j = alert_note_json(n);
	char *body = j ? json_dumps(j, JSON_COMPACT) : NULL;
	pid_t pid;

	pthread_mutex_lock(&w->lock);
	char *exec_path = strdup(s->exec_path);
	int64_t timeout_ms = s->exec_timeout_ms;
	pthread_mutex_unlock(&w->lock);
	char *envp[16], *argv[] = {exec_path, NULL};

	json_decref(j);
	if (!body || !exec_path) {
		fail(w, "out of memory");
		free(body);
		free(exec_path);
		return;
	}
#define ENV(...)                                                                                   \
	snprintf(env_store[ne], sizeof(env_store[ne]), __VA_ARGS__), envp[ne] = env_store[ne], ne++
	ENV("NVMOND_ALERT_ID=%lld", (long long)n->alert_id);
	ENV("NVMOND_DEVICE_ID=%lld", (long long)n->device_id);
	ENV("NVMOND_DEVICE=%s", n->device);
	ENV("NVMOND_MODEL=%s", n->model);
	ENV("NVMOND_SERIAL=%s", n->serial);
	ENV("NVMOND_RULE=%s", n->rule);
	ENV("NVMOND_SEVERITY=%s", n->severity);
	ENV("NVMOND_STATE=%s", n->state);
	ENV("NVMOND_MESSAGE=%s", n->message);
	ENV("NVMOND_TIME=%s", timefmt_rfc3339(n->ts_ms, ts));
	ENV("NVMOND_STARTED=%s", timefmt_rfc3339(n->started_ms, started));
	ENV("NVMOND_NOTIFICATION_ID=%lld", (long long)n->note_id);
	ENV("PATH=%s", path ? path : "/usr/sbin:/usr/bin:/sbin:/bin");
#undef ENV
	envp[ne] = NULL;

	if (pipe2(in, O_CLOEXEC) < 0) {
		fail(w, "pipe: %s", strerror(errno));
		free(body);
		free(exec_path);
		return;
	}
	pid = fork();
	if (pid == 0) {
		/* Only async-signal-safe calls from here on. */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		setpgid(0, 0);
		dup2(in[0], STDIN_FILENO);
		execve(exec_path, argv, envp);
		_exit(127);
	}
	close(in[0]);
	if (pid < 0) {
		close(in[1]);
		fail(w, "fork: %s", strerror(errno));
		free(body);
		free(exec_path);
		return;
	}
	/* The JSON is small (well under a pipe buffer): this does not block. */
	size_t len = strlen(body), off = 0;
	while (off < len) {
		ssize_t k = write(in[1], body + off, len - off);
		if (k <= 0)
			break; /* the hook does not read stdin: fine */
		off += (size_t)k;
	}
	close(in[1]);
	free(body);

	int64_t deadline = timefmt_mono_ms() + timeout_ms;
	pid_t got;
	while ((got = waitpid(pid, &status, WNOHANG)) == 0) {
		if (timefmt_mono_ms() >= deadline) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			fail(w, "%s: killed after %lld ms (exec_timeout)", exec_path,
			     (long long)timeout_ms);
			free(exec_path);
			return;
		}
		struct timespec ten_ms = {0, 10000000};
		nanosleep(&ten_ms, NULL);
	}
	if (got < 0) {
		fail(w, "waitpid: %s", strerror(errno));
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		count(w, &w->st.delivered);
	} else {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			fail(w, "%s: could not be executed", exec_path);
		else if (WIFEXITED(status))
			fail(w, "%s: exit status %d", exec_path, WEXITSTATUS(status));
		else
			fail(w, "%s: killed by signal %d", exec_path,
			     WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	}
	free(exec_path);
}

/* ---- webhook ------------------------------------------------------------ */

static size_t discard(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	(void)ptr;
	(void)userdata;
	return size * nmemb;
}

/* One POST. Return: 0 on a 2xx answer, else -EIO with the reason in @err. */
static int webhook_post(const struct webhook_settings *s, const char *body, char *err,
			size_t errsize)
{
	struct curl_slist *hdr = NULL;
	char cerr[CURL_ERROR_SIZE] = "";
	long code = 0;
	CURL *c = curl_easy_init();
	int r = -EIO;

	if (!c) {
		snprintf(err, errsize, "curl_easy_init failed");
		return -ENOMEM;
	}
	hdr = curl_slist_append(hdr, "Content-Type: application/json");
	curl_easy_setopt(c, CURLOPT_URL, s->url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)s->timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)s->timeout_ms);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "nvmond");
	CURLcode rc = curl_easy_perform(c);
	if (rc != CURLE_OK) {
		snprintf(err, errsize, "%s", cerr[0] ? cerr : curl_easy_strerror(rc));
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		if (code >= 200 && code < 300)
			r = 0;
		else
			snprintf(err, errsize, "HTTP status %ld", code);
	}
	curl_slist_free_all(hdr);
	curl_easy_cleanup(c);
	return r;
}

static void webhook_deliver(struct sink_worker *w, const struct alert_note *n)
{
	struct alert_sinks *s = w->owner;
	json_t *j = alert_note_json(n);
	char *body = j ? json_dumps(j, JSON_COMPACT) : NULL;
	char err[CURL_ERROR_SIZE + 64] = "";
	struct webhook_settings ws;

	pthread_mutex_lock(&w->lock);
	ws = (struct webhook_settings){strdup(s->webhook_url), s->webhook_timeout_ms,
				       s->webhook_attempts, s->retry_min_ms, s->retry_max_ms};
	pthread_mutex_unlock(&w->lock);
	int64_t backoff = ws.retry_min_ms;

	json_decref(j);
	if (!body || !ws.url) {
		fail(w, "out of memory");
		free(body);
		free(ws.url);
		return;
	}
	for (uint32_t attempt = 1;; attempt++) {
		if (webhook_post(&ws, body, err, sizeof(err)) == 0) {
			count(w, &w->st.delivered);
			done(w, n);
			break;
		}
		if (attempt >= ws.attempts) {
			fail(w, "%s: %s; gave up after %u attempts", ws.url, err, attempt);
			done(w, n);
			break;
		}
		count(w, &w->st.retries);
		if (sleep_or_stop(w, backoff))
			break;
		backoff = backoff * 2 > ws.retry_max_ms ? ws.retry_max_ms : backoff * 2;
	}
	free(body);
	free(ws.url);
}

/* ---- the pair ----------------------------------------------------------- */

int alert_sinks_new(const struct alert_sink_cfg *c, struct alert_sinks **ret)
{
	struct alert_sinks *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	worker_init(&s->exec, s, "exec", exec_deliver);
	worker_init(&s->webhook, s, "webhook", webhook_deliver);
	s->exec.bit = ALERT_SINK_EXEC;
	s->webhook.bit = ALERT_SINK_WEBHOOK;
	r = alert_sinks_reconfigure(s, c);
	if (r < 0) {
		alert_sinks_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

/* Replace *@field by a copy of @v under @w's lock. Return: 0 or -ENOMEM. */
static int set_string(struct sink_worker *w, char **field, const char *v)
{
	char *copy = strdup(v);

	if (!copy)
		return -ENOMEM;
	pthread_mutex_lock(&w->lock);
	free(*field);
	*field = copy;
	pthread_mutex_unlock(&w->lock);
	return 0;
}

int alert_sinks_reconfigure(struct alert_sinks *s, const struct alert_sink_cfg *c)
{
	int r;

	if (c->exec_path && c->exec_path[0]) {
		r = set_string(&s->exec, &s->exec_path, c->exec_path);
		if (r < 0)
			return r;
		pthread_mutex_lock(&s->exec.lock);
		s->exec_timeout_ms = c->exec_timeout_ms;
		pthread_mutex_unlock(&s->exec.lock);
		r = worker_start(&s->exec, c->exec_queue);
		if (r < 0)
			return r;
	} else {
		worker_stop(&s->exec);
	}
	if (c->webhook_url && c->webhook_url[0]) {
		/* libcurl's global init is thread-safe since 7.84 and idempotent. */
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return -ENOMEM;
		r = set_string(&s->webhook, &s->webhook_url, c->webhook_url);
		if (r < 0)
			return r;
		pthread_mutex_lock(&s->webhook.lock);
		s->webhook_timeout_ms = c->webhook_timeout_ms;
		s->webhook_attempts = c->webhook_attempts ? c->webhook_attempts : 1;
		s->retry_min_ms = c->webhook_retry_min_ms > 0 ? c->webhook_retry_min_ms : 1000;
		s->retry_max_ms = c->webhook_retry_max_ms > s->retry_min_ms
					  ? c->webhook_retry_max_ms
					  : s->retry_min_ms;
		pthread_mutex_unlock(&s->webhook.lock);
		r = worker_start(&s->webhook, c->webhook_queue);
		if (r < 0)
			return r;
	} else {
		worker_stop(&s->webhook);
	}
	return 0;
}

struct alert_sinks *alert_sinks_free(struct alert_sinks *s)
{
	if (!s)
		return NULL;
	worker_free(&s->exec);
	worker_free(&s->webhook);
	free(s->exec_path);
	free(s->webhook_url);
	free(s);
	return NULL;
}

int alert_sinks_send(struct alert_sinks *s, const struct alert_note *n)
{
	return worker_push(&s->exec, n) + worker_push(&s->webhook, n);
}

unsigned alert_sinks_send_to(struct alert_sinks *s, const struct alert_note *n, unsigned mask)
{
	unsigned got = 0;

	if ((mask & ALERT_SINK_EXEC) && worker_push(&s->exec, n))
		got |= ALERT_SINK_EXEC;
	if ((mask & ALERT_SINK_WEBHOOK) && worker_push(&s->webhook, n))
		got |= ALERT_SINK_WEBHOOK;
	return got;
}

static bool worker_running(struct sink_worker *w)
{
	bool on;

	pthread_mutex_lock(&w->lock);
	on = w->running;
	pthread_mutex_unlock(&w->lock);
	return on;
}

unsigned alert_sinks_enabled(struct alert_sinks *s)
{
	return (worker_running(&s->exec) ? ALERT_SINK_EXEC : 0) |
	       (worker_running(&s->webhook) ? ALERT_SINK_WEBHOOK : 0);
}

void alert_sinks_on_done(struct alert_sinks *s, alert_sink_done_fn fn, void *ctx)
{
	s->done = fn;
	s->done_ctx = ctx;
}

static void worker_stats(struct sink_worker *w, struct alert_sink_stats *ret)
{
	pthread_mutex_lock(&w->lock);
	*ret = w->st;
	ret->pending = w->n;
	pthread_mutex_unlock(&w->lock);
}

void alert_sinks_stats(struct alert_sinks *s, struct alert_sink_stats *ret_exec,
		       struct alert_sink_stats *ret_webhook)
{
	worker_stats(&s->exec, ret_exec);
	worker_stats(&s->webhook, ret_webhook);
}
