/* SPDX-License-Identifier: MIT */
/* Calendar schedules of device self-tests. Pure: see selftest_sched.h. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "nvmond/analysis/calsched.h"
#include "nvmond/analysis/selftest_sched.h"
#include "nvmond/decode/selftest.h"

_Static_assert(SELFTEST_SCHED_ERR == CALSCHED_ERR, "one error buffer size");

static const char *const type_names[SELFTEST_SCHED_TYPES] = {
	[SELFTEST_SCHED_SHORT] = "short",
	[SELFTEST_SCHED_EXTENDED] = "extended",
};

const char *selftest_sched_type_name(enum selftest_sched_type t)
{
	return type_names[t];
}

uint8_t selftest_sched_type_code(enum selftest_sched_type t)
{
	return t == SELFTEST_SCHED_EXTENDED ? SELFTEST_CODE_EXTENDED : SELFTEST_CODE_SHORT;
}

/* The day of the month: "1" … "28", digits only. */
static int parse_monthday(const char *s)
{
	int d = 0;

	if (!*s || strlen(s) > 2)
		return -1;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		d = d * 10 + (*p - '0');
	}
	return d >= 1 && d <= 28 ? d : -1;
}

/* One entry of @len bytes at @s: the @i-th of the struct selftest_sched array @ctx. */
static int parse_one(const char *s, size_t len, size_t i, void *ctx, char err[SELFTEST_SCHED_ERR])
{
	char buf[128], kind[16], w[4][16], extra[8];
	struct selftest_sched e = {.weekday = -1};
	const char *hm, *type;
	int n;

	if (len >= sizeof(buf))
		return calsched_fail(err, "entry too long");
	memcpy(buf, s, len);
	buf[len] = '\0';
	n = sscanf(buf, "%15s %15s %15s %15s %7s", kind, w[0], w[1], w[2], extra);
	if (n >= 1 && strcasecmp(kind, "daily") == 0 && n == 3) {
		hm = w[0];
		type = w[1];
	} else if (n >= 1 && strcasecmp(kind, "weekly") == 0 && n == 4) {
		e.weekday = calsched_weekday(w[0]);
		if (e.weekday < 0)
			return calsched_fail(err, "'%s': unknown weekday (Sun, Mon, … Sat)", w[0]);
		hm = w[1];
		type = w[2];
	} else if (n >= 1 && strcasecmp(kind, "monthly") == 0 && n == 4) {
		e.monthday = parse_monthday(w[0]);
		if (e.monthday < 1)
			return calsched_fail(err, "'%s': day of the month must be 1 … 28", w[0]);
		hm = w[1];
		type = w[2];
	} else {
		return calsched_fail(err,
				     "'%s': use \"daily HH:MM TYPE\", \"weekly DAY HH:MM TYPE\" "
				     "or \"monthly DAY HH:MM TYPE\"",
				     buf);
	}
	e.minute = calsched_minute(hm);
	if (e.minute < 0)
		return calsched_fail(err, "'%s': time must be HH:MM", hm);
	if (strcasecmp(type, "short") == 0)
		e.type = SELFTEST_SCHED_SHORT;
	else if (strcasecmp(type, "extended") == 0)
		e.type = SELFTEST_SCHED_EXTENDED;
	else
		return calsched_fail(err, "'%s': unknown self-test type (short, extended)", type);
	((struct selftest_sched *)ctx)[i] = e;
	return 0;
}

/* Whether @s is "none", in any case, with blanks around it. */
static bool is_none(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	if (strncasecmp(s, "none", 4) != 0)
		return false;
	for (s += 4; *s; s++)
		if (!isspace((unsigned char)*s))
			return false;
	return true;
}

int selftest_sched_parse(const char *s, struct selftest_sched ret[SELFTEST_SCHED_MAX],
			 size_t *ret_n, char ret_err[SELFTEST_SCHED_ERR])
{
	struct selftest_sched v[SELFTEST_SCHED_MAX];
	int n = is_none(s) ? 0 : calsched_split(s, SELFTEST_SCHED_MAX, parse_one, v, ret_err);

	if (n < 0)
		return n;
	memcpy(ret, v, (size_t)n * sizeof(*v));
	*ret_n = (size_t)n;
	return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = calsched_floor_div(y, 400);
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

/* The year and month of day @z since 1970-01-01. */
static void month_of_day(int64_t z, int64_t *ret_y, int *ret_m)
{
	z += 719468;
	int64_t era = calsched_floor_div(z, 146097);
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int m = (int)(mp < 10 ? mp + 3 : mp - 9);

	*ret_y = yoe + era * 400 + (m <= 2);
	*ret_m = m;
}

/* The local ms of @e in month @m (1 … 12, or one beyond either end) of year @y. */
static int64_t monthly_at(const struct selftest_sched *e, int64_t y, int m)
{
	if (m > 12) {
		y++;
		m = 1;
	} else if (m < 1) {
		y--;
		m = 12;
	}
	return days_from_civil(y, m, e->monthday) * MS_PER_DAY + (int64_t)e->minute * 60000;
}

/* The last occurrence of @e at or before @local (local ms). */
static int64_t prev_local(const struct selftest_sched *e, int64_t local)
{
	if (e->monthday > 0) {
		int64_t y;
		int m;

		month_of_day(calsched_floor_div(local, MS_PER_DAY), &y, &m);
		int64_t occ = monthly_at(e, y, m);
		return occ <= local ? occ : monthly_at(e, y, m - 1);
	}
	return calsched_occurrence(e->weekday, e->minute,
				   calsched_index(e->weekday, e->minute, local));
}

/* The first occurrence of @e after @local (local ms). */
static int64_t next_local(const struct selftest_sched *e, int64_t local)
{
	if (e->monthday > 0) {
		int64_t y;
		int m;

		month_of_day(calsched_floor_div(local, MS_PER_DAY), &y, &m);
		int64_t occ = monthly_at(e, y, m);
		return occ > local ? occ : monthly_at(e, y, m + 1);
	}
	return calsched_occurrence(e->weekday, e->minute,
				   calsched_index(e->weekday, e->minute, local) + 1);
}

int64_t selftest_sched_next(const struct selftest_sched *e, int64_t after_ms, int64_t utc_offset_s)
{
	return next_local(e, after_ms + utc_offset_s * 1000) - utc_offset_s * 1000;
}

int64_t selftest_sched_prev(const struct selftest_sched *e, int64_t at_ms, int64_t utc_offset_s)
{
	return prev_local(e, at_ms + utc_offset_s * 1000) - utc_offset_s * 1000;
}

void selftest_sched_catchup(const struct selftest_sched *e, size_t n,
			    const int64_t last_ms[SELFTEST_SCHED_TYPES], int64_t now_ms,
			    int64_t utc_offset_s, bool ret_run[SELFTEST_SCHED_TYPES],
			    int64_t ret_missed_ms[SELFTEST_SCHED_TYPES])
{
	for (int t = 0; t < SELFTEST_SCHED_TYPES; t++) {
		ret_run[t] = false;
		ret_missed_ms[t] = 0;
	}
	for (size_t i = 0; i < n; i++) {
		int t = e[i].type;
		int64_t missed = selftest_sched_prev(&e[i], now_ms, utc_offset_s);

		if (last_ms[t] == SELFTEST_SCHED_NEVER || missed <= last_ms[t])
			continue;
		if (!ret_run[t] || missed > ret_missed_ms[t]) {
			ret_run[t] = true;
			ret_missed_ms[t] = missed;
		}
	}
}

void selftest_sched_due(const struct selftest_sched *e, size_t n, int64_t from_ms, int64_t to_ms,
			int64_t utc_offset_s, bool ret_due[SELFTEST_SCHED_TYPES])
{
	for (int t = 0; t < SELFTEST_SCHED_TYPES; t++)
		ret_due[t] = false;
	if (to_ms <= from_ms)
		return;
	for (size_t i = 0; i < n; i++)
		if (selftest_sched_next(&e[i], from_ms, utc_offset_s) <= to_ms)
			ret_due[e[i].type] = true;
}
