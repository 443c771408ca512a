/* SPDX-License-Identifier: MIT */
/*
 * probe_execute() on a real file with the real engine, on a host without
 * NVMe: a fixture sysfs presents the test directory's filesystem device as
 * namespace 1 of controller nvme0 (serial FIXSER), so the run looks the drive
 * up, checks it before every phase, takes leases and watches the whole drive
 * as it would on a real one. Each case states the docs/probes.md (Safety) rule.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../sysfs_fixture.h"
#include "nvmond/probe/probe_run.h"

#define MiB  (1ull << 20)
#define SIZE (8 * MiB)
#define C0   "devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme0"

static char dir[PATH_MAX];

static void setup(void)
{
	struct stat st;
	char buf[64];

	snprintf(dir, sizeof(dir), "/var/tmp/nvmond-exec-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	int fd = open(dir, O_RDWR | O_TMPFILE | O_DIRECT, 0600);
	if (fd < 0)
		cr_skip_test("%s: no O_TMPFILE with O_DIRECT", dir);
	close(fd);
	/* On tmpfs: the fixture's own writes reach no disk (kernel_written()). */
	snprintf(fx, sizeof(fx), "/dev/shm/nvmond-exec-sysfs-XXXXXX");
	cr_assert_not_null(mkdtemp(fx));
	cr_assert_eq(stat(dir, &st), 0);
	fx_put(C0 "/serial", "FIXSER              \n");
	fx_put(C0 "/model", "FIXMODEL\n");
	fx_put(C0 "/dev", "247:0\n");
	snprintf(buf, sizeof(buf), "%u:%u\n", major(st.st_dev), minor(st.st_dev));
	fx_put(C0 "/nvme0n1/dev", buf);
	fx_put(C0 "/nvme0n1/nsid", "1\n");
	fx_put(C0 "/nvme0n1/wwid", "eui.fix\n");
	fx_put(C0 "/nvme0n1/stat", "0 0 0 0 0 0 0 0 0 0 0\n");
	fx_ln("../../" C0, "class/nvme/nvme0");
	fx_ln("../../" C0 "/nvme0n1", "class/block/nvme0n1");
	snprintf(buf, sizeof(buf), "dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	fx_ln("../../" C0 "/nvme0n1", buf);
}

static void teardown(void)
{
	char cmd[PATH_MAX * 2 + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", dir, fx);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(probe_exec, .init = setup, .fini = teardown);

/*
 * Bytes this process sent towards storage: the probe's O_DIRECT writes, and
 * the few 4 KiB metadata pages (inode, directory) its filesystem calls dirty
 * when the file is made; META allows for those.
 */
#define META (1 * MiB)

static uint64_t kernel_written(void)
{
	char line[128];
	uint64_t v = 0;
	FILE *fp = fopen("/proc/self/io", "re");

	cr_assert_not_null(fp);
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "write_bytes: %" SCNu64, &v) == 1)
			break;
	fclose(fp);
	return v;
}

struct ctx {
	uint64_t kernel0;
	uint64_t lease; /* the last lease recorded */
	bool ahead;	/* what the kernel wrote never passed a recorded lease */
	unsigned charges;
	int fail_over; /* charge() fails once the lease would pass this many MiB */
	unsigned made;
	struct probe_file_id id;
	void (*on_progress)(struct ctx *c, size_t phase);
	bool done_action;
	const char *made_dir; /* where a file is made, when not dir */
};

static int h_charge(void *ctx, uint64_t lease, uint64_t written)
{
	struct ctx *c = ctx;

	c->charges++;
	if (kernel_written() - c->kernel0 > c->lease + META)
		c->ahead = false;
	cr_expect_geq(lease, written, "a lease covers what was written");
	if (c->fail_over && lease > (uint64_t)c->fail_over * MiB)
		return -EIO;
	if (lease > c->lease)
		c->lease = lease;
	return 0;
}

static int h_made(void *ctx, const char *d, const struct probe_file_id *id)
{
	struct ctx *c = ctx;

	cr_expect_str_eq(d, c->made_dir ? c->made_dir : dir);
	c->made++;
	c->id = *id;
	return 0;
}

static void h_progress(void *ctx, size_t phase, const struct probe_point *v, size_t n)
{
	struct ctx *c = ctx;

	(void)v;
	(void)n;
	if (c->on_progress && !c->done_action)
		c->on_progress(c, phase);
}

static struct probe_plan plan_for(enum probe_preset_id preset, uint64_t allowed)
{
	struct probe_plan p = {
		.device_id = 1,
		.serial = "FIXSER",
		.model = "FIXMODEL",
		.preset = preset,
		.trigger = "cli",
		.nsid = 1,
		.file_size = SIZE,
		.allowed_write = allowed,
		.phase_ms = 600,
		.sysfs = fx,
		.mountinfo = "/proc/self/mountinfo",
	};
	snprintf(p.probe_dir, sizeof(p.probe_dir), "%.500s", dir);
	return p;
}

static void run(const struct probe_plan *p, struct ctx *c, struct probe_outcome *o)
{
	struct probe_hooks h = {
		.charge = h_charge, .file_made = h_made, .progress = h_progress, .ctx = c};

	c->kernel0 = kernel_written();
	c->ahead = true;
	*o = (struct probe_outcome){.run = {.id = 1, .device_id = 1, .started_ms = 1}};
	cr_assert_eq(probe_execute(p, &h, o), 0);
}

/* Safety: every byte that may have reached the drive is charged, the layout included. */
Test(probe_exec, everything_written_is_leased_first_and_charged)
{
	struct probe_plan p = plan_for(PROBE_SEQ1M_Q1, 2 * SIZE);
	struct probe_outcome o;
	struct ctx c = {0};

	run(&p, &c, &o);
	cr_expect_str_eq(o.run.state, "done", "%s", o.run.reason);
	cr_expect_eq(c.made, 1);
	cr_expect_eq(o.run.nsid, 1, "the namespace holding the filesystem");
	uint64_t wrote = o.res[1].wr.bytes;
	cr_expect_gt(wrote, 0);
	cr_expect_eq(o.run.bytes_written, SIZE + wrote);
	cr_expect_eq(o.run.bytes_charged, SIZE + o.res[1].wr_submitted);
	cr_expect_leq(o.run.bytes_charged, c.lease, "a lease covered every byte");
	cr_expect_leq(kernel_written() - c.kernel0, c.lease + META);
	cr_expect(c.ahead, "the kernel never saw a write before its lease was recorded");
	probe_outcome_clear(&o);

	/* Again: the recorded file is reused, nothing laid out. */
	p.file_known = true;
	p.file_id = c.id;
	run(&p, &c, &o);
	cr_expect_str_eq(o.run.state, "done", "%s", o.run.reason);
	cr_expect_eq(c.made, 1);
	cr_expect_eq(o.run.bytes_written, o.res[1].wr.bytes);
	probe_outcome_clear(&o);
}

/* Safety: a run writes no more than its reservation, whatever the preset wants. */
Test(probe_exec, the_reservation_is_a_hard_limit)
{
	struct probe_plan p = plan_for(PROBE_SEQ1M_Q1, SIZE + 3 * MiB);
	struct probe_outcome o;
	struct ctx c = {0};

	run(&p, &c, &o);
	cr_expect_str_eq(o.run.state, "done", "%s", o.run.reason);
	cr_expect_leq(o.run.bytes_charged, SIZE + 3 * MiB);
	cr_expect_eq(o.res[1].wr.bytes, 3 * MiB);
	cr_expect_leq(kernel_written() - c.kernel0, SIZE + 3 * MiB + META, "%" PRIu64,
		      kernel_written() - c.kernel0);
	probe_outcome_clear(&o);
}

static void swap_serial(struct ctx *c, size_t phase)
{
	if (phase == 0) {
		fx_put(C0 "/serial", "SOMEONE-ELSE\n");
		c->done_action = true;
	}
}

/* Safety: before every phase the drive is looked up again by its serial. */
Test(probe_exec, another_drive_under_the_name_stops_the_run)
{
	struct probe_plan p = plan_for(PROBE_SEQ1M_Q1, 2 * SIZE);
	struct probe_outcome o;
	struct ctx c = {0};

	run(&p, &c, &o); /* lays the file out */
	probe_outcome_clear(&o);
	p.file_known = true;
	p.file_id = c.id;
	c.on_progress = swap_serial;
	run(&p, &c, &o);
	cr_expect_str_eq(o.run.state, "aborted");
	cr_expect(strstr(o.run.reason, "FIXSER"), "%s", o.run.reason);
	cr_expect_eq(o.n_phases, 1, "the write phase never started");
	cr_expect_eq(o.run.bytes_written, 0);
	cr_expect_leq(kernel_written() - c.kernel0, META);
	probe_outcome_clear(&o);
	/* Not present at all: refused before anything is opened. */
	run(&p, &c, &o);
	cr_expect_str_eq(o.run.state, "failed");
	cr_expect(strstr(o.run.reason, "not present"), "%s", o.run.reason);
	probe_outcome_clear(&o);
}

static void foreground(struct ctx *c, size_t phase)
{
	(void)phase;
	/* 500 TB moved on the drive by someone else (sectors read, field 3). */
	fx_put(C0 "/nvme0n1/stat", "100000 0 1000000000000 0 0 0 0 0 0 0 0\n");
	c->done_action = true;
}

/* Safety: foreground I/O anywhere on the drive aborts a probe. */
Test(probe_exec, foreground_io_on_the_drive_aborts)
{
	struct probe_plan p = plan_for(PROBE_SEQ1M_Q1, 2 * SIZE);
	struct probe_outcome o;
	struct ctx c = {.on_progress = foreground};

	p.phase_ms = 3000; /* the drive is looked at every second */
	run(&p, &c, &o);
	cr_expect_str_eq(o.run.state, "aborted");
	cr_expect(strstr(o.run.reason, "foreground I/O"), "%s", o.run.reason);
	probe_outcome_clear(&o);
}

/* Safety: a lease that cannot be recorded stops the writes. */
Test(probe_exec, no_record_no_write)
{
	struct probe_plan p = plan_for(PROBE_SEQ1M_Q1, 200 * MiB);
	struct probe_outcome o;
	struct ctx c = {0};

	run(&p, &c, &o); /* the layout leases everything at once: 200 MiB */
	probe_outcome_clear(&o);
	p.file_known = true;
	p.file_id = c.id;
	c = (struct ctx){.fail_over = 1}; /* the first lease of the write phase fails */
	run(&p, &c, &o);
	cr_expect_str_eq(o.run.state, "aborted");
	cr_expect(strstr(o.run.reason, "cannot record"), "%s", o.run.reason);
	cr_expect_eq(o.res[1].wr_submitted, 0);
	cr_expect_leq(kernel_written() - c.kernel0, META);
	probe_outcome_clear(&o);
}

/*
 * The sweep on a probe file: every size the file's target addresses (from its
 * O_DIRECT alignment up to the file's size), reads first, then writes, each at
 * the configured depth; its writes leased and charged like any other preset's.
 */
Test(probe_exec, sweep_runs_every_size_within_its_reservation)
{
	uint64_t allowed = SIZE + PROBE_SWEEP_POINTS * SIZE;
	struct probe_plan p = plan_for(PROBE_SWEEP, allowed);
	struct probe_outcome o;
	struct ctx c = {0};
	char f[PATH_MAX];
	uint32_t align = 0;

	snprintf(f, sizeof(f), "%s", dir);
	int dfd = open(f, O_RDWR | O_TMPFILE | O_DIRECT, 0600);
	cr_assert_geq(dfd, 0);
	cr_assert_eq(probe_target_align(dfd, &align), 0);
	close(dfd);
	p.phase_ms = 100;
	p.sweep_depth = 2;
	run(&p, &c, &o);
	cr_expect_str_eq(o.run.state, "done", "%s", o.run.reason);
	size_t sizes = 0;
	for (uint64_t bs = align; bs <= SIZE; bs *= 2)
		sizes++;
	cr_assert_eq(o.n_phases, 2 * sizes, "%zu phases, align %u", o.n_phases, align);
	for (size_t k = 0; k < o.n_phases; k++) {
		bool write = k >= sizes;
		cr_expect_str_eq(o.phase[k].op, write ? "write" : "read");
		cr_expect_eq(o.phase[k].block_size, (uint64_t)align << (k % sizes));
		cr_expect_eq(o.phase[k].depth, 2);
		cr_expect_gt(write ? o.res[k].wr.ios : o.res[k].rd.ios, 0, "phase %zu", k);
		cr_expect_leq(o.res[k].wr.bytes, SIZE, "a point writes the file at most once");
	}
	cr_expect_leq(o.run.bytes_charged, allowed);
	cr_expect_leq(o.run.bytes_charged, c.lease, "a lease covered every byte");
	cr_expect_leq(kernel_written() - c.kernel0, c.lease + META);
	cr_expect(c.ahead, "the kernel never saw a write before its lease was recorded");
	probe_outcome_clear(&o);
}

static uint64_t file_sum(const char *path)
{
	FILE *fp = fopen(path, "re");
	uint64_t h = 1469598103934665603ull;
	int ch;

	cr_assert_not_null(fp, "%s", path);
	while ((ch = fgetc(fp)) != EOF)
		h = (h ^ (uint64_t)ch) * 1099511628211ull;
	fclose(fp);
	return h;
}

/*
 * docs/probes.md (copy-to): the drive copied from is only read, its probe file
 * as nvmond made it, opened read-only; when it is refused, nothing is written
 * on the drive copied to (not even its probe file's layout).
 */
Test(probe_exec, copy_to_reads_the_source_and_writes_the_target_only)
{
	char src[PATH_MAX + 8], dst[PATH_MAX + 8], fresh[PATH_MAX + 8], path[PATH_MAX + 64];
	struct probe_outcome o;
	struct ctx c = {0};

	snprintf(src, sizeof(src), "%s/a", dir);
	snprintf(dst, sizeof(dst), "%s/b", dir);
	snprintf(fresh, sizeof(fresh), "%s/c", dir);
	cr_assert_eq(mkdir(src, 0700), 0);
	cr_assert_eq(mkdir(dst, 0700), 0);
	cr_assert_eq(mkdir(fresh, 0700), 0);

	/* The source's probe file, made by a probe of its own. */
	struct probe_plan sp = plan_for(PROBE_SEQ1M_Q1, 2 * SIZE);
	c.made_dir = src;
	snprintf(sp.probe_dir, sizeof(sp.probe_dir), "%.500s", src);
	run(&sp, &c, &o);
	cr_assert_str_eq(o.run.state, "done", "%s", o.run.reason);
	probe_outcome_clear(&o);
	snprintf(path, sizeof(path), "%s/nvmond-probe.dat", src);
	uint64_t before = file_sum(path);

	sp.file_known = true;
	sp.file_id = c.id;
	sp.allowed_write = 0;
	struct probe_plan p = plan_for(PROBE_COPY_TO, 2 * SIZE);
	snprintf(p.probe_dir, sizeof(p.probe_dir), "%.500s", dst);
	p.source = &sp;
	c = (struct ctx){.made_dir = dst};
	run(&p, &c, &o);
	cr_expect_str_eq(o.run.state, "done", "%s", o.run.reason);
	cr_expect_eq(o.n_phases, 1);
	cr_expect_gt(o.res[0].rd.bytes, 0);
	cr_expect_gt(o.res[0].wr.bytes, 0);
	cr_expect_leq(o.res[0].wr.bytes, SIZE, "the target's area at most once");
	cr_expect(strstr(o.run.source_target, "/a/nvmond-probe.dat"), "%s", o.run.source_target);
	cr_expect(strstr(o.run.target, "/b/nvmond-probe.dat"), "%s", o.run.target);
	cr_expect(c.ahead, "the kernel never saw a write before its lease was recorded");
	cr_expect_eq(file_sum(path), before, "the source is never written");
	probe_outcome_clear(&o);

	/* A source that may write, or none: refused before anything starts. */
	sp.allowed_write = MiB;
	snprintf(p.probe_dir, sizeof(p.probe_dir), "%.500s", fresh);
	c = (struct ctx){0};
	run(&p, &c, &o);
	cr_expect_str_eq(o.run.state, "failed");
	cr_expect_eq(c.made, 0);
	cr_expect_eq(o.run.bytes_charged, 0);
	probe_outcome_clear(&o);
	p.source = NULL;
	run(&p, &c, &o);
	cr_expect_str_eq(o.run.state, "failed");
	probe_outcome_clear(&o);

	/* A source with no probe file nvmond made: refused, the target untouched. */
	sp.allowed_write = 0;
	sp.file_known = false;
	snprintf(sp.probe_dir, sizeof(sp.probe_dir), "%.500s", fresh);
	p.source = &sp;
	run(&p, &c, &o);
	cr_expect_str_eq(o.run.state, "failed");
	cr_expect(strstr(o.run.reason, "drive copied from"), "%s", o.run.reason);
	cr_expect_eq(c.made, 0, "nothing laid out on the target");
	cr_expect_eq(o.run.bytes_charged, 0);
	snprintf(path, sizeof(path), "%s/nvmond-probe.dat", fresh);
	cr_expect_neq(access(path, F_OK), 0, "no file made on either side");
	probe_outcome_clear(&o);
}

/*
 * probe_run.c: a copy-to reads all of the source's area (its probe file as
 * nvmond made it), whatever the target's: with a target file twice the
 * source's the run is done. Read by the target's size, it would read past
 * the source file's end, and the phase would fail (EIO).
 */
Test(probe_exec, copy_to_reads_the_source_area_whatever_the_target)
{
	char src[PATH_MAX + 8], dst[PATH_MAX + 8];
	struct probe_outcome o;
	struct ctx c = {0};

	snprintf(src, sizeof(src), "%s/a", dir);
	snprintf(dst, sizeof(dst), "%s/b", dir);
	cr_assert_eq(mkdir(src, 0700), 0);
	cr_assert_eq(mkdir(dst, 0700), 0);
	struct probe_plan sp = plan_for(PROBE_SEQ1M_Q1, 2 * SIZE);
	c.made_dir = src;
	snprintf(sp.probe_dir, sizeof(sp.probe_dir), "%.500s", src);
	run(&sp, &c, &o);
	cr_assert_str_eq(o.run.state, "done", "%s", o.run.reason);
	probe_outcome_clear(&o);
	sp.file_known = true;
	sp.file_id = c.id;
	sp.allowed_write = 0;

	struct probe_plan p = plan_for(PROBE_COPY_TO, 4 * SIZE);
	p.file_size = 2 * SIZE;
	snprintf(p.probe_dir, sizeof(p.probe_dir), "%.500s", dst);
	p.source = &sp;
	c = (struct ctx){.made_dir = dst};
	run(&p, &c, &o);
	cr_expect_str_eq(o.run.state, "done", "%s", o.run.reason);
	cr_expect_eq(o.n_phases, 1);
	cr_expect_gt(o.res[0].rd.bytes, 0);
	probe_outcome_clear(&o);
}
