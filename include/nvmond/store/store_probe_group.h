/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * Group runs (issue 13, several drives at once): the probe runs started
 * together on several drives, linked by group_id (the first member's run id),
 * each with its start skew (migrations/0011).
 */
struct store;

struct probe_group_member {
	int64_t run_id;
	int64_t group_id;
	int64_t skew_us; /* -1: not known yet (running) */
};

/**
 * store_probe_group_add() - Make run @run_id a member of group @group_id.
 * Return: 0 or negative errno.
 */
int store_probe_group_add(struct store *s, int64_t group_id, int64_t run_id);

/**
 * store_probe_group_skew() - Record member @run_id's start skew (@skew_us).
 * Return: 0, -ENOENT (not a member), or negative errno.
 */
int store_probe_group_skew(struct store *s, int64_t run_id, int64_t skew_us);

/**
 * store_probe_group_of() - The group of run @run_id.
 * Return: 0 with *ret_group_id, -ENOENT (a run alone), or negative errno.
 */
int store_probe_group_of(struct store *s, int64_t run_id, int64_t *ret_group_id);

/**
 * store_probe_group_members() - The members of group @group_id, by run id.
 * Return: 0 (*ret malloc()ed, *ret_n may be 0), or negative errno.
 */
int store_probe_group_members(struct store *s, int64_t group_id, struct probe_group_member **ret,
			      size_t *ret_n);

/**
 * store_probe_solo_latest() - The newest run of @preset on @device_id before
 * run @before_id that measured (done or stopped), ran alone (no group) and on
 * the same @target (its probe file, raw namespace or demo:N: a file run is
 * never compared with a read-only run on the raw namespace).
 * Return: 0 with *ret_id, -ENOENT (none), or negative errno.
 */
int store_probe_solo_latest(struct store *s, int64_t device_id, const char *preset,
			    const char *target, int64_t before_id, int64_t *ret_id);
