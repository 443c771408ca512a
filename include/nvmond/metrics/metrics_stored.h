/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/decode/smart.h"
#include "nvmond/util/u128.h"

/*
 * The metric families whose values come whole from one stored health sample
 * (the `samples` table): temperatures, critical-warning bits, spare and wear
 * ratios, the health log's counters. /metrics renders them from each drive's
 * latest sample and remote write (issue 24) from every stored sample with its
 * own timestamp, both through this one table, so a series has the same name,
 * labels and value on both. Pure.
 */
enum metrics_point_kind {
	METRICS_POINT_INT,   /* .i */
	METRICS_POINT_CENTI, /* .i hundredths: a percent as a ratio ("0.42") */
	METRICS_POINT_U128,  /* .u, exact */
};

/* One series of a family for one sample: its own label (if any) and its value. */
struct metrics_point {
	const char *label, *label_value; /* static; NULL: the drive's labels only */
	enum metrics_point_kind kind;
	int64_t i;
	u128 u;
};

struct metrics_stored_family {
	const char *name, *type, *help;
};

enum {
	METRICS_STORED_FAMILIES = 19,
	METRICS_POINTS_MAX = 9, /* the composite and sensors 1-8 */
};

extern const struct metrics_stored_family metrics_stored_families[METRICS_STORED_FAMILIES];

/**
 * metrics_stored_points() - The series of family @family (an index into
 * metrics_stored_families[]) that the health log @s makes. Temperatures are
 * there only when reported.
 * Return: how many were written to @ret (0 … METRICS_POINTS_MAX).
 */
size_t metrics_stored_points(size_t family, const struct smart_log *s,
			     struct metrics_point ret[METRICS_POINTS_MAX]);

/** metrics_point_text() - The value as the text format writes it (exact). Return: @buf. */
char *metrics_point_text(const struct metrics_point *p, char buf[U128_DEC_MAX]);

/** metrics_point_double() - The value as a float64 (remote write's sample value). */
double metrics_point_double(const struct metrics_point *p);

/** metrics_stored_family_find() - The index of family @name, or -1. */
int metrics_stored_family_find(const char *name);
