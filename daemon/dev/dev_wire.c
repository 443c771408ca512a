/* SPDX-License-Identifier: MIT */
/*
 * The device channel's checks (dev_wire.h): pure, so the privileged side's
 * first look at a request is table-tested and fuzzed.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "nvmond/dev/dev_wire.h"
#include "nvmond/dev/nvme_sysfs.h"
#include "nvmond/decode/selftest.h"

static bool terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

/* "nvme0", "demo12": what sysfs and the demo backend name controllers. */
static bool name_ok(const char *s)
{
	if (!s[0])
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

static bool op_needs_name(uint32_t op)
{
	return op != DEV_OP_SCAN && op != DEV_OP_CONFIGURE;
}

bool dev_pel_request_ok(uint64_t offset, uint32_t len)
{
	/* Get Log Page counts dwords; events start after the 512-byte header and
	 * need not end on a dword (the next read starts at the last one taken:
	 * the device process aligns its Log Page Offset down itself). */
	return len >= 4 && len <= DEV_PEL_READ_MAX && len % 4 == 0 && offset >= PEL_HEADER_SIZE &&
	       offset <= UINT32_MAX;
}

bool dev_power_request_ok(uint32_t which)
{
	return (which & DEV_POWER_PM) && !(which & ~(uint32_t)DEV_POWER_ALL);
}

int dev_wire_req_parse(const void *buf, size_t len, struct dev_wire_req *ret)
{
	struct dev_wire_req q;

	if (len != sizeof(q))
		return -EPROTO;
	memcpy(&q, buf, sizeof(q));
	if (q.magic != DEV_WIRE_MAGIC)
		return -EPROTO;
	if (q.op <= DEV_OP_HELLO || q.op >= _DEV_OP_MAX)
		return -EINVAL;
	if (!terminated(q.name, sizeof(q.name)) || !terminated(q.model, sizeof(q.model)) ||
	    !terminated(q.serial, sizeof(q.serial)))
		return -EINVAL;
	/* A controller's name where the command needs one, none where not. */
	if (op_needs_name(q.op) ? !name_ok(q.name) : q.name[0] != '\0')
		return -EINVAL;
	if (q.has_who > 1 || q.ext_data > 1 || q.wake_sleeping > 1)
		return -EINVAL;
	/* "Read your configuration again": the options are the device
	 * process's own, so a request that carries one is refused. */
	if (q.op == DEV_OP_CONFIGURE && (q.now_ms != 0 || q.wake_sleeping != 0))
		return -EINVAL;
	if (q.op == DEV_OP_READ_ERRLOG && (q.n < 1 || q.n > DEV_WIRE_ERRLOG_MAX))
		return -EINVAL;
	if (q.op == DEV_OP_SELFTEST_START && !selftest_code_sendable(q.stc))
		return -EINVAL;
	/* A read of the event log within bounds, its offset and length in dwords. */
	if (q.op == DEV_OP_READ_PEL ? !dev_pel_request_ok(q.offset, q.n) : q.offset != 0)
		return -EINVAL;
	if (q.op == DEV_OP_READ_POWER ? !dev_power_request_ok(q.feats) : q.feats != 0)
		return -EINVAL;
	if (q.reserved != 0)
		return -EINVAL;
	/* A namespace of the drive the probe names, opened one of three ways. */
	if (q.op == DEV_OP_OPEN_NS &&
	    (!nvme_sysfs_ns_name_ok(q.name) || q.has_who != 1 || !q.serial[0] || q.nsid == 0 ||
	     q.nsid == 0xffffffffu ||
	     (q.n != DEV_NS_WRITE && q.n != DEV_NS_READ && q.n != DEV_NS_SIG)))
		return -EINVAL;
	*ret = q;
	return 0;
}

size_t dev_wire_resp_len(const struct dev_wire_req *q)
{
	switch (q->op) {
	case DEV_OP_READ_SMART:
		return SMART_LOG_SIZE;
	case DEV_OP_READ_ERRLOG:
		return (size_t)q->n * ERRLOG_ENTRY_SIZE;
	case DEV_OP_READ_RUNTIME:
		return sizeof(int32_t);
	case DEV_OP_READ_HWMON:
		return sizeof(struct nvme_hwmon_temps);
	case DEV_OP_SENSOR_LIMITS:
		return SMART_NUM_SENSORS * sizeof(uint16_t);
	case DEV_OP_READ_SELFTEST:
		return SELFTEST_LOG_SIZE;
	case DEV_OP_OPEN_NS:
		return DEV_NS_REASON_MAX;
	case DEV_OP_READ_OCP:
		return OCP_LOG_SIZE;
	case DEV_OP_READ_PEL:
		return PEL_HEADER_SIZE + (size_t)q->n;
	case DEV_OP_READ_POWER:
		return sizeof(struct dev_power);
	default:
		return 0;
	}
}

bool dev_wire_resp_ok(const struct dev_wire_req *q, int32_t ret, size_t len)
{
	if (q->op == DEV_OP_OPEN_NS) /* its reason either way */
		return len == DEV_NS_REASON_MAX;
	if (ret < 0)
		return len == 0;
	if (q->op == DEV_OP_SCAN)
		return len % sizeof(struct dev_info) == 0 &&
		       len / sizeof(struct dev_info) <= DEV_WIRE_SCAN_MAX;
	return len == dev_wire_resp_len(q);
}

/* tests/fuzz/seeds.py writes requests with this layout. */
_Static_assert(sizeof(struct dev_wire_req) == 176, "struct dev_wire_req layout");
_Static_assert(offsetof(struct dev_wire_req, offset) == 160, "struct dev_wire_req layout");
