/* SPDX-License-Identifier: MIT */
/*
 * Controllers and namespaces from a fixture sysfs tree laid out as Linux 6.1
 * lays it out (seen in the QEMU guest): a controller with two namespaces and
 * a partition, and a multipath subsystem whose namespace head lives under
 * nvme-subsystem. The rule each case checks: a drive is found by its serial
 * (and model), never by its name, and a device number is traced to the
 * controllers it is reached through.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../sysfs_fixture.h"
#include "nvmond/dev/nvme_sysfs.h"

#define C0 "devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme0"
#define C1 "devices/pci0000:00/0000:00:02.0/0000:02:00.0/nvme/nvme1"
#define S1 "devices/virtual/nvme-subsystem/nvme-subsys1"

static void setup(void)
{
	snprintf(fx, sizeof(fx), "/tmp/nvmond-nvme-sysfs-XXXXXX");
	cr_assert_not_null(mkdtemp(fx));
	/* nvme0: serial padded as the kernel prints it, two namespaces, a partition */
	fx_put(C0 "/serial", "NVMOND-VM-0000      \n");
	fx_put(C0 "/model", "QEMU NVMe Ctrl                          \n");
	fx_put(C0 "/dev", "247:0\n");
	fx_put(C0 "/nvme0n1/dev", "259:0\n");
	fx_put(C0 "/nvme0n1/nsid", "1\n");
	fx_put(C0 "/nvme0n1/wwid", "eui.0000000000000001\n");
	fx_put(C0 "/nvme0n1/nvme0n1p1/dev", "259:2\n");
	fx_put(C0 "/nvme0n1/nvme0n1p1/partition", "1\n");
	fx_put(C0 "/nvme0n2/dev", "259:1\n");
	fx_put(C0 "/nvme0n2/nsid", "2\n");
	fx_put(C0 "/nvme0n2/wwid", "eui.0000000000000002\n");
	fx_put(C0 "/ng0n1/dev", "246:0\n"); /* the generic char device: no namespace block device */
	fx_ln("../../" C0, "class/nvme/nvme0");
	fx_ln("../../" C0, "dev/char/247:0");
	fx_ln("../../" C0 "/nvme0n1", "dev/block/259:0");
	fx_ln("../../" C0 "/nvme0n2", "dev/block/259:1");
	fx_ln("../../" C0 "/nvme0n1/nvme0n1p1", "dev/block/259:2");
	/* nvme1: native multipath, the head under its subsystem */
	fx_put(C1 "/serial", "NVMOND-VM-0001\n");
	fx_put(C1 "/model", "QEMU NVMe Ctrl\n");
	fx_put(C1 "/dev", "247:1\n");
	fx_put(C1 "/nvme1c1n1/nsid", "1\n"); /* a path: hidden, no dev node of its own */
	fx_put(S1 "/nvme1n1/dev", "259:5\n");
	fx_put(S1 "/nvme1n1/nsid", "1\n");
	fx_put(S1 "/nvme1n1/wwid", "nvme.1b36-4e56-51-00000001\n");
	fx_ln("../../../../../../" C1 "/nvme1c1n1", S1 "/nvme1n1/multipath/nvme1c1n1");
	fx_ln("../../../../" C1, S1 "/nvme1");
	fx_ln("../../" C1, "class/nvme/nvme1");
	fx_ln("../../" S1, "class/nvme-subsystem/nvme-subsys1");
	fx_ln("../../" C1, "dev/char/247:1");
	fx_ln("../../" S1 "/nvme1n1", "dev/block/259:5");
	/* a disk that is no NVMe namespace */
	fx_put("devices/virtual/block/dm-0/dev", "253:0\n");
	fx_ln("../../devices/virtual/block/dm-0", "dev/block/253:0");
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	if (getenv("KEEP"))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(nvme_sysfs, .init = setup, .fini = teardown);

Test(nvme_sysfs, identity_is_cleaned_like_identify)
{
	struct nvme_sysfs_ctrl c;

	cr_assert_eq(nvme_sysfs_ctrl_read(fx, "nvme0", &c), 0);
	cr_expect_str_eq(c.serial, "NVMOND-VM-0000", "blank padding is not part of the serial");
	cr_expect_str_eq(c.model, "QEMU NVMe Ctrl");
	cr_expect_str_eq(c.name, "nvme0");
	cr_expect_eq(nvme_sysfs_ctrl_read(fx, "nvme5", &c), -ENOENT);
	cr_expect_eq(nvme_sysfs_ctrl_read(fx, "../nvme0", &c), -EINVAL, "only controller names");
	cr_expect_eq(nvme_sysfs_ctrl_read(fx, "nvme-subsys1", &c), -EINVAL);
	cr_expect(nvme_sysfs_ident_eq(&c, "NVMOND-VM-0000", NULL));
	cr_expect(nvme_sysfs_ident_eq(&c, "NVMOND-VM-0000", "QEMU NVMe Ctrl"));
	cr_expect_not(nvme_sysfs_ident_eq(&c, "NVMOND-VM-0000", "Other"));
	cr_expect_not(nvme_sysfs_ident_eq(&c, "NVMOND-VM-000", NULL), "no prefix match");
	cr_expect_not(nvme_sysfs_ident_eq(&c, "", NULL), "an empty serial is nobody");
}

Test(nvme_sysfs, the_opened_node_says_who_it_is)
{
	struct nvme_sysfs_ctrl c;

	cr_assert_eq(nvme_sysfs_ctrl_of_chardev(fx, makedev(247, 1), &c), 0);
	cr_expect_str_eq(c.name, "nvme1");
	cr_expect_str_eq(c.serial, "NVMOND-VM-0001");
	cr_expect_eq(nvme_sysfs_ctrl_of_chardev(fx, makedev(247, 9), &c), -ENOENT);
	/* A char device that is no controller (a dm node link here). */
	fx_ln("../../devices/virtual/block/dm-0", "dev/char/10:1");
	cr_expect_eq(nvme_sysfs_ctrl_of_chardev(fx, makedev(10, 1), &c), -ENOENT);
}

/* The renumbering case: the names swap, the serials follow their drives. */
Test(nvme_sysfs, a_drive_is_found_by_serial_not_name)
{
	struct nvme_sysfs_ctrl c;

	cr_assert_eq(nvme_sysfs_ctrl_find(fx, "NVMOND-VM-0001", NULL, &c), 0);
	cr_expect_str_eq(c.name, "nvme1");
	cr_assert_eq(nvme_sysfs_ctrl_find(fx, "NVMOND-VM-0000", "QEMU NVMe Ctrl", &c), 0);
	cr_expect_str_eq(c.name, "nvme0");
	cr_expect_eq(nvme_sysfs_ctrl_find(fx, "NVMOND-VM-0000", "Samsung", &c), -ENODEV);
	cr_expect_eq(nvme_sysfs_ctrl_find(fx, "NVMOND-VM-9999", NULL, &c), -ENODEV);
	fx_put(C0 "/serial", "NVMOND-VM-0001\n");
	fx_put(C1 "/serial", "NVMOND-VM-0000\n");
	cr_assert_eq(nvme_sysfs_ctrl_find(fx, "NVMOND-VM-0000", NULL, &c), 0);
	cr_expect_str_eq(c.name, "nvme1");
	cr_assert_eq(nvme_sysfs_ctrl_of_chardev(fx, makedev(247, 0), &c), 0);
	cr_expect_str_eq(c.serial, "NVMOND-VM-0001");
	char empty[PATH_MAX + 8];
	snprintf(empty, sizeof(empty), "%s/none", fx);
	cr_expect_eq(nvme_sysfs_ctrl_find(empty, "NVMOND-VM-0000", NULL, &c), -ENODEV);
}

Test(nvme_sysfs, namespaces_by_nsid_not_by_listing_order)
{
	struct nvme_sysfs_ns v[8], ns;
	size_t n = 0;

	cr_assert_eq(nvme_sysfs_ns_list(fx, "nvme0", v, 8, &n), 0);
	cr_assert_eq(n, 2, "namespaces only: no partition, no generic device");
	cr_expect_eq(v[0].nsid, 1);
	cr_expect_str_eq(v[0].name, "nvme0n1");
	cr_expect_eq(v[0].dev, makedev(259, 0));
	cr_expect_str_eq(v[0].wwid, "eui.0000000000000001");
	cr_expect_eq(v[1].nsid, 2);
	cr_assert_eq(nvme_sysfs_ns_find(fx, "nvme0", 2, &ns), 0);
	cr_expect_str_eq(ns.name, "nvme0n2");
	cr_expect_eq(nvme_sysfs_ns_find(fx, "nvme0", 3, &ns), -ENOENT);
	/* The name does not decide the NSID: a namespace named n1 that is NSID 7. */
	fx_put(C0 "/nvme0n1/nsid", "7\n");
	cr_expect_eq(nvme_sysfs_ns_find(fx, "nvme0", 1, &ns), -ENOENT);
	cr_assert_eq(nvme_sysfs_ns_find(fx, "nvme0", 7, &ns), 0);
	cr_expect_str_eq(ns.name, "nvme0n1");
	/* Multipath: the head under the subsystem. */
	cr_assert_eq(nvme_sysfs_ns_list(fx, "nvme1", v, 8, &n), 0);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(v[0].name, "nvme1n1");
	cr_expect_eq(v[0].dev, makedev(259, 5));
	cr_expect_eq(nvme_sysfs_ns_list(fx, "nvme4", v, 8, &n), -ENOENT);
	cr_expect_eq(nvme_sysfs_ns_list(fx, "sda", v, 8, &n), -EINVAL);
}

Test(nvme_sysfs, a_device_number_is_traced_to_its_controllers)
{
	char ctrls[4][NVME_SYSFS_NAME_MAX];
	struct nvme_sysfs_ns ns;
	size_t n = 0;

	cr_assert_eq(nvme_sysfs_ns_of_dev(fx, makedev(259, 1), &ns, ctrls, 4, &n), 0);
	cr_expect_eq(ns.nsid, 2);
	cr_expect_eq(n, 1);
	cr_expect_str_eq(ctrls[0], "nvme0");
	cr_assert_eq(nvme_sysfs_ns_of_dev(fx, makedev(259, 5), &ns, ctrls, 4, &n), 0);
	cr_expect_str_eq(ns.name, "nvme1n1");
	cr_expect_eq(n, 1);
	cr_expect_str_eq(ctrls[0], "nvme1", "a head's controllers come from its paths");
	cr_expect_eq(nvme_sysfs_ns_of_dev(fx, makedev(259, 2), &ns, ctrls, 4, &n), -ENOENT,
		     "a partition is not a namespace");
	cr_expect_eq(nvme_sysfs_ns_of_dev(fx, makedev(253, 0), &ns, ctrls, 4, &n), -ENOENT);
	cr_expect_eq(nvme_sysfs_ns_of_dev(fx, makedev(8, 0), &ns, ctrls, 4, &n), -ENOENT);
	/* A link that claims a device number its node does not have. */
	fx_ln("../../" C0 "/nvme0n1", "dev/block/259:9");
	cr_expect_eq(nvme_sysfs_ns_of_dev(fx, makedev(259, 9), &ns, ctrls, 4, &n), -ENOENT);
}
