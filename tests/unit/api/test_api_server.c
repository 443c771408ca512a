/* SPDX-License-Identifier: MIT */
/*
 * api_start() end to end in-process: a real SQLite file, a real fleet, a real
 * listening socket (port 0) and plain HTTP/1.0 over a TCP socket.
 */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "nvmond/api/api.h"
#include "nvmond/alert/alert_svc.h"
#include "nvmond/analysis/throttle.h"
#include "nvmond/api/api_devices.h"
#include "nvmond/api/series_api.h"
#include "nvmond/core/cfg.h"
#include "nvmond/core/loop.h"
#include "nvmond/core/mainq.h"
#include "nvmond/store/store.h"
#include "nvmond/store/store_alert.h"
#include "nvmond/store/store_drive.h"
#include "nvmond/util/timefmt.h"

static char dir[PATH_MAX], db[PATH_MAX + 16], web[PATH_MAX + 16];
static struct fleet *fleet;
static int64_t dev_id, t0;

#define N_SAMPLES 20

static void setup(void)
{
	char err[STORE_ERR_MAX], path[PATH_MAX + 32];
	struct device_row row = {.wctemp_k = 343, .cctemp_k = 353, .online = 1};
	struct sample v[N_SAMPLES];
	struct store *s;
	FILE *f;

	strcpy(dir, "/tmp/nvmond-test-api-server-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/db", dir);
	snprintf(web, sizeof(web), "%s/web", dir);
	cr_assert_eq(mkdir(web, 0755), 0);
	snprintf(path, sizeof(path), "%s/index.html", web);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("<p>hello</p>", f);
	fclose(f);

	cr_assert_eq(store_open(db, &s, err), 0, "%s", err);
	strcpy(row.key, "M/S1");
	strcpy(row.model, "M");
	strcpy(row.serial, "S1");
	strcpy(row.firmware, "F");
	strcpy(row.name, "nvme0");
	strcpy(row.namespaces, "[]");
	t0 = timefmt_now_ms() - 60000;
	row.first_seen_ms = row.last_seen_ms = t0;
	cr_assert_eq(store_device_upsert(s, &row, &dev_id), 0, "%s", store_strerror(s));
	row.id = dev_id;
	memset(v, 0, sizeof(v));
	for (int i = 0; i < N_SAMPLES; i++) {
		v[i].device_id = dev_id;
		v[i].ts_ms = t0 + i * 1000;
		v[i].smart.temperature_k = 310;
		v[i].smart.data_units_written = 100 + (u128)i;
	}
	cr_assert_eq(store_samples_insert(s, v, N_SAMPLES), 0, "%s", store_strerror(s));
	store_close(s);

	fleet = fleet_new();
	cr_assert_not_null(fleet);
	cr_assert_eq(fleet_put_device(fleet, &row), 0);
	cr_assert_eq(fleet_put_sample(fleet, &v[N_SAMPLES - 1]), 0);
}

static void teardown(void)
{
	char path[PATH_MAX + 32];
	static const char *const names[] = {"web/index.html", "web", "db-wal", "db-shm", "db"};

	fleet = fleet_free(fleet);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (unlink(path) < 0)
			rmdir(path);
	}
	rmdir(dir);
}

static struct api *start_with(uint16_t port, unsigned threads, const struct api_endpoint *eps,
			      size_t n_eps)
{
	struct api_config c = {
		.host = "127.0.0.1",
		.port = port,
		.db_path = db,
		.web_root = web,
		.threads = threads,
		.timeout_ms = 5000,
		.fleet = fleet,
		.endpoints = eps,
		.n_endpoints = n_eps,
	};
	char err[API_ERR_MAX] = "";
	struct api *a = NULL;

	cr_assert_eq(api_start(&c, &a, err), 0, "%s", err);
	cr_assert_not_null(a);
	cr_assert_neq(api_port(a), 0);
	return a;
}

/* The server as main starts it, with the core endpoints. */
static struct api *start(uint16_t port, unsigned threads)
{
	size_t n_core;
	const struct api_endpoint *core = api_devices_endpoints(&n_core);

	return start_with(port, threads, core, n_core);
}

/* GET @path over HTTP/1.0; returns the status, *ret_body is malloc()ed. */
static int http_get(uint16_t port, const char *path, char **ret_body)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap), *body;
	int fd, status = -1;
	ssize_t k;

	cr_assert_not_null(buf);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	cr_assert_geq(fd, 0);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "%s", strerror(errno));
	dprintf(fd, "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
	while ((k = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)k;
		if (len + 1 == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			cr_assert_not_null(buf);
		}
	}
	close(fd);
	buf[len] = '\0';
	sscanf(buf, "HTTP/1.%*d %d", &status);
	body = strstr(buf, "\r\n\r\n");
	*ret_body = strdup(body ? body + 4 : "");
	free(buf);
	return status;
}

static json_t *get_json(uint16_t port, const char *path, int want_status)
{
	char *body;
	int status = http_get(port, path, &body);
	json_t *v = json_loads(body, 0, NULL);

	cr_expect_eq(status, want_status, "%s: %d %s", path, status, body);
	cr_assert_not_null(v, "%s: not JSON: %s", path, body);
	free(body);
	return v;
}

Test(api_server, serves, .init = setup, .fini = teardown)
{
	struct api *a = start(0, 2);
	uint16_t port = api_port(a);
	char path[256], *body;
	json_t *v;

	v = get_json(port, "/healthz", 200);
	cr_expect_str_eq(json_string_value(json_object_get(v, "status")), "ok");
	json_decref(v);

	v = get_json(port, "/api/v1/devices", 200);
	cr_expect_eq(json_array_size(json_object_get(v, "devices")), 1);
	cr_expect_eq(json_integer_value(json_object_get(
			     json_array_get(json_object_get(v, "devices"), 0), "id")),
		     dev_id);
	json_decref(v);

	/* samples come from the store through a read-only handle */
	snprintf(path, sizeof(path),
		 "/api/v1/devices/%" PRId64 "/samples?from=%" PRId64 "&to=%" PRId64, dev_id,
		 t0 + 5000, t0 + 9000);
	v = get_json(port, path, 200);
	cr_expect_eq(json_array_size(json_object_get(v, "samples")), 5);
	cr_expect_eq(
		json_integer_value(json_object_get(json_array_get(json_object_get(v, "samples"), 0),
						   "data_units_written")),
		105);
	json_decref(v);

	v = get_json(port, "/api/v1/devices/12345", 404);
	cr_expect(json_is_string(json_object_get(v, "error")));
	json_decref(v);

	cr_expect_eq(http_get(port, "/", &body), 200);
	cr_expect_str_eq(body, "<p>hello</p>");
	free(body);

	cr_expect_null(api_stop(a));
}

struct hammer {
	uint16_t port;
	int ok;
};

static void *hammer_run(void *p)
{
	struct hammer *h = p;
	char path[128];

	snprintf(path, sizeof(path), "/api/v1/devices/%" PRId64 "/samples?from=0", dev_id);
	for (int i = 0; i < 25; i++) {
		char *body;
		json_t *v;

		if (http_get(h->port, path, &body) != 200) {
			free(body);
			continue;
		}
		v = json_loads(body, 0, NULL);
		if (json_array_size(json_object_get(v, "samples")) == N_SAMPLES)
			h->ok++;
		json_decref(v);
		free(body);
	}
	return NULL;
}

/* More clients than worker threads: handles are reused, never shared. */
Test(api_server, concurrent_readers, .init = setup, .fini = teardown)
{
	struct api *a = start(0, 2);
	struct hammer h[4];
	pthread_t t[4];

	for (int i = 0; i < 4; i++) {
		h[i] = (struct hammer){.port = api_port(a)};
		cr_assert_eq(pthread_create(&t[i], NULL, hammer_run, &h[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		cr_expect_eq(h[i].ok, 25, "client %d: %d of 25", i, h[i].ok);
	}
	api_stop(a);
}

Test(api_server, start_errors, .init = setup, .fini = teardown)
{
	struct api *a = start(0, 1), *b = NULL;
	char err[API_ERR_MAX] = "";
	struct api_config c = {
		.host = "127.0.0.1",
		.port = api_port(a),
		.db_path = db,
		.web_root = web,
		.threads = 1,
		.fleet = fleet,
	};

	cr_expect_eq(api_start(&c, &b, err), -EADDRINUSE);
	cr_expect_null(b);
	cr_expect_neq(err[0], '\0');

	c.port = 0;
	c.web_root = "/nonexistent/nvmond/web";
	err[0] = '\0';
	cr_expect_eq(api_start(&c, &b, err), -ENOENT);
	cr_expect(strstr(err, "web_root"), "%s", err);

	c.web_root = web;
	c.host = "not an address";
	err[0] = '\0';
	cr_expect_lt(api_start(&c, &b, err), 0);
	cr_expect_neq(err[0], '\0');
	cr_expect_null(b);

	api_stop(a);
	cr_expect_null(api_stop(NULL));
}

/*
 * One parser for every query: the same mistake gets the same 400 and the same
 * message on /samples, /series, /events and /alerts (and on an endpoint that
 * takes no query), through the real server and a real HTTP client. Before,
 * /series took "from=1&from=2" and "points=%205", and /alerts ignored unknown
 * parameters.
 */
Test(api_server, query_refusals_are_the_same_everywhere, .init = setup, .fini = teardown)
{
	struct store_rollup_cfg rc = {.keep_raw_ms = 7 * 86400000LL,
				      .keep_1m_ms = ROLLUP_KEEP_1M_MS,
				      .grace_ms = ROLLUP_GRACE_MS};
	char err[STORE_ERR_MAX], aerr[256], path[256];
	struct api_endpoint eps[32];
	struct alert_svc *alerts;
	struct loop *l = loop_new();
	struct mainq *mq = NULL;
	struct store *s;
	struct cfg cfg;
	size_t n = 0, k;
	const struct api_endpoint *v;

	cr_assert_not_null(l);
	cr_assert_eq(mainq_new(l, &mq), 0);
	cr_assert_eq(store_open(db, &s, err), 0, "%s", err);
	cfg_defaults(&cfg);
	cr_assert_eq(alert_svc_new(&cfg, s, fleet, mq, &alerts, aerr), 0, "%s", aerr);
	v = api_devices_endpoints(&k);
	memcpy(eps + n, v, k * sizeof(*v));
	n += k;
	v = alert_svc_endpoints(alerts, &k);
	memcpy(eps + n, v, k * sizeof(*v));
	n += k;
	struct series_api sa = {.rollup = &rc};
	eps[n++] = series_endpoint(&sa);

	struct api *a = start_with(0, 2, eps, n);
	static const struct {
		const char *path; /* {id}: the device */
		int status;
		const char *error; /* NULL: a 200 */
	} cases[] = {
		/* unknown: named, with what the endpoint knows */
		{"/api/v1/devices/{id}/samples?bogus=1", 400,
		 "unknown query parameter 'bogus' (known: from, to, limit)"},
		{"/api/v1/devices/{id}/series?bogus=1", 400,
		 "unknown query parameter 'bogus' (known: from, to, points, step)"},
		{"/api/v1/devices/{id}/events?bogus=1", 400,
		 "unknown query parameter 'bogus' (known: from, to, limit, kind, source)"},
		{"/api/v1/alerts?bogus=1", 400, "unknown query parameter 'bogus' (known: limit)"},
		{"/api/v1/devices?bogus=1", 400, "unknown query parameter 'bogus' (known: none)"},
		{"/api/v1/devices/{id}?bogus=1", 400,
		 "unknown query parameter 'bogus' (known: none)"},
		{"/healthz?bogus=1", 400, "unknown query parameter 'bogus' (known: none)"},
		/* repeated */
		{"/api/v1/devices/{id}/samples?from=1&from=2", 400, "parameter 'from' given twice"},
		{"/api/v1/devices/{id}/series?from=1&from=2", 400, "parameter 'from' given twice"},
		{"/api/v1/devices/{id}/events?from=1&from=2", 400, "parameter 'from' given twice"},
		{"/api/v1/alerts?limit=5&limit=5", 400, "parameter 'limit' given twice"},
		/* malformed: a leading space, overflow, times beyond year 9999 */
		{"/api/v1/devices/{id}/samples?limit=%205", 400,
		 "parameter 'limit' must be an integer from 1 to 100000"},
		{"/api/v1/devices/{id}/series?points=%205", 400,
		 "parameter 'points' must be an integer from 1 to 10000"},
		{"/api/v1/devices/{id}/events?limit=99999999999999999999", 400,
		 "parameter 'limit' must be an integer from 1 to 10000"},
		/* docs/api.md: /events returns at most 10000 events, so it accepts no more */
		{"/api/v1/devices/{id}/events?limit=10001", 400,
		 "parameter 'limit' must be an integer from 1 to 10000"},
		{"/api/v1/alerts?limit=99999999999999999999", 400,
		 "parameter 'limit' must be an integer from 1 to 10000"},
		{"/api/v1/alerts?limit", 400,
		 "parameter 'limit' must be an integer from 1 to 10000"},
		{"/api/v1/devices/{id}/samples?from=-9223372036854775808", 400,
		 "parameter 'from' must be an RFC 3339 time or unix milliseconds, years 0000 to "
		 "9999"},
		{"/api/v1/devices/{id}/series?from=-9223372036854775808", 400,
		 "parameter 'from' must be an RFC 3339 time or unix milliseconds, years 0000 to "
		 "9999"},
		{"/api/v1/devices/{id}/events?to=10000-01-01T00:00:00Z", 400,
		 "parameter 'to' must be an RFC 3339 time or unix milliseconds, years 0000 to "
		 "9999"},
		{"/api/v1/devices/{id}/series?step=9223372036854775807s", 400,
		 "parameter 'step' must be a duration (\"60s\", \"5m\", \"1h\", or seconds) from "
		 "1s "
		 "to 3650d"},
		/* and what is valid still is */
		{"/api/v1/devices/{id}/samples?limit=%35", 200, NULL},
		{"/api/v1/devices/{id}/series?points=5", 200, NULL},
		{"/api/v1/devices/{id}/events?from=0&limit=3", 200, NULL},
		/* issue 27: the event log's kinds and sources */
		{"/api/v1/devices/{id}/events?kind=thermal_excursion,heavy", 200, NULL},
		{"/api/v1/devices/{id}/events?source=pel", 200, NULL},
		{"/api/v1/alerts?limit=5", 200, NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *at = strstr(cases[i].path, "{id}");

		if (at)
			snprintf(path, sizeof(path), "%.*s%" PRId64 "%s", (int)(at - cases[i].path),
				 cases[i].path, dev_id, at + 4);
		else
			snprintf(path, sizeof(path), "%s", cases[i].path);
		json_t *j = get_json(api_port(a), path, cases[i].status);
		const char *e = json_string_value(json_object_get(j, "error"));

		if (cases[i].error)
			cr_expect_str_eq(e ? e : "(none)", cases[i].error, "%s", path);
		else
			cr_expect_null(e, "%s: %s", path, e);
		json_decref(j);
	}
	api_stop(a);
	alert_svc_free(alerts);
	store_close(s);
	mainq_free(mq);
	loop_free(l);
}

/* A request with an optional Authorization header; returns the status. */
static int http_status(uint16_t port, const char *method, const char *path, const char *auth)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	char buf[4096];
	size_t len = 0;
	ssize_t k;
	int fd, status = -1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	cr_assert_geq(fd, 0);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "%s", strerror(errno));
	dprintf(fd, "%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n%s%s%s\r\n", method,
		path, auth ? "Authorization: " : "", auth ? auth : "", auth ? "\r\n" : "");
	while (len + 1 < sizeof(buf) && (k = read(fd, buf + len, sizeof(buf) - len - 1)) > 0)
		len += (size_t)k;
	close(fd);
	buf[len] = '\0';
	sscanf(buf, "HTTP/1.%*d %d", &status);
	return status;
}

static void nop_handler(void *ctx, const struct api_request *req, struct api_reply *ret)
{
	(void)ctx;
	(void)req;
	ret->json = json_pack("{s:b}", "ok", 1);
}

/*
 * [http] auth (docs/api.md "Read access"): with mutations only API_EP_AUTH
 * needs the token; with all every endpoint but API_EP_OPEN and static files
 * does; /metrics (API_EP_METRICS) takes its own token when one is set, or the
 * API token, and that token opens nothing else. The scheme is any case.
 */
Test(api_server, auth_modes, .init = setup, .fini = teardown)
{
	static const struct api_endpoint eps[] = {
		{"GET", "/healthz", API_EP_OPEN, nop_handler, NULL},
		{"GET", "/api/v1/read", 0, nop_handler, NULL},
		{"POST", "/api/v1/write", API_EP_AUTH, nop_handler, NULL},
		{"GET", "/metrics", API_EP_METRICS, nop_handler, NULL},
	};
	static const struct {
		enum api_auth auth;
		const char *metrics_token;
		const char *method, *path, *header;
		int want;
	} cases[] = {
		{API_AUTH_MUTATIONS, NULL, "GET", "/healthz", NULL, 200},
		{API_AUTH_MUTATIONS, NULL, "GET", "/api/v1/read", NULL, 200},
		{API_AUTH_MUTATIONS, NULL, "POST", "/api/v1/write", NULL, 401},
		{API_AUTH_MUTATIONS, NULL, "POST", "/api/v1/write", "Bearer api-token", 200},
		{API_AUTH_MUTATIONS, NULL, "POST", "/api/v1/write", "bearer api-token", 200},
		{API_AUTH_MUTATIONS, NULL, "POST", "/api/v1/write", "BEARER api-token", 200},
		{API_AUTH_MUTATIONS, NULL, "POST", "/api/v1/write", "Basic api-token", 401},
		{API_AUTH_MUTATIONS, NULL, "POST", "/api/v1/write", "Bearer api-toke", 401},
		{API_AUTH_MUTATIONS, NULL, "GET", "/metrics", NULL, 200},
		{API_AUTH_MUTATIONS, "scrape-token", "GET", "/metrics", NULL, 401},
		{API_AUTH_MUTATIONS, "scrape-token", "GET", "/metrics", "Bearer scrape-token", 200},
		{API_AUTH_MUTATIONS, "scrape-token", "GET", "/metrics", "Bearer api-token", 200},
		{API_AUTH_MUTATIONS, "scrape-token", "POST", "/api/v1/write", "Bearer scrape-token",
		 401},
		{API_AUTH_ALL, NULL, "GET", "/healthz", NULL, 200},
		{API_AUTH_ALL, NULL, "GET", "/index.html", NULL, 200},
		{API_AUTH_ALL, NULL, "GET", "/api/v1/read", NULL, 401},
		{API_AUTH_ALL, NULL, "GET", "/api/v1/read", "Bearer api-token", 200},
		{API_AUTH_ALL, NULL, "GET", "/metrics", NULL, 401},
		{API_AUTH_ALL, NULL, "GET", "/metrics", "Bearer api-token", 200},
		{API_AUTH_ALL, "scrape-token", "GET", "/metrics", "Bearer scrape-token", 200},
		{API_AUTH_ALL, "scrape-token", "GET", "/api/v1/read", "Bearer scrape-token", 401},
		{API_AUTH_ALL, "scrape-token", "GET", "/healthz", "Bearer wrong", 200},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct api_config c = {
			.host = "127.0.0.1",
			.db_path = db,
			.web_root = web,
			.threads = 1,
			.timeout_ms = 5000,
			.fleet = fleet,
			.endpoints = eps,
			.n_endpoints = sizeof(eps) / sizeof(eps[0]),
			.token = "api-token",
			.auth = cases[i].auth,
			.metrics_token = cases[i].metrics_token,
		};
		char err[API_ERR_MAX] = "";
		struct api *a = NULL;

		cr_assert_eq(api_start(&c, &a, err), 0, "%s", err);
		int got = http_status(api_port(a), cases[i].method, cases[i].path, cases[i].header);
		cr_expect_eq(got, cases[i].want,
			     "case %zu: auth %d, metrics_token %s: %s %s (%s): %d", i,
			     cases[i].auth, cases[i].metrics_token ? cases[i].metrics_token : "-",
			     cases[i].method, cases[i].path,
			     cases[i].header ? cases[i].header : "no header", got);
		api_stop(a);
	}
}

/*
 * Issue 27: /events merges the throttle events and the Persistent Event Log's
 * entries by start time, oldest first, keeps `limit` of them (the oldest) and
 * filters by `kind` and `source`. A year of both kinds went through it: this
 * merge once looped forever on the first throttle event.
 */
Test(api_server, events_merge_throttle_and_event_log, .init = setup, .fini = teardown)
{
	char err[STORE_ERR_MAX], aerr[256], path[256];
	struct api_endpoint eps[32];
	struct alert_svc *alerts;
	struct loop *l = loop_new();
	struct mainq *mq = NULL;
	struct store *s;
	struct cfg cfg;
	size_t n = 0, k, added;
	const struct api_endpoint *v;
	int64_t id;

	cr_assert_not_null(l);
	cr_assert_eq(mainq_new(l, &mq), 0);
	cr_assert_eq(store_open(db, &s, err), 0, "%s", err);
	/* throttle light at t0+1s, heavy at t0+3s; log entries at t0+2s and t0+4s */
	for (int i = 0; i < 2; i++) {
		struct throttle_event ev = {.kind = i ? THROTTLE_HEAVY : THROTTLE_LIGHT,
					    .start_ms = t0 + 1000 + i * 2000,
					    .end_ms = t0 + 1500 + i * 2000,
					    .duration_s = 1};
		cr_assert_eq(store_event_insert(s, dev_id, &ev, &id), 0, "%s", store_strerror(s));
	}
	struct store_pel_row pv[2];
	memset(pv, 0, sizeof(pv));
	for (int i = 0; i < 2; i++) {
		pv[i].fingerprint = 77 + (uint64_t)i;
		pv[i].type = i ? 0x03 : 0x0d;
		pv[i].ts_ms = pv[i].read_ms = t0 + 2000 + i * 2000;
		pv[i].time_known = true;
		strcpy(pv[i].kind, i ? "power_on_reset" : "thermal_excursion");
		strcpy(pv[i].summary, "x");
		strcpy(pv[i].detail, "{}");
	}
	cr_assert_eq(store_pel_add(s, dev_id, pv, 2, &added), 0, "%s", store_strerror(s));
	cr_assert_eq(added, 2);
	cfg_defaults(&cfg);
	cr_assert_eq(alert_svc_new(&cfg, s, fleet, mq, &alerts, aerr), 0, "%s", aerr);
	v = alert_svc_endpoints(alerts, &k);
	memcpy(eps + n, v, k * sizeof(*v));
	n += k;
	struct api *a = start_with(0, 2, eps, n);
	static const struct {
		const char *query;
		const char *kinds; /* the answer's kinds in order */
	} cases[] = {
		{"", "light,thermal_excursion,heavy,power_on_reset"},
		{"&limit=3", "light,thermal_excursion,heavy"},
		{"&limit=1", "light"},
		{"&source=pel", "thermal_excursion,power_on_reset"},
		{"&source=throttle", "light,heavy"},
		{"&kind=heavy,power_on_reset", "heavy,power_on_reset"},
		{"&kind=light", "light"},
		{"&kind=thermal_excursion&source=throttle", ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char got[256] = "";

		snprintf(path, sizeof(path),
			 "/api/v1/devices/%" PRId64 "/events?from=%" PRId64 "%s", dev_id, t0,
			 cases[i].query);
		json_t *j = get_json(api_port(a), path, 200);
		json_t *arr = json_object_get(j, "events"), *e;
		size_t x;

		json_array_foreach(arr, x, e)
		{
			const char *kind = json_string_value(json_object_get(e, "kind"));
			const char *src = json_string_value(json_object_get(e, "source"));

			cr_expect_str_eq(src,
					 strncmp(kind, "light", 5) && strncmp(kind, "heavy", 5)
						 ? "pel"
						 : "throttle",
					 "%s: %s", path, kind);
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", x ? "," : "",
				 kind);
		}
		cr_expect_str_eq(got, cases[i].kinds, "%s", path);
		json_decref(j);
	}
	snprintf(path, sizeof(path), "/api/v1/devices/%" PRId64 "/events?kind=bogus", dev_id);
	json_t *j = get_json(api_port(a), path, 400);
	cr_expect(strstr(json_string_value(json_object_get(j, "error")) ?: "",
			 "unknown event kind 'bogus'"));
	json_decref(j);
	api_stop(a);
	alert_svc_free(alerts);
	store_close(s);
	mainq_free(mq);
	loop_free(l);
}
