/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The Error Information log (log identifier 01h): an array of 64-byte entries,
 * the most recent first, as many as the controller keeps (ELPE + 1, Identify
 * Controller byte 262, a 0's based value). Pure decoding, no I/O.
 */
#define ERRLOG_ENTRY_SIZE 64

/* Status Code Types (the SCT field of a completion's Status Field). */
enum errlog_sct {
	ERRLOG_SCT_GENERIC = 0x0,
	ERRLOG_SCT_CMD_SPECIFIC = 0x1,
	ERRLOG_SCT_MEDIA = 0x2, /* media and data integrity errors */
	ERRLOG_SCT_PATH = 0x3,
	ERRLOG_SCT_VENDOR = 0x7,
};

/* "Not specific to a command": SQID, CID and parameter error location. */
#define ERRLOG_NA16 0xffff

/* One decoded Error Information Log Entry (NVMe Base 2.0, Figure 205). */
struct errlog_entry {
	uint64_t error_count; /* unique, incrementing from 1; 0 = the entry is empty */
	uint16_t sqid;	      /* 0 = the admin queue; FFFFh = not specific to a command */
	uint16_t cid;	      /* FFFFh = not specific to a command */
	uint16_t status_raw;  /* bytes 13:12 as reported (bit 0 = phase tag) */
	/* The completion's Status Field, bits 15:1 of status_raw. */
	bool phase;
	uint8_t sc;		/* Status Code */
	uint8_t sct;		/* Status Code Type, enum errlog_sct */
	uint8_t crd;		/* Command Retry Delay */
	bool more;		/* more status information in this log (M) */
	bool dnr;		/* Do Not Retry */
	uint16_t param_err_loc; /* raw; FFFFh = not specific to a command */
	uint8_t pel_byte;	/* bits 7:0: the byte of the command with the error */
	uint8_t pel_bit;	/* bits 10:8: the bit in that byte */
	uint64_t lba;		/* the first LBA with the error, if applicable */
	uint32_t nsid;		/* the namespace, if applicable */
	uint8_t vs_log_page;	/* a vendor log page with more, 0 = none */
	uint8_t trtype;		/* transport type (0 = not indicated, 1 = RDMA, …) */
	uint64_t cmd_specific;	/* command specific information */
	uint16_t trtype_specific;
};

/**
 * errlog_decode_entry() - Decode one 64-byte entry. Reserved bytes are ignored.
 * Return: 0 for an entry, 1 for an empty one (error count 0; @ret still filled).
 */
int errlog_decode_entry(const uint8_t raw[ERRLOG_ENTRY_SIZE], struct errlog_entry *ret);

/**
 * errlog_decode() - Decode every whole entry of a page of @len bytes, in page
 * order (most recent first), empty ones included.
 * Return: the number of entries written to @ret (at most @max).
 */
size_t errlog_decode(const uint8_t *page, size_t len, struct errlog_entry *ret, size_t max);

/**
 * errlog_encode_entry() - Build the raw entry of @e (for demo drives and tests).
 * status_raw is rebuilt from the phase, sc, sct, crd, more and dnr fields, and
 * param_err_loc is used as given.
 */
void errlog_encode_entry(const struct errlog_entry *e, uint8_t raw[ERRLOG_ENTRY_SIZE]);

/**
 * errlog_status_name() - The specification's name of a status code, e.g.
 * "Unrecovered Read Error" (SCT 2h, SC 81h).
 * Return: a static string, or NULL for a code not named here.
 */
const char *errlog_status_name(uint8_t sct, uint8_t sc);

/** errlog_sct_name() - "Generic Command Status", … Return: static string, never NULL. */
const char *errlog_sct_name(uint8_t sct);

/* Entries in one Get Log Page of 4 KiB: past it libnvme needs offsets (LPA bit 2). */
#define ERRLOG_ENTRIES_PER_4K 64
/* Read this many more than the count rose by: errors logged between the health
 * log read and the error log read push the window's entries down the log. */
#define ERRLOG_READ_SLACK 4

/**
 * errlog_read_count() - How many entries to read when the health log says
 * @cur errors so far (num_err_log_entries, saturated to 64 bits).
 * @have_prev: whether the log was read before at @prev (false: the first read
 *             of a drive, which takes in what the log holds now)
 * @kept:      entries the controller keeps (ELPE + 1)
 * @ext_data:  LPA bit 2: Get Log Page takes an offset, so more than 4 KiB can
 *             be read (in pieces); without it one command of at most 64 entries
 *
 * Nothing to read while the count is unchanged, or on a first read at 0.
 * Otherwise the rise (all of @cur on a first read, and everything when the
 * count went down: a wrap or a reset) plus ERRLOG_READ_SLACK, never more than
 * the controller keeps nor than one command can carry without offsets.
 * Return: the number of entries, 0 = do not read.
 */
size_t errlog_read_count(bool have_prev, uint64_t prev, uint64_t cur, unsigned kept, bool ext_data);

/**
 * errlog_new_entries() - The entries that are new since the log was last read.
 * @prev:    num_err_log_entries of the health log when the log was last read
 *           (0 = never), saturated to 64 bits
 * @cur:     num_err_log_entries now
 * @e:       the entries as read (any order; empty ones, error count 0, allowed)
 * @n:       how many
 * @ret_idx: indexes into @e of the new entries, oldest first (room for @n)
 * @ret_lost: if not NULL, how many errors of the window the log does not hold
 *           (the controller kept fewer entries than errors happened)
 *
 * New means an error count in (@prev, @cur]. The count wraps from FFFF…FFFFh
 * to 1h and starts from 1 again when the controller is reset or replaced, so
 * when @cur is below @prev the window is (@prev, max] and [1, @cur]. An error
 * count seen twice counts once. Entries logged after @cur was read have a
 * larger count: they come with the next rise.
 * Return: the number of indexes written to @ret_idx.
 */
size_t errlog_new_entries(uint64_t prev, uint64_t cur, const struct errlog_entry *e, size_t n,
			  size_t *ret_idx, uint64_t *ret_lost);
