/* SPDX-License-Identifier: MIT */
/*
 * nvmond: the daemon (its services, signals and the main loop) and main(). The
 * command line and the other commands are in main_cli.c.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvmond/alert/alert_sink.h"
#include "nvmond/alert/alert_svc.h"
#include "nvmond/api/api.h"
#include "nvmond/api/api_devices.h"
#include "nvmond/api/facts_api.h"
#include "nvmond/core/cfg.h"
#include "nvmond/core/host_id.h"
#include "nvmond/config.h"
#include "nvmond/dev/dev.h"
#include "nvmond/export/export_svc.h"
#include "nvmond/fleetview/fleetview_svc.h"
#include "nvmond/demo/demo_backfill.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/core/log.h"
#include "nvmond/core/loop.h"
#include "nvmond/core/mainq.h"
#include "nvmond/metrics/metrics.h"
#include "nvmond/monitor/poller.h"
#include "nvmond/analysis/rated.h"
#include "nvmond/probe/probe_group.h"
#include "nvmond/probe/probe_series.h"
#include "nvmond/probe/probe_svc.h"
#include "nvmond/selftest/selftest_cli.h"
#include "nvmond/selftest/selftest_svc.h"
#include "nvmond/store/rollup.h"
#include "nvmond/api/series_api.h"
#include "nvmond/api/series_cache.h"
#include "nvmond/api/status.h"
#include "nvmond/store/store.h"
#include "nvmond/core/svc.h"
#include "nvmond/util/timefmt.h"
#include "nvmond/api/wear_api.h"
#include "nvmond/alert/risk_mon.h"
#include "nvmond/api/drive_api.h"
#include "nvmond/alert/wear_mon.h"
#include "nvmond/api/api_conf.h"

#include "nvmond/main/main_cfg.h"
#include "nvmond/main/main_cli.h"
#include "nvmond/main/main_http.h"
#include "nvmond/main/main_privsep.h"
#include "nvmond/main/main_store.h"
#include "nvmond/store/store_conf.h"

struct daemon {
	struct opts opts;
	struct cfg cfg;
	struct loop *loop;
	struct poller *poller;
	struct mainq *mainq; /* HTTP and worker threads reach main-loop state through it */
	/* Throttle events and alerts. */
	struct alert_svc *alerts;
	struct metrics_source metrics; /* GET /metrics */
	struct export_svc *exports;    /* remote write: a thread per [export "NAME"] */
	/* Long history (rollups, GET …/series) and wear (GET …/wear, wear alerts). */
	struct rollup *rollup;
	struct store_rollup_cfg rollup_cfg; /* read by GET …/series */
	struct series_api series;	    /* GET …/series: the retention and its cache */
	struct wear_source wear;
	struct wear_mon *wear_mon;
	struct risk_mon *risk_mon;
	struct probe_svc *probes;	 /* throughput probes: schedules, threads, endpoints */
	struct selftest_svc *selftests;	 /* device self-tests: schedules, the log, endpoints */
	struct fleetview_svc *fleetview; /* GET /api/v1/fleet: the engine's view of every host */
	int sigfd;
	struct api_tls *tls; /* HTTPS: the certificate, reloaded on SIGHUP; NULL = HTTP */
	struct fleet *fleet;
	struct dev_backend *backend; /* the device process's channel */
	struct api *api;
	int64_t watchdog_ms; /* WatchdogSec=, 0 = off */
	int64_t svc_timer, db_timer;
	struct store *store;
	bool reexec;		/* the database file went: start again on what is there now */
	struct privsep privsep; /* the device process */
	bool device_gone;	/* it exited: stop, and exit with a failure */
	int status;		/* the exit status of a start that failed */
};

/* Endpoints the feature modules add to the API (see api.h). */
#define MAX_ENDPOINTS 64

struct endpoints {
	struct api_endpoint v[MAX_ENDPOINTS];
	size_t n;
};

static int endpoints_add(struct endpoints *e, const struct api_endpoint *v, size_t n)
{
	if (e->n + n > MAX_ENDPOINTS)
		return -ENOSPC;
	memcpy(&e->v[e->n], v, n * sizeof(*v));
	e->n += n;
	return 0;
}

/* The probes' spec check of a repeated series feeds the below_rated rule. */
static void on_rated(void *ctx, const struct device_row *row, const struct rated_verdict *v,
		     int64_t now_ms)
{
	struct alert_cond conds[_ALERT_RULE_MAX] = {0};

	rated_alert_condition(v, &conds[ALERT_BELOW_RATED]);
	if (alert_svc_feed(ctx, row, conds, now_ms) < 0)
		log_warn("%s: the spec check's alert not evaluated (no sample yet)", row->key);
}

static const char *web_root(const struct cfg *c)
{
	struct stat st;

	if (c->web_root[0])
		return c->web_root;
	if (stat(NVMOND_INSTALL_WEB_ROOT "/index.html", &st) == 0)
		return NVMOND_INSTALL_WEB_ROOT;
	return NVMOND_SOURCE_WEB_ROOT;
}

static void reload(struct daemon *d)
{
	struct cfg c;

	log_info("SIGHUP: reloading %s", d->opts.config);
	http_reload_tls(d->tls);
	if (load_config(&d->opts, &c) < 0) {
		log_error("configuration not reloaded; keeping the running one");
		return;
	}
	/* The sinks' settings and files (hooks, secrets) first: a reload applies whole or not. */
	char sink_err[256];
	if (d->alerts && alert_sinks_check(&c, sink_err, sizeof(sink_err)) < 0) {
		log_error("%s: configuration not reloaded; keeping the running one", sink_err);
		return;
	}
	/* The keys the table marks (and every [http] key): what the log names is what
	 * docs/configuration.md lists under "At the next start only". */
	char later[512];
	/* metrics_token_file was read into metrics_token at start, and is not read again. */
	if (http_conf(&c)->metrics_token_file[0] &&
	    strcmp(http_conf(&c)->metrics_token_file, http_conf(&d->cfg)->metrics_token_file) == 0)
		memcpy(http_conf_mut(&c)->metrics_token, http_conf(&d->cfg)->metrics_token,
		       sizeof(http_conf(&c)->metrics_token));
	size_t n_later = cfg_restart_changes(&d->cfg, &c, later, sizeof(later));
	if (n_later)
		log_warn("%s: %s at the next start", later,
			 n_later == 1 ? "this change takes effect" : "these changes take effect");
	log_set_level(c.log_level);
	if (poller_reconfigure(d->poller, &c) < 0) {
		log_error("configuration not reloaded: out of memory");
		return;
	}
	char alert_err[256];
	if (d->alerts && alert_svc_reconfigure(d->alerts, &c, alert_err) < 0)
		log_error("%s: alert sinks not reloaded, the running ones stay", alert_err);
	char risk_err[RISK_MON_ERR_MAX];
	if (d->risk_mon && risk_mon_reconfigure(d->risk_mon, &c, risk_err) < 0)
		log_error("%s: risk rules not reloaded", risk_err);
	char probe_err[PROBE_SVC_ERR_MAX];
	if (probe_svc_reconfigure(d->probes, &c, probe_err) < 0)
		log_error("%s: probe settings not reloaded", probe_err);
	char st_err[SELFTEST_SVC_ERR_MAX];
	if (d->selftests && selftest_svc_reconfigure(d->selftests, &c, st_err) < 0)
		log_error("%s: self-test schedules not reloaded", st_err);
	char ex_err[512];
	if (d->exports && export_svc_reconfigure(d->exports, &c, ex_err, sizeof(ex_err)) < 0)
		log_error("%s: exports not reloaded, the running ones stay", ex_err);
	char fv_err[FLEETVIEW_ERR_MAX];
	if (d->fleetview && fleetview_svc_reconfigure(d->fleetview, &c, fv_err) < 0)
		log_error("%s: [fleet] not reloaded, the running settings stay", fv_err);
	d->cfg = c;
	log_info("configuration reloaded: poll every %lld ms", (long long)c.poll_interval_ms);
}

/*
 * Each HTTP connection holds a descriptor, and nothing in nvmond uses select(): raise the
 * soft RLIMIT_NOFILE to the hard one, as systemd advises such programs to do, and say so
 * when [http] max_connections still cannot fit.
 */
static void nofile_raise(const struct cfg *c)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
		(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	/* 64: the database, devices, the loop's own descriptors, a hook or webhook. */
	if (rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)http_conf(c)->max_connections + API_RESERVE_CONNECTIONS + 64)
		log_warn("[http] max_connections = %u, but only %llu file descriptors are allowed "
			 "(RLIMIT_NOFILE): raise LimitNOFILE= or lower max_connections",
			 http_conf(c)->max_connections, (unsigned long long)rl.rlim_cur);
}

/* 127.0.0.0/8, ::1, ::ffff:127.x and "localhost": reachable from this machine only. */
static bool listen_is_loopback(const char *host)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (strcmp(host, "localhost") == 0)
		return true;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6) ||
		       (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	return false;
}

static void on_device_exit(struct loop *l, int fd, void *userdata);

/* poller_listener.on_round: the exports' share of a poll's wakeup (none once they are freed). */
static void on_round_exports(void *ctx)
{
	struct daemon *d = ctx;

	if (d->exports)
		export_svc_round(d->exports);
}

static void on_signal(struct loop *l, int fd, void *userdata)
{
	struct daemon *d = userdata;
	struct signalfd_siginfo si;

	if (read(fd, &si, sizeof(si)) != sizeof(si))
		return;
	if (si.ssi_signo == SIGCHLD) { /* only without a pidfd: is it the device process? */
		pid_t pid = d->privsep.pid;
		if (pid > 0 && waitpid(pid, NULL, WNOHANG) == pid) {
			on_device_exit(l, fd, d);
			d->privsep.pid = 0; /* reaped */
		}
		return;
	}
	if (si.ssi_signo == SIGHUP) {
		svc_notify("RELOADING=1");
		reload(d);
		svc_notify("READY=1");
		return;
	}
	log_info("%s: stopping", strsignal((int)si.ssi_signo));
	svc_notify("STOPPING=1\nSTATUS=Stopping: storing buffered samples");
	loop_stop(l);
}

/* STATUS= at most this often, in a wakeup the loop has anyway (a poll). */
#define SVC_STATUS_MS 10000

/*
 * systemd: feed the watchdog from the loop (a stuck loop gets restarted), refresh
 * STATUS=. The watchdog is fed in a wakeup the loop has anyway after a quarter of
 * its period, at half of it at the latest; STATUS= alone never wakes the loop.
 */
static int64_t on_svc_tick(struct loop *l, void *userdata)
{
	struct daemon *d = userdata;
	struct fleet_device *v = NULL;
	struct poller_stats ps;
	size_t n = 0, online = 0;

	poller_stats(d->poller, &ps);
	if (fleet_snapshot(d->fleet, &v, &n) == 0)
		for (size_t i = 0; i < n; i++)
			online += v[i].row.online ? 1 : 0;
	free(v);
	svc_notify("%sSTATUS=%zu of %zu drives online; %llu samples stored, %zu waiting",
		   d->watchdog_ms ? "WATCHDOG=1\n" : "", online, n,
		   (unsigned long long)ps.samples_stored, ps.samples_pending);
	if (d->watchdog_ms)
		return loop_timer_lazy(l, d->svc_timer, d->watchdog_ms / 4, d->watchdog_ms / 2);
	return loop_timer_lazy(l, d->svc_timer, SVC_STATUS_MS, -1);
}

/* The device process exited (killed, or its channel broke): without it no drive
 * is polled, so stop and let the service manager start nvmond again. */
static void on_device_exit(struct loop *l, int fd, void *userdata)
{
	struct daemon *d = userdata;

	(void)fd;
	if (d->device_gone)
		return;
	log_error("the device process %d exited: stopping (without it no drive can be read)",
		  (int)d->privsep.pid);
	d->device_gone = true;
	loop_stop(l);
}

/*
 * How often, at most, the database file is checked for having been deleted or
 * replaced: in a wakeup the loop has anyway (a poll writes only then), never in
 * one of its own.
 */
#define DB_CHECK_MS 1000

/*
 * SQLite writes on to a deleted database file, or to the old one when another
 * was moved to its path, and nobody will ever read it. Stop cleanly and run the
 * daemon again in this process (execv: same pid for systemd), on the file at the
 * path now: a new one, migrated, or the one moved there (docs/reliability.md).
 */
static int64_t on_db_check(struct loop *l, void *userdata)
{
	struct daemon *d = userdata;
	int r = store_file_check(d->store);

	if (r == 0)
		return loop_timer_lazy(l, d->db_timer, DB_CHECK_MS, -1);
	log_error("database %s was %s underneath the daemon: restarting on the file at that "
		  "path now (samples since then are lost)",
		  d->cfg.database, r == -ENOENT ? "deleted" : "replaced");
	d->reexec = true;
	loop_stop(l);
	return -1;
}

/*
 * The demo drives' first start: a year of history (demo_backfill.h), so every
 * chart has something to show. Only on a backend whose drives have a past
 * (DEV_CAP_HISTORY: the demo drives), with demo_history on, and on a database
 * without samples. A failure (a full disk) is not fatal.
 */
static void backfill_demo_year(const struct cfg *c, struct store *s, struct dev_backend *b,
			       const struct store_rollup_cfg *rc)
{
	struct demo_backfill_stats st;
	int64_t t0 = timefmt_mono_ms();
	int r;

	if (!dev_has(b, DEV_CAP_HISTORY) || !c->demo_history)
		return;
	svc_notify("STATUS=Filling a year of demo history");
	r = demo_backfill(s, b, rc, timefmt_now_ms(), &st);
	if (r < 0) {
		/* A nicety: the drives are served without it. */
		log_warn("cannot store the demo history: %s (%s); serving the demo drives "
			 "without it",
			 strerror(-r), store_strerror(s));
		return;
	}
	if (st.drives)
		log_info(
			"demo history: a year for %zu drives (%zu samples, %zu throttle events, "
			"%zu alerts, %zu probe runs, %zu error log entries, %zu self-test results, "
			"%zu C0h and power rows) in %lld ms; demo_history = no turns this off",
			st.drives, st.samples, st.events, st.alerts, st.runs, st.errors,
			st.selftests, st.logs, (long long)(timefmt_mono_ms() - t0));
}

/* The exit status of a service that failed to start: its configuration, or the rest. */
static int start_status(int r)
{
	return r == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
}

/*
 * The configuration, the log level, the descriptor limit and HTTP's settings
 * (a token off loopback, TLS). Return: 0, or -EINVAL (exit with EXIT_USAGE).
 */
static int daemon_configure(struct daemon *d)
{
	if (load_config(&d->opts, &d->cfg) < 0)
		return -EINVAL;
	log_set_level(d->cfg.log_level);
	nofile_raise(&d->cfg);
	if (!http_conf(&d->cfg)->token[0] && !listen_is_loopback(d->cfg.listen_host)) {
		log_error("refusing to listen on '%s' without [http] token: set a token, or listen "
			  "on 127.0.0.1 / ::1",
			  d->cfg.listen_host);
		return -EINVAL;
	}
	if (http_setup(&d->cfg, &d->tls) < 0)
		return -EINVAL;
	if (!d->tls && !listen_is_loopback(d->cfg.listen_host))
		log_warn("listening on '%s' without TLS: the bearer token and the data travel in "
			 "clear over the network; set [http] tls_cert and tls_key",
			 d->cfg.listen_host);
	return 0;
}

/*
 * The device process, the database, the fleet, the loop and its queue; @mask
 * gets SIGCHLD when the device process's end comes as a signal.
 * Return: 0, or -1 with d->status set.
 */
static int daemon_open(struct daemon *d, sigset_t *mask)
{
	int r;

	/* A device process left by the image before a re-exec: reap it. */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	/* Device commands go to their own process; this one keeps no capability. */
	r = privsep_start(&d->cfg, &d->opts, &d->backend, &d->privsep);
	if (r < 0)
		return -1;
	/* Without a pidfd (a kernel before 5.3, valgrind) the device process's end comes as SIGCHLD. */
	if (d->privsep.pidfd < 0 && d->privsep.pid > 0) {
		sigaddset(mask, SIGCHLD);
		sigprocmask(SIG_BLOCK, mask, NULL);
	}

	r = main_store_open(&d->cfg, d->tls, &d->store); /* waits while it cannot be opened */
	if (r < 0) {
		d->status = r == -ECANCELED ? EXIT_OK : r == -EPROTO ? EXIT_DATABASE : EXIT_RUNTIME;
		return -1;
	}
	svc_notify("STATUS=Database %s open, schema migrated", d->cfg.database);
	/* Migrations may wait for a lock; polling must not: failed writes are retried. */
	store_set_busy_timeout(d->store, 100);
	/* Long history settings: the demo year and the rollup timer use them. */
	d->rollup_cfg = (struct store_rollup_cfg){.keep_raw_ms = store_conf(&d->cfg)->keep_raw_ms,
						  .keep_1m_ms = ROLLUP_KEEP_1M_MS,
						  .grace_ms = ROLLUP_GRACE_MS};
	backfill_demo_year(&d->cfg, d->store, d->backend, &d->rollup_cfg);
	d->fleet = fleet_new();
	d->loop = loop_new();
	if (!d->fleet || !d->loop) {
		log_error("out of memory");
		return -1;
	}
	r = mainq_new(d->loop, &d->mainq);
	if (r < 0) {
		log_errno(LOG_LVL_ERROR, -r, "cannot set up the main-loop queue");
		return -1;
	}
	return 0;
}

/*
 * The poller, throttle events and alerts, and the risk verdict: they listen
 * before the first scan. Return: 0, or -1 with d->status set.
 */
static int start_monitor(struct daemon *d, struct endpoints *ep)
{
	char err[256]; /* alert_svc_new()'s */
	int r;

	r = poller_new(&d->cfg, d->backend, d->store, d->fleet, &d->poller);
	if (r < 0) {
		log_error("cannot load the known devices: %s (%s)", strerror(-r),
			  store_strerror(d->store));
		return -1;
	}
	/* Throttle events and alerts: listen before the first scan. */
	r = alert_svc_new(&d->cfg, d->store, d->fleet, d->mainq, &d->alerts, err);
	if (r < 0) {
		log_error("%s", err);
		d->status = start_status(r);
		return -1;
	}
	size_t n_alert_ep;
	const struct api_endpoint *alert_ep = alert_svc_endpoints(d->alerts, &n_alert_ep);
	if (alert_svc_attach(d->alerts, d->poller, d->loop) < 0 ||
	    endpoints_add(ep, alert_ep, n_alert_ep) < 0)
		return -1;
	/* The risk verdict (issue 27): after the alerts' own rules, on each sample. */
	char risk_err[RISK_MON_ERR_MAX];
	r = risk_mon_new(&d->cfg, d->store, d->fleet, d->alerts, &d->risk_mon, risk_err);
	if (r < 0) {
		log_error("%s", r == -EINVAL ? risk_err : strerror(-r));
		d->status = start_status(r);
		return -1;
	}
	if (risk_mon_attach(d->risk_mon, d->poller) < 0)
		return -1;
	r = poller_start(d->poller, d->loop);
	if (r < 0) {
		log_errno(LOG_LVL_ERROR, -r, "cannot start polling");
		return -1;
	}
	return 0;
}

/*
 * Throughput probes (schedules, probe threads, …/probes endpoints) and device
 * self-tests (the log 06h, schedules, …/selftests endpoints).
 * Return: 0, or -1 with d->status set.
 */
static int start_tests(struct daemon *d, struct endpoints *ep)
{
	char probe_err[PROBE_SVC_ERR_MAX];
	size_t n_probe_ep;
	int r;

	r = probe_svc_new(&d->cfg, d->backend, d->store, d->fleet, d->mainq, &d->probes, probe_err);
	if (r < 0) {
		log_error("%s", r == -EINVAL ? probe_err : strerror(-r));
		d->status = start_status(r);
		return -1;
	}
	probe_svc_on_rated(d->probes, on_rated, d->alerts);
	const struct api_endpoint *probe_ep = probe_svc_endpoints(d->probes, &n_probe_ep);
	if (probe_svc_start(d->probes, d->loop, d->poller) < 0 ||
	    endpoints_add(ep, probe_ep, n_probe_ep) < 0)
		return -1;
	/* Device self-tests: the log 06h, schedules, …/selftests endpoints. */
	char st_err[SELFTEST_SVC_ERR_MAX];
	size_t n_st_ep;
	r = selftest_svc_new(&d->cfg, d->backend, d->store, d->fleet, d->mainq, d->alerts,
			     d->probes, &d->selftests, st_err);
	if (r < 0) {
		log_error("%s", r == -EINVAL ? st_err : strerror(-r));
		d->status = start_status(r);
		return -1;
	}
	const struct api_endpoint *st_ep = selftest_svc_endpoints(d->selftests, &n_st_ep);
	if (selftest_svc_start(d->selftests, d->loop, d->poller) < 0 ||
	    endpoints_add(ep, st_ep, n_st_ep) < 0)
		return -1;
	return 0;
}

/*
 * What leaves the host: GET /metrics, remote write (each export's thread pushes
 * what /metrics serves and the store holds) and the fleet page.
 * Return: 0, or -1 with d->status set.
 */
static int start_outputs(struct daemon *d, struct endpoints *ep)
{
	int r;

	/* Prometheus: GET /metrics. */
	d->metrics = (struct metrics_source){.mainq = d->mainq,
					     .poller = d->poller,
					     .alerts = d->alerts,
					     .cfg = &d->cfg,
					     .start_ms = timefmt_now_ms()};
	r = host_id_read(host_id_path(), d->metrics.host_id);
	if (r < 0)
		log_warn("no host_id: %s: %s (nvmond_host_info goes without it)", host_id_path(),
			 r == -EINVAL ? "not a machine id" : strerror(-r));
	struct api_endpoint metrics_ep = metrics_endpoint(&d->metrics);
	if (endpoints_add(ep, &metrics_ep, 1) < 0)
		return -1;
	/* Remote write: each export's thread pushes what /metrics serves and the store holds. */
	char ex_err[512];
	r = export_svc_new(&d->cfg, d->fleet, d->mainq, d->store, &d->metrics, &d->exports, ex_err,
			   sizeof(ex_err));
	if (r < 0) {
		log_error("%s", ex_err);
		d->status = start_status(r);
		return -1;
	}
	/* An export's round follows a poll's, in the wakeup of its last answer. */
	if (poller_add_listener(d->poller, &(struct poller_listener){.on_round = on_round_exports,
								     .ctx = d}) < 0)
		return -1;
	size_t n_ex_ep;
	const struct api_endpoint *ex_ep = export_svc_endpoints(d->exports, &n_ex_ep);
	if (endpoints_add(ep, ex_ep, n_ex_ep) < 0)
		return -1;
	/* The fleet page: GET /api/v1/fleet from [fleet] query_url's engine. */
	char fv_err[FLEETVIEW_ERR_MAX];
	r = fleetview_svc_new(&d->cfg, &d->fleetview, fv_err);
	if (r < 0) {
		log_error("%s", fv_err);
		d->status = start_status(r);
		return -1;
	}
	struct api_endpoint fleet_ep = fleetview_svc_endpoint(d->fleetview);
	return endpoints_add(ep, &fleet_ep, 1) < 0 ? -1 : 0;
}

/*
 * Long history and wear (rollups on a timer, GET …/series and …/wear), the
 * drive's facts, power, OCP and risk pages, and the devices' own endpoints.
 * Return: 0 or -1.
 */
static int start_history(struct daemon *d, struct endpoints *ep)
{
	d->wear = (struct wear_source){.mainq = d->mainq, .cfg = &d->cfg};
	if (rollup_new(d->store, &d->rollup_cfg, &d->rollup) < 0 ||
	    rollup_start(d->rollup, d->loop) < 0 ||
	    wear_mon_new(d->store, d->fleet, d->alerts, &d->cfg, &d->wear_mon) < 0 ||
	    wear_mon_start(d->wear_mon, d->loop) < 0)
		return -1;
	d->series = (struct series_api){.rollup = &d->rollup_cfg,
					.cache = series_cache_new(SERIES_CACHE_MAX_BYTES)};
	if (!d->series.cache)
		return -1;
	struct api_endpoint dash_ep[] = {series_endpoint(&d->series), wear_endpoint(&d->wear)};
	if (endpoints_add(ep, dash_ep, 2) < 0)
		return -1;
	/* Firmware and PCIe link history: GET …/facts. */
	struct api_endpoint facts_ep = facts_endpoint();
	if (endpoints_add(ep, &facts_ep, 1) < 0)
		return -1;
	/* What a drive knows beyond its health log (issue 27): …/power, …/ocp, …/risk. */
	struct api_endpoint drive_ep[] = {drive_power_endpoint(), drive_ocp_endpoint(),
					  drive_risk_endpoint()};
	if (endpoints_add(ep, drive_ep, 3) < 0)
		return -1;
	/* The devices, their samples, /healthz. */
	size_t n_core_ep;
	const struct api_endpoint *core_ep = api_devices_endpoints(&n_core_ep);
	return endpoints_add(ep, core_ep, n_core_ep) < 0 ? -1 : 0;
}

/* The HTTP server on the services' endpoints. Return: 0 or -1. */
static int start_http(struct daemon *d, const struct endpoints *ep)
{
	char err[API_ERR_MAX];
	struct api_config ac = http_api_config(&d->cfg, d->tls);

	ac.web_root = web_root(&d->cfg);
	ac.fleet = d->fleet;
	ac.endpoints = ep->v;
	ac.n_endpoints = ep->n;
	/* The router's table, one line each (tests/integration/docs_agree.py compares
	 * it with docs/api.md). */
	for (size_t i = 0; i < ep->n; i++)
		log_debug("HTTP endpoint: %s %s%s%s", ep->v[i].method, ep->v[i].pattern,
			  ep->v[i].flags & API_EP_AUTH ? " (token)" : "",
			  ep->v[i].flags & API_EP_QUERY ? " (query)" : "");
	if (api_start(&ac, &d->api, err) < 0) {
		log_error("%s", err);
		return -1;
	}
	return 0;
}

/*
 * The loop's watches (the device process, signals), the start line, the systemd
 * tick and the database check. Return: 0 or -1.
 */
static int daemon_arm(struct daemon *d, const sigset_t *mask)
{
	if (d->privsep.pidfd >= 0 &&
	    loop_add_fd(d->loop, d->privsep.pidfd, on_device_exit, d) < 0) {
		log_error("cannot watch the device process");
		return -1;
	}
	d->sigfd = signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (d->sigfd < 0 || loop_add_fd(d->loop, d->sigfd, on_signal, d) < 0) {
		log_errno(LOG_LVL_ERROR, errno, "cannot watch signals");
		return -1;
	}
	log_info("nvmond %s: %s backend, database %s, %s://%s%s%s:%u/", NVMOND_VERSION,
		 d->backend->ops->name, d->cfg.database, d->tls ? "https" : "http",
		 strchr(d->cfg.listen_host, ':') ? "[" : "", d->cfg.listen_host,
		 strchr(d->cfg.listen_host, ':') ? "]" : "", api_port(d->api));

	/* systemd: ready only now (database migrated, HTTP listening); then the tick. */
	d->watchdog_ms = svc_watchdog_ms();
	/* Not under systemd: no tick at all. */
	if (svc_managed() && (d->svc_timer = loop_add_timer(d->loop, 0, on_svc_tick, d)) < 0) {
		log_error("cannot arm the watchdog timer");
		return -1;
	}
	d->db_timer = loop_add_timer_lazy(d->loop, DB_CHECK_MS, -1, on_db_check, d);
	if (d->db_timer < 0) {
		log_error("cannot arm the database check");
		return -1;
	}
	return 0;
}

/*
 * Stop and free everything in the order the threads need: HTTP and the threads
 * that wait on the loop first, the poller's buffered samples stored, the device
 * process and the database last; then the re-exec on a new database file.
 * Return: @status, or EXIT_RUNTIME when samples were lost or the re-exec failed.
 */
static int daemon_stop(struct daemon *d, int status)
{
	/* Release HTTP threads waiting on the main loop (or on a self-test's drive), then stop them. */
	if (d->mainq)
		mainq_shutdown(d->mainq);
	selftest_svc_stop(d->selftests);
	d->api = api_stop(d->api); /* no reader after this point */
	/* The exports: a request in flight is aborted, each thread joined (it may have
	 * been waiting on the loop: mainq_shutdown() released it). */
	d->exports = export_svc_free(d->exports);
	d->metrics.export_stats = NULL;			 /* no thread reads it now */
	d->fleetview = fleetview_svc_free(d->fleetview); /* cuts a transfer under way */
	/* Cancel probes and wait for their threads (each stores what it measured). */
	d->probes = probe_svc_free(d->probes);
	/* The sinks wake the main loop through the queue: stop them before it goes. */
	alert_svc_stop_sinks(d->alerts);
	d->mainq = mainq_free(d->mainq);
	d->selftests = selftest_svc_free(d->selftests);
	if (d->store)
		store_set_busy_timeout(d->store, 5000); /* at shutdown, waiting beats losing */
	if (d->poller) {
		size_t pending = poller_pending(d->poller);
		if (poller_flush(d->poller) < 0) {
			log_error("%zu samples could not be stored at shutdown: %s",
				  poller_pending(d->poller), store_strerror(d->store));
			status = EXIT_RUNTIME;
		} else if (pending) {
			log_info("stored %zu buffered samples", pending);
		}
	}
	if (d->store)
		store_checkpoint(d->store);
	d->poller = poller_free(d->poller);
	d->alerts = alert_svc_free(d->alerts);
	d->rollup = rollup_free(d->rollup);
	d->series.cache = series_cache_free(d->series.cache);
	d->wear_mon = wear_mon_free(d->wear_mon);
	d->risk_mon = risk_mon_free(d->risk_mon);
	d->loop = loop_free(d->loop);
	d->fleet = fleet_free(d->fleet);
	d->backend = dev_backend_free(d->backend); /* closes the device channel */
	(void)privsep_reap(&d->privsep);
	d->store = store_close(d->store);
	if (d->sigfd >= 0)
		close(d->sigfd);
	d->tls = api_tls_free(d->tls); /* after api_stop(): no handshake uses it */
	if (d->reexec) {
		svc_notify("STATUS=Restarting on a new database file");
		execv("/proc/self/exe", d->opts.argv);
		log_errno(LOG_LVL_ERROR, errno, "cannot restart");
		status = EXIT_RUNTIME;
	}
	return status;
}

static int run_daemon(const struct opts *o)
{
	struct daemon d = {.opts = *o,
			   .sigfd = -1,
			   .privsep = {.pid = 0, .pidfd = -1},
			   .status = EXIT_RUNTIME};
	struct endpoints endpoints = {.n = 0};
	sigset_t mask;
	int r;

	if (daemon_configure(&d) < 0)
		return EXIT_USAGE;

	/* Signals go to a signalfd; block them before any thread starts. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (daemon_open(&d, &mask) < 0 || start_monitor(&d, &endpoints) < 0 ||
	    start_tests(&d, &endpoints) < 0 || start_outputs(&d, &endpoints) < 0 ||
	    start_history(&d, &endpoints) < 0 || start_http(&d, &endpoints) < 0 ||
	    daemon_arm(&d, &mask) < 0)
		return daemon_stop(&d, d.status);
	svc_notify("READY=1\nSTATUS=Started");
	r = loop_run(d.loop);
	if (r < 0)
		log_errno(LOG_LVL_ERROR, -r, "event loop failed");
	return daemon_stop(&d, r < 0 || d.device_gone ? EXIT_RUNTIME : EXIT_OK);
}

int main(int argc, char **argv)
{
	struct opts o;
	const char *cmd;
	int r;

	r = main_cfg_sections();
	if (r < 0) {
		fprintf(stderr, "nvmond: the configuration's sections: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	if (parse_opts(argc, argv, &o, &cmd) < 0)
		return EXIT_USAGE;
	if (cmd && strcmp(cmd, "probe") == 0)
		return cmd_probe(&o);
	if (cmd && strcmp(cmd, "selftest") == 0)
		return cmd_selftest(&o);
	if (cmd)
		return cmd_status(&o);
	o.argv = argv;
	return run_daemon(&o);
}
