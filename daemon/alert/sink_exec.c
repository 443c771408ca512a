/* SPDX-License-Identifier: MIT */
/*
 * The exec sink type, like smartd's -M exec: the fields in NVMOND_* variables,
 * the JSON on stdin, killed (with its process group) after the timeout.
 * posix_spawn() (vfork semantics: nothing of this threaded process runs in the
 * child) and a pidfd to wait with a timeout, instead of fork() and a waitpid
 * loop. The hook gets descriptors 0-2 only (stdin the JSON, stdout and stderr
 * the daemon's: the journal).
 */
#define _GNU_SOURCE /* pipe2, posix_spawn_file_actions_addclosefrom_np */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvmond/util/fperm.h"
#include "nvmond/util/timefmt.h"
#include "sink_internal.h"

#if !defined(__GLIBC__) || !__GLIBC_PREREQ(2, 34)
#error "the exec sink needs posix_spawn_file_actions_addclosefrom_np() (glibc 2.34)"
#endif

int sink_exec_check_key(const struct sink_type *t, const char *key, const char *value, char *err,
			size_t errsize)
{
	(void)t;
	if (strcmp(key, "path") != 0) {
		snprintf(err, errsize, "unknown key '%s' for a sink of type exec", key);
		return -EINVAL;
	}
	if (value[0] != '/' || access(value, X_OK) < 0) {
		snprintf(err, errsize, "path: %.180s: %s", value,
			 value[0] != '/' ? "not an absolute path" : strerror(errno));
		return -EINVAL;
	}
	/* nvmond runs it: nobody but its owner (root or this user) may change it (fperm.h). */
	char why[SINK_ERR_MAX];
	if (fperm_check(-1, value, FPERM_TRUSTED, why, sizeof(why)) < 0) {
		snprintf(err, errsize, "path: %s", why);
		return -EINVAL;
	}
	return 0;
}

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* The child's environment: the note's fields and PATH, nothing of the daemon's. */
static void env_fill(const struct alert_note *n, char store[16][256], char *envp[17])
{
	char ts[TIMEFMT_MAX], started[TIMEFMT_MAX];
	const char *path = getenv("PATH");
	size_t ne = 0;

#define ENV(...) snprintf(store[ne], 256, __VA_ARGS__), envp[ne] = store[ne], ne++
	ENV("NVMOND_ALERT_ID=%lld", (long long)n->alert_id);
	ENV("NVMOND_DEVICE_ID=%lld", (long long)n->device_id);
	ENV("NVMOND_DEVICE=%s", n->device);
	ENV("NVMOND_MODEL=%s", n->model);
	ENV("NVMOND_SERIAL=%s", n->serial);
	ENV("NVMOND_LABEL=%s", n->label);
	ENV("NVMOND_LOCATION=%s", n->location);
	ENV("NVMOND_HOST=%s", n->host);
	ENV("NVMOND_RULE=%s", n->rule);
	ENV("NVMOND_SEVERITY=%s", n->severity);
	ENV("NVMOND_STATE=%s", n->state);
	ENV("NVMOND_MESSAGE=%s", n->message);
	ENV("NVMOND_TIME=%s", timefmt_rfc3339(n->ts_ms, ts));
	ENV("NVMOND_STARTED=%s", timefmt_rfc3339(n->started_ms, started));
	ENV("NVMOND_NOTIFICATION_ID=%lld", (long long)n->note_id);
	ENV("PATH=%s", path ? path : "/usr/sbin:/usr/bin:/sbin:/bin");
#undef ENV
	envp[ne] = NULL;
}

static int spawn(const char *path, int stdin_fd, char *const envp[], pid_t *ret)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	char *argv[] = {(char *)path, NULL};
	int r;

	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE); /* the daemon ignores or blocks it; the hook gets the default */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, stdin_fd, STDIN_FILENO);
	/*
	 * Nothing but 0-2: not every descriptor of the daemon is close-on-exec
	 * (libmosquitto's socket pair and broker connection are not; a hook wrote a
	 * PUBLISH to one, issue 23 §5). glibc does close_range(3, ~0U, 0) in the
	 * child, or closes each open one (/proc/self/fd) on a kernel without it.
	 */
	posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
					      POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	posix_spawnattr_setpgroup(&at, 0); /* its own group: the timeout kills its children too */
	r = posix_spawn(ret, path, &fa, &at, argv, envp);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return -r;
}

int sink_exec_deliver(const struct sink_conf *c, const struct alert_note *n, char *err,
		      size_t errsize)
{
	const char *path = sink_conf_get(c, "path");
	char store[16][256], *envp[17];
	int in[2], status = 0, pfd, r;
	json_t *j = alert_note_json(n);
	char *body = j ? json_dumps(j, JSON_COMPACT) : NULL;
	pid_t pid;

	json_decref(j);
	if (!body) {
		snprintf(err, errsize, "out of memory");
		return -ENOMEM;
	}
	env_fill(n, store, envp);
	if (pipe2(in, O_CLOEXEC) < 0) {
		r = -errno;
		snprintf(err, errsize, "pipe: %s", strerror(errno));
		free(body);
		return r;
	}
	r = spawn(path, in[0], envp, &pid);
	close(in[0]);
	if (r < 0) {
		close(in[1]);
		free(body);
		snprintf(err, errsize, "%s: could not be executed: %s", path, strerror(-r));
		return -EIO;
	}
	pfd = pidfd_open_(pid);
	/* The JSON is small (well under a pipe buffer): this does not block. */
	for (size_t len = strlen(body), off = 0; off < len;) {
		ssize_t k = write(in[1], body + off, len - off);
		if (k <= 0)
			break; /* the hook does not read stdin: fine */
		off += (size_t)k;
	}
	close(in[1]);
	free(body);

	struct pollfd p = {.fd = pfd, .events = POLLIN};
	int64_t deadline = timefmt_mono_ms() + c->timeout_ms;
	int ready = 0;
	while (pfd >= 0) {
		int64_t left = deadline - timefmt_mono_ms();
		ready = left > 0 ? poll(&p, 1, (int)left) : 0;
		if (ready >= 0 || errno != EINTR)
			break;
	}
	if (pfd < 0 || ready <= 0) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		if (pfd >= 0)
			close(pfd);
		if (pfd < 0)
			snprintf(err, errsize, "%s: pidfd_open: %s; killed", path, strerror(errno));
		else
			snprintf(err, errsize, "%s: killed after %lld ms (timeout)", path,
				 (long long)c->timeout_ms);
		return -EIO;
	}
	close(pfd);
	if (waitpid(pid, &status, 0) < 0) {
		snprintf(err, errsize, "waitpid: %s", strerror(errno));
		return -EIO;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status))
		snprintf(err, errsize, "%s: exit status %d", path, WEXITSTATUS(status));
	else
		snprintf(err, errsize, "%s: killed by signal %d", path,
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return -EIO;
}
