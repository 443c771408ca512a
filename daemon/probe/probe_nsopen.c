/* SPDX-License-Identifier: MIT */
/*
 * A probe's raw namespace, opened after the checks (probe_nsopen.h): in the
 * device process for the daemon, in-process for the command line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvmond/dev/nvme_sysfs.h"
#include "nvmond/probe/probe_nsopen.h"
#include "nvmond/probe/probe_safety.h"
#include "nvmond/probe/probe_sig.h"

_Static_assert(DEV_NS_REASON_MAX == PROBE_REASON_MAX, "a probe run's reason holds the opener's");

int probe_ns_check_fd(const char *sysfs, int fd, const char *ns, const struct dev_ident *who,
		      uint32_t nsid, const struct nvme_sysfs_ns *first,
		      char ret_reason[DEV_NS_REASON_MAX])
{
	const char *verdict = first ? "stopped" : "refused";
	char ctrls[8][NVME_SYSFS_NAME_MAX];
	struct nvme_sysfs_ns n;
	size_t k = 0;
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || (first && st.st_rdev != first->dev) ||
	    nvme_sysfs_ns_of_dev(sysfs, st.st_rdev, &n, ctrls, 8, &k) < 0 || k == 0 ||
	    strcmp(n.name, ns) != 0 || n.nsid != nsid || (first && strcmp(n.wwid, first->wwid))) {
		snprintf(ret_reason, DEV_NS_REASON_MAX,
			 "/dev/%s is %s namespace %u of drive %s: %s", ns,
			 first ? "no longer" : "not", nsid, who->serial, verdict);
		return -ESTALE;
	}
	for (size_t i = 0; i < k; i++) {
		struct nvme_sysfs_ctrl c;
		if (nvme_sysfs_ctrl_read(sysfs, ctrls[i], &c) < 0 ||
		    !nvme_sysfs_ident_eq(&c, who->serial, who->model)) {
			snprintf(ret_reason, DEV_NS_REASON_MAX,
				 "/dev/%s is reached through %s, which is not drive %s: %s", ns,
				 ctrls[i], who->serial, verdict);
			return -ESTALE;
		}
	}
	return 0;
}

int probe_ns_blank(int sig_fd, const char *ns, const char *when, char ret_reason[DEV_NS_REASON_MAX])
{
	char what[PROBE_SIG_MAX];
	int r = probe_sig_find(sig_fd, what);

	if (r == 0)
		return 0;
	snprintf(ret_reason, DEV_NS_REASON_MAX, "%s %s on /dev/%s%s: %s",
		 r < 0 ? "cannot tell whether anything is" : what, r < 0 ? "written" : "is", ns,
		 when, r < 0 ? "refused" : "it is never written");
	return 1;
}

/* DEV_NS_WRITE: blank, as libblkid reads it through a second, buffered handle. */
static int blank(int fd, const char *ns, char *why)
{
	char dev[NVME_SYSFS_NAME_MAX + 8];
	struct stat a, b;
	int sfd, r;

	snprintf(dev, sizeof(dev), "/dev/%s", ns);
	sfd = open(dev, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (sfd < 0 || fstat(sfd, &a) < 0 || fstat(fd, &b) < 0 || a.st_rdev != b.st_rdev) {
		if (sfd >= 0)
			close(sfd);
		snprintf(why, DEV_NS_REASON_MAX, "%s changed while being opened: refused", dev);
		return -ESTALE;
	}
	r = probe_ns_blank(sfd, ns, "", why);
	close(sfd);
	return r ? -EPERM : 0;
}

int probe_ns_open_at(const char *sysfs, const char *mountinfo, const char *ns,
		     const struct dev_ident *who, uint32_t nsid, enum dev_ns_mode mode,
		     char ret_reason[DEV_NS_REASON_MAX])
{
	char dev[NVME_SYSFS_NAME_MAX + 8], why[PROBE_REASON_MAX];
	int flags, fd, r;

	ret_reason[0] = '\0';
	if (!ns || !nvme_sysfs_ns_name_ok(ns) || !who || !who->serial || !who->serial[0] ||
	    nsid == 0) {
		snprintf(ret_reason, DEV_NS_REASON_MAX, "not a namespace of a drive: refused");
		return -EINVAL;
	}
	switch (mode) {
	case DEV_NS_WRITE:
		flags = O_RDWR | O_EXCL | O_DIRECT;
		break;
	case DEV_NS_READ:
		flags = O_RDONLY | O_DIRECT;
		break;
	case DEV_NS_SIG:
		flags = O_RDONLY;
		break;
	default:
		snprintf(ret_reason, DEV_NS_REASON_MAX, "/dev/%s: no such way to open it", ns);
		return -EINVAL;
	}
	snprintf(dev, sizeof(dev), "/dev/%s", ns);
	if (mode == DEV_NS_WRITE) {
		struct probe_raw_facts f;
		r = probe_raw_facts_read(sysfs, mountinfo, ns, &f);
		if (r < 0) {
			snprintf(ret_reason, DEV_NS_REASON_MAX, "%s: %s", dev, strerror(-r));
			return r;
		}
		r = probe_raw_verdict(&f, ns, true, true, why);
		if (r < 0) {
			snprintf(ret_reason, DEV_NS_REASON_MAX, "%s", why);
			return r;
		}
	}
	/* O_EXCL: the kernel refuses while anything, in any mount namespace, has
	 * it mounted, swapped on or held, and refuses them while it is open. */
	fd = open(dev, flags | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		r = -errno;
		if (r == -EBUSY)
			snprintf(ret_reason, DEV_NS_REASON_MAX,
				 "%s is in use (mounted, in this or another mount namespace, "
				 "swapped on, or held by md/dm): refused",
				 dev);
		else
			snprintf(ret_reason, DEV_NS_REASON_MAX, "%s: %s", dev, strerror(-r));
		return r;
	}
	r = probe_ns_check_fd(sysfs, fd, ns, who, nsid, NULL, ret_reason);
	if (r == 0 && mode == DEV_NS_WRITE)
		r = blank(fd, ns, ret_reason);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

int probe_ns_open(const char *ns, const struct dev_ident *who, uint32_t nsid, enum dev_ns_mode mode,
		  char ret_reason[DEV_NS_REASON_MAX])
{
	return probe_ns_open_at("/sys", "/proc/self/mountinfo", ns, who, nsid, mode, ret_reason);
}
