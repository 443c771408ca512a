/* SPDX-License-Identifier: MIT */
/*
 * The device process's side of the channel (dev_remote.h): read a request,
 * check it (dev_wire_req_parse()), run it on a pool thread through the
 * backend's guarded calls, write the answer.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvmond/core/log.h"
#include "nvmond/dev/dev_remote.h"
#include "nvmond/dev/dev_wire.h"
#include "nvmond/util/io.h"

struct job {
	struct dev_wire_req q;
	struct job *next;
};

struct server {
	int fd;
	struct dev_backend *b;
	pthread_mutex_t wlock; /* one answer at a time on the socket */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct job *head, *tail;
	unsigned threads, idle;
};

static int answer(struct server *s, const struct dev_wire_req *q, int32_t ret, const void *p,
		  size_t len)
{
	struct dev_wire_resp h = {.magic = DEV_WIRE_MAGIC,
				  .op = q->op,
				  .id = q->id,
				  .ret = ret,
				  .len = ret < 0 ? 0 : (uint32_t)len};
	int r;

	pthread_mutex_lock(&s->wlock);
	r = io_write_all(s->fd, &h, sizeof(h));
	if (r == 0 && h.len)
		r = io_write_all(s->fd, p, len);
	pthread_mutex_unlock(&s->wlock);
	return r;
}

/*
 * Run @q on the backend. The scan goes through the backend's guard (its
 * Identify commands get the deadline there, a stuck one marks only its
 * controller); every other command is called as is: the daemon's guard,
 * waiting for this answer, owns the deadline and the unresponsive state.
 */
static void run(struct server *s, const struct dev_wire_req *q)
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
	} u;
	enum nvme_runtime_status rt = NVME_RUNTIME_UNKNOWN;
	struct dev_info *v = NULL;
	uint8_t *el = NULL;
	size_t n = 0;
	int r = -EOPNOTSUPP;

	memset(&u, 0, sizeof(u));
	switch (q->op) {
	case DEV_OP_SCAN:
		r = dev_scan(s->b, q->now_ms, &v, &n);
		(void)answer(s, q, r, v, r < 0 ? 0 : n * sizeof(*v));
		free(v);
		return;
	case DEV_OP_READ_SMART:
		r = o->read_smart(ctx, q->name, w, q->now_ms, u.page);
		break;
	case DEV_OP_READ_ERRLOG:
		el = calloc(q->n, ERRLOG_ENTRY_SIZE);
		if (!el)
			r = -ENOMEM;
		else if (o->read_errlog)
			r = o->read_errlog(ctx, q->name, w, q->now_ms, q->n, q->ext_data, el);
		(void)answer(s, q, r, el, dev_wire_resp_len(q));
		free(el);
		return;
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
		if (o->configure)
			o->configure(ctx, &(struct dev_opts){.wake_sleeping = q->wake_sleeping});
		r = 0;
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
	default:
		r = -EINVAL;
	}
	(void)answer(s, q, r, &u, dev_wire_resp_len(q));
}

static void *worker(void *arg)
{
	struct server *s = arg;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->head)
			pthread_cond_wait(&s->cond, &s->lock);
		struct job *j = s->head;
		s->head = j->next;
		if (!s->head)
			s->tail = NULL;
		s->idle--;
		pthread_mutex_unlock(&s->lock);
		run(s, &j->q);
		free(j);
		pthread_mutex_lock(&s->lock);
		s->idle++;
	}
	return NULL;
}

/* Queue @q for a pool thread; start one if none is idle. */
static int dispatch(struct server *s, const struct dev_wire_req *q)
{
	struct job *j = calloc(1, sizeof(*j));
	pthread_t t;
	int r = 0;

	if (!j)
		return -ENOMEM;
	j->q = *q;
	pthread_mutex_lock(&s->lock);
	if (s->idle == 0) {
		if (s->threads >= DEV_SERVE_THREADS) {
			r = -EBUSY;
		} else {
			pthread_attr_t a;
			pthread_attr_init(&a);
			pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
			pthread_attr_setstacksize(&a, 256 * 1024);
			if (pthread_create(&t, &a, worker, s) == 0) {
				s->threads++;
				s->idle++;
			} else {
				r = -EAGAIN;
			}
			pthread_attr_destroy(&a);
		}
	}
	if (r == 0) {
		if (s->tail)
			s->tail->next = j;
		else
			s->head = j;
		s->tail = j;
		pthread_cond_signal(&s->cond);
	}
	pthread_mutex_unlock(&s->lock);
	if (r < 0)
		free(j);
	return r;
}

int dev_serve(int fd, struct dev_backend *b, int open_err)
{
	struct server s = {.fd = fd, .b = b};
	struct dev_wire_hello hello = {0};
	struct dev_wire_req hq = {.op = DEV_OP_HELLO};
	unsigned char buf[sizeof(struct dev_wire_req)];
	int r;

	pthread_mutex_init(&s.wlock, NULL);
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.cond, NULL);
	if (open_err < 0)
		return answer(&s, &hq, open_err, NULL, 0);
	snprintf(hello.backend, sizeof(hello.backend), "%s", b->ops->name);
	const struct dev_backend_ops *o = b->ops;
	hello.ops = 1u << DEV_OP_SCAN | 1u << DEV_OP_READ_SMART | 1u << DEV_OP_CONFIGURE |
		    (o->read_errlog ? 1u << DEV_OP_READ_ERRLOG : 0) |
		    (o->read_runtime ? 1u << DEV_OP_READ_RUNTIME : 0) |
		    (o->read_hwmon ? 1u << DEV_OP_READ_HWMON : 0) |
		    (o->read_sensor_limits ? 1u << DEV_OP_SENSOR_LIMITS : 0) |
		    (o->selftest_start ? 1u << DEV_OP_SELFTEST_START : 0) |
		    (o->read_selftest ? 1u << DEV_OP_READ_SELFTEST : 0) |
		    (o->selftest_handover ? 1u << DEV_OP_HANDOVER : 0);
	r = answer(&s, &hq, 0, &hello, sizeof(hello));
	while (r == 0) {
		struct dev_wire_req q;

		r = io_read_all(fd, buf, sizeof(buf));
		if (r == -ENODATA) /* the daemon closed the channel */
			return 0;
		if (r < 0)
			break;
		memset(&q, 0, sizeof(q));
		memcpy(&q, buf, sizeof(q));
		r = dev_wire_req_parse(buf, sizeof(buf), &q);
		if (r == -EPROTO) {
			log_error("device process: a broken request on the channel; stopping");
			return r;
		}
		if (r == 0)
			r = dispatch(&s, &q);
		if (r < 0) {
			log_warn("device process: request %u (command %u) refused: %s", q.id, q.op,
				 strerror(-r));
			r = answer(&s, &q, r, NULL, 0);
		}
	}
	return r;
}
