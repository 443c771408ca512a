/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "nvmond/core/cfg.h"

/*
 * Where notifications go besides the journal: named sinks ([sink "NAME"]
 * sections, and the [alerts] exec / webhook keys as the sinks "exec" and
 * "webhook"), each of a type (exec, webhook, ntfy, gotify, slack, discord,
 * telegram, alertmanager, email, mqtt). Each sink runs in its own thread behind a bounded
 * queue with retries and backoff: sending never blocks the caller, and a dead
 * destination costs at most its queue.
 */
struct alert_note {
	int64_t alert_id; /* 0 for a test notification */
	int64_t device_id;
	char device[64]; /* controller name, "nvme0" */
	char model[41];
	char serial[21];
	char label[CFG_DEVICE_TEXT_MAX];    /* [device] label (UTF-8), "" = none */
	char location[CFG_DEVICE_TEXT_MAX]; /* [device] location (UTF-8), "" = none */
	char host[CFG_HOST_NAME_MAX];	    /* [daemon] host_name of the daemon that sent it */
	char rule[48];
	char severity[16];
	char state[16]; /* "firing", "escalated", "resolved", "test" */
	char message[160];
	int64_t started_ms;
	int64_t resolved_ms; /* 0 unless resolved */
	int64_t ts_ms;	     /* when this notification was made */
	int64_t note_id;     /* its row in the outbox (notification_id); 0 = not kept */
};

/*
 * Called on a sink's thread once it is done with a kept notification (@note_id
 * != 0): delivered, or given up after its attempts. Must not block.
 */
typedef void (*alert_sink_done_fn)(void *ctx, const char *sink, int64_t note_id);

#define ALERT_SINKS_MAX (CFG_MAX_SINKS + 2)

struct alert_sink_stats {
	char name[CFG_SINK_NAME_MAX];
	char type[16];
	bool enabled;
	uint64_t queued;    /* accepted into the queue */
	uint64_t delivered; /* hook exited 0 / the server answered 2xx */
	uint64_t failed;    /* gave up (all attempts failed, hook failed or timed out) */
	uint64_t dropped;   /* refused: queue full, or still queued when the sink stopped */
	uint64_t retries;   /* attempts after the first */
	uint64_t resent;    /* firing alerts sent again (Alertmanager) */
	size_t pending;	    /* in the queue now (not counting one in flight) */
	char last_error[160];
};

struct alert_sinks;

/**
 * alert_sinks_check() - Check the sinks @c asks for, as alert_sinks_new() would
 * take them (types, keys, secrets files). Return: 0, or negative errno with
 * "FILE:LINE: message" in @err.
 */
int alert_sinks_check(const struct cfg *c, char *err, size_t errsize);

/** alert_sinks_new() - Start the sinks @c asks for. Return: 0 or negative errno (@err filled). */
int alert_sinks_new(const struct cfg *c, struct alert_sinks **ret, char *err, size_t errsize);

/**
 * alert_sinks_reconfigure() - Apply @c to running sinks (a reload): a sink
 * now configured starts, one no longer configured stops (what waits in its
 * queue is dropped), the others take the new settings from their next
 * delivery on, keeping their queue and counters. A configuration with an
 * error changes nothing.
 * Return: 0 or negative errno (@err filled).
 */
int alert_sinks_reconfigure(struct alert_sinks *s, const struct cfg *c, char *err, size_t errsize);

/**
 * alert_sinks_free() - Stop the threads: whatever is still queued is dropped,
 * a running hook gets its timeout. Accepts NULL. Return: NULL.
 */
struct alert_sinks *alert_sinks_free(struct alert_sinks *s);

/**
 * alert_sinks_send() - Queue @n for every sink whose filters let it through
 * (a test notification: every sink); never blocks.
 * Return: the number of sinks that accepted it.
 */
int alert_sinks_send(struct alert_sinks *s, const struct alert_note *n);

/**
 * alert_sinks_send_to() - Queue @n for the sink @name only, past its filters.
 * Return: 0, -ENOENT (no such sink) or -ENOBUFS (its queue is full).
 */
int alert_sinks_send_to(struct alert_sinks *s, const char *name, const struct alert_note *n);

/**
 * alert_sinks_seed() - Tell the sinks that resend firing alerts (Alertmanager)
 * about @n, an alert already firing when the daemon starts: it is sent again
 * at the next resend, not as a new notification.
 */
void alert_sinks_seed(struct alert_sinks *s, const struct alert_note *n);

struct mqtt_drive_state;

/**
 * alert_sinks_states() - Hand the latest states of all @n drives to the sinks
 * that publish them (mqtt), and keep a copy for a sink that starts later (a
 * reload). Copies and returns: never waits on the network.
 */
void alert_sinks_states(struct alert_sinks *s, const struct mqtt_drive_state *d, size_t n);

/**
 * alert_sinks_targets() - The names of the sinks whose filters let @n through
 * (the ones alert_sinks_send() would queue it for). Return: how many.
 */
size_t alert_sinks_targets(struct alert_sinks *s, const struct alert_note *n,
			   char ret[ALERT_SINKS_MAX][CFG_SINK_NAME_MAX]);

/** alert_sinks_has() - Whether a sink named @name runs now. */
bool alert_sinks_has(struct alert_sinks *s, const char *name);

/** alert_sinks_on_done() - Call @fn(@ctx, …) when a sink is done with a kept note. */
void alert_sinks_on_done(struct alert_sinks *s, alert_sink_done_fn fn, void *ctx);

/** alert_sinks_stats() - Copies of the counters of each sink, in configuration order. Return: how many. */
size_t alert_sinks_stats(struct alert_sinks *s, struct alert_sink_stats ret[ALERT_SINKS_MAX]);

/**
 * alert_note_drive() - "nvme0 \"bay 3 – scratch\" at rack 12 U4 slot 3 (Samsung SSD
 * 950 PRO 512GB, serial S2GM…)": the drive as every notification names it, its
 * label and location when set. Return: @buf.
 */
char *alert_note_drive(const struct alert_note *n, char *buf, size_t size);

/** alert_note_json() - The notification as JSON (the webhook body, the hook's stdin). Return: new reference or NULL. */
json_t *alert_note_json(const struct alert_note *n);
