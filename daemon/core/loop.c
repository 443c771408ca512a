/* SPDX-License-Identifier: MIT */
/*
 * The main thread's event loop (after redis ae.c): fd watchers and monotonic
 * timers; the poll timeout comes from the nearest timer.
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
	int64_t due_ms; /* monotonic */
	loop_timer_fn fn;
	void *userdata;
};

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
	l->timers[l->n_timers++] = (struct loop_timer){
		.id = id,
		.due_ms = timefmt_mono_ms() + (delay_ms > 0 ? delay_ms : 0),
		.fn = fn,
		.userdata = userdata,
	};
	return id;
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

/* Index of the earliest timer, or -1. */
static ssize_t earliest(const struct loop *l)
{
	ssize_t best = -1;

	for (size_t i = 0; i < l->n_timers; i++)
		if (best < 0 || l->timers[i].due_ms < l->timers[best].due_ms)
			best = (ssize_t)i;
	return best;
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
			if (l->timers[j].id != t.id)
				continue;
			if (next < 0)
				l->timers[j] = l->timers[--l->n_timers];
			else
				/* Fixed-rate: keep the cadence, but never run twice to catch up. */
				l->timers[j].due_ms =
					t.due_ms + next > now ? t.due_ms + next : now + next;
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
		ssize_t i = earliest(l);
		if (i >= 0) {
			int64_t wait = l->timers[i].due_ms - timefmt_mono_ms();
			timeout = wait < 0 ? 0 : wait > 60000 ? 60000 : (int)wait;
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
