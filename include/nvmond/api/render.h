/* SPDX-License-Identifier: MIT */
#pragma once

#include <jansson.h>

#include "nvmond/analysis/health.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/decode/sample.h"

/*
 * JSON views shared by the HTTP API and `nvmond status --json`, built with
 * jansson only. 128-bit counters are JSON integers when they fit in int64 and
 * decimal strings beyond that. Temperatures: "…_k" as reported, "…_c" in °C,
 * null when not reported.
 */

/** render_u128() - Return: a new reference (integer or decimal string), NULL on ENOMEM. */
json_t *render_u128(u128 v);

/** render_smart() - The decoded health log as an object. Return: new reference. */
json_t *render_smart(const struct smart_log *s);

/** render_sample() - {"ts": rfc3339, "ts_ms": …, …smart fields}. Return: new reference. */
json_t *render_sample(const struct sample *s);

/** render_device_row() - Identity fields of a device. Return: new reference. */
json_t *render_device_row(const struct device_row *row);

/**
 * render_link() - A PCIe link: {"current_speed_gts", "current_width",
 * "max_speed_gts", "max_width", "current_gen", "max_gen", "degraded", "text"}
 * (unknown parts null); null when nothing of it is known.
 * Return: new reference, NULL on ENOMEM.
 */
json_t *render_link(const struct nvme_pcie_link *l);

/**
 * render_health() - {"state": "ok"|"warning"|"critical"|"offline"|"unknown",
 * "why": ["reason", …]} (analysis/health.h).
 * Return: new reference, NULL on ENOMEM.
 */
json_t *render_health(const struct health_verdict *h);

/**
 * render_fleet_device() - Identity + "online" + the facts ("state", "asleep",
 * "source", "link", "firmware_pending", "firmware_changed") + "latest"
 * (sample or null) + "health" (render_health() of fleet_health()).
 */
json_t *render_fleet_device(const struct fleet_device *d);
