/* SPDX-License-Identifier: MIT */
#pragma once

#include "nvmond/api/api.h"

/* Rows of each history GET …/facts returns at most, newest first. */
#define FACTS_API_LIMIT 100

/**
 * facts_endpoint() - GET /api/v1/devices/{id}/facts: the drive's firmware
 * history (baseline and firmware_changed events) and PCIe link history from
 * the store, with its current link, state and source from the fleet.
 */
struct api_endpoint facts_endpoint(void);
