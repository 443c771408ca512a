/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/analysis/alert.h"
#include "nvmond/util/u128.h"

/*
 * Wear: lifetime writes against the rated endurance, write rates, and when the
 * drive reaches its rating. Pure: a history of points, a config and @now in; a
 * report out.
 */
struct wear_point {
	int64_t ts_ms;
	u128 data_units_written; /* SMART, units of 512,000 bytes */
	uint8_t percent_used;
};

enum wear_rating_source {
	WEAR_RATING_UNKNOWN,
	WEAR_RATING_CONFIG,  /* [device "…"] rated_tbw */
	WEAR_RATING_BUILTIN, /* the table of known models */
};

enum wear_window { WEAR_1D, WEAR_7D, WEAR_30D, _WEAR_WINDOW_MAX };

#define WEAR_UNUSUAL_FACTOR_DEFAULT 5.0
#define WEAR_UNUSUAL_MIN_BYTES	    (10ULL * 1000 * 1000 * 1000) /* 10 GB */
#define WEAR_RATE_MIN_SPAN_MS	    (10 * 60 * 1000) /* shorter histories give no rate */

struct wear_cfg {
	uint64_t rated_bytes;	    /* configured rating; 0 = use the built-in table */
	double unusual_factor;	    /* a day writing more than this × the 30-day average */
	uint64_t unusual_min_bytes; /* … and at least this much */
};

struct wear_rate {
	bool known;	      /* the window holds at least WEAR_RATE_MIN_SPAN_MS of history */
	bool complete;	      /* … and covers at least 90 % of the window */
	int64_t span_ms;      /* history covered */
	u128 bytes;	      /* written inside it */
	double bytes_per_day; /* bytes / span */
};

struct wear_report {
	u128 bytes_written; /* lifetime, from the latest point */
	u128 probe_bytes;   /* written by nvmond's own probes (counted apart) */
	u128 host_bytes;    /* bytes_written - probe_bytes */
	uint64_t rated_bytes;
	enum wear_rating_source rating_source;
	const char *rating_ref;	 /* where a built-in rating comes from; static */
	unsigned warranty_years; /* of a built-in rating, from its data sheet; 0 = unknown */
	unsigned dwpd;		 /* of a built-in rating given in drive writes per day; 0 = none */
	double rated_fraction;	 /* bytes_written / rated_bytes (0 when unknown) */
	int alert_level;	 /* 0, 80, 90 or 100: percent of the rating reached */
	struct wear_rate rate[_WEAR_WINDOW_MAX];
	enum wear_window basis; /* the window the projections use */
	bool projectable;	/* some window has a rate */
	bool tbw_reached;
	int64_t tbw_date_ms; /* projected; 0 = unknown or never at the current rate */
	uint8_t percent_used;
	double used_per_day; /* percentage points a day, from the drive's own steps; 0 unknown */
	bool used_reached;
	int64_t used_date_ms; /* projected 100 %; 0 = unknown */
	bool unusual;	      /* the last day wrote > factor × the 30-day daily average */
	double avg_30d_bytes_per_day;
	double unusual_factor;	/* the factor applied */
	int64_t counter_resets; /* data_units_written went backwards this often */
};

/* A rating from the built-in table of known models. */
struct wear_rating {
	uint64_t rated_bytes;	 /* TBW, or DWPD × capacity × 365 × warranty years */
	unsigned warranty_years; /* 0 = the data sheet gives none */
	unsigned dwpd;		 /* drive writes per day when rated so; 0 = rated in TBW */
	const char *ref;	 /* the data sheet it comes from; static */
};

/**
 * wear_builtin_lookup() - Rated endurance of a known model, by the Identify
 * model string as the drive reports it (the capacity is part of it), matched
 * against the table's patterns ignoring case.
 * Return: true with @ret filled when the model is known.
 */
bool wear_builtin_lookup(const char *model, struct wear_rating *ret);

/**
 * wear_builtin_rating() - wear_builtin_lookup() for the bytes and reference.
 * @ret_ref: where the number comes from (static)
 * Return: true when the model is known.
 */
bool wear_builtin_rating(const char *model, uint64_t *ret_bytes, const char **ret_ref);

/**
 * wear_builtin_matches() - How many entries of the table match @model; more
 * than one is a defect of the table (for tests).
 * Return: the number of matching entries.
 */
size_t wear_builtin_matches(const char *model);

/**
 * wear_alert_level() - The share of the rating reached, as struct wear_report's
 * alert_level: 100 from @rated_fraction 1.0, 90 from 0.9, 80 from 0.8, else 0.
 * Return: 0, 80, 90 or 100.
 */
int wear_alert_level(double rated_fraction);

/**
 * wear_alert_level_of() - wear_alert_level() of @bytes_written (lifetime, the
 * latest sample's) against @rated_bytes; 0 when the rating is unknown (0): what
 * wear_analyze() reports for a history ending with that sample.
 * Return: 0, 80, 90 or 100.
 */
int wear_alert_level_of(u128 bytes_written, uint64_t rated_bytes);

/**
 * wear_rated_bytes() - The rating wear_analyze() uses: @configured ([device]
 * rated_tbw) when not 0, else the built-in table's for @model, else 0 (unknown).
 * Return: bytes.
 */
uint64_t wear_rated_bytes(uint64_t configured, const char *model);

/**
 * wear_analyze() - Report on the history @v (oldest first, @n >= 1).
 * A counter that goes backwards (drive reset or replaced) restarts from zero:
 * what it shows after the reset counts as written.
 * Return: 0, or -EINVAL when @n is 0.
 */
int wear_analyze(const struct wear_point *v, size_t n, const struct wear_cfg *c, const char *model,
		 u128 probe_bytes, int64_t now_ms, struct wear_report *ret);

/**
 * wear_daily() - Bytes written in each of the @days UTC days ending with the
 * day of @now (oldest first) into @ret.
 */
void wear_daily(const struct wear_point *v, size_t n, int64_t now_ms, size_t days, u128 *ret);

/**
 * wear_alert_conditions() - The wear rules' conditions (ALERT_TBW_80/90/100,
 * ALERT_WRITE_RATE) from @w; every other rule is left unknown. A rule without
 * the information it needs (no rating, no 30-day baseline) is unknown too.
 */
void wear_alert_conditions(const struct wear_report *w, struct alert_cond ret[_ALERT_RULE_MAX]);
