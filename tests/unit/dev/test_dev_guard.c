/* SPDX-License-Identifier: MIT */
/*
 * The device-command guard with real threads (dev_guard.h): a command that
 * blocks until the test releases it stands for a controller hung in the
 * kernel. Waits are on observable events (the guard's own state), bounded.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nvmond/demo/demo.h"
#include "nvmond/dev/dev.h"
#include "nvmond/dev/dev_guard.h"

static atomic_bool release;
static atomic_int calls, running, misaligned;

struct io {
	bool hang;
	int value;
};

static int cmd(void *arg)
{
	struct io *io = arg;
	const struct timespec tick = {.tv_nsec = 5 * 1000 * 1000};

	atomic_fetch_add(&calls, 1);
	atomic_fetch_add(&running, 1);
	/* A block may hold a u128 (struct idctl in the scan's Identify): the copy
	 * must be aligned as malloc() aligns, or its stores fault. */
	if ((uintptr_t)arg % _Alignof(max_align_t))
		atomic_fetch_add(&misaligned, 1);
	while (io->hang && !atomic_load(&release))
		nanosleep(&tick, NULL);
	io->value = 42; /* into the guard's copy: never the caller's once abandoned */
	atomic_fetch_sub(&running, 1);
	return 0;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Up to 10 s for the guard to say @ctrl answers again. */
static bool wait_responsive(struct dev_guard *g, const char *ctrl)
{
	const struct timespec tick = {.tv_nsec = 5 * 1000 * 1000};

	for (int64_t end = mono_ms() + 10000; mono_ms() < end;)
		if (!dev_guard_unresponsive(g, ctrl))
			return true;
		else
			nanosleep(&tick, NULL);
	return false;
}

/* dev_guard.h: "a command past its deadline leaves the controller unresponsive
 * … later callers get -ETIMEDOUT at once, and nothing more is sent to that
 * controller until the stuck command returns"; the other controllers carry on. */
Test(dev_guard, a_hung_controller_is_refused_until_its_command_returns)
{
	struct dev_guard *g;
	struct io ok = {0}, hung = {.hang = true, .value = 7};

	atomic_store(&release, false);
	atomic_store(&calls, 0);
	cr_assert_eq(dev_guard_new(200, &g), 0);
	cr_expect_eq(dev_guard_run(g, "nvme0", cmd, &ok, sizeof(ok)), 0);
	cr_expect_eq(ok.value, 42, "an answer in time is copied back");

	int64_t t0 = mono_ms();
	cr_expect_eq(dev_guard_run(g, "nvme1", cmd, &hung, sizeof(hung)), -ETIMEDOUT);
	int64_t waited = mono_ms() - t0;
	cr_expect(waited >= 200 && waited < 2000, "waited %lld ms for a 200 ms deadline",
		  (long long)waited);
	cr_expect(dev_guard_unresponsive(g, "nvme1"));
	cr_expect_not(dev_guard_unresponsive(g, "nvme0"));
	cr_expect_eq(dev_guard_timeouts(g), 1);

	/* Refused at once, without a second command to the hung controller. */
	int before = atomic_load(&calls);
	t0 = mono_ms();
	cr_expect_eq(dev_guard_run(g, "nvme1", cmd, &ok, sizeof(ok)), -ETIMEDOUT);
	cr_expect(mono_ms() - t0 < 100, "refused at once");
	cr_expect_eq(atomic_load(&calls), before, "nothing more sent to nvme1");
	cr_expect_eq(atomic_load(&running), 1, "one thread stuck, no more");

	/* The other controller keeps answering. */
	ok.value = 0;
	cr_expect_eq(dev_guard_run(g, "nvme0", cmd, &ok, sizeof(ok)), 0);
	cr_expect_eq(ok.value, 42);

	atomic_store(&release, true);
	cr_assert(wait_responsive(g, "nvme1"), "recovered once the stuck command returned");
	cr_expect_eq(hung.value, 7, "the abandoned command wrote into its own copy only");
	ok.value = 0;
	cr_expect_eq(dev_guard_run(g, "nvme1", cmd, &ok, sizeof(ok)), 0);
	cr_expect_eq(ok.value, 42, "answers again");
	cr_expect_eq(atomic_load(&misaligned), 0, "every copy aligned for any type");
	cr_expect(dev_guard_free(g, NULL, NULL), "nothing stuck: freed");
}

static atomic_bool released;

static void on_release(void *arg)
{
	(void)arg;
	atomic_store(&released, true);
}

/* dev_guard_free(): "the last one to finish frees the guard and calls
 * @release, whenever the kernel lets its command return". */
Test(dev_guard, free_with_a_stuck_command_leaves_the_guard_to_its_worker)
{
	const struct timespec tick = {.tv_nsec = 5 * 1000 * 1000};
	struct dev_guard *g;
	struct io hung = {.hang = true}, ok = {0};

	atomic_store(&release, false);
	atomic_store(&released, false);
	cr_assert_eq(dev_guard_new(100, &g), 0);
	cr_expect_eq(dev_guard_run(g, "nvme2", cmd, &ok, sizeof(ok)), 0);
	cr_expect_eq(dev_guard_run(g, "nvme3", cmd, &hung, sizeof(hung)), -ETIMEDOUT);
	cr_expect_not(dev_guard_free(g, on_release, NULL), "a stuck command keeps the guard");
	cr_expect_not(atomic_load(&released), "nothing released while the command is stuck");
	atomic_store(&release, true);
	for (int64_t end = mono_ms() + 10000; !atomic_load(&released) && mono_ms() < end;)
		nanosleep(&tick, NULL);
	cr_expect(atomic_load(&released), "the last worker out released it");
}

/* demo.h: NVMOND_DEMO_HANG names a demo drive whose every command blocks;
 * through the guard the other drive still answers. */
Test(dev_guard, demo_hang_hook_through_the_backend)
{
	char path[] = "/tmp/nvmond-hang-XXXXXX";
	int fd = mkstemp(path);
	struct dev_backend *b;
	uint8_t page[SMART_LOG_SIZE];
	const int64_t now = 1796005160000LL;

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "demo1\n", 6), 6);
	close(fd);
	setenv(DEV_DEMO_HANG_ENV, path, 1);
	cr_assert_eq(dev_demo_open(&b), 0);
	cr_assert_eq(dev_backend_guard(b, 200), 0);
	cr_expect_eq(dev_read_smart(b, "demo1", NULL, now, page), -ETIMEDOUT);
	cr_expect(dev_timed_out(-ETIMEDOUT));
	cr_expect(dev_unresponsive(b, "demo1"));
	cr_expect_eq(dev_read_smart(b, "demo0", NULL, now, page), 0, "the other drive answers");
	cr_expect_eq(dev_selftest_start(b, "demo1", NULL, now, DEV_SELFTEST_NSID_ALL,
					SELFTEST_CODE_SHORT),
		     -ETIMEDOUT, "no self-test command to a hung drive");
	unlink(path);
	cr_assert(wait_responsive(b->guard, "demo1"));
	cr_expect_eq(dev_read_smart(b, "demo1", NULL, now, page), 0, "answers again");
	unsetenv(DEV_DEMO_HANG_ENV);
	b = dev_backend_free(b);
}
