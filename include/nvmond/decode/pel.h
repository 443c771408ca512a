/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/decode/smart.h"
#include "nvmond/util/u128.h"

/*
 * The Persistent Event Log (Log Identifier 0Dh; NVMe Base 2.0 §5.16.1.14): a
 * 512-byte header, then events, each an event header, vendor specific
 * information and event data. The drive keeps it across power cycles. A host
 * reads it inside a reporting context: Get Log Page with Log Specific Field
 * (action) 1h establishes one and returns the header, 0h reads inside it (at
 * offsets), 2h releases it. Pure: decoding, and where the next incremental
 * read starts (struct pel_cursor).
 */

#define PEL_LID		0x0D
#define PEL_HEADER_SIZE 512
/* The event header this decodes (revision 0): 24 bytes, EHL = 21. */
#define PEL_EVENT_HEADER_SIZE 24
/* The longest event: its header, and EL (16 bits) of information and data. */
#define PEL_EVENT_MAX (PEL_EVENT_HEADER_SIZE + 0xffff)

/* The Log Specific Field of Get Log Page 0Dh. */
enum pel_action {
	PEL_ACTION_READ = 0,	  /* read inside the established context */
	PEL_ACTION_ESTABLISH = 1, /* establish a context and read (the header) */
	PEL_ACTION_RELEASE = 2,	  /* release the context */
};

/* The Persistent Event Log header (bytes 0..511). */
struct pel_header {
	uint8_t lid;	       /* byte 0: 0Dh */
	uint32_t tnev;	       /* Total Number of Events */
	uint64_t tll;	       /* Total Log Length, bytes, header included */
	uint8_t revision;      /* Log Revision */
	uint16_t lhl;	       /* Log Header Length */
	uint64_t timestamp;    /* as the Timestamp feature (pel_ts_ms()) */
	u128 poh;	       /* Power on Hours */
	uint64_t power_cycles; /* Power Cycle Count */
	uint16_t vid, ssvid;
	char serial[21], model[41];
	uint16_t generation; /* Generation Number */
	uint32_t rci;	     /* Reporting Context Information */
	uint8_t seb[32];     /* Supported Events Bitmap: bit N = event type N */
};

/* Event types (Base 2.0 Figure "Persistent Event Log Event Types"). */
enum pel_type {
	PEL_SMART_SNAPSHOT = 0x01,
	PEL_FW_COMMIT = 0x02,
	PEL_TIMESTAMP_CHANGE = 0x03,
	PEL_POWER_ON_RESET = 0x04,
	PEL_HW_ERROR = 0x05,
	PEL_NS_CHANGE = 0x06,
	PEL_FORMAT_START = 0x07,
	PEL_FORMAT_DONE = 0x08,
	PEL_SANITIZE_START = 0x09,
	PEL_SANITIZE_DONE = 0x0A,
	PEL_SET_FEATURE = 0x0B,
	PEL_TELEMETRY_CREATED = 0x0C,
	PEL_THERMAL_EXCURSION = 0x0D,
	PEL_VENDOR = 0xDE,
	PEL_TCG = 0xDF,
};

/* A timestamp as the Timestamp feature formats it (8 bytes). */
struct pel_ts {
	uint64_t ms;	/* bits 47:0: milliseconds */
	bool synch;	/* bit 48: the count may have stopped for a while */
	uint8_t origin; /* bits 51:49: 0 since a reset, 1 set by the host (wall clock) */
};

/* One event as nvmond keeps it: its header, what it means, its identity. */
struct pel_event {
	uint8_t type, revision;
	uint16_t cntlid;
	struct pel_ts ts;
	uint16_t vsil, el;    /* vendor specific information length, event length */
	uint32_t size;	      /* the whole entry: EHL + 3 + EL bytes */
	uint64_t fingerprint; /* FNV-1a 64 of the whole entry: the same event reads the same */
	bool data_short;      /* less event data than its type has: fields left 0 */
	union {
		struct {
			uint8_t critical_warning, avail_spare, spare_thresh, percent_used;
			uint16_t temperature_k;
			u128 media_errors, power_on_hours;
		} smart;
		struct {
			char old_rev[9], new_rev[9];
			uint8_t action, slot, sct, sc;
			uint16_t vendor_rc;
		} fw;
		struct {
			struct pel_ts prev;
			uint64_t ms_since_reset;
		} tsc;
		struct {
			char fw_rev[9];
			uint32_t n_ctrl; /* controller reset information descriptors */
			uint16_t cntlid; /* of the first */
			uint8_t fw_act, op_in_prog;
			uint32_t ctrl_power_cycle;
			uint64_t power_on_ms, ctrl_ts;
		} por;
		struct {
			uint16_t code;
		} hw;
		struct {
			uint32_t cdw10, nsid, anagrpid;
			uint64_t nsze, ncap;
			uint8_t flbas, dps, nmic;
			uint16_t nvmsetid;
		} ns;
		struct {
			uint32_t nsid, cdw10;
			uint8_t fna;
		} fmt_start;
		struct {
			uint32_t nsid, status_field;
			uint8_t smallest_fpi, status;
			uint16_t info;
		} fmt_done;
		struct {
			uint32_t sanicap, cdw10, cdw11;
		} san_start;
		struct {
			uint16_t sprog, sstat, info;
		} san_done;
		struct {
			uint32_t layout; /* bits 2:0 command dwords logged */
			uint8_t fid;	 /* CDW10 bits 7:0, when logged */
			bool has_cdw11;
			uint32_t cdw11;
		} setf;
		struct {
			uint8_t over_temp; /* Over Temperature */
			uint8_t threshold; /* Threshold */
		} thermal;
	} u;
};

/**
 * pel_header_decode() - Decode the 512-byte header.
 * Return: 0; -EBADMSG when it is no Persistent Event Log header (Log
 * Identifier not 0Dh, or a Total Log Length shorter than the header).
 */
int pel_header_decode(const uint8_t page[PEL_HEADER_SIZE], struct pel_header *ret);

/** pel_ts_decode() - A timestamp from its 8 bytes, little-endian. */
struct pel_ts pel_ts_decode(uint64_t raw);

/** pel_ts_wall_ms() - The timestamp as unix milliseconds, or -1 when it counts from a reset. */
int64_t pel_ts_wall_ms(const struct pel_ts *t);

/**
 * pel_event_size() - The length of the event that starts @buf (@len bytes
 * there): EHL + 3 + EL.
 * Return: the size; -ENODATA when its header, or the event, runs past @len
 * (read further); -EBADMSG when its header is shorter than the fields it
 * must hold (EHL below 21).
 */
int64_t pel_event_size(const uint8_t *buf, size_t len);

/**
 * pel_event_decode() - Decode the event that starts @buf, which holds all of
 * it (pel_event_size() bytes). Types nvmond does not know keep their header
 * and fingerprint; so do event data shorter than the type's layout
 * (data_short).
 * Return: 0, or the errors of pel_event_size().
 */
int pel_event_decode(const uint8_t *buf, size_t len, struct pel_event *ret);

/**
 * pel_type_name() - The kind nvmond calls an event type: "thermal_excursion",
 * "firmware_commit", …; "unknown" for types the specification does not define.
 */
const char *pel_type_name(uint8_t type);

/** pel_type_from_name() - Return: the type of a pel_type_name(), or -EINVAL. */
int pel_type_from_name(const char *name);

/**
 * pel_summary() - The event in words for a timeline ("Firmware commit: 1.0 →
 * 1.1 in slot 2 (action 1h), succeeded"), into @buf. Return: @buf.
 */
char *pel_summary(const struct pel_event *e, char *buf, size_t len);

/*
 * Where the daemon last read to: the newest event it took (its offset in the
 * log, its size and fingerprint: the anchor) and the header then. Persisted,
 * so a restart goes on from there.
 */
struct pel_cursor {
	uint64_t tll;
	uint32_t tnev;
	uint16_t generation;
	uint64_t anchor_off; /* 0 = nothing read yet */
	uint32_t anchor_size;
	uint64_t anchor_fp;
};

/* Most events one read takes; the next read goes on from the last. */
#define PEL_TAKE_MAX 256

/* What pel_take() found in one read. */
struct pel_take {
	/* The events after the anchor (or all, on a read from the start): their
	 * offsets into the data given, at most PEL_TAKE_MAX. */
	size_t n;
	size_t off[PEL_TAKE_MAX];
	bool unchanged;	   /* the header and the anchor are as before: nothing new */
	bool restart;	   /* the anchor is gone (log cleared, wrapped, reordered): read from 512 */
	bool more;	   /* events go on past what was read: read again from next_off */
	uint64_t next_off; /* where the next read starts (the new anchor) */
	struct pel_cursor cursor; /* the cursor after what was taken */
};

/**
 * pel_next_read() - Where the next read starts: the anchor (read again, to
 * check it is still there), or the first event (offset 512) when there is
 * none.
 */
uint64_t pel_next_read(const struct pel_cursor *c);

/**
 * pel_take() - Take one read: @h the header (of the same context), @data the
 * log from offset @off (@len bytes; fewer than asked when the log ends).
 * @c the cursor before. Reading at the anchor: when the entry there has the
 * anchor's fingerprint, the events after it are new; when the header and
 * the anchor are as before, nothing is (unchanged); otherwise the log was
 * cleared or moved (restart). Reading from 512: every event read is taken
 * (the caller drops those it has by fingerprint).
 * Return: 0, or -EBADMSG for an event that cannot be walked (the events up
 * to it are taken).
 */
int pel_take(const struct pel_cursor *c, const struct pel_header *h, uint64_t off,
	     const uint8_t *data, size_t len, struct pel_take *ret);

/**
 * pel_event_put() - Build an event at @buf (for demo drives and tests): a
 * revision 0 header (EHL 21) with @type, @ts (raw Timestamp format), @cntlid,
 * @vsil bytes of vendor information (0x5A), then @data_len bytes of @data.
 * Return: the bytes written (24 + @vsil + @data_len), or 0 when @cap is short.
 */
size_t pel_event_put(uint8_t *buf, size_t cap, uint8_t type, uint64_t ts, uint16_t cntlid,
		     uint16_t vsil, const uint8_t *data, size_t data_len);

/**
 * pel_header_put() - Build a header (for demo drives and tests): 0Dh, @tnev,
 * @tll, LHL 512, @generation, @ts, the supported events bitmap of the types
 * nvmond decodes, @serial and @model blank-padded.
 */
void pel_header_put(uint8_t page[PEL_HEADER_SIZE], uint32_t tnev, uint64_t tll, uint16_t generation,
		    uint64_t ts, const char *serial, const char *model);

/** pel_ts_raw() - The Timestamp format of wall time @ms (origin 1, set by the host). */
uint64_t pel_ts_raw(int64_t ms);
