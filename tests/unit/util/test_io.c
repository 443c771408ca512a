/* SPDX-License-Identifier: MIT */
/*
 * io_wait_readable() (util/io.h): "Sleep until @fd has something to read … A
 * read(2) asleep on a unix socket is also woken when the peer reads what this
 * end wrote, and goes back to sleep: a wakeup for nothing per answer; poll(2)
 * for POLLIN is not." The device channel's two ends wait so (issue 23 §5).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nvmond/util/io.h"

struct asker {
	int fd;
	pid_t tid;
	int r;
	char answer[8];
};

/* As a channel's caller: a request, then sleep until the answer. */
static void *ask(void *arg)
{
	struct asker *a = arg;

	a->tid = gettid();
	cr_assert_eq(io_write_all(a->fd, "request", 8), 0);
	a->r = io_wait_readable(a->fd);
	if (a->r == 0)
		a->r = io_read_all(a->fd, a->answer, sizeof(a->answer));
	return NULL;
}

/* The thread's voluntary context switches (each one a sleep), or -1. */
static long sleeps_of(pid_t tid)
{
	char path[64], line[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* Whether the thread sleeps (state S). */
static bool asleep(pid_t tid)
{
	char path[64], line[128];
	bool s = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "State:", 6) == 0)
			s = strchr(line, 'S') != NULL;
	fclose(f);
	return s;
}

static void pause_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

Test(io, the_peer_reading_the_request_does_not_wake_the_waiter)
{
	struct asker a = {.r = -1};
	char req[8];
	int sv[2];
	pthread_t t;

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	a.fd = sv[0];
	cr_assert_eq(pthread_create(&t, NULL, ask, &a), 0);
	/* Asleep for its answer, the request written. */
	for (int i = 0; i < 500 && !(a.tid && asleep(a.tid)); i++)
		pause_ms(2);
	cr_assert(a.tid && asleep(a.tid), "the asking thread never slept");
	pause_ms(20);
	long before = sleeps_of(a.tid);
	/* The peer reads the request: the asker's socket has room again. */
	cr_assert_eq(io_read_all(sv[1], req, sizeof(req)), 0);
	cr_assert_str_eq(req, "request");
	pause_ms(50);
	long after = sleeps_of(a.tid);
	cr_assert_eq(
		after, before,
		"the asker woke %ld time(s) while no answer had come (the peer read its request)",
		after - before);
	cr_assert_eq(io_write_all(sv[1], "answers", 8), 0);
	pthread_join(t, NULL);
	cr_assert_eq(a.r, 0);
	cr_assert_str_eq(a.answer, "answers");
	close(sv[0]);
	close(sv[1]);
}

Test(io, the_peer_closing_ends_the_wait)
{
	int sv[2];

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	close(sv[1]);
	cr_assert_eq(io_wait_readable(sv[0]), 0);
	char c;
	cr_assert_eq(io_read_all(sv[0], &c, 1), -ENODATA);
	close(sv[0]);
}
