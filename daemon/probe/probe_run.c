/* SPDX-License-Identifier: MIT */
/*
 * One probe run: target, phases, safety checks while it runs, analysis, and
 * its stored form. See probe_run.h. Never logs: the outcome carries the reason.
 *
 * Before the target is opened, and again before every phase, the drive is
 * looked up by its serial and model (never by a name from an earlier scan),
 * and the open target is checked against it: a raw namespace by its device
 * number, NSID and WWID and the identity of every controller it is reached
 * through; the probe file by its recorded inode and the controller under its
 * filesystem. A raw namespace is written only through an O_EXCL handle held
 * for the whole run (the kernel then refuses mounts, swap, md/dm and
 * partition scans of it, in every mount namespace), and only while libblkid
 * finds no signature on it: checked before every write phase and every second
 * of one. Every write is covered by a lease recorded first (see
 * probe_hooks.charge), so whatever ends the run, no byte escapes the budget.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "nvmond/dev/nvme_sysfs.h"
#include "nvmond/probe/probe_run.h"
#include "nvmond/probe/probe_safety.h"
#include "nvmond/probe/probe_sig.h"
#include "nvmond/store/store.h"
#include "nvmond/util/timefmt.h"

#define MiB (1ull << 20)

struct exec_ctx {
	const struct probe_plan *plan;
	const struct probe_hooks *h;
	struct probe_outcome *out;
	size_t phase;
	int64_t phase_offset_ms; /* phase start since the run started */
	int64_t next_smart_ms;	 /* run time of the next SMART sample */
	size_t thermal_cap;
	bool sustained;
	struct cliff_point *cp; /* sustained-write: the series as cliff points */
	size_t cp_cap;
	/* the target */
	char ctrl[NVME_SYSFS_NAME_MAX]; /* the drive's controller, looked up by identity */
	bool raw;
	struct nvme_sysfs_ns ns;   /* raw: the namespace as first opened */
	int sig_fd;		   /* raw, writable: a buffered handle for libblkid, or -1 */
	int64_t next_sig_ms;	   /* run time of the next signature check while writing */
	bool writing;		   /* the phase running writes */
	struct probe_file_id file; /* the probe file as opened */
	/* foreground I/O: every namespace of the drive */
	bool watch_disk;
	struct probe_diskstat ds;
	uint64_t ds_probe_bytes; /* the probe's bytes when ds was read */
	int64_t next_ds_ms;
	uint64_t phase_bytes; /* this phase's bytes so far */
	/* writes: leases and what they cover */
	uint64_t lease;	     /* recorded through h->charge: nothing is submitted past it */
	uint64_t base;	     /* bytes submitted by the layout and the phases before this */
	uint64_t written;    /* bytes completed by the layout and the phases before this */
	uint64_t phase_wr;   /* bytes this phase wrote so far (from its series) */
	int64_t phase_t0_ns; /* monotonic start of the running phase */
	uint64_t phase_sub;  /* the running phase's submitted bytes, as its leases saw them */
	int64_t last_charge_ns;
	bool charge_failed;
	char reason[PROBE_REASON_MAX];
};

static void set_reason(struct exec_ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_reason(struct exec_ctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->reason, sizeof(x->reason), fmt, ap);
	va_end(ap);
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static uint64_t run_bytes_so_far(const struct exec_ctx *x)
{
	uint64_t b = x->phase_bytes;

	for (size_t k = 0; k < x->phase; k++)
		b += x->out->res[k].rd.bytes + x->out->res[k].wr.bytes;
	return b;
}

/* ---- leases: no write without a record that covers it ---- */

static int charge(struct exec_ctx *x, uint64_t lease)
{
	int r = x->h->charge ? x->h->charge(x->h->ctx, lease, x->written + x->phase_wr) : 0;

	if (r < 0) {
		x->charge_failed = true;
		set_reason(x,
			   "cannot record the probe's writes in the database (%s): stopped writing",
			   strerror(-r));
		return r;
	}
	x->last_charge_ns = mono_ns();
	return 0;
}

/* Grant writes up to @want bytes of the run, recording a lease past it first. */
static int lease_run(struct exec_ctx *x, uint64_t want, uint64_t *ret_granted)
{
	if (want > x->lease && want <= x->plan->allowed_write) {
		int64_t ns = mono_ns() - x->phase_t0_ns;
		double rate = ns > 1000000 ? (double)x->phase_sub * 1e9 / (double)ns : 0;
		uint64_t next = probe_lease_next(want, x->plan->allowed_write, rate);
		int r = charge(x, next);
		if (r < 0)
			return r;
		x->lease = next;
	}
	*ret_granted = x->lease;
	return 0;
}

/* The engine's lease, in its phase's own bytes. */
static int phase_lease(void *ctx, uint64_t want, uint64_t *ret_granted)
{
	struct exec_ctx *x = ctx;
	uint64_t g = 0;
	int r;

	x->phase_sub = want;
	r = lease_run(x, x->base + want, &g);
	*ret_granted = g > x->base ? g - x->base : 0;
	return r;
}

/* ---- the target ---- */

/* The drive's controller now, from its identity. */
static int drive_lookup(struct exec_ctx *x)
{
	const struct probe_plan *p = x->plan;
	struct nvme_sysfs_ctrl c;
	int r = nvme_sysfs_ctrl_find(p->sysfs, p->serial, p->model, &c);

	if (r == -ENODEV) {
		set_reason(x, "drive %s (%s) is not present: refused", p->serial, p->model);
		return r;
	}
	if (r < 0) {
		set_reason(x, "cannot look up drive %s: %s", p->serial, strerror(-r));
		return r;
	}
	snprintf(x->ctrl, sizeof(x->ctrl), "%s", c.name);
	return 0;
}

/* Whether @fd is the namespace @x->ns of the configured drive still. */
static int raw_check(struct exec_ctx *x, int fd)
{
	char ctrls[8][NVME_SYSFS_NAME_MAX];
	struct nvme_sysfs_ns ns;
	size_t n = 0;
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != x->ns.dev ||
	    nvme_sysfs_ns_of_dev(x->plan->sysfs, st.st_rdev, &ns, ctrls, 8, &n) < 0 ||
	    ns.nsid != x->plan->nsid || strcmp(ns.wwid, x->ns.wwid) != 0) {
		set_reason(x, "/dev/%s is no longer namespace %u of drive %s: stopped", x->ns.name,
			   x->plan->nsid, x->plan->serial);
		return -ESTALE;
	}
	for (size_t i = 0; i < n; i++) {
		struct nvme_sysfs_ctrl c;
		if (nvme_sysfs_ctrl_read(x->plan->sysfs, ctrls[i], &c) < 0 ||
		    !nvme_sysfs_ident_eq(&c, x->plan->serial, x->plan->model)) {
			set_reason(x,
				   "/dev/%s is reached through %s, which is not drive %s: stopped",
				   x->ns.name, ctrls[i], x->plan->serial);
			return -ESTALE;
		}
	}
	return 0;
}

/* 1 when a signature is on the raw namespace (or it cannot be read). */
static int raw_signature(struct exec_ctx *x, const char *when)
{
	char what[PROBE_SIG_MAX];
	int r = probe_sig_find(x->sig_fd, what);

	if (r == 0)
		return 0;
	set_reason(x, "%s %s on /dev/%s%s: %s", r < 0 ? "cannot tell whether anything is" : what,
		   r < 0 ? "written" : "is", x->ns.name, when,
		   r < 0 ? "refused" : "it is never written");
	return 1;
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
		set_reason(x, "drive %s (%s) has no namespace %u%s%s", p->serial, x->ctrl, p->nsid,
			   r == -ENOENT ? "" : ": ", r == -ENOENT ? "" : strerror(-r));
		return r;
	}
	o->run.nsid = x->ns.nsid;
	snprintf(dev, sizeof(dev), "/dev/%s", x->ns.name);
	snprintf(o->run.target, sizeof(o->run.target), "%s", dev);
	r = probe_raw_facts_read(p->sysfs, p->mountinfo, x->ns.name, &f);
	if (r < 0) {
		set_reason(x, "%s: %s", dev, strerror(-r));
		return r;
	}
	bool writable = probe_raw_verdict(&f, x->ns.name, true, p->destructive, why) == 0;
	/* O_EXCL: the kernel refuses while anything, in any mount namespace, has it
	 * mounted, swapped on or held, and refuses them while we hold it. */
	fd = open(dev, (writable ? O_RDWR | O_EXCL : O_RDONLY) | O_DIRECT | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == EBUSY && writable && preset_reads(p->preset)) {
		/* In use, as a mounted namespace is (btrfs hides from mountinfo):
		 * like one, it is only read. */
		snprintf(why, sizeof(why),
			 "%s is in use (mounted, in this or another mount namespace, swapped "
			 "on, or held by md/dm): only read",
			 dev);
		writable = false;
		fd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC | O_NOFOLLOW);
	}
	if (fd < 0) {
		r = -errno;
		if (r == -EBUSY)
			set_reason(x,
				   "%s is in use (mounted, in this or another mount namespace, "
				   "swapped on, or held by md/dm): refused",
				   dev);
		else
			set_reason(x, "%s: %s", dev, strerror(-r));
		return r;
	}
	r = raw_check(x, fd);
	if (r < 0)
		goto fail;
	if (writable) {
		struct stat a, b;
		x->sig_fd = open(dev, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (x->sig_fd < 0 || fstat(x->sig_fd, &a) < 0 || fstat(fd, &b) < 0 ||
		    a.st_rdev != b.st_rdev) {
			set_reason(x, "%s changed while being opened: refused", dev);
			r = -ESTALE;
			goto fail;
		}
		if (raw_signature(x, "")) {
			r = -EPERM;
			goto fail;
		}
	}
	off_t size = lseek(fd, 0, SEEK_END);
	if (size < (off_t)MiB) {
		set_reason(x, "%s: too small", dev);
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
static int open_target(struct exec_ctx *x, int *ret_fd, uint64_t *ret_area, bool *ret_writable)
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
		.lease = phase_lease,
		.lease_ctx = x,
		.cancelled = layout_cancelled,
		.cancel_ctx = x,
		.made = layout_made,
		.made_ctx = x,
	};
	snprintf(o->run.target, sizeof(o->run.target), "%s/%s", p->probe_dir, PROBE_FILE_NAME);
	x->phase_t0_ns = mono_ns();
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
	*ret_area = p->file_size;
	*ret_writable = true;
	return 0;
}

/* Before each phase: the same drive, the same target; for writes, still blank. */
static int phase_check(struct exec_ctx *x, int fd, bool writes)
{
	int r = drive_lookup(x);

	if (r < 0) {
		set_reason(x, "drive %s (%s) is gone: stopped", x->plan->serial, x->plan->model);
		return r;
	}
	if (x->raw) {
		r = raw_check(x, fd);
		if (r < 0)
			return r;
		if (writes && x->sig_fd >= 0 && raw_signature(x, " before the write phase"))
			return -EPERM;
		return 0;
	}
	return probe_file_check(x->plan->sysfs, fd, x->ctrl, &x->file, x->reason);
}

/* One SMART sample into the run's record; 1 when the drive reached WCTEMP. */
static int sample_smart(struct exec_ctx *x, int64_t run_ms)
{
	struct probe_outcome *o = x->out;
	struct smart_log s;

	if (!x->h->read_smart ||
	    x->h->read_smart(x->h->ctx, x->ctrl, o->run.started_ms + run_ms, &s) < 0)
		return 0;
	if (o->n_thermal == x->thermal_cap) {
		size_t cap = x->thermal_cap ? 2 * x->thermal_cap : 64;
		struct cliff_thermal *v = realloc(o->thermal, cap * sizeof(*v));
		if (!v)
			return 0;
		o->thermal = v;
		x->thermal_cap = cap;
	}
	o->thermal[o->n_thermal++] = (struct cliff_thermal){
		.t_ms = run_ms,
		.temp_k = s.temperature_k,
		.t1_count = s.thm_temp1_trans_count,
		.t2_count = s.thm_temp2_trans_count,
		.t1_time_s = s.thm_temp1_total_time,
		.t2_time_s = s.thm_temp2_total_time,
		.warning_temp_time_min = s.warning_temp_time,
	};
	return probe_abort_check(0, 0, s.temperature_k, x->plan->wctemp_k, x->reason);
}

static int on_tick(void *ctx, const struct probe_point *v, size_t n)
{
	struct exec_ctx *x = ctx;
	int64_t run_ms = x->phase_offset_ms + v[n - 1].t_ms;

	x->phase_bytes += v[n - 1].rd_bytes + v[n - 1].wr_bytes;
	x->phase_wr += v[n - 1].wr_bytes;
	if (x->h->progress)
		x->h->progress(x->h->ctx, x->phase, v, n);
	if (x->h->cancelled && x->h->cancelled(x->h->ctx)) {
		set_reason(x, "cancelled");
		return 2;
	}
	/* What was written is on record every second (the lease covers the rest). */
	if (x->writing && mono_ns() - x->last_charge_ns >= 1000000000LL && charge(x, x->lease) < 0)
		return 2;
	if (x->writing && x->sig_fd >= 0 && run_ms >= x->next_sig_ms) {
		x->next_sig_ms = run_ms + 1000;
		if (raw_signature(x, " during the write phase"))
			return 2;
	}
	if (run_ms >= x->next_smart_ms) {
		x->next_smart_ms = run_ms + 1000;
		if (sample_smart(x, run_ms))
			return 2;
	}
	if (x->watch_disk && run_ms >= x->next_ds_ms) {
		struct probe_diskstat now;
		uint64_t probe = run_bytes_so_far(x);
		if (probe_drive_diskstat(x->plan->sysfs, x->ctrl, &now) == 0) {
			if (probe_abort_check(now.sectors - x->ds.sectors,
					      (probe - x->ds_probe_bytes) / 512, 0, 0, x->reason))
				return 2;
			x->ds = now;
			x->ds_probe_bytes = probe;
		}
		x->next_ds_ms = run_ms + 1000;
	}
	if (x->sustained) {
		if (n > x->cp_cap) {
			size_t cap = n * 2;
			struct cliff_point *cp = realloc(x->cp, cap * sizeof(*cp));
			if (!cp)
				return 0;
			x->cp = cp;
			x->cp_cap = cap;
		}
		for (size_t i = 0; i < n; i++)
			x->cp[i] = (struct cliff_point){.t_ms = v[i].t_ms, .bytes = v[i].wr_bytes};
		if (cliff_sustained(x->cp, n, NULL, NULL))
			return 1;
	}
	return 0;
}

static const char *op_name(enum probe_op op)
{
	return op == PROBE_OP_READ ? "read" : op == PROBE_OP_WRITE ? "write" : "copy";
}

static const char *stop_name(enum probe_stop s)
{
	switch (s) {
	case PROBE_STOP_DONE:
		return "done";
	case PROBE_STOP_EARLY:
		return "early";
	case PROBE_STOP_ABORTED:
		return "aborted";
	case PROBE_STOP_FAILED:
		return "failed";
	}
	return "?";
}

static void analyse(struct probe_outcome *o, size_t k)
{
	const struct probe_result *res = &o->res[k];
	struct cliff_point *cp = calloc(res->n_series ? res->n_series : 1, sizeof(*cp));
	bool writes = res->wr.bytes > 0;

	o->n_ev[k] = 0;
	if (!cp)
		return;
	for (size_t i = 0; i < res->n_series; i++)
		cp[i] = (struct cliff_point){
			.t_ms = res->series[i].t_ms,
			.bytes = writes ? res->series[i].wr_bytes : res->series[i].rd_bytes,
		};
	/* Thermal samples in the phase's own time. */
	struct cliff_thermal *th = calloc(o->n_thermal ? o->n_thermal : 1, sizeof(*th));
	if (th) {
		for (size_t i = 0; i < o->n_thermal; i++) {
			th[i] = o->thermal[i];
			th[i].t_ms -= o->phase[k].offset_ms;
		}
		(void)cliff_analyze(cp, res->n_series, th, o->n_thermal, NULL, o->ev[k],
				    CLIFF_MAX_EVENTS, &o->n_ev[k]);
	}
	free(th);
	free(cp);
}

static bool is_cancelled(const struct exec_ctx *x)
{
	return x->h->cancelled && x->h->cancelled(x->h->ctx);
}

int probe_execute(const struct probe_plan *plan, const struct probe_hooks *h,
		  struct probe_demo_state *demo, struct probe_outcome *out)
{
	const struct probe_preset *pre = probe_preset_get(plan->preset);
	struct exec_ctx x = {.plan = plan, .h = h, .out = out, .sig_fd = -1};
	uint64_t area = plan->file_size;
	bool writable = true, aborted = false, stopped = false, failed = false;
	bool skipped_writes = false;
	int fd = -1, r;

	out->n_phases = 0;
	out->thermal = NULL;
	out->n_thermal = 0;
	out->run.bytes_written = 0;
	out->run.bytes_read = 0;
	out->run.nsid = 0;
	out->run.reason[0] = '\0';
	snprintf(out->run.state, sizeof(out->run.state), "failed");
	x.last_charge_ns = mono_ns();
	if (!pre) {
		snprintf(out->run.reason, sizeof(out->run.reason), "unknown preset");
		goto done;
	}
	if (plan->demo_index >= 0) {
		snprintf(out->run.target, sizeof(out->run.target), "demo:%d", plan->demo_index);
		snprintf(out->run.engine, sizeof(out->run.engine), "demo");
		snprintf(x.ctrl, sizeof(x.ctrl), "demo%d", plan->demo_index);
		out->run.nsid = plan->nsid;
	} else {
		r = open_target(&x, &fd, &area, &writable);
		if (r < 0) {
			snprintf(out->run.reason, sizeof(out->run.reason), "%s", x.reason);
			goto done;
		}
		x.watch_disk = probe_drive_diskstat(plan->sysfs, x.ctrl, &x.ds) == 0;
	}
	(void)sample_smart(&x, 0);
	x.next_smart_ms = 1000;
	x.next_ds_ms = 1000;

	int64_t offset = 0;
	for (size_t k = 0; k < pre->n_phases && !aborted && !failed; k++) {
		struct probe_job j;
		uint64_t left = plan->allowed_write > x.base ? plan->allowed_write - x.base : 0;
		uint64_t max_write = left / MiB * MiB;
		probe_preset_job(pre, k, area, plan->phase_ms, max_write, &j);
		bool writes = j.op != PROBE_OP_READ;
		if (writes && (!writable || max_write < j.block_size)) {
			if (pre->n_phases > 1) {
				skipped_writes = true;
				continue;
			}
			if (!out->run.reason[0])
				snprintf(out->run.reason, sizeof(out->run.reason),
					 "no write budget left");
			goto done;
		}
		if (is_cancelled(&x)) {
			set_reason(&x, "cancelled");
			aborted = true;
			break;
		}
		if (plan->demo_index < 0 && phase_check(&x, fd, writes) < 0) {
			aborted = true;
			break;
		}
		x.phase = out->n_phases;
		x.phase_offset_ms = offset;
		x.phase_bytes = 0;
		x.phase_wr = 0;
		x.phase_sub = 0;
		x.phase_t0_ns = mono_ns();
		x.writing = writes;
		x.next_sig_ms = offset + 1000;
		x.sustained = pre->sustained;
		j.lease = phase_lease;
		j.lease_ctx = &x;
		struct probe_result *res = &out->res[x.phase];
		*res = (struct probe_result){0};
		if (plan->demo_index >= 0)
			r = probe_demo_run(plan->demo_index, demo, &j, out->run.started_ms + offset,
					   true, on_tick, &x, res);
		else
			r = probe_engine_run(fd, &j, on_tick, &x, res);
		x.writing = false;
		if (r < 0 && res->stop != PROBE_STOP_FAILED) {
			/* Nothing measured: charge what its leases allowed. */
			if (x.lease > x.base)
				x.base = x.lease;
			snprintf(out->run.reason, sizeof(out->run.reason), "%s phase: %s",
				 pre->phase[k].name, strerror(-r));
			failed = true;
			break;
		}
		struct probe_phase_row *ph = &out->phase[x.phase];
		*ph = (struct probe_phase_row){
			.phase = x.phase,
			.random = j.random,
			.block_size = j.block_size,
			.depth = j.depth,
			.elapsed_ms = res->elapsed_ns / 1000000,
			.offset_ms = offset,
			.interval_ms = j.interval_ms,
			.rd = res->rd,
			.wr = res->wr,
			.cpu_user_us = res->cpu_user_us,
			.cpu_sys_us = res->cpu_sys_us,
		};
		snprintf(ph->name, sizeof(ph->name), "%s", pre->phase[k].name);
		snprintf(ph->op, sizeof(ph->op), "%s", op_name(j.op));
		snprintf(ph->stop, sizeof(ph->stop), "%s", stop_name(res->stop));
		if (plan->demo_index < 0)
			snprintf(out->run.engine, sizeof(out->run.engine), "%s", res->engine);
		x.base += res->wr_submitted;
		x.written += res->wr.bytes;
		out->run.bytes_written = x.written;
		out->run.bytes_read += res->rd.bytes;
		out->n_phases++;
		offset += ph->elapsed_ms;
		if (r < 0) {
			snprintf(out->run.reason, sizeof(out->run.reason), "%s phase: %s",
				 pre->phase[k].name, strerror(-r));
			failed = true;
		}
		aborted = res->stop == PROBE_STOP_ABORTED;
		stopped = res->stop == PROBE_STOP_EARLY;
	}
	/* A cancel that came while the last I/O drained still counts. */
	if (!aborted && !failed && is_cancelled(&x)) {
		set_reason(&x, "cancelled");
		aborted = true;
	}
	for (size_t k = 0; k < out->n_phases; k++)
		analyse(out, k);
	if (failed) {
		/* state stays "failed", the reason says where */
	} else if (aborted) {
		snprintf(out->run.state, sizeof(out->run.state), "aborted");
		snprintf(out->run.reason, sizeof(out->run.reason), "%s", x.reason);
	} else {
		snprintf(out->run.state, sizeof(out->run.state), stopped ? "stopped" : "done");
		if (stopped)
			snprintf(out->run.reason, sizeof(out->run.reason),
				 "the write rate fell and stayed down");
		else if (skipped_writes && !out->run.reason[0])
			snprintf(out->run.reason, sizeof(out->run.reason),
				 "write phase skipped: no write budget left");
		else if (skipped_writes)
			strncat(out->run.reason, " (write phase skipped)",
				sizeof(out->run.reason) - strlen(out->run.reason) - 1);
	}
done:
	/* Every byte handed to the kernel may have reached the drive. */
	out->run.bytes_charged = x.base > out->run.bytes_written ? x.base : out->run.bytes_written;
	out->run.bytes_lease = x.lease;
	if (fd >= 0)
		close(fd);
	if (x.sig_fd >= 0)
		close(x.sig_fd);
	free(x.cp);
	return 0;
}

void probe_outcome_clear(struct probe_outcome *o)
{
	for (size_t k = 0; k < o->n_phases; k++)
		probe_result_clear(&o->res[k]);
	o->n_phases = 0;
	free(o->thermal);
	o->thermal = NULL;
	o->n_thermal = 0;
}

int probe_outcome_save(struct store *s, const struct probe_outcome *o)
{
	int r;

	for (size_t k = 0; k < o->n_phases; k++) {
		r = store_probe_phase_insert(s, o->run.id, &o->phase[k], o->res[k].series,
					     o->res[k].n_series, o->ev[k], o->n_ev[k]);
		if (r < 0)
			return r;
	}
	r = store_probe_thermal_insert(s, o->run.id, o->thermal, o->n_thermal);
	if (r < 0)
		return r;
	return store_probe_run_update(s, &o->run);
}

/* ---- JSON ---- */

static int set(json_t *o, const char *k, json_t *v)
{
	return json_object_set_new(o, k, v);
}

static json_t *time_json(int64_t ms)
{
	char buf[TIMEFMT_MAX];

	return ms ? json_string(timefmt_rfc3339(ms, buf)) : json_null();
}

json_t *probe_run_json(const struct probe_run_row *r)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	int e = set(o, "id", json_integer(r->id)) |
		set(o, "device_id", json_integer(r->device_id)) |
		set(o, "preset", json_string(r->preset)) |
		set(o, "trigger", json_string(r->trigger)) |
		set(o, "state", json_string(r->state)) | set(o, "reason", json_string(r->reason)) |
		set(o, "target", json_string(r->target)) |
		set(o, "engine", json_string(r->engine)) |
		set(o, "started", time_json(r->started_ms)) |
		set(o, "started_ms", json_integer(r->started_ms)) |
		set(o, "ended", time_json(r->ended_ms)) |
		set(o, "bytes_written", json_integer((json_int_t)r->bytes_written)) |
		set(o, "bytes_read", json_integer((json_int_t)r->bytes_read)) |
		set(o, "bytes_charged", json_integer((json_int_t)r->bytes_charged)) |
		set(o, "nsid", r->nsid ? json_integer(r->nsid) : json_null());
	if (e) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *dir_json(const struct probe_dir_stats *d, int64_t elapsed_ms)
{
	double secs = elapsed_ms > 0 ? (double)elapsed_ms / 1000.0 : 1;

	return json_pack("{s:I, s:I, s:f, s:f, s:{s:I, s:I, s:I}}", "bytes", (json_int_t)d->bytes,
			 "ios", (json_int_t)d->ios, "mb_per_s", (double)d->bytes / secs / 1e6,
			 "iops", (double)d->ios / secs, "latency_ns", "p50",
			 (json_int_t)d->lat_p50_ns, "p99", (json_int_t)d->lat_p99_ns, "p99_9",
			 (json_int_t)d->lat_p999_ns);
}

static json_t *event_json(const struct cliff_event *e)
{
	return json_pack("{s:s, s:s, s:I, s:I, s:I, s:f, s:f, s:f, s:b}", "kind",
			 cliff_kind_name(e->kind), "cause", cliff_cause_name(e->cause), "start_ms",
			 (json_int_t)e->start_ms, "end_ms", (json_int_t)e->end_ms, "bytes_before",
			 (json_int_t)e->bytes_before, "mb_per_s_before", e->rate_before / 1e6,
			 "mb_per_s_during", e->rate_during / 1e6, "mb_per_s_after",
			 e->rate_after / 1e6, "recovered", e->recovered);
}

int probe_run_detail_json(struct store *s, int64_t id, bool with_series, json_t **ret)
{
	struct probe_run_row run;
	struct probe_phase_row *ph = NULL;
	struct probe_event_row *ev = NULL;
	struct cliff_thermal *th = NULL;
	size_t n_ph = 0, n_ev = 0, n_th = 0;
	json_t *o = NULL, *phases;
	int r;

	r = store_probe_run_get(s, id, &run);
	if (r < 0)
		return r;
	r = store_probe_phases_get(s, id, &ph, &n_ph);
	if (r < 0)
		goto out;
	r = store_probe_events_get(s, id, &ev, &n_ev);
	if (r < 0)
		goto out;
	if (with_series) {
		r = store_probe_thermal_get(s, id, &th, &n_th);
		if (r < 0)
			goto out;
	}
	r = -ENOMEM;
	o = probe_run_json(&run);
	phases = json_array();
	if (!o || !phases || set(o, "phases", phases) < 0)
		goto out;
	const struct probe_preset *pre = probe_preset_find(run.preset, NULL);
	if (pre && set(o, "label", json_string(pre->label)) < 0)
		goto out;
	for (size_t k = 0; k < n_ph; k++) {
		json_t *p = json_pack(
			"{s:I, s:s, s:s, s:b, s:I, s:I, s:s, s:I, s:I, s:I, s:o, s:o, "
			"s:{s:I, s:I}, s:[]}",
			"phase", (json_int_t)ph[k].phase, "name", ph[k].name, "op", ph[k].op,
			"random", ph[k].random, "block_size", (json_int_t)ph[k].block_size, "depth",
			(json_int_t)ph[k].depth, "stop", ph[k].stop, "elapsed_ms",
			(json_int_t)ph[k].elapsed_ms, "offset_ms", (json_int_t)ph[k].offset_ms,
			"interval_ms", (json_int_t)ph[k].interval_ms, "read",
			dir_json(&ph[k].rd, ph[k].elapsed_ms), "write",
			dir_json(&ph[k].wr, ph[k].elapsed_ms), "cpu", "user_us",
			(json_int_t)ph[k].cpu_user_us, "sys_us", (json_int_t)ph[k].cpu_sys_us,
			"events");
		if (!p || json_array_append_new(phases, p) < 0)
			goto out;
		json_t *evs = json_object_get(p, "events");
		for (size_t i = 0; i < n_ev; i++)
			if (ev[i].phase == ph[k].phase &&
			    json_array_append_new(evs, event_json(&ev[i].ev)) < 0)
				goto out;
		if (!with_series)
			continue;
		struct probe_point *v = NULL;
		size_t n = 0;
		r = store_probe_series_get(s, id, ph[k].phase, &v, &n);
		if (r < 0)
			goto out;
		r = -ENOMEM;
		json_t *series = json_array();
		if (!series || set(p, "series", series) < 0) {
			free(v);
			goto out;
		}
		for (size_t i = 0; i < n; i++) {
			json_t *pt =
				json_pack("[I, I, I]", (json_int_t)v[i].t_ms,
					  (json_int_t)v[i].rd_bytes, (json_int_t)v[i].wr_bytes);
			if (!pt || json_array_append_new(series, pt) < 0) {
				free(v);
				goto out;
			}
		}
		free(v);
	}
	if (with_series) {
		json_t *smart = json_array();
		if (!smart || set(o, "smart", smart) < 0)
			goto out;
		for (size_t i = 0; i < n_th; i++) {
			json_t *t =
				json_pack("{s:I, s:i, s:I, s:I, s:I, s:I, s:I}", "t_ms",
					  (json_int_t)th[i].t_ms, "temp_k", th[i].temp_k,
					  "tmt1_count", (json_int_t)th[i].t1_count, "tmt2_count",
					  (json_int_t)th[i].t2_count, "tmt1_time_s",
					  (json_int_t)th[i].t1_time_s, "tmt2_time_s",
					  (json_int_t)th[i].t2_time_s, "warning_temp_time_min",
					  (json_int_t)th[i].warning_temp_time_min);
			if (!t || json_array_append_new(smart, t) < 0)
				goto out;
		}
	}
	*ret = o;
	o = NULL;
	r = 0;
out:
	json_decref(o);
	free(ph);
	free(ev);
	free(th);
	return r;
}

static double jnum(const json_t *o, const char *path1, const char *path2)
{
	const json_t *v = json_object_get(o, path1);

	if (path2)
		v = json_object_get(v, path2);
	return json_number_value(v);
}

void probe_print_table(FILE *out, const json_t *d)
{
	const json_t *phases = json_object_get(d, "phases"), *p;
	size_t k;

	fprintf(out, "probe %lld  %s (%s) on %s  engine %s  %s\n",
		(long long)json_integer_value(json_object_get(d, "id")),
		json_string_value(json_object_get(d, "preset")),
		json_string_value(json_object_get(d, "label")) ?: "",
		json_string_value(json_object_get(d, "target")),
		json_string_value(json_object_get(d, "engine")),
		json_string_value(json_object_get(d, "state")));
	const char *reason = json_string_value(json_object_get(d, "reason"));
	if (reason && reason[0])
		fprintf(out, "  %s\n", reason);
	fprintf(out, "%-6s %-5s %10s %10s %10s %10s %10s %8s\n", "phase", "dir", "MB/s", "IOPS",
		"p50 µs", "p99 µs", "p99.9 µs", "CPU s");
	json_array_foreach(phases, k, p)
	{
		const char *dirs[2] = {"read", "write"};
		double cpu = (jnum(p, "cpu", "user_us") + jnum(p, "cpu", "sys_us")) / 1e6;
		for (int i = 0; i < 2; i++) {
			const json_t *dj = json_object_get(p, dirs[i]);
			if (json_integer_value(json_object_get(dj, "bytes")) == 0)
				continue;
			const json_t *lat = json_object_get(dj, "latency_ns");
			fprintf(out, "%-6s %-5s %10.1f %10.0f %10.1f %10.1f %10.1f %8.2f\n",
				json_string_value(json_object_get(p, "name")), dirs[i],
				jnum(dj, "mb_per_s", NULL), jnum(dj, "iops", NULL),
				(double)json_integer_value(json_object_get(lat, "p50")) / 1e3,
				(double)json_integer_value(json_object_get(lat, "p99")) / 1e3,
				(double)json_integer_value(json_object_get(lat, "p99_9")) / 1e3,
				cpu);
		}
		const json_t *evs = json_object_get(p, "events"), *e;
		size_t i;
		json_array_foreach(evs, i, e)
		{
			fprintf(out, "  %s (%s) at %.1f s after %.1f GB: %.0f → %.0f MB/s%s\n",
				json_string_value(json_object_get(e, "kind")),
				json_string_value(json_object_get(e, "cause")),
				(double)json_integer_value(json_object_get(e, "start_ms")) / 1e3,
				(double)json_integer_value(json_object_get(e, "bytes_before")) /
					1e9,
				jnum(e, "mb_per_s_before", NULL), jnum(e, "mb_per_s_during", NULL),
				json_is_true(json_object_get(e, "recovered")) ? ", recovered" : "");
		}
	}
	fprintf(out, "written by the probe: %.1f MB\n",
		(double)json_integer_value(json_object_get(d, "bytes_written")) / 1e6);
}
