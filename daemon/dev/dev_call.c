/* SPDX-License-Identifier: MIT */
/*
 * Every call into a backend, in one place: the commands a controller answers
 * go through the backend's guard when it has one (dev_backend_guard()), as a
 * self-contained block (the name and identity by value, the answer inside)
 * the guard may abandon to a worker stuck in the kernel; sysfs reads
 * (runtime state) and the scan itself run on the caller's thread (the scan's
 * Identify commands go through the guard inside the real backend). The
 * *_async() twins hand the same block to the guard without waiting
 * (dev_async.c, for the main loop).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/dev/dev.h"
#include "nvmond/dev/dev_guard.h"
#include "dev_async_internal.h"

#define IDENT_MAX 64

/* What every guarded command carries: the backend and who it is for. */
struct call_head {
	const struct dev_backend_ops *ops;
	void *ctx;
	char name[DEV_NAME_MAX];
	bool has_who;
	char model[IDENT_MAX], serial[IDENT_MAX];
	int64_t now_ms;
};

static int head_init(struct call_head *h, struct dev_backend *b, const char *name,
		     const struct dev_ident *who, int64_t now_ms)
{
	*h = (struct call_head){.ops = b->ops, .ctx = b->ctx, .now_ms = now_ms};
	if ((size_t)snprintf(h->name, sizeof(h->name), "%s", name) >= sizeof(h->name))
		return -EINVAL;
	if (who) {
		h->has_who = true;
		if ((size_t)snprintf(h->model, sizeof(h->model), "%s", who->model) >=
			    sizeof(h->model) ||
		    (size_t)snprintf(h->serial, sizeof(h->serial), "%s", who->serial) >=
			    sizeof(h->serial))
			return -EINVAL;
	}
	return 0;
}

static const struct dev_ident *head_who(const struct call_head *h, struct dev_ident *buf)
{
	if (!h->has_who)
		return NULL;
	*buf = (struct dev_ident){.model = h->model, .serial = h->serial};
	return buf;
}

int dev_backend_guard(struct dev_backend *b, int64_t timeout_ms)
{
	int r;

	if (b->guard) {
		dev_guard_set_timeout(b->guard, timeout_ms);
		return 0;
	}
	r = dev_guard_new(timeout_ms, &b->guard);
	if (r < 0)
		return r;
	if (b->ops->set_guard)
		b->ops->set_guard(b->ctx, b->guard);
	return 0;
}

static void backend_release(void *arg)
{
	struct dev_backend *b = arg;

	if (b->ops->free)
		b->ops->free(b->ctx);
	free(b);
}

struct dev_backend *dev_backend_free(struct dev_backend *b)
{
	if (!b)
		return NULL;
	/* A command still stuck in the kernel keeps the backend it runs on: the
	 * guard's last worker frees it once that command returns. */
	(void)dev_guard_free(b->guard, backend_release, b);
	return NULL;
}

bool dev_unresponsive(struct dev_backend *b, const char *name)
{
	return b->guard && dev_guard_unresponsive(b->guard, name);
}

bool dev_has(const struct dev_backend *b, uint32_t cap)
{
	return (b->ops->caps & cap) == cap;
}

bool dev_timed_out(int err)
{
	return err == -ETIMEDOUT;
}

struct scan_io {
	const struct dev_backend_ops *ops;
	void *ctx;
	int64_t now_ms;
	struct dev_scan_answer ans;
};

static int scan_fn(void *arg)
{
	struct scan_io *io = arg;

	return io->ops->scan(io->ctx, io->now_ms, &io->ans.v, &io->ans.n);
}

static void scan_discard(void *arg, int r)
{
	struct scan_io *io = arg;

	if (r == 0)
		free(io->ans.v);
}

/*
 * The scan on its own worker (DEV_GUARD_SCAN): libnvme's topology scan sends
 * Identify Namespace to every controller itself, past the controllers' own
 * workers, so a hung one would hold it. A scan past the deadline is
 * -ETIMEDOUT (the poller keeps what it knows); no second scan starts while
 * it is stuck.
 */
int dev_scan(struct dev_backend *b, int64_t now_ms, struct dev_info **ret, size_t *ret_n)
{
	struct scan_io io = {.ops = b->ops, .ctx = b->ctx, .now_ms = now_ms};
	int r;

	if (!b->guard)
		return b->ops->scan(b->ctx, now_ms, ret, ret_n);
	r = dev_guard_run_discard(b->guard, DEV_GUARD_SCAN, scan_fn, scan_discard, &io, sizeof(io));
	if (r < 0)
		return r;
	*ret = io.ans.v;
	*ret_n = io.ans.n;
	return 0;
}

int dev_scan_async(struct dev_async *a, int64_t now_ms, dev_done_fn done, void *userdata)
{
	struct dev_backend *b = dev_async_backend(a);
	struct scan_io io = {.ops = b->ops, .ctx = b->ctx, .now_ms = now_ms};

	return dev_async_submit(a, DEV_GUARD_SCAN, scan_fn, scan_discard, &io, sizeof(io),
				offsetof(struct scan_io, ans), done, userdata);
}

struct smart_io {
	struct call_head h;
	uint8_t page[SMART_LOG_SIZE];
};

static int smart_fn(void *arg)
{
	struct smart_io *io = arg;
	struct dev_ident w;

	return io->h.ops->read_smart(io->h.ctx, io->h.name, head_who(&io->h, &w), io->h.now_ms,
				     io->page);
}

int dev_open_ns(struct dev_backend *b, const char *ns, const struct dev_ident *who, uint32_t nsid,
		enum dev_ns_mode mode, char ret_reason[DEV_NS_REASON_MAX])
{
	if (!b->ops->open_ns)
		return -EOPNOTSUPP;
	return b->ops->open_ns(b->ctx, ns, who, nsid, mode, ret_reason);
}

int dev_read_smart(struct dev_backend *b, const char *name, const struct dev_ident *who,
		   int64_t now_ms, uint8_t ret_page[SMART_LOG_SIZE])
{
	struct smart_io io;
	int r;

	if (!b->guard)
		return b->ops->read_smart(b->ctx, name, who, now_ms, ret_page);
	r = head_init(&io.h, b, name, who, now_ms);
	if (r == 0)
		r = dev_guard_run(b->guard, name, smart_fn, &io, sizeof(io));
	if (r == 0)
		memcpy(ret_page, io.page, SMART_LOG_SIZE);
	return r;
}

int dev_read_smart_async(struct dev_async *a, const char *name, const struct dev_ident *who,
			 int64_t now_ms, dev_done_fn done, void *userdata)
{
	struct smart_io io;
	int r = head_init(&io.h, dev_async_backend(a), name, who, now_ms);

	if (r < 0)
		return r;
	return dev_async_submit(a, name, smart_fn, NULL, &io, sizeof(io),
				offsetof(struct smart_io, page), done, userdata);
}

struct errlog_io {
	struct call_head h;
	size_t n;
	bool ext_data;
	uint8_t page[256 * ERRLOG_ENTRY_SIZE];
};

static int errlog_fn(void *arg)
{
	struct errlog_io *io = arg;
	struct dev_ident w;

	return io->h.ops->read_errlog(io->h.ctx, io->h.name, head_who(&io->h, &w), io->h.now_ms,
				      io->n, io->ext_data, io->page);
}

/* The block an error log read carries (16 KiB of page: malloc()), filled. Return: 0 or -errno. */
static int errlog_io_new(struct dev_backend *b, const char *name, const struct dev_ident *who,
			 int64_t now_ms, size_t n, bool ext_data, struct errlog_io **ret)
{
	struct errlog_io *io = malloc(sizeof(*io));
	int r;

	if (!io)
		return -ENOMEM;
	io->n = n;
	io->ext_data = ext_data;
	r = head_init(&io->h, b, name, who, now_ms);
	if (r < 0) {
		free(io);
		return r;
	}
	*ret = io;
	return 0;
}

int dev_read_errlog(struct dev_backend *b, const char *name, const struct dev_ident *who,
		    int64_t now_ms, size_t n, bool ext_data, uint8_t *ret_page)
{
	struct errlog_io *io;
	int r;

	if (!b->ops->read_errlog)
		return -EOPNOTSUPP;
	if (n == 0 || n > 256)
		return -EINVAL;
	if (!b->guard)
		return b->ops->read_errlog(b->ctx, name, who, now_ms, n, ext_data, ret_page);
	r = errlog_io_new(b, name, who, now_ms, n, ext_data, &io);
	if (r < 0)
		return r;
	r = dev_guard_run(b->guard, name, errlog_fn, io, sizeof(*io));
	if (r == 0)
		memcpy(ret_page, io->page, n * ERRLOG_ENTRY_SIZE);
	free(io);
	return r;
}

int dev_read_errlog_async(struct dev_async *a, const char *name, const struct dev_ident *who,
			  int64_t now_ms, size_t n, bool ext_data, dev_done_fn done, void *userdata)
{
	struct dev_backend *b = dev_async_backend(a);
	struct errlog_io *io;
	int r;

	if (!b->ops->read_errlog)
		return -EOPNOTSUPP;
	if (n == 0 || n > 256)
		return -EINVAL;
	r = errlog_io_new(b, name, who, now_ms, n, ext_data, &io);
	if (r < 0)
		return r;
	/* Only the @n entries asked for travel (the page's tail is never read). */
	r = dev_async_submit(a, name, errlog_fn, NULL, io,
			     offsetof(struct errlog_io, page) + n * ERRLOG_ENTRY_SIZE,
			     offsetof(struct errlog_io, page), done, userdata);
	free(io);
	return r;
}

int dev_read_runtime(struct dev_backend *b, const char *name, int64_t now_ms,
		     enum nvme_runtime_status *ret)
{
	if (!b->ops->read_runtime) {
		*ret = NVME_RUNTIME_UNSUPPORTED;
		return 0;
	}
	return b->ops->read_runtime(b->ctx, name, now_ms, ret);
}

struct hwmon_io {
	struct call_head h;
	struct nvme_hwmon_temps t;
};

static int hwmon_fn(void *arg)
{
	struct hwmon_io *io = arg;

	return io->h.ops->read_hwmon(io->h.ctx, io->h.name, io->h.now_ms, &io->t);
}

/* The kernel reads the health log for hwmon: a command like the others. */
int dev_read_hwmon(struct dev_backend *b, const char *name, int64_t now_ms,
		   struct nvme_hwmon_temps *ret)
{
	struct hwmon_io io;
	int r;

	if (!b->ops->read_hwmon)
		return -ENOENT;
	if (!b->guard)
		return b->ops->read_hwmon(b->ctx, name, now_ms, ret);
	r = head_init(&io.h, b, name, NULL, now_ms);
	if (r == 0)
		r = dev_guard_run(b->guard, name, hwmon_fn, &io, sizeof(io));
	if (r == 0)
		*ret = io.t;
	return r;
}

int dev_read_hwmon_async(struct dev_async *a, const char *name, int64_t now_ms, dev_done_fn done,
			 void *userdata)
{
	struct dev_backend *b = dev_async_backend(a);
	struct hwmon_io io;
	int r;

	if (!b->ops->read_hwmon)
		return -ENOENT;
	r = head_init(&io.h, b, name, NULL, now_ms);
	if (r < 0)
		return r;
	return dev_async_submit(a, name, hwmon_fn, NULL, &io, sizeof(io),
				offsetof(struct hwmon_io, t), done, userdata);
}

void dev_configure(struct dev_backend *b, const struct dev_opts *o)
{
	if (b->ops->configure)
		b->ops->configure(b->ctx, o);
}

struct limits_io {
	struct call_head h;
	uint8_t sensors;
	uint16_t k[SMART_NUM_SENSORS];
};

static int limits_fn(void *arg)
{
	struct limits_io *io = arg;
	struct dev_ident w;

	return io->h.ops->read_sensor_limits(io->h.ctx, io->h.name, head_who(&io->h, &w),
					     io->sensors, io->k);
}

int dev_read_sensor_limits(struct dev_backend *b, const char *name, const struct dev_ident *who,
			   uint8_t sensors, uint16_t ret_k[SMART_NUM_SENSORS])
{
	struct limits_io io;
	int r;

	if (!b->ops->read_sensor_limits)
		return -EOPNOTSUPP;
	if (!b->guard)
		return b->ops->read_sensor_limits(b->ctx, name, who, sensors, ret_k);
	r = head_init(&io.h, b, name, who, 0);
	io.sensors = sensors;
	memcpy(io.k, ret_k, sizeof(io.k));
	if (r == 0)
		r = dev_guard_run(b->guard, name, limits_fn, &io, sizeof(io));
	if (r == 0)
		memcpy(ret_k, io.k, sizeof(io.k));
	return r;
}

int dev_read_sensor_limits_async(struct dev_async *a, const char *name, const struct dev_ident *who,
				 uint8_t sensors, dev_done_fn done, void *userdata)
{
	struct dev_backend *b = dev_async_backend(a);
	struct limits_io io = {.sensors = sensors};
	int r;

	if (!b->ops->read_sensor_limits)
		return -EOPNOTSUPP;
	r = head_init(&io.h, b, name, who, 0);
	if (r < 0)
		return r;
	return dev_async_submit(a, name, limits_fn, NULL, &io, sizeof(io),
				offsetof(struct limits_io, k), done, userdata);
}

struct selftest_start_io {
	struct call_head h;
	uint32_t nsid;
	uint8_t stc;
};

static int selftest_start_fn(void *arg)
{
	struct selftest_start_io *io = arg;
	struct dev_ident w;

	return io->h.ops->selftest_start(io->h.ctx, io->h.name, head_who(&io->h, &w), io->h.now_ms,
					 io->nsid, io->stc);
}

int dev_selftest_start(struct dev_backend *b, const char *name, const struct dev_ident *who,
		       int64_t now_ms, uint32_t nsid, uint8_t stc)
{
	struct selftest_start_io io;
	int r;

	if (!selftest_code_sendable(stc))
		return -EINVAL;
	if (!b->ops->selftest_start)
		return -EOPNOTSUPP;
	if (!b->guard)
		return b->ops->selftest_start(b->ctx, name, who, now_ms, nsid, stc);
	r = head_init(&io.h, b, name, who, now_ms);
	io.nsid = nsid;
	io.stc = stc;
	return r < 0 ? r : dev_guard_run(b->guard, name, selftest_start_fn, &io, sizeof(io));
}

int dev_selftest_start_async(struct dev_async *a, const char *name, const struct dev_ident *who,
			     int64_t now_ms, uint32_t nsid, uint8_t stc, dev_done_fn done,
			     void *userdata)
{
	struct dev_backend *b = dev_async_backend(a);
	struct selftest_start_io io;
	int r;

	if (!selftest_code_sendable(stc))
		return -EINVAL;
	if (!b->ops->selftest_start)
		return -EOPNOTSUPP;
	r = head_init(&io.h, b, name, who, now_ms);
	if (r < 0)
		return r;
	io.nsid = nsid;
	io.stc = stc;
	/* No answer but the status: nothing after the block travels back. */
	return dev_async_submit(a, name, selftest_start_fn, NULL, &io, sizeof(io), sizeof(io), done,
				userdata);
}

struct selftest_log_io {
	struct call_head h;
	uint8_t page[SELFTEST_LOG_SIZE];
};

static int selftest_log_fn(void *arg)
{
	struct selftest_log_io *io = arg;
	struct dev_ident w;

	return io->h.ops->read_selftest(io->h.ctx, io->h.name, head_who(&io->h, &w), io->h.now_ms,
					io->page);
}

int dev_read_selftest(struct dev_backend *b, const char *name, const struct dev_ident *who,
		      int64_t now_ms, uint8_t ret_page[SELFTEST_LOG_SIZE])
{
	struct selftest_log_io io;
	int r;

	if (!b->ops->read_selftest)
		return -EOPNOTSUPP;
	if (!b->guard)
		return b->ops->read_selftest(b->ctx, name, who, now_ms, ret_page);
	r = head_init(&io.h, b, name, who, now_ms);
	if (r == 0)
		r = dev_guard_run(b->guard, name, selftest_log_fn, &io, sizeof(io));
	if (r == 0)
		memcpy(ret_page, io.page, SELFTEST_LOG_SIZE);
	return r;
}

int dev_read_selftest_async(struct dev_async *a, const char *name, const struct dev_ident *who,
			    int64_t now_ms, dev_done_fn done, void *userdata)
{
	struct dev_backend *b = dev_async_backend(a);
	struct selftest_log_io io;
	int r;

	if (!b->ops->read_selftest)
		return -EOPNOTSUPP;
	r = head_init(&io.h, b, name, who, now_ms);
	if (r < 0)
		return r;
	return dev_async_submit(a, name, selftest_log_fn, NULL, &io, sizeof(io),
				offsetof(struct selftest_log_io, page), done, userdata);
}

/* ---- issue 27: log C0h, the Persistent Event Log, power features -------- */

struct ocp_io {
	struct call_head h;
	uint8_t page[OCP_LOG_SIZE];
};

static int ocp_fn(void *arg)
{
	struct ocp_io *io = arg;
	struct dev_ident w;

	return io->h.ops->read_ocp(io->h.ctx, io->h.name, head_who(&io->h, &w), io->h.now_ms,
				   io->page);
}

int dev_read_ocp(struct dev_backend *b, const char *name, const struct dev_ident *who,
		 int64_t now_ms, uint8_t ret_page[OCP_LOG_SIZE])
{
	struct ocp_io io;
	int r;

	if (!b->ops->read_ocp)
		return -EOPNOTSUPP;
	if (!b->guard)
		return b->ops->read_ocp(b->ctx, name, who, now_ms, ret_page);
	r = head_init(&io.h, b, name, who, now_ms);
	if (r == 0)
		r = dev_guard_run(b->guard, name, ocp_fn, &io, sizeof(io));
	if (r == 0)
		memcpy(ret_page, io.page, OCP_LOG_SIZE);
	return r;
}

int dev_read_ocp_async(struct dev_async *a, const char *name, const struct dev_ident *who,
		       int64_t now_ms, dev_done_fn done, void *userdata)
{
	struct dev_backend *b = dev_async_backend(a);
	struct ocp_io io;
	int r;

	if (!b->ops->read_ocp)
		return -EOPNOTSUPP;
	r = head_init(&io.h, b, name, who, now_ms);
	if (r < 0)
		return r;
	return dev_async_submit(a, name, ocp_fn, NULL, &io, sizeof(io),
				offsetof(struct ocp_io, page), done, userdata);
}

/* The answer (from got on) is laid out as struct dev_pel_answer. */
struct pel_io {
	struct call_head h;
	uint64_t offset;
	uint32_t len;
	bool ext_data;
	uint32_t got;
	uint8_t head[PEL_HEADER_SIZE];
	uint8_t data[DEV_PEL_READ_MAX];
};

_Static_assert(offsetof(struct pel_io, head) - offsetof(struct pel_io, got) ==
			       offsetof(struct dev_pel_answer, head) &&
		       offsetof(struct pel_io, data) - offsetof(struct pel_io, got) ==
			       offsetof(struct dev_pel_answer, data),
	       "struct pel_io's answer is a struct dev_pel_answer");

static int pel_fn(void *arg)
{
	struct pel_io *io = arg;
	struct dev_ident w;
	int r = io->h.ops->read_pel(io->h.ctx, io->h.name, head_who(&io->h, &w), io->h.now_ms,
				    io->offset, io->len, io->ext_data, io->head, io->data);

	if (r < 0)
		return r;
	io->got = (uint32_t)r <= io->len ? (uint32_t)r : io->len;
	return 0;
}

/* The block a PEL read carries (its data: malloc()), filled. Return: 0 or -errno. */
static int pel_io_new(struct dev_backend *b, const char *name, const struct dev_ident *who,
		      int64_t now_ms, uint64_t offset, uint32_t len, bool ext_data,
		      struct pel_io **ret)
{
	struct pel_io *io;
	int r;

	if (!b->ops->read_pel)
		return -EOPNOTSUPP;
	if (!dev_pel_request_ok(offset, len))
		return -EINVAL;
	io = malloc(offsetof(struct pel_io, data) + len);
	if (!io)
		return -ENOMEM;
	io->offset = offset;
	io->len = len;
	io->ext_data = ext_data;
	io->got = 0;
	r = head_init(&io->h, b, name, who, now_ms);
	if (r < 0) {
		free(io);
		return r;
	}
	*ret = io;
	return 0;
}

int dev_read_pel(struct dev_backend *b, const char *name, const struct dev_ident *who,
		 int64_t now_ms, uint64_t offset, uint32_t len, bool ext_data,
		 uint8_t ret_head[PEL_HEADER_SIZE], uint8_t *ret_data)
{
	struct pel_io *io;
	int r;

	if (!b->ops->read_pel)
		return -EOPNOTSUPP;
	if (!dev_pel_request_ok(offset, len))
		return -EINVAL;
	if (!b->guard)
		return b->ops->read_pel(b->ctx, name, who, now_ms, offset, len, ext_data, ret_head,
					ret_data);
	r = pel_io_new(b, name, who, now_ms, offset, len, ext_data, &io);
	if (r < 0)
		return r;
	r = dev_guard_run(b->guard, name, pel_fn, io, offsetof(struct pel_io, data) + len);
	if (r == 0) {
		memcpy(ret_head, io->head, PEL_HEADER_SIZE);
		memcpy(ret_data, io->data, io->got);
		r = (int)io->got;
	}
	free(io);
	return r;
}

int dev_read_pel_async(struct dev_async *a, const char *name, const struct dev_ident *who,
		       int64_t now_ms, uint64_t offset, uint32_t len, bool ext_data,
		       dev_done_fn done, void *userdata)
{
	struct pel_io *io;
	int r = pel_io_new(dev_async_backend(a), name, who, now_ms, offset, len, ext_data, &io);

	if (r < 0)
		return r;
	r = dev_async_submit(a, name, pel_fn, NULL, io, offsetof(struct pel_io, data) + len,
			     offsetof(struct pel_io, got), done, userdata);
	free(io);
	return r;
}

struct power_io {
	struct call_head h;
	uint8_t which;
	struct dev_power p;
};

static int power_fn(void *arg)
{
	struct power_io *io = arg;
	struct dev_ident w;

	return io->h.ops->read_power(io->h.ctx, io->h.name, head_who(&io->h, &w), io->h.now_ms,
				     io->which, &io->p);
}

int dev_read_power(struct dev_backend *b, const char *name, const struct dev_ident *who,
		   int64_t now_ms, uint8_t which, struct dev_power *ret)
{
	struct power_io io;
	int r;

	if (!b->ops->read_power)
		return -EOPNOTSUPP;
	if (!dev_power_request_ok(which))
		return -EINVAL;
	if (!b->guard)
		return b->ops->read_power(b->ctx, name, who, now_ms, which, ret);
	r = head_init(&io.h, b, name, who, now_ms);
	io.which = which;
	memset(&io.p, 0, sizeof(io.p));
	if (r == 0)
		r = dev_guard_run(b->guard, name, power_fn, &io, sizeof(io));
	if (r == 0)
		*ret = io.p;
	return r;
}

int dev_read_power_async(struct dev_async *a, const char *name, const struct dev_ident *who,
			 int64_t now_ms, uint8_t which, dev_done_fn done, void *userdata)
{
	struct dev_backend *b = dev_async_backend(a);
	struct power_io io;
	int r;

	if (!b->ops->read_power)
		return -EOPNOTSUPP;
	if (!dev_power_request_ok(which))
		return -EINVAL;
	r = head_init(&io.h, b, name, who, now_ms);
	if (r < 0)
		return r;
	io.which = which;
	memset(&io.p, 0, sizeof(io.p));
	return dev_async_submit(a, name, power_fn, NULL, &io, sizeof(io),
				offsetof(struct power_io, p), done, userdata);
}
