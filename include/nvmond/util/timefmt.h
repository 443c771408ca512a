/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define TIMEFMT_MAX 40

/*
 * The times nvmond takes and writes: the years 0000 to 9999 (UTC), what RFC 3339
 * can write. Sums of such times and days or years stay far from int64's limits.
 */
#define TIMEFMT_MIN_MS (-62167219200000LL) /* 0000-01-01T00:00:00.000Z */
#define TIMEFMT_MAX_MS 253402300799999LL   /* 9999-12-31T23:59:59.999Z */

/**
 * timefmt_parse() - Parse a time given in a query: RFC 3339
 * ("2026-11-30T02:19:20Z", "…T02:19:20.5+01:00") or unix milliseconds ("1764469160000").
 * The one place outside times are refused: a time outside TIMEFMT_MIN_MS ..
 * TIMEFMT_MAX_MS (an offset can push "0000-01-01T00:00:00+01:00" out) is -ERANGE.
 * Return: 0 with *ret_ms set, -EINVAL (malformed) or -ERANGE (outside the years 0000
 * to 9999); *ret_ms is untouched on failure.
 */
int timefmt_parse(const char *s, int64_t *ret_ms);

/**
 * timefmt_rfc3339() - Format unix ms as RFC 3339 UTC with milliseconds
 * ("2026-11-30T02:19:20.123Z"). Defined for every int64: a time outside the years
 * 0000 to 9999 is written as the nearest bound (timefmt_parse() refuses such times,
 * so only a corrupt stored value can be one). Return: @buf.
 */
char *timefmt_rfc3339(int64_t ms, char buf[TIMEFMT_MAX]);

/**
 * timefmt_secs() - Unix @ms as whole seconds, rounded down, after bringing it within the
 * years 0000 to 9999 (as timefmt_rfc3339() writes it): defined for every int64.
 */
int64_t timefmt_secs(int64_t ms);

/** timefmt_now_ms() - Wall clock, unix ms (edges only: pure code takes `now`). */
int64_t timefmt_now_ms(void);

/** timefmt_mono_ms() - CLOCK_MONOTONIC in ms, for timers. */
int64_t timefmt_mono_ms(void);

/* A wall clock that never runs backwards: the last time it gave and when (monotonic). */
struct timefmt_steady {
	int64_t last_ms; /* 0 = none yet */
	int64_t last_mono_ms;
};

/**
 * timefmt_steady_ms() - The time to stamp a sample with, given the wall clock
 * @wall_ms and the monotonic @mono_ms now (pure). The wall clock as long as it
 * is not behind the last time given. After a step back it slews, as NTP does
 * but faster: the last time plus half the monotonic time since, until the wall
 * clock catches up (a step back of 1 h is absorbed in 2 h). So the stored series
 * neither overlaps nor goes backwards, and durations computed from these times are
 * never negative; the samples of those hours are stamped closer together than
 * they were taken. A step forward is taken as it comes (a gap in the series).
 * Return: the time, > the last one while the monotonic clock advances; @st updated.
 */
int64_t timefmt_steady_ms(struct timefmt_steady *st, int64_t wall_ms, int64_t mono_ms);

/** timefmt_span_ms() - @to_ms - @from_ms, or 0 when the clock made it negative (pure). */
int64_t timefmt_span_ms(int64_t from_ms, int64_t to_ms);
