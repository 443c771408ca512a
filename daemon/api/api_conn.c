/* SPDX-License-Identifier: MIT */
/*
 * The HTTP server's connections (api_conn_rule.h has the rules). An acceptor thread
 * takes each new connection off the listening socket and decides what it is before
 * the HTTP server sees it: an ordinary one (handed to the pool), one kept for
 * /healthz past max_connections (handed to a server of its own, one thread that
 * never runs a costly handler, so the health check is not queued behind 256 answers
 * being rendered), or refused (past max_connections_per_ip: closed at once). Past
 * both it accepts nothing: clients wait in the listen backlog. A reaper thread cuts
 * the late ones: a request's headers past request_timeout, its body past
 * body_timeout, an answer the client takes nothing of for send_timeout. MHD's own
 * timeout counts idleness only, so a client sending or reading a byte now and then
 * would hold its connection for ever.
 *
 * MHD's own per-address limit is not used: it counts a connection until MHD has
 * cleaned it up, so a client that closes one and opens the next at once was refused
 * while under the limit (issue 23). Here a connection counts while its TCP state
 * shows it open (api_conn_rule_counts()).
 *
 * An entry is made when the connection is accepted and linked to MHD's connection by
 * its descriptor in MHD's "started" notification; it goes at the "closed" one. MHD
 * cannot close a connection from outside its threads, so a connection is cut with
 * shutdown(2), not close(2): MHD still owns the descriptor and sees the end of it.
 * SO_LINGER 0 first, so that MHD's close drops what the client never took (a slow
 * reader's queued answer) at once instead of keeping it in the kernel. Sockets are
 * touched only for linked entries, under the list's mutex, which MHD's "closed"
 * notification takes before MHD closes the descriptor: a number reused by another
 * file is never touched.
 */
#define _GNU_SOURCE /* accept4, pthread_setname_np */
#include <errno.h>
#include <netinet/in.h>
#include <linux/tcp.h> /* struct tcp_info with tcpi_bytes_acked (glibc's lacks it) */
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>
#include <time.h>
#include <unistd.h>

#include "api_internal.h"

#define REAPER_PERIOD_MS 250
/* An entry MHD never said "started" for (it dropped the connection) goes after this. */
#define UNLINKED_MAX_MS 5000
/*
 * The bytes of an answer that may wait in the socket unsent (TCP_NOTSENT_LOWAT):
 * past them a write waits. Without it, for a client that takes nothing, the whole
 * answer of /samples was rendered into the socket at once (autotuning lets it grow to
 * net.ipv4.tcp_wmem's 4 MiB): 2.5 MB of kernel memory and its CPU for each of 256
 * such clients. Bytes in flight do not count, so a fast client on a long path is not
 * slowed (the usual value of HTTP/2 servers).
 */
#define API_CONN_NOTSENT (16 * 1024)

struct api_conn {
	struct api_conn *prev, *next;
	int fd;
	struct sockaddr_storage addr;
	struct api_conn_slot slot; /* under the lock */
	bool linked;		   /* MHD said "started": the socket is its (under the lock) */
	bool cut;		   /* shut down (under the lock) */
	bool close;		   /* close after this answer: the connection's own thread only */
};

struct api_conns {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* the reaper's */
	pthread_cond_t room; /* the acceptor's: a connection went */
	pthread_t reaper, acceptor;
	bool stop, unlisten, listening;
	int listen_fd, stop_fd;
	api_conn_take_fn take;
	void *take_cls;
	struct api_conns_config cfg;
	struct api_conn head; /* circular list */
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void deadline_in(struct timespec *ts, int64_t ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* The socket's TCP state (TCP_ESTABLISHED, …), -1 when it cannot be read. */
static int tcp_state(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return -1;
	return ti.tcpi_state;
}

/* How much of an answer the client has taken: 0, or -errno when it cannot be read. */
static int sock_seen(int fd, struct api_conn_sock *ret)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	int outq = 0;

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 || ioctl(fd, SIOCOUTQ, &outq) < 0)
		return -errno;
	*ret = (struct api_conn_sock){.acked = ti.tcpi_bytes_acked,
				      .waiting = outq > 0 ? (uint32_t)outq : 0};
	return 0;
}

/* Shut @c down: MHD sees the end of it and closes it, dropping what was not taken. */
static void conn_cut(struct api_conn *c)
{
	const struct linger lg = {.l_onoff = 1, .l_linger = 0};

	(void)setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	(void)shutdown(c->fd, SHUT_RDWR);
	c->cut = true;
}

static void list_remove(struct api_conns *d, struct api_conn *c)
{
	c->prev->next = c->next;
	c->next->prev = c->prev;
	pthread_cond_signal(&d->room);
}

/*
 * Under the lock: @c at the end of the list, and the reaper woken if it slept
 * without a deadline (no connection: docs/architecture.md#idle-wakeups).
 */
static void list_add(struct api_conns *d, struct api_conn *c)
{
	bool was_empty = d->head.next == &d->head;

	c->next = &d->head;
	c->prev = d->head.prev;
	d->head.prev->next = c;
	d->head.prev = c;
	if (was_empty)
		pthread_cond_signal(&d->wake);
}

static void *reaper_run(void *p)
{
	struct api_conns *d = p;

	(void)pthread_setname_np(pthread_self(), "http-reaper");
	pthread_mutex_lock(&d->lock);
	while (!d->stop) {
		int64_t now = mono_ms();
		struct timespec until;

		for (struct api_conn *c = d->head.next, *next; c != &d->head; c = next) {
			struct api_conn_sock seen;
			bool have = false;

			next = c->next;
			if (!c->linked) {
				if (now - c->slot.opened_ms >= UNLINKED_MAX_MS) {
					list_remove(d,
						    c); /* MHD dropped it: its descriptor is gone */
					free(c);
				}
				continue;
			}
			if (c->cut)
				continue;
			if (c->slot.phase == API_CONN_ANSWER)
				have = sock_seen(c->fd, &seen) == 0;
			if (api_conn_rule_due(&c->slot, &d->cfg.limits, now, have ? &seen : NULL))
				conn_cut(c);
		}
		/* No connection: nothing can be late until one comes (list_add() wakes it). */
		if (d->head.next == &d->head) {
			pthread_cond_wait(&d->wake, &d->lock);
			continue;
		}
		deadline_in(&until, REAPER_PERIOD_MS); /* a quarter second late at most */
		pthread_cond_timedwait(&d->wake, &d->lock, &until);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

int api_conns_new(const struct api_conns_config *cfg, struct api_conns **ret)
{
	struct api_conns *d = calloc(1, sizeof(*d));
	int r;

	if (!d)
		return -ENOMEM;
	d->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->stop_fd < 0) {
		r = -errno;
		free(d);
		return r;
	}
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->wake, NULL);
	pthread_cond_init(&d->room, NULL);
	d->cfg = *cfg;
	d->listen_fd = -1;
	d->head.next = d->head.prev = &d->head;
	r = pthread_create(&d->reaper, NULL, reaper_run, d);
	if (r != 0) {
		pthread_cond_destroy(&d->room);
		pthread_cond_destroy(&d->wake);
		pthread_mutex_destroy(&d->lock);
		close(d->stop_fd);
		free(d);
		return -r;
	}
	*ret = d;
	return 0;
}

struct api_conns *api_conns_free(struct api_conns *d)
{
	if (!d)
		return NULL;
	api_conns_unlisten(d);
	pthread_mutex_lock(&d->lock);
	d->stop = true;
	pthread_cond_signal(&d->wake);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->reaper, NULL);
	/* MHD has said "closed" for every connection it started; what is left it dropped. */
	while (d->head.next != &d->head) {
		struct api_conn *c = d->head.next;

		list_remove(d, c);
		free(c);
	}
	pthread_cond_destroy(&d->room);
	pthread_cond_destroy(&d->wake);
	pthread_mutex_destroy(&d->lock);
	close(d->stop_fd);
	free(d);
	return NULL;
}

static bool addr_equal(const struct sockaddr_storage *x, const struct sockaddr_storage *y)
{
	if (x->ss_family != y->ss_family)
		return false;
	if (x->ss_family == AF_INET)
		return ((const struct sockaddr_in *)x)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)y)->sin_addr.s_addr;
	if (x->ss_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)x)->sin6_addr,
			      &((const struct sockaddr_in6 *)y)->sin6_addr,
			      sizeof(struct in6_addr)) == 0;
	return false;
}

/*
 * The open connections a new one from @addr (NULL: none) is weighed against.
 * @exact: ask each socket whether it is still open (a syscall each); otherwise
 * every connection not cut counts, which is enough when even that leaves room.
 * A connection not yet linked counts: it is new. Under the lock.
 */
static struct api_conn_counts conns_count(struct api_conns *d, const struct sockaddr_storage *addr,
					  bool exact)
{
	struct api_conn_counts n = {0};

	for (struct api_conn *e = d->head.next; e != &d->head; e = e->next) {
		if (e->cut)
			continue;
		if (exact && e->linked && !api_conn_rule_counts(e->slot.phase, tcp_state(e->fd)))
			continue;
		if (e->slot.reserve)
			n.reserve++;
		else
			n.total++;
		if (addr && addr_equal(&e->addr, addr))
			n.from_addr++;
	}
	return n;
}

static enum api_conn_admit conns_admit(struct api_conns *d, const struct sockaddr_storage *addr)
{
	const struct api_conns_config *g = &d->cfg;
	struct api_conn_counts n = conns_count(d, addr, false);
	enum api_conn_admit v =
		api_conn_rule_admit(&n, g->max_total, g->max_per_addr, g->max_reserve);

	if (v == API_CONN_ADMIT)
		return v; /* fewer can only do as well */
	n = conns_count(d, addr, true);
	return api_conn_rule_admit(&n, g->max_total, g->max_per_addr, g->max_reserve);
}

/* Whether one more connection would be taken (from an address holding none). */
static bool conns_room(struct api_conns *d)
{
	return conns_admit(d, NULL) != API_CONN_REFUSE;
}

/* One accepted connection: refused, or handed to the server that serves its kind. */
static void conn_accepted(struct api_conns *d, int fd, const struct sockaddr_storage *addr,
			  socklen_t addr_len)
{
	static const int notsent = API_CONN_NOTSENT;
	struct api_conn *c = calloc(1, sizeof(*c));
	enum api_conn_admit v;

	if (!c) {
		close(fd);
		return;
	}
	c->fd = fd;
	c->addr = *addr;
	pthread_mutex_lock(&d->lock);
	v = conns_admit(d, addr);
	if (v != API_CONN_REFUSE) {
		api_conn_rule_open(&c->slot, v == API_CONN_RESERVE, mono_ms());
		list_add(d, c);
	}
	pthread_mutex_unlock(&d->lock);
	if (v == API_CONN_REFUSE) {
		free(c);
		close(fd); /* before a byte of it is read */
		return;
	}
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &notsent, sizeof(notsent));
	if (d->take(d->take_cls, fd, (const struct sockaddr *)addr, addr_len,
		    v == API_CONN_RESERVE) < 0) {
		/*
		 * MHD closed it and never said "started": its entry goes, if the reaper has
		 * not dropped it already (it is looked for before it is touched).
		 */
		pthread_mutex_lock(&d->lock);
		for (struct api_conn *e = d->head.next; e != &d->head; e = e->next)
			if (e == c && !c->linked) {
				list_remove(d, c);
				free(c);
				break;
			}
		pthread_mutex_unlock(&d->lock);
	}
}

static void *acceptor_run(void *p)
{
	struct api_conns *d = p;
	struct pollfd pf[2] = {{.fd = d->listen_fd, .events = POLLIN},
			       {.fd = d->stop_fd, .events = POLLIN}};

	(void)pthread_setname_np(pthread_self(), "http-accept");

	for (;;) {
		struct sockaddr_storage addr;
		socklen_t len = sizeof(addr);
		struct timespec until;
		bool stop;
		int fd;

		/* Past every connection and the reserve, clients wait in the listen backlog. */
		pthread_mutex_lock(&d->lock);
		while (!d->unlisten && !conns_room(d)) {
			deadline_in(&until, REAPER_PERIOD_MS); /* closing ones stop counting */
			pthread_cond_timedwait(&d->room, &d->lock, &until);
		}
		stop = d->unlisten;
		pthread_mutex_unlock(&d->lock);
		if (stop)
			break;
		if (poll(pf, 2, -1) < 0 && errno != EINTR)
			break;
		if (pf[1].revents)
			break;
		if (!(pf[0].revents & POLLIN))
			continue;
		fd = accept4(d->listen_fd, (struct sockaddr *)&addr, &len,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM)
				(void)poll(&pf[1], 1, 100); /* out of descriptors: a while */
			continue;
		}
		conn_accepted(d, fd, &addr, len);
	}
	return NULL;
}

int api_conns_listen(struct api_conns *d, int listen_fd, api_conn_take_fn take, void *cls)
{
	int r;

	d->listen_fd = listen_fd;
	d->take = take;
	d->take_cls = cls;
	r = pthread_create(&d->acceptor, NULL, acceptor_run, d);
	if (r != 0)
		return -r;
	d->listening = true;
	return 0;
}

void api_conns_unlisten(struct api_conns *d)
{
	const uint64_t one = 1;

	if (!d || !d->listening)
		return;
	pthread_mutex_lock(&d->lock);
	d->unlisten = true;
	pthread_cond_signal(&d->room);
	pthread_mutex_unlock(&d->lock);
	(void)!write(d->stop_fd, &one, sizeof(one));
	pthread_join(d->acceptor, NULL);
	d->listening = false;
}

struct api_conn *api_conns_link(struct api_conns *d, int fd)
{
	struct api_conn *c;

	pthread_mutex_lock(&d->lock);
	for (c = d->head.next; c != &d->head; c = c->next)
		if (!c->linked && c->fd == fd)
			break;
	if (c == &d->head) {
		/* Dropped as unlinked for too long (a very busy server): an ordinary one. */
		c = calloc(1, sizeof(*c));
		if (c) {
			c->fd = fd;
			api_conn_rule_open(&c->slot, false, mono_ms());
			list_add(d, c);
		}
	}
	if (c)
		c->linked = true;
	pthread_mutex_unlock(&d->lock);
	return c;
}

void api_conns_enter(struct api_conns *d, struct api_conn *c, enum api_conn_phase phase)
{
	if (!c)
		return;
	pthread_mutex_lock(&d->lock);
	api_conn_rule_enter(&c->slot, phase, mono_ms());
	pthread_mutex_unlock(&d->lock);
}

void api_conns_remove(struct api_conns *d, struct api_conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&d->lock);
	list_remove(d, c);
	pthread_mutex_unlock(&d->lock);
	free(c);
}

bool api_conn_reserve(const struct api_conn *c)
{
	return c && c->slot.reserve; /* set when made, never changed */
}

void api_conn_close_after(struct api_conn *c)
{
	if (c)
		c->close = true;
}

bool api_conn_closes(const struct api_conn *c)
{
	return c && (c->close || c->slot.reserve);
}

struct api_conn *api_conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		c ? MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT) : NULL;

	return ci ? ci->socket_context : NULL;
}
