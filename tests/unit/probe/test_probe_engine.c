/* SPDX-License-Identifier: MIT */
/*
 * The engine against a real file on a real filesystem, with O_DIRECT: what it
 * reports must be what reached the file.
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

#include "nvmond/probe/probe.h"
#include "nvmond/probe/probe_file.h"

#define MiB	  (1ull << 20)
#define FILE_SIZE (64 * MiB)

static char dir[PATH_MAX];
static char disk[64]; /* the block device under the test directory, e.g. "vda" */

/* A temp dir on a filesystem that supports O_DIRECT (not tmpfs). */
static void setup(void)
{
	const char *bases[] = {getenv("NVMOND_PROBE_TMP"), "/var/tmp", "/tmp", NULL};
	struct stat st;
	char link[64], real[PATH_MAX];

	dir[0] = '\0';
	for (size_t i = 0; bases[i] || i == 0; i++) {
		if (!bases[i])
			continue;
		snprintf(dir, sizeof(dir), "%s/nvmond-probe-test-XXXXXX", bases[i]);
		if (!mkdtemp(dir)) {
			dir[0] = '\0';
			continue;
		}
		int fd = open(dir, O_RDONLY | O_DIRECTORY);
		cr_assert(fd >= 0);
		int t = openat(fd, "odirect", O_RDWR | O_CREAT | O_DIRECT, 0600);
		close(fd);
		if (t >= 0) {
			close(t);
			break;
		}
		rmdir(dir);
		dir[0] = '\0';
	}
	if (!dir[0])
		cr_skip_test("no filesystem with O_DIRECT to probe on");
	cr_assert_eq(stat(dir, &st), 0);
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	if (!realpath(link, real))
		cr_skip_test("%s is not on a block device", dir);
	snprintf(disk, sizeof(disk), "%s", strrchr(real, '/') + 1);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	if (!dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

static int open_probe_file(uint64_t *laid_out)
{
	char reason[PROBE_REASON_MAX];
	struct probe_file_req q = {.sysfs = "/sys", .dir = dir, .ctrl = disk, .size = FILE_SIZE};
	struct probe_file_id id;
	uint64_t submitted = 0;
	int fd = -1;
	int r = probe_file_open(&q, &fd, &id, laid_out, &submitted, reason);
	cr_assert_eq(r, 0, "%s", reason);
	cr_expect_eq(submitted, *laid_out);
	return fd;
}

/* A 1 MiB block's checksum, to see which blocks a probe changed. */
static uint64_t block_sum(int fd, uint64_t off)
{
	static uint8_t *buf; /* kept for the process: reachable */
	uint64_t h = 1469598103934665603ull;

	if (!buf)
		cr_assert_eq(posix_memalign((void **)&buf, 4096, MiB), 0);
	cr_assert_eq(pread(fd, buf, MiB, (off_t)off), (ssize_t)MiB);
	for (size_t i = 0; i < MiB; i++)
		h = (h ^ buf[i]) * 1099511628211ull;
	return h;
}

static uint64_t proc_write_bytes(void)
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

static void check_write(enum probe_engine_kind engine, const char *want_engine)
{
	uint64_t laid_out = 0, before[FILE_SIZE / MiB];
	int fd = open_probe_file(&laid_out);
	struct probe_result res;

	cr_expect_eq(laid_out, FILE_SIZE);
	for (uint64_t b = 0; b < FILE_SIZE / MiB; b++)
		before[b] = block_sum(fd, b * MiB);

	struct probe_job j = {
		.op = PROBE_OP_WRITE,
		.block_size = MiB,
		.depth = 8,
		.offset = 0,
		.length = FILE_SIZE,
		.max_bytes = 40 * MiB,
		.duration_ms = 60000,
		.engine = engine,
		.seed = 42,
	};
	uint64_t io0 = proc_write_bytes();
	cr_assert_eq(probe_engine_run(fd, &j, NULL, NULL, &res), 0);
	uint64_t io1 = proc_write_bytes();
	cr_expect_str_eq(res.engine, want_engine);
	cr_expect_eq(res.stop, PROBE_STOP_DONE);
	cr_expect_eq(res.wr.bytes, 40 * MiB);
	cr_expect_eq(res.wr.ios, 40);
	cr_expect_eq(res.rd.bytes, 0);
	/* The kernel saw the bytes the engine reports: a piece io_uring retried
	 * from its worker may be counted twice (seen under load: 40 MiB + 4096;
	 * test_probe_sweep says more), so at most 64 KiB more, far less than one
	 * 1 MiB transfer. */
	cr_expect(io1 - io0 >= res.wr.bytes && io1 - io0 <= res.wr.bytes + 64 * 1024,
		  "kernel %" PRIu64 ", engine %" PRIu64, io1 - io0, res.wr.bytes);
	/* The series adds up to the total. */
	uint64_t sum = 0;
	for (size_t i = 0; i < res.n_series; i++)
		sum += res.series[i].wr_bytes;
	cr_expect_eq(sum, res.wr.bytes);
	cr_expect(res.wr.lat_p50_ns > 0 && res.wr.lat_p50_ns <= res.wr.lat_p99_ns &&
		  res.wr.lat_p99_ns <= res.wr.lat_p999_ns);
	/* Exactly the first 40 blocks changed, with incompressible data. */
	size_t changed = 0;
	for (uint64_t b = 0; b < FILE_SIZE / MiB; b++) {
		bool c = block_sum(fd, b * MiB) != before[b];
		changed += c;
		cr_expect_eq(c, b < 40, "block %" PRIu64, b);
	}
	cr_expect_eq(changed * MiB, res.wr.bytes);
	probe_result_clear(&res);
	close(fd);
}

Test(probe_engine, io_uring_write_matches_the_file, .init = setup, .fini = teardown)
{
	check_write(PROBE_ENGINE_AUTO, "io_uring");
}

Test(probe_engine, psync_write_matches_the_file, .init = setup, .fini = teardown)
{
	check_write(PROBE_ENGINE_PSYNC, "psync");
}

static int stop_after_four(void *ctx, const struct probe_point *v, size_t n)
{
	(void)ctx;
	(void)v;
	return n >= 4 ? 1 : 0;
}

Test(probe_engine, reads_copy_and_ticks, .init = setup, .fini = teardown)
{
	uint64_t laid_out;
	int fd = open_probe_file(&laid_out);
	struct probe_result res;
	struct probe_job j = {
		.op = PROBE_OP_READ,
		.random = true,
		.block_size = 4096,
		.depth = 32,
		.offset = 0,
		.length = FILE_SIZE,
		.duration_ms = 600,
		.interval_ms = 100,
	};

	cr_assert_eq(probe_engine_run(fd, &j, NULL, NULL, &res), 0);
	cr_expect_gt(res.rd.ios, 0);
	cr_expect_eq(res.rd.bytes, res.rd.ios * 4096);
	cr_expect_eq(res.wr.bytes, 0);
	cr_expect(res.n_series >= 5 && res.n_series <= 8, "%zu", res.n_series);
	cr_expect(res.elapsed_ns >= 600000000LL);
	cr_expect(res.cpu_user_us + res.cpu_sys_us > 0);
	probe_result_clear(&res);

	/* copy-self: reads the first half while writing the second. */
	const struct probe_preset *p = probe_preset_find("copy-self", NULL);
	cr_assert_not_null(p);
	probe_preset_job(p, 0, FILE_SIZE, 10000, 16 * MiB, &j);
	cr_expect_eq(j.wr_offset, FILE_SIZE / 2);
	cr_assert_eq(probe_engine_run(fd, &j, NULL, NULL, &res), 0);
	cr_expect_eq(res.wr.bytes, 16 * MiB);
	cr_expect_gt(res.rd.bytes, 0);
	probe_result_clear(&res);

	/* The tick callback stops the phase. */
	j = (struct probe_job){.op = PROBE_OP_READ,
			       .block_size = MiB,
			       .depth = 1,
			       .length = FILE_SIZE,
			       .duration_ms = 30000,
			       .interval_ms = 50};
	cr_assert_eq(probe_engine_run(fd, &j, stop_after_four, NULL, &res), 0);
	cr_expect_eq(res.stop, PROBE_STOP_EARLY);
	cr_expect(res.elapsed_ns < 5000000000LL);
	probe_result_clear(&res);
	close(fd);
}

struct lease_ctx {
	uint64_t cap; /* grant at most this many bytes */
	int err;      /* or fail with this, after @err_after bytes */
	uint64_t err_after;
	uint64_t granted; /* the largest grant given */
	unsigned calls;
	uint64_t kernel0; /* /proc/self/io write_bytes at the start */
	bool ahead;	  /* every grant covered what the kernel had seen written */
};

static int test_lease(void *ctx, uint64_t want, uint64_t *ret)
{
	struct lease_ctx *c = ctx;

	c->calls++;
	/* Nothing may have reached the kernel beyond what was granted before. */
	if (proc_write_bytes() - c->kernel0 > c->granted)
		c->ahead = false;
	if (c->err && want > c->err_after)
		return c->err;
	uint64_t g = want + 3 * MiB; /* grant a little ahead, as the real lease does */
	if (g > c->cap)
		g = c->cap;
	if (g > c->granted)
		c->granted = g;
	*ret = c->granted;
	return 0;
}

/* docs/probes.md (Safety): no write is submitted past the lease recorded before it. */
Test(probe_engine, writes_stay_within_their_lease, .init = setup, .fini = teardown)
{
	uint64_t laid_out;
	int fd = open_probe_file(&laid_out);
	const enum probe_engine_kind engines[] = {PROBE_ENGINE_AUTO, PROBE_ENGINE_PSYNC};

	for (size_t e = 0; e < 2; e++) {
		struct lease_ctx lc = {
			.cap = 10 * MiB, .ahead = true, .kernel0 = proc_write_bytes()};
		struct probe_result res;
		struct probe_job j = {.op = PROBE_OP_WRITE,
				      .block_size = MiB,
				      .depth = 8,
				      .length = FILE_SIZE,
				      .max_bytes = 40 * MiB,
				      .duration_ms = 60000,
				      .engine = engines[e],
				      .lease = test_lease,
				      .lease_ctx = &lc};
		cr_assert_eq(probe_engine_run(fd, &j, NULL, NULL, &res), 0);
		cr_expect_eq(res.stop, PROBE_STOP_DONE, "a spent lease ends the phase");
		cr_expect_eq(res.wr_submitted, 10 * MiB, "exactly the lease, engine %zu", e);
		cr_expect_eq(res.wr.bytes, 10 * MiB);
		uint64_t seen = proc_write_bytes() - lc.kernel0;
		cr_expect(seen >= 10 * MiB && seen <= 10 * MiB + 64 * 1024,
			  "the kernel saw no more (64 KiB of slack, as above): %" PRIu64, seen);
		cr_expect(lc.ahead, "a grant always came before the writes it covers");
		cr_expect_gt(lc.calls, 1);
		probe_result_clear(&res);

		/* The lease cannot be recorded: the phase aborts, nothing more goes out. */
		lc = (struct lease_ctx){.cap = 40 * MiB,
					.err = -EIO,
					.err_after = 5 * MiB,
					.ahead = true,
					.kernel0 = proc_write_bytes()};
		cr_assert_eq(probe_engine_run(fd, &j, NULL, NULL, &res), 0);
		cr_expect_eq(res.stop, PROBE_STOP_ABORTED);
		cr_expect_leq(res.wr_submitted, lc.granted);
		cr_expect_leq(proc_write_bytes() - lc.kernel0, lc.granted);
		probe_result_clear(&res);
	}
	close(fd);
}

struct drain_ctx {
	unsigned leases, ticks;
};

/* Grants at once, but takes 5 ms over the last write: an interval ends meanwhile. */
static int slow_last_lease(void *ctx, uint64_t want, uint64_t *ret)
{
	struct drain_ctx *c = ctx;

	if (++c->leases == 3)
		usleep(5000);
	*ret = want;
	return 0;
}

static int cancel_after_last_lease(void *ctx, const struct probe_point *v, size_t n)
{
	struct drain_ctx *c = ctx;

	(void)v;
	(void)n;
	c->ticks++;
	return c->leases >= 3 ? 2 : 0;
}

/*
 * A cancel that comes after the last I/O was issued, while it drains, still
 * makes the phase aborted (it was ignored once the byte limit was issued).
 * Three writes at depth 4: all three go out first (the third after its 5 ms
 * lease), the engine then knows it is done issuing, and only then does it
 * reap and end an interval.
 */
Test(probe_engine, cancel_while_draining_aborts, .init = setup, .fini = teardown)
{
	uint64_t laid_out;
	int fd = open_probe_file(&laid_out);
	struct probe_result res;
	struct drain_ctx dc = {0};
	struct probe_job j = {.op = PROBE_OP_WRITE,
			      .block_size = MiB,
			      .depth = 4,
			      .length = FILE_SIZE,
			      .max_bytes = 3 * MiB,
			      .duration_ms = 60000,
			      .interval_ms = 1,
			      .engine = PROBE_ENGINE_URING,
			      .lease = slow_last_lease,
			      .lease_ctx = &dc};
	int r = probe_engine_run(fd, &j, cancel_after_last_lease, &dc, &res);
	if (r == -ENOSYS)
		cr_skip_test("no io_uring here");
	cr_assert_eq(r, 0);
	cr_expect_eq(dc.leases, 3);
	cr_expect_gt(dc.ticks, 0, "the tick is asked while draining");
	cr_expect_eq(res.stop, PROBE_STOP_ABORTED);
	cr_expect_eq(res.wr_submitted, 3 * MiB);
	cr_expect_eq(res.wr.bytes, 3 * MiB, "in-flight writes are drained, not dropped");
	probe_result_clear(&res);
	close(fd);
}

Test(probe_engine, rejects_bad_jobs)
{
	struct probe_result res;
	struct probe_job j = {.op = PROBE_OP_READ,
			      .block_size = 1000,
			      .depth = 1,
			      .length = MiB,
			      .duration_ms = 10};

	cr_expect_eq(probe_engine_run(-1, &j, NULL, NULL, &res), -EINVAL);
	j.block_size = 4096;
	j.depth = 0;
	cr_expect_eq(probe_engine_run(-1, &j, NULL, NULL, &res), -EINVAL);
	j.depth = 1;
	j.duration_ms = 0;
	cr_expect_eq(probe_engine_run(-1, &j, NULL, NULL, &res), -EINVAL);
}

Test(probe_engine, histogram_quantiles)
{
	static struct probe_hist h;

	for (uint64_t i = 1; i <= 100000; i++)
		probe_hist_add(&h, i * 1000); /* 1 µs … 100 ms, uniform */
	uint64_t p50 = probe_hist_quantile(&h, 0.5), p99 = probe_hist_quantile(&h, 0.99);
	uint64_t p999 = probe_hist_quantile(&h, 0.999);
	cr_expect(p50 > 50000000 * 0.97 && p50 < 50000000 * 1.03, "%" PRIu64, p50);
	cr_expect(p99 > 99000000 * 0.97 && p99 < 99000000 * 1.03, "%" PRIu64, p99);
	cr_expect(p999 > 99900000 * 0.97 && p999 < 99900000 * 1.03, "%" PRIu64, p999);
	cr_expect_eq(probe_hist_quantile(&(struct probe_hist){0}, 0.5), 0);
}

/* A plain file of @size bytes of data in the test directory, opened with @flags. */
static int data_file(const char *name, uint64_t size, int flags)
{
	char path[PATH_MAX + 32];
	static uint8_t *buf;
	uint64_t seed = 7;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_DIRECT | O_CLOEXEC, 0600);
	cr_assert(fd >= 0);
	if (!buf)
		cr_assert_eq(posix_memalign((void **)&buf, 4096, MiB), 0);
	for (uint64_t off = 0; off < size; off += MiB) {
		probe_fill_random(buf, MiB, &seed);
		cr_assert_eq(pwrite(fd, buf, MiB, (off_t)off), (ssize_t)MiB);
	}
	close(fd);
	fd = open(path, flags | O_DIRECT | O_CLOEXEC);
	cr_assert(fd >= 0);
	return fd;
}

/*
 * docs/probes.md (copy-to): a copy across two targets reads one and writes the
 * other only, within its byte limit; the one read is opened read-only.
 */
static void check_copy_to(enum probe_engine_kind engine)
{
	int a = data_file("a.dat", 16 * MiB, O_RDONLY), b = data_file("b.dat", 32 * MiB, O_RDWR);
	uint64_t sa[16], sb[32];
	struct probe_result res;
	const struct probe_preset *p = probe_preset_find("copy-to", NULL);
	struct probe_job j;

	cr_assert_not_null(p);
	for (uint64_t k = 0; k < 16; k++)
		sa[k] = block_sum(a, k * MiB);
	for (uint64_t k = 0; k < 32; k++)
		sb[k] = block_sum(b, k * MiB);
	probe_preset_job(p, 0, 32 * MiB, 10000, 20 * MiB, &j);
	cr_expect_eq(j.op, PROBE_OP_COPY);
	cr_expect_eq(j.block_size, MiB);
	cr_expect_eq(j.depth, 8);
	cr_expect_eq(j.wr_offset, 0); /* the whole of B's area */
	cr_expect_eq(j.wr_length, 32 * MiB);
	cr_expect_eq(j.max_bytes, 20 * MiB);
	j.length = 16 * MiB; /* A's area, as the run sets it */
	j.engine = engine;
	cr_assert_eq(probe_engine_run_copy(a, b, &j, NULL, NULL, &res), 0);
	cr_expect_eq(res.stop, PROBE_STOP_DONE);
	cr_expect_eq(res.wr.bytes, 20 * MiB);
	cr_expect_gt(res.rd.bytes, 0);
	for (uint64_t k = 0; k < 16; k++)
		cr_expect_eq(block_sum(a, k * MiB), sa[k], "A block %" PRIu64 " changed", k);
	for (uint64_t k = 0; k < 32; k++)
		cr_expect_eq(block_sum(b, k * MiB) != sb[k], k < 20, "B block %" PRIu64, k);
	probe_result_clear(&res);
	/* Only COPY jobs run across two targets. */
	j.op = PROBE_OP_WRITE;
	cr_expect_eq(probe_engine_run_copy(a, b, &j, NULL, NULL, &res), -EINVAL);
	close(a);
	close(b);
}

Test(probe_engine, io_uring_copy_to_reads_one_writes_the_other, .init = setup, .fini = teardown)
{
	check_copy_to(PROBE_ENGINE_AUTO);
}

Test(probe_engine, psync_copy_to_reads_one_writes_the_other, .init = setup, .fini = teardown)
{
	check_copy_to(PROBE_ENGINE_PSYNC);
}
