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

/** timefmt_now_ms() - Wall clock, unix ms (edges only: pure code takes `now`). */
int64_t timefmt_now_ms(void);

/** timefmt_mono_ms() - CLOCK_MONOTONIC in ms, for timers. */
int64_t timefmt_mono_ms(void);
