/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/decode/selftest.h"
#include "nvmond/store/store.h"

/*
 * Device self-tests (migrations/0008_selftests.sql): every result a drive's
 * Device Self-test log (06h) showed, each once, and what nvmond did: the
 * tests it started or aborted and the scheduled ones it skipped, with why.
 * The self-test service appends on the main loop; the API, `status` and the
 * dashboard read.
 */

#define STORE_SELFTEST_ORIGIN_MAX 16 /* "schedule", "catch-up", "api", "cli", "demo", "" */
#define STORE_SELFTEST_REASON_MAX 256

/*
 * One selftest_results row: a result as the log showed it, when nvmond first
 * read it, and who started the test ("" = not nvmond: nvme-cli, smartd, …).
 */
struct store_selftest_row {
	int64_t id, device_id;
	int64_t seen_ms; /* when nvmond first read it in the log */
	struct selftest_result r;
	char origin[STORE_SELFTEST_ORIGIN_MAX];
};

enum store_selftest_action_kind {
	STORE_SELFTEST_START, /* nvmond sent Device Self-test with code 1h or 2h */
	STORE_SELFTEST_ABORT, /* nvmond sent Device Self-test with code Fh */
	STORE_SELFTEST_SKIP,  /* a scheduled test was not started: @reason says why */
};

/* One selftest_actions row. */
struct store_selftest_action {
	int64_t id, device_id, ts_ms;
	enum store_selftest_action_kind kind;
	uint8_t code;  /* enum selftest_code: 1h short, 2h extended (Fh for an abort) */
	uint32_t nsid; /* 0xffffffff = the controller */
	char origin[STORE_SELFTEST_ORIGIN_MAX];
	char reason[STORE_SELFTEST_REASON_MAX]; /* skips: why; else "" */
};

/**
 * store_selftest_add() - Append the @n results @v, each of its device_id
 * (oldest first: the order they ran in; ids grow in that order), in one
 * transaction: all or nothing. Ids are ignored; an origin "" is stored as NULL.
 * Return: 0 or negative errno (nothing stored).
 */
int store_selftest_add(struct store *s, const struct store_selftest_row *v, size_t n);

/**
 * store_selftest_newest() - The newest stored result of device @id (the key
 * selftest_new_results() needs).
 * Return: 0, -ENOENT when none is stored, or negative errno.
 */
int store_selftest_newest(struct store *s, int64_t id, struct store_selftest_row *ret);

/**
 * store_selftest_list() - Up to @limit results of device @id, newest first
 * (the reverse of the order they were added in). *ret is malloc()ed (NULL
 * when none). Return: 0 or negative errno.
 */
int store_selftest_list(struct store *s, int64_t id, size_t limit, struct store_selftest_row **ret,
			size_t *ret_n);

/**
 * store_selftest_last_of() - The newest result of device @id whose test code
 * is @code (1h short, 2h extended).
 * Return: 0, -ENOENT when there is none, or negative errno.
 */
int store_selftest_last_of(struct store *s, int64_t id, uint8_t code,
			   struct store_selftest_row *ret);

/**
 * store_selftest_action_add() - Append @a (its id is ignored).
 * Return: 0, -EINVAL for an unknown kind, or negative errno.
 */
int store_selftest_action_add(struct store *s, const struct store_selftest_action *a);

/**
 * store_selftest_actions() - Up to @limit actions of device @id, newest
 * first (by ts_ms, then as added); @kind an enum store_selftest_action_kind,
 * < 0 for every kind. *ret is malloc()ed (NULL when none).
 * Return: 0, -EINVAL for an unknown @kind, or negative errno.
 */
int store_selftest_actions(struct store *s, int64_t id, int kind, size_t limit,
			   struct store_selftest_action **ret, size_t *ret_n);

/**
 * store_selftest_last_scheduled() - When the schedule last started or skipped
 * a test with code @code on device @id (the latest ts_ms of its actions of
 * kind start or skip and origin "schedule" or "catch-up"; the operator's tests
 * and aborts do not count): what selftest_sched_catchup() needs to catch up a
 * missed occurrence once.
 * Return: 0 with *ret_ms, -ENOENT when it never did (*ret_ms untouched), or
 * negative errno.
 */
int store_selftest_last_scheduled(struct store *s, int64_t id, uint8_t code, int64_t *ret_ms);
