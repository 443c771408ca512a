/* SPDX-License-Identifier: MIT */
/*
 * The Error Information log (01h), decoded from pages built here byte by byte
 * from the specification's layout (NVMe Base 2.0, Figure 205), independently
 * of errlog.c's own offsets, with real status codes.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "nvmond/decode/errlog.h"

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * The 16-bit status of an entry: bit 0 phase tag, then the completion's Status
 * Field: SC bits 8:1, SCT 11:9, CRD 13:12, More 14, DNR 15.
 */
static uint16_t status(unsigned sct, unsigned sc, unsigned crd, int more, int dnr, int phase)
{
	return (uint16_t)(phase | sc << 1 | sct << 9 | crd << 12 | more << 14 | dnr << 15);
}

struct raw {
	uint64_t count;
	uint16_t sqid, cid, st, pel;
	uint64_t lba;
	uint32_t nsid;
	uint8_t vs, trtype;
	uint64_t cs;
	uint16_t ttsi;
};

static void put_entry(uint8_t *p, const struct raw *r)
{
	memset(p, 0, 64);
	put_le(p + 0, r->count, 8);
	put_le(p + 8, r->sqid, 2);
	put_le(p + 10, r->cid, 2);
	put_le(p + 12, r->st, 2);
	put_le(p + 14, r->pel, 2);
	put_le(p + 16, r->lba, 8);
	put_le(p + 24, r->nsid, 4);
	p[28] = r->vs;
	p[29] = r->trtype;
	put_le(p + 32, r->cs, 8);
	put_le(p + 40, r->ttsi, 2);
}

Test(errlog, decodes_every_field_at_its_offset)
{
	uint8_t e[64];
	struct errlog_entry d;
	/* An unrecovered read on I/O queue 3 at LBA 0x1234_5678_9abc, namespace 1,
	 * with Do Not Retry and More set, phase tag 1. */
	struct raw r = {
		.count = 0x0102030405060708ull,
		.sqid = 3,
		.cid = 0x0041,
		.st = status(0x2, 0x81, 2, 1, 1, 1),
		.pel = 0xffff,
		.lba = 0x123456789abcull,
		.nsid = 1,
		.vs = 0xc2,
		.trtype = 3,
		.cs = 0x1122334455667788ull,
		.ttsi = 0xbeef,
	};

	put_entry(e, &r);
	memset(e + 30, 0xee, 2); /* reserved: ignored */
	memset(e + 42, 0xee, 22);
	cr_assert_eq(errlog_decode_entry(e, &d), 0);
	cr_expect_eq(d.error_count, 0x0102030405060708ull);
	cr_expect_eq(d.sqid, 3);
	cr_expect_eq(d.cid, 0x41);
	cr_expect_eq(d.status_raw, 0xe503);
	cr_expect(d.phase);
	cr_expect_eq(d.sc, 0x81);
	cr_expect_eq(d.sct, 0x2);
	cr_expect_eq(d.crd, 2);
	cr_expect(d.more);
	cr_expect(d.dnr);
	cr_expect_eq(d.param_err_loc, 0xffff);
	cr_expect_eq(d.lba, 0x123456789abcull);
	cr_expect_eq(d.nsid, 1);
	cr_expect_eq(d.vs_log_page, 0xc2);
	cr_expect_eq(d.trtype, 3);
	cr_expect_eq(d.cmd_specific, 0x1122334455667788ull);
	cr_expect_eq(d.trtype_specific, 0xbeef);
	cr_expect_str_eq(errlog_status_name(d.sct, d.sc), "Unrecovered Read Error");
}

/*
 * What smartctl shows on many healthy drives, from its own probe of a log page
 * the drive does not have: SQId 0, Status 0x4004 (Invalid Field in Command,
 * More), PELoc 0x028 (byte 40 = CDW10 bits 7:0, the log page identifier).
 */
Test(errlog, smartctl_probe_entry)
{
	uint8_t e[64];
	struct errlog_entry d;

	put_entry(e, &(struct raw){
			     .count = 1402, .sqid = 0, .cid = 0x000c, .st = 0x4004, .pel = 0x028});
	cr_assert_eq(errlog_decode_entry(e, &d), 0);
	cr_expect_eq(d.sct, 0);
	cr_expect_eq(d.sc, 0x02);
	cr_expect(d.more);
	cr_expect(!d.dnr);
	cr_expect(!d.phase);
	cr_expect_eq(d.pel_byte, 40);
	cr_expect_eq(d.pel_bit, 0);
	cr_expect_str_eq(errlog_status_name(d.sct, d.sc), "Invalid Field in Command");
}

Test(errlog, parameter_error_location_bits)
{
	uint8_t e[64];
	struct errlog_entry d;

	/* Byte 44 (CDW11 bits 7:0), bit 5; bits 15:11 reserved. */
	put_entry(e, &(struct raw){.count = 7, .pel = 0xf800 | 5 << 8 | 44});
	errlog_decode_entry(e, &d);
	cr_expect_eq(d.pel_byte, 44);
	cr_expect_eq(d.pel_bit, 5);
}

Test(errlog, empty_entry)
{
	uint8_t e[64] = {0};
	struct errlog_entry d;

	cr_expect_eq(errlog_decode_entry(e, &d), 1);
	cr_expect_eq(d.error_count, 0);
}

Test(errlog, page_of_entries_most_recent_first)
{
	uint8_t page[4 * 64 + 10];
	struct errlog_entry d[8];

	memset(page, 0, sizeof(page));
	put_entry(page + 0,
		  &(struct raw){.count = 3, .sqid = 1, .st = status(2, 0x80, 0, 0, 1, 0)});
	put_entry(page + 64,
		  &(struct raw){.count = 2, .sqid = 0, .st = status(1, 0x09, 0, 0, 1, 0)});
	put_entry(page + 128,
		  &(struct raw){.count = 1, .sqid = 0, .st = status(0, 0x01, 0, 0, 1, 0)});
	/* entry 4 empty, then 10 bytes of a partial entry: not decoded */
	cr_assert_eq(errlog_decode(page, sizeof(page), d, 8), 4);
	cr_expect_eq(d[0].error_count, 3);
	cr_expect_str_eq(errlog_status_name(d[0].sct, d[0].sc), "Write Fault");
	cr_expect_eq(d[1].error_count, 2);
	cr_expect_str_eq(errlog_status_name(d[1].sct, d[1].sc), "Invalid Log Page");
	cr_expect_eq(d[2].error_count, 1);
	cr_expect_str_eq(errlog_status_name(d[2].sct, d[2].sc), "Invalid Command Opcode");
	cr_expect_eq(d[3].error_count, 0);
	cr_expect_eq(errlog_decode(page, sizeof(page), d, 2), 2);
	cr_expect_eq(errlog_decode(page, 63, d, 8), 0);
}

Test(errlog, encode_round_trip)
{
	struct errlog_entry in = {
		.error_count = 99,
		.sqid = 4,
		.cid = 0x1234,
		.phase = true,
		.sc = 0x86,
		.sct = 2,
		.crd = 1,
		.more = false,
		.dnr = true,
		.param_err_loc = 0x0328,
		.lba = 1ull << 40,
		.nsid = 2,
		.vs_log_page = 0xca,
		.trtype = 1,
		.cmd_specific = 5,
		.trtype_specific = 6,
	};
	struct errlog_entry out;
	uint8_t raw[64];

	errlog_encode_entry(&in, raw);
	cr_expect_eq(raw[12] | raw[13] << 8, status(2, 0x86, 1, 0, 1, 1));
	errlog_decode_entry(raw, &out);
	cr_expect_eq(out.status_raw, status(2, 0x86, 1, 0, 1, 1));
	cr_expect_eq(out.error_count, 99);
	cr_expect_eq(out.sqid, 4);
	cr_expect_eq(out.cid, 0x1234);
	cr_expect(out.phase && out.dnr && !out.more);
	cr_expect_eq(out.sc, 0x86);
	cr_expect_eq(out.sct, 2);
	cr_expect_eq(out.crd, 1);
	cr_expect_eq(out.param_err_loc, 0x0328);
	cr_expect_eq(out.pel_byte, 0x28);
	cr_expect_eq(out.pel_bit, 3);
	cr_expect_eq(out.lba, 1ull << 40);
	cr_expect_eq(out.nsid, 2);
	cr_expect_eq(out.vs_log_page, 0xca);
	cr_expect_eq(out.trtype, 1);
	cr_expect_eq(out.cmd_specific, 5);
	cr_expect_eq(out.trtype_specific, 6);
}

Test(errlog, status_names)
{
	cr_expect_str_eq(errlog_status_name(0, 0x04), "Data Transfer Error");
	cr_expect_str_eq(errlog_status_name(0, 0x06), "Internal Error");
	cr_expect_str_eq(errlog_status_name(0, 0x80), "LBA Out of Range");
	cr_expect_str_eq(errlog_status_name(1, 0x1d), "Device Self-test In Progress");
	cr_expect_str_eq(errlog_status_name(1, 0x0e), "Feature Not Changeable");
	cr_expect_str_eq(errlog_status_name(2, 0x82), "End-to-end Guard Check Error");
	cr_expect_str_eq(errlog_status_name(2, 0x83), "End-to-end Application Tag Check Error");
	cr_expect_str_eq(errlog_status_name(2, 0x84), "End-to-end Reference Tag Check Error");
	cr_expect_str_eq(errlog_status_name(2, 0x85), "Compare Failure");
	cr_expect_str_eq(errlog_status_name(2, 0x87), "Deallocated or Unwritten Logical Block");
	cr_expect_str_eq(errlog_status_name(3, 0x71), "Command Aborted By Host");
	cr_expect_null(errlog_status_name(0, 0x17)); /* reserved */
	cr_expect_null(errlog_status_name(7, 0x01)); /* vendor specific */
	cr_expect_str_eq(errlog_sct_name(0), "Generic Command Status");
	cr_expect_str_eq(errlog_sct_name(1), "Command Specific Status");
	cr_expect_str_eq(errlog_sct_name(2), "Media and Data Integrity Errors");
	cr_expect_str_eq(errlog_sct_name(3), "Path Related Status");
	cr_expect_str_eq(errlog_sct_name(7), "Vendor Specific");
	cr_expect_str_eq(errlog_sct_name(5), "Reserved");
}

/* --- which entries are new ------------------------------------------------ */

struct newcase {
	const char *why;
	uint64_t prev, cur;
	uint64_t counts[6]; /* the page's error counts, in page order */
	size_t n;
	uint64_t want[6]; /* the new ones' counts, oldest first */
	size_t nwant;
	uint64_t lost;
};

#define MAX64 UINT64_MAX

static const struct newcase newcases[] = {
	{"first read, three errors, empty entries after them",
	 0,
	 3,
	 {3, 2, 1, 0, 0},
	 5,
	 {1, 2, 3},
	 3,
	 0},
	{"two more since the last read", 3, 5, {5, 4, 3, 2}, 4, {4, 5}, 2, 0},
	{"no rise: nothing new", 3, 3, {3, 2, 1}, 3, {0}, 0, 0},
	{"more errors than the log keeps (ELPE + 1 = 4)",
	 2,
	 10,
	 {10, 9, 8, 7},
	 4,
	 {7, 8, 9, 10},
	 4,
	 4},
	{"an entry logged after the health log was read waits for the next rise",
	 3,
	 4,
	 {5, 4, 3},
	 3,
	 {4},
	 1,
	 0},
	{"the 64-bit count wrapped to 1",
	 MAX64 - 1,
	 2,
	 {2, 1, MAX64, MAX64 - 1},
	 4,
	 {MAX64, 1, 2},
	 3,
	 0},
	{"the controller restarted its count", 10, 2, {2, 1, 0, 0}, 4, {1, 2}, 2, 0},
	{"restarted, one entry already gone", 10, 2, {2, 0}, 2, {2}, 1, 1},
	{"an error count listed twice counts once", 2, 4, {4, 4, 3}, 3, {3, 4}, 2, 0},
	{"a page in no particular order", 0, 4, {2, 4, 0, 1, 3}, 5, {1, 2, 3, 4}, 4, 0},
	{"an empty page while the count rose: all lost", 5, 8, {0, 0}, 2, {0}, 0, 3},
};

Test(errlog, new_entries_table)
{
	for (size_t t = 0; t < sizeof(newcases) / sizeof(newcases[0]); t++) {
		const struct newcase *c = &newcases[t];
		struct errlog_entry e[6] = {0};
		size_t idx[6];
		uint64_t lost = 12345;

		for (size_t i = 0; i < c->n; i++)
			e[i].error_count = c->counts[i];
		size_t k = errlog_new_entries(c->prev, c->cur, e, c->n, idx, &lost);
		cr_expect_eq(k, c->nwant, "%s: %zu new", c->why, k);
		for (size_t i = 0; i < k && i < c->nwant; i++)
			cr_expect_eq(e[idx[i]].error_count, c->want[i], "%s: #%zu is %llu", c->why,
				     i, (unsigned long long)e[idx[i]].error_count);
		cr_expect_eq(lost, c->lost, "%s: lost %llu", c->why, (unsigned long long)lost);
	}
	/* @ret_lost is optional */
	struct errlog_entry one = {.error_count = 1};
	size_t idx;
	cr_expect_eq(errlog_new_entries(0, 1, &one, 1, &idx, NULL), 1);
	cr_expect_eq(idx, 0);
}

/*
 * How many entries nvmond asks for: never on an unchanged count, never more
 * than the controller keeps (ELPE + 1), never past 4 KiB (64 entries) when
 * Get Log Page takes no offsets (LPA bit 2 clear), and the rise plus a few
 * for errors logged between the health log read and this one.
 */
Test(errlog, read_count_table)
{
	const struct {
		const char *rule;
		bool have_prev;
		uint64_t prev, cur;
		unsigned kept;
		bool ext;
		size_t want;
	} t[] = {
		{"unchanged count: nothing to read", true, 7, 7, 64, true, 0},
		{"first read at 0: nothing to read", false, 0, 0, 64, true, 0},
		{"first read: what the log holds, up to ELPE + 1", false, 0, 14, 64, true, 18},
		{"first read of a busy log: all it keeps", false, 0, 5000, 64, true, 64},
		{"a rise of 1: 1 + slack", true, 7, 8, 64, true, 5},
		{"a rise of 1 on QEMU (ELPE 0): its one entry", true, 0, 1, 1, false, 1},
		{"a rise past the log: all it keeps", true, 7, 200, 64, true, 64},
		{"256 entries with offsets", true, 0, 1000, 256, true, 256},
		{"256 entries without offsets: one 4 KiB command", true, 0, 1000, 256, false, 64},
		{"count went down (reset or wrap): the whole log", true, 9, 2, 16, true, 16},
		{"a first read after the count wrapped near 2^64", false, 0, UINT64_MAX, 4, true,
		 4},
		{"rise near 2^64 does not overflow", true, 0, UINT64_MAX, 8, true, 8},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t got =
			errlog_read_count(t[i].have_prev, t[i].prev, t[i].cur, t[i].kept, t[i].ext);
		cr_expect_eq(got, t[i].want, "%s: %zu, want %zu", t[i].rule, got, t[i].want);
	}
}
