/* SPDX-License-Identifier: MIT */
/*
 * The device-command guard's threads: one worker per controller, started at
 * its first command, waiting on a condition variable for the next one. The
 * caller hands over a heap copy of the command's in/out block and waits on
 * CLOCK_MONOTONIC up to the deadline; a command past it is abandoned to the
 * worker, which frees the copy when the kernel finally returns. See
 * dev_guard.h; the rules are dev_guard_rule.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvmond/dev/dev.h"
#include "nvmond/dev/dev_guard.h"
#include "nvmond/dev/dev_guard_rule.h"

struct guard_job {
	dev_guard_fn fn;
	dev_guard_discard_fn discard;
	int r;
	bool done;
	bool abandoned; /* the caller left at its deadline: the worker frees the job */
	size_t size;
	/* Aligned as malloc() would: a block may hold a u128 (struct idctl). */
	_Alignas(max_align_t) unsigned char io[];
};

struct guard_ctrl {
	struct dev_guard *g;
	char name[DEV_NAME_MAX];
	pthread_t thread;
	struct guard_job *job; /* handed to the worker, until it returns */
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

static void *worker(void *arg)
{
	struct guard_ctrl *c = arg;
	struct dev_guard *g = c->g;
	bool last = false;

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
		}
		pthread_cond_broadcast(&c->done);
	}
	if (g->detached)
		last = --g->n_running == 0;
	pthread_mutex_unlock(&g->lock);
	if (last)
		guard_destroy(g); /* nothing of c is used past this */
	return NULL;
}

static int cond_init_mono(pthread_cond_t *cv)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	int r = -pthread_cond_init(cv, &a);
	pthread_condattr_destroy(&a);
	return r;
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
	if (cond_init_mono(&c->wake) < 0 || cond_init_mono(&c->done) < 0 ||
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

uint64_t dev_guard_timeouts(struct dev_guard *g)
{
	pthread_mutex_lock(&g->lock);
	uint64_t n = g->n_timeouts;
	pthread_mutex_unlock(&g->lock);
	return n;
}
