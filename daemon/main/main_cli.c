/* SPDX-License-Identifier: MIT */
/*
 * nvmond's command line: the options and usage, the configuration as they
 * make it, and the commands other than the daemon (status, probe, selftest:
 * their code lives in api/status.c, probe/probe_cli*.c, selftest/selftest_cli.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvmond/api/api_host.h"
#include "nvmond/api/api_tls.h"
#include "nvmond/api/status.h"
#include "nvmond/config.h"
#include "nvmond/core/cfg.h"
#include "nvmond/export/export_svc.h"
#include "nvmond/core/log.h"
#include "nvmond/demo/demo.h"
#include "nvmond/dev/dev.h"
#include "nvmond/analysis/recovery.h"
#include "nvmond/analysis/risk.h"
#include "nvmond/fleetview/fleetview_svc.h"
#include "nvmond/analysis/selftest_sched.h"
#include "nvmond/probe/probe.h"
#include "nvmond/probe/probe_conf.h"
#include "nvmond/probe/probe_group.h"
#include "nvmond/probe/probe_sched.h"
#include "nvmond/probe/probe_series.h"
#include "nvmond/probe/probe_svc.h"
#include "nvmond/selftest/selftest_cli.h"
#include "nvmond/selftest/selftest_conf.h"
#include "nvmond/store/store.h"
#include "nvmond/util/fperm.h"
#include "nvmond/util/timefmt.h"

#include "nvmond/main/main_cfg.h"
#include "nvmond/main/main_cli.h"
#include "nvmond/main/main_http.h"

/* "seq1m-q8, seq1m-q1, …" from the preset table, wrapped under the option's text. */
static void usage_presets(FILE *out)
{
	int col = 0;

	fprintf(out, "      --preset PRESET     (probe) ");
	col = 32;
	for (int i = 0; i < _PROBE_PRESET_MAX; i++) {
		const char *name = probe_preset_get((enum probe_preset_id)i)->name;
		int len = (int)strlen(name) + 1; /* and its comma */
		if (i > 0 && col + 1 + len > 78) {
			fprintf(out, "\n                          ");
			col = 26;
		} else if (i > 0) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%s%s", name, i + 1 < _PROBE_PRESET_MAX ? "," : "\n");
		col += len;
	}
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: nvmond [OPTIONS]                 run the daemon (API, web, /metrics)\n"
		"       nvmond status [--json] [OPTIONS] read every NVMe controller once, print\n"
		"       nvmond probe --device ID [--device ID …] --preset PRESET\n"
		"                    [--repeat N [--cooldown D]] [--json] [OPTIONS]\n"
		"                                        run a throughput probe now (several\n"
		"                                        --device: one per drive, together)\n"
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
		"      --json              (status, probe, selftest) print JSON instead of a\n"
		"                          table\n"
		"      --device ID         (probe, selftest) the drive: its id in\n"
		"                          GET /api/v1/devices, serial, controller or\n"
		"                          namespace name; (probe) repeat it to probe\n"
		"                          several drives together\n"
		"      --short, --extended, --abort\n"
		"                          (selftest) start a short or extended test, or\n"
		"                          abort the running one\n"
		"      --nsid N            (selftest) test namespace N only (default: the\n"
		"                          controller and every namespace)\n"
		"      --wait              (selftest) follow the test to its result\n",
		CFG_DEFAULT_PATH);
	usage_presets(out);
	fprintf(out,
		"      --repeat N          (probe) run it N times (1 … 10), linked as a series,\n"
		"                          and show the best, median and spread\n"
		"      --cooldown D        (probe) idle between the runs (default 30s)\n"
		"      --to ID             (probe, copy-to) the drive written; --device is read\n"
		"  -h, --help              this text\n"
		"  -V, --version           print the version\n"
		"\n"
		"Exit status: 0 ok; 1 runtime failure (database, address in use, devices; for\n"
		"probe also a failed or refused probe; for selftest a refused, failed or\n"
		"aborted test, or a daemon that cannot be reached); 2 bad command line or\n"
		"configuration; 3 a database from a newer nvmond or another program (not\n"
		"opened, not retried).\n"
		"Signals: SIGTERM/SIGINT stop after storing every sample; SIGHUP reloads the\n"
		"configuration file.\n"
		"Environment: NO_COLOR turns off the colors of status on a terminal.\n"
		"See nvmond(8) and nvmond.conf(5).\n");
}

/* The long options; the short ones are -c, -l, -h and -V. */
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

/* What the options said that no field of struct opts keeps. */
struct opts_seen {
	bool nsid_given;
	int n_codes; /* --short, --extended, --abort: one at most */
};

/* Option @c (getopt_long()'s answer, its argument in optarg) into @o. Return: 0 or -EINVAL. */
static int opt_take(int c, struct opts *o, struct opts_seen *seen)
{
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
			fprintf(stderr, "nvmond: --device: at most %d drives\n", PROBE_GROUP_MAX);
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
		    o->probe_cooldown_ms < 0 || o->probe_cooldown_ms > PROBE_COOLDOWN_MAX_MS) {
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
		seen->n_codes++;
		break;
	case OPT_NSID: {
		char *end;
		errno = 0;
		unsigned long v = strtoul(optarg, &end, 0);
		if (errno || *end || !optarg[0] || optarg[0] == '-' || v < 1 ||
		    v > DEV_SELFTEST_NSID_ALL) {
			fprintf(stderr, "nvmond: --nsid: 1 to 4294967295, not '%s'\n", optarg);
			return -EINVAL;
		}
		o->selftest_nsid = (uint32_t)v;
		seen->nsid_given = true;
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
	return 0;
}

/* The options that go with the command @cmd (NULL: the daemon) only. Return: 0 or -EINVAL. */
static int opts_check(const struct opts *o, const char *cmd, const struct opts_seen *seen)
{
	if (o->json && !cmd) {
		fprintf(stderr, "nvmond: --json goes with a command (status, probe, selftest)\n");
		return -EINVAL;
	}
	bool selftest = cmd && strcmp(cmd, "selftest") == 0;
	if (selftest) {
		if (!o->probe_device || o->n_probe_devices > 1 || o->probe_preset || o->probe_to ||
		    seen->n_codes > 1 || (!o->selftest_code && !o->selftest_wait) ||
		    (seen->nsid_given && o->selftest_code != SELFTEST_CODE_SHORT &&
		     o->selftest_code != SELFTEST_CODE_EXTENDED) ||
		    (o->selftest_wait && o->selftest_code == SELFTEST_CODE_ABORT)) {
			fprintf(stderr, "nvmond: selftest needs --device ID and one of --short, "
					"--extended (with --nsid N, --wait if wanted) or --abort; "
					"--wait alone follows a running test\n");
			return -EINVAL;
		}
		return 0;
	}
	if (seen->n_codes || seen->nsid_given || o->selftest_wait) {
		fprintf(stderr, "nvmond: --short, --extended, --abort, --nsid and --wait go with "
				"the selftest command\n");
		return -EINVAL;
	}
	bool probe = cmd && strcmp(cmd, "probe") == 0;
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

int parse_opts(int argc, char **argv, struct opts *o, const char **ret_cmd)
{
	struct opts_seen seen = {0};
	int c;

	*o = (struct opts){.config = CFG_DEFAULT_PATH,
			   .selftest_nsid = DEV_SELFTEST_NSID_ALL,
			   .probe_cooldown_ms = -1};
	while ((c = getopt_long(argc, argv, "c:l:hV", longopts, NULL)) != -1)
		if (opt_take(c, o, &seen) < 0)
			return -EINVAL;
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
	return opts_check(o, *ret_cmd, &seen);
}

/*
 * ---- checks run as the file is read: [device] values whose syntax is owned
 * above core, and the web root the daemon serves (the sections the subsystems
 * own check their keys themselves, cfg_section.h) ----
 */

/* A web root that is not there is a mistake in the file, not a runtime failure. */
static int check_web_root(const char *value, char *err, size_t errsize)
{
	struct stat st;

	if (!value[0])
		return 0;
	if (stat(value, &st) < 0) {
		snprintf(err, errsize, "%s: %s", value, strerror(errno));
		return -EINVAL;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errsize, "%s: not a directory", value);
		return -EINVAL;
	}
	return 0;
}

static const struct cfg_check config_checks[] = {
	{"device", "probe_schedule", probe_conf_check_schedule},
	{"device", "selftest_schedule", selftest_conf_check_schedule},
	{"daemon", "web_root", check_web_root},
};

/* Defaults, then the file, then the command line. Prints the error itself. */
int load_config(const struct opts *o, struct cfg *ret)
{
	char err[CFG_ERR_MAX];
	/* Built in place: a struct cfg is a few hundred KiB, more than the
	 * device process's channel threads have on their stacks. */
	struct cfg *c = ret;
	int r;

	/* Every entry that reads the file knows the subsystems' sections, whatever
	 * its main() (the daemon's, a test's channel attacker): registering again
	 * is the same list. */
	r = main_cfg_sections();
	if (r < 0) {
		fprintf(stderr, "nvmond: the configuration's sections: %s\n", strerror(-r));
		return r;
	}
	cfg_defaults(c);
	r = cfg_load_checked(c, o->config, config_checks,
			     sizeof(config_checks) / sizeof(config_checks[0]), err);
	if (r == -ENOENT && !o->config_given)
		r = 0; /* no file at the default place: built-in defaults */
	if (r < 0) {
		fprintf(stderr, "nvmond: %s\n", err);
		return r;
	}
	/* [export] sections as a whole (url, secrets' files): a mistake is FILE:LINE now,
	 * exit 2 at start, and a reload with it keeps the running configuration. */
	r = export_check(c, err, sizeof(err));
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
		r = cfg_set(c, overrides[i].section, overrides[i].key, overrides[i].value, err);
		if (r < 0) {
			fprintf(stderr, "nvmond: %s: %s\n", overrides[i].flag, err);
			return r;
		}
	}
	return 0;
}

/* The real controllers, or the demo drives when asked or (auto) when none exist. */
int open_backend(const struct cfg *c, struct dev_backend **ret)
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

int cmd_status(const struct opts *o)
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

/* mkdir -p of the database's directory, so a first start just works. */
int make_parent_dirs(const char *path)
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

/* nvmond probe: the command's code lives in probe/probe_cli.c. */
int cmd_probe(const struct opts *o)
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
int cmd_selftest(const struct opts *o)
{
	struct cfg c;

	if (load_config(o, &c) < 0)
		return EXIT_USAGE;
	return selftest_cli(&c, o->probe_device, o->selftest_code, o->selftest_nsid,
			    o->selftest_wait, o->json);
}
