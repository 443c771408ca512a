/* SPDX-License-Identifier: MIT */
/*
 * nvmond: argv, configuration, signals and the main loop. Nothing else lives here.
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
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvmond/alert/alert_svc.h"
#include "nvmond/api/api.h"
#include "nvmond/api/api_devices.h"
#include "nvmond/api/facts_api.h"
#include "nvmond/core/cfg.h"
#include "nvmond/config.h"
#include "nvmond/dev/dev.h"
#include "nvmond/monitor/demo_backfill.h"
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
#include "nvmond/api/status.h"
#include "nvmond/store/store.h"
#include "nvmond/core/svc.h"
#include "nvmond/util/timefmt.h"
#include "nvmond/api/wear_api.h"
#include "nvmond/alert/wear_mon.h"

/* Exit codes (documented in docs/installing.md and --help). */
enum {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1, /* could not start or keep running: database, bind, devices */
	EXIT_USAGE = 2,	  /* bad command line or configuration */
};

struct opts {
	const char *config;
	bool config_given;
	const char *db;
	const char *listen;
	const char *log_level;
	bool demo;
	bool json;
	const char *probe_device, *probe_preset;    /* nvmond probe; --device also selftest */
	const char *probe_devices[PROBE_GROUP_MAX]; /* nvmond probe --device A --device B … */
	size_t n_probe_devices;
	uint8_t selftest_code; /* nvmond selftest: 1h, 2h, Fh; 0 = --wait only */
	uint32_t selftest_nsid;
	bool selftest_wait;
	uint32_t probe_repeat;	   /* nvmond probe --repeat N; 0 = once */
	int64_t probe_cooldown_ms; /* --cooldown; -1 = the default */
	const char *probe_to;	   /* nvmond probe --preset copy-to --to ID */
};

struct daemon {
	struct opts opts;
	struct cfg cfg;
	struct loop *loop;
	struct poller *poller;
	struct mainq *mainq; /* HTTP and worker threads reach main-loop state through it */
	/* Throttle events and alerts. */
	struct alert_svc *alerts;
	struct metrics_source metrics; /* GET /metrics */
	/* Long history (rollups, GET …/series) and wear (GET …/wear, wear alerts). */
	struct rollup *rollup;
	struct store_rollup_cfg rollup_cfg; /* read by GET …/series */
	struct wear_source wear;
	struct wear_mon *wear_mon;
	struct probe_svc *probes;	/* throughput probes: schedules, threads, endpoints */
	struct selftest_svc *selftests; /* device self-tests: schedules, the log, endpoints */
	int sigfd;
	struct fleet *fleet; /* borrowed, for STATUS= */
	int64_t watchdog_ms; /* WatchdogSec=, 0 = off */
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

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: nvmond [OPTIONS]                 run the daemon (API, web, /metrics)\n"
		"       nvmond status [--json] [OPTIONS] read every NVMe controller once, print\n"
		"       nvmond probe --device ID --preset PRESET [--repeat N [--cooldown D]]\n"
		"                    [--json] [OPTIONS]  run a throughput probe now\n"
		"       nvmond probe --device ID --preset copy-to --to ID [--json] [OPTIONS]\n"
		"                                        copy from one drive onto another\n"
		"       nvmond selftest --device ID --short|--extended|--abort [--nsid N]\n"
		"                       [--wait] [--json] [OPTIONS]\n"
		"                                        start or abort a device self-test\n"
		"                                        through the running daemon\n"
		"\n"
		"Options:\n"
		"  -c, --config FILE       configuration file (default %s;\n"
		"                          missing = built-in defaults)\n"
		"      --db FILE           SQLite database (overrides [daemon] database)\n"
		"  -l, --listen ADDR:PORT  HTTP address (overrides [daemon] listen)\n"
		"      --demo              serve simulated drives instead of real ones\n"
		"      --log-level LEVEL   error, warning, info or debug\n"
		"      --json              (status, probe) print JSON instead of a table\n"
		"      --device ID         (probe, selftest) the drive: its id in\n"
		"                          GET /api/v1/devices, serial or controller name;\n"
		"                          (probe) repeat it to probe several drives together\n"
		"      --short, --extended (selftest) the test to start; --abort ends it\n"
		"      --nsid N            (selftest) test namespace N only (default: the\n"
		"                          controller and every namespace)\n"
		"      --wait              (selftest) follow the test to its result\n"
		"      --preset PRESET     (probe) seq1m-q8, seq1m-q1, rnd4k-q32, rnd4k-q1,\n"
		"                          copy-self or sustained-write\n"
		"      --repeat N          (probe) run it N times (1 … 10), linked as a series,\n"
		"                          and show the best, median and spread\n"
		"      --cooldown D        (probe) idle between the runs (default 30s)\n"
		"      --to ID             (probe, copy-to) the drive written; --device is read\n"
		"  -h, --help              this text\n"
		"  -V, --version           print the version\n"
		"\n"
		"Exit status: 0 ok; 1 runtime failure (database, address in use, devices; for\n"
		"probe also a failed or refused probe); 2 bad command line or configuration.\n"
		"Signals: SIGTERM/SIGINT stop after storing every sample; SIGHUP reloads the\n"
		"configuration file.\n"
		"Environment: NO_COLOR turns off the colors of status on a terminal.\n"
		"See nvmond(8) and nvmond.conf(5).\n",
		CFG_DEFAULT_PATH);
}

static int parse_opts(int argc, char **argv, struct opts *o, const char **ret_cmd)
{
	enum {
		OPT_DB = 256,
		OPT_DEMO,
		OPT_JSON,
		OPT_LOG_LEVEL,
		OPT_DEVICE,
		OPT_PRESET,
		OPT_SHORT,
		OPT_EXTENDED,
		OPT_ABORT,
		OPT_NSID,
		OPT_WAIT,
		OPT_REPEAT,
		OPT_COOLDOWN,
		OPT_TO,
	};
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'},
		{"db", required_argument, NULL, OPT_DB},
		{"listen", required_argument, NULL, 'l'},
		{"demo", no_argument, NULL, OPT_DEMO},
		{"json", no_argument, NULL, OPT_JSON},
		{"log-level", required_argument, NULL, OPT_LOG_LEVEL},
		{"device", required_argument, NULL, OPT_DEVICE},
		{"preset", required_argument, NULL, OPT_PRESET},
		{"short", no_argument, NULL, OPT_SHORT},
		{"extended", no_argument, NULL, OPT_EXTENDED},
		{"abort", no_argument, NULL, OPT_ABORT},
		{"nsid", required_argument, NULL, OPT_NSID},
		{"wait", no_argument, NULL, OPT_WAIT},
		{"repeat", required_argument, NULL, OPT_REPEAT},
		{"cooldown", required_argument, NULL, OPT_COOLDOWN},
		{"to", required_argument, NULL, OPT_TO},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	int c;

	*o = (struct opts){.config = CFG_DEFAULT_PATH,
			   .selftest_nsid = DEV_SELFTEST_NSID_ALL,
			   .probe_cooldown_ms = -1};
	bool nsid_given = false;
	int n_codes = 0;
	while ((c = getopt_long(argc, argv, "c:l:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			o->config_given = true;
			break;
		case OPT_DB:
			o->db = optarg;
			break;
		case 'l':
			o->listen = optarg;
			break;
		case OPT_DEMO:
			o->demo = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_LOG_LEVEL:
			o->log_level = optarg;
			break;
		case OPT_DEVICE:
			if (o->n_probe_devices == PROBE_GROUP_MAX) {
				fprintf(stderr, "nvmond: --device: at most %d drives\n",
					PROBE_GROUP_MAX);
				return -EINVAL;
			}
			o->probe_devices[o->n_probe_devices++] = optarg;
			if (!o->probe_device)
				o->probe_device = optarg;
			break;
		case OPT_PRESET:
			o->probe_preset = optarg;
			break;
		case OPT_TO:
			o->probe_to = optarg;
			break;
		case OPT_REPEAT: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (!*optarg || *end || v < 1 || v > PROBE_REPEAT_MAX) {
				fprintf(stderr, "nvmond: --repeat: 1 … %d\n", PROBE_REPEAT_MAX);
				return -EINVAL;
			}
			o->probe_repeat = (uint32_t)v;
			break;
		}
		case OPT_COOLDOWN:
			if (cfg_parse_duration_ms(optarg, &o->probe_cooldown_ms) < 0 ||
			    o->probe_cooldown_ms < 0 ||
			    o->probe_cooldown_ms > PROBE_COOLDOWN_MAX_MS) {
				fprintf(stderr, "nvmond: --cooldown: a duration (30s, 2m), at most "
						"1h\n");
				return -EINVAL;
			}
			break;
		case OPT_SHORT:
		case OPT_EXTENDED:
		case OPT_ABORT:
			o->selftest_code = c == OPT_SHORT      ? SELFTEST_CODE_SHORT
					   : c == OPT_EXTENDED ? SELFTEST_CODE_EXTENDED
							       : SELFTEST_CODE_ABORT;
			n_codes++;
			break;
		case OPT_NSID: {
			char *end;
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 0);
			if (errno || *end || !optarg[0] || optarg[0] == '-' || v < 1 ||
			    v > DEV_SELFTEST_NSID_ALL) {
				fprintf(stderr, "nvmond: --nsid: 1 to 4294967295, not '%s'\n",
					optarg);
				return -EINVAL;
			}
			o->selftest_nsid = (uint32_t)v;
			nsid_given = true;
			break;
		}
		case OPT_WAIT:
			o->selftest_wait = true;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_OK);
		case 'V':
			printf("nvmond %s\n", NVMOND_VERSION);
			exit(EXIT_OK);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	*ret_cmd = NULL;
	if (optind < argc) {
		if ((strcmp(argv[optind], "status") != 0 && strcmp(argv[optind], "probe") != 0 &&
		     strcmp(argv[optind], "selftest") != 0) ||
		    optind + 1 < argc) {
			fprintf(stderr, "nvmond: unknown command '%s' (see --help)\n",
				argv[optind]);
			return -EINVAL;
		}
		*ret_cmd = argv[optind];
	}
	if (o->json && !*ret_cmd) {
		fprintf(stderr, "nvmond: --json goes with the status command\n");
		return -EINVAL;
	}
	bool selftest = *ret_cmd && strcmp(*ret_cmd, "selftest") == 0;
	if (selftest) {
		if (!o->probe_device || o->n_probe_devices > 1 || o->probe_preset || o->probe_to ||
		    n_codes > 1 || (!o->selftest_code && !o->selftest_wait) ||
		    (nsid_given && o->selftest_code != SELFTEST_CODE_SHORT &&
		     o->selftest_code != SELFTEST_CODE_EXTENDED) ||
		    (o->selftest_wait && o->selftest_code == SELFTEST_CODE_ABORT)) {
			fprintf(stderr, "nvmond: selftest needs --device ID and one of --short, "
					"--extended (with --nsid N, --wait if wanted) or --abort; "
					"--wait alone follows a running test\n");
			return -EINVAL;
		}
		return 0;
	}
	if (n_codes || nsid_given || o->selftest_wait) {
		fprintf(stderr, "nvmond: --short, --extended, --abort, --nsid and --wait go with "
				"the selftest command\n");
		return -EINVAL;
	}
	bool probe = *ret_cmd && strcmp(*ret_cmd, "probe") == 0;
	if (!probe && o->probe_to) {
		fprintf(stderr, "nvmond: --to goes with the probe command (--preset copy-to)\n");
		return -EINVAL;
	}
	if (o->probe_to && o->probe_repeat) {
		fprintf(stderr, "nvmond: copy-to runs once (no --repeat)\n");
		return -EINVAL;
	}
	if (!probe && (o->probe_repeat || o->probe_cooldown_ms >= 0)) {
		fprintf(stderr, "nvmond: --repeat and --cooldown go with the probe command\n");
		return -EINVAL;
	}
	if (o->n_probe_devices > 1 && (o->probe_repeat || o->probe_cooldown_ms >= 0)) {
		fprintf(stderr, "nvmond: a group run (several --device) runs once: no --repeat\n");
		return -EINVAL;
	}
	if (o->probe_cooldown_ms >= 0 && o->probe_repeat < 2) {
		fprintf(stderr, "nvmond: --cooldown goes with --repeat N (N > 1)\n");
		return -EINVAL;
	}
	if (probe != (o->probe_device && o->probe_preset) ||
	    (!probe && (o->probe_device || o->probe_preset))) {
		fprintf(stderr, "nvmond: probe needs --device ID and --preset P (and they go with "
				"it only)\n");
		return -EINVAL;
	}
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

/* Defaults, then the file, then the command line. Prints the error itself. */
static int load_config(const struct opts *o, struct cfg *ret)
{
	char err[CFG_ERR_MAX];
	struct cfg c;
	int r;

	cfg_defaults(&c);
	r = cfg_load(&c, o->config, err);
	if (r == -ENOENT && !o->config_given)
		r = 0; /* no file at the default place: built-in defaults */
	if (r < 0) {
		fprintf(stderr, "nvmond: %s\n", err);
		return r;
	}
	const struct {
		const char *section, *key, *value, *flag;
	} overrides[] = {
		{"daemon", "database", o->db, "--db"},
		{"daemon", "listen", o->listen, "--listen"},
		{"daemon", "log_level", o->log_level, "--log-level"},
		{"daemon", "demo", o->demo ? "yes" : NULL, "--demo"},
	};
	for (size_t i = 0; i < sizeof(overrides) / sizeof(overrides[0]); i++) {
		if (!overrides[i].value)
			continue;
		r = cfg_set(&c, overrides[i].section, overrides[i].key, overrides[i].value, err);
		if (r < 0) {
			fprintf(stderr, "nvmond: %s: %s\n", overrides[i].flag, err);
			return r;
		}
	}
	*ret = c;
	return 0;
}

/* The real controllers, or the demo drives when asked or (auto) when none exist. */
static int open_backend(const struct cfg *c, struct dev_backend **ret)
{
	struct dev_backend *b = NULL;
	struct dev_info *v = NULL;
	size_t n = 0;
	int r;

	if (c->demo != CFG_DEMO_YES) {
		r = dev_nvme_open(&b);
		if (r < 0)
			return r;
		r = dev_scan(b, timefmt_now_ms(), &v, &n);
		free(v);
		if (c->demo == CFG_DEMO_NO || (r == 0 && n > 0)) {
			*ret = b;
			return 0;
		}
		dev_backend_free(b);
		log_info("no NVMe controller found: serving %u demo drives (demo = no turns "
			 "this off)",
			 c->demo_drives);
	}
	return dev_demo_open_n(c->demo_drives, ret);
}

/* Color only on a terminal, never with NO_COLOR (no-color.org) or TERM=dumb. */
static bool use_color(FILE *f)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	return isatty(fileno(f)) && !(no && no[0]) && !(term && strcmp(term, "dumb") == 0);
}

/*
 * The daemon's database for `status`, read only: the self-test results it
 * stored. None yet (the daemon never ran here) is no error; one that cannot
 * be read is said on stderr, and status goes on without it. Return: NULL or
 * the store.
 */
static struct store *status_store(const struct cfg *c)
{
	char err[STORE_ERR_MAX];
	struct store *s = NULL;
	struct stat st;

	if (stat(c->database, &st) < 0 && errno == ENOENT)
		return NULL;
	if (store_open_readonly(c->database, &s, err) < 0) {
		fprintf(stderr, "nvmond: self-test results not shown: %s\n", err);
		return NULL;
	}
	return s;
}

static int cmd_status(const struct opts *o)
{
	struct dev_backend *b = NULL;
	struct store *s = NULL;
	json_t *status = NULL;
	char err[256];
	struct cfg c;
	int r;

	r = load_config(o, &c);
	if (r < 0)
		return EXIT_USAGE;
	log_set_level(c.log_level);
	r = open_backend(&c, &b);
	if (r < 0) {
		fprintf(stderr, "nvmond: %s\n", strerror(-r));
		return EXIT_RUNTIME;
	}
	s = status_store(&c);
	r = status_collect(b, &c, s, timefmt_now_ms(), &status, err, sizeof(err));
	store_close(s);
	dev_backend_free(b);
	if (r < 0) {
		fprintf(stderr, "nvmond: %s\n", err);
		return EXIT_RUNTIME;
	}
	if (o->json) {
		json_dumpf(status, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else {
		status_print_table(stdout, status, use_color(stdout));
	}
	json_decref(status);
	return EXIT_OK;
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

/* mkdir -p of the database's directory, so a first start just works. */
static int make_parent_dirs(const char *path)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(dir, 0750) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static void reload(struct daemon *d)
{
	struct cfg c;

	log_info("SIGHUP: reloading %s", d->opts.config);
	if (load_config(&d->opts, &c) < 0) {
		log_error("configuration not reloaded; keeping the running one");
		return;
	}
	if (strcmp(c.database, d->cfg.database) != 0 ||
	    strcmp(c.listen_host, d->cfg.listen_host) != 0 || c.listen_port != d->cfg.listen_port ||
	    c.demo != d->cfg.demo || c.demo_drives != d->cfg.demo_drives ||
	    strcmp(c.web_root, d->cfg.web_root) != 0 || c.http_threads != d->cfg.http_threads)
		log_warn("database, listen, web_root, demo and [http] changes take effect at "
			 "the next start");
	log_set_level(c.log_level);
	if (poller_reconfigure(d->poller, &c) < 0) {
		log_error("configuration not reloaded: out of memory");
		return;
	}
	char alert_err[256];
	if (d->alerts && alert_svc_reconfigure(d->alerts, &c, alert_err) < 0)
		log_error("%s: alert sinks not reloaded, the running ones stay", alert_err);
	char probe_err[PROBE_SVC_ERR_MAX];
	if (probe_svc_reconfigure(d->probes, &c, probe_err) < 0)
		log_error("%s: probe settings not reloaded", probe_err);
	char st_err[SELFTEST_SVC_ERR_MAX];
	if (d->selftests && selftest_svc_reconfigure(d->selftests, &c, st_err) < 0)
		log_error("%s: self-test schedules not reloaded", st_err);
	d->cfg = c;
	log_info("configuration reloaded: poll every %lld ms", (long long)c.poll_interval_ms);
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

static void on_signal(struct loop *l, int fd, void *userdata)
{
	struct daemon *d = userdata;
	struct signalfd_siginfo si;

	if (read(fd, &si, sizeof(si)) != sizeof(si))
		return;
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

/* systemd: feed the watchdog from the loop (a stuck loop gets restarted), refresh STATUS=. */
static int64_t on_svc_tick(struct loop *l, void *userdata)
{
	struct daemon *d = userdata;
	struct fleet_device *v = NULL;
	struct poller_stats ps;
	size_t n = 0, online = 0;

	(void)l;
	poller_stats(d->poller, &ps);
	if (fleet_snapshot(d->fleet, &v, &n) == 0)
		for (size_t i = 0; i < n; i++)
			online += v[i].row.online ? 1 : 0;
	free(v);
	svc_notify("%sSTATUS=%zu of %zu drives online; %llu samples stored, %zu waiting",
		   d->watchdog_ms ? "WATCHDOG=1\n" : "", online, n,
		   (unsigned long long)ps.samples_stored, ps.samples_pending);
	return d->watchdog_ms && d->watchdog_ms / 2 < 10000 ? d->watchdog_ms / 2 : 10000;
}

/*
 * The demo drives' first start: a year of history (demo_backfill.h), so every
 * chart has something to show. Only on the demo backend, with demo_history on,
 * and on a database without samples. A failure (a full disk) is not fatal.
 */
static void backfill_demo_year(const struct cfg *c, struct store *s, struct dev_backend *b,
			       const struct store_rollup_cfg *rc)
{
	struct demo_backfill_stats st;
	int64_t t0 = timefmt_mono_ms();
	int r;

	if (strcmp(b->ops->name, "demo") != 0 || !c->demo_history)
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
			"%zu alerts, %zu probe runs, %zu error log entries, %zu self-test results) "
			"in %lld ms; demo_history = no turns this off",
			st.drives, st.samples, st.events, st.alerts, st.runs, st.errors,
			st.selftests, (long long)(timefmt_mono_ms() - t0));
}

static int run_daemon(const struct opts *o)
{
	struct daemon d = {.opts = *o, .sigfd = -1};
	struct store *store = NULL;
	struct dev_backend *backend = NULL;
	struct fleet *fleet = NULL;
	struct api *api = NULL;
	struct endpoints endpoints = {.n = 0};
	char err[STORE_ERR_MAX > API_ERR_MAX ? STORE_ERR_MAX : API_ERR_MAX];
	int r, status = EXIT_RUNTIME;
	sigset_t mask;

	if (load_config(o, &d.cfg) < 0)
		return EXIT_USAGE;
	log_set_level(d.cfg.log_level);
	if (!d.cfg.http_token[0] && !listen_is_loopback(d.cfg.listen_host)) {
		log_error("refusing to listen on '%s' without [http] token: set a token, or listen "
			  "on 127.0.0.1 / ::1",
			  d.cfg.listen_host);
		return EXIT_USAGE;
	}

	/* Signals go to a signalfd; block them before any thread starts. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);

	r = make_parent_dirs(d.cfg.database);
	if (r < 0) {
		log_error("cannot create the directory of %s: %s", d.cfg.database, strerror(-r));
		goto out;
	}
	r = store_open(d.cfg.database, &store, err);
	if (r < 0) {
		log_error("%s", err);
		goto out;
	}
	svc_notify("STATUS=Database %s open, schema migrated", d.cfg.database);
	/* Migrations may wait for a lock; polling must not: failed writes are retried. */
	store_set_busy_timeout(store, 100);
	r = open_backend(&d.cfg, &backend);
	if (r < 0) {
		log_error("cannot open the NVMe backend: %s", strerror(-r));
		goto out;
	}
	/* Long history settings: the demo year and the rollup timer use them. */
	d.rollup_cfg = (struct store_rollup_cfg){.keep_raw_ms = d.cfg.keep_raw_ms,
						 .keep_1m_ms = ROLLUP_KEEP_1M_MS,
						 .grace_ms = ROLLUP_GRACE_MS};
	backfill_demo_year(&d.cfg, store, backend, &d.rollup_cfg);
	fleet = fleet_new();
	d.loop = loop_new();
	if (!fleet || !d.loop) {
		log_error("out of memory");
		goto out;
	}
	r = mainq_new(d.loop, &d.mainq);
	if (r < 0) {
		log_error("cannot set up the main-loop queue: %s", strerror(-r));
		goto out;
	}
	r = poller_new(&d.cfg, backend, store, fleet, &d.poller);
	if (r < 0) {
		log_error("cannot load the known devices: %s (%s)", strerror(-r),
			  store_strerror(store));
		goto out;
	}
	/* Throttle events and alerts: listen before the first scan. */
	r = alert_svc_new(&d.cfg, store, fleet, d.mainq, &d.alerts, err);
	if (r < 0) {
		log_error("%s", err);
		status = r == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
		goto out;
	}
	size_t n_alert_ep;
	const struct api_endpoint *alert_ep = alert_svc_endpoints(d.alerts, &n_alert_ep);
	if (alert_svc_attach(d.alerts, d.poller) < 0 ||
	    endpoints_add(&endpoints, alert_ep, n_alert_ep) < 0)
		goto out;
	r = poller_start(d.poller, d.loop);
	if (r < 0) {
		log_error("cannot start polling: %s", strerror(-r));
		goto out;
	}
	/* Throughput probes: schedules, probe threads, …/probes endpoints. */
	char probe_err[PROBE_SVC_ERR_MAX];
	size_t n_probe_ep;
	r = probe_svc_new(&d.cfg, backend, store, fleet, d.mainq, &d.probes, probe_err);
	if (r < 0) {
		log_error("%s", r == -EINVAL ? probe_err : strerror(-r));
		status = r == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
		goto out;
	}
	probe_svc_on_rated(d.probes, on_rated, d.alerts);
	const struct api_endpoint *probe_ep = probe_svc_endpoints(d.probes, &n_probe_ep);
	if (probe_svc_start(d.probes, d.loop, d.poller) < 0 ||
	    endpoints_add(&endpoints, probe_ep, n_probe_ep) < 0)
		goto out;
	/* Device self-tests: the log 06h, schedules, …/selftests endpoints. */
	char st_err[SELFTEST_SVC_ERR_MAX];
	size_t n_st_ep;
	r = selftest_svc_new(&d.cfg, backend, store, fleet, d.mainq, d.alerts, d.probes,
			     &d.selftests, st_err);
	if (r < 0) {
		log_error("%s", r == -EINVAL ? st_err : strerror(-r));
		status = r == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
		goto out;
	}
	const struct api_endpoint *st_ep = selftest_svc_endpoints(d.selftests, &n_st_ep);
	if (selftest_svc_start(d.selftests, d.loop, d.poller) < 0 ||
	    endpoints_add(&endpoints, st_ep, n_st_ep) < 0)
		goto out;
	/* Prometheus: GET /metrics. */
	d.metrics = (struct metrics_source){.mainq = d.mainq,
					    .poller = d.poller,
					    .alerts = d.alerts,
					    .cfg = &d.cfg,
					    .start_ms = timefmt_now_ms()};
	struct api_endpoint metrics_ep = metrics_endpoint(&d.metrics);
	if (endpoints_add(&endpoints, &metrics_ep, 1) < 0)
		goto out;
	/* Long history and wear: rollups on a timer, GET …/series and …/wear. */
	d.wear = (struct wear_source){.mainq = d.mainq, .cfg = &d.cfg};
	if (rollup_new(store, &d.rollup_cfg, &d.rollup) < 0 || rollup_start(d.rollup, d.loop) < 0 ||
	    wear_mon_new(store, fleet, d.alerts, &d.cfg, &d.wear_mon) < 0 ||
	    wear_mon_start(d.wear_mon, d.loop) < 0)
		goto out;
	struct api_endpoint dash_ep[] = {series_endpoint(&d.rollup_cfg), wear_endpoint(&d.wear)};
	if (endpoints_add(&endpoints, dash_ep, 2) < 0)
		goto out;
	/* Firmware and PCIe link history: GET …/facts. */
	struct api_endpoint facts_ep = facts_endpoint();
	if (endpoints_add(&endpoints, &facts_ep, 1) < 0)
		goto out;
	/* The devices, their samples, /healthz. */
	size_t n_core_ep;
	const struct api_endpoint *core_ep = api_devices_endpoints(&n_core_ep);
	if (endpoints_add(&endpoints, core_ep, n_core_ep) < 0)
		goto out;
	struct api_config ac = {
		.host = d.cfg.listen_host,
		.port = d.cfg.listen_port,
		.db_path = d.cfg.database,
		.web_root = web_root(&d.cfg),
		.threads = d.cfg.http_threads,
		.timeout_ms = d.cfg.http_timeout_ms,
		.fleet = fleet,
		.endpoints = endpoints.v,
		.n_endpoints = endpoints.n,
		.token = d.cfg.http_token,
	};
	r = api_start(&ac, &api, err);
	if (r < 0) {
		log_error("%s", err);
		goto out;
	}
	d.sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (d.sigfd < 0 || loop_add_fd(d.loop, d.sigfd, on_signal, &d) < 0) {
		log_error("cannot watch signals: %s", strerror(errno));
		goto out;
	}
	log_info("nvmond %s: %s backend, database %s, http://%s%s%s:%u/", NVMOND_VERSION,
		 backend->ops->name, d.cfg.database, strchr(d.cfg.listen_host, ':') ? "[" : "",
		 d.cfg.listen_host, strchr(d.cfg.listen_host, ':') ? "]" : "", api_port(api));

	/* systemd: ready only now (database migrated, HTTP listening); then the tick. */
	d.fleet = fleet;
	d.watchdog_ms = svc_watchdog_ms();
	if (loop_add_timer(d.loop, 0, on_svc_tick, &d) < 0) {
		log_error("cannot arm the watchdog timer");
		goto out;
	}
	svc_notify("READY=1\nSTATUS=Started");
	r = loop_run(d.loop);
	if (r < 0)
		log_error("event loop failed: %s", strerror(-r));
	status = r < 0 ? EXIT_RUNTIME : EXIT_OK;
out:
	/* Release HTTP threads waiting on the main loop, then stop them. */
	if (d.mainq)
		mainq_shutdown(d.mainq);
	api = api_stop(api); /* no reader after this point */
	/* Cancel probes and wait for their threads (each stores what it measured). */
	d.probes = probe_svc_free(d.probes);
	d.mainq = mainq_free(d.mainq);
	d.selftests = selftest_svc_free(d.selftests);
	if (store)
		store_set_busy_timeout(store, 5000); /* at shutdown, waiting beats losing */
	if (d.poller) {
		size_t pending = poller_pending(d.poller);
		if (poller_flush(d.poller) < 0) {
			log_error("%zu samples could not be stored at shutdown: %s",
				  poller_pending(d.poller), store_strerror(store));
			status = EXIT_RUNTIME;
		} else if (pending) {
			log_info("stored %zu buffered samples", pending);
		}
	}
	if (store)
		store_checkpoint(store);
	d.poller = poller_free(d.poller);
	d.alerts = alert_svc_free(d.alerts);
	d.rollup = rollup_free(d.rollup);
	d.wear_mon = wear_mon_free(d.wear_mon);
	d.loop = loop_free(d.loop);
	fleet = fleet_free(fleet);
	backend = dev_backend_free(backend);
	store = store_close(store);
	if (d.sigfd >= 0)
		close(d.sigfd);
	return status;
}

/* nvmond probe: the command's code lives in probe/probe_cli.c. */
static int cmd_probe(const struct opts *o)
{
	struct dev_backend *b = NULL;
	struct cfg c;
	int r;

	if (load_config(o, &c) < 0)
		return EXIT_USAGE;
	log_set_level(c.log_level);
	r = make_parent_dirs(c.database);
	if (r >= 0)
		r = open_backend(&c, &b);
	if (r < 0) {
		fprintf(stderr, "nvmond: %s\n", strerror(-r));
		return EXIT_RUNTIME;
	}
	if (o->n_probe_devices > 1 && o->probe_to) {
		fprintf(stderr, "nvmond: --to goes with one --device (copy-to)\n");
		r = EXIT_USAGE;
	} else if (o->n_probe_devices > 1)
		r = probe_cli_group(&c, b, o->probe_devices, o->n_probe_devices, o->probe_preset,
				    o->json);
	else if (o->probe_to)
		r = probe_cli_copyto(&c, b, o->probe_device, o->probe_to, o->probe_preset, o->json);
	else
		r = probe_cli_repeat(&c, b, o->probe_device, o->probe_preset, o->json,
				     o->probe_repeat ? o->probe_repeat : 1,
				     o->probe_cooldown_ms >= 0 ? o->probe_cooldown_ms
							       : PROBE_COOLDOWN_DEFAULT_MS);
	dev_backend_free(b);
	return r;
}

/* nvmond selftest: the command's code lives in selftest/selftest_cli.c. */
static int cmd_selftest(const struct opts *o)
{
	struct cfg c;

	if (load_config(o, &c) < 0)
		return EXIT_USAGE;
	return selftest_cli(&c, o->probe_device, o->selftest_code, o->selftest_nsid,
			    o->selftest_wait, o->json);
}

int main(int argc, char **argv)
{
	struct opts o;
	const char *cmd;

	if (parse_opts(argc, argv, &o, &cmd) < 0)
		return EXIT_USAGE;
	if (cmd && strcmp(cmd, "probe") == 0)
		return cmd_probe(&o);
	if (cmd && strcmp(cmd, "selftest") == 0)
		return cmd_selftest(&o);
	if (cmd)
		return cmd_status(&o);
	return run_daemon(&o);
}
