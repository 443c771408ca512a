/* SPDX-License-Identifier: MIT */
/*
 * mainq_post() (core/mainq.h): "Run fn(arg) on the main loop soon, without
 * waiting for it … A post still queued at mainq_shutdown() never runs … Return:
 * 0, -ECANCELED after mainq_shutdown()". Posted from another thread, as the alert
 * sinks do; run on the real loop.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>

#include "nvmond/core/loop.h"
#include "nvmond/core/mainq.h"

struct ctx {
	struct loop *loop;
	struct mainq *q;
	pthread_t loop_thread; /* the thread that ran the last post */
	int runs;
};

static int on_loop(void *arg)
{
	struct ctx *c = arg;

	c->loop_thread = pthread_self();
	if (++c->runs == 3)
		loop_stop(c->loop);
	return 0;
}

static void *poster(void *arg)
{
	struct ctx *c = arg;

	for (int i = 0; i < 3; i++)
		cr_assert_eq(mainq_post(c->q, on_loop, c), 0);
	return NULL;
}

Test(mainq, posts_from_another_thread_run_on_the_loop_in_order, .timeout = 10)
{
	struct ctx c = {.loop = loop_new()};
	pthread_t t;

	cr_assert_not_null(c.loop);
	cr_assert_eq(mainq_new(c.loop, &c.q), 0);
	cr_assert_eq(pthread_create(&t, NULL, poster, &c), 0);
	cr_assert_eq(loop_run(c.loop), 0);
	pthread_join(t, NULL);
	cr_assert_eq(c.runs, 3);
	cr_assert(pthread_equal(c.loop_thread, pthread_self()), "ran on the loop's thread");
	mainq_free(c.q);
	loop_free(c.loop);
}

Test(mainq, posts_queued_at_shutdown_never_run_and_later_ones_are_refused)
{
	struct ctx c = {.loop = loop_new()};

	cr_assert_eq(mainq_new(c.loop, &c.q), 0);
	cr_assert_eq(mainq_post(c.q, on_loop, &c), 0);
	mainq_shutdown(c.q); /* frees the queued post (ASan / valgrind would see a leak) */
	cr_assert_eq(mainq_post(c.q, on_loop, &c), -ECANCELED);
	mainq_free(c.q);
	loop_free(c.loop);
	cr_assert_eq(c.runs, 0);
}
