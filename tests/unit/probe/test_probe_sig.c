/* SPDX-License-Identifier: MIT */
/*
 * Signatures on a raw namespace (docs/probes.md, Safety: a namespace carrying a
 * filesystem, LVM PV, RAID member, swap or partition table is never written,
 * mounted or not), on image files made by the real tools. No block device of
 * the host is touched.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvmond/probe/probe.h"
#include "nvmond/probe/probe_sig.h"

static char dir[64], img[128];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/nvmond-sig-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(img, sizeof(img), "%s/img", dir);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(probe_sig, .init = setup, .fini = teardown);

/* A fresh 128 MiB image, then @cmd run on it ($IMG); 0 when the tool is missing. */
static bool make(const char *tool, const char *cmd)
{
	char sh[512];

	snprintf(sh, sizeof(sh),
		 "command -v %s >/dev/null 2>&1 || PATH=$PATH:/sbin:/usr/sbin command -v %s "
		 ">/dev/null 2>&1",
		 tool, tool);
	if (system(sh) != 0)
		return false;
	unlink(img);
	snprintf(sh, sizeof(sh),
		 "export PATH=$PATH:/sbin:/usr/sbin IMG='%s'; truncate -s 128M \"$IMG\" && (%s) "
		 ">/dev/null 2>&1",
		 img, cmd);
	cr_assert_eq(system(sh), 0, "%s", cmd);
	return true;
}

static int find(char what[PROBE_SIG_MAX])
{
	int fd = open(img, O_RDONLY | O_CLOEXEC);

	cr_assert(fd >= 0);
	int r = probe_sig_find(fd, what);
	close(fd);
	return r;
}

Test(probe_sig, blank_and_random_data_carry_nothing)
{
	char what[PROBE_SIG_MAX];

	cr_assert(make("truncate", "true"));
	cr_expect_eq(find(what), 0, "zeros: %s", what);
	/* What the probes themselves write: incompressible data everywhere. */
	int fd = open(img, O_WRONLY);
	cr_assert(fd >= 0);
	static uint8_t buf[1 << 20];
	uint64_t seed = 0;
	for (int i = 0; i < 64; i++) {
		probe_fill_random(buf, sizeof(buf), &seed);
		cr_assert_eq(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	}
	close(fd);
	cr_expect_eq(find(what), 0, "probe data: %s", what);
}

Test(probe_sig, filesystems_swap_and_partition_tables)
{
	struct {
		const char *tool, *cmd, *want;
	} t[] = {
		{"mkfs.ext4", "mkfs.ext4 -q -F \"$IMG\"", "ext4 filesystem"},
		{"mke2fs", "mke2fs -q -F -t ext2 \"$IMG\"", "ext2 filesystem"},
		{"mkswap", "mkswap \"$IMG\"", "swap"},
		{"sfdisk", "echo 'label: dos' | sfdisk -q \"$IMG\"", "dos partition table"},
		{"sfdisk", "echo 'label: gpt' | sfdisk -q \"$IMG\"", "gpt partition table"},
		{"mkfs.btrfs", "mkfs.btrfs -q -f \"$IMG\"", "btrfs filesystem"},
		{"mkfs.vfat", "mkfs.vfat \"$IMG\"", "vfat filesystem"},
	};
	int tried = 0;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char what[PROBE_SIG_MAX] = "";
		if (!make(t[i].tool, t[i].cmd)) {
			printf("SKIP: %s not installed\n", t[i].tool);
			continue;
		}
		tried++;
		cr_expect_eq(find(what), 1, "%s: found nothing", t[i].cmd);
		cr_expect(strstr(what, t[i].want), "%s: %s", t[i].cmd, what);
	}
	cr_expect_geq(tried, 3, "mkfs.ext4, mkswap and sfdisk at least (.ci/deps installs them)");
}

/* A damaged superblock is still somebody's filesystem. */
Test(probe_sig, a_damaged_filesystem_still_counts)
{
	char what[PROBE_SIG_MAX];

	if (!make("mkfs.ext4", "mkfs.ext4 -q -F -O metadata_csum \"$IMG\""))
		cr_skip_test("mkfs.ext4 not installed");
	/* Break the superblock checksum (its last 4 bytes, at 1024 + 1020). */
	int fd = open(img, O_RDWR);
	cr_assert(fd >= 0);
	uint32_t junk = 0x12345678;
	cr_assert_eq(pwrite(fd, &junk, 4, 1024 + 1020), 4);
	close(fd);
	cr_expect_eq(find(what), 1, "found nothing");
}

Test(probe_sig, an_unreadable_handle_is_an_error)
{
	char what[PROBE_SIG_MAX];
	int fds[2];

	cr_assert_eq(pipe(fds), 0);
	close(fds[1]);
	cr_expect_lt(probe_sig_find(fds[0], what), 0);
	close(fds[0]);
}
