/* SPDX-License-Identifier: MIT */
/*
 * Power states, APST, host thermal management and namespace utilization from
 * structures built byte by byte after NVMe Base 2.0 (Identify Controller
 * Figure 275, Power State Descriptor Figure 276, §5.27.1.2 Power Management,
 * §5.27.1.11 Autonomous Power State Transition, §5.27.1.13 Host Controlled
 * Thermal Management) and the NVM Command Set 1.0 (Identify Namespace Figure
 * 97). Offsets are written out here, independently of the decoders.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "nvmond/decode/idctl.h"
#include "nvmond/decode/idns.h"
#include "nvmond/decode/power.h"

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

Test(power, descriptor_fields_and_scales)
{
	uint8_t p[32] = {0};
	struct power_state_desc d;

	put_le(p + 0, 825, 2); /* MP 15:0: 8.25 W in 0.01 W (MXPS 0) */
	p[3] = 0;
	put_le(p + 4, 5, 4);	  /* ENLAT 63:32 */
	put_le(p + 8, 100000, 4); /* EXLAT 95:64 */
	p[12] = 0x21;		  /* RRT bits 4:0 (reserved bits set) */
	p[13] = 1;
	p[14] = 2;
	p[15] = 3;
	put_le(p + 16, 350, 2); /* IDLP 143:128 */
	p[18] = 1 << 6;		/* IPS 01b: 0.0001 W */
	put_le(p + 20, 9, 2);	/* ACTP 175:160 */
	p[22] = 2 << 6 | 3;	/* APS 10b: 0.01 W; APW 3 */
	power_psd_decode(p, &d);
	cr_expect_eq(d.max_uw, 8250000, "MP × 0.01 W");
	cr_expect_not(d.non_operational);
	cr_expect_eq(d.enlat_us, 5);
	cr_expect_eq(d.exlat_us, 100000);
	cr_expect_eq(d.rrt, 1, "RRT is bits 4:0");
	cr_expect_eq(d.rrl, 1);
	cr_expect_eq(d.rwt, 2);
	cr_expect_eq(d.rwl, 3);
	cr_expect_eq(d.idle_uw, 35000, "IDLP 350 × 0.0001 W");
	cr_expect_eq(d.active_uw, 90000, "ACTP 9 × 0.01 W");

	p[3] = 0x3; /* MXPS: MP in 0.0001 W; NOPS */
	put_le(p + 0, 50, 2);
	p[18] = 0; /* IPS 00b: not reported */
	p[22] = 3 << 6;
	power_psd_decode(p, &d);
	cr_expect_eq(d.max_uw, 5000, "MP × 0.0001 W with MXPS");
	cr_expect(d.non_operational, "byte 3 bit 1 NOPS");
	cr_expect_eq(d.idle_uw, 0, "IPS 00b: not reported");
	cr_expect_eq(d.active_uw, 0, "APS 11b: reserved");
}

/*
 * The encoder (demo drives, tests) writes what the decoder reads back, for every value
 * the decoder can produce (NVMe Base 2.0 Figure 276: MP in 0.01 W or, with MXPS, in
 * 0.0001 W; IDLP and ACTP 16 bits in the scale of IPS/APS, 01b 0.0001 W, 10b 0.01 W).
 * fuzz.idctl found ACTP 16384 × 0.01 W (163.84 W) written back as 0 in 0.0001 W units.
 */
Test(power, psd_encode_gives_back_what_decode_read)
{
	static const struct {
		uint16_t mp, idlp, actp;
		uint8_t flags, ips, aps;
	} rows[] = {
		{825, 350, 9, 0, 1, 2},		/* the drive above */
		{50, 1, 65535, 1, 1, 1},	/* MXPS; 6.5535 W in 0.0001 W */
		{65535, 16384, 16384, 0, 2, 2}, /* 163.84 W in 0.01 W: over 16 bits in 0.0001 W */
		{1, 655, 656, 0, 2, 2},		/* 6.55 W fits 0.0001 W, 6.56 W does not */
		{0, 65535, 0, 0, 2, 0},		/* 655.35 W, the largest */
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint8_t p[32] = {0}, q[32];
		struct power_state_desc d, e;

		put_le(p + 0, rows[i].mp, 2);
		p[3] = rows[i].flags;
		put_le(p + 16, rows[i].idlp, 2);
		p[18] = (uint8_t)(rows[i].ips << 6);
		put_le(p + 20, rows[i].actp, 2);
		p[22] = (uint8_t)(rows[i].aps << 6);
		power_psd_decode(p, &d);
		power_psd_encode(&d, q);
		power_psd_decode(q, &e);
		cr_expect_eq(e.max_uw, d.max_uw, "row %zu: MP %u µW, back %u", i, d.max_uw,
			     e.max_uw);
		cr_expect_eq(e.idle_uw, d.idle_uw, "row %zu: IDLP %u µW, back %u", i, d.idle_uw,
			     e.idle_uw);
		cr_expect_eq(e.active_uw, d.active_uw, "row %zu: ACTP %u µW, back %u", i,
			     d.active_uw, e.active_uw);
	}
}

Test(power, identify_controller_power_and_thermal_fields)
{
	uint8_t page[IDCTL_SIZE] = {0};
	struct idctl id;

	page[76] = 0x08;		     /* CMIC: ANA reporting */
	page[263] = 4;			     /* NPSS: 5 states */
	page[265] = 0x01;		     /* APSTA */
	put_le(page + 322, 0x0001, 2);	     /* HCTMA */
	put_le(page + 324, 273 + 40, 2);     /* MNTMT */
	put_le(page + 326, 273 + 85, 2);     /* MXTMT */
	put_le(page + 348, 0xdeadbeef, 4);   /* NANAGRPID: not PELS */
	put_le(page + 352, 0x00010002, 4);   /* PELS */
	put_le(page + 2048 + 32 * 4, 5, 2);  /* PSD4 MP: 0.05 W */
	page[2048 + 32 * 4 + 3] = 0x2;	     /* PSD4 NOPS */
	put_le(page + 2048 + 32 * 31, 1, 2); /* PSD31 */
	cr_assert_eq(idctl_decode(page, &id), 0);
	cr_expect_eq(id.cmic, 0x08, "byte 76 CMIC");
	cr_expect_eq(id.npss, 4, "byte 263 NPSS");
	cr_expect_eq(id.apsta, 1, "byte 265 APSTA");
	cr_expect_eq(id.hctma, 1, "bytes 323:322 HCTMA");
	cr_expect_eq(id.mntmt, 313, "bytes 325:324 MNTMT");
	cr_expect_eq(id.mxtmt, 358, "bytes 327:326 MXTMT");
	cr_expect_eq(id.pels, 0x00010002, "bytes 355:352 PELS");
	cr_expect_eq(id.ps[4].max_uw, 50000, "PSD4 at byte 2176");
	cr_expect(id.ps[4].non_operational);
	cr_expect_not(id.ps[3].non_operational);
	cr_expect_eq(id.ps[31].max_uw, 10000, "PSD31 at byte 3040");

	struct idctl back;
	idctl_encode(&id, page);
	cr_assert_eq(idctl_decode(page, &back), 0);
	cr_expect_eq(back.hctma, id.hctma);
	cr_expect_eq(back.pels, id.pels);
	cr_expect_eq(back.ps[4].max_uw, 50000);
	cr_expect(back.ps[4].non_operational);
}

Test(power, power_management_dword)
{
	struct power_mgmt m = power_mgmt_decode(0xFFFFFF00u | 3u << 5 | 4u);

	cr_expect_eq(m.ps, 4, "bits 4:0 PS");
	cr_expect_eq(m.wh, 3, "bits 7:5 WH");
	cr_expect_eq(power_mgmt_decode(0x1f).ps, 31);
}

Test(power, apst_table)
{
	uint8_t t[APST_TABLE_SIZE] = {0};
	struct apst a;

	/* Entry 0: after 100 ms idle go to PS3; entry 3: after 2 s to PS4. */
	put_le(t + 0, (uint64_t)100 << 8 | 3 << 3, 8);
	put_le(t + 8 * 3, (uint64_t)2000 << 8 | 4 << 3 | 0x7, 8); /* bits 2:0 reserved */
	put_le(t + 8 * 31, (uint64_t)0xFFFFFF << 8 | 31 << 3, 8);
	apst_decode(0x1, t, &a);
	cr_expect(a.enabled, "Dword 0 bit 0 APSTE");
	cr_expect_eq(a.e[0].itps, 3, "bits 7:3 ITPS");
	cr_expect_eq(a.e[0].itpt_ms, 100, "bits 31:8 ITPT");
	cr_expect_eq(a.e[3].itps, 4);
	cr_expect_eq(a.e[3].itpt_ms, 2000);
	cr_expect_eq(a.e[31].itpt_ms, 0xFFFFFF, "24 bits");
	cr_expect_eq(a.e[31].itps, 31);
	apst_decode(0x0, t, &a);
	cr_expect_not(a.enabled);

	uint8_t t2[APST_TABLE_SIZE];
	struct apst b;
	a.enabled = true;
	uint32_t dw0 = apst_encode(&a, t2);
	apst_decode(dw0, t2, &b);
	cr_expect(b.enabled);
	for (int i = 0; i < APST_ENTRIES; i++)
		cr_expect(b.e[i].itps == a.e[i].itps && b.e[i].itpt_ms == a.e[i].itpt_ms,
			  "entry %d", i);
}

Test(power, apst_first_idle)
{
	struct power_state_desc psd[POWER_STATES_MAX] = {0};
	struct apst a = {.enabled = true};
	struct apst_idle r;

	psd[3].non_operational = true;
	psd[4].non_operational = true;
	a.e[0] = (struct apst_entry){.itps = 3, .itpt_ms = 100};
	a.e[1] = (struct apst_entry){.itps = 2, .itpt_ms = 50};
	a.e[2] = (struct apst_entry){.itps = 4, .itpt_ms = 500};
	r = apst_first_idle(&a, psd, 4, 0);
	cr_expect(r.reaches);
	cr_expect_eq(r.idle_ms, 100);
	cr_expect_eq(r.to_ps, 3);
	r = apst_first_idle(&a, psd, 4, 1);
	cr_expect(r.reaches, "PS1 → PS2 (operational) → PS4");
	cr_expect_eq(r.idle_ms, 550);
	cr_expect_eq(r.from_ps, 1);
	cr_expect_eq(r.to_ps, 4);
	a.e[3] = (struct apst_entry){.itps = 4, .itpt_ms = 2000};
	r = apst_first_idle(&a, psd, 4, 3);
	cr_expect(r.reaches && r.from_ps == 0 && r.to_ps == 3 && r.idle_ms == 100,
		  "read in PS3 (the read woke it): from PS0, not PS3 → PS4");
	a.enabled = false;
	cr_expect_not(apst_first_idle(&a, psd, 4, 0).reaches, "APST off");
	a.enabled = true;
	a.e[0].itpt_ms = 0;
	cr_expect_not(apst_first_idle(&a, psd, 4, 0).reaches, "ITPT 0: no transition");
	a.e[0] = (struct apst_entry){.itps = 9, .itpt_ms = 10};
	cr_expect_not(apst_first_idle(&a, psd, 4, 0).reaches, "to a state past NPSS");
	/* A loop between operational states ends. */
	a.e[0] = (struct apst_entry){.itps = 1, .itpt_ms = 10};
	a.e[1] = (struct apst_entry){.itps = 0, .itpt_ms = 10};
	cr_expect_not(apst_first_idle(&a, psd, 4, 0).reaches);
}

Test(power, hctm_dword)
{
	struct hctm h = hctm_decode((uint32_t)(273 + 75) << 16 | (273 + 80));

	cr_expect_eq(h.tmt1_k, 348, "bits 31:16 TMT1");
	cr_expect_eq(h.tmt2_k, 353, "bits 15:0 TMT2");
	h = hctm_decode(0);
	cr_expect_eq(h.tmt1_k, 0, "0: disabled");
	cr_expect_eq(h.tmt2_k, 0);
}

Test(power, identify_namespace)
{
	uint8_t page[IDNS_SIZE] = {0};
	struct idns ns;

	put_le(page + 0, 1000000, 8); /* NSZE 7:0 */
	put_le(page + 8, 900000, 8);  /* NCAP 15:8 */
	put_le(page + 16, 250000, 8); /* NUSE 23:16 */
	page[26] = 0x01;	      /* FLBAS: format 1 */
	page[30] = 0x01;	      /* NMIC */
	put_le(page + 92, 7, 4);      /* ANAGRPID 95:92 */
	page[128 + 4 * 0 + 2] = 9;    /* LBAF0: 512 */
	page[128 + 4 * 1 + 2] = 12;   /* LBAF1: 4096 */
	page[128 + 4 * 17 + 2] = 13;  /* LBAF17: 8192 */
	cr_assert_eq(idns_decode(page, &ns), 0);
	cr_expect_eq(ns.nsze, 1000000);
	cr_expect_eq(ns.ncap, 900000);
	cr_expect_eq(ns.nuse, 250000);
	cr_expect_eq(ns.lba_size, 4096, "LBAF1's LBADS 12");
	cr_expect_eq(ns.nmic, 1);
	cr_expect_eq(ns.anagrpid, 7);
	page[26] = 0x01 | 1 << 5; /* format 17: FLBAS bits 6:5 above bits 3:0 */
	cr_assert_eq(idns_decode(page, &ns), 0);
	cr_expect_eq(ns.lba_size, 8192);
	page[26] = 0x02; /* LBAF2: LBADS 0, unknown */
	cr_assert_eq(idns_decode(page, &ns), 0);
	cr_expect_eq(ns.lba_size, 0);
	/* LBADS is "reported as a power of two (2^n)", 9 (512 bytes) at least (NVMe 2.0
	 * Fig. 281); 2^31 is the largest a 32-bit size holds, past it no size is known. */
	page[26] = 0x02;
	page[128 + 4 * 2 + 2] = 31;
	cr_assert_eq(idns_decode(page, &ns), 0);
	cr_expect_eq(ns.lba_size, 1u << 31);
	page[128 + 4 * 2 + 2] = 32;
	cr_assert_eq(idns_decode(page, &ns), 0);
	cr_expect_eq(ns.lba_size, 0, "LBADS 32: no 32-bit size");
	page[128 + 4 * 2 + 2] = 8;
	cr_assert_eq(idns_decode(page, &ns), 0);
	cr_expect_eq(ns.lba_size, 0, "LBADS 8: below 512 bytes");
	page[128 + 4 * 2 + 2] = 0;

	struct idns a = {.nsze = 10, .ncap = 9, .nuse = 8, .lba_size = 4096, .anagrpid = 2}, b;
	idns_encode(&a, page);
	cr_assert_eq(idns_decode(page, &b), 0);
	cr_expect(b.nsze == 10 && b.ncap == 9 && b.nuse == 8 && b.lba_size == 4096 &&
		  b.anagrpid == 2);
}
