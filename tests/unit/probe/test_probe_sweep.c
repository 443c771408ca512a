/* SPDX-License-Identifier: MIT */
/*
 * The transfer-size sweep: its preset table, the job of each point, and the
 * engine at the sweep's extremes (512 B and 64 MiB transfers) on a real file
 * with O_DIRECT. Each case names the rule it checks (docs/probes.md, Sweep).
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
#include <unistd.h>

#include "nvmond/probe/probe.h"
#include "nvmond/probe/probe_sweep.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)

/* "sequential read and write at every power-of-two transfer size from 512 B
 * to 64 MiB; reads first, then writes, each by growing size" */
Test(probe_sweep, preset_table)
{
	enum probe_preset_id id;
	const struct probe_preset *p = probe_preset_find("sweep", &id);

	cr_assert_not_null(p);
	cr_expect_eq(id, PROBE_SWEEP);
	cr_expect(p->sweep && !p->sustained);
	cr_assert_eq(p->n_phases, 2 * PROBE_SWEEP_POINTS);
	cr_expect_leq(p->n_phases, PROBE_MAX_PHASES);
	for (size_t k = 0; k < p->n_phases; k++) {
		size_t i = k % PROBE_SWEEP_POINTS;
		cr_expect_eq(p->phase[k].op,
			     k < PROBE_SWEEP_POINTS ? PROBE_OP_READ : PROBE_OP_WRITE, "phase %zu",
			     k);
		cr_expect_not(p->phase[k].random);
		cr_expect_eq(p->phase[k].block_size, 512u << i, "phase %zu", k);
		cr_expect_eq(p->phase[k].depth, PROBE_SWEEP_DEPTH);
		cr_expect_lt(strlen(p->phase[k].name), 16);
	}
	cr_expect_eq(p->phase[PROBE_SWEEP_POINTS - 1].block_size, PROBE_MAX_BLOCK);
	cr_expect_eq(p->phase[0].block_size, PROBE_MIN_BLOCK);
}

/* The names in messages come from the table, in its order, as the texts that typed
 * them out said them: the API's "preset: one of …" (docs/api.md), `nvmond probe`'s
 * "unknown preset" and a group's, which runs neither copy-to nor a study. */
Test(probe_sweep, preset_names_from_the_table)
{
	char b[PROBE_PRESET_NAMES_MAX];

	cr_expect_str_eq(probe_preset_names(b, sizeof(b), 0),
			 "seq1m-q8, seq1m-q1, rnd4k-q32, rnd4k-q1, copy-self, sustained-write, "
			 "sweep, cache-recovery, copy-to");
	cr_expect_str_eq(probe_preset_names(b, sizeof(b), PROBE_NAMES_NO_COPY_TO),
			 "seq1m-q8, seq1m-q1, rnd4k-q32, rnd4k-q1, copy-self, sustained-write, "
			 "sweep, cache-recovery");
	cr_expect_str_eq(
		probe_preset_names(b, sizeof(b), PROBE_NAMES_NO_COPY_TO | PROBE_NAMES_NO_STUDY),
		"seq1m-q8, seq1m-q1, rnd4k-q32, rnd4k-q1, copy-self, sustained-write, "
		"sweep");
	/* A short buffer is cut, terminated. */
	cr_expect_str_eq(probe_preset_names(b, 10, 0), "seq1m-q8,");
}

/* "each point runs at most 1.5 s (or phase_duration) and 1 GiB; a write one
 * 256 MiB, and at most the probe area and what the budget leaves" */
Test(probe_sweep, jobs_per_point)
{
	const struct probe_preset *p = probe_preset_get(PROBE_SWEEP);
	struct probe_job j;

	/* A read point: the time and byte limits, over the whole area. */
	probe_preset_job(p, 3, 8 * GiB, 5000, 100 * GiB, &j);
	cr_expect_eq(j.op, PROBE_OP_READ);
	cr_expect_eq(j.block_size, 4096);
	cr_expect_eq(j.duration_ms, PROBE_SWEEP_POINT_MS);
	cr_expect_eq(j.max_bytes, PROBE_SWEEP_POINT_BYTES);
	cr_expect_eq(j.length, 8 * GiB);
	/* A shorter phase_duration wins (tests, quick looks). */
	probe_preset_job(p, 3, 8 * GiB, 600, 100 * GiB, &j);
	cr_expect_eq(j.duration_ms, 600);
	/* A write point: the point's limit, then the area, then the budget left. */
	size_t w64 = 2 * PROBE_SWEEP_POINTS - 1;
	probe_preset_job(p, w64, 8 * GiB, 5000, 100 * GiB, &j);
	cr_expect_eq(j.op, PROBE_OP_WRITE);
	cr_expect_eq(j.block_size, 64 * MiB);
	cr_expect_eq(j.max_bytes, PROBE_SWEEP_WRITE_BYTES);
	cr_expect_eq(PROBE_SWEEP_WRITE_BYTES, 256 * MiB, "ATTO's default total length");
	probe_preset_job(p, w64, 128 * MiB, 5000, 100 * GiB, &j);
	cr_expect_eq(j.max_bytes, 128 * MiB);
	probe_preset_job(p, w64, 8 * GiB, 5000, 64 * MiB, &j);
	cr_expect_eq(j.max_bytes, 64 * MiB);
	/* Other presets keep their rules: seq1m's write covers the area once. */
	probe_preset_job(probe_preset_get(PROBE_SEQ1M_Q8), 1, 8 * GiB, 5000, 100 * GiB, &j);
	cr_expect_eq(j.max_bytes, 8 * GiB);
	cr_expect_eq(j.duration_ms, 5000);
}

/* "a multiple of the target's logical block size (512 minimum), at most 64 MiB" */
Test(probe_sweep, block_size_limits)
{
	struct probe_result res;
	struct probe_job j = {.op = PROBE_OP_READ, .depth = 1, .length = GiB, .duration_ms = 10};
	uint32_t bad[] = {0, 256, 1000, 4096 + 100, PROBE_MAX_BLOCK + 512, 128 * MiB};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		j.block_size = bad[i];
		cr_expect_eq(probe_engine_run(-1, &j, NULL, NULL, &res), -EINVAL, "%u", bad[i]);
	}
	j.block_size = 4096;
	j.offset = 512 + 256; /* not a multiple of any logical block size */
	cr_expect_eq(probe_engine_run(-1, &j, NULL, NULL, &res), -EINVAL);
}

static char dir[PATH_MAX];

/* A temp dir on a filesystem that supports O_DIRECT (not tmpfs). */
static void setup(void)
{
	const char *bases[] = {getenv("NVMOND_PROBE_TMP"), getenv("TMPDIR"), "/var/tmp", "/tmp"};

	dir[0] = '\0';
	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]) && !dir[0]; i++) {
		if (!bases[i])
			continue;
		snprintf(dir, sizeof(dir), "%s/nvmond-sweep-test-XXXXXX", bases[i]);
		if (!mkdtemp(dir)) {
			dir[0] = '\0';
			continue;
		}
		char f[PATH_MAX + 16];
		snprintf(f, sizeof(f), "%s/odirect", dir);
		int t = open(f, O_RDWR | O_CREAT | O_DIRECT, 0600);
		if (t >= 0) {
			close(t);
			unlink(f);
		} else {
			rmdir(dir);
			dir[0] = '\0';
		}
	}
	if (!dir[0])
		cr_skip_test("no filesystem with O_DIRECT to probe on");
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	if (!dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

/* A file of @size bytes of zeros, opened O_DIRECT. */
static int make_file(uint64_t size)
{
	char f[PATH_MAX + 16];

	snprintf(f, sizeof(f), "%s/probe", dir);
	int fd = open(f, O_RDWR | O_CREAT | O_DIRECT, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, (off_t)size), 0);
	cr_assert_eq(fallocate(fd, 0, 0, (off_t)size), 0);
	return fd;
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

/* Write then read @n transfers of @bs at @depth; the kernel sees exactly them. */
static void transfers(int fd, uint32_t bs, uint32_t depth, uint64_t n, uint64_t area)
{
	struct probe_result res;
	struct probe_job j = {.op = PROBE_OP_WRITE,
			      .block_size = bs,
			      .depth = depth,
			      .length = area,
			      .max_bytes = n * bs,
			      .duration_ms = 60000,
			      .seed = 7};
	uint64_t io0 = proc_write_bytes();

	cr_assert_eq(probe_engine_run(fd, &j, NULL, NULL, &res), 0, "%u B", bs);
	cr_expect_eq(res.stop, PROBE_STOP_DONE);
	cr_expect_eq(res.wr.ios, n, "%u B: %" PRIu64, bs, res.wr.ios);
	cr_expect_eq(res.wr.bytes, n * bs);
	/*
	 * The kernel saw the transfers: write_bytes counts each bio as it is
	 * submitted, and under load a piece of a transfer that io_uring tried
	 * without blocking and then issued again from its worker may be counted
	 * twice (seen: one 4 KiB page of 384 MiB, and 16 KiB in an ASan run
	 * beside another test). So: at least every byte, and at most 64 KiB more,
	 * far less than one transfer.
	 */
	uint64_t io1 = proc_write_bytes();
	cr_expect(io1 - io0 >= n * bs && io1 - io0 <= n * bs + 64 * 1024,
		  "the kernel saw the transfers: %" PRIu64 " bytes for %" PRIu64, io1 - io0,
		  n * bs);
	cr_expect(res.wr.lat_p50_ns > 0 && res.wr.lat_p50_ns <= res.wr.lat_p99_ns &&
		  res.wr.lat_p99_ns <= res.wr.lat_p999_ns && res.wr.lat_p999_ns > 0);
	cr_expect_geq(res.wr.lat_max_ns, res.wr.lat_p50_ns / 2);
	probe_result_clear(&res);

	j.op = PROBE_OP_READ;
	cr_assert_eq(probe_engine_run(fd, &j, NULL, NULL, &res), 0, "%u B", bs);
	cr_expect_eq(res.rd.ios, n);
	cr_expect_eq(res.rd.bytes, n * bs);
	cr_expect_eq(res.wr.bytes, 0);
	probe_result_clear(&res);
}

/* The sweep's smallest point: 512-byte transfers where the target takes them. */
Test(probe_sweep, engine_512_byte_transfers, .init = setup, .fini = teardown)
{
	int fd = make_file(4 * MiB);
	uint32_t align = 0;

	cr_assert_eq(probe_target_align(fd, &align), 0);
	cr_expect(align >= 512 && (align & (align - 1)) == 0, "%u", align);
	if (align > 512) {
		struct probe_result res;
		struct probe_job j = {.op = PROBE_OP_READ,
				      .block_size = 512,
				      .depth = 4,
				      .length = 4 * MiB,
				      .duration_ms = 100};
		/* Refused up front, as the target would refuse each transfer. */
		cr_expect_eq(probe_engine_run(fd, &j, NULL, NULL, &res), -EINVAL);
		close(fd);
		cr_skip_test("%s takes O_DIRECT transfers of %u B at least", dir, align);
	}
	transfers(fd, 512, 4, 2000, 4 * MiB);
	/* Page-sized and odd multiples of 512 as well: every buffer stays aligned. */
	transfers(fd, 1536, 3, 100, 4 * MiB);
	close(fd);
}

/* The sweep's largest point: 64 MiB transfers, several in flight. */
Test(probe_sweep, engine_64_mib_transfers, .init = setup, .fini = teardown)
{
	int fd = make_file(256 * MiB);

	transfers(fd, 64 * MiB, 2, 6, 256 * MiB);
	close(fd);
}

/* The API's points: by direction, by growing size, with MB/s from the phase. */
Test(probe_sweep, points_json)
{
	struct probe_phase_row ph[3] = {
		{.phase = 0,
		 .name = "read 4K",
		 .op = "read",
		 .block_size = 4096,
		 .depth = 4,
		 .stop = "done",
		 .elapsed_ms = 1000,
		 .rd = {.bytes = 400000000,
			.ios = 97656,
			.lat_p50_ns = 40000,
			.lat_p99_ns = 90000,
			.lat_p999_ns = 120000,
			.lat_max_ns = 900000}},
		{.phase = 1,
		 .name = "read 8K",
		 .op = "read",
		 .block_size = 8192,
		 .depth = 4,
		 .stop = "done",
		 .elapsed_ms = 500,
		 .rd = {.bytes = 400000000, .ios = 48828}},
		{.phase = 2,
		 .name = "write 4K",
		 .op = "write",
		 .block_size = 4096,
		 .depth = 4,
		 .stop = "done",
		 .elapsed_ms = 2000,
		 .wr = {.bytes = 200000000, .ios = 48828}},
	};
	json_t *o = probe_sweep_json(ph, 3);

	cr_assert_not_null(o);
	cr_expect_eq(json_integer_value(json_object_get(o, "depth")), 4);
	json_t *rd = json_object_get(o, "read"), *wr = json_object_get(o, "write");
	cr_assert_eq(json_array_size(rd), 2);
	cr_assert_eq(json_array_size(wr), 1);
	json_t *p = json_array_get(rd, 0);
	cr_expect_eq(json_integer_value(json_object_get(p, "block_size")), 4096);
	cr_expect_float_eq(json_number_value(json_object_get(p, "mb_s")), 400.0, 1e-9);
	cr_expect_float_eq(json_number_value(json_object_get(p, "iops")), 97656.0, 1e-9);
	cr_expect_float_eq(json_number_value(json_object_get(p, "lat_p50_us")), 40.0, 1e-9);
	cr_expect_float_eq(json_number_value(json_object_get(p, "lat_p999_us")), 120.0, 1e-9);
	cr_expect_float_eq(json_number_value(json_object_get(p, "lat_max_us")), 900.0, 1e-9);
	cr_expect_float_eq(json_number_value(json_object_get(json_array_get(rd, 1), "mb_s")), 800.0,
			   1e-9);
	cr_expect_float_eq(json_number_value(json_object_get(json_array_get(wr, 0), "mb_s")), 100.0,
			   1e-9);
	json_decref(o);
}
