/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* pthread_setname_np() */
/*
 * The device process's side of the channel (dev_remote.h). The socket it is
 * given carries only new channels: the daemon opens one per controller (and
 * one for scans) and sends its end here (SCM_RIGHTS); a thread of its own
 * serves each, one request at a time: read it, check it
 * (dev_wire_req_parse()), run it on the backend, write the answer.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nvmond/core/log.h"
#include "nvmond/dev/dev_guard.h"
#include "nvmond/dev/dev_remote.h"
#include "nvmond/dev/dev_wire.h"
#include "nvmond/util/io.h"

struct server {
	struct dev_backend *b;
	struct dev_serve_policy pol; /* zeroed: nothing to reload, no namespace opened */
	pthread_mutex_t lock;
	unsigned threads; /* channels being served */
	bool done;	  /* dev_serve() returned: the last channel's thread frees this */
};

/* The last of dev_serve() and the channels' threads to finish frees @s. */
static void server_put(struct server *s, bool serve_returns)
{
	bool last;

	pthread_mutex_lock(&s->lock);
	if (serve_returns)
		s->done = true;
	else
		s->threads--;
	last = s->done && s->threads == 0;
	pthread_mutex_unlock(&s->lock);
	if (last) {
		pthread_mutex_destroy(&s->lock);
		free(s);
	}
}

struct channel {
	struct server *s;
	int fd;
};

/*
 * The answer: header and payload in one message, so the daemon wakes once;
 * @pass_fd (>= 0) goes with its first byte (SCM_RIGHTS).
 */
static int answer_fd(int fd, const struct dev_wire_req *q, int32_t ret, const void *p, size_t len,
		     int pass_fd)
{
	struct dev_wire_resp h = {.magic = DEV_WIRE_MAGIC,
				  .op = q->op,
				  .id = q->id,
				  .ret = ret,
				  .len = ret < 0 && q->op != DEV_OP_OPEN_NS ? 0 : (uint32_t)len};
	struct iovec iov[2] = {{.iov_base = &h, .iov_len = sizeof(h)},
			       {.iov_base = (void *)p, .iov_len = h.len}};
	struct msghdr m = {.msg_iov = iov, .msg_iovlen = h.len ? 2 : 1};
	char cbuf[CMSG_SPACE(sizeof(int))] = {0};
	size_t total = sizeof(h) + h.len, done = 0;

	if (pass_fd >= 0) {
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &pass_fd, sizeof(int));
	}

	while (done < total) {
		ssize_t n = sendmsg(fd, &m, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += (size_t)n;
		m.msg_control = NULL; /* the descriptor went with the first bytes */
		m.msg_controllen = 0;
		/* A short send: step the vectors past what went. */
		for (size_t k = (size_t)n; k && m.msg_iovlen;) {
			if (k < m.msg_iov[0].iov_len) {
				m.msg_iov[0].iov_base = (char *)m.msg_iov[0].iov_base + k;
				m.msg_iov[0].iov_len -= k;
				k = 0;
			} else {
				k -= m.msg_iov[0].iov_len;
				m.msg_iov++;
				m.msg_iovlen--;
			}
		}
	}
	return 0;
}

static int answer(int fd, const struct dev_wire_req *q, int32_t ret, const void *p, size_t len)
{
	return answer_fd(fd, q, ret, p, len, -1);
}

/* DEV_OP_OPEN_NS: the opener's checks, then the descriptor goes to the daemon. */
static int run_open_ns(struct server *s, int fd, const struct dev_wire_req *q)
{
	char why[DEV_NS_REASON_MAX] = "";
	int nfd = -EOPNOTSUPP, r;

	if (s->pol.open_ns)
		nfd = s->pol.open_ns(s->pol.ctx, q->name,
				     &(struct dev_ident){.model = q->model, .serial = q->serial},
				     q->nsid, (enum dev_ns_mode)q->n, why);
	if (nfd < 0 && !why[0])
		snprintf(why, sizeof(why), "the device process cannot open /dev/%s: %s", q->name,
			 strerror(-nfd));
	if (nfd >= 0)
		log_info("device process: /dev/%s (namespace %u of drive %s) opened for %s",
			 q->name, q->nsid, q->serial,
			 q->n == DEV_NS_WRITE  ? "writing"
			 : q->n == DEV_NS_READ ? "reading"
					       : "its signature check");
	r = answer_fd(fd, q, nfd < 0 ? nfd : 0, why, sizeof(why), nfd);
	if (nfd >= 0)
		close(nfd); /* the daemon has its own now */
	return r;
}

/*
 * Run @q on the backend and answer on @fd. The scan goes through the
 * backend's guard (its Identify commands get the deadline there, a stuck one
 * marks only its controller); every other command is called as is: the
 * daemon's guard, waiting for this answer, owns the deadline and the
 * unresponsive state.
 */
static int run(struct server *s, int fd, const struct dev_wire_req *q)
{
	const struct dev_backend_ops *o = s->b->ops;
	void *ctx = s->b->ctx;
	struct dev_ident who = {.model = q->model, .serial = q->serial};
	const struct dev_ident *w = q->has_who ? &who : NULL;
	union {
		uint8_t page[SMART_LOG_SIZE > SELFTEST_LOG_SIZE ? SMART_LOG_SIZE
								: SELFTEST_LOG_SIZE];
		uint16_t limits[SMART_NUM_SENSORS];
		struct nvme_hwmon_temps hw;
		int32_t rt;
		struct dev_power pw;
	} u;
	enum nvme_runtime_status rt = NVME_RUNTIME_UNKNOWN;
	struct dev_opts opts = {0};
	struct dev_info *v = NULL;
	uint8_t *el = NULL;
	size_t n = 0;
	int r = -EOPNOTSUPP;

	memset(&u, 0, sizeof(u));
	switch (q->op) {
	case DEV_OP_SCAN:
		r = dev_scan(s->b, q->now_ms, &v, &n);
		if (r >= 0 && n > DEV_WIRE_SCAN_MAX)
			n = DEV_WIRE_SCAN_MAX;
		r = answer(fd, q, r, v, r < 0 ? 0 : n * sizeof(*v));
		free(v);
		return r;
	case DEV_OP_READ_SMART:
		r = o->read_smart(ctx, q->name, w, q->now_ms, u.page);
		break;
	case DEV_OP_READ_ERRLOG:
		el = calloc(q->n, ERRLOG_ENTRY_SIZE);
		if (!el)
			r = -ENOMEM;
		else if (o->read_errlog)
			r = o->read_errlog(ctx, q->name, w, q->now_ms, q->n, q->ext_data, el);
		r = answer(fd, q, r, el, dev_wire_resp_len(q));
		free(el);
		return r;
	case DEV_OP_READ_RUNTIME:
		if (o->read_runtime)
			r = o->read_runtime(ctx, q->name, q->now_ms, &rt);
		u.rt = (int32_t)rt;
		break;
	case DEV_OP_READ_HWMON:
		if (o->read_hwmon)
			r = o->read_hwmon(ctx, q->name, q->now_ms, &u.hw);
		break;
	case DEV_OP_CONFIGURE:
		/* The options come from the device process's own reading of the
		 * configuration, never from the request (the daemon is not
		 * trusted with them). A reload's device_timeout reaches the
		 * scan's guard here. */
		r = s->pol.reload ? s->pol.reload(s->pol.ctx, &opts) : -EOPNOTSUPP;
		if (r == 0 && o->configure)
			o->configure(ctx, &opts);
		if (r == 0 && opts.device_timeout_ms > 0 && s->b->guard)
			dev_guard_set_timeout(s->b->guard, opts.device_timeout_ms);
		r = r == -EOPNOTSUPP ? 0 : r;
		break;
	case DEV_OP_SENSOR_LIMITS:
		if (o->read_sensor_limits)
			r = o->read_sensor_limits(ctx, q->name, w, q->sensors, u.limits);
		break;
	case DEV_OP_SELFTEST_START:
		if (o->selftest_start)
			r = o->selftest_start(ctx, q->name, w, q->now_ms, q->nsid, q->stc);
		break;
	case DEV_OP_READ_SELFTEST:
		if (o->read_selftest)
			r = o->read_selftest(ctx, q->name, w, q->now_ms, u.page);
		break;
	case DEV_OP_HANDOVER:
		if (o->selftest_handover)
			r = o->selftest_handover(ctx, q->name, q->now_ms);
		break;
	case DEV_OP_OPEN_NS:
		return run_open_ns(s, fd, q);
	case DEV_OP_READ_OCP:
		if (o->read_ocp)
			r = o->read_ocp(ctx, q->name, w, q->now_ms, u.page);
		break;
	case DEV_OP_READ_PEL:
		/* The header, then the data asked for (ret: the bytes of it read). */
		el = calloc(1, dev_wire_resp_len(q));
		if (!el)
			r = -ENOMEM;
		else if (o->read_pel)
			r = o->read_pel(ctx, q->name, w, q->now_ms, q->offset, q->n, q->ext_data,
					el, el + PEL_HEADER_SIZE);
		if (r > (int)q->n)
			r = -EIO;
		r = answer(fd, q, r, el, dev_wire_resp_len(q));
		free(el);
		return r;
	case DEV_OP_READ_POWER:
		if (o->read_power)
			r = o->read_power(ctx, q->name, w, q->now_ms, (uint8_t)q->feats, &u.pw);
		break;
	default:
		r = -EINVAL;
	}
	return answer(fd, q, r, &u, dev_wire_resp_len(q));
}

/*
 * The thread of a channel named after the first request's controller
 * ("chan:nvme0"; "side:nvme0" for the side channel of what never waits behind
 * a stuck command, "side:opts" for the options, "chan:scan"), so that the
 * footprint's wakeups name it.
 * Return: true.
 */
static bool channel_name(const struct dev_wire_req *q)
{
	char comm[16];
	bool side = q->op == DEV_OP_READ_RUNTIME || q->op == DEV_OP_HANDOVER ||
		    q->op == DEV_OP_CONFIGURE || q->op == DEV_OP_OPEN_NS;

	if (q->op == DEV_OP_SCAN)
		snprintf(comm, sizeof(comm), "chan:scan");
	else
		snprintf(comm, sizeof(comm), "%s:%.10s", side ? "side" : "chan",
			 q->name[0] ? q->name : "opts");
	(void)pthread_setname_np(pthread_self(), comm);
	return true;
}

/* One channel: requests one after the other until the daemon closes it. */
static void *serve_channel(void *arg)
{
	struct channel *c = arg;
	struct server *s = c->s;
	unsigned char buf[sizeof(struct dev_wire_req)];
	bool named = false;
	int r;

	for (;;) {
		struct dev_wire_req q;

		/* Woken by the next request only (io.h), not by the daemon reading the answer. */
		r = io_wait_readable(c->fd);
		if (r == 0)
			r = io_read_all(c->fd, buf, sizeof(buf));
		if (r < 0)
			break;
		memset(&q, 0, sizeof(q));
		memcpy(&q, buf, sizeof(q));
		r = dev_wire_req_parse(buf, sizeof(buf), &q);
		if (r == 0 && !named) /* a channel serves one controller: named after it */
			named = channel_name(&q);
		if (r == -EPROTO) {
			log_error("device process: a broken request on a channel; closing it");
			break;
		}
		if (r < 0) {
			char why[DEV_NS_REASON_MAX];
			log_errno(LOG_LVL_WARNING, -r, "device process: command %u refused", q.op);
			/* A namespace's refusal carries its reason (only that answer has one). */
			snprintf(why, sizeof(why), "the device process refused the request: %s",
				 strerror(-r));
			r = answer(c->fd, &q, r, why, dev_wire_resp_len(&q));
		} else {
			r = run(s, c->fd, &q);
		}
		if (r < 0)
			break;
	}
	close(c->fd);
	free(c);
	server_put(s, false);
	return NULL;
}

/*
 * A new channel's end, sent with a DEV_WIRE_CHANNEL request.
 * Return: its fd; -ENODATA when the daemon closed the socket; -EPROTO for a
 * broken frame (the socket is not trusted any more); -EINVAL for none sent.
 */
static int recv_channel(int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct dev_wire_req q;
	struct iovec iov = {.iov_base = &q, .iov_len = sizeof(q)};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = cbuf,
			   .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm;
	ssize_t n;
	int got = -1;

	do
		n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return -ENODATA;
	if (n < 0)
		return -errno;
	for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len == CMSG_LEN(sizeof(int))) {
			if (got >= 0)
				close(got);
			memcpy(&got, CMSG_DATA(cm), sizeof(int));
		}
	if ((size_t)n != sizeof(q) || (m.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) ||
	    q.magic != DEV_WIRE_MAGIC || q.op != DEV_WIRE_CHANNEL) {
		if (got >= 0)
			close(got);
		return -EPROTO;
	}
	return got >= 0 ? got : -EINVAL;
}

static int start_channel(struct server *s, int cfd)
{
	struct channel *c = calloc(1, sizeof(*c));
	pthread_attr_t a;
	pthread_t t;
	int r;

	if (!c)
		return -ENOMEM;
	pthread_mutex_lock(&s->lock);
	if (s->threads >= DEV_SERVE_THREADS) {
		r = -EBUSY;
	} else {
		*c = (struct channel){.s = s, .fd = cfd};
		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&a, 256 * 1024);
		r = -pthread_create(&t, &a, serve_channel, c);
		pthread_attr_destroy(&a);
		if (r == 0)
			s->threads++;
	}
	pthread_mutex_unlock(&s->lock);
	if (r < 0)
		free(c);
	return r;
}

int dev_serve(int fd, struct dev_backend *b, int open_err)
{
	return dev_serve_policy(fd, b, open_err, NULL);
}

int dev_serve_policy(int fd, struct dev_backend *b, int open_err, const struct dev_serve_policy *p)
{
	struct server *s;
	struct dev_wire_hello hello = {0};
	struct dev_wire_req hq = {.op = DEV_OP_HELLO};

	if (open_err < 0)
		return answer(fd, &hq, open_err, NULL, 0);
	/* A channel's thread may outlive this call while its command is stuck
	 * in the kernel: the last one out frees it (server_put()). */
	s = calloc(1, sizeof(*s));
	if (!s)
		return answer(fd, &hq, -ENOMEM, NULL, 0);
	s->b = b;
	if (p)
		s->pol = *p;
	pthread_mutex_init(&s->lock, NULL);
	snprintf(hello.backend, sizeof(hello.backend), "%s", b->ops->name);
	hello.caps = b->ops->caps;
	const struct dev_backend_ops *o = b->ops;
	hello.ops = 1u << DEV_OP_SCAN | 1u << DEV_OP_READ_SMART | 1u << DEV_OP_CONFIGURE |
		    (o->read_errlog ? 1u << DEV_OP_READ_ERRLOG : 0) |
		    (o->read_runtime ? 1u << DEV_OP_READ_RUNTIME : 0) |
		    (o->read_hwmon ? 1u << DEV_OP_READ_HWMON : 0) |
		    (o->read_sensor_limits ? 1u << DEV_OP_SENSOR_LIMITS : 0) |
		    (o->selftest_start ? 1u << DEV_OP_SELFTEST_START : 0) |
		    (o->read_selftest ? 1u << DEV_OP_READ_SELFTEST : 0) |
		    (o->selftest_handover ? 1u << DEV_OP_HANDOVER : 0) |
		    (s->pol.open_ns ? 1u << DEV_OP_OPEN_NS : 0) |
		    (o->read_ocp ? 1u << DEV_OP_READ_OCP : 0) |
		    (o->read_pel ? 1u << DEV_OP_READ_PEL : 0) |
		    (o->read_power ? 1u << DEV_OP_READ_POWER : 0);
	if (answer(fd, &hq, 0, &hello, sizeof(hello)) < 0) {
		server_put(s, true);
		return 0;
	}
	for (;;) {
		int cfd = recv_channel(fd), r;

		if (cfd == -ENODATA) { /* the daemon closed it */
			server_put(s, true);
			return 0;
		}
		if (cfd == -EPROTO) {
			log_error("device process: a broken frame from the daemon; stopping");
			server_put(s, true);
			return cfd;
		}
		if (cfd == -EINVAL) {
			log_warn("device process: a new channel without its socket: refused");
			continue;
		}
		if (cfd < 0) { /* the socket failed: nothing more will come */
			log_errno(LOG_LVL_ERROR, -cfd, "device process: its socket failed");
			server_put(s, true);
			return cfd;
		}
		r = start_channel(s, cfd);
		if (r < 0) {
			log_errno(LOG_LVL_WARNING, -r, "device process: a new channel refused");
			close(cfd);
		}
	}
}
