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

/* Whether @fd is namespace @nsid of drive @who, through every controller. */
static int is_the_drives(const char *sysfs, int fd, const char *ns, const struct dev_ident *who,
			 uint32_t nsid, char *why)
{
	char ctrls[8][NVME_SYSFS_NAME_MAX];
	struct nvme_sysfs_ns n;
	size_t k = 0;
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) ||
	    nvme_sysfs_ns_of_dev(sysfs, st.st_rdev, &n, ctrls, 8, &k) < 0 || k == 0 ||
	    strcmp(n.name, ns) != 0 || n.nsid != nsid) {
		snprintf(why, DEV_NS_REASON_MAX, "/dev/%s is not namespace %u of drive %s: refused",
			 ns, nsid, who->serial);
		return -ESTALE;
	}
	for (size_t i = 0; i < k; i++) {
		struct nvme_sysfs_ctrl c;
		if (nvme_sysfs_ctrl_read(sysfs, ctrls[i], &c) < 0 ||
		    !nvme_sysfs_ident_eq(&c, who->serial, who->model)) {
			snprintf(why, DEV_NS_REASON_MAX,
				 "/dev/%s is reached through %s, which is not drive %s: refused",
				 ns, ctrls[i], who->serial);
			return -ESTALE;
		}
	}
	return 0;
}

/* DEV_NS_WRITE: blank, as libblkid reads it through a second, buffered handle. */
static int blank(int fd, const char *ns, char *why)
{
	char dev[NVME_SYSFS_NAME_MAX + 8], what[PROBE_SIG_MAX];
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
	r = probe_sig_find(sfd, what);
	close(sfd);
	if (r == 0)
		return 0;
	snprintf(why, DEV_NS_REASON_MAX, "%s %s on %s: %s",
		 r < 0 ? "cannot tell whether anything is" : what, r < 0 ? "written" : "is", dev,
		 r < 0 ? "refused" : "it is never written");
	return -EPERM;
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
	r = is_the_drives(sysfs, fd, ns, who, nsid, ret_reason);
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
