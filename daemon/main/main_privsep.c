/* SPDX-License-Identifier: MIT */
/*
 * Privilege separation at the daemon's start (main_privsep.h). The device
 * process is forked first, while nothing else runs: it opens the controllers
 * and keeps the privileges device commands need, under a seccomp filter that
 * leaves it no network socket. This process, which goes on to serve HTTP,
 * then gives up every capability before its first thread starts and, started
 * as root with [daemon] user, becomes that user first.
 */
#define _GNU_SOURCE /* setresuid(), getresuid() */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <pwd.h>
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
#include "nvmond/probe/probe_lock.h"

#include "nvmond/main/main_cli.h"
#include "nvmond/main/main_devpolicy.h"
#include "nvmond/main/main_privsep.h"
#include "nvmond/probe/probe_conf.h"

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

/*
 * No effective or permitted capability (the ambient set is a part of the
 * permitted one). An inheritable set is harmless under no_new_privs, which
 * makes execve() grant nothing the process does not already hold; it is what
 * a service started with AmbientCapabilities= keeps after its restart without
 * capabilities, since only capset(), which the unit refuses, could clear it.
 */
static bool caps_none(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {{0}};
	bool nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;

	if (syscall(SYS_capget, &h, d) < 0)
		return false;
	for (size_t i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (d[i].effective || d[i].permitted || (d[i].inheritable && !nnp))
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
static _Noreturn void device_process(const struct cfg *c, const struct opts *o, int fd,
				     pid_t parent)
{
	struct dev_backend *b = NULL;
	struct dev_serve_policy pol = {0};
	int r;

	/* It lives only as long as the daemon. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		_exit(1);
	(void)prctl(PR_SET_NAME, "nvmond-dev", 0, 0, 0);
	r = dev_sandbox_apply();
	if (r < 0)
		log_errno(LOG_LVL_ERROR, -r, "device process: cannot install its seccomp filter");
	if (r == 0)
		r = open_backend(c, &b);
	/* The scan's Identify commands get the deadline here; the daemon's own
	 * guard bounds every other command it sends. */
	if (r == 0)
		r = dev_backend_guard(b, c->device_timeout_ms);
	/* Its options and the raw-namespace policy: its own reading of the
	 * configuration, never the daemon's (issue 23 §1). */
	if (r == 0)
		r = devpolicy_new(o, c, &pol);
	r = dev_serve_policy(fd, b, r, &pol);
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
		log_errno(LOG_LVL_ERROR, -r, "the device process did not answer");
		privsep_reap(ret);
		return r;
	}
	log_info("device commands run in process %d; this process holds no capability "
		 "(started again without them)",
		 pid);
	return 0;
}

/*
 * Under @fd, a directory holding only probe locks: each lock file opened up
 * to read (flock() works on a read-only descriptor), so that the next owner
 * locks the previous one's files. Through a descriptor opened without
 * following a link, and only a regular file with one link: the previous
 * owner, who could write there, cannot make root open up another file.
 */
static void lock_files_open_up(int fd, DIR *d)
{
	struct dirent *e;

	rewinddir(d);
	while ((e = readdir(d))) {
		struct stat f;
		int lf;
		if (fnmatch("probe-*.lock", e->d_name, FNM_PERIOD) != 0 ||
		    fstatat(fd, e->d_name, &f, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(f.st_mode) ||
		    (f.st_mode & 0044) == 0044)
			continue;
		lf = openat(fd, e->d_name,
			    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (lf < 0)
			continue;
		if (fstat(lf, &f) == 0 && S_ISREG(f.st_mode) && f.st_nlink == 1)
			(void)fchmod(lf, 0644);
		close(lf);
	}
}

/*
 * Started as root, before dropping it: the probe lock directory ([probes]
 * lock_dir, by default /run/nvmond for root) made if missing and handed to
 * the daemon's user to be (@uid: [daemon] user, or root itself without it)
 * when another owns it and it holds nothing but probe locks (a lock_dir of
 * /run or /tmp is never taken), their files opened up to read. So a daemon
 * as one user finds the directory a daemon as another left: a root one
 * without a capability could not even open nobody's 0700 directory.
 * Logs what it cannot do: the probes then report it.
 */
static void lock_dir_prepare(const struct cfg *c, uid_t uid, gid_t gid, const char *name)
{
	char buf[CFG_PATH_MAX];
	const char *dir = probe_conf(c)->lock_dir[0] ? probe_conf(c)->lock_dir
						     : probe_lock_dir_default(buf, sizeof(buf));
	struct dirent *e;
	struct stat st;
	bool locks_only = true;
	DIR *d;
	int fd;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		log_errno(LOG_LVL_WARNING, errno, "cannot make the probe lock directory %s", dir);
		return;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		log_errno(LOG_LVL_WARNING, errno, "cannot open the probe lock directory %s", dir);
		if (fd >= 0)
			close(fd);
		return;
	}
	if (st.st_uid == uid) {
		close(fd);
		return;
	}
	d = fdopendir(dup(fd));
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		    fnmatch("probe-*.lock", e->d_name, FNM_PERIOD) != 0)
			locks_only = false;
	if (d && locks_only)
		lock_files_open_up(fd, d);
	if (!d || !locks_only)
		log_warn("the probe lock directory %s belongs to uid %u and holds other files: not "
			 "handing it to %s, whose probes may fail to take their lock",
			 dir, (unsigned)st.st_uid, name);
	else if (fchown(fd, uid, gid) < 0)
		log_errno(LOG_LVL_WARNING, errno, "cannot hand the probe lock directory %s to %s",
			  dir, name);
	else if (st.st_uid != 0)
		log_info("the probe lock directory %s was uid %u's: handed to %s", dir,
			 (unsigned)st.st_uid, name);
	if (d)
		closedir(d);
	close(fd);
}

/*
 * Started as root: become @pw for good. The bounding and ambient sets go
 * first (the bounding set takes CAP_SETPCAP, which goes with uid 0), with
 * no_new_privs; then the groups, gid and uid: without SECBIT_KEEP_CAPS the
 * kernel clears the permitted and effective sets when the last uid 0 goes,
 * and privsep_caps_drop() clears the inheritable one.
 * Return: 0, or -errno of the call refused.
 */
static int user_become(const struct passwd *pw)
{
	gid_t g = pw->pw_gid;
	int r = caps_limit();

	if (r < 0)
		return r;
	if (setgroups(1, &g) < 0 || setresgid(g, g, g) < 0 ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0)
		return -errno;
	return privsep_caps_drop();
}

/* Every uid and gid is @pw's, its group the only one, no capability is left. */
static bool user_is(const struct passwd *pw)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg, groups[2];

	return getresuid(&ru, &eu, &su) == 0 && getresgid(&rg, &eg, &sg) == 0 &&
	       getgroups(2, groups) == 1 && groups[0] == pw->pw_gid && ru == pw->pw_uid &&
	       eu == pw->pw_uid && su == pw->pw_uid && rg == pw->pw_gid && eg == pw->pw_gid &&
	       sg == pw->pw_gid && caps_none();
}

/*
 * [daemon] user: Return: 1 with *@ret_pw when started as root with it set
 * (@pwbuf holds its strings), else 0, warning once about what is left as it is.
 */
static int user_wanted(const struct cfg *c, struct passwd *ret_pw, char *pwbuf, size_t len)
{
	struct passwd *res = NULL;

	if (geteuid() == 0 && !c->user[0]) {
		log_warn("the HTTP process keeps uid 0 (without a capability): set [daemon] user "
			 "to run it as an unprivileged user");
		return 0;
	}
	if (!c->user[0])
		return 0;
	if (getpwnam_r(c->user, ret_pw, pwbuf, len, &res) != 0 || !res)
		return -ENOENT;
	if (geteuid() != 0 && ret_pw->pw_uid != geteuid()) {
		log_warn("[daemon] user = %s is ignored: nvmond was not started as root (it runs "
			 "as uid %u)",
			 c->user, (unsigned)geteuid());
		return 0;
	}
	return geteuid() == 0;
}

int privsep_start(const struct cfg *c, const struct opts *o, struct dev_backend **ret_backend,
		  struct privsep *ret)
{
	char **argv = o->argv;
	const char *handed = getenv(PRIVSEP_ENV);
	pid_t parent = getpid(), pid;
	struct passwd pw;
	char pwbuf[4096];
	int sv[2], r, as_user;

	*ret = (struct privsep){.pid = 0, .pidfd = -1};
	if (handed)
		return adopt(handed, ret_backend, ret);
	as_user = user_wanted(c, &pw, pwbuf, sizeof(pwbuf));
	if (as_user < 0) {
		log_error("[daemon] user = %s: no such user", c->user);
		return as_user;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		r = -errno;
		log_errno(LOG_LVL_ERROR, -r, "cannot create the device channel");
		return r;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		log_errno(LOG_LVL_ERROR, -r, "cannot start the device process");
		close(sv[0]);
		close(sv[1]);
		return r;
	}
	if (pid == 0) {
		close(sv[0]);
		device_process(c, o, sv[1], parent);
	}
	close(sv[1]);
	ret->pid = pid;
	ret->pidfd = pidfd_open(pid, 0);
	if (as_user) {
		lock_dir_prepare(c, pw.pw_uid, pw.pw_gid, pw.pw_name);
		r = user_become(&pw);
		if (r < 0 || !user_is(&pw)) {
			if (r < 0)
				log_error("cannot become user %s (uid %u): %s%s", pw.pw_name,
					  (unsigned)pw.pw_uid, strerror(-r),
					  r == -EPERM ? " (a system call filter, or not all of "
							"root's capabilities?)"
						      : "");
			else
				log_error("not user %s (uid %u, gid %u) without capabilities after "
					  "switching to it: refusing to serve HTTP",
					  pw.pw_name, (unsigned)pw.pw_uid, (unsigned)pw.pw_gid);
			close(sv[0]);
			privsep_reap(ret);
			return r < 0 ? r : -EPERM;
		}
		log_info("this process runs as user %s (uid %u) without capabilities", pw.pw_name,
			 (unsigned)pw.pw_uid);
		r = 0;
	} else {
		if (geteuid() == 0)
			lock_dir_prepare(c, 0, 0, "root");
		r = privsep_caps_drop();
	}
	if (r == -EPERM && argv && !as_user) {
		if (ret->pidfd >= 0)
			close(ret->pidfd);
		r = reexec_without_caps(argv, sv[0], pid);
		ret->pidfd = pidfd_open(pid, 0);
	}
	if (r < 0) {
		log_errno(LOG_LVL_ERROR, -r, "cannot drop this process's capabilities");
		close(sv[0]);
		privsep_reap(ret);
		return r;
	}
	r = dev_remote_open(sv[0], ret_backend);
	if (r < 0) {
		if (r == -EPIPE || r == -EPROTO)
			log_errno(LOG_LVL_ERROR, -r, "the device process did not answer");
		else
			log_errno(LOG_LVL_ERROR, -r, "cannot open the NVMe backend");
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
