/* SPDX-License-Identifier: MIT */
/*
 * Privilege separation at the daemon's start (main_privsep.h). The device
 * process is forked first, while nothing else runs: it opens the controllers
 * and keeps the privileges device commands need, under a seccomp filter that
 * leaves it no network socket. This process, which goes on to serve HTTP,
 * then gives up every capability before its first thread starts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

#include "nvmond/core/log.h"
#include "nvmond/dev/dev_remote.h"
#include "nvmond/dev/dev_sandbox.h"
#include "nvmond/probe/probe_nsopen.h"

#include "main_cli.h"
#include "main_privsep.h"

/* Drop the bounding and ambient sets and set no_new_privs: all prctl(). */
static int caps_limit(void)
{
	/* The bounding set needs CAP_SETPCAP, which goes last of all. */
	for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EPERM)
			return -errno;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	return 0;
}

static bool caps_none(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {{0}};

	if (syscall(SYS_capget, &h, d) < 0)
		return false;
	for (size_t i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (d[i].effective || d[i].permitted || d[i].inheritable)
			return false;
	return true;
}

int privsep_caps_drop(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {{0}};
	int r = caps_limit();

	if (r < 0)
		return r;
	if (syscall(SYS_capset, &h, d) < 0)
		return -errno;
	return 0;
}

/* The device process: never returns. */
static _Noreturn void device_process(const struct cfg *c, int fd, pid_t parent)
{
	struct dev_backend *b = NULL;
	int r;

	/* It lives only as long as the daemon. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		_exit(1);
	(void)prctl(PR_SET_NAME, "nvmond-dev", 0, 0, 0);
	r = dev_sandbox_apply();
	if (r < 0)
		log_error("device process: cannot install its seccomp filter: %s", strerror(-r));
	if (r == 0)
		r = open_backend(c, &b);
	/* The scan's Identify commands get the deadline here; the daemon's own
	 * guard bounds every other command it sends. */
	if (r == 0)
		r = dev_backend_guard(b, c->device_timeout_ms);
	r = dev_serve_ns(fd, b, r, probe_ns_open);
	_exit(r < 0 ? 1 : 0);
}

/*
 * capset() refused (the unit's SystemCallFilter=~@privileged): start this
 * program again with the bounding set empty and no_new_privs, which leaves a
 * root process no capability after execve(), and hand the channel over.
 */
static int reexec_without_caps(char **argv, int fd, pid_t pid)
{
	char v[64];
	int r = caps_limit();

	if (r < 0)
		return r;
	if (fcntl(fd, F_SETFD, 0) < 0)
		return -errno;
	snprintf(v, sizeof(v), "%d %d", fd, (int)pid);
	if (setenv(PRIVSEP_ENV, v, 1) < 0)
		return -errno;
	execv("/proc/self/exe", argv);
	r = -errno;
	unsetenv(PRIVSEP_ENV);
	return r;
}

/* After reexec_without_caps(): the channel and the device process it left. */
static int adopt(const char *v, struct dev_backend **ret_backend, struct privsep *ret)
{
	struct stat st;
	int fd, pid, r;

	unsetenv(PRIVSEP_ENV);
	if (sscanf(v, "%d %d", &fd, &pid) != 2 || fd < 3 || pid < 2 || fstat(fd, &st) < 0 ||
	    !S_ISSOCK(st.st_mode)) {
		log_error("%s: not a channel and a process: %s", PRIVSEP_ENV, v);
		return -EINVAL;
	}
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	ret->pid = pid;
	ret->pidfd = pidfd_open(pid, 0);
	if (!caps_none()) {
		log_error("capabilities are left after dropping them (an inheritable set?): "
			  "refusing to serve HTTP with them");
		close(fd);
		privsep_reap(ret);
		return -EPERM;
	}
	r = dev_remote_open(fd, ret_backend);
	if (r < 0) {
		log_error("the device process did not answer: %s", strerror(-r));
		privsep_reap(ret);
		return r;
	}
	log_info("device commands run in process %d; this process holds no capability "
		 "(started again without them)",
		 pid);
	return 0;
}

int privsep_start(const struct cfg *c, char **argv, struct dev_backend **ret_backend,
		  struct privsep *ret)
{
	const char *handed = getenv(PRIVSEP_ENV);
	pid_t parent = getpid(), pid;
	int sv[2], r;

	*ret = (struct privsep){.pid = 0, .pidfd = -1};
	if (handed)
		return adopt(handed, ret_backend, ret);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		r = -errno;
		log_error("cannot create the device channel: %s", strerror(-r));
		return r;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		log_error("cannot start the device process: %s", strerror(-r));
		close(sv[0]);
		close(sv[1]);
		return r;
	}
	if (pid == 0) {
		close(sv[0]);
		device_process(c, sv[1], parent);
	}
	close(sv[1]);
	ret->pid = pid;
	ret->pidfd = pidfd_open(pid, 0);
	r = privsep_caps_drop();
	if (r == -EPERM && argv) {
		if (ret->pidfd >= 0)
			close(ret->pidfd);
		r = reexec_without_caps(argv, sv[0], pid);
		ret->pidfd = pidfd_open(pid, 0);
	}
	if (r < 0) {
		log_error("cannot drop this process's capabilities: %s", strerror(-r));
		close(sv[0]);
		privsep_reap(ret);
		return r;
	}
	r = dev_remote_open(sv[0], ret_backend);
	if (r < 0) {
		if (r == -EPIPE || r == -EPROTO)
			log_error("the device process did not answer: %s", strerror(-r));
		else
			log_error("cannot open the NVMe backend: %s", strerror(-r));
		privsep_reap(ret);
		return r;
	}
	log_info("device commands run in process %d; this process holds no capability", (int)pid);
	return 0;
}

bool privsep_reap(struct privsep *p)
{
	int status = 0;
	bool clean = false;

	if (p->pid <= 0)
		return true;
	if (p->pidfd >= 0) {
		struct pollfd f = {.fd = p->pidfd, .events = POLLIN};
		if (poll(&f, 1, 2000) == 1 && waitpid(p->pid, &status, 0) == p->pid)
			clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
		close(p->pidfd);
	} else if (waitpid(p->pid, &status, 0) == p->pid) {
		clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	*p = (struct privsep){.pid = 0, .pidfd = -1};
	return clean;
}
