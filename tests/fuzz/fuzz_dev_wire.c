/* SPDX-License-Identifier: MIT */
/*
 * The device channel's requests as the device process receives them
 * (dev_wire_req_parse(), issue 15 §1: validated again on the privileged side).
 * Rules: an accepted request names a known command, its strings end inside
 * their fields, a controller name is letters and digits, an error log read
 * asks for 1..256 entries, a self-test start is short, extended or abort; its
 * answer's payload is at most 256 error log entries.
 */
#include <errno.h>

#include "fuzz.h"
#include "nvmond/dev/dev_wire.h"
#include "nvmond/dev/selftest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dev_wire_req q;
	int r = dev_wire_req_parse(data, size, &q);

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -EPROTO);
	if (r < 0)
		return 0;
	FUZZ_CHECK(size == sizeof(q) && q.magic == DEV_WIRE_MAGIC);
	FUZZ_CHECK(q.op > DEV_OP_HELLO && q.op < _DEV_OP_MAX);
	FUZZ_CHECK(strnlen(q.name, sizeof(q.name)) < sizeof(q.name));
	FUZZ_CHECK(strnlen(q.model, sizeof(q.model)) < sizeof(q.model));
	FUZZ_CHECK(strnlen(q.serial, sizeof(q.serial)) < sizeof(q.serial));
	for (const char *c = q.name; *c; c++)
		FUZZ_CHECK((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			   (*c >= '0' && *c <= '9'));
	if (q.op == DEV_OP_READ_ERRLOG)
		FUZZ_CHECK(q.n >= 1 && q.n <= DEV_WIRE_ERRLOG_MAX);
	if (q.op == DEV_OP_SELFTEST_START)
		FUZZ_CHECK(q.stc == SELFTEST_CODE_SHORT || q.stc == SELFTEST_CODE_EXTENDED ||
			   q.stc == SELFTEST_CODE_ABORT);
	FUZZ_CHECK(dev_wire_resp_len(&q) <= (size_t)DEV_WIRE_ERRLOG_MAX * ERRLOG_ENTRY_SIZE);
	return 0;
}
