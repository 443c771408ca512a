/* SPDX-License-Identifier: MIT */
/*
 * Calls from other threads onto the main loop: a queue woken through an eventfd;
 * the caller waits on a condition variable until the loop has run its function.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "nvmond/core/mainq.h"

/* One call, on the caller's stack: it waits until the main loop is done with it. */
struct mainq_job {
	mainq_fn fn;
	void *arg;
	int result;
	bool done;
	bool posted; /* mainq_post(): malloc()ed, nobody waits, freed once run */
	struct mainq_job *next;
};

struct mainq {
	int efd;
	pthread_mutex_t lock;
	pthread_cond_t done;
	struct mainq_job *head, *tail;
	bool shut;
};

static void mainq_dispatch(struct loop *l, int fd, void *userdata)
{
	(void)l;
	struct mainq *q = userdata;
	uint64_t n;

	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	for (;;) {
		pthread_mutex_lock(&q->lock);
		struct mainq_job *j = q->head;
		if (j) {
			q->head = j->next;
			if (!q->head)
				q->tail = NULL;
		}
		pthread_mutex_unlock(&q->lock);
		if (!j)
			return;
		int r = j->fn(j->arg);
		if (j->posted) {
			free(j);
			continue;
		}
		pthread_mutex_lock(&q->lock);
		j->result = r;
		j->done = true;
		pthread_cond_broadcast(&q->done);
		pthread_mutex_unlock(&q->lock);
	}
}

int mainq_new(struct loop *l, struct mainq **ret)
{
	struct mainq *q = calloc(1, sizeof(*q));
	int r;

	if (!q)
		return -ENOMEM;
	q->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (q->efd < 0) {
		r = -errno;
		free(q);
		return r;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->done, NULL);
	r = loop_add_fd(l, q->efd, mainq_dispatch, q);
	if (r < 0) {
		mainq_free(q);
		return r;
	}
	*ret = q;
	return 0;
}

void mainq_shutdown(struct mainq *q)
{
	pthread_mutex_lock(&q->lock);
	q->shut = true;
	for (struct mainq_job *j = q->head, *next; j; j = next) {
		next = j->next;
		if (j->posted) {
			free(j);
			continue;
		}
		j->result = -ECANCELED;
		j->done = true;
	}
	q->head = q->tail = NULL;
	pthread_cond_broadcast(&q->done);
	pthread_mutex_unlock(&q->lock);
}

struct mainq *mainq_free(struct mainq *q)
{
	if (!q)
		return NULL;
	mainq_shutdown(q);
	close(q->efd);
	pthread_cond_destroy(&q->done);
	pthread_mutex_destroy(&q->lock);
	free(q);
	return NULL;
}

int mainq_call(struct mainq *q, mainq_fn fn, void *arg)
{
	struct mainq_job j = {.fn = fn, .arg = arg};
	const uint64_t one = 1;

	pthread_mutex_lock(&q->lock);
	if (q->shut) {
		pthread_mutex_unlock(&q->lock);
		return -ECANCELED;
	}
	if (q->tail)
		q->tail->next = &j;
	else
		q->head = &j;
	q->tail = &j;
	pthread_mutex_unlock(&q->lock);
	/* An eventfd write only fails on counter overflow, which a reader clears. */
	(void)!write(q->efd, &one, sizeof(one));
	pthread_mutex_lock(&q->lock);
	while (!j.done)
		pthread_cond_wait(&q->done, &q->lock);
	pthread_mutex_unlock(&q->lock);
	return j.result;
}

int mainq_post(struct mainq *q, mainq_fn fn, void *arg)
{
	struct mainq_job *j = calloc(1, sizeof(*j));
	const uint64_t one = 1;

	if (!j)
		return -ENOMEM;
	*j = (struct mainq_job){.fn = fn, .arg = arg, .posted = true};
	pthread_mutex_lock(&q->lock);
	if (q->shut) {
		pthread_mutex_unlock(&q->lock);
		free(j);
		return -ECANCELED;
	}
	if (q->tail)
		q->tail->next = j;
	else
		q->head = j;
	q->tail = j;
	pthread_mutex_unlock(&q->lock);
	(void)!write(q->efd, &one, sizeof(one));
	return 0;
}
