/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous device commands (dev_guard.h, dev_async.h) with real threads:
 * a command that blocks until the test releases it stands for a controller
 * hung in the kernel. The caller never waits: answers and deadlines come back
 * through the client's eventfd and the loop. Waits are on observable events,
 * bounded.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nvmond/core/loop.h"
#include "nvmond/demo/demo.h"
#include "nvmond/dev/dev.h"
#include "nvmond/dev/dev_async.h"
#include "nvmond/dev/dev_guard.h"
#include "nvmond/decode/selftest.h"

static atomic_bool release;
static atomic_int running;

struct io {
	bool hang;
	int value;
};

static int cmd(void *arg)
{
	struct io *io = arg;
	const struct timespec tick = {.tv_nsec = 5 * 1000 * 1000};

	atomic_fetch_add(&running, 1);
	while (io->hang && !atomic_load(&release))
		nanosleep(&tick, NULL);
	io->value = 42;
	atomic_fetch_sub(&running, 1);
	return 0;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What each callback saw, in the order they came. */
struct seen {
	int n;
	int tag[8], r[8], value[8];
	int64_t at[8];
};

static struct seen seen;

static void on_done(void *userdata, int r, void *answer)
{
	int i = seen.n++;

	seen.tag[i] = (int)(intptr_t)userdata;
	seen.r[i] = r;
	seen.value[i] = answer ? ((struct io *)answer)->value : -1;
	seen.at[i] = mono_ms();
}

/* The caller's side of a loop: wait on the fd up to the next deadline, dispatch. */
static void pump(struct dev_guard_async *a, int want, int64_t limit_ms)
{
	for (int64_t end = mono_ms() + limit_ms; seen.n < want && mono_ms() < end;) {
		int64_t ms = dev_guard_async_next_ms(a);
		struct pollfd pfd = {.fd = dev_guard_async_fd(a), .events = POLLIN};
		(void)poll(&pfd, 1, ms < 0 || ms > 1000 ? 1000 : (int)ms);
		dev_guard_async_dispatch(a);
	}
}

/* dev_guard.h: "the answer, or the deadline, comes back as a call of its @done
 * … in the order they were submitted"; a late command leaves the controller
 * unresponsive, and a second one behind it was never sent. */
Test(dev_guard_async, answers_in_order_and_a_hung_controller_at_its_deadline)
{
	struct dev_guard *g;
	struct dev_guard_async *a;
	struct io ok = {0}, hung = {.hang = true};

	atomic_store(&release, false);
	seen = (struct seen){0};
	cr_assert_eq(dev_guard_new(200, &g), 0);
	cr_assert_eq(dev_guard_async_new(g, &a), 0);
	int64_t t0 = mono_ms();
	cr_assert_eq(
		dev_guard_submit(a, "nvme1", cmd, NULL, &hung, sizeof(hung), 0, on_done, (void *)1),
		0);
	cr_assert_eq(
		dev_guard_submit(a, "nvme1", cmd, NULL, &ok, sizeof(ok), 0, on_done, (void *)2), 0,
		"queued behind the hung one");
	cr_assert_eq(
		dev_guard_submit(a, "nvme0", cmd, NULL, &ok, sizeof(ok), 0, on_done, (void *)3), 0);
	cr_assert_eq(
		dev_guard_submit(a, "nvme0", cmd, NULL, &ok, sizeof(ok), 0, on_done, (void *)4), 0);
	cr_expect(mono_ms() - t0 < 100, "submitting never waits");
	pump(a, 2, 2000);
	cr_assert_eq(seen.n, 2);
	cr_expect(seen.tag[0] == 3 && seen.tag[1] == 4, "nvme0's answers first, in order");
	cr_expect(seen.r[0] == 0 && seen.value[0] == 42 && seen.value[1] == 42);
	cr_expect(seen.at[1] - t0 < 150, "answered before nvme1's deadline: %lld ms",
		  (long long)(seen.at[1] - t0));
	cr_expect_not(dev_guard_unresponsive(g, "nvme1"), "not late yet");

	pump(a, 4, 2000);
	cr_assert_eq(seen.n, 4);
	cr_expect(seen.tag[2] == 1 && seen.r[2] == -ETIMEDOUT && seen.value[2] == -1,
		  "the hung one at its deadline, without an answer");
	cr_expect(seen.tag[3] == 2 && seen.r[3] == -ETIMEDOUT, "the one behind it too");
	cr_expect(seen.at[2] - t0 >= 200 && seen.at[2] - t0 < 1000, "after %lld ms",
		  (long long)(seen.at[2] - t0));
	cr_expect(dev_guard_unresponsive(g, "nvme1"));
	cr_expect_eq(dev_guard_timeouts(g), 1, "one command late: the one on the worker");
	cr_expect_eq(atomic_load(&running), 1, "the one behind it was never sent");
	cr_expect_eq(dev_guard_submit(a, "nvme1", cmd, NULL, &ok, sizeof(ok), 0, on_done, NULL),
		     -ETIMEDOUT, "refused at once while stuck");
	cr_expect_eq(dev_guard_async_next_ms(a), -1, "nothing pending");

	atomic_store(&release, true);
	for (int64_t end = mono_ms() + 10000;
	     dev_guard_unresponsive(g, "nvme1") && mono_ms() < end;)
		usleep(5000);
	cr_assert_not(dev_guard_unresponsive(g, "nvme1"), "recovered once it returned");
	seen = (struct seen){0};
	cr_assert_eq(
		dev_guard_submit(a, "nvme1", cmd, NULL, &ok, sizeof(ok), 0, on_done, (void *)5), 0);
	pump(a, 1, 2000);
	cr_expect(seen.n == 1 && seen.r[0] == 0 && seen.value[0] == 42, "answers again");
	a = dev_guard_async_free(a);
	cr_expect(dev_guard_free(g, NULL, NULL));
}

static atomic_bool released;

static void on_release(void *arg)
{
	(void)arg;
	atomic_store(&released, true);
}

static void on_never(void *userdata, int r, void *answer)
{
	(void)userdata;
	(void)r;
	(void)answer;
	cr_assert_fail("a dropped command's callback ran");
}

/* dev_guard_async_free(): "their @done is never called; … one on its worker
 * is left to it"; the guard goes once the kernel lets it return. */
Test(dev_guard_async, free_drops_what_is_pending)
{
	struct dev_guard *g;
	struct dev_guard_async *a;
	struct io ok = {0}, hung = {.hang = true};

	atomic_store(&release, false);
	atomic_store(&released, false);
	cr_assert_eq(dev_guard_new(10000, &g), 0);
	cr_assert_eq(dev_guard_async_new(g, &a), 0);
	cr_assert_eq(
		dev_guard_submit(a, "nvme2", cmd, NULL, &hung, sizeof(hung), 0, on_never, NULL), 0);
	cr_assert_eq(dev_guard_submit(a, "nvme2", cmd, NULL, &ok, sizeof(ok), 0, on_never, NULL),
		     0);
	a = dev_guard_async_free(a);
	atomic_store(&release, true);
	(void)dev_guard_free(g, on_release, NULL);
	for (int64_t end = mono_ms() + 10000; !atomic_load(&released) && mono_ms() < end;)
		usleep(5000);
	cr_expect(atomic_load(&released), "the guard went once the command returned");
}

static int64_t stop_cb(struct loop *l, void *u)
{
	(void)u;
	loop_stop(l);
	return -1;
}

static int64_t tick_at;

static int64_t tick_cb(struct loop *l, void *u)
{
	(void)l;
	(void)u;
	if (!tick_at)
		tick_at = mono_ms();
	return -1;
}

static int n_answers;
static int64_t demo0_at, demo1_at;
static int demo0_r = 1, demo1_r = 1;

static void on_smart(void *userdata, int r, void *answer)
{
	const char *name = userdata;

	n_answers++;
	if (name[4] == '0') {
		demo0_at = mono_ms();
		demo0_r = r == 0 && answer ? 0 : r;
	} else {
		demo1_at = mono_ms();
		demo1_r = r;
	}
}

/* dev_async.h: "the loop goes on; its answer, or -ETIMEDOUT at its deadline
 * …, comes back as a call of @done on the loop"; the demo hang hook (demo.h)
 * stands for the hung controller. */
Test(dev_guard_async, the_loop_goes_on_while_a_demo_drive_hangs)
{
	char path[] = "/tmp/nvmond-hang-XXXXXX";
	int fd = mkstemp(path);
	struct dev_backend *b;
	struct dev_async *a;
	struct loop *l = loop_new();

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "demo1\n", 6), 6);
	close(fd);
	setenv(DEV_DEMO_HANG_ENV, path, 1);
	cr_assert_eq(dev_demo_open(&b), 0);
	cr_assert_eq(dev_backend_guard(b, 300), 0);
	cr_assert_eq(dev_async_new(b, l, &a), 0);
	int64_t t0 = mono_ms();
	cr_assert_eq(dev_read_smart_async(a, "demo1", NULL, 1796005160000LL, on_smart, "demo1"), 0);
	cr_assert_eq(dev_read_smart_async(a, "demo0", NULL, 1796005160000LL, on_smart, "demo0"), 0);
	cr_assert_geq(loop_add_timer(l, 50, tick_cb, NULL), 0);
	cr_assert_geq(loop_add_timer(l, 2000, stop_cb, NULL), 0);
	cr_assert_eq(loop_run(l), 0);
	cr_expect_eq(n_answers, 2);
	cr_expect_eq(demo0_r, 0, "demo0 answered");
	cr_expect(demo0_at - t0 < 200, "demo0 at once: %lld ms", (long long)(demo0_at - t0));
	cr_expect(tick_at && tick_at - t0 < 200, "a timer of the loop ran meanwhile: %lld ms",
		  (long long)(tick_at - t0));
	cr_expect_eq(demo1_r, -ETIMEDOUT);
	cr_expect(demo1_at - t0 >= 300 && demo1_at - t0 < 1500, "demo1 at its deadline: %lld ms",
		  (long long)(demo1_at - t0));
	cr_expect(dev_unresponsive(b, "demo1"));
	a = dev_async_free(a);
	unlink(path);
	unsetenv(DEV_DEMO_HANG_ENV);
	b = dev_backend_free(b);
	loop_free(l);
}

#define QUIET 1796126400000LL /* Tue 2026-12-01 12:00Z: no demo drive runs a test of its own */

static struct loop *loop_of_test;

/* What each self-test callback saw: its tag, r, and the log's current test. */
static int st_n, st_r[4], st_current[4];
static int64_t st_at[4];

static void on_selftest(void *userdata, int r, void *answer)
{
	struct selftest_log log;
	int i = st_n++;

	st_r[i] = r;
	st_current[i] = -1;
	st_at[i] = mono_ms();
	if ((intptr_t)userdata == 1 && r == 0 &&
	    selftest_decode(answer, SELFTEST_LOG_SIZE, &log) == 0)
		st_current[i] = log.current;
	if (st_n == 4)
		loop_stop(loop_of_test);
}

/* dev_async.h: dev_selftest_start_async() and dev_read_selftest_async() are
 * dev_selftest_start() and dev_read_selftest() answered on the loop (a start
 * then the log that shows it running); a hung drive's command ends with
 * -ETIMEDOUT at its deadline, the next at once (a command to it is stuck),
 * and the synchronous twins' checks come before anything is sent. */
Test(dev_guard_async, selftest_start_and_log_on_the_loop)
{
	char path[] = "/tmp/nvmond-hang-XXXXXX";
	int fd = mkstemp(path);
	struct dev_backend *b;
	struct dev_async *a;
	struct loop *l = loop_new();

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "demo1\n", 6), 6);
	close(fd);
	setenv(DEV_DEMO_HANG_ENV, path, 1);
	cr_assert_eq(dev_demo_open(&b), 0);
	cr_assert_eq(dev_backend_guard(b, 300), 0);
	cr_assert_eq(dev_async_new(b, l, &a), 0);
	loop_of_test = l;
	cr_expect_eq(dev_selftest_start_async(a, "demo0", NULL, QUIET, DEV_SELFTEST_NSID_ALL, 0x3,
					      on_selftest, NULL),
		     -EINVAL, "only 1h, 2h and Fh are sent");
	int64_t t0 = mono_ms();
	cr_assert_eq(dev_selftest_start_async(a, "demo0", NULL, QUIET, DEV_SELFTEST_NSID_ALL,
					      SELFTEST_CODE_SHORT, on_selftest, (void *)0),
		     0);
	cr_assert_eq(
		dev_read_selftest_async(a, "demo0", NULL, QUIET + 1000, on_selftest, (void *)1), 0);
	cr_assert_eq(dev_read_selftest_async(a, "demo1", NULL, QUIET, on_selftest, (void *)2), 0);
	cr_assert_eq(dev_selftest_start_async(a, "demo1", NULL, QUIET, DEV_SELFTEST_NSID_ALL,
					      SELFTEST_CODE_SHORT, on_selftest, (void *)3),
		     0);
	cr_assert_geq(loop_add_timer(l, 3000, stop_cb, NULL), 0);
	cr_assert_eq(loop_run(l), 0);
	cr_assert_eq(st_n, 4);
	/* demo0's answers come at once; demo1's two at their deadline, in order. */
	cr_expect_eq(st_r[0], 0, "demo0's short test started");
	cr_expect_eq(st_r[1], 0);
	cr_expect_eq(st_current[1], SELFTEST_CODE_SHORT, "its log shows it running");
	cr_expect(st_at[1] - t0 < 200, "demo0 at once: %lld ms", (long long)(st_at[1] - t0));
	cr_expect_eq(st_r[2], -ETIMEDOUT);
	cr_expect_eq(st_r[3], -ETIMEDOUT);
	cr_expect(st_at[2] - t0 >= 300 && st_at[2] - t0 < 1500, "demo1 at its deadline: %lld ms",
		  (long long)(st_at[2] - t0));
	cr_expect(dev_unresponsive(b, "demo1"));
	cr_expect_eq(dev_read_selftest_async(a, "demo1", NULL, QUIET, on_selftest, NULL),
		     -ETIMEDOUT, "a command to demo1 is stuck: at once, nothing sent");
	a = dev_async_free(a);
	unlink(path);
	unsetenv(DEV_DEMO_HANG_ENV);
	b = dev_backend_free(b);
	loop_free(l);
}

/* The voluntary context switches (sleeps) of this process's thread named @comm, or -1. */
static long sleeps_of_thread(const char *comm)
{
	char path[300], name[32], line[128];
	long v = -1;
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	while (d && v < 0 && (e = readdir(d))) {
		FILE *f;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		bool is = fgets(name, sizeof(name), f) && strncmp(name, comm, strlen(comm)) == 0 &&
			  name[strlen(comm)] == '\n';
		fclose(f);
		if (!is)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
		f = fopen(path, "re");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1)
				break;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return v;
}

/*
 * Issue 23 §5 (docs/architecture.md#idle-wakeups): a controller's worker sleeps
 * once per command that does not sleep itself, waiting for the next: woken
 * while the caller held the guard's lock (the submit, then the loop's look at
 * the next deadline), it slept on the lock at once, a third of the time.
 */
Test(dev_guard_async, a_worker_sleeps_once_per_command)
{
	struct dev_guard *g;
	struct dev_guard_async *a;
	struct io ok = {0};
	const int n = 200;

	seen = (struct seen){0};
	cr_assert_eq(dev_guard_new(5000, &g), 0);
	cr_assert_eq(dev_guard_async_new(g, &a), 0);
	/* The worker starts with its first command. */
	cr_assert_eq(dev_guard_submit(a, "nvme7", cmd, NULL, &ok, sizeof(ok), 0, on_done, NULL), 0);
	pump(a, 1, 2000);
	long before = sleeps_of_thread("guard:nvme7");
	cr_assert_geq(before, 0, "no thread named guard:nvme7");
	for (int i = 0; i < n; i++) {
		seen = (struct seen){0};
		cr_assert_eq(
			dev_guard_submit(a, "nvme7", cmd, NULL, &ok, sizeof(ok), 0, on_done, NULL),
			0);
		(void)dev_guard_async_next_ms(a); /* as dev_async's arm() does at once */
		pump(a, 1, 2000);
		cr_assert_eq(seen.n, 1);
	}
	long sleeps = sleeps_of_thread("guard:nvme7") - before;
	cr_expect_leq(sleeps, n + n / 10, "%ld sleeps of the worker for %d commands", sleeps, n);
	a = dev_guard_async_free(a);
	cr_assert(dev_guard_free(g, NULL, NULL));
}
