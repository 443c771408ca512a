/* SPDX-License-Identifier: MIT */
/*
 * The daemon's end of the device channel (dev_remote.h): a backend whose
 * commands are requests to the device process. Any thread may call; a reader
 * thread hands each answer to the call waiting for it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nvmond/core/log.h"
#include "nvmond/dev/dev_remote.h"
#include "nvmond/dev/dev_wire.h"
#include "nvmond/util/io.h"

struct call {
	struct dev_wire_req q;
	void *buf;  /* the answer's payload goes here (DEV_OP_SCAN: allocated) */
	size_t got; /* payload bytes received */
	int ret;
	bool done;
	pthread_cond_t cond;
	struct call *next;
};

struct remote {
	int fd;
	struct dev_backend_ops ops; /* the device process's backend, as its hello said */
	char backend[16];
	pthread_mutex_t lock;
	struct call *calls; /* waiting for an answer */
	uint32_t next_id;
	bool dead; /* the device process went: every command fails */
	pthread_t reader;
};

static struct call *call_take(struct remote *m, uint32_t id)
{
	for (struct call **p = &m->calls; *p; p = &(*p)->next)
		if ((*p)->q.id == id) {
			struct call *c = *p;
			*p = c->next;
			return c;
		}
	return NULL;
}

static void fail_all(struct remote *m)
{
	m->dead = true;
	for (struct call *c = m->calls; c; c = c->next) {
		c->ret = -EPIPE;
		c->done = true;
		pthread_cond_signal(&c->cond);
	}
	m->calls = NULL;
}

/* Read and drop @len bytes. */
static int skip(int fd, size_t len)
{
	char tmp[512];

	while (len) {
		size_t k = len < sizeof(tmp) ? len : sizeof(tmp);
		int r = io_read_all(fd, tmp, k);
		if (r < 0)
			return r;
		len -= k;
	}
	return 0;
}

static void *reader(void *arg)
{
	struct remote *m = arg;
	struct dev_wire_resp h;
	int r;

	for (;;) {
		r = io_read_all(m->fd, &h, sizeof(h));
		if (r < 0 || h.magic != DEV_WIRE_MAGIC)
			break;
		pthread_mutex_lock(&m->lock);
		struct call *c = call_take(m, h.id);
		pthread_mutex_unlock(&m->lock);
		/* The caller waits for done: its buffer is ours until then. */
		if (!c || h.op != c->q.op || !dev_wire_resp_ok(&c->q, h.ret, h.len)) {
			if (c) {
				log_error("device channel: a malformed answer to command %u", h.op);
				r = skip(m->fd, h.len);
				pthread_mutex_lock(&m->lock);
				c->ret = -EPROTO;
				c->done = true;
				pthread_cond_signal(&c->cond);
				pthread_mutex_unlock(&m->lock);
			} else {
				r = skip(m->fd, h.len);
			}
			if (r < 0)
				break;
			continue;
		}
		if (h.len && c->q.op == DEV_OP_SCAN) {
			c->buf = malloc(h.len);
			r = c->buf ? io_read_all(m->fd, c->buf, h.len) : skip(m->fd, h.len);
			if (!c->buf && r == 0)
				h.ret = -ENOMEM;
		} else {
			r = h.len ? io_read_all(m->fd, c->buf, h.len) : 0;
		}
		pthread_mutex_lock(&m->lock);
		c->got = h.len;
		c->ret = r < 0 ? -EPIPE : h.ret;
		c->done = true;
		pthread_cond_signal(&c->cond);
		pthread_mutex_unlock(&m->lock);
		if (r < 0)
			break;
	}
	pthread_mutex_lock(&m->lock);
	if (!m->dead)
		log_error(
			"the device process closed its channel: device commands fail from now on");
	fail_all(m);
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

/* Send @q, wait for its answer into @buf. Return: the command's return value. */
static int call(struct remote *m, struct dev_wire_req *q, void *buf, size_t *ret_got)
{
	/* DEV_OP_SCAN: the reader allocates the payload; @buf is where it goes. */
	struct call c = {.buf = q->op == DEV_OP_SCAN ? NULL : buf};
	int r;

	q->magic = DEV_WIRE_MAGIC;
	pthread_cond_init(&c.cond, NULL);
	pthread_mutex_lock(&m->lock);
	if (m->dead) {
		pthread_mutex_unlock(&m->lock);
		pthread_cond_destroy(&c.cond);
		return -EPIPE;
	}
	q->id = ++m->next_id;
	c.q = *q;
	c.next = m->calls;
	m->calls = &c;
	/* Under the lock: requests go whole, one after the other. */
	r = io_write_all(m->fd, q, sizeof(*q));
	if (r < 0) {
		call_take(m, q->id);
		pthread_mutex_unlock(&m->lock);
		pthread_cond_destroy(&c.cond);
		return -EPIPE;
	}
	while (!c.done)
		pthread_cond_wait(&c.cond, &m->lock);
	pthread_mutex_unlock(&m->lock);
	pthread_cond_destroy(&c.cond);
	if (ret_got)
		*ret_got = c.got;
	if (c.q.op == DEV_OP_SCAN)
		*(void **)buf = c.buf;
	return c.ret;
}

static void req_who(struct dev_wire_req *q, const char *name, const struct dev_ident *who)
{
	snprintf(q->name, sizeof(q->name), "%s", name);
	if (who) {
		q->has_who = 1;
		snprintf(q->model, sizeof(q->model), "%s", who->model ? who->model : "");
		snprintf(q->serial, sizeof(q->serial), "%s", who->serial ? who->serial : "");
	}
}

static int r_scan(void *ctx, int64_t now_ms, struct dev_info **ret, size_t *ret_n)
{
	struct remote *m = ctx;
	struct dev_wire_req q = {.op = DEV_OP_SCAN, .now_ms = now_ms};
	size_t got = 0;
	void *v = NULL;
	int r;

	r = call(m, &q, &v, &got);
	if (r < 0) {
		free(v);
		return r;
	}
	struct dev_info *d = v;
	size_t n = got / sizeof(*d);
	for (size_t i = 0; i < n; i++) { /* the strings end inside their arrays */
		d[i].name[sizeof(d[i].name) - 1] = '\0';
		d[i].path[sizeof(d[i].path) - 1] = '\0';
		if (d[i].n_ns > DEV_MAX_NS)
			d[i].n_ns = DEV_MAX_NS;
	}
	*ret = d;
	*ret_n = n;
	return r;
}

static int r_read_smart(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			uint8_t ret_page[SMART_LOG_SIZE])
{
	struct dev_wire_req q = {.op = DEV_OP_READ_SMART, .now_ms = now_ms};

	req_who(&q, name, who);
	return call(ctx, &q, ret_page, NULL);
}

static int r_read_errlog(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			 size_t n, bool ext_data, uint8_t *ret_page)
{
	struct dev_wire_req q = {
		.op = DEV_OP_READ_ERRLOG, .now_ms = now_ms, .n = (uint32_t)n, .ext_data = ext_data};

	if (n < 1 || n > DEV_WIRE_ERRLOG_MAX)
		return -EINVAL;
	req_who(&q, name, who);
	return call(ctx, &q, ret_page, NULL);
}

static int r_read_runtime(void *ctx, const char *name, int64_t now_ms,
			  enum nvme_runtime_status *ret)
{
	struct dev_wire_req q = {.op = DEV_OP_READ_RUNTIME, .now_ms = now_ms};
	int32_t v = 0;
	int r;

	req_who(&q, name, NULL);
	r = call(ctx, &q, &v, NULL);
	if (r >= 0)
		*ret = v >= NVME_RUNTIME_UNKNOWN && v <= NVME_RUNTIME_UNSUPPORTED
			       ? (enum nvme_runtime_status)v
			       : NVME_RUNTIME_UNKNOWN;
	return r;
}

static int r_read_hwmon(void *ctx, const char *name, int64_t now_ms, struct nvme_hwmon_temps *ret)
{
	struct dev_wire_req q = {.op = DEV_OP_READ_HWMON, .now_ms = now_ms};

	req_who(&q, name, NULL);
	return call(ctx, &q, ret, NULL);
}

static void r_configure(void *ctx, const struct dev_opts *o)
{
	struct dev_wire_req q = {.op = DEV_OP_CONFIGURE, .wake_sleeping = o->wake_sleeping};
	int r = call(ctx, &q, NULL, NULL);

	if (r < 0)
		log_warn("device process: options not passed on: %s", strerror(-r));
}

static int r_sensor_limits(void *ctx, const char *name, const struct dev_ident *who,
			   uint8_t sensors, uint16_t ret_k[SMART_NUM_SENSORS])
{
	struct dev_wire_req q = {.op = DEV_OP_SENSOR_LIMITS, .sensors = sensors};

	req_who(&q, name, who);
	return call(ctx, &q, ret_k, NULL);
}

static int r_selftest_start(void *ctx, const char *name, const struct dev_ident *who,
			    int64_t now_ms, uint32_t nsid, uint8_t stc)
{
	struct dev_wire_req q = {
		.op = DEV_OP_SELFTEST_START, .now_ms = now_ms, .nsid = nsid, .stc = stc};

	req_who(&q, name, who);
	return call(ctx, &q, NULL, NULL);
}

static int r_read_selftest(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			   uint8_t ret_page[SELFTEST_LOG_SIZE])
{
	struct dev_wire_req q = {.op = DEV_OP_READ_SELFTEST, .now_ms = now_ms};

	req_who(&q, name, who);
	return call(ctx, &q, ret_page, NULL);
}

static int r_handover(void *ctx, const char *name, int64_t at_ms)
{
	struct dev_wire_req q = {.op = DEV_OP_HANDOVER, .now_ms = at_ms};

	req_who(&q, name, NULL);
	return call(ctx, &q, NULL, NULL);
}

static void r_free(void *ctx)
{
	struct remote *m = ctx;

	/* The reader sees the end, fails what still waits, and returns. */
	shutdown(m->fd, SHUT_RDWR);
	pthread_join(m->reader, NULL);
	close(m->fd);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

int dev_remote_open(int fd, struct dev_backend **ret)
{
	struct dev_wire_resp h;
	struct dev_wire_hello hello;
	struct remote *m;
	struct dev_backend *b;
	int r;

	r = io_read_all(fd, &h, sizeof(h));
	if (r < 0 || h.magic != DEV_WIRE_MAGIC || h.op != DEV_OP_HELLO) {
		close(fd);
		return r == -ENODATA ? -EPIPE : -EPROTO;
	}
	if (h.ret < 0) {
		close(fd);
		return h.ret;
	}
	if (h.len != sizeof(hello) || io_read_all(fd, &hello, sizeof(hello)) < 0) {
		close(fd);
		return -EPROTO;
	}
	m = calloc(1, sizeof(*m));
	b = calloc(1, sizeof(*b));
	if (!m || !b) {
		free(m);
		free(b);
		close(fd);
		return -ENOMEM;
	}
	m->fd = fd;
	pthread_mutex_init(&m->lock, NULL);
	hello.backend[sizeof(hello.backend) - 1] = '\0';
	snprintf(m->backend, sizeof(m->backend), "%s", hello.backend);
	uint32_t has = hello.ops;
	m->ops = (struct dev_backend_ops){
		.name = m->backend,
		.scan = r_scan,
		.read_smart = r_read_smart,
		.read_errlog = has & 1u << DEV_OP_READ_ERRLOG ? r_read_errlog : NULL,
		.free = r_free,
		.read_runtime = has & 1u << DEV_OP_READ_RUNTIME ? r_read_runtime : NULL,
		.read_hwmon = has & 1u << DEV_OP_READ_HWMON ? r_read_hwmon : NULL,
		.configure = r_configure,
		.read_sensor_limits = has & 1u << DEV_OP_SENSOR_LIMITS ? r_sensor_limits : NULL,
		.selftest_start = has & 1u << DEV_OP_SELFTEST_START ? r_selftest_start : NULL,
		.read_selftest = has & 1u << DEV_OP_READ_SELFTEST ? r_read_selftest : NULL,
		.selftest_handover = has & 1u << DEV_OP_HANDOVER ? r_handover : NULL,
	};
	r = pthread_create(&m->reader, NULL, reader, m);
	if (r) {
		pthread_mutex_destroy(&m->lock);
		free(m);
		free(b);
		close(fd);
		return -r;
	}
	b->ops = &m->ops;
	b->ctx = m;
	*ret = b;
	return 0;
}
