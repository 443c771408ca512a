/* SPDX-License-Identifier: MIT */
/* JSON of device self-test results (jansson only). */
#include <stddef.h>

#include "nvmond/analysis/selftest_alert.h"
#include "nvmond/api/render.h"
#include "nvmond/api/selftest_render.h"
#include "nvmond/util/timefmt.h"

json_t *render_selftest_result(const struct selftest_result *r, int64_t id, int64_t seen_ms,
			       const char *origin)
{
	static const struct {
		uint8_t bit;
		const char *name;
	} flags[] = {{SELFTEST_VALID_NSID, "nsid"},
		     {SELFTEST_VALID_FLBA, "lba"},
		     {SELFTEST_VALID_SCT, "sct"},
		     {SELFTEST_VALID_SC, "sc"}};
	char ts[TIMEFMT_MAX];
	json_t *valid = json_array();

	if (!valid)
		return NULL;
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if ((r->valid & flags[i].bit) &&
		    json_array_append_new(valid, json_string(flags[i].name)) < 0) {
			json_decref(valid);
			return NULL;
		}
	/* "o" steals even a NULL (ENOMEM): json_pack then fails and frees the rest. */
	return json_pack(
		"{s:I, s:s, s:i, s:s, s:i, s:b, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s, "
		"s:I}",
		"id", (json_int_t)id, "type", selftest_code_name(r->code), "code", r->code,
		"result", selftest_result_name(r->result), "result_code", r->result, "passed",
		r->result == SELFTEST_RES_NO_ERROR, "failed", selftest_result_failed(r), "segment",
		r->result == SELFTEST_RES_SEGMENT_FAILED ? json_integer(r->segment) : json_null(),
		"valid", valid, "nsid",
		r->valid & SELFTEST_VALID_NSID ? json_integer(r->nsid) : json_null(), "lba",
		r->valid & SELFTEST_VALID_FLBA ? render_u128((u128)r->lba) : json_null(), "sct",
		r->valid & SELFTEST_VALID_SCT ? json_integer(r->sct) : json_null(), "sc",
		r->valid & SELFTEST_VALID_SC ? json_integer(r->sc) : json_null(), "poh",
		render_u128((u128)r->poh), "origin",
		origin && origin[0] ? json_string(origin) : json_null(), "seen",
		timefmt_rfc3339(seen_ms, ts), "seen_ms", (json_int_t)seen_ms);
}
