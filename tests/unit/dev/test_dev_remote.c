/* SPDX-License-Identifier: MIT */
/*
 * The device channel end to end in one process (dev_remote.h): dev_serve() on
 * a thread answering for the demo backend, dev_remote_open() as the daemon's
 * backend. Every command answers as the backend itself does; the channel
 * closing fails what waits; a broken frame stops the server.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "nvmond/demo/demo.h"
#include "nvmond/dev/dev.h"
#include "nvmond/dev/dev_guard.h"
#include "nvmond/dev/dev_remote.h"
#include "nvmond/dev/dev_wire.h"

#define NOW 1764547200000LL /* 2025-12-01 00:00 UTC */

struct served {
	int fd;
	struct dev_backend *b;
	int ret;
	pthread_t t;
};

static void *serve(void *arg)
{
	struct served *s = arg;

	s->ret = dev_serve(s->fd, s->b, 0);
	return NULL;
}

/* A demo backend behind a channel: @ret_local answers directly, @ret_remote through it. */
static void pair(struct served *s, struct dev_backend **ret_local, struct dev_backend **ret_remote)
{
	int sv[2];

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	cr_assert_eq(dev_demo_open_n(2, &s->b), 0);
	cr_assert_eq(dev_demo_open_n(2, ret_local), 0);
	s->fd = sv[1];
	cr_assert_eq(pthread_create(&s->t, NULL, serve, s), 0);
	cr_assert_eq(dev_remote_open(sv[0], ret_remote), 0);
}

Test(dev_remote, answers_as_the_backend)
{
	struct served s;
	struct dev_backend *local, *remote;
	struct dev_info *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;

	pair(&s, &local, &remote);
	cr_expect_str_eq(remote->ops->name, "demo");
	/* Rule (dev.h DEV_CAP_*): what the drives are is asked of the backend, and the
	 * daemon's end of the channel is the backend it talks to: the hello carries it. */
	cr_expect_neq(local->ops->caps, 0);
	cr_expect_eq(remote->ops->caps, local->ops->caps, "capabilities %#x through the hello, %#x",
		     remote->ops->caps, local->ops->caps);
	cr_expect(dev_has(remote, DEV_CAP_OWN_PROBES | DEV_CAP_HISTORY));
	cr_assert_eq(dev_scan(local, NOW, &a, &na), 0);
	cr_assert_eq(dev_scan(remote, NOW, &b, &nb), 0);
	cr_assert_eq(na, 2);
	cr_assert_eq(nb, na);
	cr_expect(memcmp(a, b, na * sizeof(*a)) == 0, "the scan as the backend answers it");

	struct dev_ident who = {.model = a[1].id.model, .serial = a[1].id.serial};
	uint8_t p1[SMART_LOG_SIZE], p2[SMART_LOG_SIZE];
	cr_assert_eq(dev_read_smart(local, "demo1", &who, NOW + 5000, p1), 0);
	cr_assert_eq(dev_read_smart(remote, "demo1", &who, NOW + 5000, p2), 0);
	cr_expect(memcmp(p1, p2, sizeof(p1)) == 0, "the SMART page as the backend answers it");

	/* Someone else's identity: the backend's -ESTALE comes through. */
	struct dev_ident other = {.model = a[0].id.model, .serial = a[0].id.serial};
	cr_expect_eq(dev_read_smart(remote, "demo1", &other, NOW, p2),
		     dev_read_smart(local, "demo1", &other, NOW, p1));
	cr_expect_lt(dev_read_smart(remote, "demo1", &other, NOW, p2), 0);
	/* A name the device process refuses before the backend sees it. */
	cr_expect_eq(dev_read_smart(remote, "demo1/..", NULL, NOW, p2), -EINVAL);

	uint8_t e1[4 * ERRLOG_ENTRY_SIZE], e2[4 * ERRLOG_ENTRY_SIZE];
	cr_assert_eq(dev_read_errlog(local, "demo1", &who, NOW, 4, false, e1),
		     dev_read_errlog(remote, "demo1", &who, NOW, 4, false, e2));
	cr_expect(memcmp(e1, e2, sizeof(e1)) == 0, "the error log as the backend answers it");

	uint16_t k1[SMART_NUM_SENSORS] = {0}, k2[SMART_NUM_SENSORS] = {0};
	cr_assert_eq(dev_read_sensor_limits(local, "demo1", &who, 0x3, k1),
		     dev_read_sensor_limits(remote, "demo1", &who, 0x3, k2));
	cr_expect(memcmp(k1, k2, sizeof(k1)) == 0);

	uint8_t t1[SELFTEST_LOG_SIZE], t2[SELFTEST_LOG_SIZE];
	cr_assert_eq(dev_selftest_start(remote, "demo0", NULL, NOW, DEV_SELFTEST_NSID_ALL,
					SELFTEST_CODE_SHORT),
		     0);
	cr_assert_eq(dev_selftest_start(local, "demo0", NULL, NOW, DEV_SELFTEST_NSID_ALL,
					SELFTEST_CODE_SHORT),
		     0);
	cr_assert_eq(dev_read_selftest(local, "demo0", NULL, NOW + 1000, t1), 0);
	cr_assert_eq(dev_read_selftest(remote, "demo0", NULL, NOW + 1000, t2), 0);
	cr_expect(memcmp(t1, t2, sizeof(t1)) == 0, "the self-test log after the same start");
	/* A vendor self-test never leaves the daemon's side as a valid request. */
	cr_expect_eq(dev_selftest_start(remote, "demo0", NULL, NOW, DEV_SELFTEST_NSID_ALL,
					SELFTEST_CODE_VENDOR),
		     -EINVAL);
	cr_expect_eq(dev_demo_selftest_handover(remote, "demo1", NOW), 0);
	cr_expect_eq(dev_demo_selftest_handover(remote, "demo9", NOW), -ENODEV);

	free(a);
	free(b);
	dev_backend_free(remote);
	pthread_join(s.t, NULL);
	cr_expect_eq(s.ret, 0, "the server ends cleanly when the daemon closes the channel");
	dev_backend_free(local);
	dev_backend_free(s.b);
}

/* Many threads at once: each gets its own answer (the ids route them). */
struct hammer {
	struct dev_backend *remote, *local;
	int errors;
};

static void *hammer(void *arg)
{
	struct hammer *h = arg;
	uint8_t p1[SMART_LOG_SIZE], p2[SMART_LOG_SIZE];

	for (int i = 0; i < 200; i++) {
		const char *name = i % 2 ? "demo1" : "demo0";
		int64_t t = NOW + i * 1000;
		if (dev_read_smart(h->remote, name, NULL, t, p2) != 0 ||
		    dev_read_smart(h->local, name, NULL, t, p1) != 0 || memcmp(p1, p2, sizeof(p1)))
			__atomic_add_fetch(&h->errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

Test(dev_remote, concurrent_calls)
{
	struct served s;
	struct hammer h = {0};
	pthread_t t[8];

	pair(&s, &h.local, &h.remote);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, hammer, &h), 0);
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	cr_expect_eq(h.errors, 0, "%d answers went to the wrong call", h.errors);
	dev_backend_free(h.remote);
	pthread_join(s.t, NULL);
	dev_backend_free(h.local);
	dev_backend_free(s.b);
}

/* The device process gone: commands fail with -EPIPE instead of waiting. */
Test(dev_remote, channel_closed)
{
	struct served s;
	struct dev_backend *local, *remote;
	uint8_t p[SMART_LOG_SIZE];

	pair(&s, &local, &remote);
	shutdown(s.fd, SHUT_RDWR);
	pthread_join(s.t, NULL);
	cr_expect_eq(dev_read_smart(remote, "demo0", NULL, NOW, p), -EPIPE);
	cr_expect_eq(dev_read_smart(remote, "demo0", NULL, NOW, p), -EPIPE);
	dev_backend_free(remote);
	dev_backend_free(local);
	dev_backend_free(s.b);
}

/* Rule: a broken frame (wrong magic) stops the server: the channel is not trusted. */
Test(dev_remote, broken_frame_stops_the_server)
{
	struct served s = {0};
	struct dev_wire_resp hello;
	struct dev_wire_req q = {.magic = 0xdeadbeef, .op = DEV_OP_READ_SMART};
	int sv[2];
	char buf[256];

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	cr_assert_eq(dev_demo_open_n(1, &s.b), 0);
	s.fd = sv[1];
	cr_assert_eq(pthread_create(&s.t, NULL, serve, &s), 0);
	cr_assert_eq(read(sv[0], &hello, sizeof(hello)), (ssize_t)sizeof(hello));
	cr_assert_eq(hello.op, DEV_OP_HELLO);
	cr_assert_eq(read(sv[0], buf, hello.len), (ssize_t)hello.len);
	cr_assert_eq(write(sv[0], &q, sizeof(q)), (ssize_t)sizeof(q));
	pthread_join(s.t, NULL);
	cr_expect_eq(s.ret, -EPROTO);
	close(sv[0]);
	close(sv[1]);
	dev_backend_free(s.b);
}

/* The backend did not open: the daemon gets that error from the hello. */
Test(dev_remote, failed_hello)
{
	int sv[2];
	struct dev_backend *remote = NULL;

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	cr_assert_eq(dev_serve(sv[1], NULL, -ENOENT), 0);
	cr_expect_eq(dev_remote_open(sv[0], &remote), -ENOENT);
	cr_expect_null(remote);
	close(sv[1]);
}

/* A command stuck on one controller holds only that controller's channel. */
struct stuck {
	struct dev_backend *remote;
	int ret;
	bool done;
};

static void *read_demo1(void *arg)
{
	struct stuck *x = arg;
	uint8_t p[SMART_LOG_SIZE];

	x->ret = dev_read_smart(x->remote, "demo1", NULL, NOW, p);
	__atomic_store_n(&x->done, true, __ATOMIC_RELEASE);
	return NULL;
}

Test(dev_remote, stuck_controller_holds_only_its_channel, .timeout = 20)
{
	char path[] = "/tmp/nvmond-hang-XXXXXX";
	int fd = mkstemp(path);
	struct served s;
	struct dev_backend *local, *remote;
	struct stuck x = {0};
	uint8_t p[SMART_LOG_SIZE];
	pthread_t t;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "demo1\n", 6), 6);
	close(fd);
	setenv(DEV_DEMO_HANG_ENV, path, 1);
	pair(&s, &local, &remote);
	x.remote = remote;
	cr_assert_eq(pthread_create(&t, NULL, read_demo1, &x), 0);
	/* demo1 hangs as a controller stuck in the kernel would; demo0 answers meanwhile. */
	for (int i = 0; i < 20; i++)
		cr_expect_eq(dev_read_smart(remote, "demo0", NULL, NOW + i * 1000, p), 0);
	cr_expect(!__atomic_load_n(&x.done, __ATOMIC_ACQUIRE), "demo1 answered while hung");
	/* What a caller runs on its own thread (the runtime state, the hand-over)
	 * never waits behind the stuck command: its own channel. */
	cr_expect_eq(dev_demo_selftest_handover(remote, "demo1", NOW), 0);
	/* The line gone: the stuck command returns. */
	cr_assert_eq(truncate(path, 0), 0);
	pthread_join(t, NULL);
	cr_expect_eq(x.ret, 0);
	unlink(path);
	unsetenv(DEV_DEMO_HANG_ENV);
	dev_backend_free(remote);
	pthread_join(s.t, NULL);
	dev_backend_free(local);
	dev_backend_free(s.b);
}

/* A device process's own configuration, as its policy reads it. */
struct test_policy {
	int reloads;
	int r;		    /* what a reload returns */
	int64_t timeout_ms; /* the device_timeout it read */
};

static int test_reload(void *ctx, struct dev_opts *ret)
{
	struct test_policy *p = ctx;

	p->reloads++;
	if (p->r < 0)
		return p->r;
	*ret = (struct dev_opts){.device_timeout_ms = p->timeout_ms};
	return 0;
}

struct served_pol {
	struct served s;
	struct dev_serve_policy pol;
};

static void *serve_pol(void *arg)
{
	struct served_pol *sp = arg;

	sp->s.ret = dev_serve_policy(sp->s.fd, sp->s.b, 0, &sp->pol);
	return NULL;
}

/* Rule (issue 23 §1): a reload's options, [daemon] device_timeout among them,
 * come from the device process's own reading of the configuration and reach
 * its own guard (its scan's Identify commands); what the daemon's request
 * would carry is never taken; a reload that fails leaves them as they are. */
Test(dev_remote, options_come_from_the_device_process)
{
	struct test_policy tp = {.timeout_ms = 1234};
	struct served_pol sp = {.pol = {.ctx = &tp, .reload = test_reload}};
	struct dev_backend *remote;
	int sv[2];

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	cr_assert_eq(dev_demo_open_n(1, &sp.s.b), 0);
	cr_assert_eq(dev_backend_guard(sp.s.b, 5000), 0);
	sp.s.fd = sv[1];
	cr_assert_eq(pthread_create(&sp.s.t, NULL, serve_pol, &sp), 0);
	cr_assert_eq(dev_remote_open(sv[0], &remote), 0);
	dev_configure(remote, &(struct dev_opts){.device_timeout_ms = 60000});
	cr_expect_eq(tp.reloads, 1, "a reload reads the configuration again");
	cr_expect_eq(dev_guard_timeout_ms(sp.s.b->guard), 1234, "its own, not the daemon's 60000");
	tp.timeout_ms = 7000;
	dev_configure(remote, &(struct dev_opts){.wake_sleeping = true});
	cr_expect_eq(dev_guard_timeout_ms(sp.s.b->guard), 7000);
	tp.r = -EINVAL;
	dev_configure(remote, &(struct dev_opts){.device_timeout_ms = 100});
	cr_expect_eq(tp.reloads, 3);
	cr_expect_eq(dev_guard_timeout_ms(sp.s.b->guard), 7000, "a failed reload keeps them");
	dev_backend_free(remote);
	pthread_join(sp.s.t, NULL);
	dev_backend_free(sp.s.b);
}

/* Without a policy (nothing of its own to read) a reload changes nothing. */
Test(dev_remote, options_without_a_policy_change_nothing)
{
	struct served s;
	struct dev_backend *local, *remote;

	pair(&s, &local, &remote);
	cr_assert_eq(dev_backend_guard(s.b, 5000), 0);
	dev_configure(remote, &(struct dev_opts){.device_timeout_ms = 1234});
	cr_expect_eq(dev_guard_timeout_ms(s.b->guard), 5000);
	dev_backend_free(remote);
	pthread_join(s.t, NULL);
	dev_backend_free(local);
	dev_backend_free(s.b);
}

/* ---- DEV_OP_OPEN_NS: a descriptor from the device process ---- */

static char opened_path[64];

/* The test's opener: a temporary file stands for nvme0n1 of drive S1; nvme1n1 is busy. */
static int test_opener(void *ctx, const char *ns, const struct dev_ident *who, uint32_t nsid,
		       enum dev_ns_mode mode, char ret_reason[DEV_NS_REASON_MAX])
{
	(void)ctx;
	if (strcmp(ns, "nvme0n1") || strcmp(who->serial, "S1") || nsid != 1 ||
	    mode != DEV_NS_WRITE) {
		snprintf(ret_reason, DEV_NS_REASON_MAX, "/dev/%s is in use: refused", ns);
		return -EBUSY;
	}
	return open(opened_path, O_RDWR | O_CLOEXEC);
}

static void *serve_ns(void *arg)
{
	struct served *s = arg;

	s->ret = dev_serve_policy(s->fd, s->b, 0,
				  &(struct dev_serve_policy){.open_ns = test_opener});
	return NULL;
}

static int fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	cr_assert_not_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Rule: the namespace the device process opened reaches the daemon as a
 * descriptor of that very file; a refusal comes with its reason and no descriptor. */
Test(dev_remote, open_ns_passes_the_descriptor)
{
	struct served s = {0};
	struct dev_backend *remote;
	struct dev_ident who = {.model = "", .serial = "S1"};
	char why[DEV_NS_REASON_MAX] = "";
	struct stat a, b;
	int sv[2], tfd;

	snprintf(opened_path, sizeof(opened_path), "/tmp/nvmond-test-ns-XXXXXX");
	tfd = mkstemp(opened_path);
	cr_assert_geq(tfd, 0);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	cr_assert_eq(dev_demo_open_n(1, &s.b), 0);
	s.fd = sv[1];
	cr_assert_eq(pthread_create(&s.t, NULL, serve_ns, &s), 0);
	cr_assert_eq(dev_remote_open(sv[0], &remote), 0);
	cr_assert_not_null(remote->ops->open_ns, "the hello announces DEV_OP_OPEN_NS");

	int fd = dev_open_ns(remote, "nvme0n1", &who, 1, DEV_NS_WRITE, why);
	cr_assert_geq(fd, 0, "opened: %d %s", fd, why);
	cr_assert_eq(fstat(fd, &a), 0);
	cr_assert_eq(fstat(tfd, &b), 0);
	cr_expect(a.st_dev == b.st_dev && a.st_ino == b.st_ino, "the very file the opener opened");
	cr_expect_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC, "close-on-exec, as opened");
	cr_assert_eq(pwrite(fd, "nvmond", 6, 0), 6);
	char got[8] = "";
	cr_assert_eq(pread(tfd, got, 6, 0), 6);
	cr_expect_str_eq(got, "nvmond");
	close(fd);
	/* The server closes its copy after the answer, before it reads the next
	 * request on that channel: once this answers, only channels are left. */
	cr_expect_eq(dev_open_ns(remote, "nvme0n1", &who, 1, DEV_NS_READ, why), -EBUSY,
		     "the opener sees the mode asked for");
	int before = fd_count();

	why[0] = '\0';
	cr_expect_eq(dev_open_ns(remote, "nvme1n1", &who, 1, DEV_NS_WRITE, why), -EBUSY);
	cr_expect_str_eq(why, "/dev/nvme1n1 is in use: refused");
	/* Refused by the request check before the opener: a partition. */
	why[0] = '\0';
	cr_expect_eq(dev_open_ns(remote, "nvme0n1p1", &who, 1, DEV_NS_WRITE, why), -EINVAL);
	cr_expect(why[0] != '\0', "a refusal has a reason");
	/* The refusals left no descriptor: each name has a channel of its own
	 * ("~nvme1n1", "~nvme0n1p1"), both of whose ends are in this process. */
	int after = fd_count();
	cr_expect_eq(after, before + 2 * 2, "no descriptor left over by the refusals: %d, was %d",
		     after, before);
	dev_backend_free(remote);
	pthread_join(s.t, NULL);
	close(tfd);
	unlink(opened_path);
	dev_backend_free(s.b);
}

/* Without an opener (the device process of an older build) nothing is opened there. */
Test(dev_remote, open_ns_unsupported)
{
	struct served s;
	struct dev_backend *local, *remote;
	char why[DEV_NS_REASON_MAX] = "";

	pair(&s, &local, &remote);
	cr_expect_null(remote->ops->open_ns);
	cr_expect_eq(
		dev_open_ns(remote, "nvme0n1", &(struct dev_ident){"", "S1"}, 1, DEV_NS_READ, why),
		-EOPNOTSUPP);
	dev_backend_free(remote);
	pthread_join(s.t, NULL);
	dev_backend_free(local);
	dev_backend_free(s.b);
}

/* A device process that answers a SMART read with a descriptor. */
static void *stray_fd_server(void *arg)
{
	int fd = *(int *)arg, cfd = -1, extra = open("/dev/null", O_RDONLY | O_CLOEXEC);
	struct dev_wire_req q;
	char cbuf[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {.iov_base = &q, .iov_len = sizeof(q)};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = cbuf,
			   .msg_controllen = sizeof(cbuf)};

	/* The new channel's end, then the request on it. */
	if (recvmsg(fd, &m, MSG_WAITALL) != sizeof(q) || !CMSG_FIRSTHDR(&m))
		return NULL;
	memcpy(&cfd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
	if (read(cfd, &q, sizeof(q)) != sizeof(q))
		return NULL;
	struct {
		struct dev_wire_resp h;
		uint8_t page[SMART_LOG_SIZE];
	} a = {.h = {.magic = DEV_WIRE_MAGIC, .op = q.op, .id = q.id, .len = SMART_LOG_SIZE}};
	struct iovec aiov = {.iov_base = &a, .iov_len = sizeof(a)};
	struct msghdr am = {.msg_iov = &aiov,
			    .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&am);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &extra, sizeof(int));
	(void)sendmsg(cfd, &am, MSG_NOSIGNAL);
	close(extra);
	/* Wait for the daemon's end to close the channel. */
	(void)read(cfd, &q, 1);
	close(cfd);
	return NULL;
}

/* Rule: a descriptor comes only with a namespace opened: one with any other
 * answer breaks the channel, and is closed, not kept. */
Test(dev_remote, stray_descriptor_breaks_the_channel)
{
	struct dev_wire_resp h = {
		.magic = DEV_WIRE_MAGIC, .op = DEV_OP_HELLO, .len = sizeof(struct dev_wire_hello)};
	struct dev_wire_hello hello = {.backend = "fake", .ops = 1u << DEV_OP_READ_SMART};
	struct dev_backend *remote;
	uint8_t page[SMART_LOG_SIZE];
	pthread_t t;
	int sv[2];

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	cr_assert_eq(write(sv[1], &h, sizeof(h)), (ssize_t)sizeof(h));
	cr_assert_eq(write(sv[1], &hello, sizeof(hello)), (ssize_t)sizeof(hello));
	cr_assert_eq(dev_remote_open(sv[0], &remote), 0);
	int before = fd_count();
	cr_assert_eq(pthread_create(&t, NULL, stray_fd_server, &sv[1]), 0);
	cr_expect_eq(dev_read_smart(remote, "nvme0", NULL, NOW, page), -EPROTO);
	dev_backend_free(remote);
	pthread_join(t, NULL);
	close(sv[1]);
	/* The channel's socket and the stray descriptor are gone, both ends of the first too. */
	cr_expect_eq(fd_count(), before - 2, "a stray descriptor was kept");
}

/*
 * Issue 27: log C0h, a Persistent Event Log read at an offset and the power
 * features answer through the channel as the backend answers them (the PEL's
 * answer has a length of its own: the bytes read of those asked).
 */
Test(dev_remote, drive_logs_as_the_backend)
{
	struct served s;
	struct dev_backend *local, *remote;
	uint8_t p1[OCP_LOG_SIZE], p2[OCP_LOG_SIZE];

	pair(&s, &local, &remote);
	cr_assert_eq(dev_read_ocp(local, "demo0", NULL, NOW, p1), 0);
	cr_assert_eq(dev_read_ocp(remote, "demo0", NULL, NOW, p2), 0);
	cr_expect(memcmp(p1, p2, sizeof(p1)) == 0, "log C0h as the backend answers it");

	static uint8_t d1[DEV_PEL_READ_MAX], d2[DEV_PEL_READ_MAX];
	uint8_t h1[PEL_HEADER_SIZE], h2[PEL_HEADER_SIZE];
	int n1 = dev_read_pel(local, "demo1", NULL, NOW, 1024, 4096, true, h1, d1);
	int n2 = dev_read_pel(remote, "demo1", NULL, NOW, 1024, 4096, true, h2, d2);
	cr_assert_eq(n1, 4096);
	cr_assert_eq(n2, n1);
	cr_expect(memcmp(h1, h2, sizeof(h1)) == 0 && memcmp(d1, d2, 4096) == 0);
	/* Near the end of the log: fewer bytes than asked. */
	struct pel_header h;
	cr_assert_eq(pel_header_decode(h1, &h), 0);
	uint64_t off = (h.tll - 100) & ~3ull;
	n1 = dev_read_pel(local, "demo1", NULL, NOW, off, 4096, true, h1, d1);
	n2 = dev_read_pel(remote, "demo1", NULL, NOW, off, 4096, true, h2, d2);
	cr_expect_eq(n1, (int)(h.tll - off));
	cr_expect_eq(n2, n1, "the bytes read, not the bytes asked");
	cr_expect(memcmp(d1, d2, (size_t)n1) == 0);
	/* From an offset off the dword grid (an event need not end on one), as local. */
	n1 = dev_read_pel(local, "demo1", NULL, NOW, 1026, 4096, true, h1, d1);
	n2 = dev_read_pel(remote, "demo1", NULL, NOW, 1026, 4096, true, h2, d2);
	cr_expect_eq(n1, 4096);
	cr_expect(n2 == n1 && memcmp(d1, d2, 4096) == 0,
		  "an unaligned offset goes through the channel");
	cr_expect_eq(dev_read_pel(remote, "demo1", NULL, NOW, 510, 4096, true, h2, d2), -EINVAL,
		     "never inside the header");

	struct dev_power a, b2;
	cr_assert_eq(dev_read_power(local, "demo0", NULL, NOW, DEV_POWER_ALL, &a), 0);
	cr_assert_eq(dev_read_power(remote, "demo0", NULL, NOW, DEV_POWER_ALL, &b2), 0);
	cr_expect(a.got == b2.got && a.pm_dw0 == b2.pm_dw0 && a.apst_dw0 == b2.apst_dw0 &&
			  a.hctm_dw0 == b2.hctm_dw0 &&
			  memcmp(a.apst_table, b2.apst_table, sizeof(a.apst_table)) == 0,
		  "the power features as the backend answers them");
	cr_expect_eq(dev_read_power(remote, "demo0", NULL, NOW, DEV_POWER_APST, &b2), -EINVAL,
		     "Power Management is always asked");

	dev_backend_free(remote);
	pthread_join(s.t, NULL);
	dev_backend_free(local);
	dev_backend_free(s.b);
}
