/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "nvmond/dev/dev.h"
#include "nvmond/decode/sample.h"

/**
 * devrow_from_info() - The device row (identity, name, namespaces as a JSON
 * array) of a controller a scan found, online and seen at @now_ms. No id: the
 * store assigns it. Shared by the poller and `nvmond status`.
 */
void devrow_from_info(const struct dev_info *info, int64_t now_ms, struct device_row *ret);

/**
 * devrow_from_scan() - devrow_from_info() of a controller backend @b found:
 * simulated when @b has DEV_CAP_SIMULATED.
 */
void devrow_from_scan(const struct dev_backend *b, const struct dev_info *info, int64_t now_ms,
		      struct device_row *ret);
