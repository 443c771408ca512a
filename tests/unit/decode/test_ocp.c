/* SPDX-License-Identifier: MIT */
/*
 * The OCP SMART / Health Information Extended log (C0h) from pages built byte
 * by byte after the OCP Datacenter NVMe SSD Specification 2.0, "SMART /
 * Health Information Extended (Log Identifier C0h)": every field at its
 * offset and width, written out here independently of ocp.c's table.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "nvmond/decode/ocp.h"

/* Bytes 511:496, the Log Page GUID AFD514C97C6F4F9CA4F2BFEA2810AFC5, little-endian. */
static void guid_put(uint8_t page[512])
{
	static const uint8_t g[16] = {0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4,
				      0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5, 0xAF};
	memcpy(page + 496, g, 16);
}

static void put_le(uint8_t *p, unsigned __int128 v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Each field's value as an unsigned 128-bit number. */
typedef unsigned __int128 (*getter)(const struct ocp_log *l);
#define G(name, expr)                                                                              \
	static unsigned __int128 name(const struct ocp_log *l)                                     \
	{                                                                                          \
		return (expr);                                                                     \
	}
G(g_pmuw, l->phys_written_bytes)
G(g_pmur, l->phys_read_bytes)
G(g_bunb, l->bad_user_blocks)
G(g_bunb_n, l->bad_user_norm)
G(g_bsnb, l->bad_system_blocks)
G(g_bsnb_n, l->bad_system_norm)
G(g_xor, l->xor_recoveries)
G(g_urec, l->uncorrectable_reads)
G(g_seec, l->soft_ecc_errors)
G(g_e2e_det, l->e2e_detected)
G(g_e2e_cor, l->e2e_corrected)
G(g_sdpu, l->system_data_used_pct)
G(g_tt_count, l->throttle_events)
G(g_tt_status, l->throttle_status)
G(g_errata, l->spec_errata)
G(g_point, l->spec_point)
G(g_minor, l->spec_minor)
G(g_major, l->spec_major)
G(g_pcie, l->pcie_correctable)
G(g_ics, l->incomplete_shutdowns)
G(g_pfb, l->free_blocks_pct)
G(g_cap, l->capacitor_health)
G(g_lpv, l->version)

static const struct field {
	const char *clause; /* the row of the specification's table it checks */
	int off, width;
	getter get;
} fields[] = {
	{"bytes 15:0 Physical Media Units Written (128 bits, exact)", 0, 16, g_pmuw},
	{"bytes 31:16 Physical Media Units Read", 16, 16, g_pmur},
	{"bytes 37:32 Bad User NAND Blocks, raw count (6 bytes)", 32, 6, g_bunb},
	{"bytes 39:38 Bad User NAND Blocks, normalized value", 38, 2, g_bunb_n},
	{"bytes 45:40 Bad System NAND Blocks, raw count (6 bytes)", 40, 6, g_bsnb},
	{"bytes 47:46 Bad System NAND Blocks, normalized value", 46, 2, g_bsnb_n},
	{"bytes 55:48 XOR Recovery Count", 48, 8, g_xor},
	{"bytes 63:56 Uncorrectable Read Error Count", 56, 8, g_urec},
	{"bytes 71:64 Soft ECC Error Count", 64, 8, g_seec},
	{"bytes 75:72 End to End Correction Counts: detected errors", 72, 4, g_e2e_det},
	{"bytes 79:76 End to End Correction Counts: corrected errors", 76, 4, g_e2e_cor},
	{"byte 80 System Data % Used", 80, 1, g_sdpu},
	{"byte 96 Thermal Throttling: number of events", 96, 1, g_tt_count},
	{"byte 97 Thermal Throttling: current status", 97, 1, g_tt_status},
	{"byte 98 DSSD Specification Version: errata", 98, 1, g_errata},
	{"bytes 100:99 DSSD Specification Version: point", 99, 2, g_point},
	{"bytes 102:101 DSSD Specification Version: minor", 101, 2, g_minor},
	{"byte 103 DSSD Specification Version: major", 103, 1, g_major},
	{"bytes 111:104 PCIe Correctable Error Count", 104, 8, g_pcie},
	{"bytes 115:112 Incomplete Shutdowns", 112, 4, g_ics},
	{"byte 120 % Free Blocks", 120, 1, g_pfb},
	{"bytes 129:128 Capacitor Health", 128, 2, g_cap},
	{"bytes 495:494 Log Page Version", 494, 2, g_lpv},
};
#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

Test(ocp, every_field_at_its_offset_and_width)
{
	for (size_t i = 0; i < N_FIELDS; i++) {
		uint8_t page[512] = {0};
		struct ocp_log l;
		/* Every byte of the field set, none of its neighbours: a wrong
		 * offset or width reads a different number. */
		unsigned __int128 v = 0;
		for (int k = 0; k < fields[i].width; k++)
			v |= (unsigned __int128)(0x11 * ((k % 15) + 1)) << (8 * k);
		guid_put(page);
		put_le(page + fields[i].off, v, fields[i].width);
		cr_assert_eq(ocp_decode(page, &l), 0, "%s", fields[i].clause);
		cr_expect(fields[i].get(&l) == v, "%s", fields[i].clause);
		for (size_t j = 0; j < N_FIELDS; j++)
			if (j != i)
				cr_expect(fields[j].get(&l) == 0, "%s leaks into %s",
					  fields[i].clause, fields[j].clause);
	}
}

Test(ocp, counters_beyond_64_bits_stay_exact)
{
	uint8_t page[512] = {0};
	struct ocp_log l;
	/* 2^64 + 12345: a double would lose the low digits. */
	unsigned __int128 big = ((unsigned __int128)1 << 64) + 12345;

	guid_put(page);
	put_le(page + 0, big, 16);
	put_le(page + 16, big * 3, 16);
	cr_assert_eq(ocp_decode(page, &l), 0);
	cr_expect(l.phys_written_bytes == big);
	cr_expect(l.phys_read_bytes == big * 3);
}

Test(ocp, another_vendors_c0h_is_refused)
{
	uint8_t page[512] = {0};
	struct ocp_log l = {.bad_user_blocks = 77};

	/* A page of counters without the GUID: some vendors use C0h themselves. */
	put_le(page + 32, 5, 6);
	cr_expect_eq(ocp_decode(page, &l), -ENOMSG, "no GUID: not the OCP page");
	cr_expect_eq(l.bad_user_blocks, 77, "nothing decoded");
	guid_put(page);
	for (int b = 496; b < 512; b++) {
		uint8_t save = page[b];
		page[b] ^= 0x01;
		cr_expect_eq(ocp_decode(page, &l), -ENOMSG, "GUID byte %d changed", b);
		cr_expect_not(ocp_guid_ok(page));
		page[b] = save;
	}
	/* The GUID read big-endian (as the specification writes it) is not it either. */
	static const uint8_t be[16] = {0xAF, 0xD5, 0x14, 0xC9, 0x7C, 0x6F, 0x4F, 0x9C,
				       0xA4, 0xF2, 0xBF, 0xEA, 0x28, 0x10, 0xAF, 0xC5};
	memcpy(page + 496, be, 16);
	cr_expect_eq(ocp_decode(page, &l), -ENOMSG);
	guid_put(page);
	cr_expect_eq(ocp_decode(page, &l), 0);
	cr_expect_eq(l.bad_user_blocks, 5);
}

Test(ocp, encode_round_trip)
{
	struct ocp_log a =
			       {
				       .phys_written_bytes = (u128)3 << 70,
				       .phys_read_bytes = 999,
				       .bad_user_blocks = 0xFFFFFFFFFFFFull,
				       .bad_user_norm = 100,
				       .bad_system_blocks = 2,
				       .bad_system_norm = 99,
				       .xor_recoveries = 3,
				       .uncorrectable_reads = 4,
				       .soft_ecc_errors = 5,
				       .e2e_detected = 6,
				       .e2e_corrected = 7,
				       .system_data_used_pct = 8,
				       .throttle_events = 9,
				       .throttle_status = 1,
				       .spec_major = 2,
				       .spec_minor = 5,
				       .spec_point = 1,
				       .spec_errata = 3,
				       .pcie_correctable = 10,
				       .incomplete_shutdowns = 11,
				       .free_blocks_pct = 12,
				       .capacitor_health = 13,
				       .version = 4,
			       },
		       b;
	uint8_t page[512], again[512];

	ocp_encode(&a, page);
	cr_assert_eq(ocp_decode(page, &b), 0);
	cr_expect(b.phys_written_bytes == a.phys_written_bytes);
	cr_expect_eq(b.bad_user_blocks, a.bad_user_blocks);
	cr_expect_eq(b.spec_point, 1);
	cr_expect_eq(b.capacitor_health, 13);
	ocp_encode(&b, again);
	cr_expect_eq(memcmp(page, again, sizeof(page)), 0, "every field survives");
}

Test(ocp, write_amplification)
{
	static const struct {
		const char *rule;
		u128 phys, host_units;
		int64_t want;
	} t[] = {
		{"nothing written by the host: no ratio", 1000, 0, -1},
		{"physical = host: 1.00", 512000ull * 1000, 1000, 100},
		{"2.5 × the host's bytes", 512000ull * 2500, 1000, 250},
		{"rounded to the nearest hundredth (1.005 → 1.01)", 512000ull * 1005, 100000 / 100,
		 101},
		{"1.004 → 1.00", 512000ull * 1004, 1000, 100},
		{"past 2^64 bytes, exact", ((u128)1 << 70) * 3, ((u128)1 << 70) / 512000, 300},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(ocp_write_amp_x100(t[i].phys, t[i].host_units), t[i].want, "%s: %lld",
			     t[i].rule, (long long)ocp_write_amp_x100(t[i].phys, t[i].host_units));
}

Test(ocp, version_string)
{
	char buf[OCP_VERSION_MAX];
	struct ocp_log l = {0};

	cr_expect_str_eq(ocp_version_str(&l, buf, sizeof(buf)), "", "none reported");
	l.spec_major = 2;
	cr_expect_str_eq(ocp_version_str(&l, buf, sizeof(buf)), "2.0");
	l.spec_minor = 5;
	l.spec_point = 1;
	cr_expect_str_eq(ocp_version_str(&l, buf, sizeof(buf)), "2.5.1");
	l.spec_errata = 2;
	cr_expect_str_eq(ocp_version_str(&l, buf, sizeof(buf)), "2.5.1 errata 2");
}
