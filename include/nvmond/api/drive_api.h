/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "nvmond/api/api_route.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/store/store_drive.h"

/*
 * What a drive knows beyond its health log, in the API (issue 27): the device
 * object's "ocp", "power", "thermal_management", "namespace_usage",
 * "event_log" and "risk"; GET …/power (the power-state timeline), …/ocp
 * (C0h over time: write amplification, bad blocks) and …/risk (the verdict,
 * its rules and history); the Persistent Event Log's entries as events of the
 * drive's timeline (…/events, in alert_http.c).
 */

#define DRIVE_API_LIMIT_MAX 100000

/**
 * render_drive_fields_add() - Add the issue 27 fields of @d to the device
 * object @o (see docs/api.md). Return: 0 or -ENOMEM.
 */
int render_drive_fields_add(json_t *o, const struct fleet_device *d);

/** render_risk() - The risk verdict @v with its reasons, or null before the first. New reference. */
json_t *render_risk(const struct risk_verdict *v);

/**
 * render_pel_event() - A Persistent Event Log entry as an event of the
 * timeline: {"id", "source": "pel", "kind", "start", "end": null, "ongoing":
 * false, "late", "time_known", "read", "summary", "detail"}. New reference.
 */
json_t *render_pel_event(const struct store_pel_row *e);

/*
 * The kinds a …/events query may name (?kind=a,b): the throttle kinds and the
 * event log's (pel_type_name()). Up to DRIVE_KINDS_MAX.
 */
#define DRIVE_KINDS_MAX 32
struct drive_kinds {
	bool all;			      /* no ?kind: everything */
	bool throttle[8];		      /* by enum throttle_kind */
	const char *pel[DRIVE_KINDS_MAX + 1]; /* NULL-terminated; static names */
	size_t n_pel;
};

/**
 * drive_kinds_parse() - @list ("thermal_excursion,light"; NULL: every kind).
 * Return: 0, or -EINVAL with "unknown event kind 'x' (known: …)" in @ret_err.
 */
int drive_kinds_parse(const char *list, struct drive_kinds *ret, char *ret_err, size_t err_len);

/** drive_power_endpoint() - GET /api/v1/devices/{id}/power. */
struct api_endpoint drive_power_endpoint(void);

/** drive_ocp_endpoint() - GET /api/v1/devices/{id}/ocp. */
struct api_endpoint drive_ocp_endpoint(void);

/** drive_risk_endpoint() - GET /api/v1/devices/{id}/risk. */
struct api_endpoint drive_risk_endpoint(void);
