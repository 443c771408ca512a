/* SPDX-License-Identifier: MIT */
/* Calendar schedules of probes. Pure: see probe_sched.h. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nvmond/analysis/calsched.h"
#include "nvmond/core/cfg.h"
#include "nvmond/probe/probe_sched.h"
#include "nvmond/probe/probe_series.h"

_Static_assert(PROBE_SCHED_ERR == CALSCHED_ERR, "one error buffer size");

/*
 * The optional tail of an entry, after its preset: "xN" (a series of N runs,
 * 1 … PROBE_REPEAT_MAX) then "cooldown D" (the idle between them, at most an
 * hour; only with a series), as `{"repeat": N, "cooldown": "D"}` asks the API.
 */
static int parse_tail(char *tok[], size_t n, struct probe_sched *e, char err[PROBE_SCHED_ERR])
{
	size_t i = 0;
	bool cooldown = false;

	if (i < n && (tok[i][0] == 'x' || tok[i][0] == 'X')) {
		char *end;
		const char *d = tok[i] + 1;
		long v = *d >= '0' && *d <= '9' ? strtol(d, &end, 10) : -1;
		if (v < 1 || v > PROBE_REPEAT_MAX || *end)
			return calsched_fail(err, "'%s': repeat as xN, N = 1 … %d", tok[i],
					     PROBE_REPEAT_MAX);
		e->repeat = (uint32_t)v;
		i++;
	}
	if (i < n && strcasecmp(tok[i], "cooldown") == 0) {
		if (i + 1 == n || cfg_parse_duration_ms(tok[i + 1], &e->cooldown_ms) < 0 ||
		    e->cooldown_ms > PROBE_COOLDOWN_MAX_MS)
			return calsched_fail(err, "cooldown: a duration (30s, 2m), at most 1 h");
		cooldown = true;
		i += 2;
	}
	if (i < n)
		return calsched_fail(err, "'%s': after the preset come xN and cooldown D", tok[i]);
	if (cooldown && e->repeat < 2)
		return calsched_fail(err,
				     "a cooldown is the idle between runs: it needs xN (N ≥ 2)");
	return 0;
}

/* One entry of @len bytes at @s: the @i-th of the struct probe_sched array @ctx. */
static int parse_one(const char *s, size_t len, size_t i, void *ctx, char err[PROBE_SCHED_ERR])
{
	char buf[128], *tok[8], *save = NULL;
	struct probe_sched e = {
		.weekday = -1, .repeat = 1, .cooldown_ms = PROBE_COOLDOWN_DEFAULT_MS};
	const char *hm, *preset;
	size_t n = 0, tail;
	int r;

	if (len >= sizeof(buf))
		return calsched_fail(err, "entry too long");
	memcpy(buf, s, len);
	buf[len] = '\0';
	for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n == sizeof(tok) / sizeof(tok[0]))
			return calsched_fail(err, "'%.*s': too many words", (int)len, s);
		tok[n++] = t;
	}
	if (n >= 3 && strcasecmp(tok[0], "daily") == 0) {
		hm = tok[1];
		preset = tok[2];
		tail = 3;
	} else if (n >= 4 && strcasecmp(tok[0], "weekly") == 0) {
		e.weekday = calsched_weekday(tok[1]);
		if (e.weekday < 0)
			return calsched_fail(err, "'%s': unknown weekday (Sun, Mon, … Sat)",
					     tok[1]);
		hm = tok[2];
		preset = tok[3];
		tail = 4;
	} else {
		return calsched_fail(err,
				     "'%.*s': use \"daily HH:MM PRESET [xN [cooldown D]]\" or "
				     "\"weekly DAY HH:MM PRESET [xN [cooldown D]]\"",
				     (int)len, s);
	}
	e.minute = calsched_minute(hm);
	if (e.minute < 0)
		return calsched_fail(err, "'%s': time must be HH:MM", hm);
	if (!probe_preset_find(preset, &e.preset))
		return calsched_fail(err, "'%s': unknown preset", preset);
	if (probe_preset_get(e.preset)->copy_to)
		return calsched_fail(err, "'%s': needs a second drive; it runs when asked for",
				     preset);
	r = parse_tail(tok + tail, n - tail, &e, err);
	if (r < 0)
		return r;
	if (probe_preset_get(e.preset)->study && e.repeat > 1)
		return calsched_fail(err,
				     "'%s': a study; its bursts follow [probes] recovery_intervals "
				     "(no xN)",
				     preset);
	((struct probe_sched *)ctx)[i] = e;
	return 0;
}

int probe_sched_parse(const char *s, struct probe_sched ret[PROBE_SCHED_MAX], size_t *ret_n,
		      char ret_err[PROBE_SCHED_ERR])
{
	struct probe_sched v[PROBE_SCHED_MAX];
	int n = calsched_split(s, PROBE_SCHED_MAX, parse_one, v, ret_err);

	if (n < 0)
		return n;
	memcpy(ret, v, (size_t)n * sizeof(*v));
	*ret_n = (size_t)n;
	return 0;
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
	int64_t k = calsched_index(e->weekday, e->minute, local);

	for (;; k++) {
		int64_t occ = calsched_occurrence(e->weekday, e->minute, k); /* local ms */
		uint64_t j = jitter_ms > 0 ? mix(seed ^ (uint64_t)k) % (uint64_t)jitter_ms : 0;
		int64_t due = occ - utc_offset_s * 1000 + (int64_t)j;
		if (due > after_ms)
			return due;
	}
}
