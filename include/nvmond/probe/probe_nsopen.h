/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Opening a probe's raw namespace, with the checks that go with it. Under the
 * daemon it runs in the device process, which alone may open block devices
 * (docs/security.md#privilege-separation): the daemon asks for a namespace
 * over the device channel and gets the descriptor back. The command line
 * (`nvmond probe`) calls it itself. The probe run checks the descriptor
 * again on its side (probe_target.c).
 */
#include <stdint.h>

#include "nvmond/dev/dev.h"
#include "nvmond/dev/nvme_sysfs.h"

/**
 * probe_ns_open_at() - Open block device /dev/@ns in @mode when it is
 * namespace @nsid of drive @who (serial, and model when not empty) through
 * every controller it is reached by, as sysfs (@sysfs) says of the device
 * actually opened. DEV_NS_WRITE further needs: no partition, no holder,
 * nothing of it mounted (@mountinfo), the kernel's O_EXCL granted (nothing
 * mounts, swaps on or holds it, in any mount namespace), and no signature on
 * it (libblkid: a filesystem, a partition table, RAID or LVM metadata).
 * Return: the descriptor (O_CLOEXEC), or negative errno with @ret_reason:
 * -EINVAL not a namespace's name or mode, -ESTALE not that drive's namespace,
 * -EBUSY in use, -EPERM refused by a check above, or open()'s error.
 */
int probe_ns_open_at(const char *sysfs, const char *mountinfo, const char *ns,
		     const struct dev_ident *who, uint32_t nsid, enum dev_ns_mode mode,
		     char ret_reason[DEV_NS_REASON_MAX]);

/**
 * probe_ns_check_fd() - Whether @fd is block device @ns, namespace @nsid of
 * drive @who, through every controller that reaches it (sysfs, by the device
 * number of @fd); with @first (a probe run's check before each phase), still
 * the device and namespace (WWID) first opened.
 * Return: 0, or -ESTALE with @ret_reason ("… is not … : refused", or with
 * @first "… is no longer … : stopped").
 */
int probe_ns_check_fd(const char *sysfs, int fd, const char *ns, const struct dev_ident *who,
		      uint32_t nsid, const struct nvme_sysfs_ns *first,
		      char ret_reason[DEV_NS_REASON_MAX]);

/**
 * probe_ns_blank() - Whether libblkid finds nothing on namespace @ns through
 * @sig_fd (a buffered read-only handle). Return: 0 blank; 1 with @ret_reason
 * ("… is on /dev/NS@when: it is never written"), also when it cannot tell.
 */
int probe_ns_blank(int sig_fd, const char *ns, const char *when,
		   char ret_reason[DEV_NS_REASON_MAX]);

/* probe_ns_open_at() on "/sys" and "/proc/self/mountinfo" (a dev_ns_opener_fn). */
int probe_ns_open(const char *ns, const struct dev_ident *who, uint32_t nsid, enum dev_ns_mode mode,
		  char ret_reason[DEV_NS_REASON_MAX]);
