/* SPDX-License-Identifier: MIT */
/*
 * A probe run's target: the drive looked up by its identity, the raw
 * namespace (O_EXCL, blank) or the probe file opened, and both checked again
 * before every phase. See the comment at the top of probe_run.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "nvmond/dev/nvme_sysfs.h"
#include "nvmond/probe/probe_nsopen.h"
#include "nvmond/probe/probe_run.h"
#include "nvmond/probe/probe_safety.h"

#include "probe_run_internal.h"

/* ---- the target ---- */

/* The drive's controller now, from its identity. */
static int drive_lookup(struct exec_ctx *x)
{
	const struct probe_plan *p = x->plan;
	struct nvme_sysfs_ctrl c;
	int r = nvme_sysfs_ctrl_find(p->sysfs, p->serial, p->model, &c);

	if (r == -ENODEV) {
		probe_run_set_reason(x, "drive %s (%s) is not present: refused", p->serial,
				     p->model);
		return r;
	}
	if (r < 0) {
		probe_run_set_reason(x, "cannot look up drive %s: %s", p->serial, strerror(-r));
		return r;
	}
	snprintf(x->ctrl, sizeof(x->ctrl), "%s", c.name);
	return 0;
}

/* Whether @fd is the namespace @x->ns of the configured drive still. */
static int raw_check(struct exec_ctx *x, int fd)
{
	struct dev_ident who = {.model = x->plan->model, .serial = x->plan->serial};

	return probe_ns_check_fd(x->plan->sysfs, fd, x->ns.name, &who, x->plan->nsid, &x->ns,
				 x->reason);
}

/* 1 when a signature is on the raw namespace (or it cannot be read). */
int probe_target_signature(struct exec_ctx *x, const char *when)
{
	return probe_ns_blank(x->sig_fd, x->ns.name, when, x->reason);
}

/* Whether @id has a read phase (it can run when writing is refused). */
static bool preset_reads(enum probe_preset_id id)
{
	const struct probe_preset *pre = probe_preset_get(id);

	for (size_t k = 0; pre && k < pre->n_phases; k++)
		if (pre->phase[k].op == PROBE_OP_READ)
			return true;
	return false;
}

/*
 * Open the namespace found (x->ns) in @mode: the daemon's hook asks the
 * device process, which checks it again and sends the descriptor; without
 * one (the command line), the same checks here. Return: fd, or negative
 * errno with the run's reason set.
 */
static int ns_open(struct exec_ctx *x, enum dev_ns_mode mode)
{
	const struct probe_plan *p = x->plan;
	struct dev_ident who = {.model = p->model, .serial = p->serial};
	char why[DEV_NS_REASON_MAX] = "";
	int fd;

	if (x->h->open_ns)
		fd = x->h->open_ns(x->h->ctx, x->ns.name, &who, x->ns.nsid, mode, why);
	else
		fd = probe_ns_open_at(p->sysfs, p->mountinfo, x->ns.name, &who, x->ns.nsid, mode,
				      why);
	if (fd < 0)
		probe_run_set_reason(x, "%s", why[0] ? why : strerror(-fd));
	return fd;
}

/* Open namespace @plan->nsid of the drive: O_EXCL when it is to be written. */
static int raw_open(struct exec_ctx *x, int *ret_fd, uint64_t *ret_area, bool *ret_writable)
{
	const struct probe_plan *p = x->plan;
	struct probe_outcome *o = x->out;
	struct probe_raw_facts f;
	char dev[NVME_SYSFS_NAME_MAX + 8], why[PROBE_REASON_MAX];
	int fd, r;

	r = nvme_sysfs_ns_find(p->sysfs, x->ctrl, p->nsid, &x->ns);
	if (r < 0) {
		probe_run_set_reason(x, "drive %s (%s) has no namespace %u%s%s", p->serial, x->ctrl,
				     p->nsid, r == -ENOENT ? "" : ": ",
				     r == -ENOENT ? "" : strerror(-r));
		return r;
	}
	o->run.nsid = x->ns.nsid;
	snprintf(dev, sizeof(dev), "/dev/%s", x->ns.name);
	snprintf(o->run.target, sizeof(o->run.target), "%s", dev);
	r = probe_raw_facts_read(p->sysfs, p->mountinfo, x->ns.name, &f);
	if (r < 0) {
		probe_run_set_reason(x, "%s: %s", dev, strerror(-r));
		return r;
	}
	bool writable = probe_raw_verdict(&f, x->ns.name, true, p->destructive, why) == 0;
	if (x->role == RUN_SOURCE && writable) {
		writable = false; /* copy-to's source: only read */
		snprintf(why, sizeof(why), "%s is only read (the drive copied from)", dev);
	}
	/* O_EXCL: the kernel refuses while anything, in any mount namespace, has it
	 * mounted, swapped on or held, and refuses them while we hold it. */
	fd = ns_open(x, writable ? DEV_NS_WRITE : DEV_NS_READ);
	if (fd == -EBUSY && writable && preset_reads(p->preset)) {
		/* In use, as a mounted namespace is (btrfs hides from mountinfo):
		 * like one, it is only read. */
		snprintf(why, sizeof(why),
			 "%s is in use (mounted, in this or another mount namespace, swapped "
			 "on, or held by md/dm): only read",
			 dev);
		writable = false;
		fd = ns_open(x, DEV_NS_READ);
	}
	if (fd < 0)
		return fd;
	r = raw_check(x, fd);
	if (r < 0)
		goto fail;
	if (writable) {
		struct stat a, b;
		x->sig_fd = ns_open(x, DEV_NS_SIG);
		if (x->sig_fd < 0 || fstat(x->sig_fd, &a) < 0 || fstat(fd, &b) < 0 ||
		    a.st_rdev != b.st_rdev) {
			probe_run_set_reason(x, "%s changed while being opened: refused", dev);
			r = -ESTALE;
			goto fail;
		}
		if (probe_target_signature(x, "")) {
			r = -EPERM;
			goto fail;
		}
	}
	off_t size = lseek(fd, 0, SEEK_END);
	if (size < (off_t)MiB) {
		probe_run_set_reason(x, "%s: too small", dev);
		r = -EINVAL;
		goto fail;
	}
	*ret_fd = fd;
	*ret_area = (uint64_t)size < p->file_size ? (uint64_t)size / MiB * MiB : p->file_size;
	*ret_writable = writable;
	if (!writable)
		snprintf(o->run.reason, sizeof(o->run.reason), "%s", why);
	return 0;
fail:
	close(fd);
	return r;
}

/* The NSID of the namespace under a filesystem's device (a partition of it), or 0. */
static uint32_t nsid_under(const char *sysfs, dev_t dev)
{
	char link[64 + PATH_MAX], real[PATH_MAX], buf[16];
	uint32_t nsid = 0;

	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sysfs, major(dev), minor(dev));
	if (!realpath(link, real))
		return 0;
	/* The last component named like a namespace (nvme0n1 of .../nvme0n1/nvme0n1p2). */
	for (char *c = real; (c = strchr(c, '/')); c++) {
		unsigned a, b;
		int end = 0;
		if (sscanf(c + 1, "nvme%un%u%n", &a, &b, &end) != 2 ||
		    (c[1 + end] && c[1 + end] != '/'))
			continue;
		char dir[PATH_MAX + 16];
		snprintf(dir, sizeof(dir), "%.*s/nsid", (int)(c + 1 + end - real), real);
		FILE *fp = fopen(dir, "re");
		unsigned long v = 0;
		if (fp) {
			if (fgets(buf, sizeof(buf), fp) && sscanf(buf, "%lu", &v) == 1 &&
			    v <= UINT32_MAX)
				nsid = (uint32_t)v;
			fclose(fp);
		}
	}
	return nsid;
}

static bool layout_cancelled(void *ctx)
{
	struct exec_ctx *x = ctx;

	return x->h->cancelled && x->h->cancelled(x->h->ctx);
}

static int layout_made(void *ctx, const struct probe_file_id *id)
{
	struct exec_ctx *x = ctx;

	return x->h->file_made ? x->h->file_made(x->h->ctx, x->plan->probe_dir, id) : 0;
}

/* Open the target: the probe file, or the raw namespace. */
int probe_target_open(struct exec_ctx *x, int *ret_fd, uint64_t *ret_area, bool *ret_writable)
{
	const struct probe_plan *p = x->plan;
	struct probe_outcome *o = x->out;
	int r;

	r = drive_lookup(x);
	if (r < 0)
		return r;
	if (!p->probe_dir[0]) {
		x->raw = true;
		return raw_open(x, ret_fd, ret_area, ret_writable);
	}
	uint64_t laid = 0, submitted = 0;
	struct probe_file_req q = {
		.sysfs = p->sysfs,
		.dir = p->probe_dir,
		.ctrl = x->ctrl,
		.size = p->file_size,
		.min_free_pct = p->min_free_pct,
		.known = p->file_known ? &p->file_id : NULL,
		.lease = probe_run_phase_lease,
		.lease_ctx = x,
		.cancelled = layout_cancelled,
		.cancel_ctx = x,
		.made = layout_made,
		.made_ctx = x,
		.read_only = x->role == RUN_SOURCE,
	};
	snprintf(o->run.target, sizeof(o->run.target), "%s/%s", p->probe_dir, PROBE_FILE_NAME);
	x->phase_t0_ns = probe_run_mono_ns();
	r = probe_file_open(&q, ret_fd, &x->file, &laid, &submitted, x->reason);
	/* The layout's writes count whether it finished or not. */
	x->base = submitted;
	x->written = laid;
	o->run.bytes_written = laid;
	if (r < 0)
		return r;
	struct stat st;
	if (fstat(*ret_fd, &st) == 0)
		o->run.nsid = nsid_under(p->sysfs, st.st_dev);
	*ret_area = x->role == RUN_SOURCE && x->file.size < p->file_size ? x->file.size / MiB * MiB
									 : p->file_size;
	*ret_writable = x->role != RUN_SOURCE;
	return 0;
}

/* Before each phase: the same drive, the same target; for writes, still blank. */
int probe_target_check(struct exec_ctx *x, int fd, bool writes)
{
	int r = drive_lookup(x);

	if (r < 0) {
		probe_run_set_reason(x, "drive %s (%s) is gone: stopped", x->plan->serial,
				     x->plan->model);
		return r;
	}
	if (x->raw) {
		r = raw_check(x, fd);
		if (r < 0)
			return r;
		if (writes && x->sig_fd >= 0 &&
		    probe_target_signature(x, " before the write phase"))
			return -EPERM;
		return 0;
	}
	return probe_file_check(x->plan->sysfs, fd, x->ctrl, &x->file, x->reason);
}
