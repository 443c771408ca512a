/* SPDX-License-Identifier: MIT */
/*
 * The per-drive probe lock: flock(2) on DIR/probe-SERIAL.lock. See probe_lock.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvmond/probe/probe_lock.h"

char *probe_lock_dir_default(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;

	/* Its owner: the unit's User= (RuntimeDirectory=), or [daemon] user. */
	if (geteuid() == 0 ||
	    (stat(PROBE_LOCK_DIR_ROOT, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid()))
		snprintf(buf, len, "%s", PROBE_LOCK_DIR_ROOT);
	else if (xdg && xdg[0] == '/')
		snprintf(buf, len, "%s/nvmond", xdg);
	else
		snprintf(buf, len, "/tmp/nvmond-%u", (unsigned)geteuid());
	return buf;
}

int probe_lock_name(const char *serial, char *buf, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	if (len < sizeof("probe-.lock"))
		return -ENAMETOOLONG;
	n = (size_t)snprintf(buf, len, "probe-");
	for (const unsigned char *p = (const unsigned char *)serial; *p; p++) {
		bool plain = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
			     (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-';
		if (n + (plain ? 1 : 3) + sizeof(".lock") > len)
			return -ENAMETOOLONG;
		if (plain) {
			buf[n++] = (char)*p;
		} else {
			buf[n++] = '%';
			buf[n++] = hex[*p >> 4];
			buf[n++] = hex[*p & 15];
		}
	}
	snprintf(buf + n, len - n, ".lock");
	return 0;
}

int probe_lock_take(const char *dir, const char *serial, const char *who, int *ret_fd,
		    char ret_reason[PROBE_LOCK_ERR_MAX])
{
	char name[128], path[PATH_MAX];
	bool read_only = false;
	struct stat st;
	int fd, r;

	if (!serial || !serial[0]) {
		snprintf(ret_reason, PROBE_LOCK_ERR_MAX, "the drive has no serial number to lock");
		return -EINVAL;
	}
	r = probe_lock_name(serial, name, sizeof(name));
	if (r < 0 || (size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path)) {
		snprintf(ret_reason, PROBE_LOCK_ERR_MAX, "lock directory %.160s: path too long",
			 dir);
		return -ENAMETOOLONG;
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		r = -errno;
		snprintf(ret_reason, PROBE_LOCK_ERR_MAX,
			 "cannot make the lock directory %.160s: %s", dir, strerror(-r));
		return r;
	}
	/*
	 * Root (`nvmond probe`) and the daemon's user share the directory: each
	 * must open the other's files. A new file is made 0644 whatever the umask
	 * (the unit's is 0077); one that is not ours to write is locked read-only
	 * (flock() needs no write access), without our holder line.
	 */
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0)
		(void)fchmod(fd, 0644);
	else if (errno == EEXIST)
		fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES) {
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		read_only = fd >= 0;
	}
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = fd < 0 ? -errno : -EINVAL;
		snprintf(ret_reason, PROBE_LOCK_ERR_MAX, "cannot open the probe lock %.160s: %s",
			 path, strerror(-r));
		if (fd >= 0)
			close(fd);
		return r;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		char holder[96] = "";
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		ssize_t n = pread(fd, holder, sizeof(holder) - 1, 0);
		holder[n > 0 ? n : 0] = '\0';
		holder[strcspn(holder, "\n")] = '\0';
		close(fd);
		if (r == -EBUSY)
			snprintf(ret_reason, PROBE_LOCK_ERR_MAX,
				 "a probe is running on this drive in another nvmond process%s%s%s",
				 holder[0] ? " (" : "", holder, holder[0] ? ")" : "");
		else
			snprintf(ret_reason, PROBE_LOCK_ERR_MAX, "cannot lock %.160s: %s", path,
				 strerror(-r));
		return r;
	}
	char line[96];
	int len =
		snprintf(line, sizeof(line), "pid %ld, %s\n", (long)getpid(), who ? who : "nvmond");
	if (!read_only && ftruncate(fd, 0) == 0 && pwrite(fd, line, (size_t)len, 0) < 0) {
		/* Only the message of others depends on it. */
	}
	*ret_fd = fd;
	return 0;
}

void probe_lock_release(int fd)
{
	if (fd >= 0)
		close(fd);
}

bool probe_lock_order(const char *serial_a, const char *serial_b)
{
	return strcmp(serial_a, serial_b) <= 0;
}
