/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <string.h>

#include "nvmond/dev/idctl.h"

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
