/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvmond/api/api_conf.h"
#include "nvmond/core/cfg.h"
#include "nvmond/main/main_cfg.h"
#include "nvmond/probe/probe_conf.h"
#include "nvmond/selftest/selftest_conf.h"
#include "nvmond/store/store_conf.h"

#define SAMPLE_CONF FIXTURES_DIR "/../../systemd/nvmond.conf"

static char tmpdir[] = "/tmp/nvmond-test-cfg-XXXXXX";
static char written[16][CFG_PATH_MAX];
static int nwritten;

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmpdir));
	/* Every section, the subsystems' own too, as the daemon reads a file. */
	cr_assert_eq(main_cfg_sections(), 0);
}

static void teardown(void)
{
	for (int i = 0; i < nwritten; i++)
		unlink(written[i]);
	rmdir(tmpdir);
}

TestSuite(cfg, .init = setup, .fini = teardown);

/* Write @text to a new file in the test's temp dir; returns its path. */
static const char *write_conf(const char *text)
{
	char *path;
	FILE *f;

	cr_assert_lt(nwritten, 16);
	path = written[nwritten];
	snprintf(path, CFG_PATH_MAX, "%s/%d.conf", tmpdir, nwritten);
	nwritten++;
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(text, 1, strlen(text), f), strlen(text));
	cr_assert_eq(fclose(f), 0);
	return path;
}

/* Field by field: struct padding and bytes after a string's NUL do not matter. */
static bool cfg_eq(const struct cfg *a, const struct cfg *b)
{
	return strcmp(a->listen_host, b->listen_host) == 0 && a->listen_port == b->listen_port &&
	       strcmp(a->database, b->database) == 0 && strcmp(a->web_root, b->web_root) == 0 &&
	       a->poll_interval_ms == b->poll_interval_ms &&
	       a->rescan_interval_ms == b->rescan_interval_ms && a->demo == b->demo &&
	       a->log_level == b->log_level &&
	       store_conf(a)->buffer_samples == store_conf(b)->buffer_samples &&
	       store_conf(a)->retry_max_ms == store_conf(b)->retry_max_ms &&
	       http_conf(a)->threads == http_conf(b)->threads &&
	       http_conf(a)->timeout_ms == http_conf(b)->timeout_ms;
}

/* Load @text; expect failure with exactly "PATH:" + @msg. */
static void expect_load_error(const char *text, const char *msg)
{
	char err[CFG_ERR_MAX] = "", want[CFG_ERR_MAX];
	struct cfg c, before;
	const char *path = write_conf(text);

	cfg_defaults(&c);
	before = c;
	cr_expect_eq(cfg_load(&c, path, err), -EINVAL, "%s", text);
	snprintf(want, sizeof(want), "%s:%s", path, msg);
	cr_expect_str_eq(err, want, "for file:\n%s", text);
	cr_expect(cfg_eq(&c, &before), "cfg changed by a failed load:\n%s", text);
}

static struct cfg load_ok(const char *path)
{
	char err[CFG_ERR_MAX] = "";
	struct cfg c;

	cfg_defaults(&c);
	cr_assert_eq(cfg_load(&c, path, err), 0, "%s: %s", path, err);
	return c;
}

/* ---- durations ---- */

Test(cfg, duration_valid)
{
	static const struct {
		const char *s;
		int64_t ms;
	} cases[] = {
		{"0", 0},
		{"0ms", 0},
		{"250ms", 250},
		{"10s", 10000},
		{"10", 10000},
		{"5m", 300000},
		{"2h", 7200000},
		{"1d", 86400000},
		{"007s", 7000},
		{"9223372036854775807ms", INT64_MAX},
		{"9223372036854775s", INT64_C(9223372036854775000)},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t ms = -1;
		cr_expect_eq(cfg_parse_duration_ms(cases[i].s, &ms), 0, "'%s'", cases[i].s);
		cr_expect_eq(ms, cases[i].ms, "'%s' -> %lld", cases[i].s, (long long)ms);
	}
}

Test(cfg, duration_invalid)
{
	static const char *const cases[] = {
		"",
		"fast",
		"-1",
		"-5s",
		"+5s",
		"10 s",
		" 10s",
		"10s ",
		"1.5s",
		"10sec",
		"s",
		"ms",
		"10S",
		"1h30m",
		"10ms5",
		"0x10",
		"1e3",
		"10us",
		"10 ",
		"5mm",
		"9223372036854775808ms", /* > INT64_MAX */
		"9223372036854776s",	 /* overflows when scaled */
		"106751991167301d",	 /* overflows when scaled */
		"99999999999999999999999",
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t ms = -42;
		cr_expect_eq(cfg_parse_duration_ms(cases[i], &ms), -EINVAL, "'%s'", cases[i]);
		cr_expect_eq(ms, -42, "'%s' wrote the result on failure", cases[i]);
	}
	cr_expect_eq(cfg_parse_duration_ms(NULL, &(int64_t){0}), -EINVAL);
}

/* ---- listen addresses ---- */

Test(cfg, listen_valid)
{
	static const struct {
		const char *s, *host;
		uint16_t port;
	} cases[] = {
		{"127.0.0.1:9470", "127.0.0.1", 9470},
		{"[::1]:9470", "::1", 9470},
		{":9470", "0.0.0.0", 9470},
		{"localhost:80", "localhost", 80},
		{"0.0.0.0:1", "0.0.0.0", 1},
		{"[::]:65535", "::", 65535},
		{"[fe80::1%eth0]:8080", "fe80::1%eth0", 8080},
		{"my-host.example_1:443", "my-host.example_1", 443},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char host[256] = "";
		uint16_t port = 0;
		cr_expect_eq(cfg_parse_listen(cases[i].s, host, &port), 0, "'%s'", cases[i].s);
		cr_expect_str_eq(host, cases[i].host, "'%s'", cases[i].s);
		cr_expect_eq(port, cases[i].port, "'%s'", cases[i].s);
	}
}

Test(cfg, listen_invalid)
{
	static char longhost[300];
	const char *cases[] = {
		"1.2.3.4",
		"[::1",
		"[::1]",
		"[::1]9470",
		":0",
		":70000",
		"a:b",
		"",
		":",
		"::1:9470",
		"[]:80",
		"[nothost]:80",
		"host:80x",
		"host:-1",
		"host :80",
		"ho st:80",
		"host:",
		"host:+80",
		"[::1]:",
		"[::1]:0",
		"host:65536",
		"[::1%]:80",
		"host:99999999999999999999",
		"h/x:80",
		longhost,
	};

	memset(longhost, 'a', 280);
	memcpy(longhost + 280, ":80", 4);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char host[256] = "untouched";
		uint16_t port = 7;
		cr_expect_eq(cfg_parse_listen(cases[i], host, &port), -EINVAL, "'%s'", cases[i]);
		cr_expect_str_eq(host, "untouched", "'%s' wrote host on failure", cases[i]);
		cr_expect_eq(port, 7, "'%s' wrote port on failure", cases[i]);
	}
}

/* ---- defaults ---- */

Test(cfg, defaults)
{
	struct cfg c;

	memset(&c, 0xAA, sizeof(c));
	cfg_defaults(&c);
	cr_expect_str_eq(c.listen_host, "127.0.0.1");
	cr_expect_eq(c.listen_port, 9470);
	cr_expect_str_eq(c.web_root, "");
	cr_expect_eq(c.poll_interval_ms, 10000);
	cr_expect_eq(c.rescan_interval_ms, 30000);
	cr_expect_eq(c.demo, CFG_DEMO_AUTO);
	cr_expect_eq(c.log_level, LOG_LVL_INFO);
	cr_expect_eq(store_conf(&c)->buffer_samples, 100000);
	cr_expect_eq(store_conf(&c)->retry_max_ms, 60000);
	cr_expect_eq(store_conf(&c)->commit_interval_ms, 0, "every poll is committed");
	cr_expect_eq(http_conf(&c)->threads, 4);
	cr_expect_eq(http_conf(&c)->timeout_ms, 30000);
	cr_expect_eq(http_conf(&c)->max_connections, 256);
	cr_expect_eq(http_conf(&c)->request_timeout_ms, 30000);
	cr_expect_eq(http_conf(&c)->max_connections_per_ip, 32);
	cr_expect_neq(c.database[0], '\0');
	cr_expect_eq(c.alert_selftest, 1, "self-test alerts on");
	cr_expect_str_eq(selftest_conf(&c)->default_schedule, "", "no scheduled self-tests");
}

Test(cfg, default_database)
{
	struct cfg c;

	if (geteuid() == 0) {
		cr_expect_eq(setenv("XDG_STATE_HOME", "/somewhere", 1), 0);
		cfg_defaults(&c);
		cr_expect_str_eq(c.database, "/var/lib/nvmond/nvmond.db");
		return;
	}
	cr_expect_eq(setenv("XDG_STATE_HOME", "/xdg/state", 1), 0);
	cfg_defaults(&c);
	cr_expect_str_eq(c.database, "/xdg/state/nvmond/nvmond.db");

	/* A relative $XDG_STATE_HOME is invalid per the spec: fall back to $HOME. */
	cr_expect_eq(setenv("XDG_STATE_HOME", "relative", 1), 0);
	cr_expect_eq(setenv("HOME", "/home/someone", 1), 0);
	cfg_defaults(&c);
	cr_expect_str_eq(c.database, "/home/someone/.local/state/nvmond/nvmond.db");

	cr_expect_eq(unsetenv("XDG_STATE_HOME"), 0);
	cfg_defaults(&c);
	cr_expect_str_eq(c.database, "/home/someone/.local/state/nvmond/nvmond.db");
}

/* ---- every key through cfg_set ---- */

/* The numeric (or enum) value of @key, to check table cases generically. */
static int64_t field(const struct cfg *c, const char *key)
{
	if (strcmp(key, "poll_interval") == 0)
		return c->poll_interval_ms;
	if (strcmp(key, "rescan_interval") == 0)
		return c->rescan_interval_ms;
	if (strcmp(key, "demo") == 0)
		return c->demo;
	if (strcmp(key, "log_level") == 0)
		return c->log_level;
	if (strcmp(key, "buffer_samples") == 0)
		return store_conf(c)->buffer_samples;
	if (strcmp(key, "retry_max") == 0)
		return store_conf(c)->retry_max_ms;
	if (strcmp(key, "commit_interval") == 0)
		return store_conf(c)->commit_interval_ms;
	if (strcmp(key, "threads") == 0)
		return http_conf(c)->threads;
	if (strcmp(key, "timeout") == 0)
		return http_conf(c)->timeout_ms;
	cr_assert_fail("no field for key %s", key);
	return -1;
}

Test(cfg, set_valid_values)
{
	static const struct {
		const char *section, *key, *value;
		int64_t want;
	} cases[] = {
		{"daemon", "poll_interval", "100ms", 100},
		{"daemon", "poll_interval", "1d", 86400000},
		{"daemon", "poll_interval", "2", 2000},
		{"daemon", "rescan_interval", "1s", 1000},
		{"daemon", "rescan_interval", "1d", 86400000},
		{"daemon", "rescan_interval", "90s", 90000},
		{"daemon", "demo", "auto", CFG_DEMO_AUTO},
		{"daemon", "demo", "yes", CFG_DEMO_YES},
		{"daemon", "demo", "no", CFG_DEMO_NO},
		{"daemon", "demo", "true", CFG_DEMO_YES},
		{"daemon", "demo", "false", CFG_DEMO_NO},
		{"daemon", "demo", "on", CFG_DEMO_YES},
		{"daemon", "demo", "off", CFG_DEMO_NO},
		{"daemon", "demo", "1", CFG_DEMO_YES},
		{"daemon", "demo", "0", CFG_DEMO_NO},
		{"daemon", "demo", "Yes", CFG_DEMO_YES},
		{"daemon", "log_level", "error", LOG_LVL_ERROR},
		{"daemon", "log_level", "warning", LOG_LVL_WARNING},
		{"daemon", "log_level", "info", LOG_LVL_INFO},
		{"daemon", "log_level", "debug", LOG_LVL_DEBUG},
		{"store", "buffer_samples", "1", 1},
		{"store", "buffer_samples", "10000000", 10000000},
		{"store", "buffer_samples", "250000", 250000},
		{"store", "retry_max", "1s", 1000},
		{"store", "retry_max", "1h", 3600000},
		{"store", "retry_max", "5m", 300000},
		{"store", "commit_interval", "0", 0},
		{"store", "commit_interval", "10s", 10000},
		{"store", "commit_interval", "1m", 60000},
		{"http", "threads", "1", 1},
		{"http", "threads", "64", 64},
		{"http", "timeout", "1s", 1000},
		{"http", "timeout", "1h", 3600000},
		{"http", "timeout", "3600", 3600000},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[CFG_ERR_MAX] = "";
		struct cfg c;

		cfg_defaults(&c);
		cr_expect_eq(cfg_set(&c, cases[i].section, cases[i].key, cases[i].value, err), 0,
			     "%s=%s: %s", cases[i].key, cases[i].value, err);
		cr_expect_eq(field(&c, cases[i].key), cases[i].want, "%s=%s", cases[i].key,
			     cases[i].value);
	}
}

Test(cfg, set_invalid_values)
{
	static const struct {
		const char *section, *key, *value, *msg;
	} cases[] = {
		{"daemon", "poll_interval", "fast",
		 "poll_interval: invalid duration 'fast' (use e.g. 500ms, 10s, 5m)"},
		{"daemon", "poll_interval", "99ms",
		 "poll_interval: 99ms is out of range (100ms .. 1d)"},
		{"daemon", "poll_interval", "86401s",
		 "poll_interval: 86401s is out of range (100ms .. 1d)"},
		{"daemon", "poll_interval", "",
		 "poll_interval: invalid duration '' (use e.g. 500ms, 10s, 5m)"},
		{"daemon", "poll_interval", "-1s",
		 "poll_interval: invalid duration '-1s' (use e.g. 500ms, 10s, 5m)"},
		{"daemon", "rescan_interval", "999ms",
		 "rescan_interval: 999ms is out of range (1s .. 1d)"},
		{"daemon", "rescan_interval", "2d",
		 "rescan_interval: 2d is out of range (1s .. 1d)"},
		{"daemon", "rescan_interval", "soon",
		 "rescan_interval: invalid duration 'soon' (use e.g. 500ms, 10s, 5m)"},
		{"daemon", "demo", "maybe", "demo: invalid value 'maybe' (use auto, yes or no)"},
		{"daemon", "demo", "", "demo: invalid value '' (use auto, yes or no)"},
		{"daemon", "demo", "2", "demo: invalid value '2' (use auto, yes or no)"},
		{"daemon", "log_level", "verbose",
		 "log_level: invalid value 'verbose' (use error, warning, info or debug)"},
		{"daemon", "log_level", "",
		 "log_level: invalid value '' (use error, warning, info or debug)"},
		{"store", "buffer_samples", "0",
		 "buffer_samples: 0 is out of range (1 .. 10000000)"},
		{"store", "buffer_samples", "10000001",
		 "buffer_samples: 10000001 is out of range (1 .. 10000000)"},
		{"store", "buffer_samples", "4294967297",
		 "buffer_samples: 4294967297 is out of range (1 .. 10000000)"},
		{"store", "buffer_samples", "99999999999999999999999",
		 "buffer_samples: 99999999999999999999999 is out of range (1 .. 10000000)"},
		{"store", "buffer_samples", "-1", "buffer_samples: invalid number '-1'"},
		{"store", "buffer_samples", "1e3", "buffer_samples: invalid number '1e3'"},
		{"store", "buffer_samples", "", "buffer_samples: invalid number ''"},
		{"store", "retry_max", "999ms", "retry_max: 999ms is out of range (1s .. 1h)"},
		{"store", "retry_max", "61m", "retry_max: 61m is out of range (1s .. 1h)"},
		{"store", "retry_max", "1m30s",
		 "retry_max: invalid duration '1m30s' (use e.g. 500ms, 10s, 5m)"},
		{"store", "commit_interval", "61s",
		 "commit_interval: 61s is out of range (0ms .. 1m)"},
		{"http", "threads", "0", "threads: 0 is out of range (1 .. 64)"},
		{"http", "threads", "65", "threads: 65 is out of range (1 .. 64)"},
		{"http", "threads", "four", "threads: invalid number 'four'"},
		{"http", "timeout", "0", "timeout: 0 is out of range (1s .. 1h)"},
		{"http", "timeout", "2h", "timeout: 2h is out of range (1s .. 1h)"},
		{"daemon", "listen", "1.2.3.4",
		 "listen: invalid address '1.2.3.4' (use host:port, [v6]:port or :port, port "
		 "1..65535)"},
		{"daemon", "listen", ":0",
		 "listen: invalid address ':0' (use host:port, [v6]:port or :port, port 1..65535)"},
		{"daemon", "database", "", "database: must not be empty"},
		{"daemon", "pol_interval", "5s", "unknown key 'pol_interval' in section [daemon]"},
		{"http", "poll_interval", "5s", "unknown key 'poll_interval' in section [http]"},
		{"nonsense", "threads", "4", "unknown section [nonsense]"},
		{"", "threads", "4", "key 'threads' outside any section"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[CFG_ERR_MAX] = "";
		struct cfg c, before;

		cfg_defaults(&c);
		before = c;
		cr_expect_eq(cfg_set(&c, cases[i].section, cases[i].key, cases[i].value, err),
			     -EINVAL, "%s=%s", cases[i].key, cases[i].value);
		cr_expect_str_eq(err, cases[i].msg);
		cr_expect(cfg_eq(&c, &before), "%s=%s changed the config", cases[i].key,
			  cases[i].value);
	}
}

Test(cfg, set_paths_and_listen)
{
	char err[CFG_ERR_MAX] = "";
	char longpath[CFG_PATH_MAX + 1];
	struct cfg c;

	cfg_defaults(&c);
	cr_expect_eq(cfg_set(&c, "daemon", "database", "/tmp/x.db", err), 0, "%s", err);
	cr_expect_str_eq(c.database, "/tmp/x.db");
	cr_expect_eq(cfg_set(&c, "daemon", "database", "rel/x.db", err), 0, "%s", err);
	cr_expect_str_eq(c.database, "rel/x.db");
	cr_expect_eq(cfg_set(&c, "daemon", "web_root", "/srv/web", err), 0, "%s", err);
	cr_expect_str_eq(c.web_root, "/srv/web");
	cr_expect_eq(cfg_set(&c, "daemon", "web_root", "", err), 0, "%s", err);
	cr_expect_str_eq(c.web_root, "");

	/* CFG_PATH_MAX - 1 bytes fit, one more does not. */
	memset(longpath, 'p', sizeof(longpath));
	longpath[0] = '/';
	longpath[CFG_PATH_MAX - 1] = '\0';
	cr_expect_eq(cfg_set(&c, "daemon", "database", longpath, err), 0, "%s", err);
	cr_expect_str_eq(c.database, longpath);
	longpath[CFG_PATH_MAX - 1] = 'p';
	longpath[CFG_PATH_MAX] = '\0';
	cr_expect_eq(cfg_set(&c, "daemon", "database", longpath, err), -EINVAL);
	cr_expect_str_eq(err, "database: the value is too long (4096 bytes, max 4095)");

	cr_expect_eq(cfg_set(&c, "daemon", "listen", "[::1]:8080", err), 0, "%s", err);
	cr_expect_str_eq(c.listen_host, "::1");
	cr_expect_eq(c.listen_port, 8080);
	cr_expect_eq(cfg_set(&c, "daemon", "listen", ":1234", err), 0, "%s", err);
	cr_expect_str_eq(c.listen_host, "0.0.0.0");
	cr_expect_eq(c.listen_port, 1234);
}

/* ---- files ---- */

Test(cfg, load_all_keys)
{
	struct cfg c = load_ok(FIXTURES_DIR "/cfg/all-keys.conf");

	cr_expect_str_eq(c.listen_host, "::1");
	cr_expect_eq(c.listen_port, 8080);
	cr_expect_str_eq(c.database, "/srv/nvmond/samples.db");
	cr_expect_str_eq(c.web_root, "/usr/local/share/nvmond/web");
	cr_expect_eq(c.poll_interval_ms, 2500);
	cr_expect_eq(c.rescan_interval_ms, 300000);
	cr_expect_eq(c.demo, CFG_DEMO_YES);
	cr_expect_eq(c.log_level, LOG_LVL_DEBUG);
	cr_expect_str_eq(c.user, "root");
	cr_expect_eq(store_conf(&c)->buffer_samples, 5000);
	cr_expect_eq(store_conf(&c)->retry_max_ms, 120000);
	cr_expect_eq(store_conf(&c)->commit_interval_ms, 5000);
	cr_expect_eq(http_conf(&c)->threads, 16);
	cr_expect_eq(http_conf(&c)->timeout_ms, 90000);
	cr_expect_eq(http_conf(&c)->max_connections, 1000);
	cr_expect_eq(http_conf(&c)->request_timeout_ms, 5000);
	cr_expect_eq(http_conf(&c)->max_connections_per_ip, 50);
	cr_expect_eq(c.alert_throttling, 0);
	cr_expect_eq(c.alert_spare, 0);
	cr_expect_eq(c.alert_offline, 1);
	cr_expect_eq(c.alert_warning_margin_c, 5);
	cr_expect_eq(c.alert_hysteresis_c, 3);
	cr_expect_eq(c.alert_resolve_after_ms, 60000);
	cr_expect_eq(c.alert_cooldown_ms, 3600000);
	cr_expect_str_eq(c.alert_exec, "/usr/local/bin/nvme-alert");
	cr_expect_str_eq(c.alert_webhook, "https://hooks.example.com/nvme");
	cr_expect_eq(c.alert_webhook_queue, 32);
	cr_expect_eq(c.alert_webhook_attempts, 3);
	cr_expect_eq(c.alert_webhook_retry_max_ms, 30000);
	cr_expect_eq(probe_conf(&c)->temp_margin_c, 8);
	cr_expect_eq(probe_conf(&c)->busy_iops, 200);
	cr_expect_eq(probe_conf(&c)->busy_mbps, 20);
	cr_expect_eq(probe_conf(&c)->phase_ms, 10000);
	cr_expect_eq(probe_conf(&c)->jitter_ms, 1800000);
	cr_expect_eq(probe_conf(&c)->sustained_every_ms, 14 * 86400000LL);
	cr_expect_eq(c.alert_selftest, 0);
	cr_expect_str_eq(selftest_conf(&c)->default_schedule, "weekly Sun 02:00 short");
}

Test(cfg, load_unknown_key_fixture)
{
	char err[CFG_ERR_MAX] = "", want[CFG_ERR_MAX];
	struct cfg c;

	cfg_defaults(&c);
	cr_expect_eq(cfg_load(&c, FIXTURES_DIR "/cfg/unknown-key.conf", err), -EINVAL);
	snprintf(want, sizeof(want), "%s:7: unknown key 'pol_interval' in section [daemon]",
		 FIXTURES_DIR "/cfg/unknown-key.conf");
	cr_expect_str_eq(err, want);
	/* The valid line after the error was not applied either. */
	cr_expect_eq(c.poll_interval_ms, 10000);
}

Test(cfg, load_bad_value_fixture)
{
	char err[CFG_ERR_MAX] = "", want[CFG_ERR_MAX];
	struct cfg c;

	cfg_defaults(&c);
	cr_expect_eq(cfg_load(&c, FIXTURES_DIR "/cfg/bad-value.conf", err), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s:3: poll_interval: invalid duration 'fast' (use e.g. 500ms, 10s, 5m)",
		 FIXTURES_DIR "/cfg/bad-value.conf");
	cr_expect_str_eq(err, want);
	cr_expect_eq(c.listen_port, 9470);
	cr_expect_str_eq(c.listen_host, "127.0.0.1");
}

Test(cfg, load_errors_with_line)
{
	expect_load_error("[daemon]\n\n\n\n\n\npol_interval = 5s\n",
			  "7: unknown key 'pol_interval' in section [daemon]");
	expect_load_error("# top\nthreads = 4\n[http]\n", "2: key 'threads' outside any section");
	expect_load_error("[daemon]\n[bogus]\n[http]\n", "2: unknown section [bogus]");
	expect_load_error("[http]\nthreads = 4\n\n[alarms]\nrule = x\n",
			  "4: unknown section [alarms]");
	expect_load_error("[daemon]\n[http\nthreads = 4\n", "2: missing ']' in section header");
	expect_load_error("[daemon]\ndemo\n", "2: expected 'key = value' or '[section]'");
	expect_load_error("[]\n", "1: empty section name");
	expect_load_error("[http]\nthreads = 4\ntimeout = 2h\n",
			  "3: timeout: 2h is out of range (1s .. 1h)");
	/* The first error is reported, even when a later one is a different kind. */
	expect_load_error("[daemon]\nnonsense\npoll_interval = x\n",
			  "2: expected 'key = value' or '[section]'");
	expect_load_error("[daemon]\npoll_interval = x\nnonsense\n",
			  "2: poll_interval: invalid duration 'x' (use e.g. 500ms, 10s, 5m)");
	/* CRLF does not shift line numbers. */
	expect_load_error("[daemon]\r\n; c\r\n\r\nlog_level = loud\r\n",
			  "4: log_level: invalid value 'loud' (use error, warning, info or debug)");
}

Test(cfg, load_long_lines)
{
	char text[1024];
	char longpath[400];

	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	snprintf(text, sizeof(text), "[daemon]\ndatabase = %s\n", longpath);
	expect_load_error(text, "2: line too long (max 199 characters)");

	/* Long comments are fine, and do not shift the line count. */
	snprintf(text, sizeof(text), "# %s\n[daemon]\n; %s\nbogus = 1\n", longpath, longpath);
	expect_load_error(text, "4: unknown key 'bogus' in section [daemon]");

	/* A line that fills the buffer exactly, plus trailing blanks, still fits. */
	char fits[200];
	memset(fits, 'y', sizeof(fits));
	memcpy(fits, "web_root = /", 12);
	fits[197] = '\0';
	snprintf(text, sizeof(text), "[daemon]\n%s   \r\n", fits);
	struct cfg c = load_ok(write_conf(text));
	cr_expect_str_eq(c.web_root, fits + 11);

	/* docs/configuration.md, Syntax: "Lines are limited to 199 characters": one of 199 is
	 * read whole, with any end of line; one of 200 is refused (issue 28 §5: the docs said
	 * 197, and 198 and 199 were taken). */
	static const char *const ends[] = {"\n", "\r\n", ""};
	for (size_t e = 0; e < sizeof(ends) / sizeof(ends[0]); e++) {
		fits[199] = '\0';
		fits[198] = 'z';
		fits[197] = 'y';
		snprintf(text, sizeof(text), "[daemon]\n%s%s", fits, ends[e]);
		c = load_ok(write_conf(text));
		cr_expect_eq(strlen(c.web_root), 199 - 11, "end %zu", e);
		cr_expect_eq(c.web_root[strlen(c.web_root) - 1], 'z', "end %zu: cut", e);
	}
	snprintf(text, sizeof(text), "[daemon]\n%sz\n", fits);
	expect_load_error(text, "2: line too long (max 199 characters)");
}

Test(cfg, load_missing_file)
{
	char err[CFG_ERR_MAX] = "", path[CFG_PATH_MAX];
	struct cfg c, before;

	snprintf(path, sizeof(path), "%s/does-not-exist.conf", tmpdir);
	cfg_defaults(&c);
	before = c;
	cr_expect_eq(cfg_load(&c, path, err), -ENOENT);
	cr_expect(strstr(err, path) == err, "error should start with the path: %s", err);
	cr_expect(cfg_eq(&c, &before));

	/* A directory opens but cannot be read. */
	cr_expect_eq(cfg_load(&c, tmpdir, err), -EISDIR, "%s", err);
}

Test(cfg, load_empty_and_blank)
{
	struct cfg def, c;

	cfg_defaults(&def);
	c = load_ok(write_conf(""));
	cr_expect(cfg_eq(&c, &def));
	c = load_ok(write_conf("\n\n   \n\t\r\n"));
	cr_expect(cfg_eq(&c, &def));
	c = load_ok(write_conf("[daemon]\n[store]\n[http]\n"));
	cr_expect(cfg_eq(&c, &def));
}

Test(cfg, load_crlf)
{
	struct cfg c = load_ok(write_conf("[daemon]\r\n"
					  "database = /var/tmp/crlf.db\r\n"
					  "listen = :8000\r\n"
					  "demo = no\r\n"
					  "[http]\r\n"
					  "threads = 8\r\n"));

	cr_expect_str_eq(c.database, "/var/tmp/crlf.db");
	cr_expect_str_eq(c.listen_host, "0.0.0.0");
	cr_expect_eq(c.listen_port, 8000);
	cr_expect_eq(c.demo, CFG_DEMO_NO);
	cr_expect_eq(http_conf(&c)->threads, 8);
}

Test(cfg, load_comments_and_whitespace)
{
	struct cfg c = load_ok(write_conf("\xEF\xBB\xBF; BOM, then a comment\n"
					  "# hash comment\n"
					  "[ daemon ]\n"
					  "  ; indented comment\n"
					  "   log_level   =   debug   \n"
					  "poll_interval = 5s ; inline comment\n"
					  "web_root = /srv/a#b\n"
					  "database = \"/q.db\"\n"
					  "[store]   ; section comment\n"
					  "buffer_samples\t=\t42\t\n"));

	cr_expect_eq(c.log_level, LOG_LVL_DEBUG);
	cr_expect_eq(c.poll_interval_ms, 5000);
	cr_expect_str_eq(c.web_root, "/srv/a#b");  /* '#' is a comment only at line start */
	cr_expect_str_eq(c.database, "\"/q.db\""); /* quotes are not special */
	cr_expect_eq(store_conf(&c)->buffer_samples, 42);
}

Test(cfg, load_duplicate_last_wins)
{
	struct cfg c = load_ok(write_conf("[http]\nthreads = 2\nthreads = 3\n"
					  "[daemon]\nlisten = :1\n[http]\nthreads = 5\n"));

	cr_expect_eq(http_conf(&c)->threads, 5);
	cr_expect_eq(c.listen_port, 1);

	/* docs/configuration.md: "A key set twice: the last one wins", also over a bad
	 * value (issue 28 §3: "poll_interval = 50ms" then "= 10s" stopped at the first). */
	c = load_ok(write_conf("[daemon]\npoll_interval = 50ms\npoll_interval = 10s\n"));
	cr_expect_eq(c.poll_interval_ms, 10000);
	c = load_ok(write_conf("[device \"X\"]\nrated_tbw = lots\n[daemon]\n"
			       "[device \"X\"]\nrated_tbw = 1PB\n"));
	cr_assert_eq(c.n_devices, 1);
	cr_expect_eq(c.devices[0].rated_bytes, 1000000000000000ull);
	/* The bad value nothing replaces is reported at its line, the first one first. */
	expect_load_error("[daemon]\npoll_interval = 10s\npoll_interval = 50ms\n",
			  "3: poll_interval: 50ms is out of range (100ms .. 1d)");
	expect_load_error("[daemon]\npoll_interval = 1ms\npoll_interval = 2ms\n",
			  "3: poll_interval: 2ms is out of range (100ms .. 1d)");
	expect_load_error("[daemon]\npoll_interval = 1ms\n[http]\nthreads = 0\n",
			  "2: poll_interval: 1ms is out of range (100ms .. 1d)");
	expect_load_error(
		"[http]\nthreads = 0\n[daemon]\npoll_interval = 1ms\npoll_interval = 1s\n",
		"2: threads: 0 is out of range (1 .. 64)");
	/* A value in another section's key of the same name is another key. */
	expect_load_error("[alerts]\ncooldown = 2d\n[probes]\njitter = 1m\n",
			  "2: cooldown: 2d is out of range (0ms .. 1d)");
	/* Errors that are not values are not put off: an unknown key is a typo. */
	expect_load_error("[daemon]\npol_interval = 5s\npol_interval = 5s\n",
			  "2: unknown key 'pol_interval' in section [daemon]");
}

/* Rules between keys, once the file is read: FILE:LINE of the key that breaks it (issue 28 §4). */
Test(cfg, load_keys_that_go_together)
{
	expect_load_error("[http]\n\nauth = all\n", "3: [http] auth = all needs [http] token");
	/* A token file that passes its own check (a secret with a token in it). */
	char text[2 * CFG_PATH_MAX];
	const char *tok = write_conf("t0ken\n");
	cr_assert_eq(chmod(tok, 0600), 0);
	snprintf(text, sizeof(text), "[http]\nmetrics_token = a\nmetrics_token_file = %s\n", tok);
	expect_load_error(text, "3: [http] metrics_token and metrics_token_file: set one of them");
	snprintf(text, sizeof(text), "[http]\nmetrics_token_file = %s\nmetrics_token = a\n", tok);
	expect_load_error(text, "3: [http] metrics_token and metrics_token_file: set one of them");
	/* The file's own check comes first, at its line (as the daemon reads it). */
	expect_load_error(
		"[http]\nmetrics_token = a\nmetrics_token_file = /nonexistent/x\n",
		"3: [http] metrics_token_file: /nonexistent/x: No such file or directory");
	expect_load_error("[http]\ntls_key = /k\n",
			  "2: [http] tls_cert and tls_key go together: tls_cert is not set");
	struct cfg c = load_ok(write_conf("[http]\ntoken = t\nauth = all\n"));
	cr_expect_eq(http_conf(&c)->auth, API_AUTH_ALL);
}

/* Where a key was set, for messages after the file was read. */
Test(cfg, key_where)
{
	char where[CFG_PATH_MAX + 16];
	const char *path = write_conf("[alerts]\n\nexec = /bin/true\n[http]\nthreads = 2\n");
	struct cfg c = load_ok(path);
	char want[CFG_PATH_MAX + 16];

	snprintf(want, sizeof(want), "%s:3", path);
	cr_expect_str_eq(cfg_key_where(&c, "alerts", "exec", where, sizeof(where)), want);
	snprintf(want, sizeof(want), "%s:5", path);
	cr_expect_str_eq(cfg_key_where(&c, "http", "threads", where, sizeof(where)), want);
	cr_expect_str_eq(cfg_key_where(&c, "alerts", "webhook", where, sizeof(where)), "");
	cr_expect_str_eq(cfg_key_where(&c, "nope", "nope", where, sizeof(where)), "");
}

/* The keys that wait for the next start: every [http] key and those the table marks. */
Test(cfg, restart_changes)
{
	char err[CFG_ERR_MAX], buf[256];
	struct cfg a, b;

	cfg_defaults(&a);
	b = a;
	cr_expect_eq(cfg_restart_changes(&a, &b, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "");
	cr_assert_eq(cfg_set(&b, "daemon", "poll_interval", "5s", err), 0);
	cr_expect_eq(cfg_restart_changes(&a, &b, buf, sizeof(buf)), 0, "%s", buf);
	cr_assert_eq(cfg_set(&b, "daemon", "demo_drives", "4", err), 0);
	cr_expect_eq(cfg_restart_changes(&a, &b, buf, sizeof(buf)), 1);
	cr_expect_str_eq(buf, "[daemon] demo_drives");
	cr_assert_eq(cfg_set(&b, "daemon", "listen", "127.0.0.1:1", err), 0);
	cr_assert_eq(cfg_set(&b, "http", "token", "x", err), 0);
	cr_assert_eq(cfg_set(&b, "store", "keep_raw", "1d", err), 0);
	cr_expect_eq(cfg_restart_changes(&a, &b, buf, sizeof(buf)), 4);
	cr_expect_str_eq(buf, "[daemon] listen, demo_drives, [store] keep_raw, [http] token");
	/* Cut to the buffer, never past it. */
	cr_expect_eq(cfg_restart_changes(&a, &b, buf, 10), 4);
	cr_expect_eq(strlen(buf), 9);
}

/* The table in the words of docs/configuration.md (what test_docs_agree.sh compares). */
Test(cfg, key_describe)
{
	struct cfg_key_desc d;
	size_t n = cfg_key_count(), seen = 0;

	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(cfg_key_describe(i, &d), 0);
		if (!strcmp(d.section, "daemon") && !strcmp(d.key, "poll_interval")) {
			cr_expect_str_eq(d.type, "duration");
			cr_expect_str_eq(d.def, "10s");
			cr_expect_str_eq(d.range, "100ms … 1d");
			cr_expect_not(d.restart);
			seen++;
		} else if (!strcmp(d.section, "store") && !strcmp(d.key, "commit_interval")) {
			cr_expect_str_eq(d.range, "0 … 1m");
			cr_expect_not(d.restart);
			seen++;
		} else if (!strcmp(d.section, "http") && !strcmp(d.key, "auth")) {
			cr_expect_str_eq(d.type, "choice");
			cr_expect_str_eq(d.range, "mutations, all");
			cr_expect(d.restart);
			seen++;
		} else if (!strcmp(d.section, "daemon") && !strcmp(d.key, "demo_drives")) {
			cr_expect_str_eq(d.type, "integer");
			cr_expect_str_eq(d.range, "1 … 64");
			cr_expect(d.restart);
			seen++;
		} else if (!strcmp(d.section, "device") && !strcmp(d.key, "probe_file_size")) {
			cr_expect_str_eq(d.type, "size");
			cr_expect_str_eq(d.range, "≥ 1 MiB");
			seen++;
		} else if (!strcmp(d.section, "device") && !strcmp(d.key, "destructive")) {
			cr_expect_str_eq(d.type, "bool");
			cr_expect_str_eq(d.range, "");
			seen++;
		} else if (!strcmp(d.section, "probes") && !strcmp(d.key, "recovery_intervals")) {
			cr_expect_str_eq(d.type, "list of durations");
			cr_expect_not(d.range_known);
			seen++;
		} else if (!strcmp(d.section, "daemon") && !strcmp(d.key, "database")) {
			cr_expect_null(d.def);
			cr_expect_str_eq(d.range, "not empty");
			seen++;
		}
	}
	cr_expect_eq(seen, 8);
	cr_expect_eq(cfg_key_describe(n, &d), -ENOENT);
	const char *const *b = cfg_bool_names();
	cr_expect_str_eq(b[0], "yes");
	cr_expect_str_eq(b[1], "no");
}

Test(cfg, load_on_top_of_existing)
{
	char err[CFG_ERR_MAX];
	struct cfg c;

	cfg_defaults(&c);
	cr_assert_eq(cfg_set(&c, "http", "threads", "9", err), 0);
	cr_assert_eq(cfg_load(&c, write_conf("[http]\ntimeout = 5s\n"), err), 0, "%s", err);
	cr_expect_eq(http_conf(&c)->threads, 9); /* keys the file does not set stay */
	cr_expect_eq(http_conf(&c)->timeout_ms, 5000);
}

/* The shipped sample parses, and its commented-out values are the real defaults. */
Test(cfg, shipped_sample)
{
	char text[32768], line[512];
	size_t used = 0;
	struct cfg def, c;
	int keys = 0;
	/* [sink "…"] and [export "…"] keys belong to the sink types and exports, not cfg_keys */
	bool in_sink = false;
	FILE *f;

	/* Every section, the subsystems' own too, as the daemon reads the file. */
	cr_assert_eq(main_cfg_sections(), 0);
	cfg_defaults(&def);
	c = load_ok(SAMPLE_CONF);
	cr_expect(cfg_eq(&c, &def), "the sample must set nothing");

	f = fopen(SAMPLE_CONF, "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		/* "#key = value" lines are settings, "#[device …]" a section to uncomment
		 * with them; "# text" lines are explanations. */
		const char *l = line;
		if (line[0] == '#' && line[1] != ' ' && line[1] != '\n' && strchr(line, '=')) {
			l = line + 1;
			keys += !in_sink;
		} else if (strncmp(line, "#[", 2) == 0) {
			l = line + 1;
			in_sink = strncmp(line, "#[sink ", 7) == 0 ||
				  strncmp(line, "#[export ", 9) == 0;
		} else if (line[0] == '[') {
			in_sink = false;
		}
		int n = snprintf(text + used, sizeof(text) - used, "%s", l);
		cr_assert(n >= 0 && (size_t)n < sizeof(text) - used);
		used += (size_t)n;
	}
	fclose(f);
	cr_expect_eq((size_t)keys, cfg_key_count(), "every key once in the sample, got %d", keys);

	c = load_ok(write_conf(text));
	cr_expect_str_eq(c.database, "/var/lib/nvmond/nvmond.db");
	strcpy(c.database, def.database);
	cr_expect(cfg_eq(&c, &def), "sample defaults differ from the built-in ones");
}

/* ---- sizes, [device "…"] sections, token ---- */

Test(cfg, size_valid_and_invalid)
{
	const struct {
		const char *in;
		uint64_t want;
	} ok[] = {
		{"0", 0},
		{"512000", 512000},
		{"400TB", 400000000000000ULL},
		{"400 TB", 400000000000000ULL},
		{"1.2PB", 1200000000000000ULL},
		{"0.6PB", 600000000000000ULL},
		{"600GB", 600000000000ULL},
		{"1.5kB", 1500},
		{"512GiB", 512ULL << 30},
		{"1.5KiB", 1536},
		{"18446744073709551615", UINT64_MAX},
		/* docs/configuration.md, Syntax: "a decimal unit (B, kB/KB, MB, GB, TB, PB)
		 * or a binary one (KiB, MiB, GiB, TiB, PiB)": each unit its own factor. */
		{"7B", 7},
		{"1KB", 1000},
		{"1kB", 1000},
		{"1KiB", 1024},
		{"1MB", 1000000},
		{"1MiB", 1048576},
		{"1.5MiB", 1572864},
		{"1GB", 1000000000ULL},
		{"1GiB", 1073741824ULL},
		{"1TB", 1000000000000ULL},
		{"1TiB", 1099511627776ULL},
		{"1PB", 1000000000000000ULL},
		{"1PiB", 1125899906842624ULL},
		{"2 PiB", 2251799813685248ULL},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint64_t v = 1;
		cr_expect_eq(cfg_parse_size(ok[i].in, &v), 0, "%s", ok[i].in);
		cr_expect_eq(v, ok[i].want, "%s: %llu", ok[i].in, (unsigned long long)v);
	}
	const char *bad[] = {"", "TB", "-1TB", "1.TB", "1 XB", "12tb", "1e3", "1,5TB"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 7;
		cr_expect_lt(cfg_parse_size(bad[i], &v), 0, "'%s'", bad[i]);
		cr_expect_eq(v, 7);
	}
	uint64_t v;
	cr_expect_eq(cfg_parse_size("18446744073709551616", &v), -ERANGE);
	cr_expect_eq(cfg_parse_size("20000PB", &v), -ERANGE);
	/* docs/configuration.md, Syntax: "a number (up to 6 decimals: 1.2PB)". A 7th was
	 * taken and rounded away without a word (issue 28 §5): refused. */
	cr_expect_eq(cfg_parse_size("1.123456PB", &v), 0);
	cr_expect_eq(v, 1123456000000000ULL);
	v = 7;
	cr_expect_eq(cfg_parse_size("1.1234567PB", &v), -EDOM);
	cr_expect_eq(v, 7);
	cr_expect_eq(cfg_parse_size("1.0000000PB", &v), -EDOM);
	char err[CFG_ERR_MAX];
	struct cfg c;
	cfg_defaults(&c);
	cr_expect_eq(cfg_set(&c, "device \"X\"", "rated_tbw", "1.1234567PB", err), -EINVAL);
	cr_expect_str_eq(err, "rated_tbw: '1.1234567PB' has more than 6 decimals");
}

Test(cfg, device_sections_merge_model_then_serial)
{
	const char *path = write_conf("[device \"Samsung SSD 950 PRO 512GB\"]\n"
				      "rated_tbw = 400TB\n"
				      "[device \"S2GMNX0H600001D\"]\n"
				      "rated_tbw = 350TB\n"
				      "[device \"OTHER\"]\n"
				      "rated_tbw = 1PB\n");
	struct cfg c = load_ok(path);
	struct cfg_device d;

	cr_expect_eq(c.n_devices, 3);
	cfg_device_for(&c, "Samsung SSD 950 PRO 512GB", "SOMEOTHER", &d);
	cr_expect_eq(d.rated_bytes, 400000000000000ULL, "by model");
	cfg_device_for(&c, "Samsung SSD 950 PRO 512GB", "S2GMNX0H600001D", &d);
	cr_expect_eq(d.rated_bytes, 350000000000000ULL, "the serial's section wins");
	cfg_device_for(&c, "Unknown", "Nope", &d);
	cr_expect_eq(d.rated_bytes, 0, "no section: default (not configured)");
	cr_expect_eq(d.set_mask, 0);
}

/* Device keys of every type merge: paths and strings (probe_dir), enums (destructive). */
Test(cfg, device_probe_keys_merge)
{
	const char *path = write_conf("[device \"Samsung SSD 980 PRO 1TB\"]\n"
				      "probe_dir = /srv/model\n"
				      "destructive = yes\n"
				      "probe_schedule = daily 03:00 seq1m-q8\n"
				      "[device \"S5GXNF0R000001\"]\n"
				      "probe_dir = /srv/serial\n"
				      "probe_file_size = 256MiB\n"
				      "probe_budget_day = 20GB\n");
	struct cfg c = load_ok(path);
	struct cfg_device d;

	cfg_device_for(&c, "Samsung SSD 980 PRO 1TB", "S5GXNF0R000001", &d);
	cr_expect_str_eq(d.probe_dir, "/srv/serial", "the serial's section wins");
	cr_expect_eq(d.probe_destructive, 1, "the model's enum is kept");
	cr_expect_str_eq(d.probe_schedule, "daily 03:00 seq1m-q8");
	cr_expect_eq(d.probe_file_size, 256ull << 20);
	cr_expect_eq(d.probe_budget_day, 20000000000ull);
	cfg_device_for(&c, "Other", "X", &d);
	cr_expect_str_eq(d.probe_dir, "");
	cr_expect_eq(d.probe_destructive, 0);
	cr_expect_eq(d.probe_file_size, 1ull << 30, "default 1 GiB");
	cr_expect_eq(d.probe_sustained_limit, 64000000000ull);
	expect_load_error("[device \"X\"]\ndestructive = maybe\n",
			  "2: destructive: invalid value 'maybe' (use yes or no)");
}

/* A drive's margins override [alerts] ones; unset, the [alerts] ones apply. */
Test(cfg, device_margins_fall_back_to_the_alerts_section)
{
	const char *path = write_conf("[alerts]\n"
				      "warning_margin = 5\n"
				      "critical_margin = 3\n"
				      "[device \"Samsung SSD 950 PRO 512GB\"]\n"
				      "warning_margin = 15\n"
				      "[device \"S2GMNX0H600001D\"]\n"
				      "critical_margin = 0\n");
	struct cfg c = load_ok(path);
	struct cfg_device d;

	cfg_device_for(&c, "Samsung SSD 950 PRO 512GB", "S2GMNX0H600001D", &d);
	cr_expect_eq(d.alert_warning_margin_c, 15, "the model's");
	cr_expect_eq(d.alert_critical_margin_c, 0, "the serial's, 0 set on purpose");
	cr_expect(cfg_device_sets(&d, "critical_margin"));
	cfg_device_for(&c, "Samsung SSD 950 PRO 512GB", "OTHER", &d);
	cr_expect_eq(d.alert_critical_margin_c, 3, "[alerts]");
	cfg_device_for(&c, "Other", "X", &d);
	cr_expect_eq(d.alert_warning_margin_c, 5);
	cr_expect_eq(d.alert_critical_margin_c, 3);
	cr_expect_not(cfg_device_sets(&d, "warning_margin"));
	cr_expect_not(cfg_device_sets(&d, "no_such_key"));
	expect_load_error("[device \"X\"]\nwarning_margin = 51\n",
			  "2: warning_margin: 51 is out of range (0 .. 50)");
}

/* Sensor alerts: off by default, [alerts] sensor_alerts for every drive, a
 * drive's own setting wins; sensor_limit_N in °C per drive, 0 = none. */
Test(cfg, sensor_alerts_and_limits)
{
	const char *path = write_conf("[alerts]\n"
				      "sensor_alerts = yes\n"
				      "[device \"CT1000E100SSD8\"]\n"
				      "sensor_alerts = no\n"
				      "[device \"S5GXNF0R000001\"]\n"
				      "sensor_limit_2 = 85\n"
				      "sensor_limit_8 = 200\n");
	struct cfg c = load_ok(path), def;
	struct cfg_device d;

	cfg_defaults(&def);
	cfg_device_for(&def, "Any", "X", &d);
	cr_expect_eq(d.sensor_alerts, 0, "off by default");
	for (int i = 0; i < 8; i++)
		cr_expect_eq(d.sensor_limit_c[i], 0);
	cfg_device_for(&c, "CT1000E100SSD8", "X", &d);
	cr_expect_eq(d.sensor_alerts, 0, "the drive's own setting wins over [alerts]");
	cfg_device_for(&c, "Samsung SSD 980 PRO 1TB", "S5GXNF0R000001", &d);
	cr_expect_eq(d.sensor_alerts, 1, "[alerts] sensor_alerts");
	cr_expect_eq(d.sensor_limit_c[1], 85);
	cr_expect_eq(d.sensor_limit_c[7], 200);
	cr_expect_eq(d.sensor_limit_c[0], 0);
	expect_load_error("[device \"X\"]\nsensor_limit_3 = 201\n",
			  "2: sensor_limit_3: 201 is out of range (0 .. 200)");
	expect_load_error("[device \"X\"]\nsensor_limit_9 = 80\n",
			  "2: unknown key 'sensor_limit_9' in section [device \"X\"]");
	expect_load_error("[alerts]\nsensor_alerts = maybe\n",
			  "2: sensor_alerts: invalid value 'maybe' (use yes or no)");
}

/*
 * configuration.md: a drive's selftest_schedule wins; not set or empty, the
 * [selftests] default_schedule applies; "none" opts a drive out of it.
 */
Test(cfg, selftest_schedule_falls_back_to_the_default)
{
	const char *path = write_conf("[selftests]\n"
				      "default_schedule = weekly Sun 02:00 short\n"
				      "[device \"Samsung SSD 980 PRO 1TB\"]\n"
				      "selftest_schedule = monthly 1 03:00 extended\n"
				      "[device \"S5GXNF0R000001\"]\n"
				      "selftest_schedule = None\n"
				      "[device \"S5GXNF0R000002\"]\n"
				      "selftest_schedule =\n");
	struct cfg c = load_ok(path), def;
	struct cfg_device d;
	char buf[256];
	/* The schedule in effect: the self-test service's rule (selftest_conf.h). */
#define IN_EFFECT(cfg, d)                                                                          \
	selftest_schedule_in_effect((d).selftest_schedule, selftest_conf(cfg)->default_schedule,   \
				    buf, sizeof(buf))

	cfg_device_for(&c, "Other", "X", &d);
	cr_expect_str_eq(IN_EFFECT(&c, d), "weekly Sun 02:00 short", "the default");
	cr_expect_not(cfg_device_sets(&d, "selftest_schedule"));
	cfg_device_for(&c, "Samsung SSD 980 PRO 1TB", "X", &d);
	cr_expect_str_eq(IN_EFFECT(&c, d), "monthly 1 03:00 extended", "the model's");
	cfg_device_for(&c, "Samsung SSD 980 PRO 1TB", "S5GXNF0R000001", &d);
	cr_expect_str_eq(IN_EFFECT(&c, d), "", "none: the serial opts out");
	cr_expect(cfg_device_sets(&d, "selftest_schedule"));
	cfg_device_for(&c, "Samsung SSD 980 PRO 1TB", "S5GXNF0R000002", &d);
	cr_expect_str_eq(IN_EFFECT(&c, d), "weekly Sun 02:00 short",
			 "empty: the default, not the model's");

	cfg_defaults(&def);
	cfg_device_for(&def, "Other", "X", &d);
	cr_expect_str_eq(IN_EFFECT(&def, d), "", "no default: none");
	c = load_ok(write_conf("[selftests]\ndefault_schedule = none\n"));
	cfg_device_for(&c, "Other", "X", &d);
	cr_expect_str_eq(IN_EFFECT(&c, d), "", "a default of none");
	/* Cut to the buffer, never past it. */
	cr_expect_str_eq(selftest_schedule_in_effect("daily 03:00 short", "", buf, 6), "daily");
#undef IN_EFFECT

	/* Kept as written: core does not parse schedules, the self-test service does. */
	c = load_ok(write_conf("[device \"X\"]\nselftest_schedule = daily 25:00 short\n"));
	cfg_device_for(&c, "Other", "X", &d);
	cr_expect_str_eq(d.selftest_schedule, "daily 25:00 short");
	cr_expect_str_eq(c.devices[0].selftest_schedule, "daily 25:00 short");
}

/* configuration.md: [alerts] selftest turns both self-test rules off. */
Test(cfg, selftest_alerts)
{
	struct cfg c = load_ok(write_conf("[alerts]\nselftest = no\n"));

	cr_expect_eq(c.alert_selftest, 0);
	expect_load_error("[alerts]\nselftest = sometimes\n",
			  "2: selftest: invalid value 'sometimes' (use yes or no)");
	expect_load_error("[selftests]\nschedule = daily 03:00 short\n",
			  "2: unknown key 'schedule' in section [selftests]");
}

Test(cfg, device_section_errors)
{
	expect_load_error("[device \"X\"]\nrated_tbw = lots\n",
			  "2: rated_tbw: invalid size 'lots' (use e.g. 400TB, 1.2PB, 512GiB)");
	expect_load_error("[device \"X\"]\nfavourite = yes\n",
			  "2: unknown key 'favourite' in section [device \"X\"]");
	expect_load_error("[device X]\nrated_tbw = 1TB\n", "1: unknown section [device X]");
	expect_load_error("[device \"\"]\nrated_tbw = 1TB\n", "1: unknown section [device \"\"]");
}

Test(cfg, token)
{
	struct cfg c = load_ok(write_conf("[http]\ntoken = abc123\n"));

	cr_expect_str_eq(http_conf(&c)->token, "abc123");
	cfg_defaults(&c);
	cr_expect_str_eq(http_conf(&c)->token, "", "no token by default");
}

/*
 * configuration.md, [daemon] user: empty by default (the daemon stays uid 0
 * when started as root); a user that exists, else an error with the line.
 */
Test(cfg, user_must_exist)
{
	char err[CFG_ERR_MAX] = "";
	struct cfg c;

	cfg_defaults(&c);
	cr_expect_str_eq(c.user, "", "no user by default");
	cr_expect_eq(cfg_set(&c, "daemon", "user", "root", err), 0, "%s", err);
	cr_expect_str_eq(c.user, "root");
	cr_expect_eq(cfg_set(&c, "daemon", "user", "no-such-user-xyz", err), -EINVAL);
	cr_expect_str_eq(err, "user: no user 'no-such-user-xyz' on this system");
	cr_expect_str_eq(c.user, "root", "a refused value leaves the key as it was");
	cr_expect_eq(cfg_set(&c, "daemon", "user", "", err), 0, "%s", err);
	cr_expect_str_eq(c.user, "");
	expect_load_error("[daemon]\n\nuser = no-such-user-xyz\n",
			  "3: user: no user 'no-such-user-xyz' on this system");
}

/*
 * Criterion's main(), written out: this test links nvmond_main (main's list of
 * sections), whose archive holds the daemon's own main() too, and an archive's
 * member would otherwise win over libcriterion's.
 */
int main(int argc, char *argv[])
{
	struct criterion_test_set *tests = criterion_initialize();
	int result = 0;

	if (criterion_handle_args(argc, argv, true))
		result = !criterion_run_all_tests(tests);
	criterion_finalize(tests);
	return result;
}
