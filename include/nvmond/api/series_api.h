/* SPDX-License-Identifier: MIT */
#pragma once

#include "nvmond/api/api.h"
#include "nvmond/store/store_rollup.h"

/**
 * series_endpoint() - GET /api/v1/devices/{id}/series?from=&to=&points=|step=,
 * reading what the retention in @c keeps; @c outlives the api.
 */
struct api_endpoint series_endpoint(const struct store_rollup_cfg *c);
