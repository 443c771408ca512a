/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include <jansson.h>

#include "nvmond/decode/selftest.h"

/*
 * JSON views of device self-tests (issue 12), shared by GET …/selftests and
 * `nvmond status --json`: one result, and why a drive takes no self-test.
 */

/* "unsupported_reason" while Identify is unknown, and when OACS bit 4 is 0. */
#define SELFTEST_WHY_UNKNOWN                                                                       \
	"nvmond has not read the drive's Identify data (asleep at the scan, or no permission for " \
	"admin commands)"
#define SELFTEST_WHY_UNSUPPORTED                                                                   \
	"the controller does not support the Device Self-test command (Identify Controller OACS "  \
	"bit 4 is 0)"

/**
 * render_selftest_result() - One stored result: {"id", "type", "code",
 * "result", "result_code", "passed", "failed", "segment", "valid", "nsid",
 * "lba", "sct", "sc", "poh", "seen", "seen_ms", "origin"} as docs/api.md
 * shows it; a field whose valid flag is clear is null.
 * @origin: who started the test; "" or NULL = not nvmond (origin null)
 * Return: new reference, NULL on ENOMEM.
 */
json_t *render_selftest_result(const struct selftest_result *r, int64_t id, int64_t seen_ms,
			       const char *origin);
