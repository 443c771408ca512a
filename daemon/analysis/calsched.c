/* SPDX-License-Identifier: MIT */
/* What calendar schedules share. Pure: see calsched.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "nvmond/analysis/calsched.h"

static const char *const weekdays[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

int calsched_fail(char err[CALSCHED_ERR], const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, CALSCHED_ERR, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int calsched_weekday(const char *s)
{
	int day = -1;

	for (int d = 0; d < 7; d++)
		if (strncasecmp(s, weekdays[d], 3) == 0 && strlen(s) >= 3)
			day = d;
	return day;
}

int calsched_minute(const char *hm)
{
	char extra[8];
	int hh, mm;

	if (sscanf(hm, "%2d:%2d%7s", &hh, &mm, extra) != 2 || hh < 0 || hh > 23 || mm < 0 ||
	    mm > 59 || !isdigit((unsigned char)hm[0]))
		return -1;
	return hh * 60 + mm;
}

int64_t calsched_floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int64_t period(int weekday)
{
	return weekday < 0 ? MS_PER_DAY : MS_PER_WEEK;
}

int64_t calsched_occurrence(int weekday, int minute, int64_t k)
{
	/* 1970-01-01 was a Thursday (4): weeks here start on Sunday. */
	int64_t origin = weekday < 0 ? 0 : (int64_t)(weekday - 4) * MS_PER_DAY;

	return origin + (int64_t)minute * 60000 + k * period(weekday);
}

int64_t calsched_index(int weekday, int minute, int64_t local_ms)
{
	return calsched_floor_div(local_ms - calsched_occurrence(weekday, minute, 0),
				  period(weekday));
}

int calsched_split(const char *s, size_t max, calsched_entry_fn fn, void *ctx,
		   char err[CALSCHED_ERR])
{
	size_t n = 0;

	size_t total = strlen(s);
	while (total > 0 && isspace((unsigned char)s[total - 1]))
		total--;
	if (total > 0 && s[total - 1] == ',')
		return calsched_fail(err, "empty schedule entry");
	while (*s) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		const char *p = s;
		while (p < s + len && isspace((unsigned char)*p))
			p++;
		if (p < s + len) {
			if (n == max)
				return calsched_fail(err, "more than %zu schedule entries", max);
			int r = fn(p, len - (size_t)(p - s), n, ctx, err);
			if (r < 0)
				return r;
			n++;
		} else if (end) {
			return calsched_fail(err, "empty schedule entry");
		}
		s += len + (end ? 1 : 0);
	}
	return (int)n;
}
