/* SPDX-License-Identifier: MIT */
/*
 * The self-test alert rules. See selftest_alert.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/analysis/selftest_alert.h"
#include "nvmond/decode/errlog.h"

bool selftest_result_failed(const struct selftest_result *r)
{
	return r->result == SELFTEST_RES_FATAL || r->result == SELFTEST_RES_UNKNOWN_SEGMENT ||
	       r->result == SELFTEST_RES_SEGMENT_FAILED;
}

bool selftest_result_aborted(const struct selftest_result *r)
{
	switch (r->result) {
	case SELFTEST_RES_ABORTED_CMD:
	case SELFTEST_RES_ABORTED_RESET:
	case SELFTEST_RES_ABORTED_NS_REMOVED:
	case SELFTEST_RES_ABORTED_FORMAT:
	case SELFTEST_RES_ABORTED_UNKNOWN:
	case SELFTEST_RES_ABORTED_SANITIZE:
		return true;
	default:
		return false;
	}
}

char *selftest_result_describe(const struct selftest_result *r, char *buf, size_t len)
{
	size_t o = 0;

#define APPEND(...)                                                                                \
	do {                                                                                       \
		int n_ = snprintf(buf + o, len - o, __VA_ARGS__);                                  \
		o = n_ < 0 ? o : (size_t)n_ >= len - o ? len - 1 : o + (size_t)n_;                 \
	} while (0)
	if (!len)
		return buf;
	buf[0] = '\0';
	if (r->result == SELFTEST_RES_SEGMENT_FAILED)
		APPEND("segment %u failed", r->segment);
	else
		APPEND("%s", selftest_result_name(r->result));
	if (r->valid & SELFTEST_VALID_FLBA)
		APPEND(", first failing LBA %" PRIu64, r->lba);
	if (r->valid & SELFTEST_VALID_NSID)
		APPEND(" in namespace %" PRIu32, r->nsid);
	if ((r->valid & SELFTEST_VALID_SCT) && (r->valid & SELFTEST_VALID_SC))
		APPEND(": %s", errlog_status_name(r->sct, r->sc));
#undef APPEND
	return buf;
}

static void set(struct alert_cond *c, bool active, enum alert_severity sev, const char *msg)
{
	*c = (struct alert_cond){.known = true, .active = active, .severity = sev};
	snprintf(c->message, sizeof(c->message), "%s", msg);
}

void selftest_alert_conditions(const struct alert_cfg *c, const struct selftest_alert_input *in,
			       struct alert_cond ret[_ALERT_RULE_MAX])
{
	static const char *const type[2] = {"short", "extended"};
	char msg[sizeof(ret[0].message)] = "", what[128];
	bool failed = false;

	for (int r = 0; r < _ALERT_RULE_MAX; r++)
		ret[r] = (struct alert_cond){.known = false};
	/* The extended test first: it names the failure when both failed. */
	for (int t = 1; t >= 0; t--) {
		const struct selftest_result *r = in->last[t];
		if (!r || !selftest_result_failed(r) || failed)
			continue;
		failed = true;
		snprintf(msg, sizeof(msg), "%s self-test failed: %s", type[t],
			 selftest_result_describe(r, what, sizeof(what)));
	}
	set(&ret[ALERT_SELFTEST_FAILED], failed, ALERT_SEV_CRITICAL, msg);

	const struct selftest_result *n = in->newest;
	bool aborted = n && selftest_result_aborted(n) && !in->newest_aborted_by_nvmond &&
		       in->now_ms - in->newest_seen_ms < SELFTEST_ALERT_ABORT_SHOW_MS;
	msg[0] = '\0';
	if (aborted)
		snprintf(msg, sizeof(msg), "%s self-test %s, not by nvmond",
			 selftest_code_name(n->code), selftest_result_name(n->result));
	set(&ret[ALERT_SELFTEST_ABORTED], aborted, ALERT_SEV_INFO, msg);
	for (int r = ALERT_SELFTEST_FAILED; r <= ALERT_SELFTEST_ABORTED; r++)
		if (!c->rule_on[r]) {
			ret[r].known = true;
			ret[r].active = false;
		}
}
