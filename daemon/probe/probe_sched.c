/* SPDX-License-Identifier: MIT */
/* Calendar schedules of probes. Pure: see probe_sched.h. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "nvmond/analysis/calsched.h"
#include "nvmond/probe/probe_sched.h"

_Static_assert(PROBE_SCHED_ERR == CALSCHED_ERR, "one error buffer size");

/* One entry of @len bytes at @s: the @i-th of the struct probe_sched array @ctx. */
static int parse_one(const char *s, size_t len, size_t i, void *ctx, char err[PROBE_SCHED_ERR])
{
	char buf[128], kind[16], a[16], b[16], c[40], extra[8];
	struct probe_sched e = {.weekday = -1};
	const char *hm, *preset;
	int n;

	if (len >= sizeof(buf))
		return calsched_fail(err, "entry too long");
	memcpy(buf, s, len);
	buf[len] = '\0';
	n = sscanf(buf, "%15s %15s %15s %39s %7s", kind, a, b, c, extra);
	if (n >= 1 && strcasecmp(kind, "daily") == 0 && n == 3) {
		hm = a;
		preset = b;
	} else if (n >= 1 && strcasecmp(kind, "weekly") == 0 && n == 4) {
		e.weekday = calsched_weekday(a);
		if (e.weekday < 0)
			return calsched_fail(err, "'%s': unknown weekday (Sun, Mon, … Sat)", a);
		hm = b;
		preset = c;
	} else {
		return calsched_fail(
			err, "'%s': use \"daily HH:MM PRESET\" or \"weekly DAY HH:MM PRESET\"",
			buf);
	}
	e.minute = calsched_minute(hm);
	if (e.minute < 0)
		return calsched_fail(err, "'%s': time must be HH:MM", hm);
	if (!probe_preset_find(preset, &e.preset))
		return calsched_fail(err, "'%s': unknown preset", preset);
	if (probe_preset_get(e.preset)->copy_to)
		return calsched_fail(err, "'%s': needs a second drive; it runs when asked for",
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
