/* SPDX-License-Identifier: MIT */
/*
 * The database at the daemon's start: open and migrate it, or, while it cannot be
 * opened (a read-only or full file system, no permission, a lock), wait for it
 * without exiting: one log line per reason, systemd told, /healthz answering 503
 * with the reason, and a retry after 5 s, doubling up to a minute.
 *
 * Waiting in the process rather than exiting for systemd's Restart= to try again:
 * the reason is logged once instead of every RestartSec, `systemctl status` and
 * /healthz say what is wrong, and the rest of the start-up then runs as usual.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "nvmond/api/api.h"
#include "nvmond/core/log.h"
#include "nvmond/core/svc.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/util/timefmt.h"

#include "nvmond/main/main_cli.h"
#include "nvmond/main/main_http.h"
#include "nvmond/main/main_store.h"

#define RETRY_MIN_MS	5000
#define RETRY_MAX_MS	60000
#define WATCHDOG_MAX_MS 10000 /* while it waits: ping at least this often */

/* Why the database is not open yet, read by /healthz on the HTTP threads. */
struct waiting {
	pthread_mutex_t lock;
	char why[STORE_ERR_MAX + 64];
};

static void waiting_healthz(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	struct waiting *w = ctx;

	(void)req;
	pthread_mutex_lock(&w->lock);
	ret->json = json_pack("{s:s, s:s}", "status", "waiting for the database", "error", w->why);
	pthread_mutex_unlock(&w->lock);
	ret->status = 503;
}

/* Serve only GET /healthz (503) on the daemon's address while waiting. */
static int waiting_http_start(const struct cfg *c, struct api_tls *tls, struct waiting *w,
			      struct fleet *fleet, struct api **ret)
{
	const struct api_endpoint ep = {"GET", "/healthz", API_EP_OPEN, waiting_healthz, w};
	struct api_config ac = http_api_config(c, tls);
	char err[API_ERR_MAX];
	int r;

	ac.web_root = NULL; /* no static files */
	ac.threads = 1;
	ac.fleet = fleet;
	ac.endpoints = &ep;
	ac.n_endpoints = 1;
	r = api_start(&ac, ret, err);
	if (r < 0)
		log_error("%s", err);
	return r;
}

/* One try: the directory (mkdir -p), then the file, its pragmas and migrations. */
static int try_open(const char *path, struct store **ret, char err[STORE_ERR_MAX])
{
	int r = make_parent_dirs(path);

	if (r < 0) {
		snprintf(err, STORE_ERR_MAX, "cannot create the directory of %.200s", path);
		return r;
	}
	return store_open(path, ret, err);
}

/*
 * Sleep @ms, answering signals: SIGTERM/SIGINT end the wait (-ECANCELED), SIGHUP
 * is noted. The watchdog is fed every @ping_ms (0 = off).
 */
static int wait_ms(int sigfd, int64_t ms, int64_t ping_ms)
{
	int64_t until = timefmt_mono_ms() + ms, now;

	while ((now = timefmt_mono_ms()) < until) {
		int64_t t = until - now;
		struct pollfd p = {.fd = sigfd, .events = POLLIN};
		struct signalfd_siginfo si;

		if (ping_ms && t > ping_ms)
			t = ping_ms;
		if (poll(&p, 1, (int)t) < 0 && errno != EINTR)
			return -errno;
		if (ping_ms)
			svc_notify("WATCHDOG=1");
		if (!(p.revents & POLLIN) || read(sigfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGHUP) {
			log_info("SIGHUP while waiting for the database: the configuration read at "
				 "start stays");
			continue;
		}
		log_info("%s: stopping while waiting for the database",
			 strsignal((int)si.ssi_signo));
		svc_notify("STOPPING=1");
		return -ECANCELED;
	}
	return 0;
}

int main_store_open(const struct cfg *c, struct api_tls *tls, struct store **ret)
{
	struct waiting w = {.lock = PTHREAD_MUTEX_INITIALIZER};
	char err[STORE_ERR_MAX], last[STORE_ERR_MAX] = "";
	struct fleet *fleet = NULL;
	struct api *api = NULL;
	int64_t delay = RETRY_MIN_MS, t0 = timefmt_mono_ms(), ping_ms = svc_watchdog_ms() / 2;
	int sigfd = -1, r;
	sigset_t mask;

	if (ping_ms > WATCHDOG_MAX_MS)
		ping_ms = WATCHDOG_MAX_MS;
	for (;;) {
		r = try_open(c->database, ret, err);
		if (r == 0)
			break;
		if (r == -EPROTO) {
			/* Not this nvmond's schema (newer, or another program's): waiting won't do. */
			log_error("%s", err);
			break;
		}
		if (strcmp(err, last) != 0) {
			log_error("cannot open the database (%s): %s; waiting for it, trying again "
				  "in %d s, then less often up to every minute",
				  strerror(-r), err, RETRY_MIN_MS / 1000);
			snprintf(last, sizeof(last), "%s", err);
		}
		pthread_mutex_lock(&w.lock);
		snprintf(w.why, sizeof(w.why), "%s (%s)", err, strerror(-r));
		pthread_mutex_unlock(&w.lock);
		if (sigfd < 0) {
			/* The first failure: watch the stop signals (blocked by the caller), serve /healthz. */
			sigemptyset(&mask);
			sigaddset(&mask, SIGTERM);
			sigaddset(&mask, SIGINT);
			sigaddset(&mask, SIGHUP);
			sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
			fleet = fleet_new();
			if (sigfd < 0 || !fleet) {
				r = sigfd < 0 ? -errno : -ENOMEM;
				log_errno(LOG_LVL_ERROR, -r, "cannot wait for the database");
				break;
			}
			r = waiting_http_start(c, tls, &w, fleet, &api);
			if (r < 0)
				break;
			/* Ready (boot goes on, the watchdog runs); STATUS= and /healthz say why. */
			svc_notify("READY=1");
		}
		pthread_mutex_lock(&w.lock);
		svc_notify("STATUS=Waiting for the database: %s", w.why);
		pthread_mutex_unlock(&w.lock);
		r = wait_ms(sigfd, delay, ping_ms);
		if (r < 0)
			break;
		delay = delay * 2 > RETRY_MAX_MS ? RETRY_MAX_MS : delay * 2;
	}
	if (r == 0 && sigfd >= 0)
		log_info("database %s open after waiting %lld s", c->database,
			 (long long)((timefmt_mono_ms() - t0) / 1000));
	api = api_stop(api);
	fleet = fleet_free(fleet);
	if (sigfd >= 0)
		close(sigfd);
	return r;
}
