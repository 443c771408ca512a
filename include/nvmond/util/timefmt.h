/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define TIMEFMT_MAX 40

/**
 * timefmt_parse() - Parse a time given in a query: RFC 3339
 * ("2026-11-30T02:19:20Z", "…T02:19:20.5+01:00") or unix milliseconds ("1764469160000").
 * Return: 0 with *ret_ms set, or -EINVAL.
 */
int timefmt_parse(const char *s, int64_t *ret_ms);

/**
 * timefmt_rfc3339() - Format unix ms as RFC 3339 UTC with milliseconds
 * ("2026-11-30T02:19:20.123Z"). Return: @buf.
 */
char *timefmt_rfc3339(int64_t ms, char buf[TIMEFMT_MAX]);

/** timefmt_now_ms() - Wall clock, unix ms (edges only: pure code takes `now`). */
int64_t timefmt_now_ms(void);

/** timefmt_mono_ms() - CLOCK_MONOTONIC in ms, for timers. */
int64_t timefmt_mono_ms(void);
