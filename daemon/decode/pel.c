/* SPDX-License-Identifier: MIT */
/*
 * The Persistent Event Log (0Dh): its header and events decoded from the raw
 * bytes, and the incremental reading's cursor. See pel.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/decode/idctl.h"
#include "nvmond/decode/pel.h"
#include "nvmond/util/le.h"

/* Header offsets (NVMe Base 2.0 §5.16.1.14, "Persistent Event Log Header"). */
enum {
	H_LID = 0,
	H_TNEV = 4,	/* 4 bytes */
	H_TLL = 8,	/* 8 */
	H_REV = 16,	/* 1 */
	H_LHL = 18,	/* 2 */
	H_TS = 20,	/* 8 */
	H_POH = 28,	/* 16 */
	H_PCC = 44,	/* 8 */
	H_VID = 52,	/* 2 */
	H_SSVID = 54,	/* 2 */
	H_SN = 56,	/* 20 */
	H_MN = 76,	/* 40 */
	H_SUBNQN = 116, /* 256 */
	H_GEN = 372,	/* 2 */
	H_RCI = 374,	/* 4 */
	H_SEB = 480,	/* 32; bytes 479:378 reserved */
};

_Static_assert(H_SEB + 32 == PEL_HEADER_SIZE, "the bitmap ends the header");

/* Event header offsets ("Persistent Event Log Event Format"). */
enum {
	E_TYPE = 0,
	E_REV = 1,
	E_EHL = 2, /* the header's length after this byte: 21 for revision 0 */
	E_EHAI = 3,
	E_CNTLID = 4,  /* 2 */
	E_TS = 6,      /* 8 */
	E_PELPID = 14, /* 2 */
	E_VSIL = 20,   /* 2 */
	E_EL = 22,     /* 2: vendor specific information and event data */
	EHL_MIN = PEL_EVENT_HEADER_SIZE - 3,
};

/* The Timestamp feature's format: bits 47:0 ms, bit 48 Synch, bits 51:49 origin. */
enum { TS_MS_BITS = 48, TS_SYNCH_BIT = 48, TS_ORIGIN_SHIFT = 49, TS_ORIGIN_MASK = 0x7 };

/* Each event type's data, offsets from the start of its event data. */
enum {
	FW_OLD = 0, /* 8 */
	FW_NEW = 8, /* 8 */
	FW_ACTION = 16,
	FW_SLOT = 17,
	FW_SCT = 18,
	FW_SC = 19,
	FW_VRC = 20, /* 2 */
	FW_LEN = 22,
	TSC_PREV = 0,	     /* 8 */
	TSC_SINCE_RESET = 8, /* 8 */
	TSC_LEN = 16,
	POR_FW = 0,   /* 8 */
	POR_DESC = 8, /* then descriptors of POR_DESC_LEN bytes: */
	POR_DESC_LEN = 36,
	POR_CNTLID = 0, /* 2 */
	POR_FWACT = 2,
	POR_OPIP = 3,
	POR_CPC = 16, /* 4 */
	POR_PON = 20, /* 8 */
	POR_CTS = 28, /* 8 */
	HW_CODE = 0,  /* 2 */
	HW_LEN = 4,
	NS_CDW10 = 0, /* 4 */
	NS_NSZE = 8,  /* 8 */
	NS_NCAP = 24, /* 8 */
	NS_FLBAS = 32,
	NS_DPS = 33,
	NS_NMIC = 34,
	NS_ANAGRPID = 36, /* 4 */
	NS_NVMSETID = 40, /* 2 */
	NS_NSID = 44,	  /* 4 */
	NS_LEN = 48,
	FS_NSID = 0, /* 4 */
	FS_FNA = 4,
	FS_CDW10 = 8, /* 4 */
	FS_LEN = 12,
	FD_NSID = 0, /* 4 */
	FD_FPI = 4,
	FD_STATUS = 5,
	FD_INFO = 6, /* 2 */
	FD_SF = 8,   /* 4 */
	FD_LEN = 12,
	SS_SANICAP = 0, /* 4 */
	SS_CDW10 = 4,	/* 4 */
	SS_CDW11 = 8,	/* 4 */
	SS_LEN = 12,
	SD_SPROG = 0, /* 2 */
	SD_SSTAT = 2, /* 2 */
	SD_INFO = 4,  /* 2 */
	SD_LEN = 6,
	SF_LAYOUT = 0, /* 4: bits 2:0 the command dwords logged, from CDW10 */
	SF_CDW10 = 4,
	SF_CDW11 = 8,
	SF_DW_MASK = 0x7,
	TE_OVER = 0,
	TE_THRESH = 1,
	TE_LEN = 2,
};

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

int pel_header_decode(const uint8_t page[PEL_HEADER_SIZE], struct pel_header *ret)
{
	struct pel_header h = {
		.lid = page[H_LID],
		.tnev = (uint32_t)le_get(page + H_TNEV, 4),
		.tll = le_get(page + H_TLL, 8),
		.revision = page[H_REV],
		.lhl = (uint16_t)le_get(page + H_LHL, 2),
		.timestamp = le_get(page + H_TS, 8),
		.poh = u128_from_le(page + H_POH),
		.power_cycles = le_get(page + H_PCC, 8),
		.vid = (uint16_t)le_get(page + H_VID, 2),
		.ssvid = (uint16_t)le_get(page + H_SSVID, 2),
		.generation = (uint16_t)le_get(page + H_GEN, 2),
		.rci = (uint32_t)le_get(page + H_RCI, 4),
	};

	if (h.lid != PEL_LID || h.tll < PEL_HEADER_SIZE)
		return -EBADMSG;
	idctl_str_clean(h.serial, page + H_SN, 20);
	idctl_str_clean(h.model, page + H_MN, 40);
	memcpy(h.seb, page + H_SEB, sizeof(h.seb));
	*ret = h;
	return 0;
}

struct pel_ts pel_ts_decode(uint64_t raw)
{
	return (struct pel_ts){
		.ms = raw & ((1ull << TS_MS_BITS) - 1),
		.synch = (raw >> TS_SYNCH_BIT) & 1,
		.origin = (uint8_t)((raw >> TS_ORIGIN_SHIFT) & TS_ORIGIN_MASK),
	};
}

int64_t pel_ts_wall_ms(const struct pel_ts *t)
{
	return t->origin == 1 ? (int64_t)t->ms : -1;
}

uint64_t pel_ts_raw(int64_t ms)
{
	return ((uint64_t)ms & ((1ull << TS_MS_BITS) - 1)) | 1ull << TS_ORIGIN_SHIFT;
}

int64_t pel_event_size(const uint8_t *buf, size_t len)
{
	if (len < PEL_EVENT_HEADER_SIZE)
		return -ENODATA;
	if (buf[E_EHL] < EHL_MIN)
		return -EBADMSG;
	uint64_t size = (uint64_t)buf[E_EHL] + 3 + le_get(buf + E_EL, 2);
	if (le_get(buf + E_VSIL, 2) > le_get(buf + E_EL, 2))
		return -EBADMSG; /* the vendor information is part of EL */
	return size > len ? -ENODATA : (int64_t)size;
}

static void rev_copy(char dst[9], const uint8_t *src)
{
	idctl_str_clean(dst, src, 8);
}

/* The fields of each type, from its event data @d of @n bytes. */
static void decode_data(struct pel_event *e, const uint8_t *d, size_t n)
{
	struct smart_log s;

	switch (e->type) {
	case PEL_SMART_SNAPSHOT:
		if (n < SMART_LOG_SIZE)
			break;
		smart_decode(d, &s);
		e->u.smart.critical_warning = s.critical_warning;
		e->u.smart.temperature_k = s.temperature_k;
		e->u.smart.avail_spare = s.avail_spare;
		e->u.smart.spare_thresh = s.spare_thresh;
		e->u.smart.percent_used = s.percent_used;
		e->u.smart.media_errors = s.media_errors;
		e->u.smart.power_on_hours = s.power_on_hours;
		return;
	case PEL_FW_COMMIT:
		if (n < FW_LEN)
			break;
		rev_copy(e->u.fw.old_rev, d + FW_OLD);
		rev_copy(e->u.fw.new_rev, d + FW_NEW);
		e->u.fw.action = d[FW_ACTION];
		e->u.fw.slot = d[FW_SLOT];
		e->u.fw.sct = d[FW_SCT];
		e->u.fw.sc = d[FW_SC];
		e->u.fw.vendor_rc = (uint16_t)le_get(d + FW_VRC, 2);
		return;
	case PEL_TIMESTAMP_CHANGE:
		if (n < TSC_LEN)
			break;
		e->u.tsc.prev = pel_ts_decode(le_get(d + TSC_PREV, 8));
		e->u.tsc.ms_since_reset = le_get(d + TSC_SINCE_RESET, 8);
		return;
	case PEL_POWER_ON_RESET:
		if (n < POR_DESC + POR_DESC_LEN)
			break;
		rev_copy(e->u.por.fw_rev, d + POR_FW);
		e->u.por.n_ctrl = (uint32_t)((n - POR_DESC) / POR_DESC_LEN);
		e->u.por.cntlid = (uint16_t)le_get(d + POR_DESC + POR_CNTLID, 2);
		e->u.por.fw_act = d[POR_DESC + POR_FWACT];
		e->u.por.op_in_prog = d[POR_DESC + POR_OPIP];
		e->u.por.ctrl_power_cycle = (uint32_t)le_get(d + POR_DESC + POR_CPC, 4);
		e->u.por.power_on_ms = le_get(d + POR_DESC + POR_PON, 8);
		e->u.por.ctrl_ts = le_get(d + POR_DESC + POR_CTS, 8);
		return;
	case PEL_HW_ERROR:
		if (n < HW_LEN)
			break;
		e->u.hw.code = (uint16_t)le_get(d + HW_CODE, 2);
		return;
	case PEL_NS_CHANGE:
		if (n < NS_LEN)
			break;
		e->u.ns.cdw10 = (uint32_t)le_get(d + NS_CDW10, 4);
		e->u.ns.nsze = le_get(d + NS_NSZE, 8);
		e->u.ns.ncap = le_get(d + NS_NCAP, 8);
		e->u.ns.flbas = d[NS_FLBAS];
		e->u.ns.dps = d[NS_DPS];
		e->u.ns.nmic = d[NS_NMIC];
		e->u.ns.anagrpid = (uint32_t)le_get(d + NS_ANAGRPID, 4);
		e->u.ns.nvmsetid = (uint16_t)le_get(d + NS_NVMSETID, 2);
		e->u.ns.nsid = (uint32_t)le_get(d + NS_NSID, 4);
		return;
	case PEL_FORMAT_START:
		if (n < FS_LEN)
			break;
		e->u.fmt_start.nsid = (uint32_t)le_get(d + FS_NSID, 4);
		e->u.fmt_start.fna = d[FS_FNA];
		e->u.fmt_start.cdw10 = (uint32_t)le_get(d + FS_CDW10, 4);
		return;
	case PEL_FORMAT_DONE:
		if (n < FD_LEN)
			break;
		e->u.fmt_done.nsid = (uint32_t)le_get(d + FD_NSID, 4);
		e->u.fmt_done.smallest_fpi = d[FD_FPI];
		e->u.fmt_done.status = d[FD_STATUS];
		e->u.fmt_done.info = (uint16_t)le_get(d + FD_INFO, 2);
		e->u.fmt_done.status_field = (uint32_t)le_get(d + FD_SF, 4);
		return;
	case PEL_SANITIZE_START:
		if (n < SS_LEN)
			break;
		e->u.san_start.sanicap = (uint32_t)le_get(d + SS_SANICAP, 4);
		e->u.san_start.cdw10 = (uint32_t)le_get(d + SS_CDW10, 4);
		e->u.san_start.cdw11 = (uint32_t)le_get(d + SS_CDW11, 4);
		return;
	case PEL_SANITIZE_DONE:
		if (n < SD_LEN)
			break;
		e->u.san_done.sprog = (uint16_t)le_get(d + SD_SPROG, 2);
		e->u.san_done.sstat = (uint16_t)le_get(d + SD_SSTAT, 2);
		e->u.san_done.info = (uint16_t)le_get(d + SD_INFO, 2);
		return;
	case PEL_SET_FEATURE:
		if (n < SF_CDW10)
			break;
		e->u.setf.layout = (uint32_t)le_get(d + SF_LAYOUT, 4);
		if ((e->u.setf.layout & SF_DW_MASK) >= 1 && n >= SF_CDW10 + 4)
			e->u.setf.fid = d[SF_CDW10];
		if ((e->u.setf.layout & SF_DW_MASK) >= 2 && n >= SF_CDW11 + 4) {
			e->u.setf.has_cdw11 = true;
			e->u.setf.cdw11 = (uint32_t)le_get(d + SF_CDW11, 4);
		}
		return;
	case PEL_THERMAL_EXCURSION:
		if (n < TE_LEN)
			break;
		e->u.thermal.over_temp = d[TE_OVER];
		e->u.thermal.threshold = d[TE_THRESH];
		return;
	default: /* telemetry, vendor, TCG and unknown types: the header is all */
		return;
	}
	e->data_short = true;
}

int pel_event_decode(const uint8_t *buf, size_t len, struct pel_event *ret)
{
	int64_t size = pel_event_size(buf, len);
	struct pel_event e = {0};

	if (size < 0)
		return (int)size;
	e.type = buf[E_TYPE];
	e.revision = buf[E_REV];
	e.cntlid = (uint16_t)le_get(buf + E_CNTLID, 2);
	e.ts = pel_ts_decode(le_get(buf + E_TS, 8));
	e.vsil = (uint16_t)le_get(buf + E_VSIL, 2);
	e.el = (uint16_t)le_get(buf + E_EL, 2);
	e.size = (uint32_t)size;
	e.fingerprint = fnv1a(buf, (size_t)size);
	/* The vendor specific information comes first, then the event data. */
	size_t data = (size_t)buf[E_EHL] + 3 + e.vsil;
	decode_data(&e, buf + data, (size_t)size - data);
	*ret = e;
	return 0;
}

static const char *const type_names[] = {
	[PEL_SMART_SNAPSHOT] = "health_snapshot",
	[PEL_FW_COMMIT] = "firmware_commit",
	[PEL_TIMESTAMP_CHANGE] = "timestamp_change",
	[PEL_POWER_ON_RESET] = "power_on_reset",
	[PEL_HW_ERROR] = "hardware_error",
	[PEL_NS_CHANGE] = "namespace_change",
	[PEL_FORMAT_START] = "format_start",
	[PEL_FORMAT_DONE] = "format_done",
	[PEL_SANITIZE_START] = "sanitize_start",
	[PEL_SANITIZE_DONE] = "sanitize_done",
	[PEL_SET_FEATURE] = "set_feature",
	[PEL_TELEMETRY_CREATED] = "telemetry_log",
	[PEL_THERMAL_EXCURSION] = "thermal_excursion",
};

const char *pel_type_name(uint8_t type)
{
	if (type < sizeof(type_names) / sizeof(type_names[0]) && type_names[type])
		return type_names[type];
	if (type == PEL_VENDOR)
		return "vendor";
	if (type == PEL_TCG)
		return "tcg";
	return "unknown";
}

int pel_type_from_name(const char *name)
{
	for (unsigned t = 0; t < 256; t++)
		if (strcmp(pel_type_name((uint8_t)t), name) == 0 && strcmp(name, "unknown") != 0)
			return (int)t;
	return -EINVAL;
}

/* "3 h 20 min" of @ms, for a summary. */
static void dur_str(uint64_t ms, char *buf, size_t len)
{
	uint64_t min = ms / 60000;

	if (min < 60)
		snprintf(buf, len, "%" PRIu64 " min", min);
	else if (min < 48 * 60)
		snprintf(buf, len, "%" PRIu64 " h %" PRIu64 " min", min / 60, min % 60);
	else
		snprintf(buf, len, "%" PRIu64 " days", min / (24 * 60));
}

char *pel_summary(const struct pel_event *e, char *buf, size_t len)
{
	char a[32], b[40];

	if (e->data_short && e->type != PEL_TELEMETRY_CREATED) {
		snprintf(buf, len, "%s (its event data is shorter than the specification's)",
			 pel_type_name(e->type));
		return buf;
	}
	switch (e->type) {
	case PEL_SMART_SNAPSHOT:
		u128_to_dec(e->u.smart.media_errors, b);
		snprintf(buf, len,
			 "Health log snapshot: available spare %u %%, %u %% used, %s media errors, "
			 "critical warning %#x",
			 e->u.smart.avail_spare, e->u.smart.percent_used, b,
			 e->u.smart.critical_warning);
		break;
	case PEL_FW_COMMIT:
		snprintf(buf, len, "Firmware commit: %s → %s, slot %u, commit action %u: %s",
			 e->u.fw.old_rev[0] ? e->u.fw.old_rev : "?",
			 e->u.fw.new_rev[0] ? e->u.fw.new_rev : "?", e->u.fw.slot, e->u.fw.action,
			 e->u.fw.sct || e->u.fw.sc ? "failed" : "succeeded");
		if (e->u.fw.sct || e->u.fw.sc) {
			size_t k = strlen(buf);
			snprintf(buf + k, len - k, " (status %x/%02xh)", e->u.fw.sct, e->u.fw.sc);
		}
		break;
	case PEL_TIMESTAMP_CHANGE:
		snprintf(buf, len, "Timestamp changed (it was %s)",
			 e->u.tsc.prev.origin == 1 ? "set by the host" : "counting from a reset");
		break;
	case PEL_POWER_ON_RESET:
		dur_str(e->u.por.power_on_ms, a, sizeof(a));
		snprintf(
			buf, len,
			"Power-on or reset: firmware %s, controller %u, power cycle %u, powered on "
			"for %s",
			e->u.por.fw_rev[0] ? e->u.por.fw_rev : "?", e->u.por.cntlid,
			e->u.por.ctrl_power_cycle, a);
		break;
	case PEL_HW_ERROR:
		snprintf(buf, len, "NVM subsystem hardware error, code %04xh", e->u.hw.code);
		break;
	case PEL_NS_CHANGE:
		snprintf(buf, len, "Namespace %u %s (size %" PRIu64 " blocks)", e->u.ns.nsid,
			 (e->u.ns.cdw10 & 0xf) == 0   ? "created"
			 : (e->u.ns.cdw10 & 0xf) == 1 ? "deleted"
						      : "changed",
			 e->u.ns.nsze);
		break;
	case PEL_FORMAT_START:
		snprintf(buf, len, "Format NVM started on namespace %#x", e->u.fmt_start.nsid);
		break;
	case PEL_FORMAT_DONE:
		snprintf(buf, len, "Format NVM of namespace %#x ended: %s", e->u.fmt_done.nsid,
			 e->u.fmt_done.status == 0 ? "succeeded" : "failed");
		break;
	case PEL_SANITIZE_START:
		snprintf(buf, len, "Sanitize started (action %u)", e->u.san_start.cdw10 & 0x7);
		break;
	case PEL_SANITIZE_DONE:
		snprintf(buf, len, "Sanitize ended: %s",
			 (e->u.san_done.sstat & 0x7) == 1 || (e->u.san_done.sstat & 0x7) == 4
				 ? "succeeded"
			 : (e->u.san_done.sstat & 0x7) == 3 ? "failed"
							    : "status unknown");
		break;
	case PEL_SET_FEATURE:
		if (e->u.setf.has_cdw11)
			snprintf(buf, len, "Set Features %02xh to %#x", e->u.setf.fid,
				 e->u.setf.cdw11);
		else
			snprintf(buf, len, "Set Features %02xh", e->u.setf.fid);
		break;
	case PEL_TELEMETRY_CREATED:
		snprintf(buf, len, "Telemetry log created");
		break;
	case PEL_THERMAL_EXCURSION:
		snprintf(buf, len, "Thermal excursion: over temperature %u, threshold %u",
			 e->u.thermal.over_temp, e->u.thermal.threshold);
		break;
	case PEL_VENDOR:
		snprintf(buf, len, "Vendor specific event (%u bytes)", e->el);
		break;
	case PEL_TCG:
		snprintf(buf, len, "TCG defined event (%u bytes)", e->el);
		break;
	default:
		snprintf(buf, len, "Event type %02xh, unknown to nvmond (%u bytes)", e->type,
			 e->el);
	}
	return buf;
}

uint64_t pel_next_read(const struct pel_cursor *c)
{
	return c->anchor_off ? c->anchor_off : PEL_HEADER_SIZE;
}

/* Whether the entry at @data is the anchor of @c. */
static bool anchor_here(const struct pel_cursor *c, const uint8_t *data, size_t len)
{
	int64_t size = pel_event_size(data, len);

	return size > 0 && (uint64_t)size == c->anchor_size &&
	       fnv1a(data, (size_t)size) == c->anchor_fp;
}

int pel_take(const struct pel_cursor *c, const struct pel_header *h, uint64_t off,
	     const uint8_t *data, size_t len, struct pel_take *ret)
{
	struct pel_take t = {.cursor = *c};
	size_t pos = 0;
	int r = 0;

	t.cursor.tll = h->tll;
	t.cursor.tnev = h->tnev;
	t.cursor.generation = h->generation;
	bool at_anchor = c->anchor_off != 0 && off == c->anchor_off;
	bool verified = at_anchor && anchor_here(c, data, len);
	if (verified) {
		pos = c->anchor_size;
	} else if (off != PEL_HEADER_SIZE) {
		/* The anchor moved or went: read the log again from its first event. */
		t.restart = true;
		t.cursor.anchor_off = 0;
		t.next_off = PEL_HEADER_SIZE;
		*ret = t;
		return 0;
	} else {
		t.cursor.anchor_off = 0; /* everything read from here is taken */
	}
	/* Events end at the Total Log Length; what lies past it is not the log's. */
	uint64_t end = h->tll > off ? h->tll - off : 0;
	if (end < len)
		len = (size_t)end;
	while (pos < len) {
		if (t.n == PEL_TAKE_MAX) {
			t.more = true;
			break;
		}
		int64_t size = pel_event_size(data + pos, len - pos);
		if (size == -ENODATA && off + len < h->tll) {
			t.more = true; /* cut by the read's length: go on from the last one */
			break;
		}
		if (size < 0) {
			r = -EBADMSG;
			break;
		}
		t.off[t.n++] = pos;
		t.cursor.anchor_off = off + pos;
		t.cursor.anchor_size = (uint32_t)size;
		t.cursor.anchor_fp = fnv1a(data + pos, (size_t)size);
		pos += (size_t)size;
	}
	if (!t.more && pos == len && off + len < h->tll)
		t.more = true; /* the read ended before the log did */
	t.unchanged = verified && t.n == 0 && !t.more;
	t.next_off = pel_next_read(&t.cursor);
	*ret = t;
	return r;
}

size_t pel_event_put(uint8_t *buf, size_t cap, uint8_t type, uint64_t ts, uint16_t cntlid,
		     uint16_t vsil, const uint8_t *data, size_t data_len)
{
	size_t n = PEL_EVENT_HEADER_SIZE + vsil + data_len;

	if (n > cap || vsil + data_len > 0xffff)
		return 0;
	memset(buf, 0, PEL_EVENT_HEADER_SIZE);
	buf[E_TYPE] = type;
	buf[E_EHL] = EHL_MIN;
	le_put(buf + E_CNTLID, cntlid, 2);
	le_put(buf + E_TS, ts, 8);
	le_put(buf + E_VSIL, vsil, 2);
	le_put(buf + E_EL, vsil + data_len, 2);
	memset(buf + PEL_EVENT_HEADER_SIZE, 0x5A, vsil);
	if (data_len)
		memcpy(buf + PEL_EVENT_HEADER_SIZE + vsil, data, data_len);
	return n;
}

static void field_put(uint8_t *dst, const char *src, size_t len)
{
	size_t n = strnlen(src, len);

	memset(dst, ' ', len);
	memcpy(dst, src, n);
}

void pel_header_put(uint8_t page[PEL_HEADER_SIZE], uint32_t tnev, uint64_t tll, uint16_t generation,
		    uint64_t ts, const char *serial, const char *model)
{
	memset(page, 0, PEL_HEADER_SIZE);
	page[H_LID] = PEL_LID;
	le_put(page + H_TNEV, tnev, 4);
	le_put(page + H_TLL, tll, 8);
	le_put(page + H_LHL, PEL_HEADER_SIZE, 2);
	le_put(page + H_TS, ts, 8);
	field_put(page + H_SN, serial, 20);
	field_put(page + H_MN, model, 40);
	le_put(page + H_GEN, generation, 2);
	for (unsigned t = PEL_SMART_SNAPSHOT; t <= PEL_THERMAL_EXCURSION; t++)
		page[H_SEB + t / 8] |= (uint8_t)(1u << (t % 8));
}
