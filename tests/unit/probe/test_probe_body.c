/* SPDX-License-Identifier: MIT */
/*
 * The probe endpoints' bodies (probe_body.h), each rule as docs/api.md states it
 * for POST /api/v1/devices/{id}/probes and POST /api/v1/probes.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "nvmond/probe/probe_body.h"
#include "nvmond/probe/probe_series.h"

#define SELF 3

Test(probe_body, takes_what_docs_api_md_documents)
{
	const struct {
		const char *rule, *body;
		uint32_t repeat;
		int64_t cooldown_ms, to;
	} ok[] = {
		{"a preset alone: one run, the default cooldown", "{\"preset\": \"seq1m-q8\"}", 1,
		 PROBE_COOLDOWN_DEFAULT_MS, 0},
		{"repeat 1 … 10 with a cooldown of at most 1 h",
		 "{\"preset\": \"seq1m-q8\", \"repeat\": 3, \"cooldown\": \"30s\"}", 3, 30000, 0},
		{"repeat 10 and a cooldown of exactly 1 h",
		 "{\"preset\": \"rnd4k-q1\", \"repeat\": 10, \"cooldown\": \"1h\"}", 10, 3600000,
		 0},
		{"copy-to copies to another drive, \"to\"", "{\"preset\": \"copy-to\", \"to\": 5}",
		 1, PROBE_COOLDOWN_DEFAULT_MS, 5},
		{"cache-recovery is a study, without repeat", "{\"preset\": \"cache-recovery\"}", 1,
		 PROBE_COOLDOWN_DEFAULT_MS, 0},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct probe_body b;
		char err[API_ERR_MAX] = "";

		cr_expect_eq(probe_body_parse(ok[i].body, strlen(ok[i].body), SELF, &b, err), 0,
			     "%s: %s", ok[i].rule, err);
		cr_expect_eq(b.repeat, ok[i].repeat, "%s", ok[i].rule);
		cr_expect_eq(b.cooldown_ms, ok[i].cooldown_ms, "%s", ok[i].rule);
		cr_expect_eq(b.to_device_id, ok[i].to, "%s", ok[i].rule);
	}
}

Test(probe_body, refuses_with_the_rule_it_breaks)
{
	const struct {
		const char *rule, *body, *err;
	} bad[] = {
		{"a JSON object", "", "body: a JSON object"},
		{"a JSON object, not an array", "[\"seq1m-q8\"]", "body: a JSON object"},
		{"a JSON object, not text", "{\"preset\": \"seq1m-q8\"", "body: a JSON object"},
		{"a known preset", "{\"preset\": \"seq1m-q9\"}", "preset: one of"},
		{"repeat is 1 … 10", "{\"preset\": \"seq1m-q8\", \"repeat\": 11}", "repeat: "},
		{"repeat is 1 … 10, not 0", "{\"preset\": \"seq1m-q8\", \"repeat\": 0}",
		 "repeat: "},
		{"repeat is an integer", "{\"preset\": \"seq1m-q8\", \"repeat\": 2.0}", "repeat: "},
		{"a cooldown of at most 1 h", "{\"preset\": \"seq1m-q8\", \"cooldown\": \"61m\"}",
		 "cooldown: "},
		{"a cooldown that overflows is refused",
		 "{\"preset\": \"seq1m-q8\", \"cooldown\": \"9223372036854775807d\"}",
		 "cooldown: "},
		{"a study has no repeat", "{\"preset\": \"cache-recovery\", \"repeat\": 2}",
		 "cache-recovery is a study"},
		{"copy-to needs \"to\"", "{\"preset\": \"copy-to\"}", "copy-to: \"to\""},
		{"only copy-to takes \"to\"", "{\"preset\": \"copy-self\", \"to\": 5}",
		 "to: only copy-to"},
		{"\"to\" is another drive", "{\"preset\": \"copy-to\", \"to\": 3}", "to: the id"},
		{"\"to\" is a positive id", "{\"preset\": \"copy-to\", \"to\": -5}", "to: the id"},
		{"copy-to runs once", "{\"preset\": \"copy-to\", \"to\": 5, \"repeat\": 2}",
		 "to: the id"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct probe_body b = {.repeat = 42};
		char err[API_ERR_MAX] = "";

		cr_expect_eq(probe_body_parse(bad[i].body, strlen(bad[i].body), SELF, &b, err),
			     -EINVAL, "%s", bad[i].rule);
		cr_expect(strncmp(err, bad[i].err, strlen(bad[i].err)) == 0, "%s: '%s'",
			  bad[i].rule, err);
		cr_expect_eq(b.repeat, 42, "%s: nothing written", bad[i].rule);
	}
}

Test(probe_body, group_takes_2_to_8_drives_and_no_study)
{
	const struct {
		const char *rule, *body;
		int r;
	} cases[] = {
		{"two drives", "{\"preset\": \"seq1m-q8\", \"devices\": [1, 2]}", 0},
		{"eight drives", "{\"preset\": \"sweep\", \"devices\": [1, 2, 3, 4, 5, 6, 7, 8]}",
		 0},
		{"one drive is no group", "{\"preset\": \"seq1m-q8\", \"devices\": [1]}", -EINVAL},
		{"nine drives are too many",
		 "{\"preset\": \"seq1m-q8\", \"devices\": [1, 2, 3, 4, 5, 6, 7, 8, 9]}", -EINVAL},
		{"ids are integers", "{\"preset\": \"seq1m-q8\", \"devices\": [1, \"2\"]}",
		 -EINVAL},
		{"a group runs no study", "{\"preset\": \"cache-recovery\", \"devices\": [1, 2]}",
		 -EINVAL},
		{"a group runs once",
		 "{\"preset\": \"seq1m-q8\", \"devices\": [1, 2], \"repeat\": 2}", -EINVAL},
		{"a JSON object", "null", -EINVAL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct probe_group_body g;
		char err[API_ERR_MAX] = "";
		int r = probe_group_body_parse(cases[i].body, strlen(cases[i].body), &g, err);

		cr_expect_eq(r, cases[i].r, "%s: %s", cases[i].rule, err);
		if (r == 0)
			cr_expect_eq(g.device_id[g.n - 1], (int64_t)g.n, "%s", cases[i].rule);
		else
			cr_expect_neq(err[0], '\0', "%s: a message", cases[i].rule);
	}
}
