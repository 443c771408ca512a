/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/util/units.h"

/*
 * What the calendar schedules of probes and self-tests share (pure): the
 * comma-separated list, weekdays, "HH:MM", and daily or weekly occurrences in
 * local time, counted as unix ms shifted by the zone's offset.
 */
#define CALSCHED_ERR 128

/**
 * calsched_fail() - Write the message to @err.
 * Return: -EINVAL.
 */
int calsched_fail(char err[CALSCHED_ERR], const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * calsched_weekday() - "Sun" … "Sat", any case (a longer word such as "Sunday"
 * too). Return: 0 Sunday … 6 Saturday, or -1.
 */
int calsched_weekday(const char *s);

/**
 * calsched_minute() - "HH:MM", 00:00 … 23:59.
 * Return: the minute of the day, or -1.
 */
int calsched_minute(const char *hm);

/** calsched_floor_div() - @a / @b rounded towards minus infinity. */
int64_t calsched_floor_div(int64_t a, int64_t b);

/**
 * calsched_index() - Which occurrence of a daily (@weekday -1) or weekly event
 * at @minute is the last one at or before @local_ms.
 * Return: k, for calsched_occurrence().
 */
int64_t calsched_index(int weekday, int minute, int64_t local_ms);

/** calsched_occurrence() - Return: the local ms of occurrence @k. */
int64_t calsched_occurrence(int weekday, int minute, int64_t k);

/* One entry of a list: @len bytes at @s (leading blanks skipped), the @i-th. */
typedef int (*calsched_entry_fn)(const char *s, size_t len, size_t i, void *ctx,
				 char err[CALSCHED_ERR]);

/**
 * calsched_split() - Call @fn for each comma-separated entry of @s ("" = none).
 * An empty entry (",," or a trailing comma) and more than @max entries are errors.
 * Return: the number of entries, or the first negative errno of @fn, or
 * -EINVAL, with @err.
 */
int calsched_split(const char *s, size_t max, calsched_entry_fn fn, void *ctx,
		   char err[CALSCHED_ERR]);
