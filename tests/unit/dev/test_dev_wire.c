/* SPDX-License-Identifier: MIT */
/*
 * The device channel's request check (dev_wire.h): what the privileged side
 * accepts from the daemon. Each case states the rule it checks.
 */
#include <errno.h>
#include <string.h>

#include <criterion/criterion.h>

#include "nvmond/dev/dev_wire.h"
#include "nvmond/decode/selftest.h"

static struct dev_wire_req good(uint32_t op)
{
	struct dev_wire_req q = {.magic = DEV_WIRE_MAGIC, .op = op, .id = 7, .n = 1};

	strcpy(q.name, "nvme0");
	strcpy(q.model, "Samsung SSD 980 PRO 1TB");
	strcpy(q.serial, "S5GXNX0R123456");
	q.has_who = 1;
	q.stc = SELFTEST_CODE_SHORT;
	return q;
}

struct wcase {
	const char *rule;
	void (*edit)(struct dev_wire_req *q);
	uint32_t op;
	int want;
};

static void none(struct dev_wire_req *q)
{
	(void)q;
}
static void bad_magic(struct dev_wire_req *q)
{
	q->magic ^= 1;
}
static void op_hello(struct dev_wire_req *q)
{
	q->op = DEV_OP_HELLO;
}
static void op_zero(struct dev_wire_req *q)
{
	q->op = 0;
}
static void op_max(struct dev_wire_req *q)
{
	q->op = _DEV_OP_MAX;
}
static void op_last(struct dev_wire_req *q)
{
	q->op = _DEV_OP_MAX - 1; /* DEV_OP_READ_POWER */
	q->feats = DEV_POWER_PM;
}
/* Issue 27: the Persistent Event Log, read in dwords past its header. */
static void pel_ok(struct dev_wire_req *q)
{
	q->offset = PEL_HEADER_SIZE;
	q->n = 64 * 1024;
}
static void pel_max(struct dev_wire_req *q)
{
	pel_ok(q);
	q->n = DEV_PEL_READ_MAX;
	q->offset = 0x40000;
}
static void pel_over(struct dev_wire_req *q)
{
	pel_ok(q);
	q->n = DEV_PEL_READ_MAX + 4;
}
static void pel_zero(struct dev_wire_req *q)
{
	pel_ok(q);
	q->n = 0;
}
static void pel_odd_len(struct dev_wire_req *q)
{
	pel_ok(q);
	q->n = 1022;
}
/* After a 26-byte event (Thermal Excursion: 24 + 2): 512 + 26. */
static void pel_odd_off(struct dev_wire_req *q)
{
	pel_ok(q);
	q->offset = 538;
}
static void pel_in_header(struct dev_wire_req *q)
{
	pel_ok(q);
	q->offset = 508;
}
static void pel_far(struct dev_wire_req *q)
{
	pel_ok(q);
	q->offset = (uint64_t)1 << 33;
}
static void offset_elsewhere(struct dev_wire_req *q)
{
	q->offset = PEL_HEADER_SIZE;
}
static void pow_pm(struct dev_wire_req *q)
{
	q->feats = DEV_POWER_PM;
}
static void pow_all(struct dev_wire_req *q)
{
	q->feats = DEV_POWER_ALL;
}
static void pow_none(struct dev_wire_req *q)
{
	q->feats = 0;
}
static void pow_no_pm(struct dev_wire_req *q)
{
	q->feats = DEV_POWER_APST | DEV_POWER_HCTM;
}
static void pow_unknown(struct dev_wire_req *q)
{
	q->feats = DEV_POWER_ALL | 1u << 3;
}
static void reserved_set(struct dev_wire_req *q)
{
	q->reserved = 1;
}
/* DEV_OP_CONFIGURE: a reload, which carries no option (issue 23 §1). */
static void cfg_no_name(struct dev_wire_req *q)
{
	q->name[0] = '\0';
}
static void cfg_timeout(struct dev_wire_req *q)
{
	cfg_no_name(q);
	q->now_ms = 5000;
}
static void cfg_timeout_negative(struct dev_wire_req *q)
{
	cfg_no_name(q);
	q->now_ms = -1;
}
static void cfg_wake(struct dev_wire_req *q)
{
	cfg_no_name(q);
	q->wake_sleeping = 1;
}
/* DEV_OP_OPEN_NS: a namespace of the drive named, one of three ways. */
static void ns_ok(struct dev_wire_req *q)
{
	strcpy(q->name, "nvme0n1");
	q->nsid = 1;
	q->n = DEV_NS_WRITE;
}
static void ns_read(struct dev_wire_req *q)
{
	ns_ok(q);
	q->n = DEV_NS_READ;
}
static void ns_sig(struct dev_wire_req *q)
{
	ns_ok(q);
	q->n = DEV_NS_SIG;
}
static void ns_mode_zero(struct dev_wire_req *q)
{
	ns_ok(q);
	q->n = 0;
}
static void ns_mode_over(struct dev_wire_req *q)
{
	ns_ok(q);
	q->n = DEV_NS_SIG + 1;
}
static void ns_ctrl_name(struct dev_wire_req *q)
{
	ns_ok(q);
	strcpy(q->name, "nvme0");
}
static void ns_other_disk(struct dev_wire_req *q)
{
	ns_ok(q);
	strcpy(q->name, "sda");
}
static void ns_partition(struct dev_wire_req *q)
{
	ns_ok(q);
	strcpy(q->name, "nvme0n1p1");
}
static void ns_generic(struct dev_wire_req *q)
{
	ns_ok(q);
	strcpy(q->name, "ng0n1");
}
static void ns_path(struct dev_wire_req *q)
{
	ns_ok(q);
	strcpy(q->name, "nvme0n1/../sda");
}
static void ns_no_who(struct dev_wire_req *q)
{
	ns_ok(q);
	q->has_who = 0;
}
static void ns_no_serial(struct dev_wire_req *q)
{
	ns_ok(q);
	q->serial[0] = '\0';
}
static void ns_nsid_zero(struct dev_wire_req *q)
{
	ns_ok(q);
	q->nsid = 0;
}
static void ns_nsid_all(struct dev_wire_req *q)
{
	ns_ok(q);
	q->nsid = 0xffffffffu;
}
static void name_unterminated(struct dev_wire_req *q)
{
	memset(q->name, 'a', sizeof(q->name));
}
static void name_path(struct dev_wire_req *q)
{
	strcpy(q->name, "nvme0/../sda");
}
static void name_dot(struct dev_wire_req *q)
{
	strcpy(q->name, "..");
}
static void name_slash(struct dev_wire_req *q)
{
	strcpy(q->name, "nvme0/nvme1");
}
static void name_space(struct dev_wire_req *q)
{
	strcpy(q->name, "nvme0 ");
}
static void name_empty(struct dev_wire_req *q)
{
	q->name[0] = '\0';
}
static void model_unterminated(struct dev_wire_req *q)
{
	memset(q->model, 'M', sizeof(q->model));
}
static void serial_unterminated(struct dev_wire_req *q)
{
	memset(q->serial, 'S', sizeof(q->serial));
}
static void who_two(struct dev_wire_req *q)
{
	q->has_who = 2;
}
static void ext_two(struct dev_wire_req *q)
{
	q->ext_data = 2;
}
static void wake_two(struct dev_wire_req *q)
{
	q->wake_sleeping = 2;
}
static void n_zero(struct dev_wire_req *q)
{
	q->n = 0;
}
static void n_max(struct dev_wire_req *q)
{
	q->n = DEV_WIRE_ERRLOG_MAX;
}
static void n_over(struct dev_wire_req *q)
{
	q->n = DEV_WIRE_ERRLOG_MAX + 1;
}
static void stc_ext(struct dev_wire_req *q)
{
	q->stc = SELFTEST_CODE_EXTENDED;
}
static void stc_abort(struct dev_wire_req *q)
{
	q->stc = SELFTEST_CODE_ABORT;
}
static void stc_vendor(struct dev_wire_req *q)
{
	q->stc = SELFTEST_CODE_VENDOR;
}
static void stc_none(struct dev_wire_req *q)
{
	q->stc = SELFTEST_CODE_NONE;
}

static const struct wcase cases[] = {
	{"a well-formed SMART read is accepted", none, DEV_OP_READ_SMART, 0},
	{"a wrong magic breaks the frame", bad_magic, DEV_OP_READ_SMART, -EPROTO},
	{"HELLO is the device process's own answer, never a request", op_hello, DEV_OP_READ_SMART,
	 -EINVAL},
	{"command 0 is unknown", op_zero, DEV_OP_READ_SMART, -EINVAL},
	{"a command past the last is unknown", op_max, DEV_OP_READ_SMART, -EINVAL},
	{"the last command is known", op_last, DEV_OP_READ_SMART, 0},
	{"a name must end inside its array", name_unterminated, DEV_OP_READ_SMART, -EINVAL},
	{"a name is letters and digits: no path", name_path, DEV_OP_READ_SMART, -EINVAL},
	{"a name is letters and digits: no dots", name_dot, DEV_OP_READ_SELFTEST, -EINVAL},
	{"a name is letters and digits: no slash", name_slash, DEV_OP_READ_SMART, -EINVAL},
	{"a name is letters and digits: no blank", name_space, DEV_OP_READ_SMART, -EINVAL},
	{"a command for a controller needs its name", name_empty, DEV_OP_READ_SMART, -EINVAL},
	{"a scan names no controller", name_empty, DEV_OP_SCAN, 0},
	{"options name no controller", name_empty, DEV_OP_CONFIGURE, 0},
	{"a scan's name is still checked for its end", name_unterminated, DEV_OP_SCAN, -EINVAL},
	{"a scan names no controller: a name is refused", none, DEV_OP_SCAN, -EINVAL},
	{"options name no controller: a name is refused", none, DEV_OP_CONFIGURE, -EINVAL},
	{"the model must end inside its array", model_unterminated, DEV_OP_READ_SMART, -EINVAL},
	{"the serial must end inside its array", serial_unterminated, DEV_OP_READ_SMART, -EINVAL},
	{"has_who is 0 or 1", who_two, DEV_OP_READ_SMART, -EINVAL},
	{"ext_data is 0 or 1", ext_two, DEV_OP_READ_ERRLOG, -EINVAL},
	{"wake_sleeping is 0 or 1", wake_two, DEV_OP_READ_SMART, -EINVAL},
	{"an error log read asks for at least one entry", n_zero, DEV_OP_READ_ERRLOG, -EINVAL},
	{"an error log read may ask for 256 entries (ELPE max + 1)", n_max, DEV_OP_READ_ERRLOG, 0},
	{"an error log read asks for at most 256 entries", n_over, DEV_OP_READ_ERRLOG, -EINVAL},
	{"the entry count matters only to error log reads", n_over, DEV_OP_READ_SMART, 0},
	{"a short self-test may start", none, DEV_OP_SELFTEST_START, 0},
	{"an extended self-test may start", stc_ext, DEV_OP_SELFTEST_START, 0},
	{"a self-test may be aborted (STC Fh)", stc_abort, DEV_OP_SELFTEST_START, 0},
	{"a vendor self-test (STC Eh) is refused: nvmond never starts one", stc_vendor,
	 DEV_OP_SELFTEST_START, -EINVAL},
	{"STC 0 starts nothing: refused", stc_none, DEV_OP_SELFTEST_START, -EINVAL},
	{"the self-test code matters only to a start", stc_vendor, DEV_OP_READ_SELFTEST, 0},
	{"a reload carries no device timeout: the device process reads its own", cfg_timeout,
	 DEV_OP_CONFIGURE, -EINVAL},
	{"a reload carries no (negative) device timeout", cfg_timeout_negative, DEV_OP_CONFIGURE,
	 -EINVAL},
	{"a reload carries no wake_sleeping: the device process reads its own", cfg_wake,
	 DEV_OP_CONFIGURE, -EINVAL},
	{"a probe's namespace may be opened to write (O_EXCL)", ns_ok, DEV_OP_OPEN_NS, 0},
	{"a probe's namespace may be opened to read", ns_read, DEV_OP_OPEN_NS, 0},
	{"a probe's namespace may be opened for its signature check", ns_sig, DEV_OP_OPEN_NS, 0},
	{"mode 0 is no way to open: refused", ns_mode_zero, DEV_OP_OPEN_NS, -EINVAL},
	{"a mode past the signature check's is unknown: refused", ns_mode_over, DEV_OP_OPEN_NS,
	 -EINVAL},
	{"only a namespace (nvme<N>n<M>) is opened, never a controller", ns_ctrl_name,
	 DEV_OP_OPEN_NS, -EINVAL},
	{"only a namespace is opened, never another disk", ns_other_disk, DEV_OP_OPEN_NS, -EINVAL},
	{"only a whole namespace is opened, never a partition", ns_partition, DEV_OP_OPEN_NS,
	 -EINVAL},
	{"only a namespace's block device, never its generic char device", ns_generic,
	 DEV_OP_OPEN_NS, -EINVAL},
	{"a namespace's name is never a path", ns_path, DEV_OP_OPEN_NS, -EINVAL},
	{"opening a namespace names the drive it must belong to", ns_no_who, DEV_OP_OPEN_NS,
	 -EINVAL},
	{"the drive a namespace must belong to has a serial", ns_no_serial, DEV_OP_OPEN_NS,
	 -EINVAL},
	{"NSID 0 is no namespace", ns_nsid_zero, DEV_OP_OPEN_NS, -EINVAL},
	{"NSID FFFFFFFFh (every namespace) is no namespace", ns_nsid_all, DEV_OP_OPEN_NS, -EINVAL},
	{"the open mode matters only to opening a namespace", ns_mode_over, DEV_OP_READ_SMART, 0},
	{"log C0h is read as it is: no parameter", none, DEV_OP_READ_OCP, 0},
	{"log C0h is a controller's: it needs a name", name_empty, DEV_OP_READ_OCP, -EINVAL},
	{"a PEL read from the first event (offset 512)", pel_ok, DEV_OP_READ_PEL, 0},
	{"a PEL read of DEV_PEL_READ_MAX bytes further in", pel_max, DEV_OP_READ_PEL, 0},
	{"a PEL read of more than DEV_PEL_READ_MAX is refused", pel_over, DEV_OP_READ_PEL, -EINVAL},
	{"a PEL read asks for some bytes", pel_zero, DEV_OP_READ_PEL, -EINVAL},
	{"a PEL read's length is whole dwords (NUMD)", pel_odd_len, DEV_OP_READ_PEL, -EINVAL},
	{"a PEL read starts at the last event taken, which need not end on a dword (Base 2.0 "
	 "§5.16.1.14: an event is EHL + 3 + EL bytes)",
	 pel_odd_off, DEV_OP_READ_PEL, 0},
	{"a PEL read starts past the 512-byte header (the context's own read has it)",
	 pel_in_header, DEV_OP_READ_PEL, -EINVAL},
	{"a PEL read's offset is within 4 GiB", pel_far, DEV_OP_READ_PEL, -EINVAL},
	{"an offset is only for a PEL read", offset_elsewhere, DEV_OP_READ_SMART, -EINVAL},
	{"a PEL read's name is checked like any other", name_path, DEV_OP_READ_PEL, -EINVAL},
	{"a power read of Power Management alone", pow_pm, DEV_OP_READ_POWER, 0},
	{"a power read of Power Management, APST and HCTM", pow_all, DEV_OP_READ_POWER, 0},
	{"a power read asks for something", pow_none, DEV_OP_READ_POWER, -EINVAL},
	{"a power read always asks for Power Management", pow_no_pm, DEV_OP_READ_POWER, -EINVAL},
	{"a power read asks for no unknown feature", pow_unknown, DEV_OP_READ_POWER, -EINVAL},
	{"features are only for a power read", pow_pm, DEV_OP_READ_SMART, -EINVAL},
	{"the reserved field is 0", reserved_set, DEV_OP_READ_SMART, -EINVAL},
};

Test(dev_wire, request_table)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dev_wire_req q = good(cases[i].op), out;

		cases[i].edit(&q);
		memset(&out, 0xee, sizeof(out));
		int r = dev_wire_req_parse(&q, sizeof(q), &out);
		cr_expect_eq(r, cases[i].want, "%s: got %d, want %d", cases[i].rule, r,
			     cases[i].want);
		if (r == 0)
			cr_expect(memcmp(&out, &q, sizeof(q)) == 0, "%s: the request as sent",
				  cases[i].rule);
	}
}

/* Rule: a frame of any other size breaks the channel. */
Test(dev_wire, frame_size)
{
	struct dev_wire_req q = good(DEV_OP_READ_SMART), out;
	unsigned char big[sizeof(q) + 1] = {0};

	cr_expect_eq(dev_wire_req_parse(&q, sizeof(q) - 1, &out), -EPROTO);
	memcpy(big, &q, sizeof(q));
	cr_expect_eq(dev_wire_req_parse(big, sizeof(big), &out), -EPROTO);
	cr_expect_eq(dev_wire_req_parse(&q, 0, &out), -EPROTO);
}

/* Rule: an answer carries exactly the command's payload; a failure carries none. */
Test(dev_wire, answer_lengths)
{
	struct dev_wire_req q = good(DEV_OP_READ_SMART);

	cr_expect(dev_wire_resp_ok(&q, 0, SMART_LOG_SIZE));
	cr_expect(!dev_wire_resp_ok(&q, 0, SMART_LOG_SIZE - 1));
	cr_expect(!dev_wire_resp_ok(&q, 0, SMART_LOG_SIZE + 1));
	cr_expect(dev_wire_resp_ok(&q, -EIO, 0));
	cr_expect(!dev_wire_resp_ok(&q, -EIO, SMART_LOG_SIZE));
	/* A positive NVMe status (the self-test in progress) is an answer without a page. */
	q = good(DEV_OP_SELFTEST_START);
	cr_expect(dev_wire_resp_ok(&q, 0, 0));
	cr_expect(!dev_wire_resp_ok(&q, 0, 4));
	q = good(DEV_OP_READ_ERRLOG);
	q.n = 3;
	cr_expect(dev_wire_resp_ok(&q, 0, 3 * ERRLOG_ENTRY_SIZE));
	cr_expect(!dev_wire_resp_ok(&q, 0, 4 * ERRLOG_ENTRY_SIZE));
	q = good(DEV_OP_SCAN);
	cr_expect(dev_wire_resp_ok(&q, 0, 0));
	cr_expect(dev_wire_resp_ok(&q, 0, 2 * sizeof(struct dev_info)));
	cr_expect(!dev_wire_resp_ok(&q, 0, 2 * sizeof(struct dev_info) + 1));
	cr_expect(dev_wire_resp_ok(&q, 0, DEV_WIRE_SCAN_MAX * sizeof(struct dev_info)));
	cr_expect(!dev_wire_resp_ok(&q, 0, (DEV_WIRE_SCAN_MAX + 1) * sizeof(struct dev_info)));
	q = good(DEV_OP_READ_RUNTIME);
	cr_expect(dev_wire_resp_ok(&q, 0, sizeof(int32_t)));
	q = good(DEV_OP_SENSOR_LIMITS);
	cr_expect(dev_wire_resp_ok(&q, 0, SMART_NUM_SENSORS * 2));
	q = good(DEV_OP_READ_SELFTEST);
	cr_expect(dev_wire_resp_ok(&q, 0, SELFTEST_LOG_SIZE));
	q = good(DEV_OP_READ_HWMON);
	cr_expect(dev_wire_resp_ok(&q, 0, sizeof(struct nvme_hwmon_temps)));
	/* Opening a namespace answers with its reason, whether it opened or not. */
	q = good(DEV_OP_OPEN_NS);
	cr_expect(dev_wire_resp_ok(&q, 0, DEV_NS_REASON_MAX));
	cr_expect(dev_wire_resp_ok(&q, -EBUSY, DEV_NS_REASON_MAX));
	cr_expect(!dev_wire_resp_ok(&q, -EBUSY, 0));
	cr_expect(!dev_wire_resp_ok(&q, 0, 0));
	cr_expect(!dev_wire_resp_ok(&q, 0, DEV_NS_REASON_MAX + 1));
	/* Issue 27: C0h is its page; the PEL the header and the length asked; power a
	 * struct dev_power. */
	q = good(DEV_OP_READ_OCP);
	cr_expect(dev_wire_resp_ok(&q, 0, OCP_LOG_SIZE));
	cr_expect(!dev_wire_resp_ok(&q, 0, OCP_LOG_SIZE - 1));
	q = good(DEV_OP_READ_PEL);
	q.n = 4096;
	cr_expect(dev_wire_resp_ok(&q, 0, PEL_HEADER_SIZE + 4096));
	cr_expect(dev_wire_resp_ok(&q, 100, PEL_HEADER_SIZE + 4096), "100 of the 4096 bytes read");
	cr_expect(!dev_wire_resp_ok(&q, 0, 4096));
	cr_expect(!dev_wire_resp_ok(&q, -EIO, PEL_HEADER_SIZE + 4096));
	q = good(DEV_OP_READ_POWER);
	cr_expect(dev_wire_resp_ok(&q, 0, sizeof(struct dev_power)));
	cr_expect(!dev_wire_resp_ok(&q, 0, sizeof(struct dev_power) - 1));
}
