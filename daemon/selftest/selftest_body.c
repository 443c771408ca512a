/* SPDX-License-Identifier: MIT */
/*
 * The self-test endpoints' bodies parsed and checked (selftest_body.h). Pure:
 * no clock, no I/O, no logging; the messages are the 400s the API answers.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/dev/dev.h"
#include "nvmond/decode/selftest.h"
#include "nvmond/selftest/selftest_body.h"

/* The body's "origin": "cli" from `nvmond selftest`, else "api". */
static int origin_of(json_t *body, enum selftest_origin *ret)
{
	json_t *o = json_object_get(body, "origin");

	*ret = SELFTEST_ORIGIN_API;
	if (!o)
		return 0;
	if (!json_is_string(o))
		return -EINVAL;
	if (strcmp(json_string_value(o), "cli") == 0)
		*ret = SELFTEST_ORIGIN_CLI;
	else if (strcmp(json_string_value(o), "api") != 0)
		return -EINVAL;
	return 0;
}

int selftest_body_parse(const char *body, size_t len, bool abort, struct selftest_body *ret,
			char ret_err[API_ERR_MAX])
{
	struct selftest_body s = {.nsid = DEV_SELFTEST_NSID_ALL};
	json_error_t jerr;
	json_t *b, *nsid;
	const char *type;

	if (abort) {
		b = len ? json_loadb(body, len, 0, &jerr) : json_object();
		if (!b || !json_is_object(b) || origin_of(b, &s.origin) < 0) {
			json_decref(b);
			snprintf(ret_err, API_ERR_MAX,
				 "body: none, or a JSON object {\"origin\": \"api\" or \"cli\"}");
			return -EINVAL;
		}
		json_decref(b);
		s.stc = SELFTEST_CODE_ABORT;
		*ret = s;
		return 0;
	}
	b = json_loadb(body, len, 0, &jerr);
	if (!b || !json_is_object(b)) {
		json_decref(b);
		snprintf(ret_err, API_ERR_MAX,
			 "body: a JSON object {\"type\": \"short\" or \"extended\"}");
		return -EINVAL;
	}
	type = json_string_value(json_object_get(b, "type"));
	nsid = json_object_get(b, "nsid");
	if (type && strcmp(type, "short") == 0)
		s.stc = SELFTEST_CODE_SHORT;
	else if (type && strcmp(type, "extended") == 0)
		s.stc = SELFTEST_CODE_EXTENDED;
	if (!s.stc || origin_of(b, &s.origin) < 0 ||
	    (nsid && (!json_is_integer(nsid) || json_integer_value(nsid) < 1 ||
		      json_integer_value(nsid) > DEV_SELFTEST_NSID_ALL))) {
		json_decref(b);
		snprintf(ret_err, API_ERR_MAX,
			 "type: \"short\" or \"extended\"; nsid (optional): 1 to "
			 "4294967295 (the controller, the default); origin "
			 "(optional): \"api\" or \"cli\"");
		return -EINVAL;
	}
	if (nsid)
		s.nsid = (uint32_t)json_integer_value(nsid);
	json_decref(b);
	*ret = s;
	return 0;
}
