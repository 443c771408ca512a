/* SPDX-License-Identifier: MIT */
/*
 * The device-command guard's threads: one worker per controller, started at
 * its first command, waiting on a condition variable for the next one. The
 * caller hands over a heap copy of the command's in/out block and waits on
 * CLOCK_MONOTONIC up to the deadline; a command past it is abandoned to the
 * worker, which frees the copy when the kernel finally returns. An
 * asynchronous caller (dev_guard_submit()) does not wait: its command waits
 * in the controller's queue while another runs, and the answer, or the
 * deadline, reaches it through its client's eventfd and
 * dev_guard_async_dispatch(). See dev_guard.h; the rules are dev_guard_rule.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "nvmond/dev/dev.h"
#include "nvmond/dev/dev_guard.h"
#include "nvmond/dev/dev_guard_rule.h"
#include "nvmond/util/mono_cond.h"

struct guard_job {
	dev_guard_fn fn;
	dev_guard_discard_fn discard;
	int r;
	bool done;
	bool abandoned; /* the caller left at its deadline: the worker frees the job */
	/* dev_guard_submit(): whose answer it is (NULL for a waiting caller, or
	 * once abandoned), on the client's list until dispatched; queued on its
	 * controller (qnext) until the worker is free. */
	struct dev_guard_async *owner;
	struct guard_ctrl *ctrl;
	dev_guard_done_fn on_done;
	void *userdata;
	size_t answer_off;
	int64_t deadline_ms;
	uint64_t seq;
	struct guard_job *next, *qnext;
	size_t size;
	/* Aligned as malloc() would: a block may hold a u128 (struct idctl). */
	_Alignas(max_align_t) unsigned char io[];
};

struct guard_ctrl {
	struct dev_guard *g;
	char name[DEV_NAME_MAX];
	pthread_t thread;
	struct guard_job *job;	 /* handed to the worker, until it returns */
	struct guard_job *queue; /* asynchronous commands waiting for the worker, in order */
	bool quit;
	pthread_cond_t wake; /* the worker: a job or quit */
	pthread_cond_t done; /* the callers: the job returned */
	struct dev_guard_slot slot;
};

struct dev_guard {
	pthread_mutex_t lock;
	/* dev_guard_free() with a command stuck: the last worker out frees all. */
	bool detached;
	size_t n_running;
	void (*release)(void *arg);
	void *release_arg;
	int64_t timeout_ms;
	uint64_t n_timeouts;
	size_t n, cap;
	struct guard_ctrl **ctrls;
	uint64_t seq; /* of the asynchronous commands, in submit order */
};

/* An asynchronous caller: its commands not yet dispatched, in submit order. */
struct dev_guard_async {
	struct dev_guard *g;
	int efd;
	struct guard_job *head;
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static struct timespec mono_at(int64_t ms)
{
	return (struct timespec){.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
}

static void guard_destroy(struct dev_guard *g)
{
	for (size_t i = 0; i < g->n; i++) {
		pthread_cond_destroy(&g->ctrls[i]->wake);
		pthread_cond_destroy(&g->ctrls[i]->done);
		free(g->ctrls[i]);
	}
	free(g->ctrls);
	pthread_mutex_destroy(&g->lock);
	if (g->release)
		g->release(g->release_arg);
	free(g);
}

/* Under g->lock: tell an asynchronous caller's loop an answer is there. */
static void async_wake(struct dev_guard_async *a)
{
	const uint64_t one = 1;

	/* An eventfd write only fails on counter overflow, which a reader clears. */
	(void)!write(a->efd, &one, sizeof(one));
}

/*
 * Under g->lock: the worker is free: hand it the first queued command whose
 * deadline has not passed (those that did are dispatched as late, never sent).
 */
static void queue_start(struct guard_ctrl *c)
{
	int64_t now = mono_ms();

	if (c->quit || dev_guard_admit(&c->slot) != DEV_GUARD_RUN)
		return;
	for (struct guard_job **pp = &c->queue; *pp; pp = &(*pp)->qnext) {
		struct guard_job *j = *pp;
		if (dev_guard_expired(now, j->deadline_ms, 0))
			continue;
		*pp = j->qnext;
		j->qnext = NULL;
		c->job = j;
		dev_guard_on_start(&c->slot);
		return;
	}
}

static void *worker(void *arg)
{
	struct guard_ctrl *c = arg;
	struct dev_guard *g = c->g;
	bool last = false;
	char comm[16];

	/* The footprint's wakeups are counted by thread name (docs/architecture.md#idle-wakeups). */
	snprintf(comm, sizeof(comm), "guard:%.9s", c->name[0] ? c->name : "scan");
	(void)pthread_setname_np(pthread_self(), comm);
	pthread_mutex_lock(&g->lock);
	for (;;) {
		while (!c->job && !c->quit)
			pthread_cond_wait(&c->wake, &g->lock);
		if (!c->job)
			break;
		struct guard_job *j = c->job;
		pthread_mutex_unlock(&g->lock);
		int r = j->fn(j->io); /* may block in the kernel for as long as it likes */
		pthread_mutex_lock(&g->lock);
		c->job = NULL;
		(void)dev_guard_on_done(&c->slot);
		if (j->abandoned) {
			if (j->discard)
				j->discard(j->io, r);
			free(j);
		} else {
			j->r = r;
			j->done = true;
			if (j->owner)
				async_wake(j->owner);
		}
		queue_start(c);
		pthread_cond_broadcast(&c->done);
	}
	if (g->detached)
		last = --g->n_running == 0;
	pthread_mutex_unlock(&g->lock);
	if (last)
		guard_destroy(g); /* nothing of c is used past this */
	return NULL;
}

/* Under g->lock. */
static int ctrl_get(struct dev_guard *g, const char *name, struct guard_ctrl **ret)
{
	struct guard_ctrl *c;

	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->ctrls[i]->name, name) == 0) {
			*ret = g->ctrls[i];
			return 0;
		}
	if (strlen(name) >= DEV_NAME_MAX)
		return -EINVAL;
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 8;
		struct guard_ctrl **v = realloc(g->ctrls, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		g->ctrls = v;
		g->cap = cap;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->g = g;
	strcpy(c->name, name);
	if (mono_cond_init(&c->wake) < 0 || mono_cond_init(&c->done) < 0 ||
	    pthread_create(&c->thread, NULL, worker, c) != 0) {
		free(c);
		return -EAGAIN;
	}
	g->ctrls[g->n++] = c;
	*ret = c;
	return 0;
}

int dev_guard_new(int64_t timeout_ms, struct dev_guard **ret)
{
	struct dev_guard *g;

	if (timeout_ms <= 0)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	pthread_mutex_init(&g->lock, NULL);
	g->timeout_ms = timeout_ms;
	*ret = g;
	return 0;
}

bool dev_guard_free(struct dev_guard *g, void (*release)(void *arg), void *arg)
{
	bool stuck = false;

	if (!g) {
		if (release)
			release(arg);
		return true;
	}
	pthread_mutex_lock(&g->lock);
	g->release = release;
	g->release_arg = arg;
	for (size_t i = 0; i < g->n; i++) {
		g->ctrls[i]->quit = true;
		stuck |= g->ctrls[i]->job != NULL;
		pthread_cond_signal(&g->ctrls[i]->wake);
	}
	if (stuck) {
		/* A worker still in the kernel: the last worker out frees it all. */
		g->detached = true;
		g->n_running = g->n;
		for (size_t i = 0; i < g->n; i++)
			pthread_detach(g->ctrls[i]->thread);
		pthread_mutex_unlock(&g->lock);
		return false;
	}
	pthread_mutex_unlock(&g->lock);
	for (size_t i = 0; i < g->n; i++)
		pthread_join(g->ctrls[i]->thread, NULL);
	guard_destroy(g);
	return true;
}

void dev_guard_set_timeout(struct dev_guard *g, int64_t timeout_ms)
{
	if (timeout_ms <= 0)
		return;
	pthread_mutex_lock(&g->lock);
	g->timeout_ms = timeout_ms;
	pthread_mutex_unlock(&g->lock);
}

/* Under g->lock: wait on @c's done until @deadline. Return: false at the deadline. */
static bool wait_done(struct guard_ctrl *c, int64_t deadline)
{
	struct timespec at = mono_at(deadline);

	return pthread_cond_timedwait(&c->done, &c->g->lock, &at) != ETIMEDOUT ||
	       !dev_guard_expired(mono_ms(), deadline, 0);
}

int dev_guard_run(struct dev_guard *g, const char *ctrl, dev_guard_fn fn, void *io, size_t io_size)
{
	return dev_guard_run_discard(g, ctrl, fn, NULL, io, io_size);
}

int dev_guard_run_discard(struct dev_guard *g, const char *ctrl, dev_guard_fn fn,
			  dev_guard_discard_fn discard, void *io, size_t io_size)
{
	struct guard_ctrl *c;
	struct guard_job *j;
	int r;

	j = malloc(sizeof(*j) + io_size);
	if (!j)
		return -ENOMEM;
	*j = (struct guard_job){.fn = fn, .discard = discard, .size = io_size};
	memcpy(j->io, io, io_size);

	pthread_mutex_lock(&g->lock);
	int64_t start = mono_ms(), deadline = start + g->timeout_ms;
	r = ctrl_get(g, ctrl, &c);
	if (r < 0)
		goto fail;
	/* Another caller's command first, within our own deadline. */
	for (;;) {
		enum dev_guard_admit a = dev_guard_admit(&c->slot);
		if (a == DEV_GUARD_RUN)
			break;
		if (a == DEV_GUARD_REFUSE || !wait_done(c, deadline)) {
			r = -ETIMEDOUT;
			goto fail;
		}
	}
	c->job = j;
	dev_guard_on_start(&c->slot);
	pthread_cond_signal(&c->wake);
	while (!j->done)
		if (!wait_done(c, deadline) && !j->done) {
			/* Left to the worker, which frees it when the kernel returns. */
			j->abandoned = true;
			dev_guard_on_timeout(&c->slot, mono_ms());
			g->n_timeouts++;
			pthread_mutex_unlock(&g->lock);
			return -ETIMEDOUT;
		}
	pthread_mutex_unlock(&g->lock);
	memcpy(io, j->io, io_size);
	r = j->r;
	free(j);
	return r;
fail:
	pthread_mutex_unlock(&g->lock);
	free(j);
	return r;
}

bool dev_guard_unresponsive(struct dev_guard *g, const char *ctrl)
{
	bool stuck = false;

	pthread_mutex_lock(&g->lock);
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->ctrls[i]->name, ctrl) == 0)
			stuck = dev_guard_slot_unresponsive(&g->ctrls[i]->slot);
	pthread_mutex_unlock(&g->lock);
	return stuck;
}

int64_t dev_guard_timeout_ms(struct dev_guard *g)
{
	int64_t v;

	pthread_mutex_lock(&g->lock);
	v = g->timeout_ms;
	pthread_mutex_unlock(&g->lock);
	return v;
}

uint64_t dev_guard_timeouts(struct dev_guard *g)
{
	pthread_mutex_lock(&g->lock);
	uint64_t n = g->n_timeouts;
	pthread_mutex_unlock(&g->lock);
	return n;
}

int dev_guard_async_new(struct dev_guard *g, struct dev_guard_async **ret)
{
	struct dev_guard_async *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->g = g;
	a->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (a->efd < 0) {
		int r = -errno;
		free(a);
		return r;
	}
	*ret = a;
	return 0;
}

/* Under g->lock: take @j off its controller's queue (it has not started). */
static void queue_remove(struct guard_job *j)
{
	for (struct guard_job **pp = &j->ctrl->queue; *pp; pp = &(*pp)->qnext)
		if (*pp == j) {
			*pp = j->qnext;
			return;
		}
}

/* Under g->lock: take @j off its client's list. */
static void async_unlink(struct dev_guard_async *a, struct guard_job *j)
{
	for (struct guard_job **pp = &a->head; *pp; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			return;
		}
}

struct dev_guard_async *dev_guard_async_free(struct dev_guard_async *a)
{
	if (!a)
		return NULL;
	pthread_mutex_lock(&a->g->lock);
	for (struct guard_job *j = a->head, *next; j; j = next) {
		next = j->next;
		if (j->ctrl->job == j) {
			/* On the worker: it frees the job when the command returns. */
			j->abandoned = true;
			j->owner = NULL;
			continue;
		}
		if (j->done) {
			if (j->discard)
				j->discard(j->io, j->r);
		} else {
			queue_remove(j);
		}
		free(j);
	}
	a->head = NULL;
	pthread_mutex_unlock(&a->g->lock);
	close(a->efd);
	free(a);
	return NULL;
}

int dev_guard_async_fd(const struct dev_guard_async *a)
{
	return a->efd;
}

int dev_guard_submit(struct dev_guard_async *a, const char *ctrl, dev_guard_fn fn,
		     dev_guard_discard_fn discard, const void *io, size_t io_size,
		     size_t answer_off, dev_guard_done_fn done, void *userdata)
{
	struct dev_guard *g = a->g;
	struct guard_ctrl *c;
	struct guard_job *j;
	int r;

	if (answer_off > io_size)
		return -EINVAL;
	j = malloc(sizeof(*j) + io_size);
	if (!j)
		return -ENOMEM;
	*j = (struct guard_job){.fn = fn,
				.discard = discard,
				.size = io_size,
				.owner = a,
				.on_done = done,
				.userdata = userdata,
				.answer_off = answer_off};
	memcpy(j->io, io, io_size);

	pthread_mutex_lock(&g->lock);
	r = ctrl_get(g, ctrl, &c);
	if (r == 0 && dev_guard_admit(&c->slot) == DEV_GUARD_REFUSE)
		r = -ETIMEDOUT; /* stuck: nothing more to it */
	if (r < 0) {
		pthread_mutex_unlock(&g->lock);
		free(j);
		return r;
	}
	j->ctrl = c;
	j->deadline_ms = mono_ms() + g->timeout_ms;
	j->seq = ++g->seq;
	struct guard_job **pp = &a->head;
	while (*pp)
		pp = &(*pp)->next;
	*pp = j;
	/* Behind the commands already waiting for this worker, in order. */
	pp = &c->queue;
	while (*pp)
		pp = &(*pp)->qnext;
	*pp = j;
	bool wake = !c->job;
	if (wake)
		queue_start(c);
	pthread_mutex_unlock(&g->lock);
	/* After the unlock: woken under it, the worker would sleep again on the lock at once. */
	if (wake)
		pthread_cond_signal(&c->wake);
	return 0;
}

/*
 * Under g->lock: the first command of @a (up to @last_seq) that returned or
 * passed its deadline at @now, taken off the list; a late one is left to its
 * worker (stuck) or dropped from the queue. Return: NULL when none.
 */
static struct guard_job *async_next(struct dev_guard_async *a, uint64_t last_seq, int64_t now,
				    bool *ret_late)
{
	struct dev_guard *g = a->g;

	for (struct guard_job *j = a->head; j && j->seq <= last_seq; j = j->next) {
		if (j->done) {
			async_unlink(a, j);
			*ret_late = false;
			return j;
		}
		if (!dev_guard_expired(now, j->deadline_ms, 0))
			continue;
		async_unlink(a, j);
		*ret_late = true;
		if (j->ctrl->job == j) {
			/* Left to the worker, which frees it when the kernel returns. */
			j->abandoned = true;
			j->owner = NULL;
			dev_guard_on_timeout(&j->ctrl->slot, now);
			g->n_timeouts++;
		} else {
			/* Still waiting behind another command: never sent. */
			queue_remove(j);
		}
		return j;
	}
	return NULL;
}

void dev_guard_async_dispatch(struct dev_guard_async *a)
{
	struct dev_guard *g = a->g;
	uint64_t n;

	if (read(a->efd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	pthread_mutex_lock(&g->lock);
	/* Only what was submitted before: a callback's new command waits for the next call. */
	uint64_t last = g->seq;
	for (;;) {
		bool late = false, stuck;
		struct guard_job *j = async_next(a, last, mono_ms(), &late);
		if (!j)
			break;
		dev_guard_done_fn done = j->on_done;
		void *userdata = j->userdata;
		int r = late ? -ETIMEDOUT : j->r;
		/* A stuck one is the worker's now: nothing of it is read past the lock. */
		stuck = late && j->abandoned;
		pthread_mutex_unlock(&g->lock);
		done(userdata, r, !late && r == 0 ? j->io + j->answer_off : NULL);
		if (!stuck) {
			if (!late && r < 0 && j->discard)
				j->discard(j->io, r);
			free(j);
		}
		pthread_mutex_lock(&g->lock);
	}
	pthread_mutex_unlock(&g->lock);
}

int64_t dev_guard_async_next_ms(struct dev_guard_async *a)
{
	int64_t next = -1, now = mono_ms();

	pthread_mutex_lock(&a->g->lock);
	for (struct guard_job *j = a->head; j; j = j->next) {
		int64_t ms = j->done ? 0 : j->deadline_ms - now;
		if (ms < 0)
			ms = 0;
		if (next < 0 || ms < next)
			next = ms;
	}
	pthread_mutex_unlock(&a->g->lock);
	return next;
}
