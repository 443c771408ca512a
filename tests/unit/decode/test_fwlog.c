/* SPDX-License-Identifier: MIT */
/*
 * The Firmware Slot Information log (03h) from pages built byte by byte after
 * NVMe Base 2.0 Figure 209 (AFI in byte 0, FRS1..FRS7 in bytes 8..63), and
 * when a revision change becomes a firmware_changed event.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "nvmond/decode/fwlog.h"

/* A page: AFI, then FRS<slot> = @rev copied raw (8 bytes, not terminated). */
static void frs_put(uint8_t page[FWLOG_SIZE], int slot, const char rev[8])
{
	memcpy(page + 8 + (slot - 1) * 8, rev, 8);
}

Test(fwlog, decode_spec_layout)
{
	uint8_t page[FWLOG_SIZE] = {0};
	struct fwlog l;

	/* Running from slot 2, slot 3 to be activated at the next reset. */
	page[0] = 0x3 << 4 | 0x2;
	frs_put(page, 1, "1B2QGXA7");
	frs_put(page, 2, "4B2QGXA7");
	frs_put(page, 3, "5B2QGXA7");
	cr_assert_eq(fwlog_decode(page, &l), 0);
	cr_expect_eq(l.active_slot, 2);
	cr_expect_eq(l.next_slot, 3);
	cr_expect_str_eq(l.frs[0], "1B2QGXA7");
	cr_expect_str_eq(l.frs[1], "4B2QGXA7");
	cr_expect_str_eq(l.frs[2], "5B2QGXA7");
	for (int i = 3; i < FWLOG_SLOTS; i++)
		cr_expect_str_eq(l.frs[i], "", "slot %d: all zero is empty", i + 1);
	cr_expect_str_eq(fwlog_active_rev(&l), "4B2QGXA7");
	cr_expect_str_eq(fwlog_pending_rev(&l), "5B2QGXA7");

	/* Reserved bits 3 and 7 of AFI are ignored; FRS7 is bytes 56..63. */
	memset(page, 0, sizeof(page));
	page[0] = 0x80 | 0x08 | 0x7;
	frs_put(page, 7, "002C    ");
	page[64] = 'X'; /* reserved */
	cr_assert_eq(fwlog_decode(page, &l), 0);
	cr_expect_eq(l.active_slot, 7);
	cr_expect_eq(l.next_slot, 0);
	cr_expect_str_eq(l.frs[6], "002C", "blank padding is no part of the revision");
	cr_expect_str_eq(fwlog_active_rev(&l), "002C");
	cr_expect_null(fwlog_pending_rev(&l), "no next slot indicated");

	/* Non-printable bytes as in Identify: '?'; a NUL-terminated short one. */
	memset(page, 0, sizeof(page));
	page[0] = 0x1;
	frs_put(page, 1, "EDA7\x01\0\0\0");
	cr_assert_eq(fwlog_decode(page, &l), 0);
	cr_expect_str_eq(l.frs[0], "EDA7?");
}

Test(fwlog, active_and_pending_edge_cases)
{
	struct fwlog l = {.active_slot = 0, .frs = {"A"}};

	cr_expect_null(fwlog_active_rev(&l), "slot 0 is invalid");
	l.active_slot = 2;
	cr_expect_null(fwlog_active_rev(&l), "an empty active slot");
	l = (struct fwlog){.active_slot = 1, .next_slot = 1, .frs = {"A", "B"}};
	cr_expect_null(fwlog_pending_rev(&l), "next = active: nothing staged");
	l.next_slot = 2;
	cr_expect_str_eq(fwlog_pending_rev(&l), "B");
	l.next_slot = 3;
	cr_expect_null(fwlog_pending_rev(&l), "the next slot is empty");
	l = (struct fwlog){.active_slot = 1, .next_slot = 2, .frs = {"A", "A"}};
	cr_expect_null(fwlog_pending_rev(&l), "the same revision in another slot");
}

Test(fwlog, encode_round_trip)
{
	struct fwlog a = {.active_slot = 1, .next_slot = 2, .frs = {"5B2QGXA7", "6B2QGXA7"}}, b;
	uint8_t page[FWLOG_SIZE];

	fwlog_encode(&a, page);
	cr_expect_eq(page[0], 0x21);
	cr_expect_eq(memcmp(page + 8, "5B2QGXA7", 8), 0);
	cr_expect_eq(page[24], 0, "an empty slot stays all zero");
	cr_assert_eq(fwlog_decode(page, &b), 0);
	cr_expect_eq(b.active_slot, 1);
	cr_expect_eq(b.next_slot, 2);
	for (int i = 0; i < FWLOG_SLOTS; i++)
		cr_expect_str_eq(b.frs[i], a.frs[i], "slot %d", i + 1);
}

/* After an update, running from slot 2; and with the update staged in slot 2. */
static const struct fwlog upd = {.active_slot = 2, .frs = {"5B2QGXA7", "6B2QGXA7"}};
static const struct fwlog staged = {
	.active_slot = 1, .next_slot = 2, .frs = {"5B2QGXA7", "6B2QGXA7"}};

Test(fwlog, change_events)
{
	static const struct {
		const char *name, *prev, *fr;
		const struct fwlog *slots;
		bool changed;
		const char *old_rev, *new_rev, *current, *pending;
	} cases[] = {
		{"first sight is the baseline", NULL, "5B2QGXA7", NULL, false, "", "", "5B2QGXA7",
		 ""},
		{"first sight, empty record", "", "5B2QGXA7", &staged, false, "", "", "5B2QGXA7",
		 "6B2QGXA7"},
		{"unchanged", "5B2QGXA7", "5B2QGXA7", NULL, false, "", "", "5B2QGXA7", ""},
		{"padding is no change", "5B2QGXA7", "  5B2QGXA7 ", NULL, false, "", "", "5B2QGXA7",
		 ""},
		{"updated (FR)", "5B2QGXA7", "6B2QGXA7", NULL, true, "5B2QGXA7", "6B2QGXA7",
		 "6B2QGXA7", ""},
		{"updated, FR and the slot log agree", "5B2QGXA7", "6B2QGXA7", &upd, true,
		 "5B2QGXA7", "6B2QGXA7", "6B2QGXA7", ""},
		{"downgraded is a change too", "6B2QGXA7", "5B2QGXA7", NULL, true, "6B2QGXA7",
		 "5B2QGXA7", "5B2QGXA7", ""},
		{"staged, not running yet", "5B2QGXA7", "5B2QGXA7", &staged, false, "", "",
		 "5B2QGXA7", "6B2QGXA7"},
		{"FR unknown: the active slot", "5B2QGXA7", NULL, &upd, true, "5B2QGXA7",
		 "6B2QGXA7", "6B2QGXA7", ""},
		{"FR wins over the slot log", "5B2QGXA7", "5B2QGXA7", &upd, false, "", "",
		 "5B2QGXA7", ""},
		{"nothing known now", "5B2QGXA7", "", NULL, false, "", "", "", ""},
		{"QEMU's version string", "8.2.2", "9.0.0", NULL, true, "8.2.2", "9.0.0", "9.0.0",
		 ""},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fw_change c;

		cr_expect_eq(fwlog_change(cases[i].prev, cases[i].fr, cases[i].slots, &c),
			     cases[i].changed, "%s", cases[i].name);
		cr_expect_eq(c.changed, cases[i].changed, "%s", cases[i].name);
		cr_expect_str_eq(c.old_rev, cases[i].old_rev, "%s", cases[i].name);
		cr_expect_str_eq(c.new_rev, cases[i].new_rev, "%s", cases[i].name);
		cr_expect_str_eq(c.current, cases[i].current, "%s", cases[i].name);
		cr_expect_str_eq(c.pending, cases[i].pending, "%s", cases[i].name);
	}
}
