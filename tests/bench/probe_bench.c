/* SPDX-License-Identifier: MIT */
/*
 * nvmond-probe-bench: run the probe engine once on a file or block device, the
 * way tests/bench/probe-bench.sh compares it with fio. Prints one JSON line:
 * MB/s, IOPS and CPU time.
 *
 *   nvmond-probe-bench PATH RW BS DEPTH SIZE SECONDS [MAX_BYTES]
 *   RW: read, write, randread, randwrite, copy (read first half, write second),
 *       copy-to (PATH is "A,B": read SIZE bytes of A while writing SIZE of B),
 *       group-read, group-write (PATH is "A,B,…": one thread per file, started
 *       together at the group runs' barrier, as a group run's phase; prints the
 *       members' figures and the total)
 *   PLAIN_RING=1 in the environment: no COOP/DEFER taskrun ring flags (fio 3.33
 *   asks for them too, with SINGLE_ISSUER: strace).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvmond/probe/probe.h"
#include "nvmond/probe/probe_group.h"

/* One member of a group-read/group-write: its file, its engine run. */
struct member {
	const char *path;
	struct probe_job j;
	struct probe_group_sync *sync;
	int64_t late_ns;
	int r;
	pthread_t thread_id;
	struct probe_result res;
};

static void *member_thread(void *arg)
{
	struct member *m = arg;
	int fd = open(m->path,
		      (m->j.op == PROBE_OP_READ ? O_RDONLY : O_RDWR) | O_DIRECT | O_CLOEXEC);

	/* Every member opens its target first, then meets the others (probe_run.c's
	 * phase_start hook), then runs its phase. */
	if (fd < 0) {
		m->r = -1;
		probe_group_sync_leave(m->sync);
		return NULL;
	}
	m->late_ns = probe_group_sync_arrive(m->sync);
	m->r = probe_engine_run(fd, &m->j, NULL, NULL, &m->res);
	probe_group_sync_leave(m->sync);
	close(fd);
	return NULL;
}

/* group-read, group-write: the files in @paths (comma-separated) together. */
static int run_group(char *paths, const struct probe_job *j)
{
	struct member mv[PROBE_GROUP_MAX] = {0};
	struct probe_group_sync sync;
	size_t n = 0, i;
	double total = 0;
	int status = 0;

	for (char *p = strtok(paths, ","); p && n < PROBE_GROUP_MAX; p = strtok(NULL, ","))
		mv[n++] = (struct member){.path = p, .j = *j, .sync = &sync};
	if (n < 2 || probe_group_sync_init(&sync, n) < 0) {
		fprintf(stderr, "group: PATH is A,B[,…]\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		if (pthread_create(&mv[i].thread_id, NULL, member_thread, &mv[i]) != 0) {
			for (size_t k = i; k < n; k++) /* the started ones stop waiting */
				probe_group_sync_leave(&sync);
			break;
		}
	}
	for (size_t k = 0; k < i; k++)
		pthread_join(mv[k].thread_id, NULL);
	if (i < n) {
		fprintf(stderr, "group: cannot start a thread\n");
		return 1;
	}
	probe_group_sync_destroy(&sync);
	printf("{\"members\":[");
	for (i = 0; i < n; i++) {
		struct probe_result *res = &mv[i].res;
		double secs = (double)res->elapsed_ns / 1e9;
		uint64_t bytes = res->rd.bytes + res->wr.bytes, ios = res->rd.ios + res->wr.ios;

		if (mv[i].r < 0) {
			fprintf(stderr, "%s: %s\n", mv[i].path,
				mv[i].r == -1 ? "cannot open" : strerror(-mv[i].r));
			status = 1;
			continue;
		}
		total += (double)bytes / secs / 1e6;
		printf("%s{\"path\":\"%s\",\"secs\":%.3f,\"mb_per_s\":%.1f,\"ios\":%llu,"
		       "\"cpu_s\":%.3f,\"skew_ms\":%.3f}",
		       i ? "," : "", mv[i].path, secs, (double)bytes / secs / 1e6,
		       (unsigned long long)ios, (double)(res->cpu_user_us + res->cpu_sys_us) / 1e6,
		       (double)mv[i].late_ns / 1e6);
		probe_result_clear(res);
	}
	printf("],\"mb_per_s\":%.1f}\n", total);
	return status;
}

int main(int argc, char **argv)
{
	struct probe_job j = {.interval_ms = PROBE_INTERVAL_MS};
	struct probe_result res;
	const char *rw;
	int fd, r;

	if (argc < 7) {
		fprintf(stderr, "usage: %s PATH RW BS DEPTH SIZE SECONDS [MAX_BYTES]\n", argv[0]);
		return 2;
	}
	rw = argv[2];
	j.block_size = (uint32_t)strtoul(argv[3], NULL, 0);
	j.depth = (uint32_t)strtoul(argv[4], NULL, 0);
	j.length = strtoull(argv[5], NULL, 0);
	j.duration_ms = (int64_t)(atof(argv[6]) * 1000);
	j.max_bytes = argc > 7 ? strtoull(argv[7], NULL, 0) : 0;
	j.random = strncmp(rw, "rand", 4) == 0;
	/* PLAIN_RING=1: set the ring up without the taskrun flags. */
	j.plain_ring = getenv("PLAIN_RING") && strcmp(getenv("PLAIN_RING"), "1") == 0;
	if (strncmp(rw, "group-", 6) == 0) {
		j.op = strcmp(rw, "group-write") == 0 ? PROBE_OP_WRITE : PROBE_OP_READ;
		return run_group(argv[1], &j);
	}
	if (strcmp(rw, "copy-to") == 0) {
		/* Two files, as probe_run.c runs copy-to on two drives' probe areas. */
		char *b = strchr(argv[1], ',');
		int rd_fd, wr_fd;

		if (!b) {
			fprintf(stderr, "copy-to: PATH is A,B\n");
			return 2;
		}
		*b++ = '\0';
		j.op = PROBE_OP_COPY;
		j.wr_length = j.length;
		rd_fd = open(argv[1], O_RDONLY | O_DIRECT | O_CLOEXEC);
		wr_fd = open(b, O_RDWR | O_DIRECT | O_CLOEXEC);
		if (rd_fd < 0 || wr_fd < 0) {
			perror(rd_fd < 0 ? argv[1] : b);
			return 1;
		}
		r = probe_engine_run_copy(rd_fd, wr_fd, &j, NULL, NULL, &res);
		close(rd_fd);
		close(wr_fd);
		goto ran;
	}
	if (strcmp(rw, "copy") == 0) {
		j.op = PROBE_OP_COPY;
		j.length /= 2;
		j.wr_offset = j.length;
		j.wr_length = j.length;
	} else {
		j.op = strstr(rw, "write") ? PROBE_OP_WRITE : PROBE_OP_READ;
	}
	fd = open(argv[1], (j.op == PROBE_OP_READ ? O_RDONLY : O_RDWR) | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	r = probe_engine_run(fd, &j, NULL, NULL, &res);
	close(fd);
ran:
	if (r < 0) {
		fprintf(stderr, "probe: %s\n", strerror(-r));
		return 1;
	}
	double secs = (double)res.elapsed_ns / 1e9;
	/* CPU of the submitting thread, as fio counts its jobs (RUSAGE_THREAD);
	 * cpu_all_s: the whole process while the I/O ran, io_uring's workers included
	 * (buffer set-up excluded). */
	double cpu = (double)(res.cpu_user_us + res.cpu_sys_us) / 1e6;
	double cpu_all = (double)res.cpu_proc_us / 1e6;
	uint64_t bytes = res.rd.bytes + res.wr.bytes, ios = res.rd.ios + res.wr.ios;
	printf("{\"engine\":\"%s\",\"secs\":%.3f,\"mb_per_s\":%.1f,\"iops\":%.0f,\"cpu_s\":%.3f,"
	       "\"ios\":%llu,\"rd_mb_per_s\":%.1f,\"wr_mb_per_s\":%.1f,\"p50_us\":%.1f,"
	       "\"p99_us\":%.1f,\"cpu_all_s\":%.3f}\n",
	       res.engine, secs, (double)bytes / secs / 1e6, (double)ios / secs, cpu,
	       (unsigned long long)ios, (double)res.rd.bytes / secs / 1e6,
	       (double)res.wr.bytes / secs / 1e6,
	       (double)(res.wr.ios ? res.wr.lat_p50_ns : res.rd.lat_p50_ns) / 1e3,
	       (double)(res.wr.ios ? res.wr.lat_p99_ns : res.rd.lat_p99_ns) / 1e3, cpu_all);
	probe_result_clear(&res);
	return 0;
}
