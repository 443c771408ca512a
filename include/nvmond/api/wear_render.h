/* SPDX-License-Identifier: MIT */
#pragma once

#include <jansson.h>

#include "nvmond/analysis/wear.h"

/** wear_render() - The report (and @daily, @days entries) as JSON. Return: new ref or NULL. */
json_t *wear_render(int64_t device_id, const struct wear_report *w, const u128 *daily, size_t days,
		    int64_t now_ms);
