/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/analysis/alert.h"
#include "nvmond/analysis/throttle.h"

/*
 * Throttle events and alerts in the store (migration 0002). Same conventions as
 * store.h: negative errno, malloc()ed result arrays, one handle per thread.
 */
struct store;

struct alert_row {
	int64_t id;
	int64_t device_id;
	enum alert_rule rule;
	enum alert_severity severity;
	bool firing;
	char message[160];
	int64_t started_ms;
	int64_t updated_ms;
	int64_t resolved_ms;	  /* 0 while firing */
	int64_t acked_ms;	  /* 0 = not acknowledged */
	int64_t notified_ms;	  /* last notification sent; 0 = none */
	int64_t last_notified_ms; /* store_alerts_latest(): newest notification of the rule/device */
};

/** store_event_insert() - Record @ev for @device_id. Return: 0 with *ret_id, or negative errno. */
int store_event_insert(struct store *s, int64_t device_id, const struct throttle_event *ev,
		       int64_t *ret_id);

/** store_event_update() - Rewrite the event ev->id. Return: 0, -ENOENT, or negative errno. */
int store_event_update(struct store *s, const struct throttle_event *ev);

/**
 * store_events_open() - The open events of @device_id (to restore the detector).
 * Return: 0 or negative errno; *ret malloc()ed (NULL when none).
 */
int store_events_open(struct store *s, int64_t device_id, struct throttle_event **ret,
		      size_t *ret_n);

/**
 * store_events_range() - Events of @device_id overlapping [from_ms, to_ms], oldest
 * first, at most @limit. Return: 0 or negative errno; *ret malloc()ed.
 */
int store_events_range(struct store *s, int64_t device_id, int64_t from_ms, int64_t to_ms,
		       size_t limit, struct throttle_event **ret, size_t *ret_n);

/** store_alert_insert() - Record @a (a->id ignored). Return: 0 with *ret_id, or negative errno. */
int store_alert_insert(struct store *s, const struct alert_row *a, int64_t *ret_id);

/** store_alert_update() - Rewrite alert a->id. Return: 0, -ENOENT, or negative errno. */
int store_alert_update(struct store *s, const struct alert_row *a);

/** store_alert_get() - Return: 0, -ENOENT, or negative errno. */
int store_alert_get(struct store *s, int64_t id, struct alert_row *ret);

/** store_alert_ack() - Set acked_ms (first time only). Return: 0, -ENOENT, or negative errno. */
int store_alert_ack(struct store *s, int64_t id, int64_t now_ms);

/**
 * store_alerts_list() - Firing alerts (all of them) when @firing_only, else the
 * newest @limit alerts of any state; newest first. Return: 0 or negative errno.
 */
int store_alerts_list(struct store *s, bool firing_only, size_t limit, struct alert_row **ret,
		      size_t *ret_n);

/**
 * store_alerts_latest() - The newest alert of every (device, rule), with
 * last_notified_ms filled: the state the alert engine restarts from.
 * Return: 0 or negative errno.
 */
int store_alerts_latest(struct store *s, struct alert_row **ret, size_t *ret_n);
