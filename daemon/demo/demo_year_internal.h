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

#include "nvmond/demo/demo_year.h"
#include "nvmond/util/units.h"

#define MAX_SPELLS   7
#define MAX_EPISODES (MAX_SPELLS * 4)
#define RAMP_MS	     (20 * MS_PER_MIN) /* temperature ramps in and out of an episode */
#define DENSE_MS     (45 * MS_PER_MIN) /* dense samples this far around an episode */
#define RESOLVE_MS   (30 * 1000LL)     /* [alerts] resolve_after's default */

struct episode {
	int64_t s, e;	/* in light throttling (T1) or worse */
	int64_t hs, he; /* in heavy throttling (T2); hs == he: never */
	double peak_c;
	uint32_t t1_n, t2_n;
	double t1_s, t2_s, warn_s; /* seconds in T1 (not T2), in T2, above WCTEMP */
	int64_t warn_from, warn_to;
};

/* A read of the error log (demo_year_facts.c): the counts after it. */
struct err_read {
	int64_t ms;
	uint64_t count, media; /* num_err_log_entries, media_errors */
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
	struct err_read rd[DEV_DEMO_ERR_MONTHS + 2];
	size_t n_rd;
	int64_t fw_ms;		    /* the firmware update; 0 = none */
	int64_t link_from, link_to; /* on link_was; equal = never */
};

/* A number in [0, 1) from the seed and @a, @b (splitmix64). */
static inline double rnd(const struct gen *g, uint64_t a, uint64_t b)
{
	return dev_demo_unit(g->seed ^ (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xd1b54a32d192ed03ULL));
}

static inline int64_t floor_div(int64_t a, int64_t b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* The sample of the year at @ms (demo_year.c). */
void demo_year_sample_at(const struct gen *g, int64_t ms, struct sample *ret);

/* A zeroed alert appended to @y (demo_year.c). Return: it, or NULL. */
struct demo_alert *demo_year_push_alert(struct demo_year *y);

/* When the error log is read, the firmware updated and the link degraded
 * (demo_year_facts.c); before the samples, which show them. */
void demo_year_plan_facts(struct gen *g);

/* The error counters of @s at @ms: the end's, less what the year logs after it. */
void demo_year_errors_at(const struct gen *g, int64_t ms, struct smart_log *s);

/* The PCIe link at @ms. */
const struct nvme_pcie_link *demo_year_link_at(const struct gen *g, int64_t ms);

/* The error log entries and reads, firmware and link rows, and their alerts.
 * Return: 0 or -ENOMEM. */
int demo_year_make_facts(const struct gen *g, struct demo_year *y);

/* The past probe runs (demo_year_probes.c). Return: 0 or -ENOMEM. */
int demo_year_make_runs(const struct gen *g, struct demo_year *y);
