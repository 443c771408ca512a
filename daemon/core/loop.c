/* SPDX-License-Identifier: MIT */
/*
 * The main thread's event loop (after redis ae.c): fd watchers and monotonic
 * timers; the poll timeout comes from the nearest timer. A timer may have
 * slack (loop_timer_lazy()): it runs in a wakeup the loop has anyway, and
 * wakes it only at its deadline, so that an idle daemon sleeps.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "nvmond/core/loop.h"
#include "nvmond/util/timefmt.h"

#define LOOP_MAX_FDS 16

struct loop_fd {
	int fd;
	loop_fd_fn fn;
	void *userdata;
};

struct loop_timer {
	int64_t id;
	int64_t due_ms;	   /* monotonic: it may run from then on */
	int64_t latest_ms; /* and wakes the loop then; LOOP_NEVER: never by itself */
	int64_t slack_ms;  /* latest - due for the next run (loop_timer_lazy()) */
	loop_timer_fn fn;
	void *userdata;
};

#define LOOP_NEVER INT64_MAX

struct loop {
	struct loop_fd fds[LOOP_MAX_FDS];
	size_t n_fds;
	struct loop_timer *timers; /* few: a linear scan beats a heap here */
	size_t n_timers, cap_timers;
	int64_t next_id;
	bool stop;
};

struct loop *loop_new(void)
{
	struct loop *l = calloc(1, sizeof(*l));

	if (l)
		l->next_id = 1;
	return l;
}

struct loop *loop_free(struct loop *l)
{
	if (!l)
		return NULL;
	free(l->timers);
	free(l);
	return NULL;
}

int loop_add_fd(struct loop *l, int fd, loop_fd_fn fn, void *userdata)
{
	if (l->n_fds == LOOP_MAX_FDS)
		return -ENOSPC;
	l->fds[l->n_fds++] = (struct loop_fd){fd, fn, userdata};
	return 0;
}

int loop_remove_fd(struct loop *l, int fd)
{
	for (size_t i = 0; i < l->n_fds; i++)
		if (l->fds[i].fd == fd) {
			memmove(&l->fds[i], &l->fds[i + 1], (l->n_fds - i - 1) * sizeof(l->fds[0]));
			l->n_fds--;
			return 0;
		}
	return -ENOENT;
}

/* The watcher of @fd now: a callback may have removed or added watchers. */
static const struct loop_fd *fd_watcher(const struct loop *l, int fd)
{
	for (size_t i = 0; i < l->n_fds; i++)
		if (l->fds[i].fd == fd)
			return &l->fds[i];
	return NULL;
}

int64_t loop_add_timer(struct loop *l, int64_t delay_ms, loop_timer_fn fn, void *userdata)
{
	if (l->n_timers == l->cap_timers) {
		size_t cap = l->cap_timers ? l->cap_timers * 2 : 8;
		struct loop_timer *v = realloc(l->timers, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->timers = v;
		l->cap_timers = cap;
	}
	int64_t id = l->next_id++;
	int64_t due = timefmt_mono_ms() + (delay_ms > 0 ? delay_ms : 0);
	l->timers[l->n_timers++] = (struct loop_timer){
		.id = id,
		.due_ms = due,
		.latest_ms = due,
		.fn = fn,
		.userdata = userdata,
	};
	return id;
}

int64_t loop_add_timer_lazy(struct loop *l, int64_t period_ms, int64_t deadline_ms,
			    loop_timer_fn fn, void *userdata)
{
	int64_t delay = deadline_ms >= 0 && deadline_ms < period_ms ? deadline_ms : period_ms;
	int64_t id = loop_add_timer(l, delay, fn, userdata);

	if (id > 0) {
		struct loop_timer *t = &l->timers[l->n_timers - 1];
		(void)loop_timer_lazy(l, id, period_ms, deadline_ms);
		t->latest_ms = t->slack_ms == LOOP_NEVER ? LOOP_NEVER : t->due_ms + t->slack_ms;
	}
	return id;
}

static struct loop_timer *timer_find(struct loop *l, int64_t id)
{
	for (size_t i = 0; i < l->n_timers; i++)
		if (l->timers[i].id == id)
			return &l->timers[i];
	return NULL;
}

int64_t loop_timer_lazy(struct loop *l, int64_t id, int64_t period_ms, int64_t deadline_ms)
{
	struct loop_timer *t = timer_find(l, id);

	if (period_ms < 0)
		period_ms = 0;
	if (deadline_ms >= 0 && deadline_ms <= period_ms) {
		if (t)
			t->slack_ms = 0;
		return deadline_ms;
	}
	if (t)
		t->slack_ms = deadline_ms < 0 ? LOOP_NEVER : deadline_ms - period_ms;
	return period_ms;
}

int loop_timer_pull(struct loop *l, int64_t id, int64_t deadline_ms)
{
	struct loop_timer *t = timer_find(l, id);
	int64_t at = timefmt_mono_ms() + (deadline_ms > 0 ? deadline_ms : 0);

	if (!t)
		return -ENOENT;
	if (at < t->latest_ms)
		t->latest_ms = at;
	if (at < t->due_ms)
		t->due_ms = at;
	return 0;
}

int loop_cancel_timer(struct loop *l, int64_t id)
{
	for (size_t i = 0; i < l->n_timers; i++)
		if (l->timers[i].id == id) {
			l->timers[i] = l->timers[--l->n_timers];
			return 0;
		}
	return -ENOENT;
}

void loop_stop(struct loop *l)
{
	l->stop = true;
}

/* Index of the timer due first, or -1. */
static ssize_t earliest(const struct loop *l)
{
	ssize_t best = -1;

	for (size_t i = 0; i < l->n_timers; i++)
		if (best < 0 || l->timers[i].due_ms < l->timers[best].due_ms)
			best = (ssize_t)i;
	return best;
}

/* When the loop must wake for its timers (monotonic), or LOOP_NEVER. */
static int64_t wake_at(const struct loop *l)
{
	int64_t at = LOOP_NEVER;

	for (size_t i = 0; i < l->n_timers; i++)
		if (l->timers[i].latest_ms < at)
			at = l->timers[i].latest_ms;
	return at;
}

static void run_due_timers(struct loop *l)
{
	int64_t now = timefmt_mono_ms();
	ssize_t i;

	while (!l->stop && (i = earliest(l)) >= 0 && l->timers[i].due_ms <= now) {
		struct loop_timer t = l->timers[i];
		int64_t next = t.fn(l, t.userdata);
		/* The callback may have added or cancelled timers: find ours again. */
		for (size_t j = 0; j < l->n_timers; j++) {
			struct loop_timer *u = &l->timers[j];
			if (u->id != t.id)
				continue;
			if (next < 0) {
				*u = l->timers[--l->n_timers];
			} else if (u->slack_ms || t.slack_ms) {
				/* Lazy (or it was, and ran late): from its end, so that its
				 * deadline is never early. */
				u->due_ms = timefmt_mono_ms() + next;
				u->latest_ms = u->slack_ms == LOOP_NEVER ? LOOP_NEVER
									 : u->due_ms + u->slack_ms;
			} else {
				/* Fixed-rate: keep the cadence, but never run twice to catch up. */
				u->due_ms = t.due_ms + next > now ? t.due_ms + next : now + next;
				u->latest_ms = u->due_ms;
			}
			break;
		}
		now = timefmt_mono_ms();
	}
}

int loop_run(struct loop *l)
{
	struct pollfd pfd[LOOP_MAX_FDS];

	l->stop = false;
	while (!l->stop) {
		int timeout = -1;
		int64_t at = wake_at(l);
		if (at != LOOP_NEVER) {
			int64_t wait = at - timefmt_mono_ms();
			timeout = wait < 0 ? 0 : wait > INT32_MAX ? INT32_MAX : (int)wait;
		}
		for (size_t k = 0; k < l->n_fds; k++)
			pfd[k] = (struct pollfd){.fd = l->fds[k].fd, .events = POLLIN};
		int n = poll(pfd, l->n_fds, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		size_t n_pfd = l->n_fds;
		for (size_t k = 0; k < n_pfd && !l->stop; k++) {
			const struct loop_fd *w = pfd[k].revents ? fd_watcher(l, pfd[k].fd) : NULL;
			if (w)
				w->fn(l, w->fd, w->userdata);
		}
		run_due_timers(l);
	}
	return 0;
}
