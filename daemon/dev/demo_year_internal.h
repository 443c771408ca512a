/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Private to the demo year (demo_year.c: samples, throttle episodes and their
 * alerts; demo_year_probes.c: past probe runs): the generator's state and the
 * functions one file calls in another. Pure, as demo_year.h says.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/dev/demo_year.h"

#define MS_MIN	(60 * 1000LL)
#define MS_HOUR (60 * MS_MIN)
#define MS_DAY	(24 * MS_HOUR)

#define MAX_SPELLS   7
#define MAX_EPISODES (MAX_SPELLS * 4)
#define RAMP_MS	     (20 * MS_MIN) /* temperature ramps in and out of an episode */
#define DENSE_MS     (45 * MS_MIN) /* dense samples this far around an episode */
#define RESOLVE_MS   (30 * 1000LL) /* [alerts] resolve_after's default */

struct episode {
	int64_t s, e;	/* in light throttling (T1) or worse */
	int64_t hs, he; /* in heavy throttling (T2); hs == he: never */
	double peak_c;
	uint32_t t1_n, t2_n;
	double t1_s, t2_s, warn_s; /* seconds in T1 (not T2), in T2, above WCTEMP */
	int64_t warn_from, warn_to;
};

struct gen {
	const struct dev_demo_drive *d;
	uint64_t seed;
	int64_t now, t0, day0;
	struct smart_log end;
	size_t n_days;
	double *day_bytes, *prefix; /* writes per UTC day from day0; prefix sums */
	double w_now;
	struct episode ep[MAX_EPISODES];
	size_t n_ep;
	double sensor_max_off;
};

/* A number in [0, 1) from the seed and @a, @b (splitmix64). */
static inline double rnd(const struct gen *g, uint64_t a, uint64_t b)
{
	uint64_t x = g->seed ^ (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xd1b54a32d192ed03ULL);

	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return (double)(x >> 11) / 9007199254740992.0;
}

static inline int64_t floor_div(int64_t a, int64_t b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* The sample of the year at @ms (demo_year.c). */
void demo_year_sample_at(const struct gen *g, int64_t ms, struct sample *ret);

/* The past probe runs (demo_year_probes.c). Return: 0 or -ENOMEM. */
int demo_year_make_runs(const struct gen *g, struct demo_year *y);
