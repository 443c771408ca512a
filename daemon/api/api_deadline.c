/* SPDX-License-Identifier: MIT */
/*
 * The request deadline: a request's line and headers must be in within
 * [http] request_timeout of the connection's opening or of the previous answer.
 * MHD's own timeout counts idleness only, so a slow-loris client sending a byte
 * now and then would hold its connection for ever. MHD cannot close a connection
 * from outside its threads, so a reaper thread shuts the socket down (shutdown(2),
 * not close(2): MHD still owns the descriptor and sees the end of it). The list's
 * mutex is held while a socket is shut down and in MHD's "closed" notification,
 * which comes before MHD closes the descriptor: a number reused by another file is
 * never touched.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "api_internal.h"

struct api_conn {
	struct api_conn *prev, *next;
	int fd;
	int64_t deadline_ms; /* monotonic; 0 = a request is being served */
};

struct api_deadlines {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool stop;
	int64_t timeout_ms;
	struct api_conn head; /* circular list */
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *reaper_run(void *p)
{
	struct api_deadlines *d = p;

	pthread_mutex_lock(&d->lock);
	while (!d->stop) {
		int64_t now = mono_ms();
		struct timespec until;

		for (struct api_conn *c = d->head.next; c != &d->head; c = c->next)
			if (c->deadline_ms && c->deadline_ms <= now) {
				(void)shutdown(c->fd, SHUT_RDWR);
				c->deadline_ms = 0; /* once */
			}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 250 * 1000000L; /* a quarter second late at most */
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&d->wake, &d->lock, &until);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

int api_deadlines_new(int64_t timeout_ms, struct api_deadlines **ret)
{
	struct api_deadlines *d = calloc(1, sizeof(*d));
	int r;

	if (!d)
		return -ENOMEM;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->wake, NULL);
	d->timeout_ms = timeout_ms;
	d->head.next = d->head.prev = &d->head;
	r = pthread_create(&d->thread, NULL, reaper_run, d);
	if (r != 0) {
		pthread_cond_destroy(&d->wake);
		pthread_mutex_destroy(&d->lock);
		free(d);
		return -r;
	}
	*ret = d;
	return 0;
}

struct api_deadlines *api_deadlines_free(struct api_deadlines *d)
{
	if (!d)
		return NULL;
	pthread_mutex_lock(&d->lock);
	d->stop = true;
	pthread_cond_signal(&d->wake);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
	/* MHD has said "closed" for every connection by now: the list is empty. */
	pthread_cond_destroy(&d->wake);
	pthread_mutex_destroy(&d->lock);
	free(d);
	return NULL;
}

struct api_conn *api_deadlines_add(struct api_deadlines *d, int fd)
{
	struct api_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL; /* the idle timeout still applies */
	c->fd = fd;
	pthread_mutex_lock(&d->lock);
	c->deadline_ms = mono_ms() + d->timeout_ms;
	c->next = &d->head;
	c->prev = d->head.prev;
	d->head.prev->next = c;
	d->head.prev = c;
	pthread_mutex_unlock(&d->lock);
	return c;
}

void api_deadlines_serving(struct api_deadlines *d, struct api_conn *c, bool serving)
{
	if (!c)
		return;
	pthread_mutex_lock(&d->lock);
	c->deadline_ms = serving ? 0 : mono_ms() + d->timeout_ms;
	pthread_mutex_unlock(&d->lock);
}

void api_deadlines_remove(struct api_deadlines *d, struct api_conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&d->lock);
	c->prev->next = c->next;
	c->next->prev = c->prev;
	pthread_mutex_unlock(&d->lock);
	free(c);
}
