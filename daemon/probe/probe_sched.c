/* SPDX-License-Identifier: MIT */
/* Calendar schedules of probes. Pure: see probe_sched.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "nvmond/probe/probe_sched.h"

#define MS_PER_DAY  86400000LL
#define MS_PER_WEEK (7 * MS_PER_DAY)

static const char *const weekdays[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

static int fail(char err[PROBE_SCHED_ERR], const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(char err[PROBE_SCHED_ERR], const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, PROBE_SCHED_ERR, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* One entry of @len bytes at @s. */
static int parse_one(const char *s, size_t len, struct probe_sched *ret, char err[PROBE_SCHED_ERR])
{
	char buf[128], kind[16], a[16], b[16], c[40], extra[8];
	struct probe_sched e = {.weekday = -1};
	const char *hm, *preset;
	int n, hh, mm;

	if (len >= sizeof(buf))
		return fail(err, "entry too long");
	memcpy(buf, s, len);
	buf[len] = '\0';
	n = sscanf(buf, "%15s %15s %15s %39s %7s", kind, a, b, c, extra);
	if (n >= 1 && strcasecmp(kind, "daily") == 0 && n == 3) {
		hm = a;
		preset = b;
	} else if (n >= 1 && strcasecmp(kind, "weekly") == 0 && n == 4) {
		for (int d = 0; d < 7; d++)
			if (strncasecmp(a, weekdays[d], 3) == 0 && strlen(a) >= 3)
				e.weekday = d;
		if (e.weekday < 0)
			return fail(err, "'%s': unknown weekday (Sun, Mon, … Sat)", a);
		hm = b;
		preset = c;
	} else {
		return fail(err, "'%s': use \"daily HH:MM PRESET\" or \"weekly DAY HH:MM PRESET\"",
			    buf);
	}
	if (sscanf(hm, "%2d:%2d%7s", &hh, &mm, extra) != 2 || hh < 0 || hh > 23 || mm < 0 ||
	    mm > 59 || !isdigit((unsigned char)hm[0]))
		return fail(err, "'%s': time must be HH:MM", hm);
	e.minute = hh * 60 + mm;
	if (!probe_preset_find(preset, &e.preset))
		return fail(err, "'%s': unknown preset", preset);
	*ret = e;
	return 0;
}

int probe_sched_parse(const char *s, struct probe_sched ret[PROBE_SCHED_MAX], size_t *ret_n,
		      char ret_err[PROBE_SCHED_ERR])
{
	struct probe_sched v[PROBE_SCHED_MAX];
	size_t n = 0;

	size_t total = strlen(s);
	while (total > 0 && isspace((unsigned char)s[total - 1]))
		total--;
	if (total > 0 && s[total - 1] == ',')
		return fail(ret_err, "empty schedule entry");
	while (*s) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		const char *p = s;
		while (p < s + len && isspace((unsigned char)*p))
			p++;
		if (p < s + len) {
			if (n == PROBE_SCHED_MAX)
				return fail(ret_err, "more than %d schedule entries",
					    PROBE_SCHED_MAX);
			int r = parse_one(p, len - (size_t)(p - s), &v[n], ret_err);
			if (r < 0)
				return r;
			n++;
		} else if (end) {
			return fail(ret_err, "empty schedule entry");
		}
		s += len + (end ? 1 : 0);
	}
	memcpy(ret, v, n * sizeof(*v));
	*ret_n = n;
	return 0;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

int64_t probe_sched_next(const struct probe_sched *e, int64_t after_ms, int64_t utc_offset_s,
			 int64_t jitter_ms, uint64_t seed)
{
	int64_t local = after_ms + utc_offset_s * 1000;
	int64_t period = e->weekday < 0 ? MS_PER_DAY : MS_PER_WEEK;
	/* 1970-01-01 was a Thursday (4): weeks here start on Sunday. */
	int64_t origin = e->weekday < 0 ? 0 : (int64_t)(e->weekday - 4) * MS_PER_DAY;
	int64_t at = origin + (int64_t)e->minute * 60000;
	int64_t k = floor_div(local - at, period);

	for (;; k++) {
		int64_t occ = at + k * period; /* local ms */
		uint64_t j = jitter_ms > 0 ? mix(seed ^ (uint64_t)k) % (uint64_t)jitter_ms : 0;
		int64_t due = occ - utc_offset_s * 1000 + (int64_t)j;
		if (due > after_ms)
			return due;
	}
}
