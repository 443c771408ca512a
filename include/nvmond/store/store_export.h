/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/store/store.h"

/*
 * Remote-write exports (migrations/0015_export_cursors.sql): where each export
 * is in every drive's samples. Same conventions as store.h.
 */
struct export_cursor {
	int64_t device_id;
	int64_t sent_ms; /* the newest sample of the drive the export is done with */
};

/**
 * store_export_start() - The time export @name first started, recorded as @now_ms
 * when it has none yet (writer handle). Return: 0 with *ret_created_ms, or negative errno.
 */
int store_export_start(struct store *s, const char *name, int64_t now_ms, int64_t *ret_created_ms);

/**
 * store_export_cursors() - Every cursor of export @name (any handle).
 * Return: 0 (*ret malloc()ed, NULL when none), or negative errno.
 */
int store_export_cursors(struct store *s, const char *name, struct export_cursor **ret,
			 size_t *ret_n);

/**
 * store_export_advance() - Set the cursors @v of export @name, in one
 * transaction (writer handle); a cursor never moves back.
 * Return: 0 or negative errno.
 */
int store_export_advance(struct store *s, const char *name, const struct export_cursor *v,
			 size_t n);

/**
 * store_export_pending() - How many samples of @device_id are later than
 * @after_ms, and the time of the oldest of them (0 when none).
 * Return: 0 or negative errno.
 */
int store_export_pending(struct store *s, int64_t device_id, int64_t after_ms, uint64_t *ret_n,
			 int64_t *ret_oldest_ms);
