/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

/*
 * Whether a block device (or an image file) carries anything a user may care
 * about: a filesystem, swap, an LVM physical volume, a RAID member, a
 * partition table, or any other signature libblkid knows. A raw namespace
 * with one is never written, mounted or not.
 */

#define PROBE_SIG_MAX 128

/**
 * probe_sig_find() - Probe the device or file open (read-only, not O_DIRECT)
 * on @fd for signatures, reading through the page cache after dropping its
 * clean pages, so what another process wrote without O_DIRECT is seen too.
 * @ret_what: e.g. "ext4 filesystem", "dos partition table", "LVM2_member"
 * Return: 1 found (with @ret_what), 0 none, or negative errno (libblkid could
 * not read it: treat as found).
 */
int probe_sig_find(int fd, char ret_what[PROBE_SIG_MAX]);
