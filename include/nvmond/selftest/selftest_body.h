/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The bodies of the self-test endpoints, parsed and checked (pure: JSON text in,
 * values or the 400 message out), shared by the handlers and the fuzz harness:
 *   POST /api/v1/devices/{id}/selftests        {"type": "short", "nsid": N, "origin": "api"}
 *   POST /api/v1/devices/{id}/selftests/abort  none, or {"origin": "api"}
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/api/api.h"
#include "nvmond/selftest/selftest_svc.h"

struct selftest_body {
	uint8_t stc;   /* SELFTEST_CODE_SHORT, _EXTENDED; _ABORT for an abort's body */
	uint32_t nsid; /* 1 … DEV_SELFTEST_NSID_ALL (the controller, the default) */
	enum selftest_origin origin; /* SELFTEST_ORIGIN_API (default) or SELFTEST_ORIGIN_CLI */
};

/**
 * selftest_body_parse() - The body of a start (@abort false) or an abort (@abort
 * true: an empty body is allowed, and only "origin" is read).
 * Return: 0 with @ret filled, or -EINVAL with @ret_err (the 400 message).
 */
int selftest_body_parse(const char *body, size_t len, bool abort, struct selftest_body *ret,
			char ret_err[API_ERR_MAX]);
