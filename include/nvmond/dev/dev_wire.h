/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The channel between the daemon and its device process (docs/security.md):
 * one fixed-size request per device command, one answer with a payload. Both
 * ends are the same binary, so the structs go as they are; every request is
 * checked again on the privileged side (dev_wire_req_parse()).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/dev/dev.h"

#define DEV_WIRE_MAGIC 0x4e56444bu /* "NVDK" */

enum dev_wire_op {
	DEV_OP_HELLO = 1, /* the device process's first answer: its backend */
	DEV_OP_SCAN,
	DEV_OP_READ_SMART,
	DEV_OP_READ_ERRLOG,
	DEV_OP_READ_RUNTIME,
	DEV_OP_READ_HWMON,
	/*
	 * Read the configuration again (the daemon was sent SIGHUP): the
	 * device process takes its options and its write policy from its own
	 * reading (dev_serve_policy()); the request carries none of them.
	 */
	DEV_OP_CONFIGURE,
	DEV_OP_SENSOR_LIMITS,
	DEV_OP_SELFTEST_START,
	DEV_OP_READ_SELFTEST,
	DEV_OP_HANDOVER, /* a demo drive's self-test schedule (demo.h) */
	/*
	 * A probe's namespace: name = "nvme0n1", who = the drive (required),
	 * nsid, n = enum dev_ns_mode. The answer: DEV_NS_REASON_MAX bytes, the
	 * reason when refused; when opened, the descriptor comes with it
	 * (SCM_RIGHTS), the only answer that carries one.
	 */
	DEV_OP_OPEN_NS,
	/* Issue 27: log C0h (512 bytes). */
	DEV_OP_READ_OCP,
	/*
	 * The Persistent Event Log: n = bytes to read past the header, from
	 * offset (both dword multiples, offset from 512 on, n up to
	 * DEV_PEL_READ_MAX), ext_data = the controller takes offsets. The
	 * answer: the header (512 bytes), then n bytes of which ret are read.
	 */
	DEV_OP_READ_PEL,
	/* Power features: feats = DEV_POWER_* (Power Management always). */
	DEV_OP_READ_POWER,
	_DEV_OP_MAX,
};

/*
 * On the device process's socket, the only request: a new channel, whose
 * end comes with it (SCM_RIGHTS). Each channel then carries requests and
 * answers one at a time; this command is refused on a channel.
 */
#define DEV_WIRE_CHANNEL 0x100u

/* Most error log entries one read may ask for (the log holds ELPE + 1 ≤ 256). */
#define DEV_WIRE_ERRLOG_MAX 256
/* Most controllers one scan may answer with. */
#define DEV_WIRE_SCAN_MAX 1024

struct dev_wire_req {
	uint32_t magic, op, id;
	uint32_t n;	/* DEV_OP_READ_ERRLOG: entries; DEV_OP_OPEN_NS: enum dev_ns_mode */
	int64_t now_ms; /* 0 in DEV_OP_CONFIGURE, which carries nothing */
	char name[DEV_NAME_MAX];
	char model[41], serial[21];
	uint8_t has_who; /* model and serial are who the controller must be */
	uint8_t ext_data, stc, sensors, wake_sleeping;
	uint32_t nsid;
	uint64_t offset;   /* DEV_OP_READ_PEL; 0 elsewhere */
	uint32_t feats;	   /* DEV_OP_READ_POWER; 0 elsewhere */
	uint32_t reserved; /* 0 */
};

struct dev_wire_resp {
	uint32_t magic, op, id;
	int32_t ret;
	uint32_t len; /* payload bytes after this header */
	uint32_t pad;
};

/* DEV_OP_HELLO's payload: the backend, which optional commands it answers, and
 * what its drives are. */
struct dev_wire_hello {
	char backend[16];
	uint32_t ops;  /* bit (1 << DEV_OP_x) */
	uint32_t caps; /* DEV_CAP_* (dev.h) */
};

/**
 * dev_wire_req_parse() - Check a request as the device process received it:
 * the size, the magic, a known command, NUL-terminated strings, a controller
 * name of letters and digits where the command needs one (none where not),
 * an entry count
 * within 1..DEV_WIRE_ERRLOG_MAX, a self-test code that only starts a short or
 * extended test or aborts one; a namespace to open named "nvme<N>n<M>", with
 * the drive it must belong to, an NSID and a known mode; a Persistent Event
 * Log read of an offset and a dword length within dev_pel_request_ok();
 * power features that ask for Power Management and nothing unknown; an offset
 * and features only where the command takes them, and the reserved field 0.
 * Return: 0 with @ret filled, -EPROTO for a broken frame (wrong size or
 * magic: the channel is not to be trusted any more), -EINVAL for a request
 * to refuse.
 */
int dev_wire_req_parse(const void *buf, size_t len, struct dev_wire_req *ret);

/**
 * dev_wire_resp_len() - The payload length the answer to @q must have when
 * it succeeded (DEV_OP_SCAN: a multiple of struct dev_info, see
 * dev_wire_resp_ok()).
 */
size_t dev_wire_resp_len(const struct dev_wire_req *q);

/* Whether an answer of @len payload bytes fits request @q (DEV_OP_OPEN_NS:
 * its reason, whether it succeeded or not). */
bool dev_wire_resp_ok(const struct dev_wire_req *q, int32_t ret, size_t len);
