/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Calendar schedules of device self-tests (pure), smartd's -s made readable:
 * "weekly Sun 02:00 short, monthly 1 03:00 extended", also "daily 03:00 short",
 * comma-separated, in local time. Days Sun … Sat; days of the month 1 … 28
 * (every month has them). "none" is no schedule, as "" is (a drive opting out
 * of [selftests] default_schedule).
 */
#define SELFTEST_SCHED_MAX 8
#define SELFTEST_SCHED_ERR 128

/* The types a schedule runs, an index into per-type arrays. */
enum selftest_sched_type {
	SELFTEST_SCHED_SHORT,
	SELFTEST_SCHED_EXTENDED,
	SELFTEST_SCHED_TYPES,
};

struct selftest_sched {
	int weekday;  /* 0 Sunday … 6 Saturday for "weekly", else -1 */
	int monthday; /* 1 … 28 for "monthly", else 0 */
	int minute;   /* of the day, 0 … 1439 */
	enum selftest_sched_type type;
};

/** selftest_sched_type_name() - "short" or "extended". Return: static string. */
const char *selftest_sched_type_name(enum selftest_sched_type t);

/**
 * selftest_sched_type_code() - The Device Self-test command's code of @t
 * (1h short, 2h extended, enum selftest_code).
 */
uint8_t selftest_sched_type_code(enum selftest_sched_type t);

/**
 * selftest_sched_parse() - Parse @s ("" or "none", in any case = no schedule:
 * *ret_n is 0).
 * Return: 0 with @ret / *ret_n, or -EINVAL with @ret_err naming the bad part.
 */
int selftest_sched_parse(const char *s, struct selftest_sched ret[SELFTEST_SCHED_MAX],
			 size_t *ret_n, char ret_err[SELFTEST_SCHED_ERR]);

/**
 * selftest_sched_next() - The first time after @after_ms (unix ms) that @e is
 * due, in a zone @utc_offset_s east of UTC.
 */
int64_t selftest_sched_next(const struct selftest_sched *e, int64_t after_ms, int64_t utc_offset_s);

/**
 * selftest_sched_prev() - The last time at or before @at_ms that @e was due,
 * in a zone @utc_offset_s east of UTC.
 */
int64_t selftest_sched_prev(const struct selftest_sched *e, int64_t at_ms, int64_t utc_offset_s);

/* A type that never ran nor was skipped. */
#define SELFTEST_SCHED_NEVER INT64_MIN

/**
 * selftest_sched_catchup() - Which types to run once at start, for the
 * occurrences missed while the daemon was down.
 * @e, @n:      the schedule
 * @last_ms:    per type, when a test of it last ran or was skipped (started,
 *              or recorded as skipped), SELFTEST_SCHED_NEVER if it never did
 * @now_ms:     the start
 * @utc_offset_s: the zone, as for selftest_sched_next()
 * @ret_missed_ms: per type, the latest missed occurrence when it is caught up,
 *              else 0
 *
 * A type is caught up when its latest occurrence at or before @now_ms is later
 * than its last run or skip: one run however many were missed. A type that
 * never ran is not caught up (a new schedule starts from its next occurrence),
 * and a catch-up that ran (its start recorded as the last run) is not run
 * again by a restart before the next occurrence.
 * Return: per type, in @ret_run, whether to run it now.
 */
void selftest_sched_catchup(const struct selftest_sched *e, size_t n,
			    const int64_t last_ms[SELFTEST_SCHED_TYPES], int64_t now_ms,
			    int64_t utc_offset_s, bool ret_run[SELFTEST_SCHED_TYPES],
			    int64_t ret_missed_ms[SELFTEST_SCHED_TYPES]);

/**
 * selftest_sched_due() - Which types fall due in (@from_ms, @to_ms]: an entry
 * whose next occurrence after @from_ms is not after @to_ms. The scheduler
 * calls it with the end of its previous check and now, so each occurrence is
 * seen once however late a check runs; nothing when @to_ms <= @from_ms (the
 * clock went back).
 */
void selftest_sched_due(const struct selftest_sched *e, size_t n, int64_t from_ms, int64_t to_ms,
			int64_t utc_offset_s, bool ret_due[SELFTEST_SCHED_TYPES]);
