/* SPDX-License-Identifier: MIT */
/*
 * The Device Self-test log (06h), decoded from pages built here byte by byte
 * from the specification's layout (NVMe Base 2.0, Figures 258 and 259),
 * independently of selftest.c's own offsets.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "nvmond/decode/selftest.h"

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Figure 259: one 28-byte result at offset 4 + 28 * @i of the page. */
static uint8_t *entry(uint8_t *page, int i)
{
	return page + 4 + 28 * i;
}

/* An empty log: no test in progress, every entry "not used" (result Fh). */
static void blank(uint8_t page[564])
{
	memset(page, 0, 564);
	for (int i = 0; i < 20; i++)
		entry(page, i)[0] = 0x0f;
}

static void put_result(uint8_t *e, unsigned code, unsigned result, uint8_t segment, uint64_t poh)
{
	e[0] = (uint8_t)(code << 4 | result);
	e[1] = segment;
	put_le(e + 4, poh, 8);
}

Test(selftest, decodes_every_field_at_its_offset)
{
	uint8_t page[564];
	struct selftest_log d;

	blank(page);
	/* Figure 258: byte 0 bits 3:0 the current operation (2h extended), byte 1
	 * bits 6:0 its completion (37 %); reserved bits set, to be dropped. */
	page[0] = 0xf2;
	page[1] = 0x80 | 37;
	/* Figure 259: an extended test that failed in segment 3 at 1234 hours,
	 * namespace 1, LBA 0x1_2345_6789, SCT 2h SC 81h (unrecovered read). */
	uint8_t *e = entry(page, 0);
	put_result(e, 0x2, 0x7, 3, 1234);
	e[2] = 0xf0 | 0x0f; /* bits 7:4 reserved */
	put_le(e + 12, 1, 4);
	put_le(e + 16, 0x123456789ull, 8);
	e[24] = 0xf8 | 0x2; /* bits 7:3 reserved */
	e[25] = 0x81;
	put_le(e + 26, 0xbeef, 2);
	cr_assert_eq(selftest_decode(page, sizeof(page), &d), 0);
	cr_expect_eq(d.current, SELFTEST_CODE_EXTENDED);
	cr_expect_eq(d.percent, 37);
	cr_expect_eq(d.r[0].code, SELFTEST_CODE_EXTENDED);
	cr_expect_eq(d.r[0].result, SELFTEST_RES_SEGMENT_FAILED);
	cr_expect_eq(d.r[0].segment, 3);
	cr_expect_eq(d.r[0].valid, 0x0f);
	cr_expect_eq(d.r[0].poh, 1234);
	cr_expect_eq(d.r[0].nsid, 1);
	cr_expect_eq(d.r[0].lba, 0x123456789ull);
	cr_expect_eq(d.r[0].sct, 2);
	cr_expect_eq(d.r[0].sc, 0x81);
	cr_expect_eq(d.r[0].vendor, 0xbeef);
	cr_expect(selftest_result_used(&d.r[0]));
	for (int i = 1; i < 20; i++)
		cr_expect_not(selftest_result_used(&d.r[i]), "entry %d", i);
	/* The last entry's last byte is byte 563: a 563-byte page is refused. */
	entry(page, 19)[0] = 0x10;
	put_le(entry(page, 19) + 26, 0x1234, 2);
	cr_assert_eq(selftest_decode(page, sizeof(page), &d), 0);
	cr_expect_eq(d.r[19].code, SELFTEST_CODE_SHORT);
	cr_expect_eq(d.r[19].vendor, 0x1234);
	cr_expect_eq(selftest_decode(page, 563, &d), -EINVAL);
}

/* Figure 259, byte 0 bits 3:0: every Self-test Result code and its name. */
Test(selftest, every_result_code)
{
	static const struct {
		unsigned code;
		const char *name, *clause;
	} cases[] = {
		{0x0, "no error", "0h: operation completed without error"},
		{0x1, "aborted by a Device Self-test command",
		 "1h: aborted by a Device Self-test command"},
		{0x2, "aborted by a controller level reset",
		 "2h: aborted by a Controller Level Reset"},
		{0x3, "aborted by a namespace removal",
		 "3h: aborted due to a removal of a namespace"},
		{0x4, "aborted by a Format NVM command", "4h: aborted due to a Format NVM command"},
		{0x5, "fatal error or unknown test error", "5h: fatal error or unknown test error"},
		{0x6, "completed with a failed segment, which is not known",
		 "6h: completed with a failed segment; the segment that failed is not known"},
		{0x7, "completed with one or more failed segments",
		 "7h: one or more failed segments; the first is in Segment Number"},
		{0x8, "aborted for an unknown reason", "8h: aborted for unknown reason"},
		{0x9, "aborted by a sanitize operation", "9h: aborted due to a sanitize operation"},
		{0xa, "reserved", "Ah to Eh: reserved"},
		{0xe, "reserved", "Ah to Eh: reserved"},
		{0xf, "entry not used",
		 "Fh: entry not used (does not contain a valid test result)"},
	};
	uint8_t page[564];
	struct selftest_log d;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		blank(page);
		put_result(entry(page, 4), 0x1, cases[i].code, 0, 100 + i);
		cr_assert_eq(selftest_decode(page, sizeof(page), &d), 0);
		cr_expect_eq(d.r[4].result, cases[i].code, "%s", cases[i].clause);
		cr_expect_eq(d.r[4].code, SELFTEST_CODE_SHORT, "%s", cases[i].clause);
		cr_expect_str_eq(selftest_result_name(d.r[4].result), cases[i].name, "%s",
				 cases[i].clause);
		cr_expect_eq(selftest_result_used(&d.r[4]), cases[i].code != 0xf, "%s",
			     cases[i].clause);
	}
}

/* Figure 259, byte 0 bits 7:4 (and Figure 258 byte 0): the self-test codes. */
Test(selftest, every_code_name)
{
	cr_expect_str_eq(selftest_code_name(0x0), "none");     /* 0h: no operation in progress */
	cr_expect_str_eq(selftest_code_name(0x1), "short");    /* 1h: short device self-test */
	cr_expect_str_eq(selftest_code_name(0x2), "extended"); /* 2h: extended device self-test */
	cr_expect_str_eq(selftest_code_name(0x3), "reserved"); /* 3h to Dh: reserved */
	cr_expect_str_eq(selftest_code_name(0xd), "reserved");
	cr_expect_str_eq(selftest_code_name(0xe), "vendor specific"); /* Eh: vendor specific */
	cr_expect_str_eq(selftest_code_name(0xf), "abort");	      /* Fh: abort (command only) */
}

/* Figure 259, byte 2: each Valid Diagnostic Information flag alone, and what it covers. */
Test(selftest, each_valid_flag)
{
	static const struct {
		uint8_t bit, want;
		const char *clause;
	} cases[] = {
		{0x01, SELFTEST_VALID_NSID, "bit 0: NSID Valid, the Namespace Identifier field"},
		{0x02, SELFTEST_VALID_FLBA, "bit 1: FLBA Valid, the Failing LBA field"},
		{0x04, SELFTEST_VALID_SCT, "bit 2: SCT Valid, the Status Code Type field"},
		{0x08, SELFTEST_VALID_SC, "bit 3: SC Valid, the Status Code field"},
		{0x10, 0, "bits 7:4: reserved"},
		{0x00, 0, "no flag: none of the fields hold information"},
	};
	uint8_t page[564];
	struct selftest_log d;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		blank(page);
		put_result(entry(page, 2), 0x2, 0x5, 0, 7);
		entry(page, 2)[2] = cases[i].bit;
		cr_assert_eq(selftest_decode(page, sizeof(page), &d), 0);
		cr_expect_eq(d.r[2].valid, cases[i].want, "%s", cases[i].clause);
	}
}

Test(selftest, encode_round_trips_and_matches_the_layout)
{
	struct selftest_log log = {.current = SELFTEST_CODE_SHORT, .percent = 100};
	uint8_t raw[SELFTEST_LOG_SIZE], page[564];
	struct selftest_log d;

	for (int i = 0; i < SELFTEST_RESULTS; i++)
		log.r[i] = (struct selftest_result){.result = SELFTEST_RES_UNUSED};
	log.r[0] = (struct selftest_result){
		.code = SELFTEST_CODE_EXTENDED,
		.result = SELFTEST_RES_SEGMENT_FAILED,
		.segment = 6,
		.valid = SELFTEST_VALID_NSID | SELFTEST_VALID_FLBA | SELFTEST_VALID_SCT |
			 SELFTEST_VALID_SC,
		.poh = 0x0102030405060708ull,
		.nsid = 0xffffffffu,
		.lba = 0x1122334455667788ull,
		.sct = 2,
		.sc = 0x81,
		.vendor = 0xa55a,
	};
	log.r[19] = (struct selftest_result){.code = SELFTEST_CODE_SHORT, .poh = 9};
	selftest_encode(&log, raw);
	/* The same page, byte by byte. */
	blank(page);
	page[0] = 0x01;
	page[1] = 100;
	uint8_t *e = entry(page, 0);
	put_result(e, 0x2, 0x7, 6, 0x0102030405060708ull);
	e[2] = 0x0f;
	put_le(e + 12, 0xffffffffu, 4);
	put_le(e + 16, 0x1122334455667788ull, 8);
	e[24] = 2;
	e[25] = 0x81;
	put_le(e + 26, 0xa55a, 2);
	put_result(entry(page, 19), 0x1, 0x0, 0, 9);
	cr_expect_arr_eq(raw, page, sizeof(page));
	cr_assert_eq(selftest_decode(raw, sizeof(raw), &d), 0);
	cr_expect_eq(d.current, SELFTEST_CODE_SHORT);
	cr_expect_eq(d.percent, 100);
	cr_expect_eq(d.r[0].code, log.r[0].code);
	cr_expect_eq(d.r[0].result, log.r[0].result);
	cr_expect_eq(d.r[0].segment, log.r[0].segment);
	cr_expect_eq(d.r[0].valid, log.r[0].valid);
	cr_expect_eq(d.r[0].poh, log.r[0].poh);
	cr_expect_eq(d.r[0].nsid, log.r[0].nsid);
	cr_expect_eq(d.r[0].lba, log.r[0].lba);
	cr_expect_eq(d.r[0].sct, log.r[0].sct);
	cr_expect_eq(d.r[0].sc, log.r[0].sc);
	cr_expect_eq(d.r[0].vendor, log.r[0].vendor);
	cr_expect_eq(d.r[19].poh, 9);
}

/* A log of @n used results, most recent first, poh 100 + (@n - 1 - i) each. */
static void history(struct selftest_log *log, int n)
{
	memset(log, 0, sizeof(*log));
	for (int i = 0; i < SELFTEST_RESULTS; i++) {
		log->r[i].result = SELFTEST_RES_UNUSED;
		if (i < n)
			log->r[i] = (struct selftest_result){.code = SELFTEST_CODE_SHORT,
							     .poh = (uint64_t)(100 + n - 1 - i)};
	}
}

Test(selftest, new_results_oldest_first)
{
	struct selftest_log log;
	struct selftest_key k;
	size_t idx[SELFTEST_RESULTS];

	/* Nothing stored: every used result, the oldest first. */
	history(&log, 3);
	cr_assert_eq(selftest_new_results(NULL, 1, &log, idx), 3);
	cr_expect_eq(idx[0], 2);
	cr_expect_eq(idx[1], 1);
	cr_expect_eq(idx[2], 0);
	/* The newest stored is entry 1: only entry 0 is new. */
	selftest_key_of(&log.r[1], &k);
	cr_assert_eq(selftest_new_results(&k, 1, &log, idx), 1);
	cr_expect_eq(idx[0], 0);
	/* The newest stored is the newest in the log: nothing is new. */
	selftest_key_of(&log.r[0], &k);
	cr_expect_eq(selftest_new_results(&k, 1, &log, idx), 0);
	/* Two results in the same hour differ by their result fields. */
	log.r[0].poh = log.r[1].poh;
	log.r[0].result = SELFTEST_RES_ABORTED_CMD;
	selftest_key_of(&log.r[1], &k);
	cr_assert_eq(selftest_new_results(&k, 1, &log, idx), 1);
	cr_expect_eq(idx[0], 0);
	/* An empty log (a new drive) has nothing new. */
	history(&log, 0);
	cr_expect_eq(selftest_new_results(NULL, 1, &log, idx), 0);
}

/*
 * Two short tests aborted in the same power-on hour read the same (code,
 * result, hours: the log has no sequence number). The second one is new all
 * the same: the log moved down by one under the results already stored.
 * (Issue 28 §1: the second and third abort of a short test on demo0 were never
 * recorded.)
 */
Test(selftest, new_results_a_repeat_of_the_newest_is_new)
{
	struct selftest_log log;
	struct selftest_key seen[SELFTEST_RESULTS];
	size_t idx[SELFTEST_RESULTS], n_seen;

	history(&log, 3);
	log.r[0].result = SELFTEST_RES_ABORTED_CMD;
	n_seen = selftest_log_keys(&log, seen);
	cr_assert_eq(n_seen, 3);
	cr_expect_eq(selftest_new_results(seen, n_seen, &log, idx), 0, "nothing new yet");
	/* The same abort again, in the same hour: pushed on top. */
	memmove(&log.r[1], &log.r[0], 3 * sizeof(log.r[0]));
	cr_assert_eq(selftest_new_results(seen, n_seen, &log, idx), 1);
	cr_expect_eq(idx[0], 0);
	/* And a third time, once the second was stored. */
	n_seen = selftest_log_keys(&log, seen);
	memmove(&log.r[1], &log.r[0], 4 * sizeof(log.r[0]));
	cr_assert_eq(selftest_new_results(seen, n_seen, &log, idx), 1);
	cr_expect_eq(idx[0], 0);
	/* Two at once, read together. */
	n_seen = selftest_log_keys(&log, seen);
	memmove(&log.r[2], &log.r[0], 5 * sizeof(log.r[0]));
	cr_assert_eq(selftest_new_results(seen, n_seen, &log, idx), 2);
	cr_expect_eq(idx[0], 1);
	cr_expect_eq(idx[1], 0);
	/* A full log (20) takes one more: the oldest falls out at the bottom. */
	history(&log, 20);
	n_seen = selftest_log_keys(&log, seen);
	memmove(&log.r[1], &log.r[0], 19 * sizeof(log.r[0]));
	cr_assert_eq(selftest_new_results(seen, n_seen, &log, idx), 1);
	cr_expect_eq(idx[0], 0);
	/* Only the newest key known (as before): the same key reads as the same result. */
	cr_expect_eq(selftest_new_results(seen, 1, &log, idx), 0);
}

Test(selftest, key_covers_every_result_field)
{
	struct selftest_result base = {.code = 1,
				       .result = 7,
				       .segment = 2,
				       .poh = 50,
				       .nsid = 1,
				       .lba = 9,
				       .sct = 2,
				       .sc = 0x81};
	struct selftest_key a, b;

	selftest_key_of(&base, &a);
	for (int f = 0; f < 8; f++) {
		struct selftest_result r = base;

		switch (f) {
		case 0:
			r.poh++;
			break;
		case 1:
			r.code = 2;
			break;
		case 2:
			r.result = 6;
			break;
		case 3:
			r.segment++;
			break;
		case 4:
			r.nsid++;
			break;
		case 5:
			r.lba++;
			break;
		case 6:
			r.sct = 1;
			break;
		case 7:
			r.sc++;
			break;
		}
		selftest_key_of(&r, &b);
		cr_expect_not(selftest_key_eq(&a, &b), "field %d", f);
	}
	/* The vendor specific bytes and the valid flags are not part of the key. */
	base.vendor = 0x1234;
	base.valid = SELFTEST_VALID_NSID;
	selftest_key_of(&base, &b);
	cr_expect(selftest_key_eq(&a, &b));
}

Test(selftest, new_results_when_the_stored_one_was_pushed_out)
{
	struct selftest_log log;
	struct selftest_key k = {.code = SELFTEST_CODE_SHORT, .poh = 110};
	size_t idx[SELFTEST_RESULTS];

	/* 20 results, poh 100 … 119; the stored newest (poh 110, an aborted test)
	 * is not among them: those of at least its hours are new, oldest first. */
	history(&log, 20);
	k.result = SELFTEST_RES_ABORTED_RESET;
	cr_assert_eq(selftest_new_results(&k, 1, &log, idx), 10);
	cr_expect_eq(log.r[idx[0]].poh, 110);
	cr_expect_eq(log.r[idx[9]].poh, 119);
	/* An unused entry in between is skipped, not taken as the end. */
	log.r[3].result = SELFTEST_RES_UNUSED;
	cr_expect_eq(selftest_new_results(&k, 1, &log, idx), 9);
	cr_expect_eq(selftest_new_results(NULL, 1, &log, idx), 19);
}

/*
 * What the Device Self-test command's status means to dev_selftest_start()
 * (dev.h). The status is written as the kernel's ioctl returns it (the
 * Completion Queue Entry's Status Field without the phase tag: SC bits 7:0,
 * SCT bits 10:8, CRD 12:11, More 13, DNR 14), independently of selftest.c's
 * SELFTEST_ST_* names. Figures of NVMe Base 2.1: 102 Generic Command Status
 * Values (SCT 0h), 103 Command Specific Status Values (SCT 1h), 174 Device
 * Self-test – Command Specific Status Values.
 */
Test(selftest, start_status_errno)
{
	static const struct {
		uint32_t status;
		int err;
		const char *rule;
	} cases[] = {
		{0x0000, 0, "SCT 0h SC 00h Successful Completion"},
		{0x0001, -EOPNOTSUPP,
		 "Figure 102, 01h Invalid Command Opcode: no Device Self-test"},
		{0x4001, -EOPNOTSUPP, "01h Invalid Command Opcode with DNR: DNR is ignored"},
		{0x0002, -EOPNOTSUPP,
		 "Figure 102, 02h Invalid Field in Command: a self-test code it does not have"},
		{0x6002, -EOPNOTSUPP, "02h Invalid Field in Command with More and DNR"},
		{0x011d, -EBUSY, "Figure 174, SCT 1h 1Dh Device Self-test in Progress"},
		{0x411d, -EBUSY, "Figure 174, 1Dh Device Self-test in Progress with DNR"},
		{0x191d, -EBUSY, "Figure 174, 1Dh with a Command Retry Delay (CRD 3)"},
		{0x001d, -EIO,
		 "Figure 102, generic 1Dh is Sanitize In Progress, not a self-test in progress"},
		{0x0006, -EIO, "Figure 102, 06h Internal Error"},
		{0x000b, -EIO, "Figure 102, 0Bh Invalid Namespace or Format: a bad NSID"},
		{0x0101, -EIO, "SCT 1h 01h (Invalid Queue Identifier) is not generic 01h"},
		{0x0102, -EIO, "SCT 1h 02h (Invalid Queue Size) is not generic 02h"},
		{0x0109, -EIO, "SCT 1h 09h Invalid Log Page is Get Log Page's, not this command's"},
		{0x0281, -EIO, "SCT 2h 81h Unrecovered Read Error: media"},
		{0x0371, -EIO, "SCT 3h path related status"},
		{0x071d, -EIO, "SCT 7h vendor specific, whatever its SC"},
		{(1u << 27) | 0x011d, -EIO,
		 "no NVMe status: libnvme's NVMe-MI status type in bits 29:27"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(selftest_start_errno(cases[i].status), cases[i].err, "%#x: %s",
			     cases[i].status, cases[i].rule);
}

/* What Get Log Page 06h's status means to dev_read_selftest(), as above. */
Test(selftest, log_status_errno)
{
	static const struct {
		uint32_t status;
		int err;
		const char *rule;
	} cases[] = {
		{0x0000, 0, "Successful Completion"},
		{0x0109, -EOPNOTSUPP, "Figure 103, SCT 1h 09h Invalid Log Page: no log 06h"},
		{0x4109, -EOPNOTSUPP, "09h Invalid Log Page with DNR"},
		{0x0002, -EOPNOTSUPP,
		 "Figure 102, 02h Invalid Field in Command: older controllers' answer to a LID"},
		{0x0009, -EIO,
		 "generic 09h (Command Aborted due to Failed Fused Command) is not 1h 09h"},
		{0x0001, -EIO, "01h Invalid Command Opcode: Get Log Page is mandatory"},
		{0x011d, -EIO, "1Dh Device Self-test in Progress is the command's, not the log's"},
		{0x0006, -EIO, "Figure 102, 06h Internal Error"},
		{(1u << 27) | 0x0109, -EIO, "no NVMe status: an NVMe-MI status type"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(selftest_log_errno(cases[i].status), cases[i].err, "%#x: %s",
			     cases[i].status, cases[i].rule);
}

/* The names selftest.c gives the statuses are the values the tables above use. */
Test(selftest, status_names_are_the_spec_values)
{
	cr_expect_eq(SELFTEST_ST_INVALID_OPCODE, 0x0001);
	cr_expect_eq(SELFTEST_ST_INVALID_FIELD, 0x0002);
	cr_expect_eq(SELFTEST_ST_INVALID_NS, 0x000b);
	cr_expect_eq(SELFTEST_ST_INVALID_LOG_PAGE, 0x0109);
	cr_expect_eq(SELFTEST_ST_IN_PROGRESS, 0x011d);
}
