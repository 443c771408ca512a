/* SPDX-License-Identifier: MIT */
/*
 * The notification sinks against the real thing: a local HTTP listener (a
 * socket served by a thread of this test) for the webhook, real processes for
 * the exec hook.
 */
#define _GNU_SOURCE /* strcasestr */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "nvmond/alert/alert_sink.h"
#include "nvmond/util/timefmt.h"

/* ---- a tiny HTTP listener ------------------------------------------------ */

struct listener {
	int fd;
	uint16_t port;
	bool hang; /* accept, read, never answer (a dead webhook) */
	pthread_t thread;
	pthread_mutex_t lock;
	int received;
	char last_body[2048];
	char all[32768]; /* every body, one a line */
	volatile bool stop;
};

static void *listener_main(void *arg)
{
	struct listener *l = arg;

	while (!l->stop) {
		int c = accept(l->fd, NULL, NULL);
		if (c < 0)
			continue;
		char buf[8192];
		size_t n = 0;
		/* Read headers, then Content-Length bytes of body. */
		for (;;) {
			ssize_t k = read(c, buf + n, sizeof(buf) - 1 - n);
			if (k <= 0)
				break;
			n += (size_t)k;
			buf[n] = '\0';
			char *end = strstr(buf, "\r\n\r\n");
			char *cl = strcasestr(buf, "Content-Length:");
			if (end && cl && n >= (size_t)(end + 4 - buf) + (size_t)atoi(cl + 15))
				break;
		}
		if (l->hang) {
			while (!l->stop)
				usleep(10000);
			close(c);
			break;
		}
		char *body = strstr(buf, "\r\n\r\n");
		pthread_mutex_lock(&l->lock);
		l->received++;
		snprintf(l->last_body, sizeof(l->last_body), "%s", body ? body + 4 : "");
		size_t used = strlen(l->all);
		snprintf(l->all + used, sizeof(l->all) - used, "%s\n", l->last_body);
		pthread_mutex_unlock(&l->lock);
		static const char ok[] =
			"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
		cr_assert_eq(write(c, ok, sizeof(ok) - 1), (ssize_t)sizeof(ok) - 1);
		close(c);
	}
	return NULL;
}

static void listener_start(struct listener *l, uint16_t port, bool hang)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	socklen_t len = sizeof(a);
	int one = 1;

	memset(l, 0, sizeof(*l));
	l->hang = hang;
	pthread_mutex_init(&l->lock, NULL);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l->fd = socket(AF_INET, SOCK_STREAM, 0);
	cr_assert_geq(l->fd, 0);
	setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct timeval tv = {0, 100000}; /* accept() wakes up to see stop */
	setsockopt(l->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	cr_assert_eq(bind(l->fd, (struct sockaddr *)&a, sizeof(a)), 0, "bind: %s", strerror(errno));
	cr_assert_eq(listen(l->fd, 16), 0);
	getsockname(l->fd, (struct sockaddr *)&a, &len);
	l->port = ntohs(a.sin_port);
	cr_assert_eq(pthread_create(&l->thread, NULL, listener_main, l), 0);
}

static void listener_stop(struct listener *l)
{
	l->stop = true;
	pthread_join(l->thread, NULL);
	close(l->fd);
}

static int listener_received(struct listener *l)
{
	pthread_mutex_lock(&l->lock);
	int n = l->received;
	pthread_mutex_unlock(&l->lock);
	return n;
}

/* A port nobody listens on (bound once, then released). */
static uint16_t dead_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	getsockname(fd, (struct sockaddr *)&a, &len);
	close(fd);
	return ntohs(a.sin_port);
}

static struct alert_note note(int64_t id)
{
	struct alert_note n = {.alert_id = id,
			       .device_id = 1,
			       .started_ms = 1764460800000LL,
			       .ts_ms = 1764460801000LL};
	snprintf(n.device, sizeof(n.device), "nvme0");
	snprintf(n.model, sizeof(n.model), "Samsung SSD 950 PRO 512GB");
	snprintf(n.serial, sizeof(n.serial), "S2GMNX0H");
	snprintf(n.rule, sizeof(n.rule), "throttling");
	snprintf(n.severity, sizeof(n.severity), "warning");
	snprintf(n.state, sizeof(n.state), "firing");
	snprintf(n.message, sizeof(n.message), "light thermal throttling; it's \"hot\"");
	return n;
}

/* The counters of the sink @name; a zeroed struct (enabled false) when there is none. */
static struct alert_sink_stats stats_of(struct alert_sinks *s, const char *name)
{
	struct alert_sink_stats v[ALERT_SINKS_MAX], none = {0};
	size_t n = alert_sinks_stats(s, v);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return v[i];
	return none;
}

static struct alert_sink_stats webhook_stats(struct alert_sinks *s)
{
	return stats_of(s, "webhook");
}

static struct alert_sink_stats exec_stats(struct alert_sinks *s)
{
	return stats_of(s, "exec");
}

/* A configuration: built-in defaults plus { section, key, value } triples, NULL-ended. */
static struct cfg *cfg_of(const char *const *kv)
{
	struct cfg *c = malloc(sizeof(*c));
	char err[CFG_ERR_MAX];

	cr_assert_not_null(c);
	cfg_defaults(c);
	for (; kv && kv[0]; kv += 3)
		cr_assert_eq(cfg_set(c, kv[0], kv[1], kv[2], err), 0, "%s %s: %s", kv[0], kv[1],
			     err);
	return c;
}

static struct alert_sinks *sinks_of(const char *const *kv)
{
	struct cfg *c = cfg_of(kv);
	struct alert_sinks *s = NULL;
	char err[256];

	cr_assert_eq(alert_sinks_new(c, &s, err, sizeof(err)), 0, "%s", err);
	free(c);
	return s;
}

static void sinks_reconfigure(struct alert_sinks *s, const char *const *kv)
{
	struct cfg *c = cfg_of(kv);
	char err[256];

	cr_assert_eq(alert_sinks_reconfigure(s, c, err, sizeof(err)), 0, "%s", err);
	free(c);
}

/* A webhook sink called "webhook" at @url, backing off from 100 ms. */
#define WEBHOOK(url, queue, attempts, retry_max)                                                   \
	"sink \"webhook\"", "type", "webhook", "sink \"webhook\"", "url", url, "sink \"webhook\"", \
		"queue", queue, "sink \"webhook\"", "attempts", attempts, "sink \"webhook\"",      \
		"retry_min", "100ms", "sink \"webhook\"", "retry_max", retry_max,                  \
		"sink \"webhook\"", "timeout", "2s"

#define WAIT_UNTIL(cond, ms)                                                                       \
	do {                                                                                       \
		int64_t until_ = timefmt_mono_ms() + (ms);                                         \
		while (!(cond) && timefmt_mono_ms() < until_)                                      \
			usleep(10000);                                                             \
	} while (0)

/* ---- webhook ------------------------------------------------------------- */

Test(alert_sink, webhook_delivers_json)
{
	struct listener l;
	struct alert_sinks *s;
	char url[64];

	listener_start(&l, 0, false);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/hook", l.port);
	/* The [alerts] webhook key is the sink "webhook", as before named sinks. */
	const char *const kv[] = {"alerts",	      "webhook", url, "alerts",
				  "webhook_attempts", "3",	 NULL};
	s = sinks_of(kv);
	for (int i = 1; i <= 3; i++) {
		struct alert_note n = note(i);
		cr_assert_eq(alert_sinks_send(s, &n), 1);
	}
	WAIT_UNTIL(webhook_stats(s).delivered == 3, 10000);
	struct alert_sink_stats st = webhook_stats(s);
	cr_assert_eq(st.delivered, 3);
	cr_assert_eq(st.failed + st.dropped + st.retries, 0);
	cr_assert_eq(listener_received(&l), 3);

	json_error_t err;
	json_t *j = json_loads(l.last_body, 0, &err);
	cr_assert_not_null(j, "body is JSON: %s (%s)", err.text, l.last_body);
	cr_assert_str_eq(json_string_value(json_object_get(j, "rule")), "throttling");
	cr_assert_str_eq(json_string_value(json_object_get(j, "serial")), "S2GMNX0H");
	cr_assert_str_eq(json_string_value(json_object_get(j, "message")),
			 "light thermal throttling; it's \"hot\"");
	cr_assert_eq(json_integer_value(json_object_get(j, "alert_id")), 3);
	json_decref(j);
	alert_sinks_free(s);
	listener_stop(&l);
}

Test(alert_sink, webhook_retries_while_the_listener_is_down)
{
	struct listener l;
	struct alert_sinks *s;
	uint16_t port = dead_port();
	char url[64];

	snprintf(url, sizeof(url), "http://127.0.0.1:%u/hook", port);
	const char *const kv[] = {WEBHOOK(url, "8", "20", "300ms"), NULL};
	s = sinks_of(kv);
	struct alert_note n = note(7);
	cr_assert_eq(alert_sinks_send(s, &n), 1);
	WAIT_UNTIL(webhook_stats(s).retries >= 3, 10000);
	struct alert_sink_stats st = webhook_stats(s);
	cr_assert_geq(st.retries, 3, "retried while down");
	cr_assert_eq(st.delivered, 0);
	cr_assert_eq(st.failed, 0, "not given up yet");

	listener_start(&l, port, false); /* the webhook comes back */
	WAIT_UNTIL(webhook_stats(s).delivered == 1, 10000);
	cr_assert_eq(webhook_stats(s).delivered, 1, "delivered once it is up");
	cr_assert_eq(listener_received(&l), 1);
	alert_sinks_free(s);
	listener_stop(&l);
}

Test(alert_sink, webhook_gives_up_after_its_attempts)
{
	struct alert_sinks *s;
	char url[64];

	snprintf(url, sizeof(url), "http://127.0.0.1:%u/hook", dead_port());
	const char *const kv[] = {WEBHOOK(url, "8", "3", "100ms"), NULL};
	s = sinks_of(kv);
	struct alert_note n = note(1);
	alert_sinks_send(s, &n);
	WAIT_UNTIL(webhook_stats(s).failed == 1, 10000);
	struct alert_sink_stats st = webhook_stats(s);
	cr_assert_eq(st.failed, 1);
	cr_assert_eq(st.retries, 2, "3 attempts = 2 retries");
	cr_assert(strstr(st.last_error, "gave up after 3 attempts"), "%s", st.last_error);
	alert_sinks_free(s);
}

Test(alert_sink, dead_webhook_drops_and_counts_when_the_queue_is_full)
{
	struct listener l;
	struct alert_sinks *s;
	char url[64];

	listener_start(&l, 0, true); /* accepts, never answers */
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/hook", l.port);
	const char *const kv[] = {WEBHOOK(url, "2", "1", "100ms"), NULL};
	s = sinks_of(kv);
	struct alert_note n = note(1);
	alert_sinks_send(s, &n);
	WAIT_UNTIL(webhook_stats(s).pending == 0, 5000); /* the first one is in flight */

	int64_t t0 = timefmt_mono_ms();
	int accepted = 0;
	for (int i = 2; i <= 11; i++) {
		n = note(i);
		accepted += alert_sinks_send(s, &n);
	}
	int64_t took = timefmt_mono_ms() - t0;
	cr_assert_lt(took, 200, "sending never waits for the webhook (%lld ms)", (long long)took);
	struct alert_sink_stats st = webhook_stats(s);
	cr_assert_eq(accepted, 2, "the queue holds 2");
	cr_assert_eq(st.pending, 2);
	cr_assert_eq(st.dropped, 8, "the rest is dropped and counted");
	cr_assert_eq(st.queued, 3);
	listener_stop(&l);
	alert_sinks_free(s);
}

/* ---- exec hook ----------------------------------------------------------- */

static void write_script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	cr_assert_eq(chmod(path, 0755), 0);
}

static char *slurp(const char *path)
{
	static char buf[8192]; /* test helper only */
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

Test(alert_sink, exec_hook_gets_env_and_json_on_stdin)
{
	char dir[] = "/tmp/nvmond-sink-XXXXXX", hook[128], out[128], cmd[512];
	struct alert_sinks *s;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(hook, sizeof(hook), "%s/hook.sh", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(cmd, sizeof(cmd),
		 "{ echo \"$NVMOND_STATE $NVMOND_RULE $NVMOND_SEVERITY $NVMOND_SERIAL "
		 "$NVMOND_DEVICE $NVMOND_ALERT_ID [$NVMOND_LABEL] [$NVMOND_LOCATION]\"; cat; "
		 "echo; } >> %s",
		 out);
	write_script(hook, cmd);
	const char *const kv[] = {"alerts", "exec", hook, NULL};
	s = sinks_of(kv);
	struct alert_note n = note(42);
	/* Issue 24: the drive's label and location, in the environment and the JSON. */
	strcpy(n.label, "bay 3 – scratch");
	strcpy(n.location, "rack 12");
	cr_assert_eq(alert_sinks_send(s, &n), 1);
	WAIT_UNTIL(exec_stats(s).delivered == 1, 10000);
	cr_assert_eq(exec_stats(s).delivered, 1);
	char *text = slurp(out);
	cr_assert_not_null(text);
	cr_assert(strstr(text, "firing throttling warning S2GMNX0H nvme0 42 [bay 3 – scratch] "
			       "[rack 12]\n"),
		  "%s", text);
	cr_assert(strstr(text, "\"rule\":\"throttling\""), "%s", text);
	cr_assert(strstr(text, "\"location\":\"rack 12\""), "%s", text);
	alert_sinks_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

/*
 * Issue 23 §5: a hook inherited every descriptor of the daemon not marked
 * close-on-exec (libmosquitto's socket pair and the broker's connection among
 * them: a hook wrote a PUBLISH to one). It gets 0, 1 and 2 only: here a file
 * and a socket pair opened without O_CLOEXEC stay out of it. The hook execs
 * ls, which lists its own descriptors; the one ls opens to read the list is
 * the only other, and points at /proc/PID/fd.
 */
Test(alert_sink, exec_hook_gets_stdin_stdout_stderr_only)
{
	char dir[] = "/tmp/nvmond-sink-XXXXXX", hook[128], out[128], cmd[512];
	int leak = open("/dev/null", O_RDONLY), pair[2];

	cr_assert_geq(leak, 3);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(hook, sizeof(hook), "%s/hook.sh", dir);
	snprintf(out, sizeof(out), "%s/fds", dir);
	snprintf(cmd, sizeof(cmd), "exec ls -l /proc/self/fd > %s", out);
	write_script(hook, cmd);
	const char *const kv[] = {"alerts", "exec", hook, NULL};
	struct alert_sinks *s = sinks_of(kv);
	struct alert_note n = note(7);
	cr_assert_eq(alert_sinks_send(s, &n), 1);
	WAIT_UNTIL(exec_stats(s).delivered == 1, 10000);
	cr_assert_eq(exec_stats(s).delivered, 1, "%s", exec_stats(s).last_error);
	FILE *f = fopen(out, "r");
	cr_assert_not_null(f);
	char line[512];
	int std = 0, other = 0;
	while (fgets(line, sizeof(line), f)) {
		int fd;
		char target[256] = "";
		const char *arrow = strstr(line, " -> ");
		if (!arrow || sscanf(arrow + 4, "%255s", target) != 1)
			continue; /* "total 0" */
		const char *num = arrow;
		while (num > line && num[-1] != ' ')
			num--;
		fd = atoi(num);
		if (fd <= 2)
			std++;
		else if (!(strncmp(target, "/proc/", 6) == 0 && strstr(target, "/fd"))) {
			other++;
			cr_expect(false, "the hook got fd %d -> %s", fd, target);
		}
	}
	fclose(f);
	cr_expect_eq(std, 3, "0, 1 and 2");
	cr_expect_eq(other, 0);
	alert_sinks_free(s);
	close(leak);
	close(pair[0]);
	close(pair[1]);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(alert_sink, exec_hook_is_killed_after_its_timeout)
{
	char dir[] = "/tmp/nvmond-sink-XXXXXX", hook[128], cmd[256];
	struct alert_sinks *s;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(hook, sizeof(hook), "%s/slow.sh", dir);
	write_script(hook, "sleep 30");
	const char *const kv[] = {"alerts", "exec", hook, "alerts", "exec_timeout", "300ms", NULL};
	s = sinks_of(kv);
	struct alert_note n = note(1);
	int64_t t0 = timefmt_mono_ms();
	alert_sinks_send(s, &n);
	WAIT_UNTIL(exec_stats(s).failed == 1, 10000);
	cr_assert_eq(exec_stats(s).failed, 1);
	cr_assert_lt(timefmt_mono_ms() - t0, 5000);
	cr_assert(strstr(exec_stats(s).last_error, "killed after 300 ms"), "%s",
		  exec_stats(s).last_error);
	alert_sinks_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(alert_sink, failing_hook_is_counted)
{
	const char *const kv[] = {"alerts", "exec", "/bin/false", NULL};
	struct alert_sinks *s = sinks_of(kv);

	struct alert_note n = note(1);
	alert_sinks_send(s, &n);
	WAIT_UNTIL(exec_stats(s).failed == 1, 10000);
	cr_assert_eq(exec_stats(s).failed, 1);
	cr_assert(strstr(exec_stats(s).last_error, "exit status 1"), "%s",
		  exec_stats(s).last_error);
	alert_sinks_free(s);
}

/* ---- reload ---------------------------------------------------------------- */

Test(alert_sink, reconfigure_moves_the_webhook_adds_a_hook_and_keeps_the_counters)
{
	char dir[] = "/tmp/nvmond-sink-XXXXXX", hook[128], out[128], cmd[256], url_a[64], url_b[64];
	struct listener a, b;
	struct alert_sinks *s;

	listener_start(&a, 0, false);
	listener_start(&b, 0, false);
	snprintf(url_a, sizeof(url_a), "http://127.0.0.1:%u/hook", a.port);
	snprintf(url_b, sizeof(url_b), "http://127.0.0.1:%u/hook", b.port);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(hook, sizeof(hook), "%s/hook.sh", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(cmd, sizeof(cmd), "echo \"$NVMOND_ALERT_ID\" >> %s", out);
	write_script(hook, cmd);

	const char *const kv1[] = {WEBHOOK(url_a, "8", "1", "100ms"), NULL};
	s = sinks_of(kv1);
	struct alert_note n1 = note(1), n2 = note(2), n3 = note(3);
	cr_assert_eq(alert_sinks_send(s, &n1), 1, "only the webhook");
	WAIT_UNTIL(webhook_stats(s).delivered == 1, 10000);
	cr_assert_eq(listener_received(&a), 1);

	/* The webhook moves to b and a hook appears. */
	const char *const kv2[] = {WEBHOOK(url_b, "8", "1", "100ms"), "alerts", "exec", hook, NULL};
	sinks_reconfigure(s, kv2);
	cr_assert_eq(alert_sinks_send(s, &n2), 2, "webhook and hook");
	WAIT_UNTIL(webhook_stats(s).delivered == 2 && exec_stats(s).delivered == 1, 10000);
	struct alert_sink_stats w = webhook_stats(s);
	cr_assert_eq(w.delivered, 2, "the counters carry over a reload");
	cr_assert_eq(w.queued, 2);
	cr_assert(w.enabled);
	cr_assert_eq(listener_received(&a), 1, "nothing more to the old URL");
	cr_assert_eq(listener_received(&b), 1);
	cr_assert_eq(exec_stats(s).delivered, 1);

	/* The webhook goes away: only the hook is left. */
	const char *const kv3[] = {"alerts", "exec", hook, NULL};
	sinks_reconfigure(s, kv3);
	cr_assert_not(webhook_stats(s).enabled);
	cr_assert_eq(alert_sinks_send(s, &n3), 1, "only the hook");
	WAIT_UNTIL(exec_stats(s).delivered == 2, 10000);
	cr_assert_eq(exec_stats(s).delivered, 2);
	cr_assert_eq(listener_received(&b), 1);
	char *text = slurp(out);
	cr_assert_not_null(text);
	cr_assert_str_eq(text, "2\n3\n");
	alert_sinks_free(s);
	listener_stop(&a);
	listener_stop(&b);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(alert_sink, a_smaller_queue_keeps_the_oldest_and_counts_the_rest)
{
	struct listener l;
	struct alert_sinks *s;
	char url[64];

	listener_start(&l, 0, true); /* hangs: the first note stays in flight */
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/hook", l.port);
	const char *const kv1[] = {WEBHOOK(url, "8", "1", "100ms"), NULL};
	s = sinks_of(kv1);
	for (int i = 1; i <= 6; i++) {
		struct alert_note n = note(i);
		cr_assert_eq(alert_sinks_send(s, &n), 1);
	}
	WAIT_UNTIL(webhook_stats(s).pending == 5, 5000); /* one in flight */
	cr_assert_eq(webhook_stats(s).pending, 5);
	const char *const kv2[] = {WEBHOOK(url, "2", "1", "100ms"), NULL};
	sinks_reconfigure(s, kv2);
	struct alert_sink_stats st = webhook_stats(s);
	cr_assert_eq(st.pending, 2);
	cr_assert_eq(st.dropped, 3);
	alert_sinks_free(s);
	listener_stop(&l);
}

/* ---- Alertmanager: re-sent while firing ------------------------------------- */

static bool listener_has(struct listener *l, const char *needle)
{
	pthread_mutex_lock(&l->lock);
	bool has = strstr(l->all, needle) != NULL;
	pthread_mutex_unlock(&l->lock);
	return has;
}

/* Prometheus' way (prometheus.io/docs/alerting/clients: "clients are expected to
 * continuously re-send alerts as long as they are still active"); an escalation
 * changes the severity label, so the alert under the old label is resolved. */
Test(alert_sink, alertmanager_resends_while_firing_and_resolves_the_old_label)
{
	struct listener l;
	struct alert_sinks *s;
	char url[64];

	listener_start(&l, 0, false);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", l.port);
	const char *const kv[] = {"sink \"am\"", "type", "alertmanager", "sink \"am\"",
				  "url",	 url,	 "sink \"am\"",	 "resend_interval",
				  "100ms",	 NULL};
	s = sinks_of(kv);
	struct alert_note n = note(5);
	cr_assert_eq(alert_sinks_send(s, &n), 1);
	WAIT_UNTIL(stats_of(s, "am").resent >= 2, 10000);
	cr_assert_geq(stats_of(s, "am").resent, 2, "re-sent while firing");
	cr_assert_eq(stats_of(s, "am").delivered, 1, "one notification");

	n = note(5);
	snprintf(n.severity, sizeof(n.severity), "critical");
	snprintf(n.state, sizeof(n.state), "escalated");
	n.ts_ms = 1764460802000LL;
	cr_assert_eq(alert_sinks_send(s, &n), 1);
	WAIT_UNTIL(stats_of(s, "am").delivered == 2, 10000);
	cr_assert_eq(stats_of(s, "am").delivered, 2);
	/* the warning ended when the critical one began */
	cr_assert(listener_has(&l, "\"severity\":\"warning\""));
	cr_assert(listener_has(&l, "\"endsAt\":\"2025-11-30T00:00:02.000Z\""), "%s", l.all);
	cr_assert(strstr(l.last_body, "\"severity\":\"critical\""), "%s", l.last_body);
	alert_sinks_free(s);
	listener_stop(&l);
}
