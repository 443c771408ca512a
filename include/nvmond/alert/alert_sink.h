/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/*
 * Where notifications go besides the journal: an exec hook (like smartd's
 * -M exec: fields in NVMOND_* environment variables, the JSON on stdin, killed
 * after a timeout) and a webhook (JSON POST with libcurl, timeout, retries with
 * backoff). Each runs in its own thread behind a bounded queue: sending never
 * blocks the caller, and a dead hook or webhook costs at most the queue.
 */
struct alert_note {
	int64_t alert_id; /* 0 for a test notification */
	int64_t device_id;
	char device[64]; /* controller name, "nvme0" */
	char model[41];
	char serial[21];
	char rule[48];
	char severity[16];
	char state[16]; /* "firing", "escalated", "resolved", "test" */
	char message[160];
	int64_t started_ms;
	int64_t resolved_ms; /* 0 unless resolved */
	int64_t ts_ms;	     /* when this notification was made */
	int64_t note_id;     /* its row in the outbox (notification_id); 0 = not kept */
};

/* The sinks, as bits of a mask (the outbox's pending column). */
enum { ALERT_SINK_EXEC = 1u << 0, ALERT_SINK_WEBHOOK = 1u << 1 };

/*
 * Called on a sink's thread once it is done with a kept notification (@note_id
 * != 0): delivered, or given up after its attempts. Must not block.
 */
typedef void (*alert_sink_done_fn)(void *ctx, unsigned sink, int64_t note_id);

struct alert_sink_cfg {
	const char *exec_path; /* NULL or "": no exec hook */
	int64_t exec_timeout_ms;
	uint32_t exec_queue;
	const char *webhook_url; /* NULL or "": no webhook */
	int64_t webhook_timeout_ms;
	uint32_t webhook_queue;	      /* notifications waiting; more are dropped and counted */
	uint32_t webhook_attempts;    /* tries per notification, >= 1 */
	int64_t webhook_retry_min_ms; /* first backoff; doubles up to retry_max */
	int64_t webhook_retry_max_ms;
};

struct alert_sink_stats {
	bool enabled;
	uint64_t queued;    /* accepted into the queue */
	uint64_t delivered; /* hook exited 0 / webhook answered 2xx */
	uint64_t failed;    /* gave up (all attempts failed, hook failed or timed out) */
	uint64_t dropped;   /* refused: queue full */
	uint64_t retries;   /* webhook attempts after the first */
	size_t pending;	    /* in the queue now (not counting one in flight) */
	char last_error[160];
};

struct alert_sinks;

/** alert_sinks_new() - Start the sink threads @c asks for. Return: 0 or negative errno. */
int alert_sinks_new(const struct alert_sink_cfg *c, struct alert_sinks **ret);

/**
 * alert_sinks_reconfigure() - Apply @c to running sinks (a reload): a sink
 * now configured starts, one no longer configured stops (what waits in its
 * queue is dropped and counted), the others take the new settings from their
 * next delivery on, keeping their queue and counters.
 * Return: 0 or negative errno (a sink may then be stopped; the rest stand).
 */
int alert_sinks_reconfigure(struct alert_sinks *s, const struct alert_sink_cfg *c);

/**
 * alert_sinks_free() - Stop the threads: whatever is still queued is dropped,
 * a running hook gets its timeout. Accepts NULL. Return: NULL.
 */
struct alert_sinks *alert_sinks_free(struct alert_sinks *s);

/**
 * alert_sinks_send() - Queue @n for every configured sink; never blocks.
 * Return: the number of sinks that accepted it.
 */
int alert_sinks_send(struct alert_sinks *s, const struct alert_note *n);

/**
 * alert_sinks_send_to() - As alert_sinks_send(), to the sinks of @mask only.
 * Return: the mask of the sinks that accepted it.
 */
unsigned alert_sinks_send_to(struct alert_sinks *s, const struct alert_note *n, unsigned mask);

/** alert_sinks_enabled() - The mask of the sinks configured now. */
unsigned alert_sinks_enabled(struct alert_sinks *s);

/** alert_sinks_on_done() - Call @fn(@ctx, …) when a sink is done with a kept note. */
void alert_sinks_on_done(struct alert_sinks *s, alert_sink_done_fn fn, void *ctx);

/** alert_sinks_stats() - Consistent copies of the counters. */
void alert_sinks_stats(struct alert_sinks *s, struct alert_sink_stats *ret_exec,
		       struct alert_sink_stats *ret_webhook);

/** alert_note_json() - The notification as JSON (the webhook body, the hook's stdin). Return: new reference or NULL. */
json_t *alert_note_json(const struct alert_note *n);
