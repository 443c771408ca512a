/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/analysis/series.h"

/**
 * series_render() - The columnar JSON a chart library takes: "t" (unix seconds),
 * "temp_c" {min, avg, max}, "sensors" (only those reported), counters. Values
 * not reported are null; counters beyond 2^63 - 1 are decimal strings. Compact,
 * as json_dumps(JSON_COMPACT) would print it.
 * Return: 0 with *ret (malloc()ed, NUL-terminated) and *ret_len (without the
 * NUL) set, or -ENOMEM.
 */
int series_render(int64_t device_id, const struct series_query *q, const struct series_row *v,
		  size_t n, char **ret, size_t *ret_len);
