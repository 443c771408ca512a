/* SPDX-License-Identifier: MIT */
/*
 * Pure request parsing for the HTTP API: URL decoding, route matching and the
 * query of /samples. No HTTP library, no clock, no I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/util/timefmt.h"

#include "nvmond/api/api_route.h"

#define DEVICES_PREFIX "/api/v1/devices"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t api_unescape(char *s)
{
	char *w = s;

	for (const char *p = s; *p; p++) {
		int hi, lo;

		if (*p == '%' && (hi = hexval(p[1])) >= 0 && (lo = hexval(p[2])) >= 0) {
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

/* A decimal int64, optionally negative, nothing else. */
static int parse_int64(const char *s, size_t len, int64_t *ret)
{
	int64_t v = 0;
	bool neg = false;
	size_t i = 0;

	if (len > 0 && s[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i == len)
		return -EINVAL;
	for (; i < len; i++) {
		int d;

		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		d = s[i] - '0';
		/* Accumulate negatively so that INT64_MIN parses too. */
		if (v < (INT64_MIN + d) / 10)
			return -EINVAL;
		v = v * 10 - d;
	}
	if (!neg) {
		if (v == INT64_MIN)
			return -EINVAL;
		v = -v;
	}
	*ret = v;
	return 0;
}

int api_route_match(const char *url, struct api_route *ret, char ret_err[API_ERR_MAX])
{
	const size_t plen = strlen(DEVICES_PREFIX);
	const char *id, *slash;
	struct api_route r = {0};
	size_t idlen;

	if (strcmp(url, "/healthz") == 0) {
		r.kind = API_ROUTE_HEALTHZ;
		goto found;
	}
	if (strcmp(url, "/api") != 0 && strncmp(url, "/api/", 5) != 0) {
		r.kind = API_ROUTE_STATIC;
		goto found;
	}
	if (strcmp(url, DEVICES_PREFIX) == 0) {
		r.kind = API_ROUTE_DEVICES;
		goto found;
	}
	if (strncmp(url, DEVICES_PREFIX "/", plen + 1) != 0)
		goto unknown;

	id = url + plen + 1;
	slash = strchr(id, '/');
	idlen = slash ? (size_t)(slash - id) : strlen(id);
	if (slash && strcmp(slash, "/samples") != 0)
		goto unknown;
	if (idlen == 0)
		goto unknown;
	if (parse_int64(id, idlen, &r.device_id) < 0) {
		snprintf(ret_err, API_ERR_MAX, "device id must be an integer");
		return -EINVAL;
	}
	r.kind = slash ? API_ROUTE_SAMPLES : API_ROUTE_DEVICE;
found:
	*ret = r;
	return 0;
unknown:
	snprintf(ret_err, API_ERR_MAX, "no such endpoint");
	return -ENOENT;
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
			if (parse_int64(u, n, &id) < 0 || id <= 0)
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

static int parse_limit(const char *s, size_t *ret)
{
	int64_t v;

	if (parse_int64(s, strlen(s), &v) < 0 || v < 1 || v > API_SAMPLES_LIMIT_MAX)
		return -EINVAL;
	*ret = (size_t)v;
	return 0;
}

int api_samples_query_parse(const struct api_query_param *v, size_t n, int64_t now_ms,
			    struct api_samples_query *ret, char ret_err[API_ERR_MAX])
{
	const char *from = NULL, *to = NULL, *limit = NULL;
	struct api_samples_query q = {.limit = API_SAMPLES_LIMIT_DEFAULT};

	for (size_t i = 0; i < n; i++) {
		const char **slot;

		if (strcmp(v[i].key, "from") == 0)
			slot = &from;
		else if (strcmp(v[i].key, "to") == 0)
			slot = &to;
		else if (strcmp(v[i].key, "limit") == 0)
			slot = &limit;
		else {
			/* Keys come from the client: echo printable ASCII only. */
			snprintf(ret_err, API_ERR_MAX, "unknown query parameter");
			for (const char *k = v[i].key; *k; k++)
				if ((unsigned char)*k < 0x20 || (unsigned char)*k >= 0x7f)
					return -EINVAL;
			snprintf(ret_err, API_ERR_MAX, "unknown query parameter '%.64s'", v[i].key);
			return -EINVAL;
		}
		if (*slot) {
			snprintf(ret_err, API_ERR_MAX, "parameter '%s' given twice", v[i].key);
			return -EINVAL;
		}
		if (!v[i].value || !v[i].value[0]) {
			snprintf(ret_err, API_ERR_MAX, "parameter '%s' needs a value", v[i].key);
			return -EINVAL;
		}
		*slot = v[i].value;
	}

	q.to_ms = now_ms;
	if (to && timefmt_parse(to, &q.to_ms) < 0) {
		snprintf(ret_err, API_ERR_MAX,
			 "parameter 'to' must be an RFC 3339 time or unix milliseconds");
		return -EINVAL;
	}
	q.from_ms = q.to_ms >= INT64_MIN + API_SAMPLES_SPAN_DEFAULT
			    ? q.to_ms - API_SAMPLES_SPAN_DEFAULT
			    : INT64_MIN;
	if (from && timefmt_parse(from, &q.from_ms) < 0) {
		snprintf(ret_err, API_ERR_MAX,
			 "parameter 'from' must be an RFC 3339 time or unix milliseconds");
		return -EINVAL;
	}
	if (q.from_ms > q.to_ms) {
		snprintf(ret_err, API_ERR_MAX, "parameter 'from' is after 'to'");
		return -EINVAL;
	}
	if (limit && parse_limit(limit, &q.limit) < 0) {
		snprintf(ret_err, API_ERR_MAX, "parameter 'limit' must be an integer from 1 to %d",
			 API_SAMPLES_LIMIT_MAX);
		return -EINVAL;
	}
	*ret = q;
	return 0;
}
