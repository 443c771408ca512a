/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "nvmond/dev/dev.h"
#include "nvmond/decode/sample.h"

/**
 * devrow_from_scan() - The device row (identity, name, namespaces as a JSON
 * array) of a controller backend @b's scan found, online and seen at @now_ms,
 * simulated when @b has DEV_CAP_SIMULATED. No id: the store assigns it. Shared
 * by the poller, `nvmond status` and the demo's backfill.
 */
void devrow_from_scan(const struct dev_backend *b, const struct dev_info *info, int64_t now_ms,
		      struct device_row *ret);
