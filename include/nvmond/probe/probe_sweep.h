/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "nvmond/store/store_probe.h"

/*
 * The transfer-size sweep as its points: one per phase, by direction and
 * transfer size (the API's "sweep" and the CLI table).
 */

/**
 * probe_sweep_json() - {"depth": N, "read": [point…], "write": [point…]} of a
 * sweep's @n phases @ph; each point {"block_size", "mb_s", "iops",
 * "lat_p50_us", "lat_p99_us", "lat_p999_us", "lat_max_us", "elapsed_ms",
 * "stop"}, by growing transfer size.
 * Return: new reference, or NULL on ENOMEM.
 */
json_t *probe_sweep_json(const struct probe_phase_row *ph, size_t n);

/** probe_sweep_print() - One row per transfer size of a run detail's "sweep". */
void probe_sweep_print(FILE *out, const json_t *sweep);
