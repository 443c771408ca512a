/* SPDX-License-Identifier: MIT */
/*
 * A request line as a client sends it, "METHOD /path?query": split as
 * libmicrohttpd splits it (path, then '&' and the first '='), every part
 * decoded by api_unescape() (the daemon's MHD unescape callback), routed by
 * api_route_find() among every endpoint of docs/api.md, the path checked by
 * api_static_relpath(), and the query parsed by api_params_parse_query() with
 * the tables of the endpoints that take one, followed by what the handlers
 * compute from it (series_plan(), the samples and events default ranges).
 * Rules: routing answers one of its documented results; a query is taken
 * whole or refused with a message; a taken time is within years 0000 to 9999.
 */
#include <errno.h>

#include "fuzz.h"
#include "nvmond/analysis/series.h"
#include "nvmond/api/api_params.h"
#include "nvmond/api/api_route.h"
#include "nvmond/util/timefmt.h"

#define PARAMS_MAX 32
#define NOW_MS	   1796005160000LL /* 2026-11-30T02:19:20Z */
#define DAY_MS	   (24 * 3600 * 1000LL)

/* docs/api.md, every route (the handlers are never called). */
static const struct api_endpoint endpoints[] = {
	{"GET", "/api/v1/devices", API_EP_STORE, NULL, NULL},
	{"GET", "/api/v1/devices/{id}", API_EP_STORE, NULL, NULL},
	{"GET", "/api/v1/devices/{id}/facts", API_EP_STORE, NULL, NULL},
	{"GET", "/api/v1/devices/{id}/samples", API_EP_STORE | API_EP_QUERY, NULL, NULL},
	{"GET", "/api/v1/devices/{id}/series", API_EP_STORE | API_EP_QUERY, NULL, NULL},
	{"GET", "/api/v1/devices/{id}/wear", API_EP_STORE, NULL, NULL},
	{"GET", "/api/v1/devices/{id}/events", API_EP_STORE | API_EP_QUERY, NULL, NULL},
	{"GET", "/api/v1/devices/{id}/errors", API_EP_STORE | API_EP_QUERY, NULL, NULL},
	{"GET", "/api/v1/alerts", API_EP_STORE | API_EP_QUERY, NULL, NULL},
	{"POST", "/api/v1/alerts/{id}/ack", API_EP_AUTH, NULL, NULL},
	{"POST", "/api/v1/alerts/test", API_EP_AUTH, NULL, NULL},
	{"GET", "/api/v1/devices/{id}/probes", API_EP_STORE | API_EP_QUERY, NULL, NULL},
	{"GET", "/api/v1/probes/{id}", API_EP_STORE, NULL, NULL},
	{"POST", "/api/v1/probes/{id}/cancel", API_EP_AUTH, NULL, NULL},
	{"POST", "/api/v1/devices/{id}/probes", API_EP_AUTH, NULL, NULL},
	{"POST", "/api/v1/probes", API_EP_AUTH, NULL, NULL},
	{"GET", "/api/v1/devices/{id}/selftests", API_EP_STORE | API_EP_QUERY, NULL, NULL},
	{"POST", "/api/v1/devices/{id}/selftests", API_EP_AUTH, NULL, NULL},
	{"POST", "/api/v1/devices/{id}/selftests/abort", API_EP_AUTH, NULL, NULL},
	{"GET", "/api/v1/fleet", API_EP_QUERY, NULL, NULL},
	{"GET", "/metrics", 0, NULL, NULL},
	{"GET", "/healthz", 0, NULL, NULL},
};

static void check_time(int64_t t)
{
	FUZZ_CHECK(t >= TIMEFMT_MIN_MS && t <= TIMEFMT_MAX_MS);
}

/* /series (series_api.c): from, to, points | step, then the plan. */
static void query_series(const struct api_query_param *v, size_t n)
{
	int64_t from = 0, to = NOW_MS, step = 0, pts = 0;
	bool has_from, has_points, has_step;
	const struct api_param t[] = {
		{.name = "from", .kind = API_PARAM_TIME, .dest.i64 = &from, .given = &has_from},
		{.name = "to", .kind = API_PARAM_TIME, .dest.i64 = &to},
		{.name = "points",
		 .kind = API_PARAM_INT,
		 .min = 1,
		 .max = SERIES_POINTS_MAX,
		 .dest.i64 = &pts,
		 .given = &has_points},
		{.name = "step",
		 .kind = API_PARAM_DURATION,
		 .min = 1000,
		 .max = 3650 * DAY_MS,
		 .dest.i64 = &step,
		 .given = &has_step},
	};
	char err[API_ERR_MAX];
	struct series_query q;

	if (api_params_parse_query(v, n, t, sizeof(t) / sizeof(t[0]), err) < 0) {
		FUZZ_CHECK(strnlen(err, sizeof(err)) > 0);
		return;
	}
	check_time(from);
	check_time(to);
	if (!has_from)
		from = to > DAY_MS ? to - DAY_MS : 0;
	if (series_plan(from, to, (unsigned)pts, step, NOW_MS, 7 * DAY_MS, 90 * DAY_MS, &q) == 0) {
		FUZZ_CHECK(q.step_ms >= 1000);
		FUZZ_CHECK((q.to_ms - q.from_ms) / q.step_ms + 1 <= SERIES_POINTS_MAX + 1);
	}
}

/* /events (alert_http.c), /errors, /probes, /selftests, /alerts: one table of every kind. */
static void query_any(const struct api_query_param *v, size_t n)
{
	static const char *const kinds[] = {"short", "extended", NULL};
	int64_t from = 0, to = NOW_MS, limit = 10, dur = 0;
	int kind = 0;
	const char *text = NULL;
	bool flag = false, has_from;
	const struct api_param t[] = {
		{.name = "from", .kind = API_PARAM_TIME, .dest.i64 = &from, .given = &has_from},
		{.name = "to", .kind = API_PARAM_TIME, .dest.i64 = &to},
		{.name = "limit",
		 .kind = API_PARAM_INT,
		 .min = 1,
		 .max = 10000,
		 .dest.i64 = &limit},
		{.name = "step",
		 .kind = API_PARAM_DURATION,
		 .min = INT64_MIN,
		 .max = INT64_MAX,
		 .dest.i64 = &dur},
		{.name = "type", .kind = API_PARAM_ENUM, .names = kinds, .dest.index = &kind},
		{.name = "preset", .kind = API_PARAM_STRING, .dest.str = &text},
		{.name = "all", .kind = API_PARAM_BOOL, .dest.flag = &flag},
	};
	char err[API_ERR_MAX];

	if (api_params_parse_query(v, n, t, sizeof(t) / sizeof(t[0]), err) < 0) {
		FUZZ_CHECK(strnlen(err, sizeof(err)) > 0);
		return;
	}
	check_time(from);
	check_time(to);
	FUZZ_CHECK(limit >= 1 && limit <= 10000 && dur >= 0 && kind >= 0 && kind <= 1);
	for (const char *p = text; p && *p; p++)
		FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
	if (!has_from)
		from = to - 7 * DAY_MS; /* the events' default: cannot overflow */
	(void)from;
}

static void query_samples(const struct api_query_param *v, size_t n)
{
	struct api_samples_query q;
	char err[API_ERR_MAX];

	if (api_samples_query_parse(v, n, NOW_MS, &q, err) < 0)
		return;
	FUZZ_CHECK(q.from_ms <= q.to_ms);
	check_time(q.to_ms);
	FUZZ_CHECK(q.limit >= 1 && q.limit <= API_SAMPLES_LIMIT_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = fuzz_strdup(data, size), *method = line, *url, *query, *rel;
	struct api_query_param v[PARAMS_MAX];
	const struct api_endpoint *ep = NULL;
	char err[API_ERR_MAX], allow[API_ALLOW_MAX];
	size_t n = 0;
	int64_t id = 0;
	int r;

	url = strchr(line, ' ');
	if (!url)
		goto out;
	*url++ = '\0';
	query = strchr(url, '?');
	if (query)
		*query++ = '\0';
	api_unescape(url);
	for (char *kv = query, *next; kv && *kv && n < PARAMS_MAX; kv = next) {
		char *eq;

		next = strchr(kv, '&');
		if (next)
			*next++ = '\0';
		eq = strchr(kv, '=');
		if (eq)
			*eq++ = '\0';
		api_unescape(kv);
		if (eq)
			api_unescape(eq);
		v[n++] = (struct api_query_param){kv, eq};
	}

	rel = malloc(strlen(url) + 1);
	if (!rel)
		abort();
	if (api_static_relpath(url, rel) == 0) {
		FUZZ_CHECK(rel[0] != '/');
		FUZZ_CHECK(strcmp(rel, "..") != 0 && strncmp(rel, "../", 3) != 0 &&
			   !strstr(rel, "/../") &&
			   !(strlen(rel) >= 3 && strcmp(rel + strlen(rel) - 3, "/..") == 0));
	}
	free(rel);

	(void)api_method_is_read(method);
	r = api_route_find(endpoints, sizeof(endpoints) / sizeof(endpoints[0]), method, url, &ep,
			   &id, err, allow);
	FUZZ_CHECK(r == 1 || r == 0 || r == -ENOENT || r == -EINVAL || r == -EPERM);
	if (r == -EPERM)
		FUZZ_CHECK(strnlen(allow, sizeof(allow)) > 0);
	if (r != 1)
		goto out;
	FUZZ_CHECK(!strstr(ep->pattern, "{id}") || id > 0);
	if (strstr(ep->pattern, "/samples"))
		query_samples(v, n);
	else if (strstr(ep->pattern, "/series"))
		query_series(v, n);
	else if (ep->flags & API_EP_QUERY)
		query_any(v, n);
out:
	free(line);
	return 0;
}
