/* SPDX-License-Identifier: MIT */
/*
 * The loop's timers (core/loop.h), on the real clock. loop_timer_lazy(): "at the
 * loop's first wakeup @period_ms or more from now, whatever woke it …, and at
 * @deadline_ms from now at the latest (< 0: none; the timer then never wakes the
 * loop by itself). A deadline within the period wins". loop_timer_pull(): "Run
 * @id within @deadline_ms at the latest".
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "nvmond/core/loop.h"
#include "nvmond/util/timefmt.h"

struct lazy {
	int64_t id;	  /* the timer's own */
	int64_t period;	  /* loop_timer_lazy()'s arguments */
	int64_t deadline; /* < 0: none */
	int64_t t0;	  /* monotonic, at the start */
	int runs;
	int64_t first_ms; /* after t0 */
};

static int64_t lazy_cb(struct loop *l, void *userdata)
{
	struct lazy *z = userdata;

	if (z->runs++ == 0)
		z->first_ms = timefmt_mono_ms() - z->t0;
	return loop_timer_lazy(l, z->id, z->period, z->deadline);
}

static int64_t stop_cb(struct loop *l, void *userdata)
{
	(void)userdata;
	loop_stop(l);
	return -1;
}

static void lazy_add(struct loop *l, struct lazy *z)
{
	z->t0 = timefmt_mono_ms();
	z->id = loop_add_timer_lazy(l, z->period, z->deadline, lazy_cb, z);
	cr_assert_gt(z->id, 0);
}

Test(loop, a_lazy_timer_without_deadline_never_wakes_the_loop)
{
	struct loop *l = loop_new();
	struct lazy z = {.period = 20, .deadline = -1};

	lazy_add(l, &z);
	/* The only wakeup: the stop, 300 ms on. The lazy timer runs in it, once. */
	cr_assert_gt(loop_add_timer(l, 300, stop_cb, NULL), 0);
	cr_assert_eq(loop_run(l), 0);
	cr_assert_eq(z.runs, 1, "ran %d times", z.runs);
	cr_assert_geq(z.first_ms, 295, "ran after %lld ms, before the loop woke",
		      (long long)z.first_ms);
	loop_free(l);
}

Test(loop, a_lazy_timer_wakes_the_loop_at_its_deadline)
{
	struct loop *l = loop_new();
	struct lazy z = {.period = 50, .deadline = 200};

	lazy_add(l, &z);
	cr_assert_gt(loop_add_timer(l, 320, stop_cb, NULL), 0);
	cr_assert_eq(loop_run(l), 0);
	cr_assert_eq(z.runs, 2, "ran %d times (at 200 ms, then with the stop)", z.runs);
	cr_assert(z.first_ms >= 195 && z.first_ms < 300, "first run after %lld ms, want 200",
		  (long long)z.first_ms);
	loop_free(l);
}

Test(loop, a_deadline_within_the_period_wins)
{
	struct loop *l = loop_new();
	struct lazy z = {.period = 500, .deadline = 30};

	lazy_add(l, &z);
	cr_assert_gt(loop_add_timer(l, 200, stop_cb, NULL), 0);
	cr_assert_eq(loop_run(l), 0);
	cr_assert_geq(z.runs, 5, "a plain 30 ms timer ran %d times in 200 ms", z.runs);
	cr_assert_lt(z.first_ms, 100);
	loop_free(l);
}

struct writer {
	int fd;
	int ms;
};

static void *write_later(void *arg)
{
	struct writer *w = arg;
	const uint64_t one = 1;
	struct timespec ts = {.tv_sec = 0, .tv_nsec = w->ms * 1000000L};

	nanosleep(&ts, NULL);
	cr_assert_eq(write(w->fd, &one, sizeof(one)), (ssize_t)sizeof(one));
	return NULL;
}

static void drain(struct loop *l, int fd, void *userdata)
{
	uint64_t n;

	(void)l;
	(void)userdata;
	cr_assert_eq(read(fd, &n, sizeof(n)), (ssize_t)sizeof(n));
}

Test(loop, a_lazy_timer_runs_in_a_wakeup_for_a_descriptor)
{
	struct loop *l = loop_new();
	struct lazy z = {.period = 20, .deadline = -1};
	struct writer w = {.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), .ms = 150};
	pthread_t t;

	cr_assert_geq(w.fd, 0);
	cr_assert_eq(loop_add_fd(l, w.fd, drain, NULL), 0);
	lazy_add(l, &z);
	cr_assert_gt(loop_add_timer(l, 400, stop_cb, NULL), 0);
	cr_assert_eq(pthread_create(&t, NULL, write_later, &w), 0);
	cr_assert_eq(loop_run(l), 0);
	pthread_join(t, NULL);
	cr_assert(z.first_ms >= 145 && z.first_ms < 390,
		  "first run after %lld ms, want in the wakeup for the descriptor (150 ms)",
		  (long long)z.first_ms);
	cr_assert_eq(z.runs, 2, "ran %d times (the descriptor's wakeup, the stop's)", z.runs);
	close(w.fd);
	loop_free(l);
}

struct puller {
	struct lazy *z;
	int64_t deadline;
};

static int64_t pull_cb(struct loop *l, void *userdata)
{
	struct puller *p = userdata;

	cr_assert_eq(loop_timer_pull(l, p->z->id, p->deadline), 0);
	return -1;
}

Test(loop, a_pulled_timer_wakes_the_loop_by_then)
{
	struct loop *l = loop_new();
	struct lazy z = {.period = 1000, .deadline = -1};
	struct puller p = {.z = &z, .deadline = 100};

	lazy_add(l, &z);
	/* At 50 ms its deadline comes 100 ms on: it runs at 150 ms, before its period. */
	cr_assert_gt(loop_add_timer(l, 50, pull_cb, &p), 0);
	cr_assert_gt(loop_add_timer(l, 400, stop_cb, NULL), 0);
	cr_assert_eq(loop_run(l), 0);
	cr_assert(z.first_ms >= 145 && z.first_ms < 390, "first run after %lld ms, want 150",
		  (long long)z.first_ms);
	cr_assert_eq(loop_timer_pull(l, 9999, 0), -ENOENT);
	loop_free(l);
}

struct switcher {
	struct lazy z;
	int64_t second_ms; /* after z.t0 */
};

static int64_t switch_cb(struct loop *l, void *userdata)
{
	struct switcher *w = userdata;

	if (w->z.runs++ == 0) {
		w->z.first_ms = timefmt_mono_ms() - w->z.t0;
		/* From now on a plain 100 ms timer: a deadline within the period. */
		return loop_timer_lazy(l, w->z.id, 200, 100);
	}
	if (w->z.runs == 2)
		w->second_ms = timefmt_mono_ms() - w->z.t0;
	return -1;
}

/* A lazy timer that ran late (in a wakeup for a descriptor, long after its period)
 * and turns plain: its next run counts from then, not from when it fell due. */
Test(loop, a_late_lazy_timer_counts_its_next_run_from_its_end)
{
	struct loop *l = loop_new();
	struct switcher w = {.z = {.period = 20, .deadline = -1}};
	/* Due at 20 ms, run at 60: plain from then, its next run is at 160, not at 120. */
	struct writer wr = {.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), .ms = 60};
	pthread_t t;

	cr_assert_geq(wr.fd, 0);
	cr_assert_eq(loop_add_fd(l, wr.fd, drain, NULL), 0);
	w.z.t0 = timefmt_mono_ms();
	w.z.id = loop_add_timer_lazy(l, 20, -1, switch_cb, &w);
	cr_assert_gt(w.z.id, 0);
	cr_assert_gt(loop_add_timer(l, 400, stop_cb, NULL), 0);
	cr_assert_eq(pthread_create(&t, NULL, write_later, &wr), 0);
	cr_assert_eq(loop_run(l), 0);
	pthread_join(t, NULL);
	cr_assert(w.z.first_ms >= 55, "first run after %lld ms", (long long)w.z.first_ms);
	cr_assert_eq(w.z.runs, 2);
	cr_assert(w.second_ms >= w.z.first_ms + 95, "second run %lld ms after the first, want 100",
		  (long long)(w.second_ms - w.z.first_ms));
	close(wr.fd);
	loop_free(l);
}
