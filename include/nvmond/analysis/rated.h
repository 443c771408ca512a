/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The spec check (issue 13): a drive's rated sequential read and write rates
 * (data sheet), the best, median and spread of a repeated probe series, and
 * the rule that flags a drive measuring well below its rating. Pure: no clock,
 * no I/O.
 */

enum rated_dir { RATED_READ, RATED_WRITE, _RATED_DIR_MAX };

/* A drive's rated sequential rates, MB/s (10^6 bytes/s); 0 = not known. */
struct rated_speed {
	uint32_t mbps[_RATED_DIR_MAX];
	const char *ref; /* the data sheet (static), or NULL when configured */
};

/**
 * rated_builtin_lookup() - Rated sequential read/write of a known model, by
 * the Identify model string, matched as wear.c's endurance table matches
 * (fnmatch(3), ignoring case; the capacity is part of the model).
 * Return: true with @ret filled when the model is known.
 */
bool rated_builtin_lookup(const char *model, struct rated_speed *ret);

/** rated_builtin_matches() - Entries matching @model (more than one is a defect; tests). */
size_t rated_builtin_matches(const char *model);

/* One figure (a phase's MB/s) over the runs of a series. */
struct rated_stats {
	size_t n;
	double best, median, min, max;
	double spread; /* (max - min) / median, 0 … ; 0 when n < 2 or median is 0 */
};

/**
 * rated_stats_of() - Best (the highest), median (the middle one, the mean of
 * the two middle ones for an even count), min, max and relative spread of the
 * @n figures @v (unsorted; not changed).
 * Return: 0, -EINVAL when @n is 0 or larger than RATED_STATS_MAX.
 */
#define RATED_STATS_MAX 64
int rated_stats_of(const double *v, size_t n, struct rated_stats *ret);

/* The share of its rating below which a repeated run's best is reported. */
#define RATED_BELOW_PCT 80

/* What the rule is given: a series' best per direction against the rating. */
struct rated_check_input {
	size_t runs;			  /* runs of the series that measured (done or stopped) */
	double best_mbps[_RATED_DIR_MAX]; /* 0 = the preset does not measure that direction */
	uint32_t rated_mbps[_RATED_DIR_MAX]; /* 0 = not rated */
	const char *preset;		     /* "seq1m-q8" */
	const char *link;		     /* "PCIe 8.0 GT/s x4" or NULL when unknown */
	int temp_c;			     /* drive temperature at the time; INT32_MIN unknown */
};

struct rated_verdict {
	bool known;		    /* some direction was compared */
	bool below;		    /* … and one is under RATED_BELOW_PCT % */
	double pct[_RATED_DIR_MAX]; /* measured ÷ rated × 100; 0 = not compared */
	char message[256];	    /* "below_rated" text naming link and temperature */
};

/**
 * rated_check() - The spec check of a repeated series: each direction that is
 * both measured and rated is compared, best of the series ÷ rated. The rule:
 * a series of at least 2 measured runs whose best is under RATED_BELOW_PCT %
 * of the rating in some direction is below its rating. A single run never is
 * (one run can be disturbed; a best of several cannot be blamed on chance).
 */
void rated_check(const struct rated_check_input *in, struct rated_verdict *ret);

/**
 * rated_alert_condition() - The below_rated rule's condition from @v (info):
 * active when the series was below its rating, inactive (it resolves) when a
 * later series measured up to it; every other rule is left unknown, and so is
 * this one when nothing was compared. The message is the verdict's, cut to the
 * alert's 159 bytes at a character (valid UTF-8: the API and the JSON sinks need it).
 */
struct alert_cond;
void rated_alert_condition(const struct rated_verdict *v, struct alert_cond *ret);

/**
 * rated_format() - "2,598 MB/s read = 104 % of 2,500 rated" into @buf.
 * Return: @buf.
 */
char *rated_format(double mbps, uint32_t rated, enum rated_dir d, char *buf, size_t len);
