/* SPDX-License-Identifier: MIT */
/*
 * The probe engine: io_uring through liburing, else pread/pwrite. See probe.h.
 *
 * Each slot is one block-sized, page-aligned buffer and at most one I/O in
 * flight. A slot is refilled as soon as its completion is reaped, so the queue
 * stays at depth until the job stops issuing; then the engine drains.
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <liburing.h>

#include "nvmond/probe/probe.h"

#define NS_PER_MS 1000000LL
#define ALIGN	  4096
#define HUGE	  (2u << 20)
/* Small transfers gain nothing from huge pages, and many of them in flight on
 * one huge page contend on its reference count. */
#define HUGE_MIN_BLOCK (64u << 10)

void probe_hist_add(struct probe_hist *h, uint64_t ns)
{
	size_t idx;

	if (ns < PROBE_HIST_SUB) {
		idx = (size_t)ns;
	} else {
		unsigned msb = 63u - (unsigned)__builtin_clzll(ns); /* >= 5 */
		unsigned oct = msb - 4;				    /* 1 … */
		size_t sub = (size_t)(ns >> (msb - 5)) & (PROBE_HIST_SUB - 1);
		idx = oct >= PROBE_HIST_OCT ? PROBE_HIST_NBUCKET - 1 : oct * PROBE_HIST_SUB + sub;
	}
	h->bucket[idx]++;
	h->count++;
}

/* The middle of bucket @idx. */
static uint64_t hist_value(size_t idx)
{
	size_t oct = idx / PROBE_HIST_SUB, sub = idx % PROBE_HIST_SUB;

	if (oct == 0)
		return sub;
	unsigned msb = (unsigned)oct + 4;
	uint64_t lo = (1ull << msb) | ((uint64_t)sub << (msb - 5));
	return lo + (1ull << (msb - 5)) / 2;
}

uint64_t probe_hist_quantile(const struct probe_hist *h, double q)
{
	uint64_t want, seen = 0;

	if (h->count == 0)
		return 0;
	want = (uint64_t)(q * (double)h->count);
	if (want >= h->count)
		want = h->count - 1;
	for (size_t i = 0; i < PROBE_HIST_NBUCKET; i++) {
		seen += h->bucket[i];
		if (seen > want)
			return hist_value(i);
	}
	return hist_value(PROBE_HIST_NBUCKET - 1);
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

void probe_fill_random(void *buf, size_t len, uint64_t *state)
{
	uint8_t *p = buf;

	if (*state == 0)
		*state = 0x9e3779b97f4a7c15ull;
	while (len >= 8) {
		uint64_t x = xorshift(state);
		memcpy(p, &x, 8);
		p += 8;
		len -= 8;
	}
	while (len--)
		*p++ = (uint8_t)xorshift(state);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t tv_us(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

struct slot {
	void *buf;
	int64_t t0;
	uint64_t off;
	bool write;
};

/* Where the next I/O of one direction goes. */
struct cursor {
	uint64_t offset, length, next;
	bool random;
	uint32_t bs;
	uint64_t rng;
};

struct run {
	const struct probe_job *j;
	struct cursor rd, wr;
	struct probe_hist *rd_hist, *wr_hist;
	uint64_t rd_bytes, wr_bytes, rd_ios, wr_ios;
	uint64_t wr_issued, rd_issued;
	uint64_t lease; /* write bytes granted by the job's lease so far */
	bool io_failed; /* a transfer failed: the result is still reported */
	uint64_t lat_max_rd, lat_max_wr;
	int64_t t_start, deadline, next_tick, interval_ns;
	uint64_t tick_rd, tick_wr;
	struct probe_point *series;
	size_t n_series;
	bool stopping;
	enum probe_stop stop;
	probe_tick_fn tick;
	void *ctx;
};

static uint64_t cursor_next(struct cursor *c)
{
	uint64_t off;

	if (c->random) {
		uint64_t blocks = c->length / c->bs;
		off = c->offset + (xorshift(&c->rng) % blocks) * c->bs;
	} else {
		off = c->offset + c->next;
		c->next += c->bs;
		if (c->next + c->bs > c->length)
			c->next = 0;
	}
	return off;
}

static bool byte_limit_reached(const struct run *rn)
{
	const struct probe_job *j = rn->j;

	if (!j->max_bytes)
		return false;
	if (j->op == PROBE_OP_READ)
		return rn->rd_issued >= j->max_bytes;
	return rn->wr_issued >= j->max_bytes;
}

/*
 * The phase's clock starts here, when the engine is ready to submit its first
 * I/O: the ring's set-up and buffer registration (1-2 ms for 64 MiB
 * transfers) are not its I/O time, as fio starts its runtime after its own
 * set-up. The duration limit and the series count from here too.
 */
static void clock_start(struct run *rn)
{
	rn->t_start = now_ns();
	rn->next_tick = rn->t_start + rn->interval_ns;
	rn->deadline = rn->j->duration_ms > 0 ? rn->t_start + rn->j->duration_ms * NS_PER_MS : 0;
}

/* May another I/O be issued now? Updates rn->stopping. */
static bool may_issue(struct run *rn, int64_t now)
{
	if (rn->stopping)
		return false;
	if ((rn->deadline && now >= rn->deadline) || byte_limit_reached(rn)) {
		rn->stopping = true;
		return false;
	}
	return true;
}

/*
 * May the next write be submitted under the job's lease? Asks for more when
 * it would cross the grant; a refusal stops the job (an error aborts it).
 */
static bool write_leased(struct run *rn)
{
	const struct probe_job *j = rn->j;
	uint64_t want = rn->wr_issued + j->block_size, granted = rn->lease;

	if (!j->lease || want <= rn->lease)
		return true;
	int r = j->lease(j->lease_ctx, want, &granted);
	if (r < 0) {
		rn->stopping = true;
		rn->stop = PROBE_STOP_ABORTED;
		return false;
	}
	if (granted > rn->lease)
		rn->lease = granted;
	if (rn->lease < want) {
		rn->stopping = true; /* the budget is spent */
		return false;
	}
	return true;
}

static int series_push(struct run *rn, int64_t now)
{
	if (rn->n_series % 1024 == 0) {
		if (rn->n_series >= PROBE_SERIES_MAX)
			return 0;
		struct probe_point *v =
			realloc(rn->series, (rn->n_series + 1024) * sizeof(*rn->series));
		if (!v)
			return -ENOMEM;
		rn->series = v;
	}
	rn->series[rn->n_series++] = (struct probe_point){
		.t_ms = (now - rn->t_start) / NS_PER_MS,
		.rd_bytes = rn->rd_bytes - rn->tick_rd,
		.wr_bytes = rn->wr_bytes - rn->tick_wr,
	};
	/* Two intervals may end in the same millisecond only at the very end. */
	if (rn->n_series > 1 &&
	    rn->series[rn->n_series - 1].t_ms <= rn->series[rn->n_series - 2].t_ms)
		rn->series[rn->n_series - 1].t_ms = rn->series[rn->n_series - 2].t_ms + 1;
	rn->tick_rd = rn->rd_bytes;
	rn->tick_wr = rn->wr_bytes;
	return 0;
}

/* End of an interval: record it and ask the callback. */
static int run_tick(struct run *rn, int64_t now)
{
	int r;

	while (now >= rn->next_tick) {
		r = series_push(rn, rn->next_tick);
		if (r < 0)
			return r;
		rn->next_tick += rn->interval_ns;
		/* Also while draining: a cancel then still makes the phase aborted. */
		if (rn->tick && rn->stop != PROBE_STOP_ABORTED) {
			int t = rn->tick(rn->ctx, rn->series, rn->n_series);
			if (t == 1 && !rn->stopping) {
				rn->stopping = true;
				rn->stop = PROBE_STOP_EARLY;
			} else if (t == 2) {
				rn->stopping = true;
				rn->stop = PROBE_STOP_ABORTED;
			}
		}
	}
	return 0;
}

static void account(struct run *rn, struct slot *s, int64_t now)
{
	uint64_t lat = (uint64_t)(now - s->t0);

	if (s->write) {
		rn->wr_bytes += rn->j->block_size;
		rn->wr_ios++;
		probe_hist_add(rn->wr_hist, lat);
		if (lat > rn->lat_max_wr)
			rn->lat_max_wr = lat;
	} else {
		rn->rd_bytes += rn->j->block_size;
		rn->rd_ios++;
		probe_hist_add(rn->rd_hist, lat);
		if (lat > rn->lat_max_rd)
			rn->lat_max_rd = lat;
	}
}

static void slot_plan(struct run *rn, struct slot *s)
{
	s->off = cursor_next(s->write ? &rn->wr : &rn->rd);
	if (s->write)
		rn->wr_issued += rn->j->block_size;
	else
		rn->rd_issued += rn->j->block_size;
}

/*
 * How SQEs name the file and the buffers. Registered ones save the kernel a
 * file lookup and a page pinning per I/O; the plain fd and addresses serve
 * when the kernel refuses to register them (RLIMIT_MEMLOCK, old kernels).
 */
struct ring_io {
	struct io_uring ring;
	int fd, wr_fd; /* read and write files: the registered indexes when fixed_file */
	bool fixed_file, fixed_bufs;
};

static void ring_register(struct ring_io *io, int fd, int wr_fd, const struct slot *slots,
			  size_t n_slots, uint32_t bs)
{
	struct iovec *iov = calloc(n_slots, sizeof(*iov));
	int files[2] = {fd, wr_fd};

	io->fd = fd;
	io->wr_fd = wr_fd;
	if (iov) {
		for (size_t i = 0; i < n_slots; i++)
			iov[i] = (struct iovec){.iov_base = slots[i].buf, .iov_len = bs};
		io->fixed_bufs = io_uring_register_buffers(&io->ring, iov, (unsigned)n_slots) == 0;
		free(iov);
	}
	if (io_uring_register_files(&io->ring, files, wr_fd == fd ? 1 : 2) == 0) {
		io->fd = 0;
		io->wr_fd = wr_fd == fd ? 0 : 1;
		io->fixed_file = true;
	}
	/* io_uring_enter() without a file lookup either; harmless when refused. */
	(void)io_uring_register_ring_fd(&io->ring);
}

static void slot_prep(struct ring_io *io, struct io_uring_sqe *sqe, struct slot *s, unsigned idx,
		      uint32_t bs)
{
	if (io->fixed_bufs && s->write)
		io_uring_prep_write_fixed(sqe, io->wr_fd, s->buf, bs, s->off, (int)idx);
	else if (io->fixed_bufs)
		io_uring_prep_read_fixed(sqe, io->fd, s->buf, bs, s->off, (int)idx);
	else if (s->write)
		io_uring_prep_write(sqe, io->wr_fd, s->buf, bs, s->off);
	else
		io_uring_prep_read(sqe, io->fd, s->buf, bs, s->off);
	if (io->fixed_file)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, s);
}

static int run_uring(int fd, int wr_fd, struct run *rn, struct slot *slots, size_t n_slots)
{
	struct ring_io io = {0};
	uint32_t bs = rn->j->block_size;
	unsigned *idle; /* the slots with nothing in flight, a stack */
	size_t n_idle = n_slots, inflight = 0;
	int r;

	idle = calloc(n_slots, sizeof(*idle));
	if (!idle)
		return -ENOMEM;
	for (size_t i = 0; i < n_slots; i++)
		idle[i] = (unsigned)(n_slots - 1 - i); /* slot 0 on top */
	/*
	 * This thread alone submits and reaps: completions need not interrupt it
	 * (COOP_TASKRUN) and can wait until it asks for them (DEFER_TASKRUN, 6.1).
	 * Older kernels refuse the flags: retry with fewer.
	 */
	static const unsigned flags[] = {
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_COOP_TASKRUN,
		0,
	};
	r = -EINVAL;
	for (size_t i = rn->j->plain_ring ? 2 : 0;
	     i < sizeof(flags) / sizeof(flags[0]) && r == -EINVAL; i++)
		r = io_uring_queue_init((unsigned)n_slots, &io.ring, flags[i]);
	if (r < 0) {
		free(idle);
		return r == -ENOMEM ? r : -ENOSYS;
	}
	ring_register(&io, fd, wr_fd, slots, n_slots, bs);
	clock_start(rn);
	for (;;) {
		int64_t now = now_ns();
		bool queued = false;
		while (n_idle > 0 && may_issue(rn, now)) {
			/*
			 * Hand each I/O to the kernel as soon as another one follows
			 * (the last goes with the wait below), as fio does: a batch
			 * submitted at once reaches the device at once, completes at
			 * once and keeps the queue running in bursts, fewer I/Os really
			 * in flight (-20 % IOPS at 4 KiB, depth 32, on virtio-blk).
			 */
			if (slots[idle[n_idle - 1]].write && !write_leased(rn))
				break;
			if (queued) /* on failure, the wait below submits it and fails */
				(void)io_uring_submit(&io.ring);
			struct io_uring_sqe *sqe = io_uring_get_sqe(&io.ring);
			if (!sqe)
				break;
			queued = true;
			unsigned idx = idle[--n_idle];
			struct slot *s = &slots[idx];
			slot_plan(rn, s);
			slot_prep(&io, sqe, s, idx, bs);
			s->t0 = now;
			inflight++;
		}
		if (inflight == 0)
			break;
		struct io_uring_cqe *cqe;
		r = io_uring_submit_and_wait(&io.ring, 1);
		if (r < 0 && r != -EINTR)
			goto out;
		unsigned head, seen = 0;
		now = now_ns();
		io_uring_for_each_cqe(&io.ring, head, cqe)
		{
			struct slot *s = io_uring_cqe_get_data(cqe);
			seen++;
			inflight--;
			idle[n_idle++] = (unsigned)(s - slots);
			if (cqe->res != (int)bs) {
				r = cqe->res < 0 ? cqe->res : -EIO;
				rn->stopping = true;
				rn->io_failed = true;
				io_uring_cq_advance(&io.ring, seen);
				/* Drain what is still in flight before failing. */
				while (inflight > 0 && io_uring_wait_cqe(&io.ring, &cqe) == 0) {
					io_uring_cqe_seen(&io.ring, cqe);
					inflight--;
				}
				goto out;
			}
			account(rn, s, now);
		}
		io_uring_cq_advance(&io.ring, seen);
		r = run_tick(rn, now);
		if (r < 0)
			goto out;
	}
	r = 0;
out:
	io_uring_queue_exit(&io.ring);
	free(idle);
	return r;
}

static int run_psync(int fd, int wr_fd, struct run *rn, struct slot *slots, size_t n_slots)
{
	/* One I/O at a time; copy alternates a read and a write. */
	clock_start(rn);
	for (size_t i = 0;; i = (i + 1) % n_slots) {
		struct slot *s = &slots[i];
		int64_t now = now_ns();
		ssize_t n;

		if (!may_issue(rn, now) || (s->write && !write_leased(rn)))
			return 0;
		slot_plan(rn, s);
		s->t0 = now;
		if (s->write)
			n = pwrite(wr_fd, s->buf, rn->j->block_size, (off_t)s->off);
		else
			n = pread(fd, s->buf, rn->j->block_size, (off_t)s->off);
		if (n != (ssize_t)rn->j->block_size) {
			rn->io_failed = true;
			return n < 0 ? -errno : -EIO;
		}
		now = now_ns();
		account(rn, s, now);
		int r = run_tick(rn, now);
		if (r < 0)
			return r;
	}
}

int probe_target_align(int fd, uint32_t *ret_align)
{
	struct statx stx;
	uint32_t a = ALIGN;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_DIOALIGN, &stx) < 0)
		return -errno;
	if (S_ISBLK(stx.stx_mode)) {
		int lbs = 0;
		if (ioctl(fd, BLKSSZGET, &lbs) < 0)
			return -errno;
		a = (uint32_t)lbs;
	} else if ((stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align) {
		a = stx.stx_dio_offset_align;
	}
	*ret_align = a < PROBE_MIN_BLOCK ? PROBE_MIN_BLOCK : a;
	return 0;
}

static int job_check(const struct probe_job *j)
{
	if (j->block_size < PROBE_MIN_BLOCK || j->block_size % PROBE_MIN_BLOCK ||
	    j->block_size > PROBE_MAX_BLOCK)
		return -EINVAL;
	if (j->depth == 0 || j->depth > PROBE_MAX_DEPTH)
		return -EINVAL;
	if (j->offset % PROBE_MIN_BLOCK || j->length < j->block_size)
		return -EINVAL;
	if (j->op == PROBE_OP_COPY &&
	    (j->wr_offset % PROBE_MIN_BLOCK || j->wr_length < j->block_size))
		return -EINVAL;
	if (j->op > PROBE_OP_COPY || j->engine > PROBE_ENGINE_PSYNC)
		return -EINVAL;
	if (j->duration_ms <= 0 && j->max_bytes == 0)
		return -EINVAL; /* would never stop */
	return 0;
}

static void dir_stats(struct probe_dir_stats *d, const struct probe_hist *h, uint64_t bytes,
		      uint64_t ios, uint64_t max)
{
	*d = (struct probe_dir_stats){
		.bytes = bytes,
		.ios = ios,
		.lat_p50_ns = probe_hist_quantile(h, 0.50),
		.lat_p99_ns = probe_hist_quantile(h, 0.99),
		.lat_p999_ns = probe_hist_quantile(h, 0.999),
		.lat_max_ns = max,
	};
}

/* @j on @fd, its writes (a copy's) on @wr_fd. */
/* O_DIRECT refuses transfers the target cannot address: say so up front (-EINVAL). */
static int check_align(int fd, int wr_fd, const struct probe_job *j)
{
	uint32_t align;
	int r = probe_target_align(fd, &align);

	if (r < 0)
		return r;
	if (j->block_size % align || j->offset % align ||
	    (j->op == PROBE_OP_COPY && wr_fd == fd && j->wr_offset % align))
		return -EINVAL;
	if (wr_fd != fd) {
		r = probe_target_align(wr_fd, &align);
		if (r < 0)
			return r;
		if (j->block_size % align || j->wr_offset % align)
			return -EINVAL;
	}
	return 0;
}

/*
 * The @n_slots buffers in one region (*@ret_bufs), on huge pages where it is big
 * enough: the kernel pins fewer pages per O_DIRECT transfer. Every buffer is
 * page-aligned, also for transfers smaller than a page, and filled from @seed.
 */
static int slots_fill(struct slot *slots, size_t n_slots, const struct probe_job *j, uint64_t *seed,
		      void **ret_bufs)
{
	bool huge = j->block_size >= HUGE_MIN_BLOCK;
	size_t stride = ((size_t)j->block_size + ALIGN - 1) / ALIGN * ALIGN;
	size_t buf_len = n_slots * stride;
	void *bufs = NULL;
	int r;

	if (huge)
		buf_len = (buf_len + HUGE - 1) / HUGE * HUGE;
	r = -posix_memalign(&bufs, huge ? HUGE : ALIGN, buf_len);
	if (r < 0)
		return r;
	if (huge)
		(void)madvise(bufs, buf_len, MADV_HUGEPAGE);
	for (size_t i = 0; i < n_slots; i++) {
		slots[i].buf = (char *)bufs + i * stride;
		probe_fill_random(slots[i].buf, j->block_size, seed);
		slots[i].write = j->op == PROBE_OP_WRITE || (j->op == PROBE_OP_COPY && i % 2 == 1);
	}
	*ret_bufs = bufs;
	return 0;
}

/* Where reads and writes go: a copy writes its own range, the others their one range. */
static void cursors_init(struct run *rn, const struct probe_job *j, uint64_t seed)
{
	bool copy = j->op == PROBE_OP_COPY;

	rn->rd = (struct cursor){.offset = j->offset,
				 .length = j->length,
				 .random = j->random,
				 .bs = j->block_size,
				 .rng = seed ^ 0x5bd1e995};
	rn->wr = (struct cursor){.offset = copy ? j->wr_offset : j->offset,
				 .length = copy ? j->wr_length : j->length,
				 .random = j->random,
				 .bs = j->block_size,
				 .rng = seed};
	rn->interval_ns = (j->interval_ms > 0 ? j->interval_ms : PROBE_INTERVAL_MS) * NS_PER_MS;
}

static int engine_run(int fd, int wr_fd, const struct probe_job *j, probe_tick_fn tick, void *ctx,
		      struct probe_result *ret)
{
	struct run rn = {.j = j, .tick = tick, .ctx = ctx, .stop = PROBE_STOP_DONE};
	struct slot *slots = NULL;
	void *bufs = NULL;
	size_t n_slots;
	struct rusage ru0, ru1, rp0, rp1;
	uint64_t seed = j->seed ? j->seed : 0x6e766d6f6e64ull;
	const char *engine = "io_uring";
	int r;

	r = job_check(j);
	if (r == 0)
		r = check_align(fd, wr_fd, j);
	if (r < 0)
		return r;
	n_slots = j->op == PROBE_OP_COPY ? 2 * (size_t)j->depth : j->depth;
	slots = calloc(n_slots, sizeof(*slots));
	rn.rd_hist = calloc(1, sizeof(*rn.rd_hist));
	rn.wr_hist = calloc(1, sizeof(*rn.wr_hist));
	if (!slots || !rn.rd_hist || !rn.wr_hist) {
		r = -ENOMEM;
		goto out;
	}
	r = slots_fill(slots, n_slots, j, &seed, &bufs);
	if (r < 0)
		goto out;
	cursors_init(&rn, j, seed);

	/* CPU from here, the ring's set-up included; the clock from the first
	 * submission (clock_start()). */
	getrusage(RUSAGE_SELF, &rp0);
	getrusage(RUSAGE_THREAD, &ru0);
	r = -ENOSYS;
	if (j->engine != PROBE_ENGINE_PSYNC)
		r = run_uring(fd, wr_fd, &rn, slots, n_slots);
	if (r == -ENOSYS && j->engine == PROBE_ENGINE_AUTO) {
		engine = "psync";
		r = run_psync(fd, wr_fd, &rn, slots, n_slots);
	} else if (j->engine == PROBE_ENGINE_PSYNC) {
		engine = "psync";
		r = run_psync(fd, wr_fd, &rn, slots, n_slots);
	}
	if (r < 0 && !rn.io_failed)
		goto out;
	int io_err = r;
	int64_t end = now_ns();
	getrusage(RUSAGE_THREAD, &ru1);
	getrusage(RUSAGE_SELF, &rp1);
	if (rn.rd_bytes != rn.tick_rd || rn.wr_bytes != rn.tick_wr || rn.n_series == 0) {
		r = series_push(&rn, end);
		if (r < 0)
			goto out;
	}
	*ret = (struct probe_result){
		.stop = io_err < 0 ? PROBE_STOP_FAILED : rn.stop,
		.wr_submitted = rn.wr_issued,
		.elapsed_ns = end - rn.t_start,
		.cpu_user_us = tv_us(ru1.ru_utime) - tv_us(ru0.ru_utime),
		.cpu_sys_us = tv_us(ru1.ru_stime) - tv_us(ru0.ru_stime),
		.cpu_proc_us = tv_us(rp1.ru_utime) - tv_us(rp0.ru_utime) + tv_us(rp1.ru_stime) -
			       tv_us(rp0.ru_stime),
		.series = rn.series,
		.n_series = rn.n_series,
	};
	snprintf(ret->engine, sizeof(ret->engine), "%s", engine);
	dir_stats(&ret->rd, rn.rd_hist, rn.rd_bytes, rn.rd_ios, rn.lat_max_rd);
	dir_stats(&ret->wr, rn.wr_hist, rn.wr_bytes, rn.wr_ios, rn.lat_max_wr);
	rn.series = NULL;
	r = io_err;
out:
	free(bufs);
	free(slots);
	free(rn.rd_hist);
	free(rn.wr_hist);
	free(rn.series);
	return r;
}

int probe_engine_run(int fd, const struct probe_job *j, probe_tick_fn tick, void *ctx,
		     struct probe_result *ret)
{
	return engine_run(fd, fd, j, tick, ctx, ret);
}

int probe_engine_run_copy(int rd_fd, int wr_fd, const struct probe_job *j, probe_tick_fn tick,
			  void *ctx, struct probe_result *ret)
{
	if (j->op != PROBE_OP_COPY || rd_fd < 0 || wr_fd < 0)
		return -EINVAL;
	return engine_run(rd_fd, wr_fd, j, tick, ctx, ret);
}

void probe_result_clear(struct probe_result *r)
{
	free(r->series);
	r->series = NULL;
	r->n_series = 0;
}
