/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include "nvmond/analysis/alert.h"
#include "nvmond/alert/alert_sink.h"
#include "nvmond/api/api.h"
#include "nvmond/core/cfg.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/core/mainq.h"
#include "nvmond/monitor/poller.h"
#include "nvmond/store/store.h"

/*
 * Throttle events and alerts in the daemon: listens to the poller on the main
 * loop, runs the detector and the alert rules per device, keeps both in the
 * store, sends notifications (journal, exec hook, webhook), and serves
 *   GET  /api/v1/devices/{id}/events   GET  /api/v1/alerts
 *   POST /api/v1/alerts/{id}/ack       POST /api/v1/alerts/test
 */
struct alert_svc;

#define ALERT_SVC_N_ENDPOINTS 4

/**
 * alert_svc_new() - Load the alert state from @s (the writer handle, borrowed)
 * and start the sinks. Return: 0, or negative errno with @ret_err filled.
 */
int alert_svc_new(const struct cfg *c, struct store *s, struct fleet *f, struct mainq *q,
		  struct alert_svc **ret, char ret_err[256]);

struct loop;

/**
 * alert_svc_attach() - Listen to @p's samples and online changes. The drives'
 * states go to the sinks that publish them once per poll, from a timer on @l
 * (the poller's loop; NULL: after each sample). Return: 0 or negative errno.
 */
int alert_svc_attach(struct alert_svc *a, struct poller *p, struct loop *l);

/**
 * alert_svc_feed() - Conditions evaluated outside the sample path (the wear
 * rules) for @dev at @now, on the main loop; rules whose condition is not known
 * keep their state. Return: 0, -EAGAIN before the device's first sample (its
 * alert state is not loaded yet), or -ENOMEM.
 */
int alert_svc_feed(struct alert_svc *a, const struct device_row *dev,
		   const struct alert_cond conds[_ALERT_RULE_MAX], int64_t now_ms);

/** alert_svc_endpoints() - The API endpoints (ALERT_SVC_N_ENDPOINTS), valid while @a lives. */
const struct api_endpoint *alert_svc_endpoints(struct alert_svc *a, size_t *ret_n);

/**
 * alert_svc_reconfigure() - Apply reloaded rules, thresholds and sinks (exec
 * hook, webhook). A hook that cannot run or a webhook that is no URL leaves the
 * running sinks as they are (the rules still change).
 * Return: 0, or negative errno with the reason in @ret_err.
 */
int alert_svc_reconfigure(struct alert_svc *a, const struct cfg *c, char ret_err[256]);

/**
 * alert_svc_stop_sinks() - Stop the sink threads and record in the outbox what
 * they delivered; notifications still queued are sent at the next start. Call it
 * before the main queue is freed (the sinks wake the main loop through it).
 * Accepts NULL.
 */
void alert_svc_stop_sinks(struct alert_svc *a);

/** alert_svc_free() - Stop the sinks. Accepts NULL. Return: NULL. */
struct alert_svc *alert_svc_free(struct alert_svc *a);

struct alert_sink_stats;

/** alert_svc_sink_stats() - Counters of each sink (GET /metrics). Return: how many. */
size_t alert_svc_sink_stats(struct alert_svc *a, struct alert_sink_stats ret[ALERT_SINKS_MAX]);
