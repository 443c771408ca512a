/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/decode/errlog.h"
#include "nvmond/decode/fwlog.h"
#include "nvmond/decode/idctl.h"
#include "nvmond/dev/nvme_hwinfo.h"
#include "nvmond/decode/ocp.h"
#include "nvmond/decode/pel.h"
#include "nvmond/decode/power.h"
#include "nvmond/decode/selftest.h"
#include "nvmond/decode/smart.h"

#define DEV_MAX_NS   32
#define DEV_NAME_MAX 64
#define DEV_KEY_MAX  128 /* "model/serial", as struct device_row.key */

struct dev_ns {
	uint32_t nsid;
	char name[DEV_NAME_MAX]; /* block device name, e.g. "nvme0n1" */
	uint64_t size_bytes;
	uint32_t lba_size;
	/*
	 * Identify Namespace at the scan (issue 27), in logical blocks of
	 * lba_size: has_usage false when it was not read (asleep, no access).
	 */
	bool has_usage;
	uint64_t nsze, ncap, nuse;
	/* The ANA state of the path through this controller (sysfs ana_state,
	 * native multipath with ANA): "optimized", "non-optimized",
	 * "inaccessible", "persistent-loss", "change"; "" where there is none. */
	char ana_state[20];
};

/* How much of a controller nvmond can reach. */
enum dev_access {
	DEV_ACCESS_ADMIN, /* admin commands answered: Identify, the health and firmware logs */
	/*
	 * No permission for admin commands (not root, no CAP_SYS_ADMIN, or the
	 * node is not readable): identity from sysfs, temperatures from hwmon.
	 */
	DEV_ACCESS_SYSFS,
};

/* What a scan learns besides Identify, without a command where it can. */
struct dev_facts {
	struct nvme_pcie_link link;	  /* sysfs; all 0 = unknown (no PCI function) */
	enum nvme_runtime_status runtime; /* sysfs power/runtime_status */
	bool has_fwlog;			  /* log 03h read (awake, with admin access) */
	struct fwlog fwlog;
};

struct dev_guard;

/* One controller as a scan found it. */
struct dev_info {
	char name[DEV_NAME_MAX];     /* "nvme0" — changes across boots, never an identity */
	char path[DEV_NAME_MAX + 8]; /* "/dev/nvme0", or "demo:0" */
	struct idctl id;
	size_t n_ns;
	struct dev_ns ns[DEV_MAX_NS];
	enum dev_access access;
	/*
	 * Runtime-suspended at the scan and not to be woken: nothing was sent,
	 * the identity is sysfs's (WCTEMP, CCTEMP and capacity 0 = unknown).
	 */
	bool asleep;
	/*
	 * Identify was not answered within the guard's deadline (or a command is
	 * stuck on it): the identity is sysfs's, as for a sleeping drive.
	 */
	bool unresponsive;
	struct dev_facts facts;
};

/* Backend options; the poller passes them (and again after a reload). */
struct dev_opts {
	bool wake_sleeping; /* [daemon] wake_sleeping: send commands to suspended drives */
	/*
	 * [daemon] device_timeout, for the device process's own guard (its scan's
	 * Identify commands): 0 leaves it as it is. The daemon's guard has its
	 * own (dev_backend_guard()).
	 */
	int64_t device_timeout_ms;
};

/*
 * Who a controller must be. A read through a name that now belongs to another
 * drive (the driver bound the controllers again and the names moved) is
 * refused with -ESTALE instead of answering for the wrong drive.
 */
struct dev_ident {
	const char *model, *serial;
};

/* How a probe opens a namespace's block device (dev_backend_ops.open_ns). */
enum dev_ns_mode {
	DEV_NS_WRITE = 1, /* O_RDWR | O_EXCL | O_DIRECT: a blank namespace to write */
	DEV_NS_READ,	  /* O_RDONLY | O_DIRECT: to read */
	DEV_NS_SIG,	  /* O_RDONLY, buffered: for libblkid's signature check */
};

/*
 * Get Features the power read asks (dev_backend_ops.read_power): Power
 * Management (02h) always; APST (0Ch, with its table) and Host Controlled
 * Thermal Management (10h) where Identify says the drive has them.
 */
enum {
	DEV_POWER_PM = 1 << 0,
	DEV_POWER_APST = 1 << 1,
	DEV_POWER_HCTM = 1 << 2,
	DEV_POWER_ALL = DEV_POWER_PM | DEV_POWER_APST | DEV_POWER_HCTM,
};

/* The raw answers of a power read: completion Dword 0 of each feature. */
struct dev_power {
	uint8_t got; /* DEV_POWER_* answered (a feature the drive refuses is left out) */
	uint32_t pm_dw0, apst_dw0, hctm_dw0;
	uint8_t apst_table[APST_TABLE_SIZE];
};

/* Most bytes of the Persistent Event Log one read may ask for past the header. */
#define DEV_PEL_READ_MAX (128 * 1024)

/* The reason an open_ns was refused, as the privileged side words it. */
#define DEV_NS_REASON_MAX 256

/*
 * What a backend's drives are, beyond the commands it answers
 * (&dev_backend_ops.caps, dev_has()). Whoever must treat a backend's drives
 * differently asks for one of these, never for the backend's name.
 */
enum {
	/*
	 * Its drives have no block device: a probe runs on the backend's own
	 * model of the drive (the probe service's simulated engine), not on I/O.
	 */
	DEV_CAP_OWN_PROBES = 1u << 0,
	/*
	 * Its drives' foreground I/O is not in diskstats: the probes' busy rule
	 * reads what the backend simulates (dev_demo_foreground()).
	 */
	DEV_CAP_SIM_BUSY = 1u << 1,
	/*
	 * Its drives had a past before this daemon watched them: a history to
	 * backfill into a store that has none (demo_backfill()).
	 */
	DEV_CAP_HISTORY = 1u << 2,
	/*
	 * Its drives run self-tests on a schedule of their own until the daemon
	 * takes that schedule over (selftest_handover, dev_demo_selftest_schedule()).
	 */
	DEV_CAP_OWN_SELFTESTS = 1u << 3,
	/*
	 * Its drives are simulated, not hardware: the rows it makes say so
	 * (device_row.simulated), and the API marks them ("demo").
	 */
	DEV_CAP_SIMULATED = 1u << 4,
};

/*
 * A backend answers scans and SMART reads. Two exist: the real one (libnvme) and
 * the demo drives (daemon/demo/). @now_ms is wall-clock unix milliseconds, passed
 * in so that the demo drives are a pure function of time and tests control it.
 */
struct dev_backend_ops {
	const char *name; /* for messages only: ask @caps what its drives are */
	uint32_t caps;	  /* DEV_CAP_* */
	/* Allocate *ret (free()) with every controller present now. */
	int (*scan)(void *ctx, int64_t now_ms, struct dev_info **ret, size_t *ret_n);
	/*
	 * Read the SMART / health log (02h, controller scope) of controller
	 * @name, after checking on the opened node that it is @who (NULL: the
	 * demo model's own reads only).
	 */
	int (*read_smart)(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			  uint8_t ret_page[SMART_LOG_SIZE]);
	/*
	 * Read the @n newest entries of the Error Information log (01h) of
	 * controller @name into @ret_page (@n × ERRLOG_ENTRY_SIZE bytes), after
	 * checking it is @who. @ext_data: the controller takes Get Log Page
	 * offsets (LPA bit 2), so more than 4 KiB may be read in pieces. NULL
	 * when the backend has no error log.
	 */
	int (*read_errlog)(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			   size_t n, bool ext_data, uint8_t *ret_page);
	void (*free)(void *ctx);
	/* Optional (NULL: always active, no hwmon, options ignored). */
	int (*read_runtime)(void *ctx, const char *name, int64_t now_ms,
			    enum nvme_runtime_status *ret);
	int (*read_hwmon)(void *ctx, const char *name, int64_t now_ms,
			  struct nvme_hwmon_temps *ret);
	void (*configure)(void *ctx, const struct dev_opts *o);
	/*
	 * Optional. The over-temperature threshold of each sensor in @sensors
	 * (bit N-1 = sensor N): Get Features 04h, THSEL 0, TMPSEL N, in Kelvin as
	 * the drive answers (0 or FFFFh = none); sensors not asked stay 0.
	 */
	int (*read_sensor_limits)(void *ctx, const char *name, const struct dev_ident *who,
				  uint8_t sensors, uint16_t ret_k[SMART_NUM_SENSORS]);
	/*
	 * Optional. Send Device Self-test (admin opcode 14h) with self-test code
	 * @stc (1h short, 2h extended, Fh abort) for namespace @nsid
	 * (DEV_SELFTEST_NSID_ALL: the controller) to controller @name, after
	 * checking it is @who.
	 */
	int (*selftest_start)(void *ctx, const char *name, const struct dev_ident *who,
			      int64_t now_ms, uint32_t nsid, uint8_t stc);
	/* Optional. Read the Device Self-test log (06h) of controller @name, after
	 * checking it is @who. */
	int (*read_selftest)(void *ctx, const char *name, const struct dev_ident *who,
			     int64_t now_ms, uint8_t ret_page[SELFTEST_LOG_SIZE]);
	/*
	 * Optional. The guard the backend's own commands (the scan's Identify)
	 * go through; the other commands are guarded by the dev_*() calls.
	 */
	void (*set_guard)(void *ctx, struct dev_guard *g);
	/* Optional: the demo drives' self-test schedule hand-over (demo.h). */
	int (*selftest_handover)(void *ctx, const char *name, int64_t at_ms);
	/*
	 * Optional: the device process opens block device /dev/@ns, namespace
	 * @nsid of drive @who, for a probe (@mode), after its own checks, and
	 * sends the descriptor back (dev_remote.h). NULL: the caller opens it.
	 * Return: the descriptor, or negative errno with @ret_reason.
	 */
	int (*open_ns)(void *ctx, const char *ns, const struct dev_ident *who, uint32_t nsid,
		       enum dev_ns_mode mode, char ret_reason[DEV_NS_REASON_MAX]);
	/*
	 * Optional (issue 27). Log C0h, 512 bytes, controller scope, after
	 * checking it is @who: the page as the drive answers it (whether it is
	 * the OCP one is ocp_decode()'s to say).
	 */
	int (*read_ocp)(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			uint8_t ret_page[OCP_LOG_SIZE]);
	/*
	 * Optional. The Persistent Event Log, after checking it is @who:
	 * establish a reporting context reading the header into @ret_head
	 * (action 1h), read up to @len bytes from @offset (not past the Total
	 * Log Length) inside it into @ret_data (action 0h; with @ext_data at
	 * an offset, dword aligned down as Get Log Page wants it, else one read
	 * from the start), and release the context
	 * (action 2h), also after a failed read.
	 * Return: the bytes read into @ret_data, or negative errno.
	 */
	int (*read_pel)(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			uint64_t offset, uint32_t len, bool ext_data,
			uint8_t ret_head[PEL_HEADER_SIZE], uint8_t *ret_data);
	/*
	 * Optional. Get Features, current values, of @which (DEV_POWER_*),
	 * after checking it is @who; never to a runtime-suspended drive (the
	 * poller asks only drives it polls).
	 */
	int (*read_power)(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			  uint8_t which, struct dev_power *ret);
};

/* The Device Self-test command's NSID for the controller and every namespace. */
#define DEV_SELFTEST_NSID_ALL 0xffffffffu

struct dev_backend {
	const struct dev_backend_ops *ops;
	void *ctx;
	struct dev_guard *guard; /* NULL: commands run on the caller's thread */
};

/**
 * dev_backend_guard() - From now on, every command to a controller (the
 * reads, Device Self-test, the scan's Identify) runs on that controller's
 * worker with deadline @timeout_ms (dev_guard.h); called again, it sets a new
 * deadline. Without it (the command line) commands run on the caller's thread.
 * Return: 0, or negative errno.
 */
int dev_backend_guard(struct dev_backend *b, int64_t timeout_ms);

/**
 * dev_unresponsive() - Whether a command to controller @name is stuck past
 * its deadline: until it returns, every command to @name fails at once with
 * -ETIMEDOUT. Always false without a guard.
 */
bool dev_unresponsive(struct dev_backend *b, const char *name);

/**
 * dev_timed_out() - Whether @err (from a command) means the controller did
 * not answer within the deadline, or has a command stuck: -ETIMEDOUT.
 */
bool dev_timed_out(int err);

/**
 * dev_nvme_open() - The libnvme backend (the only code that includes <libnvme.h>).
 * Return: 0, or negative errno.
 */
int dev_nvme_open(struct dev_backend **ret);

/**
 * dev_nvme_open_at() - The libnvme backend, reading sysfs facts (link, runtime
 * state, hwmon, the identity without admin access) under @sysfs instead of
 * "/sys": for tests on fixture trees. libnvme's own scan still reads /sys.
 * Return: 0, or negative errno.
 */
int dev_nvme_open_at(const char *sysfs, struct dev_backend **ret);

/**
 * dev_backend_free() - Accepts NULL. A backend with a command still stuck in
 * the kernel is freed by the guard's last worker once that command returns
 * (dev_guard_free()). Return: NULL.
 */
struct dev_backend *dev_backend_free(struct dev_backend *b);

/** dev_has() - Whether backend @b has capability @cap (DEV_CAP_*). */
bool dev_has(const struct dev_backend *b, uint32_t cap);

/** dev_scan() - See &dev_backend_ops.scan. Return: 0 or negative errno. */
int dev_scan(struct dev_backend *b, int64_t now_ms, struct dev_info **ret, size_t *ret_n);

/**
 * dev_open_ns() - See &dev_backend_ops.open_ns: the device process opens a
 * probe's namespace. Not through the guard: opening a block device sends no
 * command to the controller.
 * Return: the descriptor; -EOPNOTSUPP when the backend has no device process
 * (the caller opens it itself); or negative errno with @ret_reason.
 */
int dev_open_ns(struct dev_backend *b, const char *ns, const struct dev_ident *who, uint32_t nsid,
		enum dev_ns_mode mode, char ret_reason[DEV_NS_REASON_MAX]);

/**
 * dev_read_smart() - See &dev_backend_ops.read_smart.
 * Return: 0; -ESTALE when @name is now another drive than @who; -ENODEV when
 * it is gone; -ETIMEDOUT when it did not answer in time (dev_timed_out(), the
 * same for every command below); or negative errno.
 */
int dev_read_smart(struct dev_backend *b, const char *name, const struct dev_ident *who,
		   int64_t now_ms, uint8_t ret_page[SMART_LOG_SIZE]);

/**
 * dev_read_errlog() - See &dev_backend_ops.read_errlog.
 * Return: 0; -EOPNOTSUPP when the backend has no error log; -ESTALE, -ENODEV
 * as dev_read_smart(); -EINVAL for @n 0 or more than 256; or negative errno.
 */
int dev_read_errlog(struct dev_backend *b, const char *name, const struct dev_ident *who,
		    int64_t now_ms, size_t n, bool ext_data, uint8_t *ret_page);

/**
 * dev_read_runtime() - The runtime power state of controller @name, from
 * sysfs: sends nothing, so it never wakes the drive.
 * Return: 0 (NVME_RUNTIME_UNSUPPORTED where the backend has none), or
 * negative errno.
 */
int dev_read_runtime(struct dev_backend *b, const char *name, int64_t now_ms,
		     enum nvme_runtime_status *ret);

/**
 * dev_read_hwmon() - Temperatures of controller @name from its hwmon device
 * (readable without privileges; the kernel reads the health log for it, which
 * wakes a sleeping drive: ask dev_read_runtime() first).
 * Return: 0, -ENOENT without hwmon, or negative errno.
 */
int dev_read_hwmon(struct dev_backend *b, const char *name, int64_t now_ms,
		   struct nvme_hwmon_temps *ret);

/** dev_configure() - Apply @o to @b. */
void dev_configure(struct dev_backend *b, const struct dev_opts *o);

/**
 * dev_no_permission() - Whether @err (from a scan or a read) means nvmond may
 * not send admin commands: -EACCES or -EPERM.
 */
bool dev_no_permission(int err);

/**
 * dev_read_sensor_limits() - See &dev_backend_ops.read_sensor_limits. Ask only
 * for sensors the health log reports: a drive may log an error for a
 * threshold of a sensor it does not have.
 * Return: 0; -EOPNOTSUPP when the backend cannot; -ESTALE / -ENODEV as
 * dev_read_smart(); or negative errno.
 */
int dev_read_sensor_limits(struct dev_backend *b, const char *name, const struct dev_ident *who,
			   uint8_t sensors, uint16_t ret_k[SMART_NUM_SENSORS]);

/**
 * dev_selftest_supported() - Whether Identify Controller says the controller
 * supports the Device Self-test command (OACS bit 4). Pure.
 */
bool dev_selftest_supported(const struct idctl *id);

/**
 * dev_selftest_start() - See &dev_backend_ops.selftest_start. Nothing is sent
 * for a code other than 1h, 2h or Fh (-EINVAL).
 * Return: 0; -EOPNOTSUPP when the backend cannot, or the controller answered
 * Invalid Command Opcode / Invalid Field (it has no self-test); -EBUSY when it
 * answered Device Self-test in Progress (a test already runs); -ESTALE /
 * -ENODEV as dev_read_smart(); -EIO for any other NVMe status; or negative
 * errno.
 */
int dev_selftest_start(struct dev_backend *b, const char *name, const struct dev_ident *who,
		       int64_t now_ms, uint32_t nsid, uint8_t stc);

/**
 * dev_read_selftest() - See &dev_backend_ops.read_selftest.
 * Return: 0; -EOPNOTSUPP when the backend cannot; -ESTALE / -ENODEV as
 * dev_read_smart(); or negative errno.
 */
int dev_read_selftest(struct dev_backend *b, const char *name, const struct dev_ident *who,
		      int64_t now_ms, uint8_t ret_page[SELFTEST_LOG_SIZE]);

/**
 * dev_read_ocp() - See &dev_backend_ops.read_ocp.
 * Return: 0; -EOPNOTSUPP when the backend cannot, or the drive refused log
 * C0h; -ESTALE / -ENODEV as dev_read_smart(); or negative errno.
 */
int dev_read_ocp(struct dev_backend *b, const char *name, const struct dev_ident *who,
		 int64_t now_ms, uint8_t ret_page[OCP_LOG_SIZE]);

/**
 * dev_read_pel() - See &dev_backend_ops.read_pel; @len at most
 * DEV_PEL_READ_MAX and a multiple of 4, @offset at least 512 (any byte: an
 * event's length need not be a multiple of 4).
 * Return: the bytes read into @ret_data (0 … @len); -EINVAL for a request
 * out of those bounds; -EOPNOTSUPP when the backend cannot, or the drive
 * refused the log; -ESTALE / -ENODEV as dev_read_smart(); or negative errno.
 */
int dev_read_pel(struct dev_backend *b, const char *name, const struct dev_ident *who,
		 int64_t now_ms, uint64_t offset, uint32_t len, bool ext_data,
		 uint8_t ret_head[PEL_HEADER_SIZE], uint8_t *ret_data);

/** dev_pel_request_ok() - Whether a read of @len bytes at @offset is one dev_read_pel() sends. */
bool dev_pel_request_ok(uint64_t offset, uint32_t len);

/**
 * dev_read_power() - See &dev_backend_ops.read_power. @which must ask for
 * Power Management.
 * Return: 0; -EINVAL for another @which; -EOPNOTSUPP when the backend
 * cannot, or the drive refused Power Management; -ESTALE / -ENODEV as
 * dev_read_smart(); or negative errno.
 */
int dev_read_power(struct dev_backend *b, const char *name, const struct dev_ident *who,
		   int64_t now_ms, uint8_t which, struct dev_power *ret);

/** dev_power_request_ok() - Whether @which is a power read dev_read_power() sends. */
bool dev_power_request_ok(uint32_t which);

/**
 * dev_key() - The stable identity of a controller: "model/serial".
 * Return: @buf.
 */
char *dev_key(const struct idctl *id, char *buf, size_t len);
