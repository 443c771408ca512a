/* SPDX-License-Identifier: MIT */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/*
 * Group runs (issue 13, several drives at once): one probe per drive, started
 * together. Their threads meet at a barrier before every phase, so the phases
 * start together (the skew of each is measured) and share their boundaries: a
 * drive whose phase ends early (a byte limit) waits there for the others. A
 * member that stops (aborted, failed) leaves the barrier, and the others go on
 * without it. The result compares each drive with its own latest solo run of
 * the same preset and adds the drives up.
 */
struct store;

#define PROBE_GROUP_MAX 8

/* The barrier of a group's probe threads. Not pthread_barrier_t: a member may leave. */
struct probe_group_sync {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t members;	     /* still running */
	size_t arrived;	     /* at the barrier now */
	uint64_t generation; /* phases released so far */
	int64_t release_ns;  /* CLOCK_MONOTONIC when the last one arrived */
};

/** probe_group_sync_init() - A barrier of @members threads. Return: 0 or negative errno. */
int probe_group_sync_init(struct probe_group_sync *g, size_t members);

/** probe_group_sync_destroy() - Free it (no thread may use it any more). */
void probe_group_sync_destroy(struct probe_group_sync *g);

/**
 * probe_group_sync_arrive() - Wait until every member still running arrived.
 * Return: how late this thread left the barrier after its release (ns, >= 0):
 * its part of the phase's start skew.
 */
int64_t probe_group_sync_arrive(struct probe_group_sync *g);

/** probe_group_sync_leave() - This member runs no more phases: the others stop waiting for it. */
void probe_group_sync_leave(struct probe_group_sync *g);

/* One member's figure of one phase, for the summary. */
struct probe_group_fig {
	const char *name; /* the drive, "demo1" */
	double mb_s;	  /* in the group */
	double solo_mb_s; /* its latest solo run of the same preset and phase; 0 none */
};

/**
 * probe_group_phase_text() - One phase of a group in words: "each at 75 % of
 * solo, together 3,000 MB/s = 1.50× one drive" (one drive: the mean of the
 * members' solo rates); without solo runs, only the total.
 * Return: @buf.
 */
char *probe_group_phase_text(const struct probe_group_fig *v, size_t n, char *buf, size_t size);

/**
 * probe_group_json_add() - Add "group" to the run detail @detail (from
 * probe_run_detail_json()): null for a run alone; else its members (each phase's
 * MB/s and ratio to the drive's latest solo run), the aggregate per phase, the
 * start skew and the text.
 * Return: 0 or negative errno.
 */
int probe_group_json_add(struct store *s, json_t *detail);

/** probe_group_print() - The CLI's lines of a "group" object: per drive, then the total. */
void probe_group_print(FILE *out, const json_t *group);
