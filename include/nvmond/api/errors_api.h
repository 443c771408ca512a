/* SPDX-License-Identifier: MIT */
#pragma once

#include <jansson.h>

#include "nvmond/api/api.h"
#include "nvmond/store/store_errlog.h"

#define ERRORS_LIMIT_DEFAULT 1000
#define ERRORS_LIMIT_MAX     100000

/**
 * render_errlog_row() - One stored error log entry as the API shows it: its
 * fields, the status named per the specification, its class and when nvmond
 * read it. Return: a new reference, NULL on ENOMEM.
 */
json_t *render_errlog_row(const struct errlog_row *r);

/**
 * render_error_counts() - {"benign": n, "media": n, "io": n, "other": n, "total": n}.
 * Return: a new reference, NULL on ENOMEM.
 */
json_t *render_error_counts(const uint64_t c[_ERRCLASS_MAX]);

/**
 * errors_get() - GET /api/v1/devices/{id}/errors?from=&to=&limit=: the entries
 * read in [from, to] (default: all, up to now), newest first, and the count of
 * each class among them (API_EP_STORE | API_EP_QUERY).
 */
void errors_get(void *ctx, const struct api_request *req, struct api_reply *ret);
