/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Pure analysis of a probe's throughput series: where a write cache runs out
 * (a cliff: the rate drops and stays down), where the rate dips and comes back,
 * and which of those coincide with the drive's thermal management counters.
 * No clock, no I/O: tests feed tables.
 */

/* One interval of a series: @bytes moved during the interval that ends at @t_ms. */
struct cliff_point {
	int64_t t_ms; /* end of the interval, milliseconds since the probe started */
	uint64_t bytes;
};

/* One SMART sample taken during the probe (every second). */
struct cliff_thermal {
	int64_t t_ms; /* milliseconds since the probe started */
	uint16_t temp_k;
	uint32_t t1_count, t2_count;	/* thermal management transition counts */
	uint32_t t1_time_s, t2_time_s;	/* time spent in TMT1 / TMT2 */
	uint32_t warning_temp_time_min; /* minutes above WCTEMP */
};

struct cliff_params {
	double drop_ratio;	  /* an event starts below drop_ratio × the rate before (0.7) */
	double recover_ratio;	  /* and ends back above recover_ratio × that rate (0.85) */
	int64_t min_event_ms;	  /* shorter events are noise (500 ms) */
	int64_t cliff_hold_ms;	  /* an unrecovered drop this long is a cliff (5 s) */
	int64_t thermal_slack_ms; /* counters may move this long before/after an event (1.5 s) */
};

enum cliff_kind {
	CLIFF_DIP,   /* the rate came back before the end of the run */
	CLIFF_CLIFF, /* the rate fell and stayed down (>= cliff_hold_ms) until the end */
};

enum cliff_cause {
	CLIFF_CAUSE_UNKNOWN,
	/* A T1/T2 count or time, or the warning-temperature time, rose during a dip
	 * (or at the start of a cliff), give or take thermal_slack_ms. */
	CLIFF_CAUSE_THROTTLING,
};

struct cliff_event {
	enum cliff_kind kind;
	enum cliff_cause cause;
	size_t start, end;	  /* indexes into the series: [start, end) */
	int64_t start_ms, end_ms; /* start of the first, end of the last interval */
	uint64_t bytes_before;	  /* bytes moved before the event started */
	double rate_before;	  /* bytes per second: the level it dropped from */
	double rate_during;	  /* median rate inside the event */
	double rate_after;	  /* median rate after a dip; = rate_during for a cliff */
	bool recovered;		  /* = kind == CLIFF_DIP */
};

#define CLIFF_MAX_EVENTS 32

/** cliff_params_default() - The defaults above. */
void cliff_params_default(struct cliff_params *ret);

/**
 * cliff_analyze() - Find dips and cliffs in @v and label the thermal ones.
 * @v:       the series, oldest first, @n intervals
 * @th:      SMART samples taken during the run, oldest first (may be NULL, @n_th 0)
 * @p:       thresholds (NULL: defaults)
 * @ret:     up to @max events, in order
 * @ret_n:   how many were written
 *
 * The first interval (ramp-up) never starts an event. The level an event drops
 * from is the median of the smoothed rate over the last eight normal intervals.
 * Return: 0, or -EINVAL for a series whose times do not increase.
 */
int cliff_analyze(const struct cliff_point *v, size_t n, const struct cliff_thermal *th,
		  size_t n_th, const struct cliff_params *p, struct cliff_event *ret, size_t max,
		  size_t *ret_n);

/**
 * cliff_sustained() - Whether the series holds a cliff (for sustained-write,
 * which stops once the rate has fallen and stayed down).
 * Return: true with *ret (optional) filled, else false.
 */
bool cliff_sustained(const struct cliff_point *v, size_t n, const struct cliff_params *p,
		     struct cliff_event *ret);

/** cliff_kind_name() - "dip" or "cliff". */
const char *cliff_kind_name(enum cliff_kind k);

/** cliff_cause_name() - "unknown" or "throttling". */
const char *cliff_cause_name(enum cliff_cause c);
