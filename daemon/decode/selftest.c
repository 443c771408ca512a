/* SPDX-License-Identifier: MIT */
/* The Device Self-test log (06h) and the statuses of the command and the log. Pure: see selftest.h. */
#include <errno.h>
#include <string.h>

#include "nvmond/decode/selftest.h"
#include "nvmond/util/le.h"

_Static_assert(SELFTEST_LOG_SIZE == 564, "Device Self-test log is 564 bytes");

/* Byte offsets (NVMe Base 2.0, Figure 258: the log; Figure 259: one result). */
enum {
	OFF_CURRENT = 0, /* bits 3:0 */
	OFF_PERCENT = 1, /* bits 6:0 */
	OFF_RESULTS = 4,
	R_CODE_RESULT = 0, /* code bits 7:4, result bits 3:0 */
	R_SEGMENT = 1,
	R_VALID = 2, /* bits 3:0 */
	R_POH = 4,   /* 8 bytes */
	R_NSID = 12, /* 4 bytes */
	R_FLBA = 16, /* 8 bytes */
	R_SCT = 24,  /* bits 2:0 */
	R_SC = 25,
	R_VENDOR = 26, /* 2 bytes */
};

static void decode_result(const uint8_t *p, struct selftest_result *ret)
{
	*ret = (struct selftest_result){
		.code = p[R_CODE_RESULT] >> 4,
		.result = p[R_CODE_RESULT] & 0x0f,
		.segment = p[R_SEGMENT],
		.valid = p[R_VALID] & 0x0f,
		.poh = le_get(p + R_POH, 8),
		.nsid = (uint32_t)le_get(p + R_NSID, 4),
		.lba = le_get(p + R_FLBA, 8),
		.sct = p[R_SCT] & 0x07,
		.sc = p[R_SC],
		.vendor = (uint16_t)le_get(p + R_VENDOR, 2),
	};
}

int selftest_decode(const uint8_t *page, size_t len, struct selftest_log *ret)
{
	if (len < SELFTEST_LOG_SIZE)
		return -EINVAL;
	ret->current = page[OFF_CURRENT] & 0x0f;
	ret->percent = page[OFF_PERCENT] & 0x7f;
	for (size_t i = 0; i < SELFTEST_RESULTS; i++)
		decode_result(page + OFF_RESULTS + i * SELFTEST_RESULT_SIZE, &ret->r[i]);
	return 0;
}

void selftest_encode(const struct selftest_log *log, uint8_t raw[SELFTEST_LOG_SIZE])
{
	memset(raw, 0, SELFTEST_LOG_SIZE);
	raw[OFF_CURRENT] = log->current & 0x0f;
	raw[OFF_PERCENT] = log->percent & 0x7f;
	for (size_t i = 0; i < SELFTEST_RESULTS; i++) {
		const struct selftest_result *r = &log->r[i];
		uint8_t *p = raw + OFF_RESULTS + i * SELFTEST_RESULT_SIZE;

		p[R_CODE_RESULT] = (uint8_t)((r->code & 0x0f) << 4 | (r->result & 0x0f));
		p[R_SEGMENT] = r->segment;
		p[R_VALID] = r->valid & 0x0f;
		le_put(p + R_POH, r->poh, 8);
		le_put(p + R_NSID, r->nsid, 4);
		le_put(p + R_FLBA, r->lba, 8);
		p[R_SCT] = r->sct & 0x07;
		p[R_SC] = r->sc;
		le_put(p + R_VENDOR, r->vendor, 2);
	}
}

bool selftest_result_used(const struct selftest_result *r)
{
	return r->result != SELFTEST_RES_UNUSED;
}

const char *selftest_result_name(uint8_t result)
{
	static const char *const names[] = {
		[SELFTEST_RES_NO_ERROR] = "no error",
		[SELFTEST_RES_ABORTED_CMD] = "aborted by a Device Self-test command",
		[SELFTEST_RES_ABORTED_RESET] = "aborted by a controller level reset",
		[SELFTEST_RES_ABORTED_NS_REMOVED] = "aborted by a namespace removal",
		[SELFTEST_RES_ABORTED_FORMAT] = "aborted by a Format NVM command",
		[SELFTEST_RES_FATAL] = "fatal error or unknown test error",
		[SELFTEST_RES_UNKNOWN_SEGMENT] =
			"completed with a failed segment, which is not known",
		[SELFTEST_RES_SEGMENT_FAILED] = "completed with one or more failed segments",
		[SELFTEST_RES_ABORTED_UNKNOWN] = "aborted for an unknown reason",
		[SELFTEST_RES_ABORTED_SANITIZE] = "aborted by a sanitize operation",
		[SELFTEST_RES_UNUSED] = "entry not used",
	};

	if (result < sizeof(names) / sizeof(names[0]) && names[result])
		return names[result];
	return "reserved";
}

bool selftest_code_sendable(uint8_t stc)
{
	return stc == SELFTEST_CODE_SHORT || stc == SELFTEST_CODE_EXTENDED ||
	       stc == SELFTEST_CODE_ABORT;
}

const char *selftest_code_name(uint8_t code)
{
	switch (code) {
	case SELFTEST_CODE_NONE:
		return "none";
	case SELFTEST_CODE_SHORT:
		return "short";
	case SELFTEST_CODE_EXTENDED:
		return "extended";
	case SELFTEST_CODE_VENDOR:
		return "vendor specific";
	case SELFTEST_CODE_ABORT:
		return "abort";
	default:
		return "reserved";
	}
}

void selftest_key_of(const struct selftest_result *r, struct selftest_key *ret)
{
	*ret = (struct selftest_key){
		.poh = r->poh,
		.lba = r->lba,
		.nsid = r->nsid,
		.code = r->code,
		.result = r->result,
		.segment = r->segment,
		.sct = r->sct,
		.sc = r->sc,
	};
}

bool selftest_key_eq(const struct selftest_key *a, const struct selftest_key *b)
{
	return a->poh == b->poh && a->lba == b->lba && a->nsid == b->nsid && a->code == b->code &&
	       a->result == b->result && a->segment == b->segment && a->sct == b->sct &&
	       a->sc == b->sc;
}

size_t selftest_log_keys(const struct selftest_log *log, struct selftest_key ret[SELFTEST_RESULTS])
{
	size_t n = 0;

	for (size_t i = 0; i < SELFTEST_RESULTS; i++)
		if (selftest_result_used(&log->r[i]))
			selftest_key_of(&log->r[i], &ret[n++]);
	return n;
}

/* Whether the used entries @used[@k…] of @log read as @seen (as far as both go). */
static bool lines_up(const struct selftest_log *log, const size_t *used, size_t n_used, size_t k,
		     const struct selftest_key *seen, size_t n_seen)
{
	for (size_t i = 0; i < n_seen && k + i < n_used; i++) {
		struct selftest_key key;

		selftest_key_of(&log->r[used[k + i]], &key);
		if (!selftest_key_eq(&key, &seen[i]))
			return false;
	}
	return true;
}

size_t selftest_new_results(const struct selftest_key *seen, size_t n_seen,
			    const struct selftest_log *log, size_t ret_idx[SELFTEST_RESULTS])
{
	size_t used[SELFTEST_RESULTS], n_used = 0, end = SELFTEST_RESULTS, n = 0;
	bool found = false;

	if (!seen)
		n_seen = 0;
	for (size_t i = 0; i < SELFTEST_RESULTS; i++)
		if (selftest_result_used(&log->r[i]))
			used[n_used++] = i;
	/* The log is most recent first: what lies above the stored ones is new. */
	for (size_t k = 0; n_seen && k < n_used && !found; k++)
		if (lines_up(log, used, n_used, k, seen, n_seen)) {
			end = used[k];
			found = true;
		}
	/* Not in line (the drive's log and the store disagree below the top): the
	 * first entry that reads as the newest stored. */
	for (size_t i = 0; n_seen && i < SELFTEST_RESULTS && !found; i++) {
		struct selftest_key k;

		selftest_key_of(&log->r[i], &k);
		if (selftest_result_used(&log->r[i]) && selftest_key_eq(&k, &seen[0])) {
			end = i;
			found = true;
		}
	}
	for (size_t i = end; i-- > 0;) {
		const struct selftest_result *r = &log->r[i];

		if (!selftest_result_used(r))
			continue;
		if (n_seen && !found && r->poh < seen[0].poh)
			continue;
		ret_idx[n++] = i;
	}
	return n;
}

/* The status field's parts (see SELFTEST_STATUS()); Return: false for no NVMe status. */
static bool status_split(uint32_t status, uint8_t *ret_sct, uint8_t *ret_sc)
{
	if (status > 0x7fff)
		return false;
	*ret_sct = (uint8_t)(status >> 8 & 0x7);
	*ret_sc = (uint8_t)status;
	return true;
}

/*
 * The errno of a command's @status: 0 for success, -EOPNOTSUPP for @unsupported or
 * Invalid Field in Command, -EBUSY for @busy (0: none), -EIO for the rest.
 */
static int status_errno(uint32_t status, uint16_t unsupported, uint16_t busy)
{
	uint8_t sct, sc;

	if (!status_split(status, &sct, &sc))
		return -EIO;
	uint16_t st = SELFTEST_STATUS(sct, sc);
	if (st == 0)
		return 0;
	if (st == unsupported || st == SELFTEST_ST_INVALID_FIELD)
		return -EOPNOTSUPP;
	if (busy && st == busy)
		return -EBUSY;
	return -EIO;
}

int selftest_start_errno(uint32_t status)
{
	return status_errno(status, SELFTEST_ST_INVALID_OPCODE, SELFTEST_ST_IN_PROGRESS);
}

int selftest_log_errno(uint32_t status)
{
	return status_errno(status, SELFTEST_ST_INVALID_LOG_PAGE, 0);
}
