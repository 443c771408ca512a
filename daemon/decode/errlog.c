/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "nvmond/decode/errlog.h"
#include "nvmond/util/le.h"

/* Byte offsets in an entry (NVMe Base 2.0, Figure 205). */
enum {
	OFF_ERR_COUNT = 0, /* 8 bytes */
	OFF_SQID = 8,
	OFF_CID = 10,
	OFF_STATUS = 12,
	OFF_PEL = 14,
	OFF_LBA = 16, /* 8 bytes */
	OFF_NSID = 24,
	OFF_VS = 28,
	OFF_TRTYPE = 29,
	OFF_CS = 32, /* 8 bytes */
	OFF_TTSI = 40,
};

/* Bits of the 16-bit status in the entry: the phase tag, then the Status Field. */
enum {
	ST_PHASE = 1u << 0,
	ST_SC_SHIFT = 1,   /* bits 8:1 */
	ST_SCT_SHIFT = 9,  /* bits 11:9 */
	ST_CRD_SHIFT = 12, /* bits 13:12 */
	ST_MORE = 1u << 14,
	ST_DNR = 1u << 15,
};

int errlog_decode_entry(const uint8_t raw[ERRLOG_ENTRY_SIZE], struct errlog_entry *ret)
{
	uint16_t st = (uint16_t)le_get(raw + OFF_STATUS, 2);
	uint16_t pel = (uint16_t)le_get(raw + OFF_PEL, 2);

	*ret = (struct errlog_entry){
		.error_count = le_get(raw + OFF_ERR_COUNT, 8),
		.sqid = (uint16_t)le_get(raw + OFF_SQID, 2),
		.cid = (uint16_t)le_get(raw + OFF_CID, 2),
		.status_raw = st,
		.phase = st & ST_PHASE,
		.sc = (uint8_t)(st >> ST_SC_SHIFT),
		.sct = (st >> ST_SCT_SHIFT) & 0x7,
		.crd = (st >> ST_CRD_SHIFT) & 0x3,
		.more = st & ST_MORE,
		.dnr = st & ST_DNR,
		.param_err_loc = pel,
		.pel_byte = (uint8_t)pel,
		.pel_bit = (pel >> 8) & 0x7,
		.lba = le_get(raw + OFF_LBA, 8),
		.nsid = (uint32_t)le_get(raw + OFF_NSID, 4),
		.vs_log_page = raw[OFF_VS],
		.trtype = raw[OFF_TRTYPE],
		.cmd_specific = le_get(raw + OFF_CS, 8),
		.trtype_specific = (uint16_t)le_get(raw + OFF_TTSI, 2),
	};
	return ret->error_count == 0 ? 1 : 0;
}

size_t errlog_decode(const uint8_t *page, size_t len, struct errlog_entry *ret, size_t max)
{
	size_t n = 0;

	for (size_t off = 0; off + ERRLOG_ENTRY_SIZE <= len && n < max; off += ERRLOG_ENTRY_SIZE)
		errlog_decode_entry(page + off, &ret[n++]);
	return n;
}

void errlog_encode_entry(const struct errlog_entry *e, uint8_t raw[ERRLOG_ENTRY_SIZE])
{
	uint16_t st = (uint16_t)((e->phase ? ST_PHASE : 0) | (unsigned)e->sc << ST_SC_SHIFT |
				 (unsigned)(e->sct & 0x7) << ST_SCT_SHIFT |
				 (unsigned)(e->crd & 0x3) << ST_CRD_SHIFT |
				 (e->more ? ST_MORE : 0) | (e->dnr ? ST_DNR : 0));

	memset(raw, 0, ERRLOG_ENTRY_SIZE);
	le_put(raw + OFF_ERR_COUNT, e->error_count, 8);
	le_put(raw + OFF_SQID, e->sqid, 2);
	le_put(raw + OFF_CID, e->cid, 2);
	le_put(raw + OFF_STATUS, st, 2);
	le_put(raw + OFF_PEL, e->param_err_loc, 2);
	le_put(raw + OFF_LBA, e->lba, 8);
	le_put(raw + OFF_NSID, e->nsid, 4);
	raw[OFF_VS] = e->vs_log_page;
	raw[OFF_TRTYPE] = e->trtype;
	le_put(raw + OFF_CS, e->cmd_specific, 8);
	le_put(raw + OFF_TTSI, e->trtype_specific, 2);
}

struct sc_name {
	uint8_t sct, sc;
	const char *name;
};

/* The codes a host meets in practice, named as the specification names them:
 * generic command status (with the NVM command set's 80h-84h), command
 * specific status, media and data integrity errors, path related status. */
static const struct sc_name sc_names[] = {
	{0x0, 0x00, "Successful Completion"},
	{0x0, 0x01, "Invalid Command Opcode"},
	{0x0, 0x02, "Invalid Field in Command"},
	{0x0, 0x03, "Command ID Conflict"},
	{0x0, 0x04, "Data Transfer Error"},
	{0x0, 0x05, "Commands Aborted due to Power Loss Notification"},
	{0x0, 0x06, "Internal Error"},
	{0x0, 0x07, "Command Abort Requested"},
	{0x0, 0x08, "Command Aborted due to SQ Deletion"},
	{0x0, 0x09, "Command Aborted due to Failed Fused Command"},
	{0x0, 0x0a, "Command Aborted due to Missing Fused Command"},
	{0x0, 0x0b, "Invalid Namespace or Format"},
	{0x0, 0x0c, "Command Sequence Error"},
	{0x0, 0x0d, "Invalid SGL Segment Descriptor"},
	{0x0, 0x0e, "Invalid Number of SGL Descriptors"},
	{0x0, 0x0f, "Data SGL Length Invalid"},
	{0x0, 0x10, "Metadata SGL Length Invalid"},
	{0x0, 0x11, "SGL Descriptor Type Invalid"},
	{0x0, 0x12, "Invalid Use of Controller Memory Buffer"},
	{0x0, 0x13, "PRP Offset Invalid"},
	{0x0, 0x14, "Atomic Write Unit Exceeded"},
	{0x0, 0x15, "Operation Denied"},
	{0x0, 0x16, "SGL Offset Invalid"},
	{0x0, 0x18, "Host Identifier Inconsistent Format"},
	{0x0, 0x19, "Keep Alive Timer Expired"},
	{0x0, 0x1a, "Keep Alive Timeout Invalid"},
	{0x0, 0x1b, "Command Aborted due to Preempt and Abort"},
	{0x0, 0x1c, "Sanitize Failed"},
	{0x0, 0x1d, "Sanitize In Progress"},
	{0x0, 0x1e, "SGL Data Block Granularity Invalid"},
	{0x0, 0x1f, "Command Not Supported for Queue in CMB"},
	{0x0, 0x20, "Namespace is Write Protected"},
	{0x0, 0x21, "Command Interrupted"},
	{0x0, 0x22, "Transient Transport Error"},
	{0x0, 0x23, "Command Prohibited by Command and Feature Lockdown"},
	{0x0, 0x24, "Admin Command Media Not Ready"},
	{0x0, 0x80, "LBA Out of Range"},
	{0x0, 0x81, "Capacity Exceeded"},
	{0x0, 0x82, "Namespace Not Ready"},
	{0x0, 0x83, "Reservation Conflict"},
	{0x0, 0x84, "Format In Progress"},
	{0x1, 0x00, "Completion Queue Invalid"},
	{0x1, 0x01, "Invalid Queue Identifier"},
	{0x1, 0x02, "Invalid Queue Size"},
	{0x1, 0x03, "Abort Command Limit Exceeded"},
	{0x1, 0x05, "Asynchronous Event Request Limit Exceeded"},
	{0x1, 0x06, "Invalid Firmware Slot"},
	{0x1, 0x07, "Invalid Firmware Image"},
	{0x1, 0x08, "Invalid Interrupt Vector"},
	{0x1, 0x09, "Invalid Log Page"},
	{0x1, 0x0a, "Invalid Format"},
	{0x1, 0x0b, "Firmware Activation Requires Conventional Reset"},
	{0x1, 0x0c, "Invalid Queue Deletion"},
	{0x1, 0x0d, "Feature Identifier Not Saveable"},
	{0x1, 0x0e, "Feature Not Changeable"},
	{0x1, 0x0f, "Feature Not Namespace Specific"},
	{0x1, 0x10, "Firmware Activation Requires NVM Subsystem Reset"},
	{0x1, 0x11, "Firmware Activation Requires Controller Level Reset"},
	{0x1, 0x12, "Firmware Activation Requires Maximum Time Violation"},
	{0x1, 0x13, "Firmware Activation Prohibited"},
	{0x1, 0x14, "Overlapping Range"},
	{0x1, 0x15, "Namespace Insufficient Capacity"},
	{0x1, 0x16, "Namespace Identifier Unavailable"},
	{0x1, 0x18, "Namespace Already Attached"},
	{0x1, 0x19, "Namespace Is Private"},
	{0x1, 0x1a, "Namespace Not Attached"},
	{0x1, 0x1b, "Thin Provisioning Not Supported"},
	{0x1, 0x1c, "Controller List Invalid"},
	{0x1, 0x1d, "Device Self-test In Progress"},
	{0x1, 0x1e, "Boot Partition Write Prohibited"},
	{0x1, 0x1f, "Invalid Controller Identifier"},
	{0x1, 0x20, "Invalid Secondary Controller State"},
	{0x1, 0x21, "Invalid Number of Controller Resources"},
	{0x1, 0x22, "Invalid Resource Identifier"},
	{0x1, 0x23, "Sanitize Prohibited While Persistent Memory Region is Enabled"},
	{0x1, 0x24, "ANA Group Identifier Invalid"},
	{0x1, 0x25, "ANA Attach Failed"},
	{0x1, 0x26, "Insufficient Capacity"},
	{0x1, 0x27, "Namespace Attachment Limit Exceeded"},
	{0x1, 0x28, "Prohibition of Command Execution Not Supported"},
	{0x1, 0x29, "I/O Command Set Not Supported"},
	{0x1, 0x2a, "I/O Command Set Not Enabled"},
	{0x1, 0x2b, "I/O Command Set Combination Rejected"},
	{0x1, 0x2c, "Invalid I/O Command Set"},
	{0x1, 0x2d, "Identifier Unavailable"},
	{0x1, 0x80, "Conflicting Attributes"},
	{0x1, 0x81, "Invalid Protection Information"},
	{0x1, 0x82, "Attempted Write to Read Only Range"},
	{0x1, 0x83, "Command Size Limit Exceeded"},
	{0x2, 0x80, "Write Fault"},
	{0x2, 0x81, "Unrecovered Read Error"},
	{0x2, 0x82, "End-to-end Guard Check Error"},
	{0x2, 0x83, "End-to-end Application Tag Check Error"},
	{0x2, 0x84, "End-to-end Reference Tag Check Error"},
	{0x2, 0x85, "Compare Failure"},
	{0x2, 0x86, "Access Denied"},
	{0x2, 0x87, "Deallocated or Unwritten Logical Block"},
	{0x2, 0x88, "End-to-End Storage Tag Check Error"},
	{0x3, 0x00, "Internal Path Error"},
	{0x3, 0x01, "Asymmetric Access Persistent Loss"},
	{0x3, 0x02, "Asymmetric Access Inaccessible"},
	{0x3, 0x03, "Asymmetric Access Transition"},
	{0x3, 0x60, "Controller Pathing Error"},
	{0x3, 0x70, "Host Pathing Error"},
	{0x3, 0x71, "Command Aborted By Host"},
};

const char *errlog_status_name(uint8_t sct, uint8_t sc)
{
	for (size_t i = 0; i < sizeof(sc_names) / sizeof(sc_names[0]); i++)
		if (sc_names[i].sct == sct && sc_names[i].sc == sc)
			return sc_names[i].name;
	return NULL;
}

const char *errlog_sct_name(uint8_t sct)
{
	switch (sct) {
	case ERRLOG_SCT_GENERIC:
		return "Generic Command Status";
	case ERRLOG_SCT_CMD_SPECIFIC:
		return "Command Specific Status";
	case ERRLOG_SCT_MEDIA:
		return "Media and Data Integrity Errors";
	case ERRLOG_SCT_PATH:
		return "Path Related Status";
	case ERRLOG_SCT_VENDOR:
		return "Vendor Specific";
	}
	return "Reserved";
}

size_t errlog_read_count(bool have_prev, uint64_t prev, uint64_t cur, unsigned kept, bool ext_data)
{
	uint64_t want;

	if (have_prev ? cur == prev : cur == 0)
		return 0;
	if (!have_prev)
		want = cur;
	else if (cur > prev)
		want = cur - prev;
	else
		want = kept; /* wrapped or reset: whatever the log holds */
	want = want > UINT64_MAX - ERRLOG_READ_SLACK ? UINT64_MAX : want + ERRLOG_READ_SLACK;
	if (!ext_data && kept > ERRLOG_ENTRIES_PER_4K)
		kept = ERRLOG_ENTRIES_PER_4K;
	return want < kept ? (size_t)want : kept;
}

/* Is count @c in the window of new errors? */
static bool in_window(uint64_t prev, uint64_t cur, uint64_t c)
{
	if (c == 0)
		return false;
	if (cur >= prev)
		return c > prev && c <= cur;
	return c > prev || c <= cur; /* wrapped, or restarted from 1 */
}

size_t errlog_new_entries(uint64_t prev, uint64_t cur, const struct errlog_entry *e, size_t n,
			  size_t *ret_idx, uint64_t *ret_lost)
{
	size_t k = 0, le_cur = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t c = e[i].error_count;
		bool dup = false;

		if (!in_window(prev, cur, c))
			continue;
		for (size_t j = 0; j < k && !dup; j++)
			dup = e[ret_idx[j]].error_count == c;
		if (dup)
			continue;
		/* Insert in order of distance from @prev: oldest first, across a wrap. */
		size_t at = k;
		while (at > 0 && e[ret_idx[at - 1]].error_count - prev > c - prev) {
			ret_idx[at] = ret_idx[at - 1];
			at--;
		}
		ret_idx[at] = i;
		k++;
		if (c <= cur)
			le_cur++;
	}
	if (ret_lost) {
		/* Without a wrap the window holds cur - prev errors; after one (or a
		 * restart) at least the cur counted from 1. */
		uint64_t want = cur >= prev ? cur - prev : cur;
		uint64_t have = cur >= prev ? k : le_cur;
		*ret_lost = want > have ? want - have : 0;
	}
	return k;
}
