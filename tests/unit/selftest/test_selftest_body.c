/* SPDX-License-Identifier: MIT */
/*
 * The self-test endpoints' bodies (selftest_body.h), each rule as docs/api.md
 * states it for POST /api/v1/devices/{id}/selftests and …/selftests/abort.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "nvmond/dev/dev.h"
#include "nvmond/decode/selftest.h"
#include "nvmond/selftest/selftest_body.h"

Test(selftest_body, start_rules)
{
	const struct {
		const char *rule, *body;
		int r;
		uint8_t stc;
		uint32_t nsid;
		enum selftest_origin origin;
	} cases[] = {
		{"type short, the controller, from the API", "{\"type\": \"short\"}", 0,
		 SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API},
		{"type extended, nsid 1, from the CLI",
		 "{\"type\": \"extended\", \"nsid\": 1, \"origin\": \"cli\"}", 0,
		 SELFTEST_CODE_EXTENDED, 1, SELFTEST_ORIGIN_CLI},
		{"nsid 4294967295 is the controller", "{\"type\": \"short\", \"nsid\": 4294967295}",
		 0, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API},
		{"a type is needed", "{}", -EINVAL, 0, 0, 0},
		{"short or extended only", "{\"type\": \"abort\"}", -EINVAL, 0, 0, 0},
		{"nsid from 1", "{\"type\": \"short\", \"nsid\": 0}", -EINVAL, 0, 0, 0},
		{"nsid to 4294967295", "{\"type\": \"short\", \"nsid\": 4294967296}", -EINVAL, 0, 0,
		 0},
		{"origin api or cli", "{\"type\": \"short\", \"origin\": \"schedule\"}", -EINVAL, 0,
		 0, 0},
		{"a JSON object", "\"short\"", -EINVAL, 0, 0, 0},
		{"a body is needed", "", -EINVAL, 0, 0, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct selftest_body b;
		char err[API_ERR_MAX] = "";
		int r = selftest_body_parse(cases[i].body, strlen(cases[i].body), false, &b, err);

		cr_expect_eq(r, cases[i].r, "%s: %s", cases[i].rule, err);
		if (r == 0) {
			cr_expect_eq(b.stc, cases[i].stc, "%s", cases[i].rule);
			cr_expect_eq(b.nsid, cases[i].nsid, "%s", cases[i].rule);
			cr_expect_eq(b.origin, cases[i].origin, "%s", cases[i].rule);
		} else {
			cr_expect_neq(err[0], '\0', "%s: a message", cases[i].rule);
		}
	}
}

Test(selftest_body, abort_takes_no_body_or_an_origin)
{
	const struct {
		const char *rule, *body;
		int r;
		enum selftest_origin origin;
	} cases[] = {
		{"no body", "", 0, SELFTEST_ORIGIN_API},
		{"an empty object", "{}", 0, SELFTEST_ORIGIN_API},
		{"origin cli", "{\"origin\": \"cli\"}", 0, SELFTEST_ORIGIN_CLI},
		{"origin api or cli only", "{\"origin\": 1}", -EINVAL, 0},
		{"a JSON object", "[]", -EINVAL, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct selftest_body b;
		char err[API_ERR_MAX] = "";
		int r = selftest_body_parse(cases[i].body, strlen(cases[i].body), true, &b, err);

		cr_expect_eq(r, cases[i].r, "%s: %s", cases[i].rule, err);
		if (r == 0) {
			cr_expect_eq(b.stc, SELFTEST_CODE_ABORT, "%s", cases[i].rule);
			cr_expect_eq(b.nsid, DEV_SELFTEST_NSID_ALL, "%s", cases[i].rule);
			cr_expect_eq(b.origin, cases[i].origin, "%s", cases[i].rule);
		}
	}
}
