/* SPDX-License-Identifier: MIT */
/*
 * The device channel's requests as the device process receives them
 * (dev_wire_req_parse(), issue 15 §1: validated again on the privileged side).
 * Rules: an accepted request names a known command, its strings end inside
 * their fields, a controller name is letters and digits, an error log read
 * asks for 1..256 entries, a self-test start is short, extended or abort, a
 * reload of the options carries none (the device process reads its own), a
 * namespace to open is "nvme<N>n<M>" of a named drive, NSID 1..FFFFFFFEh, in
 * one of three modes; a Persistent Event Log read (issue 27) is whole dwords from any byte
 * past the header and at most DEV_PEL_READ_MAX bytes, a power read asks for
 * Power Management and nothing unknown, offsets and features appear only
 * there; its answer's payload is at most 256 error log entries or a PEL read.
 */
#include <errno.h>
#include <stdio.h>

#include "fuzz.h"
#include "nvmond/dev/dev_wire.h"
#include "nvmond/decode/selftest.h"

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
	if (q.op == DEV_OP_CONFIGURE)
		FUZZ_CHECK(q.now_ms == 0 && q.wake_sleeping == 0);
	if (q.op == DEV_OP_OPEN_NS) {
		unsigned a, b;
		int end = 0;
		FUZZ_CHECK(sscanf(q.name, "nvme%un%u%n", &a, &b, &end) == 2 && !q.name[end]);
		FUZZ_CHECK(q.has_who == 1 && q.serial[0]);
		FUZZ_CHECK(q.nsid >= 1 && q.nsid < 0xffffffffu);
		FUZZ_CHECK(q.n == DEV_NS_WRITE || q.n == DEV_NS_READ || q.n == DEV_NS_SIG);
	}
	if (q.op == DEV_OP_READ_PEL) {
		FUZZ_CHECK(q.n >= 4 && q.n <= DEV_PEL_READ_MAX && q.n % 4 == 0);
		/* Any byte past the header: events need not end on a dword. */
		FUZZ_CHECK(q.offset >= PEL_HEADER_SIZE && q.offset <= UINT32_MAX);
	} else {
		FUZZ_CHECK(q.offset == 0);
	}
	if (q.op == DEV_OP_READ_POWER)
		FUZZ_CHECK((q.feats & DEV_POWER_PM) && (q.feats & ~(uint32_t)DEV_POWER_ALL) == 0);
	else
		FUZZ_CHECK(q.feats == 0);
	FUZZ_CHECK(q.reserved == 0);
	FUZZ_CHECK(dev_wire_resp_len(&q) <=
		   ((size_t)DEV_WIRE_ERRLOG_MAX * ERRLOG_ENTRY_SIZE >
				    PEL_HEADER_SIZE + DEV_PEL_READ_MAX
			    ? (size_t)DEV_WIRE_ERRLOG_MAX * ERRLOG_ENTRY_SIZE
			    : PEL_HEADER_SIZE + DEV_PEL_READ_MAX));
	return 0;
}
