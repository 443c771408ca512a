/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The Device Self-test log (log identifier 06h, NVMe Base 2.0, Figures 258 and
 * 259): the operation in progress and its completion, then the results of the
 * last 20 self-tests, the most recent first. Pure decoding, no I/O.
 */
#define SELFTEST_RESULTS     20
#define SELFTEST_RESULT_SIZE 28
#define SELFTEST_LOG_SIZE    (4 + SELFTEST_RESULTS * SELFTEST_RESULT_SIZE) /* 564 */

/* Self-test codes: the Device Self-test command's STC and the log's code fields. */
enum selftest_code {
	SELFTEST_CODE_NONE = 0x0, /* current operation: none in progress */
	SELFTEST_CODE_SHORT = 0x1,
	SELFTEST_CODE_EXTENDED = 0x2,
	SELFTEST_CODE_VENDOR = 0xe,
	SELFTEST_CODE_ABORT = 0xf, /* the command only */
};

/* Self-test Result (Figure 259, byte 0 bits 3:0). */
enum selftest_result_code {
	SELFTEST_RES_NO_ERROR = 0x0,
	SELFTEST_RES_ABORTED_CMD = 0x1,	       /* by a Device Self-test command */
	SELFTEST_RES_ABORTED_RESET = 0x2,      /* by a controller level reset */
	SELFTEST_RES_ABORTED_NS_REMOVED = 0x3, /* by a namespace removal */
	SELFTEST_RES_ABORTED_FORMAT = 0x4,     /* by a Format NVM command */
	SELFTEST_RES_FATAL = 0x5,	       /* fatal error or unknown test error */
	SELFTEST_RES_UNKNOWN_SEGMENT = 0x6,    /* a segment failed, which is not known */
	SELFTEST_RES_SEGMENT_FAILED = 0x7,     /* the first failed one in segment */
	SELFTEST_RES_ABORTED_UNKNOWN = 0x8,    /* aborted for an unknown reason */
	SELFTEST_RES_ABORTED_SANITIZE = 0x9,   /* by a sanitize operation */
	SELFTEST_RES_UNUSED = 0xf,	       /* the entry holds no result */
};

/* Valid Diagnostic Information (Figure 259, byte 2). */
enum {
	SELFTEST_VALID_NSID = 1u << 0,
	SELFTEST_VALID_FLBA = 1u << 1,
	SELFTEST_VALID_SCT = 1u << 2,
	SELFTEST_VALID_SC = 1u << 3,
};

/* One Self-test Result Data Structure (Figure 259). Reserved bits are dropped. */
struct selftest_result {
	uint8_t code;	 /* enum selftest_code: the test that ran */
	uint8_t result;	 /* enum selftest_result_code */
	uint8_t segment; /* the first failed segment (result 7), else 0 */
	uint8_t valid;	 /* SELFTEST_VALID_* */
	uint64_t poh;	 /* power-on hours when the test completed or aborted */
	uint32_t nsid;	 /* the namespace of the failure (if SELFTEST_VALID_NSID) */
	uint64_t lba;	 /* the failing LBA (if SELFTEST_VALID_FLBA) */
	uint8_t sct;	 /* status code type, bits 2:0 (if SELFTEST_VALID_SCT) */
	uint8_t sc;	 /* status code (if SELFTEST_VALID_SC) */
	uint16_t vendor; /* vendor specific */
};

/* The decoded log. */
struct selftest_log {
	uint8_t current; /* enum selftest_code of the test in progress, 0 = none */
	uint8_t percent; /* its completion, 0 … 100 */
	struct selftest_result r[SELFTEST_RESULTS]; /* most recent first */
};

/**
 * selftest_decode() - Decode the log from @len bytes at @page.
 * Return: 0, or -EINVAL when @len is shorter than SELFTEST_LOG_SIZE.
 */
int selftest_decode(const uint8_t *page, size_t len, struct selftest_log *ret);

/**
 * selftest_encode() - Build the raw log of @log (for demo drives and tests).
 * Reserved bits and bytes are written as 0.
 */
void selftest_encode(const struct selftest_log *log, uint8_t raw[SELFTEST_LOG_SIZE]);

/** selftest_result_used() - Return: whether @r holds a result (result code not Fh). */
bool selftest_result_used(const struct selftest_result *r);

/**
 * selftest_result_name() - "no error", "aborted by a controller level reset", …
 * Return: a static string, never NULL ("reserved" for codes the spec reserves).
 */
const char *selftest_result_name(uint8_t result);

/**
 * selftest_code_name() - "short", "extended", "vendor specific", "none" (0h),
 * "abort" (Fh). Return: a static string, never NULL ("reserved" otherwise).
 */
const char *selftest_code_name(uint8_t code);

/**
 * selftest_code_sendable() - Whether nvmond sends Device Self-test with code
 * @stc: a short (1h) or extended (2h) test, or an abort (Fh); never a vendor
 * test (Eh) or a reserved code.
 */
bool selftest_code_sendable(uint8_t stc);

/*
 * What identifies a result across reads of the log: a drive keeps no sequence
 * number, so the power-on hours and the result fields (raw, whatever the valid
 * flags say: they read the same each time).
 */
struct selftest_key {
	uint64_t poh;
	uint64_t lba;
	uint32_t nsid;
	uint8_t code, result, segment, sct, sc;
};

/** selftest_key_of() - The key of @r. */
void selftest_key_of(const struct selftest_result *r, struct selftest_key *ret);

/** selftest_key_eq() - Return: whether @a and @b name the same result. */
bool selftest_key_eq(const struct selftest_key *a, const struct selftest_key *b);

/**
 * selftest_new_results() - The results of @log not stored yet.
 * @seen:    the keys of the results stored, newest first (as the log held them
 *           when they were stored); NULL when none is
 * @n_seen:  how many (at most SELFTEST_RESULTS)
 * @log:     the log as read now
 * @ret_idx: indexes into @log->r of the new results, oldest first
 *
 * New are the used entries above the place where @seen lines up with the log:
 * the first k for which the used entries from k on read as @seen (as far as both
 * go). A key alone is not enough: two short tests aborted in the same power-on
 * hour read the same, and the newer one would be taken for the older. When @seen
 * lines up nowhere, the entries above the first one equal to @seen[0] are new;
 * when @seen[0] is no longer in the log (more than 20 tests since), every used
 * entry of at least its power-on hours is: the log keeps its entries in order, so
 * an older one would have been pushed out before it.
 * Return: the number of indexes written to @ret_idx.
 */
size_t selftest_new_results(const struct selftest_key *seen, size_t n_seen,
			    const struct selftest_log *log, size_t ret_idx[SELFTEST_RESULTS]);

/**
 * selftest_log_keys() - The keys of @log's used entries, newest first: what
 * selftest_new_results() takes as @seen once they are stored.
 * Return: how many were written to @ret (at most SELFTEST_RESULTS).
 */
size_t selftest_log_keys(const struct selftest_log *log, struct selftest_key ret[SELFTEST_RESULTS]);

/*
 * The NVMe status a command completed with, as the kernel's admin ioctl (and
 * libnvme) return it: the Completion Queue Entry's Status Field without the
 * phase tag, SC in bits 7:0, SCT in bits 10:8, CRD, More and DNR above.
 */
#define SELFTEST_STATUS(sct, sc) ((uint16_t)((sct) << 8 | (sc)))
enum {
	SELFTEST_SCT_GENERIC = 0x0,
	SELFTEST_SCT_CMD_SPECIFIC = 0x1,
	SELFTEST_ST_INVALID_OPCODE = SELFTEST_STATUS(SELFTEST_SCT_GENERIC, 0x01),
	SELFTEST_ST_INVALID_FIELD = SELFTEST_STATUS(SELFTEST_SCT_GENERIC, 0x02),
	SELFTEST_ST_INVALID_NS = SELFTEST_STATUS(SELFTEST_SCT_GENERIC, 0x0b),
	/* Get Log Page's command specific status */
	SELFTEST_ST_INVALID_LOG_PAGE = SELFTEST_STATUS(SELFTEST_SCT_CMD_SPECIFIC, 0x09),
	/* Device Self-test's command specific status */
	SELFTEST_ST_IN_PROGRESS = SELFTEST_STATUS(SELFTEST_SCT_CMD_SPECIFIC, 0x1d),
};

/**
 * selftest_start_errno() - What the NVMe @status of a Device Self-test command
 * means, as dev_selftest_start() returns it: 0 success; -EOPNOTSUPP for
 * Invalid Command Opcode or Invalid Field in Command (generic 01h, 02h: the
 * controller has no self-test, or not this code); -EBUSY for Device Self-test
 * in Progress (command specific 1Dh); -EIO for any other status, and for a
 * value that is no NVMe status (bits above 14). CRD, More and DNR are ignored.
 */
int selftest_start_errno(uint32_t status);

/**
 * selftest_log_errno() - What the NVMe @status of Get Log Page 06h means: 0
 * success; -EOPNOTSUPP for Invalid Log Page (command specific 09h) or
 * Invalid Field in Command (generic 02h: controllers that predate Invalid Log
 * Page); -EIO otherwise, as selftest_start_errno().
 */
int selftest_log_errno(uint32_t status);
