/* SPDX-License-Identifier: MIT */
/*
 * The main loop's side of asynchronous commands: the guard's client, its
 * eventfd watched on the loop, and one loop timer at the nearest deadline, so
 * that a command that never answers still ends (-ETIMEDOUT) on time. Each
 * command's block is in dev_call.c. See dev_async.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "nvmond/util/timefmt.h"
#include "dev_async_internal.h"

struct dev_async {
	struct dev_backend *b;
	struct loop *l;
	struct dev_guard_async *ga;
	int64_t timer;	   /* the deadline timer on @l, 0 = none */
	int64_t timer_due; /* monotonic, while armed */
};

static int64_t on_deadline(struct loop *l, void *userdata);

/*
 * The timer at the nearest deadline, none when no command is out: one left
 * armed after the last answer woke the loop for nothing (issue 23 §5).
 */
static void arm(struct dev_async *a)
{
	int64_t ms = dev_guard_async_next_ms(a->ga);
	int64_t due = timefmt_mono_ms() + ms;

	if (a->timer && (ms < 0 || a->timer_due != due)) {
		loop_cancel_timer(a->l, a->timer);
		a->timer = 0;
	}
	if (ms < 0 || a->timer)
		return;
	a->timer = loop_add_timer(a->l, ms, on_deadline, a);
	if (a->timer < 0)
		a->timer = 0; /* out of memory: the next answer arms it again */
	a->timer_due = due;
}

static void dispatch(struct dev_async *a)
{
	dev_guard_async_dispatch(a->ga);
	arm(a);
}

static int64_t on_deadline(struct loop *l, void *userdata)
{
	struct dev_async *a = userdata;

	(void)l;
	a->timer = 0; /* this one ends (-1); dispatch() arms the next */
	dispatch(a);
	return -1;
}

static void on_answer(struct loop *l, int fd, void *userdata)
{
	(void)l;
	(void)fd;
	dispatch(userdata);
}

int dev_async_new(struct dev_backend *b, struct loop *l, struct dev_async **ret)
{
	struct dev_async *a;
	int r;

	if (!b->guard)
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	*a = (struct dev_async){.b = b, .l = l};
	r = dev_guard_async_new(b->guard, &a->ga);
	if (r == 0)
		r = loop_add_fd(l, dev_guard_async_fd(a->ga), on_answer, a);
	if (r < 0) {
		dev_guard_async_free(a->ga);
		free(a);
		return r;
	}
	*ret = a;
	return 0;
}

struct dev_async *dev_async_free(struct dev_async *a)
{
	if (!a)
		return NULL;
	if (a->timer)
		loop_cancel_timer(a->l, a->timer);
	loop_remove_fd(a->l, dev_guard_async_fd(a->ga));
	dev_guard_async_free(a->ga);
	free(a);
	return NULL;
}

struct dev_backend *dev_async_backend(const struct dev_async *a)
{
	return a->b;
}

int dev_async_submit(struct dev_async *a, const char *ctrl, dev_guard_fn fn,
		     dev_guard_discard_fn discard, const void *io, size_t io_size,
		     size_t answer_off, dev_done_fn done, void *userdata)
{
	int r = dev_guard_submit(a->ga, ctrl, fn, discard, io, io_size, answer_off, done, userdata);

	if (r == 0)
		arm(a);
	return r;
}
