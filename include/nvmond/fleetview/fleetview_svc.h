/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/api/api.h"
#include "nvmond/core/cfg.h"

/*
 * The fleet page's service (issue 24): GET /api/v1/fleet, answered from a view of the
 * engine named by [fleet] query_url, refreshed on its own thread (libcurl, with a
 * hard deadline: [fleet] timeout for a whole refresh), never on the main loop.
 *
 * The view is kept for one [daemon] poll_interval (1 s at least): while someone asks
 * for it (a request within the last two intervals) the thread takes a new one every
 * interval, and stops asking the engine when nobody looks; it takes one at start.
 * A request never waits for the engine: it is answered at once from the view there
 * is, with its age (none yet: "updated" null, "refreshing" true), and a view an
 * interval old makes the thread take a new one. When a refresh fails the last good
 * view stays, with the error and since when. See docs/fleet.md.
 *
 * Threads: its refresh thread; the endpoint on HTTP threads; reconfigure and free on
 * the main thread. Everything shared is behind one mutex.
 */
struct fleetview_svc;

#define FLEETVIEW_ERR_MAX  512
#define FLEETVIEW_BODY_MAX (256u << 20) /* an engine's answer longer than this: an error */
#define FLEETVIEW_GONE_MAX 200		/* hosts looked up per refresh (fleetview_query_gone) */

/**
 * fleetview_check_query_url() - The check of [fleet] query_url for cfg_load_checked():
 * "" (no fleet page), or http:// or https:// with a host, and no query or fragment.
 * Return: 0, or -EINVAL with @err filled.
 */
int fleetview_check_query_url(const char *value, char *err, size_t errsize);

/**
 * fleetview_svc_new() - The service for @c ([fleet], [daemon] poll_interval): reads
 * bearer_token_file, checks tls_ca_file; starts its thread when query_url is set.
 * Return: 0; -EINVAL with @err ("[fleet] …: why") for a setting that cannot work;
 * negative errno.
 */
int fleetview_svc_new(const struct cfg *c, struct fleetview_svc **ret, char err[FLEETVIEW_ERR_MAX]);

/**
 * fleetview_svc_reconfigure() - Take the [fleet] settings of @c (SIGHUP). A view of
 * another engine is dropped. On failure the running settings stay.
 * Return: 0, or -EINVAL with @err.
 */
int fleetview_svc_reconfigure(struct fleetview_svc *s, const struct cfg *c,
			      char err[FLEETVIEW_ERR_MAX]);

/** fleetview_svc_endpoint() - GET /api/v1/fleet, served by @s. */
struct api_endpoint fleetview_svc_endpoint(struct fleetview_svc *s);

/** fleetview_svc_free() - Stop the thread (a transfer under way is cut) and free. Accepts NULL. Return: NULL. */
struct fleetview_svc *fleetview_svc_free(struct fleetview_svc *s);
