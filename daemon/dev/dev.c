/* SPDX-License-Identifier: MIT */
/*
 * The real backend: NVMe controllers through libnvme. The only file that
 * includes <libnvme.h>. It returns raw pages; decoding is smart.c / idctl.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <libnvme.h>

#include "nvmond/dev/dev.h"
#include "nvmond/dev/dev_guard.h"
#include "nvmond/decode/idns.h"
#include "nvmond/dev/nvme_sysfs.h"

/* Our decoders read the wire layout by offset; hold libnvme's structs to it. */
_Static_assert(sizeof(struct nvme_smart_log) == SMART_LOG_SIZE, "SMART log page size");
_Static_assert(offsetof(struct nvme_smart_log, data_units_written) == 48, "DUW offset");
_Static_assert(offsetof(struct nvme_smart_log, temp_sensor) == 200, "sensor offset");
_Static_assert(offsetof(struct nvme_smart_log, thm_temp2_total_time) == 228, "TMT2 offset");
_Static_assert(sizeof(struct nvme_id_ctrl) == IDCTL_SIZE, "identify controller size");
_Static_assert(offsetof(struct nvme_id_ctrl, wctemp) == 266, "WCTEMP offset");
_Static_assert(offsetof(struct nvme_id_ctrl, tnvmcap) == 280, "TNVMCAP offset");
_Static_assert(offsetof(struct nvme_id_ctrl, elpe) == 262, "ELPE offset");
_Static_assert(offsetof(struct nvme_id_ctrl, lpa) == 261, "LPA offset");
_Static_assert(offsetof(struct nvme_id_ctrl, edstt) == 316, "EDSTT offset");
_Static_assert(sizeof(struct nvme_error_log_page) == ERRLOG_ENTRY_SIZE, "error log entry size");
_Static_assert(sizeof(struct nvme_firmware_slot) == FWLOG_SIZE, "firmware slot log size");
_Static_assert(sizeof(struct nvme_self_test_log) == SELFTEST_LOG_SIZE, "self-test log size");
_Static_assert(sizeof(struct nvme_persistent_event_log) == PEL_HEADER_SIZE, "PEL header size");
_Static_assert(offsetof(struct nvme_persistent_event_log, gen_number) == 372, "PEL GN offset");
_Static_assert(sizeof(struct nvme_persistent_event_entry) == PEL_EVENT_HEADER_SIZE,
	       "PEL event header size");
_Static_assert(offsetof(struct nvme_id_ctrl, psd) == 2048, "PSD0 offset");
_Static_assert(offsetof(struct nvme_id_ctrl, hctma) == 322, "HCTMA offset");
_Static_assert(offsetof(struct nvme_id_ctrl, pels) == 352, "PELS offset");
_Static_assert(sizeof(struct nvme_id_ns) == IDNS_SIZE, "identify namespace size");
_Static_assert(offsetof(struct nvme_id_ns, nuse) == 16, "NUSE offset");
_Static_assert((int)NVME_PEVENT_LOG_EST_CTX_AND_READ == PEL_ACTION_ESTABLISH &&
		       (int)NVME_PEVENT_LOG_RELEASE_CTX == PEL_ACTION_RELEASE,
	       "PEL actions");
_Static_assert((int)NVME_DST_STC_SHORT == SELFTEST_CODE_SHORT &&
		       (int)NVME_DST_STC_LONG == SELFTEST_CODE_EXTENDED &&
		       (int)NVME_DST_STC_ABORT == SELFTEST_CODE_ABORT,
	       "self-test codes");
_Static_assert(SELFTEST_ST_IN_PROGRESS ==
		       (NVME_SCT_CMD_SPECIFIC << NVME_SCT_SHIFT | NVME_SC_SELF_TEST_IN_PROGRESS),
	       "Device Self-test in Progress status");

/* The real backend's state: where sysfs is, and its options. */
struct nvme_ctx {
	char sysfs[PATH_MAX];
	struct dev_opts opts;
	struct dev_guard *guard; /* the scan's Identify goes through it; NULL: direct */
};

/* libnvme answers -1 + errno for a failed ioctl, or a positive NVMe status. */
static int nvme_rc_errno(int rc)
{
	if (rc < 0)
		return errno ? -errno : -EIO;
	return rc > 0 ? -EIO : 0;
}

/* Controller names come from sysfs; still, never build a path from anything else. */
static bool name_valid(const char *name)
{
	if (strncmp(name, "nvme", 4) != 0 || !name[4])
		return false;
	for (const char *p = name + 4; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static int open_ctrl(const char *name, int *ret_fd)
{
	char path[DEV_NAME_MAX + 8];

	if (!name_valid(name))
		return -EINVAL;
	snprintf(path, sizeof(path), "/dev/%s", name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

static void add_ns(struct dev_info *d, nvme_ns_t n)
{
	if (d->n_ns >= DEV_MAX_NS)
		return;
	struct dev_ns *ns = &d->ns[d->n_ns++];
	ns->nsid = (uint32_t)nvme_ns_get_nsid(n);
	snprintf(ns->name, sizeof(ns->name), "%s", nvme_ns_get_name(n));
	ns->lba_size = (uint32_t)nvme_ns_get_lba_size(n);
	ns->size_bytes = nvme_ns_get_lba_count(n) * ns->lba_size;
}

/*
 * Identify Namespace of each namespace listed (issue 27): size, capacity and
 * utilization. A namespace that does not answer keeps has_usage false.
 */
static void ns_identify(int fd, struct dev_info *d)
{
	struct nvme_id_ns id;
	struct idns ns;

	for (size_t i = 0; i < d->n_ns; i++) {
		if (nvme_rc_errno(nvme_identify_ns(fd, d->ns[i].nsid, &id)) < 0)
			continue;
		idns_decode((const uint8_t *)&id, &ns);
		d->ns[i].has_usage = true;
		d->ns[i].nsze = ns.nsze;
		d->ns[i].ncap = ns.ncap;
		d->ns[i].nuse = ns.nuse;
		if (ns.lba_size)
			d->ns[i].lba_size = ns.lba_size;
	}
}

/* Identify Controller, then log 03h and Identify Namespace: Return: 0, or
 * negative errno of Identify Controller. */
static int ctrl_identify_now(const char *name, struct dev_info *d)
{
	struct nvme_firmware_slot fw;
	struct nvme_id_ctrl id;
	int fd, r;

	r = open_ctrl(name, &fd);
	if (r < 0)
		return r;
	r = nvme_rc_errno(nvme_identify_ctrl(fd, &id));
	if (r == 0) {
		idctl_decode((const uint8_t *)&id, &d->id);
		/*
		 * Log 03h is mandatory; without permission for it (a kernel that
		 * lets anyone Identify) the health log is out of reach as well.
		 */
		int fr = nvme_rc_errno(nvme_get_log_fw_slot(fd, false, &fw));
		if (fr == 0)
			d->facts.has_fwlog =
				fwlog_decode((const uint8_t *)&fw, &d->facts.fwlog) == 0;
		else if (dev_no_permission(fr))
			d->access = DEV_ACCESS_SYSFS;
		if (d->access == DEV_ACCESS_ADMIN)
			ns_identify(fd, d);
	}
	close(fd);
	return r;
}

struct identify_io {
	char name[DEV_NAME_MAX];
	struct dev_info d;
};

static int identify_fn(void *arg)
{
	struct identify_io *io = arg;

	return ctrl_identify_now(io->name, &io->d);
}

/* Through the guard when there is one: -ETIMEDOUT for a controller that hangs. */
static int ctrl_identify(const struct nvme_ctx *x, const char *name, struct dev_info *d)
{
	struct identify_io *io;
	int r;

	if (!x->guard)
		return ctrl_identify_now(name, d);
	io = malloc(sizeof(*io));
	if (!io)
		return -ENOMEM;
	snprintf(io->name, sizeof(io->name), "%s", name);
	io->d = *d;
	r = dev_guard_run(x->guard, name, identify_fn, io, sizeof(*io));
	if (r != -ETIMEDOUT)
		*d = io->d;
	free(io);
	return r;
}

/*
 * The identity the driver read at probe, for a controller nvmond may not (or
 * must not) send commands to; WCTEMP and CCTEMP from hwmon unless asleep.
 */
static int ctrl_identify_sysfs(const struct nvme_ctx *x, const char *name, bool hung,
			       struct dev_info *d)
{
	struct nvme_hwinfo_ident hi;
	struct nvme_hwmon_temps t;
	int r = nvme_hwinfo_ident_read(x->sysfs, name, &hi);

	if (r < 0)
		return r;
	d->id = (struct idctl){0};
	snprintf(d->id.model, sizeof(d->id.model), "%s", hi.model);
	snprintf(d->id.serial, sizeof(d->id.serial), "%s", hi.serial);
	snprintf(d->id.firmware, sizeof(d->id.firmware), "%s", hi.firmware);
	/* hwmon's thresholds are Get Features the kernel sends: not to a hung one. */
	if (!d->asleep && !hung && nvme_hwinfo_temps_read(x->sysfs, name, &t) == 0) {
		d->id.wctemp_k = t.wctemp_k;
		d->id.cctemp_k = t.cctemp_k;
	}
	return 0;
}

static int ctrl_info(const struct nvme_ctx *x, nvme_subsystem_t s, nvme_ctrl_t c,
		     struct dev_info *ret)
{
	struct dev_info d = {0};
	bool hung = false;
	int r;

	snprintf(d.name, sizeof(d.name), "%s", nvme_ctrl_get_name(c));
	if (!name_valid(d.name))
		return -EINVAL;
	/* sysfs first: a suspended drive is not woken by the scan. */
	(void)nvme_hwinfo_link_read(x->sysfs, d.name, &d.facts.link);
	if (nvme_hwinfo_runtime_read(x->sysfs, d.name, &d.facts.runtime) < 0)
		d.facts.runtime = NVME_RUNTIME_UNKNOWN;
	d.asleep = nvme_runtime_asleep(d.facts.runtime) &&
		   !__atomic_load_n(&x->opts.wake_sleeping, __ATOMIC_RELAXED);
	/* The namespaces libnvme found (sysfs), then Identify for their usage. */
	nvme_ns_t n;
	nvme_ctrl_for_each_ns(c, n) add_ns(&d, n);
	/* With native multipath the block devices hang off the subsystem. */
	if (d.n_ns == 0)
		nvme_subsystem_for_each_ns(s, n) add_ns(&d, n);
	for (size_t i = 0; i < d.n_ns; i++)
		(void)nvme_hwinfo_ana_read(x->sysfs, d.name, d.ns[i].name, d.ns[i].ana_state);
	if (!d.asleep) {
		r = ctrl_identify(x, d.name, &d);
		/* A controller that does not answer stays listed, as sysfs knows it;
		 * the poller then finds it unresponsive. */
		hung = dev_timed_out(r);
		d.unresponsive = hung;
		if (dev_no_permission(r))
			d.access = DEV_ACCESS_SYSFS;
		else if (r < 0 && !hung)
			return r;
	}
	if (d.asleep || hung || (d.access == DEV_ACCESS_SYSFS && !d.id.serial[0])) {
		r = ctrl_identify_sysfs(x, d.name, hung, &d);
		if (r < 0)
			return r;
	}
	snprintf(d.path, sizeof(d.path), "/dev/%s", d.name);
	*ret = d;
	return 0;
}

static int nvmond_scan_ctrls(void *ctx, int64_t now_ms, struct dev_info **ret, size_t *ret_n)
{
	struct dev_info *v = NULL;
	size_t n = 0, cap = 0;
	nvme_host_t h;
	nvme_subsystem_t s;
	nvme_ctrl_t c;

	(void)now_ms;
	/* libnvme logs through its root; keep it quiet: errors come back to us. */
	nvme_root_t root = nvme_create_root(NULL, LOG_CRIT);
	if (!root)
		return -ENOMEM;
	int r = nvme_scan_topology(root, NULL, NULL);
	if (r < 0) {
		/* No NVMe at all (no /sys/class/nvme) is an empty list, not an error. */
		r = errno == ENOENT ? 0 : -errno;
		goto out;
	}
	r = 0;
	nvme_for_each_host(root, h) nvme_for_each_subsystem(h, s) nvme_subsystem_for_each_ctrl(s, c)
	{
		const char *transport = nvme_ctrl_get_transport(c);
		if (transport && strcmp(transport, "pcie") != 0)
			continue; /* fabrics controllers are another host's drives */
		if (n == cap) {
			cap = cap ? cap * 2 : 4;
			struct dev_info *nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				r = -ENOMEM;
				goto out;
			}
			v = nv;
		}
		/* A controller that cannot be identified now (resetting, gone) is left out. */
		if (ctrl_info(ctx, s, c, &v[n]) == 0)
			n++;
	}
out:
	nvme_free_tree(root);
	if (r < 0) {
		free(v);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

/*
 * Whether the node open on @fd is the controller @who: asked of the node
 * itself (its device number), so a name that moved to another drive between
 * the scan and this read cannot answer for the wrong one.
 */
static int ctrl_is(const struct nvme_ctx *x, int fd, const struct dev_ident *who)
{
	struct nvme_sysfs_ctrl c;
	struct stat st;
	int r;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISCHR(st.st_mode))
		return -ENODEV;
	r = nvme_sysfs_ctrl_of_chardev(x->sysfs, st.st_rdev, &c);
	if (r < 0)
		return r == -ENOENT ? -ENODEV : r;
	return nvme_sysfs_ident_eq(&c, who->serial, who->model) ? 0 : -ESTALE;
}

/*
 * Open the controller @name for an admin command and check, before anything
 * is sent, that the node is still the drive @who (when given): a drive that
 * moved under the name is -ESTALE, and nothing reaches it. On success the
 * caller owns *@ret_fd and closes it.
 */
static int open_verified(const struct nvme_ctx *x, const char *name, const struct dev_ident *who,
			 int *ret_fd)
{
	int fd, r;

	r = open_ctrl(name, &fd);
	if (r < 0)
		return r;
	r = who ? ctrl_is(x, fd, who) : 0;
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

static int nvmond_read_smart(void *ctx, const char *name, const struct dev_ident *who,
			     int64_t now_ms, uint8_t ret_page[SMART_LOG_SIZE])
{
	struct nvme_smart_log log;
	int fd, r;

	(void)now_ms;
	r = open_verified(ctx, name, who, &fd);
	if (r < 0)
		return r;
	r = nvme_rc_errno(nvme_get_log_smart(fd, NVME_NSID_ALL, false, &log));
	close(fd);
	if (r < 0)
		return r;
	memcpy(ret_page, &log, SMART_LOG_SIZE);
	return 0;
}

/*
 * The Error Information log, newest entries first. RAE is clear, as nvme-cli
 * and smartctl read it: the controller may then report the next error
 * through an asynchronous event again. Up to 64 entries this is one command
 * without an offset; libnvme splits longer reads into 4 KiB pieces with
 * offsets, which only a controller with LPA bit 2 takes (@ext_data).
 */
static int nvmond_read_errlog(void *ctx, const char *name, const struct dev_ident *who,
			      int64_t now_ms, size_t n, bool ext_data, uint8_t *ret_page)
{
	int fd, r;

	(void)now_ms;
	if (!ext_data && n > ERRLOG_ENTRIES_PER_4K)
		return -EINVAL;
	r = open_verified(ctx, name, who, &fd);
	if (r < 0)
		return r;
	memset(ret_page, 0, n * ERRLOG_ENTRY_SIZE);
	r = nvme_rc_errno(
		nvme_get_log_error(fd, (unsigned)n, false, (struct nvme_error_log_page *)ret_page));
	close(fd);
	return r;
}

static int nvmond_read_runtime(void *ctx, const char *name, int64_t now_ms,
			       enum nvme_runtime_status *ret)
{
	const struct nvme_ctx *x = ctx;
	int r;

	(void)now_ms;
	if (!name_valid(name))
		return -EINVAL;
	r = nvme_hwinfo_runtime_read(x->sysfs, name, ret);
	if (r == 0 || r == -EINVAL)
		return r;
	/* Gone (no such controller) is -ENODEV, as for the other reads. */
	r = nvme_sysfs_ctrl_read(x->sysfs, name, &(struct nvme_sysfs_ctrl){0});
	if (r == -ENOENT)
		return -ENODEV;
	/* No PCI function, no runtime PM in the kernel: never asleep. */
	*ret = NVME_RUNTIME_UNSUPPORTED;
	return 0;
}

static int nvmond_read_hwmon(void *ctx, const char *name, int64_t now_ms,
			     struct nvme_hwmon_temps *ret)
{
	const struct nvme_ctx *x = ctx;

	(void)now_ms;
	if (!name_valid(name))
		return -EINVAL;
	return nvme_hwinfo_temps_read(x->sysfs, name, ret);
}

static void nvmond_configure(void *ctx, const struct dev_opts *o)
{
	struct nvme_ctx *x = ctx;

	/* A scan on another thread may read it meanwhile (the device process). */
	__atomic_store_n(&x->opts.wake_sleeping, o->wake_sleeping, __ATOMIC_RELAXED);
}

static void nvmond_set_guard(void *ctx, struct dev_guard *g)
{
	struct nvme_ctx *x = ctx;

	x->guard = g;
}

/*
 * Get Features 04h (Temperature Threshold), current value, of each sensor in
 * @sensors: CDW11 bits 19:16 TMPSEL = the sensor, bits 21:20 THSEL = 0 (over
 * temperature); the answer's bits 15:0 are the threshold in Kelvin. A sensor
 * the drive refuses (Invalid Field) is left at 0, none.
 */
static int nvmond_read_sensor_limits(void *ctx, const char *name, const struct dev_ident *who,
				     uint8_t sensors, uint16_t ret_k[SMART_NUM_SENSORS])
{
	uint16_t k[SMART_NUM_SENSORS] = {0};
	int fd, r;

	r = open_verified(ctx, name, who, &fd);
	if (r < 0)
		return r;
	for (int i = 0; r == 0 && i < SMART_NUM_SENSORS; i++) {
		__u32 result = 0;
		if (!(sensors & (1u << i)))
			continue;
		struct nvme_get_features_args args = {
			.result = &result,
			.args_size = sizeof(args),
			.fd = fd,
			.timeout = NVME_DEFAULT_IOCTL_TIMEOUT,
			.sel = NVME_GET_FEATURES_SEL_CURRENT,
			.cdw11 = (__u32)(i + 1) << NVME_FEAT_TT_TMPSEL_SHIFT |
				 (__u32)NVME_FEATURE_TEMPTHRESH_THSEL_OVER
					 << NVME_FEAT_TT_THSEL_SHIFT,
			.fid = NVME_FEAT_FID_TEMP_THRESH,
			.uuidx = NVME_UUID_NONE,
		};
		int rc = nvme_get_features(&args);
		if (rc < 0)
			r = errno ? -errno : -EIO; /* the ioctl failed: the drive is gone */
		else if (rc == 0)
			k[i] = (uint16_t)(result & NVME_FEAT_TT_TMPTH_MASK);
	}
	close(fd);
	if (r < 0)
		return r;
	memcpy(ret_k, k, sizeof(k));
	return 0;
}

/*
 * Device Self-test (admin opcode 14h) with code @stc for @nsid. The command
 * returns at once; the test runs in the background, and log 06h follows it.
 * The NVMe status is mapped by selftest_start_errno().
 */
static int nvmond_selftest_start(void *ctx, const char *name, const struct dev_ident *who,
				 int64_t now_ms, uint32_t nsid, uint8_t stc)
{
	__u32 result = 0;
	int fd, r;

	(void)now_ms;
	r = open_verified(ctx, name, who, &fd);
	if (r < 0)
		return r;
	struct nvme_dev_self_test_args args = {
		.result = &result,
		.args_size = sizeof(args),
		.fd = fd,
		.timeout = NVME_DEFAULT_IOCTL_TIMEOUT,
		.nsid = nsid,
		.stc = (enum nvme_dst_stc)stc,
	};
	int rc = nvme_dev_self_test(&args);
	r = rc < 0 ? (errno ? -errno : -EIO) : selftest_start_errno((uint32_t)rc);
	close(fd);
	return r;
}

/* The Device Self-test log (06h), controller scope (NSID FFFFFFFFh), RAE clear. */
static int nvmond_read_selftest(void *ctx, const char *name, const struct dev_ident *who,
				int64_t now_ms, uint8_t ret_page[SELFTEST_LOG_SIZE])
{
	struct nvme_self_test_log log;
	int fd, r;

	(void)now_ms;
	r = open_verified(ctx, name, who, &fd);
	if (r < 0)
		return r;
	int rc = nvme_get_log_device_self_test(fd, &log);
	r = rc < 0 ? (errno ? -errno : -EIO) : selftest_log_errno((uint32_t)rc);
	close(fd);
	if (r < 0)
		return r;
	memcpy(ret_page, &log, SELFTEST_LOG_SIZE);
	return 0;
}

/*
 * An NVMe status as the reads of issue 27 take it: a drive that does not have
 * the log or feature (Invalid Command Opcode, Invalid Field in Command,
 * Invalid Log Page) is -EOPNOTSUPP; Command Sequence Error (a reporting
 * context already established, or none) -EBUSY; any other status -EIO.
 */
static int status_errno(int rc)
{
	unsigned sct, sc;

	if (rc < 0)
		return errno ? -errno : -EIO;
	if (rc == 0)
		return 0;
	sct = ((unsigned)rc >> NVME_SCT_SHIFT) & NVME_SCT_MASK;
	sc = (unsigned)rc & NVME_SC_MASK;
	if (sct == NVME_SCT_GENERIC &&
	    (sc == NVME_SC_INVALID_OPCODE || sc == NVME_SC_INVALID_FIELD))
		return -EOPNOTSUPP;
	if (sct == NVME_SCT_CMD_SPECIFIC && sc == NVME_SC_INVALID_LOG_PAGE)
		return -EOPNOTSUPP;
	if (sct == NVME_SCT_GENERIC && sc == NVME_SC_CMD_SEQ_ERROR)
		return -EBUSY;
	return -EIO;
}

/* Log C0h, controller scope, RAE clear: the page as it comes (issue 27). */
static int nvmond_read_ocp(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			   uint8_t ret_page[OCP_LOG_SIZE])
{
	uint8_t page[OCP_LOG_SIZE];
	int fd, r;

	(void)now_ms;
	r = open_verified(ctx, name, who, &fd);
	if (r < 0)
		return r;
	r = status_errno(nvme_get_log_simple(fd, (enum nvme_cmd_get_log_lid)OCP_LOG_LID,
					     sizeof(page), page));
	close(fd);
	if (r == 0)
		memcpy(ret_page, page, sizeof(page));
	return r;
}

/*
 * Get Log Page 0Dh with action @action: @len bytes from @lpo, in 4 KiB reads at
 * offsets (libnvme), or in one read when @xfer is @len (no offsets).
 */
static int pel_get(int fd, enum pel_action action, uint64_t lpo, uint32_t len, void *buf,
		   uint32_t xfer)
{
	struct nvme_get_log_args args = {
		.lpo = lpo,
		.log = buf,
		.args_size = sizeof(args),
		.fd = fd,
		.timeout = NVME_DEFAULT_IOCTL_TIMEOUT,
		.lid = NVME_LOG_LID_PERSISTENT_EVENT,
		.len = len,
		.nsid = NVME_NSID_ALL,
		.csi = NVME_CSI_NVM,
		.lsi = NVME_LOG_LSI_NONE,
		.lsp = (__u8)action,
		.uuidx = NVME_UUID_NONE,
	};

	return status_errno(nvme_get_log_page(fd, xfer, &args));
}

/* Longest log read without offsets: NUMDL's 16 bits of dwords. */
#define PEL_NO_LPO_MAX (256 * 1024)

/*
 * The Persistent Event Log inside a reporting context of its own (Base 2.0
 * §5.16.1.14): establish it reading the header, read the part asked for,
 * release it. A context someone else left (nvme-cli's -a 1) makes the
 * establishing a Command Sequence Error: it is released and established again.
 */
static int nvmond_read_pel(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			   uint64_t offset, uint32_t len, bool ext_data,
			   uint8_t ret_head[PEL_HEADER_SIZE], uint8_t *ret_data)
{
	uint8_t scratch[PEL_HEADER_SIZE];
	struct pel_header h;
	uint32_t n = 0;
	int fd, r;

	(void)now_ms;
	r = open_verified(ctx, name, who, &fd);
	if (r < 0)
		return r;
	r = pel_get(fd, PEL_ACTION_ESTABLISH, 0, PEL_HEADER_SIZE, ret_head, PEL_HEADER_SIZE);
	if (r == -EBUSY) {
		(void)pel_get(fd, PEL_ACTION_RELEASE, 0, PEL_HEADER_SIZE, scratch, PEL_HEADER_SIZE);
		r = pel_get(fd, PEL_ACTION_ESTABLISH, 0, PEL_HEADER_SIZE, ret_head,
			    PEL_HEADER_SIZE);
	}
	if (r < 0) {
		close(fd);
		return r;
	}
	if (pel_header_decode(ret_head, &h) < 0)
		r = -EBADMSG;
	else if (offset < h.tll)
		n = h.tll - offset < len ? (uint32_t)(h.tll - offset) : len;
	/* Dwords: the last one whole, inside the buffer (len is a multiple of 4). */
	uint32_t nr = (n + 3) & ~3u;
	if (r == 0 && nr && ext_data) {
		/* LPO is dword aligned (Base 2.0 §5.16: bits 1:0 of LPOL are 0): read from
		 * the dword @offset falls in, keep what follows it. */
		uint32_t pre = (uint32_t)(offset & 3);
		uint32_t span = (pre + n + 3) & ~3u;
		uint8_t *buf = pre ? malloc(span) : ret_data;
		r = buf ? pel_get(fd, PEL_ACTION_READ, offset - pre, pre ? span : nr, buf,
				  NVME_LOG_PAGE_PDU_SIZE)
			: -ENOMEM;
		if (pre && r == 0)
			memcpy(ret_data, buf + pre, n);
		if (pre)
			free(buf);
	} else if (r == 0 && nr) {
		uint8_t *all = offset + nr <= PEL_NO_LPO_MAX ? malloc(offset + nr) : NULL;
		r = offset + nr > PEL_NO_LPO_MAX ? -EOPNOTSUPP : all ? 0 : -ENOMEM;
		if (r == 0)
			r = pel_get(fd, PEL_ACTION_READ, 0, (uint32_t)(offset + nr), all,
				    (uint32_t)(offset + nr));
		if (r == 0)
			memcpy(ret_data, all + offset, nr);
		free(all);
	}
	(void)pel_get(fd, PEL_ACTION_RELEASE, 0, PEL_HEADER_SIZE, scratch, PEL_HEADER_SIZE);
	close(fd);
	return r < 0 ? r : (int)n;
}

/* Get Features @fid, current value: 0 with *@ret_dw0, or negative errno (status_errno()). */
static int feature_get(int fd, uint8_t fid, void *data, uint32_t data_len, uint32_t *ret_dw0)
{
	__u32 result = 0;
	struct nvme_get_features_args args = {
		.result = &result,
		.data = data,
		.args_size = sizeof(args),
		.fd = fd,
		.timeout = NVME_DEFAULT_IOCTL_TIMEOUT,
		.sel = NVME_GET_FEATURES_SEL_CURRENT,
		.data_len = data_len,
		.fid = fid,
		.uuidx = NVME_UUID_NONE,
	};
	int r = status_errno(nvme_get_features(&args));

	if (r == 0)
		*ret_dw0 = result;
	return r;
}

/*
 * Power Management (02h), and APST (0Ch, with its 256-byte table) and HCTM
 * (10h) when asked: a feature the drive refuses is left out of ->got; a
 * refused Power Management fails the read.
 */
static int nvmond_read_power(void *ctx, const char *name, const struct dev_ident *who,
			     int64_t now_ms, uint8_t which, struct dev_power *ret)
{
	struct dev_power p = {0};
	int fd, r;

	(void)now_ms;
	r = open_verified(ctx, name, who, &fd);
	if (r < 0)
		return r;
	r = feature_get(fd, NVME_FEAT_FID_POWER_MGMT, NULL, 0, &p.pm_dw0);
	if (r == 0)
		p.got |= DEV_POWER_PM;
	if (r == 0 && (which & DEV_POWER_APST)) {
		int k = feature_get(fd, NVME_FEAT_FID_AUTO_PST, p.apst_table, sizeof(p.apst_table),
				    &p.apst_dw0);
		if (k == 0)
			p.got |= DEV_POWER_APST;
		else if (k != -EOPNOTSUPP && k != -EIO)
			r = k; /* the ioctl failed: the drive is gone */
	}
	if (r == 0 && (which & DEV_POWER_HCTM)) {
		int k = feature_get(fd, NVME_FEAT_FID_HCTM, NULL, 0, &p.hctm_dw0);
		if (k == 0)
			p.got |= DEV_POWER_HCTM;
		else if (k != -EOPNOTSUPP && k != -EIO)
			r = k;
	}
	close(fd);
	if (r == 0)
		*ret = p;
	return r;
}

static void nvmond_backend_free(void *ctx)
{
	free(ctx);
}

static const struct dev_backend_ops nvme_ops = {
	.name = "nvme",
	.scan = nvmond_scan_ctrls,
	.read_smart = nvmond_read_smart,
	.read_errlog = nvmond_read_errlog,
	.free = nvmond_backend_free,
	.read_runtime = nvmond_read_runtime,
	.read_hwmon = nvmond_read_hwmon,
	.configure = nvmond_configure,
	.set_guard = nvmond_set_guard,
	.read_sensor_limits = nvmond_read_sensor_limits,
	.selftest_start = nvmond_selftest_start,
	.read_selftest = nvmond_read_selftest,
	.read_ocp = nvmond_read_ocp,
	.read_pel = nvmond_read_pel,
	.read_power = nvmond_read_power,
};

int dev_nvme_open_at(const char *sysfs, struct dev_backend **ret)
{
	struct dev_backend *b = calloc(1, sizeof(*b));
	struct nvme_ctx *x = calloc(1, sizeof(*x));

	if (!b || !x ||
	    (size_t)snprintf(x->sysfs, sizeof(x->sysfs), "%s", sysfs) >= sizeof(x->sysfs)) {
		free(b);
		free(x);
		return b && x ? -ENAMETOOLONG : -ENOMEM;
	}
	b->ops = &nvme_ops;
	b->ctx = x;
	*ret = b;
	return 0;
}

int dev_nvme_open(struct dev_backend **ret)
{
	return dev_nvme_open_at("/sys", ret);
}

bool dev_no_permission(int err)
{
	return err == -EACCES || err == -EPERM;
}

bool dev_selftest_supported(const struct idctl *id)
{
	return id->oacs & (1u << 4);
}

char *dev_key(const struct idctl *id, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", id->model, id->serial);
	return buf;
}
