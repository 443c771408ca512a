/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "nvmond/decode/idctl.h"

/*
 * What sysfs says about NVMe controllers and their namespaces: who a
 * controller is (serial, model), which controller a device node belongs to,
 * and which block device is namespace N of a controller. Reads files only (no
 * command reaches a drive), under a sysfs root passed in ("/sys", or a
 * fixture tree in tests). Never logs.
 *
 * Names (nvme0, nvme0n1) change when the driver binds controllers again:
 * they are looked up here from the identity each time, never trusted.
 */

#define NVME_SYSFS_NAME_MAX 32
#define NVME_SYSFS_WWID_MAX 192

/* A controller's identity, cleaned like idctl_decode() does. */
struct nvme_sysfs_ctrl {
	char name[NVME_SYSFS_NAME_MAX]; /* "nvme0" */
	char serial[sizeof(((struct idctl *)0)->serial)];
	char model[sizeof(((struct idctl *)0)->model)];
};

/**
 * nvme_sysfs_read_attr() - Read the sysfs attribute @attr of directory @dir
 * into @buf (@len bytes with the NUL), without its trailing newlines.
 * Return: 0, or negative errno (-EIO for a failed read).
 */
int nvme_sysfs_read_attr(const char *dir, const char *attr, char *buf, size_t len);

/** nvme_sysfs_ctrl_name_ok() - Whether @s is "nvme<digits>": a controller, not a namespace. */
bool nvme_sysfs_ctrl_name_ok(const char *s);

/**
 * nvme_sysfs_ns_name_ok() - Whether @s is "nvme<digits>n<digits>": a namespace or
 * multipath head; not a controller, a path (nvme0c1n1), a partition, a generic
 * char device (ng0n1) or a file path.
 */
bool nvme_sysfs_ns_name_ok(const char *s);

/**
 * nvme_sysfs_ctrl_read() - The identity of controller @name ("nvme3").
 * Return: 0, -ENOENT (no such controller), -EINVAL (not a controller name),
 * or negative errno.
 */
int nvme_sysfs_ctrl_read(const char *sysfs, const char *name, struct nvme_sysfs_ctrl *ret);

/**
 * nvme_sysfs_ctrl_of_chardev() - The identity of the controller whose
 * character device is @rdev (st_rdev of an open /dev/nvmeN): the node that
 * was opened, whatever its name says.
 * Return: 0, -ENOENT, or negative errno.
 */
int nvme_sysfs_ctrl_of_chardev(const char *sysfs, dev_t rdev, struct nvme_sysfs_ctrl *ret);

/**
 * nvme_sysfs_ctrl_find() - The controller whose serial is @serial and, when
 * @model is not NULL or "", whose model is @model. With several (paths of one
 * subsystem), the lowest-numbered.
 * Return: 0 with @ret filled, -ENODEV when none matches, or negative errno.
 */
int nvme_sysfs_ctrl_find(const char *sysfs, const char *serial, const char *model,
			 struct nvme_sysfs_ctrl *ret);

/** nvme_sysfs_ident_eq() - Whether @c is the drive @serial (/ @model when not NULL or ""). */
bool nvme_sysfs_ident_eq(const struct nvme_sysfs_ctrl *c, const char *serial, const char *model);

/* A namespace's block device. */
struct nvme_sysfs_ns {
	char name[NVME_SYSFS_NAME_MAX]; /* "nvme0n1": a namespace, or a multipath head */
	uint32_t nsid;
	dev_t dev;
	char wwid[NVME_SYSFS_WWID_MAX]; /* NGUID, EUI-64 or the vendor form, as sysfs gives it */
};

#define NVME_SYSFS_NS_MAX 64

/**
 * nvme_sysfs_ns_list() - Every namespace block device reached through
 * controller @ctrl (its own, or its subsystem's multipath heads), by NSID.
 * @v:     room for @cap entries
 * Return: 0 with *ret_n, -ENOENT (no such controller), or negative errno.
 */
int nvme_sysfs_ns_list(const char *sysfs, const char *ctrl, struct nvme_sysfs_ns *v, size_t cap,
		       size_t *ret_n);

/**
 * nvme_sysfs_ns_find() - Namespace @nsid of controller @ctrl.
 * Return: 0, -ENOENT when the controller has no such namespace, or errno.
 */
int nvme_sysfs_ns_find(const char *sysfs, const char *ctrl, uint32_t nsid,
		       struct nvme_sysfs_ns *ret);

/**
 * nvme_sysfs_ns_of_dev() - The namespace whose block device is @dev, and the
 * controllers it is reached through (one; several for a multipath head).
 * @ret_ctrls: room for @cap names
 * Return: 0 with *ret_n_ctrls >= 1, -ENOENT when @dev is no NVMe namespace
 * (a partition, dm, another disk), or negative errno.
 */
int nvme_sysfs_ns_of_dev(const char *sysfs, dev_t dev, struct nvme_sysfs_ns *ret,
			 char (*ret_ctrls)[NVME_SYSFS_NAME_MAX], size_t cap, size_t *ret_n_ctrls);
