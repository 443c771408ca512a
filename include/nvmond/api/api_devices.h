/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include "nvmond/api/api.h"

/**
 * api_devices_endpoints() - The core endpoints, for api_config.endpoints:
 * GET /healthz, /api/v1/devices, /api/v1/devices/{id} and
 * /api/v1/devices/{id}/samples?from=&to=&limit= (streamed) and
 * /api/v1/devices/{id}/errors?from=&to=&limit= (errors_api.h).
 * Return: a constant table of *ret_n endpoints.
 */
const struct api_endpoint *api_devices_endpoints(size_t *ret_n);
