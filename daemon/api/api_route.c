/* SPDX-License-Identifier: MIT */
/*
 * Pure request parsing for the HTTP API: URL decoding, routing a request to one
 * of the endpoints, and the query of /samples. No HTTP library, no clock, no I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/api/api_params.h"
#include "nvmond/api/api_route.h"
#include "nvmond/util/hex.h"

size_t api_unescape(char *s)
{
	char *w = s;

	for (const char *p = s; *p; p++) {
		int hi, lo;

		if (*p == '%' && (hi = hex_digit(p[1])) >= 0 && (lo = hex_digit(p[2])) >= 0) {
			char c = (char)(hi << 4 | lo);

			*w++ = c == '\0' ? API_NUL_STANDIN : c;
			p += 2;
		} else {
			*w++ = *p;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

bool api_method_is_read(const char *method)
{
	return method && (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0);
}

int api_pattern_match(const char *pattern, const char *path, int64_t *ret_id,
		      char ret_err[API_ERR_MAX])
{
	const char *p = pattern, *u = path;
	int64_t id = 0;
	bool bad_id = false;

	while (*p && *u) {
		if (strncmp(p, "{id}", 4) == 0) {
			size_t n = strcspn(u, "/");
			if (n == 0)
				return 0;
			if (api_parse_int64(u, n, &id) < 0 || id <= 0)
				bad_id = true;
			p += 4;
			u += n;
			continue;
		}
		if (*p != *u)
			return 0;
		p++;
		u++;
	}
	if (*p || *u)
		return 0;
	if (bad_id) {
		snprintf(ret_err, API_ERR_MAX, "id must be a positive integer");
		return -EINVAL;
	}
	*ret_id = id;
	return 1;
}

/*
 * Paths that never name a static file: the API's and the daemon's own. One of
 * them that no endpoint serves is a 404 JSON error, not a file lookup.
 */
static bool path_reserved(const char *url)
{
	return strcmp(url, "/api") == 0 || strncmp(url, "/api/", 5) == 0 ||
	       strcmp(url, "/healthz") == 0 || strcmp(url, "/metrics") == 0;
}

static bool method_fits(const char *want, const char *method)
{
	return strcmp(want, method) == 0 ||
	       (strcmp(want, "GET") == 0 && strcmp(method, "HEAD") == 0);
}

int api_route_find(const struct api_endpoint *v, size_t n, const char *method, const char *url,
		   const struct api_endpoint **ret_ep, int64_t *ret_id, char ret_err[API_ERR_MAX],
		   char ret_allow[API_ALLOW_MAX])
{
	char allow[API_ALLOW_MAX] = "";
	bool path_known = false;

	for (size_t i = 0; i < n; i++) {
		const struct api_endpoint *ep = &v[i];
		int64_t id = 0;
		int m = api_pattern_match(ep->pattern, url, &id, ret_err);

		if (m < 0)
			return m;
		if (m == 0)
			continue;
		if (method_fits(ep->method, method)) {
			*ret_ep = ep;
			*ret_id = id;
			return 1;
		}
		path_known = true;
		size_t l = strlen(allow);
		snprintf(allow + l, sizeof(allow) - l, "%s%s%s", l ? ", " : "", ep->method,
			 strcmp(ep->method, "GET") == 0 ? ", HEAD" : "");
	}
	if (path_known) {
		memcpy(ret_allow, allow, sizeof(allow));
		return -EPERM;
	}
	if (path_reserved(url)) {
		snprintf(ret_err, API_ERR_MAX, "no such endpoint");
		return -ENOENT;
	}
	return 0;
}

int api_samples_query_parse(const struct api_query_param *v, size_t n, int64_t now_ms,
			    struct api_samples_query *ret, char ret_err[API_ERR_MAX])
{
	int64_t from = 0, to = now_ms, limit = API_SAMPLES_LIMIT_DEFAULT;
	bool has_from = false;
	const struct api_param params[] = {
		{.name = "from", .kind = API_PARAM_TIME, .dest.i64 = &from, .given = &has_from},
		{.name = "to", .kind = API_PARAM_TIME, .dest.i64 = &to},
		{.name = "limit",
		 .kind = API_PARAM_INT,
		 .min = 1,
		 .max = API_SAMPLES_LIMIT_MAX,
		 .dest.i64 = &limit},
	};
	int r;

	r = api_params_parse_query(v, n, params, sizeof(params) / sizeof(params[0]), ret_err);
	if (r < 0)
		return r;
	/* Times are years 0000 to 9999: an hour before never overflows. */
	if (!has_from)
		from = to - API_SAMPLES_SPAN_DEFAULT;
	if (from > to) {
		snprintf(ret_err, API_ERR_MAX, "parameter 'from' is after 'to'");
		return -EINVAL;
	}
	*ret = (struct api_samples_query){.from_ms = from, .to_ms = to, .limit = (size_t)limit};
	return 0;
}
