/* SPDX-License-Identifier: MIT */
/*
 * Times: RFC 3339 and unix milliseconds parsed and formatted, and the wall
 * and monotonic clocks in milliseconds. See timefmt.h.
 */
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvmond/util/timefmt.h"

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static int days_in_month(int y, int m)
{
	static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return m == 2 && leap ? 29 : dm[m - 1];
}

/* Read exactly @n digits. */
static int digits(const char **p, int n, int *ret)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return -EINVAL;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*ret = v;
	return 0;
}

static int parse_ms(const char *s, int64_t *ret)
{
	char *end;

	if (!isdigit((unsigned char)s[0]) && !(s[0] == '-' && isdigit((unsigned char)s[1])))
		return -EINVAL;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int parse_rfc3339(const char *s, int64_t *ret)
{
	const char *p = s;
	int y, mo, d, h, mi, sec, ms = 0;

	if (digits(&p, 4, &y) < 0 || *p++ != '-' || digits(&p, 2, &mo) < 0 || *p++ != '-' ||
	    digits(&p, 2, &d) < 0)
		return -EINVAL;
	if (*p != 'T' && *p != 't' && *p != ' ')
		return -EINVAL;
	p++;
	if (digits(&p, 2, &h) < 0 || *p++ != ':' || digits(&p, 2, &mi) < 0 || *p++ != ':' ||
	    digits(&p, 2, &sec) < 0)
		return -EINVAL;
	if (*p == '.') {
		int n = 0;
		p++;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		for (; isdigit((unsigned char)*p); p++, n++)
			if (n < 3)
				ms = ms * 10 + (*p - '0');
		for (; n < 3; n++)
			ms *= 10;
	}
	int off_min = 0;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int sign = *p++ == '-' ? -1 : 1, oh, om;
		if (digits(&p, 2, &oh) < 0 || *p++ != ':' || digits(&p, 2, &om) < 0 || oh > 23 ||
		    om > 59)
			return -EINVAL;
		off_min = sign * (oh * 60 + om);
	} else {
		return -EINVAL;
	}
	if (*p)
		return -EINVAL;
	/* sec == 60: a leap second, folded into the next one. */
	if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || sec > 60)
		return -EINVAL;
	int64_t t = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 +
		    sec - (int64_t)off_min * 60;
	*ret = t * 1000 + ms;
	return 0;
}

int timefmt_parse(const char *s, int64_t *ret_ms)
{
	int64_t v;
	int r;

	if (!s || !*s)
		return -EINVAL;
	if (strchr(s, 'T') || strchr(s, 't') || strchr(s, ':'))
		r = parse_rfc3339(s, &v);
	else
		r = parse_ms(s, &v);
	if (r < 0)
		return r;
	if (v < TIMEFMT_MIN_MS || v > TIMEFMT_MAX_MS)
		return -ERANGE;
	*ret_ms = v;
	return 0;
}

/* Within the years 0000 to 9999: then (ms - 999) cannot overflow, and gmtime_r() of
 * the seconds always fills its struct tm. */
static int64_t clamp_ms(int64_t ms)
{
	if (ms < TIMEFMT_MIN_MS)
		return TIMEFMT_MIN_MS;
	if (ms > TIMEFMT_MAX_MS)
		return TIMEFMT_MAX_MS;
	return ms;
}

int64_t timefmt_secs(int64_t ms)
{
	ms = clamp_ms(ms);
	return ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
}

char *timefmt_rfc3339(int64_t ms, char buf[TIMEFMT_MAX])
{
	ms = clamp_ms(ms);
	int64_t secs = timefmt_secs(ms);
	int msec = (int)(ms - secs * 1000);
	time_t t = (time_t)secs;
	struct tm tm;

	gmtime_r(&t, &tm);
	/* The modulos only bound the widths for the compiler; gmtime_r keeps the ranges. */
	snprintf(buf, TIMEFMT_MAX, "%04u-%02u-%02uT%02u:%02u:%02u.%03uZ",
		 (unsigned)(tm.tm_year + 1900) % 10000u, (unsigned)(tm.tm_mon + 1) % 100u,
		 (unsigned)tm.tm_mday % 100u, (unsigned)tm.tm_hour % 100u,
		 (unsigned)tm.tm_min % 100u, (unsigned)tm.tm_sec % 100u, (unsigned)msec % 1000u);
	return buf;
}

int64_t timefmt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t timefmt_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t timefmt_steady_ms(struct timefmt_steady *st, int64_t wall_ms, int64_t mono_ms)
{
	int64_t t = wall_ms;

	if (st->last_ms && wall_ms < st->last_ms) {
		int64_t since = mono_ms - st->last_mono_ms;
		t = st->last_ms + (since > 0 ? since / 2 : 0);
		if (t < st->last_ms + 1 && since > 0)
			t = st->last_ms + 1;
	}
	st->last_ms = t;
	st->last_mono_ms = mono_ms;
	return t;
}

int64_t timefmt_span_ms(int64_t from_ms, int64_t to_ms)
{
	return to_ms > from_ms ? to_ms - from_ms : 0;
}
