/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <string.h>

#include "nvmond/decode/idctl.h"

static void put_str(uint8_t *p, const char *s, size_t len)
{
	memset(p, ' ', len);
	memcpy(p, s, strlen(s));
}

Test(idctl, decodes_identity_and_limits)
{
	uint8_t page[4096] = {0};
	struct idctl id;

	page[0] = 0x4d;
	page[1] = 0x14;
	put_str(page + 4, "S2GMNX0H600001D", 20);
	put_str(page + 24, "Samsung SSD 950 PRO 512GB", 40);
	put_str(page + 64, "2B0QBXX7", 8);
	page[266] = 343 & 0xff;
	page[267] = 343 >> 8;
	page[268] = 353 & 0xff;
	page[269] = 353 >> 8;
	/* tnvmcap = 2^64 + 5: past 64 bits */
	page[280] = 5;
	page[288] = 1;
	page[516] = 1;

	idctl_decode(page, &id);
	cr_expect_eq(id.vid, 0x144d);
	cr_expect_str_eq(id.serial, "S2GMNX0H600001D");
	cr_expect_str_eq(id.model, "Samsung SSD 950 PRO 512GB");
	cr_expect_str_eq(id.firmware, "2B0QBXX7");
	cr_expect_eq(id.wctemp_k, 343);
	cr_expect_eq(id.cctemp_k, 353);
	cr_expect(id.tnvmcap == ((u128)1 << 64) + 5);
	cr_expect_eq(id.nn, 1);
}

Test(idctl, trims_padding_and_replaces_garbage)
{
	uint8_t page[4096] = {0};
	struct idctl id;

	/* A full-width field has no terminator in the page. */
	memset(page + 4, 'A', 20);
	/* NUL padding (seen on some drives) and a control byte. */
	memcpy(page + 24, "  QEMU\x01NVMe Ctrl", 16);
	idctl_decode(page, &id);
	cr_expect_str_eq(id.serial, "AAAAAAAAAAAAAAAAAAAA");
	cr_expect_str_eq(id.model, "QEMU?NVMe Ctrl");
	cr_expect_str_eq(id.firmware, "", "all-NUL field is empty");
	cr_expect_eq(id.wctemp_k, 0, "not reported");
}

Test(idctl, encode_decode_roundtrip)
{
	struct idctl a =
			     {
				     .vid = 0x1b36,
				     .serial = "NVMOND-VM-0001",
				     .model = "QEMU NVMe Ctrl",
				     .firmware = "7.2.0",
				     .wctemp_k = 343,
				     .cctemp_k = 373,
				     .tnvmcap = 268435456,
				     .nn = 256,
			     },
		     b;
	uint8_t page[4096];

	idctl_encode(&a, page);
	cr_expect_eq(page[4 + 14], ' ', "space padded");
	idctl_decode(page, &b);
	cr_expect_eq(b.vid, a.vid);
	cr_expect_str_eq(b.serial, a.serial);
	cr_expect_str_eq(b.model, a.model);
	cr_expect_str_eq(b.firmware, a.firmware);
	cr_expect_eq(b.wctemp_k, a.wctemp_k);
	cr_expect_eq(b.cctemp_k, a.cctemp_k);
	cr_expect(b.tnvmcap == a.tnvmcap);
	cr_expect_eq(b.nn, a.nn);
}

/*
 * Serial, model and firmware are printable ASCII (NVMe 2.0 Figure 275: "ASCII
 * string"); any other byte, DEL and bytes above 0x7f included, shows as '?', and
 * NN (bytes 519:516) is a 32-bit little-endian field.
 */
Test(idctl, non_printable_bytes_and_wide_fields)
{
	const struct {
		const char *rule;
		const char *raw; /* the 20-byte serial field, NUL padded */
		const char *want;
	} t[] = {
		{"DEL (0x7f) is not printable", "AB\177CD", "AB?CD"},
		{"bytes above 0x7f are not ASCII", "AB\x80\xff", "AB??"},
		{"a control byte is not printable", "\037X", "?X"},
		{"tilde (0x7e) is the last printable byte", "~A", "~A"},
		{"space (0x20) is printable inside the string", "A B", "A B"},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t page[4096] = {0};
		struct idctl id;

		memcpy(page + 4, t[i].raw, strlen(t[i].raw));
		idctl_decode(page, &id);
		cr_expect_str_eq(id.serial, t[i].want, "%s", t[i].rule);
	}

	uint8_t page[4096] = {0};
	struct idctl id;

	page[516] = 0x78;
	page[517] = 0x56;
	page[518] = 0x34;
	page[519] = 0x12;
	idctl_decode(page, &id);
	cr_expect_eq(id.nn, 0x12345678u, "NN uses all four bytes: %#x", id.nn);
}

/*
 * OACS (bytes 257:256), LPA (byte 261), ELPE (byte 262, 0's based) and EDSTT
 * (bytes 317:316, minutes), NVMe 2.0 Figure 275. The first page is what QEMU
 * 7.2 answers (tests/vm/README.md: OACS 0x10a, LPA 0x7, ELPE 0, EDSTT 0); the
 * second a drive with a 64-entry error log, Device Self-test and a 5 h
 * extended self-test, with bytes on both sides of each field set so that a
 * field read one byte off shows.
 */
Test(idctl, error_log_and_self_test_fields)
{
	const struct {
		const char *rule;
		uint8_t b256, b257, b261, b262, b316, b317, b258, b260, b263, b315;
		uint16_t oacs, edstt;
		uint8_t lpa, elpe;
		unsigned entries;
		int self_test;
	} t[] = {
		{"QEMU 7.2: one error log entry, no self-test", 0x0a, 0x01, 0x07, 0x00, 0, 0, 0, 0,
		 0, 0, 0x010a, 0, 0x07, 0, 1, 0},
		{"64 entries (ELPE 63), self-test (OACS bit 4), EDSTT 300 min", 0x17, 0x02, 0x0e,
		 63, 0x2c, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0217, 300, 0x0e, 63, 64, 1},
		{"ELPE 255: the log keeps 256 entries", 0x00, 0x00, 0x00, 255, 0, 0, 0x5a, 0xa5,
		 0x33, 0x44, 0, 0, 0, 255, 256, 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t page[4096] = {0};
		struct idctl id;

		page[256] = t[i].b256;
		page[257] = t[i].b257;
		page[258] = t[i].b258;
		page[260] = t[i].b260;
		page[261] = t[i].b261;
		page[262] = t[i].b262;
		page[263] = t[i].b263;
		page[315] = t[i].b315;
		page[316] = t[i].b316;
		page[317] = t[i].b317;
		idctl_decode(page, &id);
		cr_expect_eq(id.oacs, t[i].oacs, "%s: OACS %#x", t[i].rule, id.oacs);
		cr_expect_eq(id.lpa, t[i].lpa, "%s: LPA %#x", t[i].rule, id.lpa);
		cr_expect_eq(id.elpe, t[i].elpe, "%s: ELPE %u", t[i].rule, id.elpe);
		cr_expect_eq(idctl_errlog_entries(&id), t[i].entries, "%s: entries", t[i].rule);
		cr_expect_eq(id.edstt, t[i].edstt, "%s: EDSTT %u", t[i].rule, id.edstt);
		cr_expect_eq((id.oacs & IDCTL_OACS_SELF_TEST) != 0, t[i].self_test, "%s: self-test",
			     t[i].rule);

		/* And back: the encoder puts each field where the decoder reads it. */
		uint8_t again[4096];
		struct idctl back;
		idctl_encode(&id, again);
		idctl_decode(again, &back);
		cr_expect_eq(back.oacs, id.oacs, "%s: OACS round trip", t[i].rule);
		cr_expect_eq(back.lpa, id.lpa, "%s: LPA round trip", t[i].rule);
		cr_expect_eq(back.elpe, id.elpe, "%s: ELPE round trip", t[i].rule);
		cr_expect_eq(back.edstt, id.edstt, "%s: EDSTT round trip", t[i].rule);
		cr_expect_eq(again[262], t[i].b262, "%s: ELPE at byte 262", t[i].rule);
		cr_expect_eq(again[317], t[i].b317, "%s: EDSTT high byte at 317", t[i].rule);
	}
}
