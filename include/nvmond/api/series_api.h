/* SPDX-License-Identifier: MIT */
#pragma once

#include "nvmond/api/api.h"
#include "nvmond/store/store_rollup.h"

struct series_cache;

struct series_api {
	const struct store_rollup_cfg *rollup; /* the retention: what is kept at which resolution */
	struct series_cache *cache;	       /* closed hourly buckets; NULL = none */
};

/**
 * series_endpoint() - GET /api/v1/devices/{id}/series?from=&to=&points=|step=,
 * reading what the retention in @a keeps, through its cache; @a outlives the api.
 */
struct api_endpoint series_endpoint(const struct series_api *a);
