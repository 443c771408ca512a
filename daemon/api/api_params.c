/* SPDX-License-Identifier: MIT */
/*
 * The query parser every endpoint uses (api_params.h): a table of parameters in,
 * typed values or one 400 message out. Pure: no clock, no I/O, no logging.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/api/api_params.h"
#include "nvmond/core/cfg.h"
#include "nvmond/util/timefmt.h"

#define PARAMS_TABLE_MAX 64 /* a table longer than this is a programming error */
#define KEY_ECHO_MAX	 64 /* longest client key echoed in a message */

int api_parse_int64(const char *s, size_t len, int64_t *ret)
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
		/* Accumulate negatively so that INT64_MIN parses too; never wrap. */
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

/* Control bytes, a decoded %00 (API_NUL_STANDIN) among them. */
static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			return true;
	return false;
}

/* Short printable ASCII only: what a message may echo back to the client. */
static bool printable(const char *s, size_t max)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f || n == max)
			return false;
	return true;
}

/* "1d", "90s", "250ms": the largest unit that represents @ms exactly. */
static void duration_format(int64_t ms, char *buf, size_t size)
{
	static const struct {
		const char *suffix;
		int64_t ms;
	} units[] = {{"d", 86400000}, {"h", 3600000}, {"m", 60000}, {"s", 1000}};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ms != 0 && ms % units[i].ms == 0) {
			snprintf(buf, size, "%" PRId64 "%s", ms / units[i].ms, units[i].suffix);
			return;
		}
	snprintf(buf, size, "%" PRId64 "ms", ms);
}

/* "from 1 to 2000", "of at least 1s", "" for an unbounded range. */
static void range_format(const struct api_param *p, char *buf, size_t size)
{
	char lo[32], hi[32];

	if (p->kind == API_PARAM_DURATION) {
		duration_format(p->min, lo, sizeof(lo));
		duration_format(p->max, hi, sizeof(hi));
	} else {
		snprintf(lo, sizeof(lo), "%" PRId64, p->min);
		snprintf(hi, sizeof(hi), "%" PRId64, p->max);
	}
	if (p->min == INT64_MIN && p->max == INT64_MAX)
		buf[0] = '\0';
	else if (p->max == INT64_MAX)
		snprintf(buf, size, " of at least %s", lo);
	else if (p->min == INT64_MIN)
		snprintf(buf, size, " of at most %s", hi);
	else
		snprintf(buf, size, " from %s to %s", lo, hi);
}

/* The 400 message for a malformed value of @p: what the value must be. */
static int malformed(const struct api_param *p, char ret_err[API_ERR_MAX])
{
	char range[80];
	size_t l;

	switch (p->kind) {
	case API_PARAM_INT:
		range_format(p, range, sizeof(range));
		snprintf(ret_err, API_ERR_MAX, "parameter '%s' must be an integer%s", p->name,
			 range);
		break;
	case API_PARAM_TIME:
		snprintf(ret_err, API_ERR_MAX,
			 "parameter '%s' must be an RFC 3339 time or unix milliseconds, "
			 "years 0000 to 9999",
			 p->name);
		break;
	case API_PARAM_DURATION:
		range_format(p, range, sizeof(range));
		snprintf(ret_err, API_ERR_MAX,
			 "parameter '%s' must be a duration (\"60s\", \"5m\", \"1h\", or "
			 "seconds)%s",
			 p->name, range);
		break;
	case API_PARAM_ENUM:
		snprintf(ret_err, API_ERR_MAX, "parameter '%s' must be one of: ", p->name);
		for (size_t i = 0; p->names && p->names[i]; i++) {
			l = strlen(ret_err);
			snprintf(ret_err + l, API_ERR_MAX - l, "%s%s", i ? ", " : "", p->names[i]);
		}
		break;
	case API_PARAM_STRING:
		snprintf(ret_err, API_ERR_MAX,
			 "parameter '%s' must be text without control characters", p->name);
		break;
	case API_PARAM_BOOL:
		snprintf(ret_err, API_ERR_MAX, "parameter '%s' must be true or false", p->name);
		break;
	}
	return -EINVAL;
}

/* A parsed value, held until the whole query is known to be valid. */
union value {
	int64_t i64;
	int index;
	const char *str;
	bool flag;
};

static int value_parse(const struct api_param *p, const char *s, union value *ret)
{
	int64_t v;

	if (!s || !s[0])
		return -EINVAL; /* "?key" and "?key=": a value is needed */
	switch (p->kind) {
	case API_PARAM_INT:
		if (api_parse_int64(s, strlen(s), &v) < 0 || v < p->min || v > p->max)
			return -EINVAL;
		ret->i64 = v;
		return 0;
	case API_PARAM_TIME:
		if (timefmt_parse(s, &v) < 0) /* also refuses years beyond 0000 to 9999 */
			return -EINVAL;
		ret->i64 = v;
		return 0;
	case API_PARAM_DURATION:
		if (cfg_parse_duration_ms(s, &v) < 0 || v < p->min || v > p->max)
			return -EINVAL;
		ret->i64 = v;
		return 0;
	case API_PARAM_ENUM:
		for (int i = 0; p->names && p->names[i]; i++)
			if (strcmp(s, p->names[i]) == 0) {
				ret->index = i;
				return 0;
			}
		return -EINVAL;
	case API_PARAM_STRING:
		if (has_control(s))
			return -EINVAL;
		ret->str = s;
		return 0;
	case API_PARAM_BOOL:
		if (strcmp(s, "true") == 0 || strcmp(s, "1") == 0)
			ret->flag = true;
		else if (strcmp(s, "false") == 0 || strcmp(s, "0") == 0)
			ret->flag = false;
		else
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

static int unknown(const char *key, const struct api_param *t, size_t n_t,
		   char ret_err[API_ERR_MAX])
{
	size_t l;

	/* Keys come from the client: echo printable ASCII only. */
	if (printable(key, KEY_ECHO_MAX))
		snprintf(ret_err, API_ERR_MAX, "unknown query parameter '%s' (known: ", key);
	else
		snprintf(ret_err, API_ERR_MAX, "unknown query parameter (known: ");
	for (size_t i = 0; i < n_t; i++) {
		l = strlen(ret_err);
		snprintf(ret_err + l, API_ERR_MAX - l, "%s%s", i ? ", " : "", t[i].name);
	}
	l = strlen(ret_err);
	snprintf(ret_err + l, API_ERR_MAX - l, "%s)", n_t ? "" : "none");
	return -EINVAL;
}

int api_params_parse_query(const struct api_query_param *v, size_t n, const struct api_param *t,
			   size_t n_t, char ret_err[API_ERR_MAX])
{
	union value val[PARAMS_TABLE_MAX];
	bool seen[PARAMS_TABLE_MAX] = {false};

	if (n_t > PARAMS_TABLE_MAX) {
		snprintf(ret_err, API_ERR_MAX, "too many parameters declared");
		return -E2BIG;
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		while (k < n_t && strcmp(v[i].key, t[k].name) != 0)
			k++;
		if (k == n_t)
			return unknown(v[i].key, t, n_t, ret_err);
		if (seen[k]) {
			snprintf(ret_err, API_ERR_MAX, "parameter '%s' given twice", t[k].name);
			return -EINVAL;
		}
		seen[k] = true;
		if (value_parse(&t[k], v[i].value, &val[k]) < 0)
			return malformed(&t[k], ret_err);
	}
	for (size_t k = 0; k < n_t; k++)
		if (t[k].required && !seen[k]) {
			snprintf(ret_err, API_ERR_MAX, "parameter '%s' is required", t[k].name);
			return -EINVAL;
		}

	/* All valid: only now write the destinations. */
	for (size_t k = 0; k < n_t; k++) {
		if (t[k].given)
			*t[k].given = seen[k];
		if (!seen[k])
			continue;
		switch (t[k].kind) {
		case API_PARAM_INT:
		case API_PARAM_TIME:
		case API_PARAM_DURATION:
			*t[k].dest.i64 = val[k].i64;
			break;
		case API_PARAM_ENUM:
			*t[k].dest.index = val[k].index;
			break;
		case API_PARAM_STRING:
			*t[k].dest.str = val[k].str;
			break;
		case API_PARAM_BOOL:
			*t[k].dest.flag = val[k].flag;
			break;
		}
	}
	return 0;
}

int api_params_parse(const struct api_request *req, const struct api_param *t, size_t n_t,
		     struct api_reply *ret)
{
	char err[API_ERR_MAX];

	if (api_params_parse_query(req->params, req->n_params, t, n_t, err) < 0) {
		api_reply_error(ret, 400, "%s", err);
		return -EINVAL;
	}
	return 0;
}
