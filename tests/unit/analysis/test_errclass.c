/* SPDX-License-Identifier: MIT */
/*
 * Classifying Error Information log entries, from entries built byte by byte
 * (NVMe Base 2.0, Figure 205) with real status codes, each case with its rule:
 *  benign: what a host's own admin commands cause (tools and OS probes);
 *  media:  status code type 2h, media and data integrity errors, any queue;
 *  io:     a data transfer / power loss abort / internal / transient transport
 *          error on an I/O queue (SQID not 0);
 *  other:  the rest. Only media and io raise io_errors (issue 11, section 2).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "nvmond/analysis/errclass.h"

struct ccase {
	const char *why;
	uint16_t sqid;
	uint8_t sct, sc;
	int dnr;
	enum errclass want;
};

#define ADMIN 0
#define IOQ   3

static const struct ccase cases[] = {
	{"Invalid Command Opcode on the admin queue: a tool tried a vendor command", ADMIN, 0, 0x01,
	 1, ERRCLASS_BENIGN},
	{"Invalid Field in Command on the admin queue: an optional feature or CNS", ADMIN, 0, 0x02,
	 1, ERRCLASS_BENIGN},
	{"Invalid Namespace or Format on the admin queue: an identify of an unused NSID", ADMIN, 0,
	 0x0b, 1, ERRCLASS_BENIGN},
	{"Invalid Log Page on the admin queue: smartctl / nvme-cli probing a log", ADMIN, 1, 0x09,
	 1, ERRCLASS_BENIGN},
	{"Feature Identifier Not Saveable on the admin queue", ADMIN, 1, 0x0d, 1, ERRCLASS_BENIGN},
	{"Feature Not Changeable on the admin queue", ADMIN, 1, 0x0e, 1, ERRCLASS_BENIGN},
	{"Feature Not Namespace Specific on the admin queue", ADMIN, 1, 0x0f, 1, ERRCLASS_BENIGN},
	{"Device Self-test In Progress: a second test was asked for", ADMIN, 1, 0x1d, 1,
	 ERRCLASS_BENIGN},
	{"Write Fault on an I/O queue", IOQ, 2, 0x80, 1, ERRCLASS_MEDIA},
	{"Unrecovered Read Error on an I/O queue", IOQ, 2, 0x81, 1, ERRCLASS_MEDIA},
	{"End-to-end Guard Check Error", IOQ, 2, 0x82, 1, ERRCLASS_MEDIA},
	{"End-to-end Application Tag Check Error", IOQ, 2, 0x83, 1, ERRCLASS_MEDIA},
	{"End-to-end Reference Tag Check Error", IOQ, 2, 0x84, 1, ERRCLASS_MEDIA},
	{"Compare Failure", IOQ, 2, 0x85, 1, ERRCLASS_MEDIA},
	{"Access Denied", IOQ, 2, 0x86, 1, ERRCLASS_MEDIA},
	{"Deallocated or Unwritten Logical Block", IOQ, 2, 0x87, 1, ERRCLASS_MEDIA},
	{"End-to-End Storage Tag Check Error", IOQ, 2, 0x88, 1, ERRCLASS_MEDIA},
	{"a media error is media on the admin queue too (e.g. a sanitize or DST read)", ADMIN, 2,
	 0x81, 1, ERRCLASS_MEDIA},
	{"a media error not tied to a command (SQID FFFFh)", 0xffff, 2, 0x81, 0, ERRCLASS_MEDIA},
	{"Data Transfer Error on an I/O queue", IOQ, 0, 0x04, 0, ERRCLASS_IO},
	{"Commands Aborted due to Power Loss Notification on an I/O queue", IOQ, 0, 0x05, 0,
	 ERRCLASS_IO},
	{"Internal Error on an I/O queue", IOQ, 0, 0x06, 1, ERRCLASS_IO},
	{"Transient Transport Error on an I/O queue", 1, 0, 0x22, 0, ERRCLASS_IO},
	{"Data Transfer Error on the admin queue: not the data path", ADMIN, 0, 0x04, 0,
	 ERRCLASS_OTHER},
	{"Internal Error on the admin queue: shown, not alerted", ADMIN, 0, 0x06, 1,
	 ERRCLASS_OTHER},
	{"Internal Error not tied to a command (SQID FFFFh): not an I/O queue", 0xffff, 0, 0x06, 1,
	 ERRCLASS_OTHER},
	{"Invalid Field in Command on an I/O queue: the host's own bug, not the drive", IOQ, 0,
	 0x02, 1, ERRCLASS_OTHER},
	{"Invalid Log Page on an I/O queue is not a probe (no log page there)", IOQ, 1, 0x09, 1,
	 ERRCLASS_OTHER},
	{"LBA Out of Range on an I/O queue: the host's request", IOQ, 0, 0x80, 1, ERRCLASS_OTHER},
	{"Command Abort Requested on an I/O queue: the host aborted it", IOQ, 0, 0x07, 0,
	 ERRCLASS_OTHER},
	{"Command Aborted due to SQ Deletion: a reset", IOQ, 0, 0x08, 0, ERRCLASS_OTHER},
	{"Invalid Firmware Image on the admin queue: a failed update, worth a look", ADMIN, 1, 0x07,
	 1, ERRCLASS_OTHER},
	{"Path related status", IOQ, 3, 0x00, 0, ERRCLASS_OTHER},
	{"Vendor specific status", IOQ, 7, 0x01, 0, ERRCLASS_OTHER},
};

/* The entry as a controller would log it, through the wire layout. */
static struct errlog_entry entry(uint64_t count, uint16_t sqid, uint8_t sct, uint8_t sc, int dnr)
{
	uint8_t raw[ERRLOG_ENTRY_SIZE] = {0};
	uint16_t st = (uint16_t)(sc << 1 | sct << 9 | dnr << 15);
	struct errlog_entry e;

	for (int i = 0; i < 8; i++)
		raw[i] = (uint8_t)(count >> (8 * i));
	raw[8] = (uint8_t)sqid;
	raw[9] = (uint8_t)(sqid >> 8);
	raw[12] = (uint8_t)st;
	raw[13] = (uint8_t)(st >> 8);
	raw[24] = 1; /* NSID 1 */
	errlog_decode_entry(raw, &e);
	return e;
}

Test(errclass, table)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ccase *c = &cases[i];
		struct errlog_entry e = entry(i + 1, c->sqid, c->sct, c->sc, c->dnr);
		enum errclass got = errclass_of(&e);

		cr_expect_eq(got, c->want, "%s: got %s, want %s", c->why, errclass_name(got),
			     errclass_name(c->want));
		cr_expect_eq(errclass_alerts(got),
			     c->want == ERRCLASS_MEDIA || c->want == ERRCLASS_IO, "%s: alerts",
			     c->why);
	}
}

/* smartctl's probe as many drives log it: Status 0x4004, SQId 0, PELoc 0x028. */
Test(errclass, smartctl_probe_is_benign)
{
	uint8_t raw[ERRLOG_ENTRY_SIZE] = {0};
	struct errlog_entry e;

	raw[0] = 0x7a; /* error count 1402 */
	raw[1] = 0x05;
	raw[10] = 0x0c;
	raw[12] = 0x04;
	raw[13] = 0x40;
	raw[14] = 0x28;
	errlog_decode_entry(raw, &e);
	cr_expect_eq(errclass_of(&e), ERRCLASS_BENIGN);
	cr_expect(!errclass_alerts(ERRCLASS_BENIGN));
}

Test(errclass, empty_entry_is_other)
{
	struct errlog_entry e = entry(0, IOQ, 2, 0x81, 1);

	cr_expect_eq(errclass_of(&e), ERRCLASS_OTHER);
}

Test(errclass, names)
{
	for (int c = 0; c < _ERRCLASS_MAX; c++)
		cr_expect_eq(errclass_from_name(errclass_name(c)), c);
	cr_expect_str_eq(errclass_name(ERRCLASS_IO), "io");
	cr_expect_str_eq(errclass_name(ERRCLASS_MEDIA), "media");
	cr_expect_str_eq(errclass_name(_ERRCLASS_MAX), "unknown");
	cr_expect_eq(errclass_from_name("fatal"), -EINVAL);
	cr_expect_str_eq(ERRCLASS_ALERT_NAME, "io_errors");
}

/* One line per entry for logs and alert messages: what, where, on which queue. */
Test(errclass, describe)
{
	char buf[160];
	struct errlog_entry e = entry(5, 1, 2, 0x81, 1);

	e.cid = 5;
	e.lba = 4096;
	cr_expect_str_eq(errclass_describe(&e, buf, sizeof(buf)),
			 "entry 5: Unrecovered Read Error (SCT 2h, SC 81h) on I/O queue 1, CID 5, "
			 "NSID 1, LBA 4096");
	e = entry(1402, 0, 0, 0x02, 1);
	e.cid = 0x0c;
	e.nsid = 0;
	cr_expect_str_eq(errclass_describe(&e, buf, sizeof(buf)),
			 "entry 1402: Invalid Field in Command (SCT 0h, SC 02h) on admin queue, "
			 "CID 12");
	e = entry(9, 0xffff, 2, 0x80, 0);
	e.cid = 0xffff;
	e.nsid = 0xffffffff;
	cr_expect_str_eq(errclass_describe(&e, buf, sizeof(buf)),
			 "entry 9: Write Fault (SCT 2h, SC 80h) on no command");
	e = entry(10, 3, 7, 0xc4, 0);
	e.cid = 0xffff;
	cr_expect_str_eq(errclass_describe(&e, buf, sizeof(buf)),
			 "entry 10: unnamed status (SCT 7h, SC c4h) on I/O queue 3, NSID 1, LBA 0");
	char small[12];
	cr_expect_str_eq(errclass_describe(&e, small, sizeof(small)), "entry 10: u", "truncated");
}
