/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "nvmond/analysis/alert.h"
#include "nvmond/decode/selftest.h"

/*
 * The self-test alert rules (pure):
 * - selftest_failed (critical): the newest result of a type (short or
 *   extended) is a failure: fatal error (5h), an unknown segment failed (6h)
 *   or segment N failed (7h). A later passing test of that type resolves it;
 *   a passing short test does not clear a failed extended one.
 * - selftest_aborted (info): the newest result of any type is an abort that
 *   nvmond did not send (reset, format, sanitize, namespace removal, unknown,
 *   or a Device Self-test abort from another tool), seen in the last
 *   SELFTEST_ALERT_ABORT_SHOW_MS. Aborts by nvmond (its schedule, the API or
 *   the CLI: the operator) never alert.
 */
#define SELFTEST_ALERT_ABORT_SHOW_MS (24 * 3600 * 1000LL)

struct selftest_alert_input {
	/* The newest stored result of each type (0 short, 1 extended); NULL none. */
	const struct selftest_result *last[2];
	/* The newest result of any type, when nvmond first read it; NULL none. */
	const struct selftest_result *newest;
	int64_t newest_seen_ms;
	bool newest_aborted_by_nvmond; /* nvmond sent the abort that ended it */
	int64_t now_ms;
};

/** selftest_result_failed() - Whether @r is a failure (5h, 6h, 7h). */
bool selftest_result_failed(const struct selftest_result *r);

/** selftest_result_aborted() - Whether @r is an abort (1h-4h, 8h, 9h). */
bool selftest_result_aborted(const struct selftest_result *r);

/**
 * selftest_alert_conditions() - Evaluate selftest_failed and selftest_aborted;
 * every other rule is left unknown. Disabled rules are known and inactive.
 */
void selftest_alert_conditions(const struct alert_cfg *c, const struct selftest_alert_input *in,
			       struct alert_cond ret[_ALERT_RULE_MAX]);

/**
 * selftest_result_describe() - "segment 3 failed, first failing LBA 123456 in
 * namespace 1: Unrecovered Read Error" and the like, from the fields the
 * valid-information flags mark. Return: @buf.
 */
char *selftest_result_describe(const struct selftest_result *r, char *buf, size_t len);
