/* SPDX-License-Identifier: MIT */
/*
 * The Persistent Event Log (0Dh) from pages built byte by byte after NVMe
 * Base 2.0 §5.16.1.14: the header, the event header (EHL, VSIL, EL), each
 * event type's data at its offsets, and the incremental reading's cursor.
 * Offsets are written out here, independently of pel.c.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "nvmond/decode/pel.h"

static void put_le(uint8_t *p, unsigned __int128 v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* An event by hand: header (24 bytes, EHL 21), @vsil bytes of 0xEE, then @data. */
static size_t ev(uint8_t *p, uint8_t type, uint64_t ts, uint16_t vsil, const uint8_t *data,
		 size_t n)
{
	memset(p, 0, 24);
	p[0] = type;
	p[1] = 0;		     /* Event Type Revision */
	p[2] = 21;		     /* EHL: the header's bytes after this one */
	p[3] = 0;		     /* EHAI */
	put_le(p + 4, 0x0041, 2);    /* Controller Identifier */
	put_le(p + 6, ts, 8);	     /* Event Timestamp */
	put_le(p + 14, 0, 2);	     /* PELPID */
	put_le(p + 20, vsil, 2);     /* VSIL */
	put_le(p + 22, vsil + n, 2); /* EL: vendor information and event data */
	memset(p + 24, 0xEE, vsil);
	memcpy(p + 24 + vsil, data, n);
	return 24 + vsil + n;
}

/* Timestamp format: bits 47:0 ms, bit 48 Synch, bits 51:49 origin (001b: Set Features). */
static uint64_t ts_host(uint64_t ms)
{
	return ms | (uint64_t)1 << 49;
}

Test(pel, header_fields_at_their_offsets)
{
	uint8_t p[512] = {0};
	struct pel_header h;

	p[0] = 0x0D;					      /* Log Identifier */
	put_le(p + 4, 7, 4);				      /* TNEV */
	put_le(p + 8, 4096 + 17, 8);			      /* TLL */
	p[16] = 1;					      /* Log Revision */
	put_le(p + 18, 512, 2);				      /* LHL */
	put_le(p + 20, ts_host(1700000000000), 8);	      /* Timestamp */
	put_le(p + 28, ((unsigned __int128)1 << 64) + 5, 16); /* POH, 128 bits */
	put_le(p + 44, 321, 8);				      /* Power Cycle Count */
	put_le(p + 52, 0x144d, 2);			      /* VID */
	put_le(p + 54, 0x1028, 2);			      /* SSVID */
	memcpy(p + 56, "S6B0NL0T123456      ", 20);	      /* SN */
	memcpy(p + 76, "SAMSUNG MZQL21T9HCJR-00A07              ", 40);
	memset(p + 116, 'q', 256);   /* SUBNQN: not part of SN, MN or GN */
	put_le(p + 372, 9, 2);	     /* Generation Number */
	put_le(p + 374, 0x40001, 4); /* RCI */
	memset(p + 378, 0xEE, 102);  /* reserved */
	p[480] = 0x02;		     /* SEB: bit 1, SMART snapshot */
	p[481] = 0x20;		     /* bit 13: thermal excursion */
	cr_assert_eq(pel_header_decode(p, &h), 0);
	cr_expect_eq(h.lid, 0x0D);
	cr_expect_eq(h.tnev, 7, "bytes 7:4 TNEV");
	cr_expect_eq(h.tll, 4113, "bytes 15:8 TLL");
	cr_expect_eq(h.revision, 1, "byte 16 Log Revision");
	cr_expect_eq(h.lhl, 512, "bytes 19:18 LHL");
	cr_expect_eq(pel_ts_decode(h.timestamp).ms, 1700000000000, "bytes 27:20 Timestamp");
	cr_expect(h.poh == ((unsigned __int128)1 << 64) + 5, "bytes 43:28 POH, exact");
	cr_expect_eq(h.power_cycles, 321, "bytes 51:44 Power Cycle Count");
	cr_expect_eq(h.vid, 0x144d, "bytes 53:52 VID");
	cr_expect_eq(h.ssvid, 0x1028, "bytes 55:54 SSVID");
	cr_expect_str_eq(h.serial, "S6B0NL0T123456", "bytes 75:56 SN");
	cr_expect_str_eq(h.model, "SAMSUNG MZQL21T9HCJR-00A07", "bytes 115:76 MN");
	cr_expect_eq(h.generation, 9, "bytes 373:372 Generation Number");
	cr_expect_eq(h.rci, 0x40001, "bytes 377:374 RCI");
	cr_expect_eq(h.seb[0], 0x02, "bytes 511:480 Supported Events Bitmap");
	cr_expect_eq(h.seb[1], 0x20);

	p[0] = 0x0C;
	cr_expect_eq(pel_header_decode(p, &h), -EBADMSG, "not log 0Dh");
	p[0] = 0x0D;
	put_le(p + 8, 511, 8);
	cr_expect_eq(pel_header_decode(p, &h), -EBADMSG, "TLL shorter than the header");
}

Test(pel, timestamp_format)
{
	struct pel_ts t = pel_ts_decode(0x0001234567890ABCull | 1ull << 48 | 1ull << 49);

	cr_expect_eq(t.ms, 0x1234567890ABCull & ((1ull << 48) - 1), "bits 47:0");
	cr_expect(t.synch, "bit 48 Synch");
	cr_expect_eq(t.origin, 1, "bits 51:49 Timestamp Origin");
	cr_expect_eq(pel_ts_wall_ms(&t), (int64_t)t.ms);
	t = pel_ts_decode(5000); /* origin 000b: since a reset, no wall time */
	cr_expect_eq(t.origin, 0);
	cr_expect_eq(pel_ts_wall_ms(&t), -1);
	t = pel_ts_decode(pel_ts_raw(1700000000123));
	cr_expect_eq(pel_ts_wall_ms(&t), 1700000000123);
}

Test(pel, event_header_and_vendor_information_before_the_data)
{
	uint8_t buf[128], d[2] = {12, 0x54};
	struct pel_event e;
	/* Thermal excursion with 5 bytes of vendor specific information first. */
	size_t n = ev(buf, 0x0D, ts_host(1700000000000), 5, d, 2);

	cr_assert_eq(pel_event_size(buf, n), 31, "EHL + 3 + EL (EL counts the VSI and data)");
	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect_eq(e.type, 0x0D, "byte 0 Event Type");
	cr_expect_eq(e.cntlid, 0x41, "bytes 5:4 Controller Identifier");
	cr_expect_eq(pel_ts_wall_ms(&e.ts), 1700000000000, "bytes 13:6 Event Timestamp");
	cr_expect_eq(e.vsil, 5, "bytes 21:20 VSIL");
	cr_expect_eq(e.el, 7, "bytes 23:22 EL");
	cr_expect_eq(e.u.thermal.over_temp, 12, "data after the VSI: byte 0");
	cr_expect_eq(e.u.thermal.threshold, 0x54, "byte 1");
	cr_expect_not(e.data_short);
	cr_expect_eq(e.size, 31);

	cr_expect_eq(pel_event_size(buf, 30), -ENODATA, "one byte short");
	cr_expect_eq(pel_event_size(buf, 23), -ENODATA, "the header itself cut");
	buf[2] = 20;
	cr_expect_eq(pel_event_size(buf, n), -EBADMSG, "EHL below the 21 bytes of revision 0");
	buf[2] = 21;
	put_le(buf + 20, 8, 2);
	cr_expect_eq(pel_event_size(buf, n), -EBADMSG, "VSIL past EL");
}

Test(pel, fingerprint_is_the_entry)
{
	uint8_t a[64], b[64], d[2] = {1, 2};
	struct pel_event ea, eb;
	size_t n = ev(a, 0x0D, ts_host(1000), 0, d, 2);

	memcpy(b, a, n);
	cr_assert_eq(pel_event_decode(a, n, &ea), 0);
	cr_assert_eq(pel_event_decode(b, n, &eb), 0);
	cr_expect_eq(ea.fingerprint, eb.fingerprint, "the same bytes, the same event");
	b[n - 1] ^= 1;
	cr_assert_eq(pel_event_decode(b, n, &eb), 0);
	cr_expect_neq(ea.fingerprint, eb.fingerprint, "one byte of data differs");
}

/* One event of each type, its data laid out as Base 2.0 gives it. */
Test(pel, every_type_decoded)
{
	uint8_t buf[1024], d[600];
	struct pel_event e;
	size_t n;

	/* 01h SMART / Health Log Snapshot: the 512-byte health log. */
	memset(d, 0, sizeof(d));
	d[0] = 0x04; /* critical warning */
	put_le(d + 1, 330, 2);
	d[3] = 97;
	d[4] = 10;
	d[5] = 3;
	put_le(d + 160, 42, 16); /* media errors */
	n = ev(buf, 0x01, ts_host(1), 0, d, 512);
	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect_eq(e.u.smart.critical_warning, 4);
	cr_expect_eq(e.u.smart.temperature_k, 330);
	cr_expect_eq(e.u.smart.avail_spare, 97);
	cr_expect_eq(e.u.smart.percent_used, 3);
	cr_expect(e.u.smart.media_errors == 42);
	cr_expect_str_eq(pel_type_name(e.type), "health_snapshot");

	/* 02h Firmware Commit: old 7:0, new 15:8, action 16, slot 17, SCT 18, SC 19, VRC 21:20. */
	memset(d, 0, sizeof(d));
	memcpy(d, "1.0     ", 8);
	memcpy(d + 8, "1.1     ", 8);
	d[16] = 1;
	d[17] = 2;
	d[18] = 0;
	d[19] = 0;
	put_le(d + 20, 0xBEEF, 2);
	n = ev(buf, 0x02, ts_host(2), 0, d, 24);
	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect_str_eq(e.u.fw.old_rev, "1.0");
	cr_expect_str_eq(e.u.fw.new_rev, "1.1");
	cr_expect_eq(e.u.fw.action, 1);
	cr_expect_eq(e.u.fw.slot, 2);
	cr_expect_eq(e.u.fw.vendor_rc, 0xBEEF);
	cr_expect_str_eq(pel_type_name(e.type), "firmware_commit");

	/* 03h Timestamp Change: previous 7:0, ms since reset 15:8. */
	memset(d, 0, sizeof(d));
	put_le(d, 77, 8);
	put_le(d + 8, 123456, 8);
	n = ev(buf, 0x03, ts_host(3), 0, d, 16);
	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect_eq(e.u.tsc.prev.ms, 77);
	cr_expect_eq(e.u.tsc.ms_since_reset, 123456);

	/* 04h Power-on or Reset: FW 7:0, then 36-byte descriptors: CNTLID 1:0,
	 * FA 2, OIP 3, CPC 19:16, POM 27:20, CTS 35:28. */
	memset(d, 0, sizeof(d));
	memcpy(d, "EDA7602Q", 8);
	put_le(d + 8, 0x41, 2);
	d[10] = 1;
	d[11] = 0;
	put_le(d + 8 + 16, 9, 4);
	put_le(d + 8 + 20, 3600000, 8);
	put_le(d + 8 + 28, ts_host(4), 8);
	n = ev(buf, 0x04, ts_host(4), 0, d, 8 + 36);
	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect_str_eq(e.u.por.fw_rev, "EDA7602Q");
	cr_expect_eq(e.u.por.n_ctrl, 1);
	uint8_t big[8 + 8 * 36] = {0};
	memcpy(big, d, 8 + 36);
	size_t nb = ev(buf, 0x04, ts_host(4), 0, big, sizeof(big));
	struct pel_event e8;
	cr_assert_eq(pel_event_decode(buf, nb, &e8), 0);
	cr_expect_eq(e8.u.por.n_ctrl, 8, "eight 36-byte controller reset descriptors");
	cr_expect_eq(e.u.por.cntlid, 0x41);
	cr_expect_eq(e.u.por.fw_act, 1);
	cr_expect_eq(e.u.por.ctrl_power_cycle, 9);
	cr_expect_eq(e.u.por.power_on_ms, 3600000);

	/* 05h NVM Subsystem Hardware Error: code 1:0. */
	memset(d, 0, sizeof(d));
	put_le(d, 0x0005, 2);
	n = ev(buf, 0x05, ts_host(5), 0, d, 4);
	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect_eq(e.u.hw.code, 5);

	/* 06h Change Namespace: CDW10 3:0, NSZE 15:8, NCAP 31:24, FLBAS 32,
	 * DPS 33, NMIC 34, ANAGRPID 39:36, NVMSETID 41:40, NSID 47:44. */
	memset(d, 0, sizeof(d));
	put_le(d, 0, 4);
	put_le(d + 8, 1000000, 8);
	put_le(d + 24, 900000, 8);
	d[32] = 1;
	d[34] = 1;
	put_le(d + 36, 3, 4);
	put_le(d + 40, 2, 2);
	put_le(d + 44, 5, 4);
	n = ev(buf, 0x06, ts_host(6), 0, d, 48);
	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect_eq(e.u.ns.nsze, 1000000);
	cr_expect_eq(e.u.ns.ncap, 900000);
	cr_expect_eq(e.u.ns.flbas, 1);
	cr_expect_eq(e.u.ns.nmic, 1);
	cr_expect_eq(e.u.ns.anagrpid, 3);
	cr_expect_eq(e.u.ns.nvmsetid, 2);
	cr_expect_eq(e.u.ns.nsid, 5);

	/* 07h Format NVM Start: NSID 3:0, FNA 4, CDW10 11:8. */
	memset(d, 0, sizeof(d));
	put_le(d, 1, 4);
	d[4] = 0x4;
	put_le(d + 8, 0x200, 4);
	n = ev(buf, 0x07, ts_host(7), 0, d, 12);
	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect_eq(e.u.fmt_start.nsid, 1);
	cr_expect_eq(e.u.fmt_start.fna, 4);
	cr_expect_eq(e.u.fmt_start.cdw10, 0x200);

	/* 08h Format NVM Completion: NSID 3:0, SFPI 4, status 5, info 7:6, SF 11:8. */
	memset(d, 0, sizeof(d));
	put_le(d, 1, 4);
	d[4] = 100;
	d[5] = 0;
	put_le(d + 6, 1, 2);
	put_le(d + 8, 0x1234, 4);
	n = ev(buf, 0x08, ts_host(8), 0, d, 12);
	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect_eq(e.u.fmt_done.smallest_fpi, 100);
	cr_expect_eq(e.u.fmt_done.info, 1);
	cr_expect_eq(e.u.fmt_done.status_field, 0x1234);

	/* 09h Sanitize Start: SANICAP 3:0, CDW10 7:4, CDW11 11:8. */
	memset(d, 0, sizeof(d));
	put_le(d, 0x7, 4);
	put_le(d + 4, 0x4, 4);
	put_le(d + 8, 0x99, 4);
	n = ev(buf, 0x09, ts_host(9), 0, d, 12);
	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect_eq(e.u.san_start.sanicap, 7);
	cr_expect_eq(e.u.san_start.cdw10, 4);
	cr_expect_eq(e.u.san_start.cdw11, 0x99);

	/* 0Ah Sanitize Completion: SPROG 1:0, SSTAT 3:2, info 5:4. */
	memset(d, 0, sizeof(d));
	put_le(d, 0xFFFF, 2);
	put_le(d + 2, 0x0101, 2);
	put_le(d + 4, 2, 2);
	n = ev(buf, 0x0A, ts_host(10), 0, d, 8);
	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect_eq(e.u.san_done.sprog, 0xFFFF);
	cr_expect_eq(e.u.san_done.sstat, 0x0101);
	cr_expect_eq(e.u.san_done.info, 2);

	/* 0Bh Set Feature: layout 3:0 (bits 2:0 dwords logged), CDW10, CDW11. */
	memset(d, 0, sizeof(d));
	put_le(d, 2, 4);
	put_le(d + 4, 0x0C, 4);
	put_le(d + 8, 0x1, 4);
	n = ev(buf, 0x0B, ts_host(11), 0, d, 12);
	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect_eq(e.u.setf.fid, 0x0C);
	cr_expect(e.u.setf.has_cdw11);
	cr_expect_eq(e.u.setf.cdw11, 1);

	/* 0Ch Telemetry Log Create: the header is all nvmond keeps. */
	n = ev(buf, 0x0C, ts_host(12), 0, d, 0);
	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect_str_eq(pel_type_name(e.type), "telemetry_log");

	/* 0Dh Thermal Excursion: over temperature 0, threshold 1. */
	memset(d, 0, sizeof(d));
	d[0] = 7;
	d[1] = 85;
	n = ev(buf, 0x0D, ts_host(13), 0, d, 4);
	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect_eq(e.u.thermal.over_temp, 7);
	cr_expect_eq(e.u.thermal.threshold, 85);
	cr_expect_str_eq(pel_type_name(e.type), "thermal_excursion");

	/* A type the specification reserves: kept, named unknown. */
	n = ev(buf, 0x42, ts_host(14), 0, d, 6);
	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect_eq(e.type, 0x42);
	cr_expect_str_eq(pel_type_name(e.type), "unknown");
	char s[160];
	cr_expect_str_eq(pel_summary(&e, s, sizeof(s)),
			 "Event type 42h, unknown to nvmond (6 bytes)");
	cr_expect_str_eq(pel_type_name(0xDE), "vendor");
	cr_expect_str_eq(pel_type_name(0xDF), "tcg");
	cr_expect_eq(pel_type_from_name("thermal_excursion"), 0x0D);
	cr_expect_eq(pel_type_from_name("unknown"), -EINVAL);
	cr_expect_eq(pel_type_from_name("nonsense"), -EINVAL);
}

Test(pel, short_event_data_is_flagged)
{
	uint8_t buf[64], d[8] = {0};
	struct pel_event e;
	/* A firmware commit with 8 bytes of data instead of its 22. */
	size_t n = ev(buf, 0x02, ts_host(1), 0, d, 8);

	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect(e.data_short);
	cr_expect_str_eq(e.u.fw.new_rev, "");
}

Test(pel, summaries)
{
	uint8_t buf[128], d[32] = {0};
	struct pel_event e;
	char s[200];

	memcpy(d, "1.0     ", 8);
	memcpy(d + 8, "1.1     ", 8);
	d[16] = 1;
	d[17] = 2;
	size_t n = ev(buf, 0x02, ts_host(2), 0, d, 24);
	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect_str_eq(pel_summary(&e, s, sizeof(s)),
			 "Firmware commit: 1.0 → 1.1, slot 2, commit action 1: succeeded");
	d[18] = 1;
	d[19] = 0x07;
	n = ev(buf, 0x02, ts_host(2), 0, d, 24);
	cr_assert_eq(pel_event_decode(buf, n, &e), 0);
	cr_expect_str_eq(pel_summary(&e, s, sizeof(s)),
			 "Firmware commit: 1.0 → 1.1, slot 2, commit action 1: failed (status "
			 "1/07h)");
}

/* A log: header + @n events of 26 bytes (thermal excursions) with timestamps 1..n. */
static size_t make_log(uint8_t *log, int n, struct pel_header *h)
{
	size_t off = 512;
	uint8_t d[2];

	memset(log, 0, 512);
	for (int i = 0; i < n; i++) {
		d[0] = (uint8_t)i;
		d[1] = 80;
		off += ev(log + off, 0x0D, ts_host(1000 + (uint64_t)i), 0, d, 2);
	}
	*h = (struct pel_header){.lid = 0x0D, .tnev = (uint32_t)n, .tll = off, .generation = 1};
	return off;
}

Test(pel, cursor_first_read_takes_every_event)
{
	uint8_t log[4096];
	struct pel_header h;
	struct pel_cursor c = {0};
	struct pel_take t;
	size_t tll = make_log(log, 3, &h);

	cr_expect_eq(pel_next_read(&c), 512, "nothing read yet: the first event");
	cr_assert_eq(pel_take(&c, &h, 512, log + 512, tll - 512, &t), 0);
	cr_expect_eq(t.n, 3);
	cr_expect_eq(t.off[0], 0);
	cr_expect_eq(t.off[1], 26);
	cr_expect_eq(t.off[2], 52);
	cr_expect_not(t.more);
	cr_expect_not(t.restart);
	cr_expect_eq(t.cursor.anchor_off, 512 + 52, "the newest event is the anchor");
	cr_expect_eq(t.cursor.anchor_size, 26);
	cr_expect_eq(t.next_off, 512 + 52);
	cr_expect_eq(t.cursor.tll, tll);
}

Test(pel, cursor_reads_only_what_is_new)
{
	uint8_t log[4096];
	struct pel_header h;
	struct pel_cursor c = {0};
	struct pel_take t;
	size_t tll = make_log(log, 3, &h);

	cr_assert_eq(pel_take(&c, &h, 512, log + 512, tll - 512, &t), 0);
	c = t.cursor;
	/* Nothing new: the anchor is still the last entry. */
	uint64_t at = pel_next_read(&c);
	cr_assert_eq(pel_take(&c, &h, at, log + at, tll - at, &t), 0);
	cr_expect(t.unchanged);
	cr_expect_eq(t.n, 0);
	/* Two more events appended: the read from the anchor takes just them. */
	tll = make_log(log, 5, &h);
	cr_assert_eq(pel_take(&c, &h, at, log + at, tll - at, &t), 0);
	cr_expect_not(t.unchanged);
	cr_expect_eq(t.n, 2);
	cr_expect_eq(t.off[0], 26, "after the anchor");
	cr_expect_eq(t.cursor.anchor_off, 512 + 4 * 26);
}

Test(pel, cursor_restarts_when_the_anchor_is_gone)
{
	uint8_t log[4096];
	struct pel_header h;
	struct pel_cursor c = {0};
	struct pel_take t;
	size_t tll = make_log(log, 3, &h);

	cr_assert_eq(pel_take(&c, &h, 512, log + 512, tll - 512, &t), 0);
	c = t.cursor;
	/* The drive dropped its oldest event: everything moved up by one. */
	memmove(log + 512, log + 512 + 26, tll - 512 - 26);
	h.tll -= 26;
	uint64_t at = pel_next_read(&c);
	cr_assert_eq(pel_take(&c, &h, at, log + at, h.tll > at ? h.tll - at : 0, &t), 0);
	cr_expect(t.restart);
	cr_expect_eq(t.n, 0);
	cr_expect_eq(t.next_off, 512, "read again from the first event");
}

Test(pel, cursor_restarts_when_a_full_log_wrapped)
{
	uint8_t log[4096];
	struct pel_header h;
	struct pel_cursor c = {0};
	struct pel_take t;
	size_t tll = make_log(log, 3, &h);

	cr_assert_eq(pel_take(&c, &h, 512, log + 512, tll - 512, &t), 0);
	c = t.cursor;
	/* A full log: the oldest event went, a new one came; the length is the
	 * same and the anchor's offset holds an event of the same size. */
	uint8_t d[2] = {99, 80};
	memmove(log + 512, log + 512 + 26, 52);
	ev(log + 512 + 52, 0x0D, ts_host(5000), 0, d, 2);
	uint64_t at = pel_next_read(&c);
	cr_assert_eq(pel_take(&c, &h, at, log + at, tll - at, &t), 0);
	cr_expect(t.restart, "the anchor's place holds another event: read it all again");
	cr_expect_not(t.unchanged);
}

Test(pel, cursor_goes_on_after_a_short_read)
{
	uint8_t log[4096];
	struct pel_header h;
	struct pel_cursor c = {0};
	struct pel_take t;
	size_t tll = make_log(log, 4, &h);

	/* The read stopped 10 bytes into the third event. */
	cr_assert_eq(pel_take(&c, &h, 512, log + 512, 2 * 26 + 10, &t), 0);
	cr_expect_eq(t.n, 2);
	cr_expect(t.more);
	cr_expect_eq(t.next_off, 512 + 26, "from the last whole event");
	c = t.cursor;
	cr_assert_eq(pel_take(&c, &h, t.next_off, log + t.next_off, tll - t.next_off, &t), 0);
	cr_expect_eq(t.n, 2);
	cr_expect_not(t.more);
}

Test(pel, cursor_stops_at_a_broken_event)
{
	uint8_t log[4096];
	struct pel_header h;
	struct pel_cursor c = {0};
	struct pel_take t;
	size_t tll = make_log(log, 3, &h);

	log[512 + 26 + 2] = 3; /* the second event's EHL */
	cr_expect_eq(pel_take(&c, &h, 512, log + 512, tll - 512, &t), -EBADMSG);
	cr_expect_eq(t.n, 1, "the event before it is taken");
	cr_expect_eq(t.cursor.anchor_off, 512);
}

Test(pel, cursor_ignores_bytes_past_the_log)
{
	uint8_t log[4096];
	struct pel_header h;
	struct pel_cursor c = {0};
	struct pel_take t;
	size_t tll = make_log(log, 2, &h);

	memset(log + tll, 0xAB, 100); /* a drive that pads its answer */
	cr_assert_eq(pel_take(&c, &h, 512, log + 512, tll - 512 + 100, &t), 0);
	cr_expect_eq(t.n, 2);
}
