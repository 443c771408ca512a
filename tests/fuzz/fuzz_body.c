/* SPDX-License-Identifier: MIT */
/*
 * The POST bodies the API parses, with the parsers the handlers use: a probe's
 * start (probe_body_parse()), a group run's (probe_group_body_parse()), a
 * self-test's start and abort (selftest_body_parse()). The alerts' ack and test
 * take no body. Every input goes to each parser.
 * Rules: a body is taken with every value in its documented range, or refused
 * with a message.
 */
#include "fuzz.h"
#include "nvmond/dev/dev.h"
#include "nvmond/decode/selftest.h"
#include "nvmond/probe/probe_body.h"
#include "nvmond/probe/probe_series.h"
#include "nvmond/selftest/selftest_body.h"

#define DEVICE_ID 3

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The server hands handlers a NUL-terminated body and its length. */
	char *body = fuzz_strdup(data, size), err[API_ERR_MAX];
	struct probe_body p;
	struct probe_group_body g;
	struct selftest_body s;

	err[0] = '\0';
	if (probe_body_parse(body, size, DEVICE_ID, &p, err) == 0) {
		FUZZ_CHECK(probe_preset_get(p.preset) != NULL);
		FUZZ_CHECK(p.repeat >= 1 && p.repeat <= PROBE_REPEAT_MAX);
		FUZZ_CHECK(p.cooldown_ms >= 0 && p.cooldown_ms <= PROBE_COOLDOWN_MAX_MS);
		FUZZ_CHECK(p.to_device_id >= 0 && p.to_device_id != DEVICE_ID);
		FUZZ_CHECK(!probe_preset_get(p.preset)->copy_to == !p.to_device_id);
	} else {
		FUZZ_CHECK(err[0] != '\0');
	}
	err[0] = '\0';
	if (probe_group_body_parse(body, size, &g, err) == 0) {
		FUZZ_CHECK(g.n >= 2 && g.n <= PROBE_GROUP_MAX);
		FUZZ_CHECK(!probe_preset_get(g.preset)->study);
	} else {
		FUZZ_CHECK(err[0] != '\0');
	}
	for (int abort_ = 0; abort_ <= 1; abort_++) {
		err[0] = '\0';
		if (selftest_body_parse(body, size, abort_, &s, err) == 0) {
			FUZZ_CHECK(abort_ ? s.stc == SELFTEST_CODE_ABORT
					  : s.stc == SELFTEST_CODE_SHORT ||
						    s.stc == SELFTEST_CODE_EXTENDED);
			FUZZ_CHECK(s.nsid >= 1 && s.nsid <= DEV_SELFTEST_NSID_ALL);
			FUZZ_CHECK(s.origin == SELFTEST_ORIGIN_API ||
				   s.origin == SELFTEST_ORIGIN_CLI);
		} else {
			FUZZ_CHECK(err[0] != '\0');
		}
	}
	free(body);
	return 0;
}
