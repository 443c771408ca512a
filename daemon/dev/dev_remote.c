/* SPDX-License-Identifier: MIT */
/*
 * The daemon's end of the device channel (dev_remote.h): a backend whose
 * commands are requests to the device process. Each controller gets a channel
 * of its own, opened at its first command (the daemon's guard sends one
 * command per controller at a time); the caller writes the request and reads
 * the answer itself.
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

/* One channel: the requests for one controller (or the scans), one at a time. */
struct chan {
	char name[DEV_NAME_MAX + 1]; /* the controller's name, "~name", "" or "~" (round_trip()) */
	int fd;
	bool broken; /* an answer went wrong: the next call opens a new channel */
	uint32_t next_id;
	pthread_mutex_t lock; /* held from a request's write to its answer's end */
	struct chan *next;
};

struct remote {
	int fd;			    /* the device process's socket: new channels go there */
	struct dev_backend_ops ops; /* the device process's backend, as its hello said */
	char backend[16];
	pthread_mutex_t lock; /* the list */
	struct chan *chans;
};

/* Send one end of a new socket pair to the device process. Under m->lock. */
static struct chan *chan_open(struct remote *m, const char *name)
{
	struct dev_wire_req q = {.magic = DEV_WIRE_MAGIC, .op = DEV_WIRE_CHANNEL};
	char cbuf[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {.iov_base = &q, .iov_len = sizeof(q)};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	struct chan *c;
	int sv[2];
	ssize_t n;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return NULL;
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &sv[1], sizeof(int));
	do
		n = sendmsg(m->fd, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	close(sv[1]);
	c = n == (ssize_t)sizeof(q) ? calloc(1, sizeof(*c)) : NULL;
	if (!c) {
		close(sv[0]);
		return NULL;
	}
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->fd = sv[0];
	pthread_mutex_init(&c->lock, NULL);
	c->next = m->chans;
	m->chans = c;
	return c;
}

static struct chan *chan_get(struct remote *m, const char *name)
{
	struct chan *c;

	pthread_mutex_lock(&m->lock);
	for (c = m->chans; c; c = c->next)
		if (!c->broken && strcmp(c->name, name) == 0)
			break;
	if (!c)
		c = chan_open(m, name);
	pthread_mutex_unlock(&m->lock);
	return c;
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

/*
 * recv() into @buf, and the descriptor that may come with it into *@passed
 * (one at most: a second, or any other control message, breaks the frame).
 */
static ssize_t recv_part(int fd, void *buf, size_t len, int *passed)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = cbuf,
			   .msg_controllen = sizeof(cbuf)};
	ssize_t n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
	bool bad = (m.msg_flags & MSG_CTRUNC) != 0;

	if (n < 0)
		return n;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) {
			bad = true;
			continue;
		}
		size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int f;
			memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (*passed < 0 && k == 1) {
				*passed = f;
			} else {
				close(f);
				bad = true;
			}
		}
	}
	if (bad) {
		errno = EPROTO;
		return -1;
	}
	return n;
}

/*
 * Send @q on its controller's channel and wait for the answer: the payload
 * into @buf (DEV_OP_SCAN: allocated, *(void **)@buf), its length in *@ret_got.
 * Return: the command's return value; -EPIPE when the device process is gone;
 * -EPROTO for an answer that does not fit the request.
 */
static int round_trip(struct remote *m, struct dev_wire_req *q, void *buf, size_t *ret_got)
{
	char key[DEV_NAME_MAX + 1];
	struct chan *c;
	struct dev_wire_resp h;
	/* A fixed-size answer comes whole in one read, as it was sent. */
	size_t want = sizeof(h) + (q->op == DEV_OP_SCAN ? 0 : dev_wire_resp_len(q)), got = 0;
	unsigned char small[sizeof(h) + SELFTEST_LOG_SIZE], *in = small;
	void *dst = NULL;
	int r = 0, passed = -1;

	/*
	 * A controller's commands go through the daemon's guard, one at a time,
	 * and may get stuck: its channel. What a caller runs on its own thread
	 * (the sysfs runtime state, the demo hand-over) must never wait behind
	 * a stuck command: a second channel ("~name"). Scans and options: theirs.
	 */
	if (q->op == DEV_OP_SCAN)
		key[0] = '\0';
	else if (q->op == DEV_OP_READ_RUNTIME || q->op == DEV_OP_HANDOVER ||
		 q->op == DEV_OP_CONFIGURE || q->op == DEV_OP_OPEN_NS)
		snprintf(key, sizeof(key), "~%s", q->name);
	else
		snprintf(key, sizeof(key), "%s", q->name);
	c = chan_get(m, key);
	if (!c)
		return -EPIPE;
	if (want > sizeof(small) && !(in = malloc(want)))
		return -ENOMEM;
	q->magic = DEV_WIRE_MAGIC;
	pthread_mutex_lock(&c->lock);
	q->id = ++c->next_id;
	r = io_write_all(c->fd, q, sizeof(*q));
	/* Woken by the answer only (io.h), not by the device process reading the request. */
	if (r == 0)
		r = io_wait_readable(c->fd);
	/* The header, and as much of the payload as came with it. */
	while (r == 0 && got < sizeof(h)) {
		ssize_t n = recv_part(c->fd, in + got, want - got, &passed);
		if (n < 0 && errno == EINTR)
			continue;
		r = n < 0 ? -errno : n == 0 ? -EPIPE : 0;
		got += n > 0 ? (size_t)n : 0;
	}
	if (r < 0)
		goto broken;
	memcpy(&h, in, sizeof(h));
	if (h.magic != DEV_WIRE_MAGIC || h.op != q->op || h.id != q->id ||
	    !dev_wire_resp_ok(q, h.ret, h.len) || got > sizeof(h) + h.len ||
	    /* A descriptor comes only with a namespace opened, and always then. */
	    (passed >= 0) != (q->op == DEV_OP_OPEN_NS && h.ret >= 0)) {
		log_error("device channel: a malformed answer to command %u", q->op);
		r = -EPROTO;
		goto broken;
	}
	if (q->op == DEV_OP_SCAN) {
		dst = h.len ? malloc(h.len) : NULL;
		r = !h.len ? 0 : dst ? io_read_all(c->fd, dst, h.len) : skip(c->fd, h.len);
		if (r == 0 && h.len && !dst)
			h.ret = -ENOMEM;
		if (r < 0) {
			free(dst);
			dst = NULL;
		}
		*(void **)buf = dst;
	} else {
		if (got < sizeof(h) + h.len)
			r = io_read_all(c->fd, in + got, sizeof(h) + h.len - got);
		if (r == 0 && h.len)
			memcpy(buf, in + sizeof(h), h.len);
	}
	if (r < 0)
		goto broken;
	pthread_mutex_unlock(&c->lock);
	if (in != small)
		free(in);
	if (ret_got)
		*ret_got = h.len;
	return passed >= 0 ? passed : h.ret;
broken:
	c->broken = true;
	pthread_mutex_unlock(&c->lock);
	if (passed >= 0)
		close(passed);
	if (in != small)
		free(in);
	return r == -EPROTO ? r : -EPIPE;
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

	r = round_trip(m, &q, &v, &got);
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
	return round_trip(ctx, &q, ret_page, NULL);
}

static int r_read_errlog(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			 size_t n, bool ext_data, uint8_t *ret_page)
{
	struct dev_wire_req q = {
		.op = DEV_OP_READ_ERRLOG, .now_ms = now_ms, .n = (uint32_t)n, .ext_data = ext_data};

	if (n < 1 || n > DEV_WIRE_ERRLOG_MAX)
		return -EINVAL;
	req_who(&q, name, who);
	return round_trip(ctx, &q, ret_page, NULL);
}

static int r_read_runtime(void *ctx, const char *name, int64_t now_ms,
			  enum nvme_runtime_status *ret)
{
	struct dev_wire_req q = {.op = DEV_OP_READ_RUNTIME, .now_ms = now_ms};
	int32_t v = 0;
	int r;

	req_who(&q, name, NULL);
	r = round_trip(ctx, &q, &v, NULL);
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
	return round_trip(ctx, &q, ret, NULL);
}

/*
 * The options are the device process's own: it reads its configuration
 * again when told to (a reload here), and takes nothing from this side.
 */
static void r_configure(void *ctx, const struct dev_opts *o)
{
	struct dev_wire_req q = {.op = DEV_OP_CONFIGURE};
	int r = round_trip(ctx, &q, NULL, NULL);

	(void)o;
	if (r < 0)
		log_errno(LOG_LVL_WARNING, -r, "device process: its configuration not read again");
}

static int r_sensor_limits(void *ctx, const char *name, const struct dev_ident *who,
			   uint8_t sensors, uint16_t ret_k[SMART_NUM_SENSORS])
{
	struct dev_wire_req q = {.op = DEV_OP_SENSOR_LIMITS, .sensors = sensors};

	req_who(&q, name, who);
	return round_trip(ctx, &q, ret_k, NULL);
}

static int r_selftest_start(void *ctx, const char *name, const struct dev_ident *who,
			    int64_t now_ms, uint32_t nsid, uint8_t stc)
{
	struct dev_wire_req q = {
		.op = DEV_OP_SELFTEST_START, .now_ms = now_ms, .nsid = nsid, .stc = stc};

	req_who(&q, name, who);
	return round_trip(ctx, &q, NULL, NULL);
}

static int r_read_selftest(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			   uint8_t ret_page[SELFTEST_LOG_SIZE])
{
	struct dev_wire_req q = {.op = DEV_OP_READ_SELFTEST, .now_ms = now_ms};

	req_who(&q, name, who);
	return round_trip(ctx, &q, ret_page, NULL);
}

static int r_handover(void *ctx, const char *name, int64_t at_ms)
{
	struct dev_wire_req q = {.op = DEV_OP_HANDOVER, .now_ms = at_ms};

	req_who(&q, name, NULL);
	return round_trip(ctx, &q, NULL, NULL);
}

static int r_open_ns(void *ctx, const char *ns, const struct dev_ident *who, uint32_t nsid,
		     enum dev_ns_mode mode, char ret_reason[DEV_NS_REASON_MAX])
{
	struct dev_wire_req q = {.op = DEV_OP_OPEN_NS, .nsid = nsid, .n = (uint32_t)mode};
	char why[DEV_NS_REASON_MAX] = "";
	int r;

	req_who(&q, ns, who);
	r = round_trip(ctx, &q, why, NULL);
	why[sizeof(why) - 1] = '\0';
	if (r < 0)
		snprintf(ret_reason, DEV_NS_REASON_MAX, "%s",
			 why[0]	       ? why
			 : r == -EPIPE ? "the device process is gone"
				       : strerror(-r));
	return r;
}

static int r_read_ocp(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
		      uint8_t ret_page[OCP_LOG_SIZE])
{
	struct dev_wire_req q = {.op = DEV_OP_READ_OCP, .now_ms = now_ms};

	req_who(&q, name, who);
	return round_trip(ctx, &q, ret_page, NULL);
}

static int r_read_pel(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
		      uint64_t offset, uint32_t len, bool ext_data,
		      uint8_t ret_head[PEL_HEADER_SIZE], uint8_t *ret_data)
{
	struct dev_wire_req q = {.op = DEV_OP_READ_PEL,
				 .now_ms = now_ms,
				 .n = len,
				 .offset = offset,
				 .ext_data = ext_data};
	uint8_t *buf;
	int r;

	if (!dev_pel_request_ok(offset, len))
		return -EINVAL;
	buf = malloc(PEL_HEADER_SIZE + (size_t)len);
	if (!buf)
		return -ENOMEM;
	req_who(&q, name, who);
	r = round_trip(ctx, &q, buf, NULL);
	if (r > (int)len)
		r = -EPROTO; /* more read than asked for */
	if (r >= 0) {
		memcpy(ret_head, buf, PEL_HEADER_SIZE);
		memcpy(ret_data, buf + PEL_HEADER_SIZE, (size_t)r);
	}
	free(buf);
	return r;
}

static int r_read_power(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
			uint8_t which, struct dev_power *ret)
{
	struct dev_wire_req q = {.op = DEV_OP_READ_POWER, .now_ms = now_ms, .feats = which};

	req_who(&q, name, who);
	return round_trip(ctx, &q, ret, NULL);
}

static void r_free(void *ctx)
{
	struct remote *m = ctx;

	for (struct chan *c = m->chans, *next; c; c = next) {
		next = c->next;
		close(c->fd);
		pthread_mutex_destroy(&c->lock);
		free(c);
	}
	close(m->fd); /* the device process sees the end and exits */
	pthread_mutex_destroy(&m->lock);
	free(m);
}

int dev_remote_open(int fd, struct dev_backend **ret)
{
	struct dev_wire_resp h;
	struct dev_wire_hello hello;
	struct remote *m;
	struct dev_backend *b;
	int r = io_read_all(fd, &h, sizeof(h));

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
		.caps = hello.caps,
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
		.open_ns = has & 1u << DEV_OP_OPEN_NS ? r_open_ns : NULL,
		.read_ocp = has & 1u << DEV_OP_READ_OCP ? r_read_ocp : NULL,
		.read_pel = has & 1u << DEV_OP_READ_PEL ? r_read_pel : NULL,
		.read_power = has & 1u << DEV_OP_READ_POWER ? r_read_power : NULL,
	};
	b->ops = &m->ops;
	b->ctx = m;
	*ret = b;
	return 0;
}
