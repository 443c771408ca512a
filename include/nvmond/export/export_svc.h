/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include "nvmond/api/api.h"
#include "nvmond/core/cfg.h"
#include "nvmond/metrics/metrics.h"

/*
 * Remote write (issue 24 §2): each [export "NAME"] of type remote_write pushes
 * this host's series to a Prometheus Remote-Write 1.0 receiver (Prometheus,
 * VictoriaMetrics, Mimir, Thanos) from a thread of its own, with libcurl:
 *
 *  - the live part every `interval`: what /metrics serves but the families a
 *    stored sample makes (metrics_collect() with omit_stored), stamped with the
 *    push time, with staleness markers for series gone since the last push;
 *  - the stored part: every stored health sample from the export's cursor on
 *    (a cursor per drive in the database), with its own timestamp, oldest first,
 *    in bounded batches, between live pushes; after an outage or a restart it
 *    catches up within the raw retention.
 *
 * Threads: one per export (never the main loop's: a dead or hung engine costs
 * polling, the API and the other exports nothing); each reads the store through
 * its own read-only handle; its cursors are written on the main loop. A round
 * follows the poll that ends nearest its tick (rw_round.h): in that poll's
 * wakeup the loop takes the live part's share of it and records the cursors
 * (export_svc_round()), so that an idle daemon wakes once per poll for both; a
 * round with no poll near goes at its own time and asks the loop through
 * mainq_call(). Its counters sit behind its mutex (export_svc_stats()).
 *
 *   GET /api/v1/exports
 */
struct export_svc;
struct fleet;
struct mainq;
struct store;

/**
 * export_check() - Check the [export "NAME"] sections of @c as export_svc_new()
 * would take them (type, url, durations, the token and password files, the CA
 * file). Return: 0, or -EINVAL / -ENOMEM with "FILE:LINE: message" in @err.
 */
int export_check(const struct cfg *c, char *err, size_t errsize);

/**
 * export_svc_new() - Start a thread for each export of @c. @writer is the main
 * loop's store handle (borrowed, used there only); @metrics is /metrics' source
 * (borrowed: the live part is what it serves), whose export_stats and export_ctx
 * it sets before any thread starts, so /metrics shows the exports' counters.
 * Return: 0, or negative errno with @err filled (-EINVAL: the configuration).
 */
int export_svc_new(const struct cfg *c, struct fleet *fleet, struct mainq *q, struct store *writer,
		   struct metrics_source *metrics, struct export_svc **ret, char *err,
		   size_t errsize);

/**
 * export_svc_reconfigure() - A reload, on the main loop: exports no longer
 * configured stop (their thread is joined at export_svc_free()), new ones
 * start, the others take the new settings at their next round, keeping their
 * cursors and counters. Return: 0, or negative errno with @err filled (nothing
 * changed).
 */
int export_svc_reconfigure(struct export_svc *e, const struct cfg *c, char *err, size_t errsize);

/**
 * export_svc_round() - poller_listener.on_round, on the main loop, at the end
 * of each poll round: the cursors the exports moved since, recorded; the
 * live part's share of the counters taken for each export whose round is due
 * (within its window: rw_round.h), which then goes.
 */
void export_svc_round(void *ctx);

/** export_svc_stats() - metrics_source.export_stats: copies of each export's counters. */
size_t export_svc_stats(void *ctx, struct metrics_export *ret, size_t max);

/** export_svc_endpoints() - GET /api/v1/exports. Return: the table, valid while @e lives. */
const struct api_endpoint *export_svc_endpoints(struct export_svc *e, size_t *ret_n);

/**
 * export_svc_free() - Stop every export and join its thread (a request in
 * flight is aborted). Call it after mainq_shutdown() and before mainq_free().
 * Accepts NULL. Return: NULL.
 */
struct export_svc *export_svc_free(struct export_svc *e);
