/* SPDX-License-Identifier: MIT */
#pragma once

#include <jansson.h>

#include "nvmond/analysis/series.h"

/**
 * series_render() - The columnar JSON a chart library takes: "t" (unix seconds),
 * "temp_c" {min, avg, max}, "sensors" (only those reported), counters. Values
 * not reported are null. Return: a new reference, NULL on ENOMEM.
 */
json_t *series_render(int64_t device_id, const struct series_query *q, const struct series_row *v,
		      size_t n);
