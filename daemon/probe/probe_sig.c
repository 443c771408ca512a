/* SPDX-License-Identifier: MIT */
/*
 * Signatures on a raw namespace, through libblkid. See probe_sig.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include <blkid/blkid.h>

#include "nvmond/probe/probe_sig.h"

/* "a" or "an" before @word, as it is said (an ext4, an xfs, a btrfs). */
static const char *article(const char *word)
{
	return word && strchr("aeiouxAEIOUX", word[0]) ? "an" : "a";
}

static const char *value(blkid_probe pr, const char *name)
{
	const char *v = NULL;

	return blkid_probe_lookup_value(pr, name, &v, NULL) == 0 ? v : NULL;
}

int probe_sig_find(int fd, char ret_what[PROBE_SIG_MAX])
{
	blkid_probe pr;
	int r;

	/* Another writer's buffered pages stay (they are dirty); stale clean
	 * ones go, so the device is read again. */
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	pr = blkid_new_probe();
	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, fd, 0, 0) < 0) {
		blkid_free_probe(pr);
		return -EIO;
	}
	blkid_probe_enable_superblocks(pr, 1);
	/* A damaged superblock is still somebody's filesystem. */
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE |
						      BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC | BLKID_PARTS_FORCE_GPT);
	r = blkid_do_safeprobe(pr);
	if (r == 0) {
		const char *type = value(pr, "TYPE"), *usage = value(pr, "USAGE");
		const char *pt = value(pr, "PTTYPE");
		if (pt)
			snprintf(ret_what, PROBE_SIG_MAX, "%s %s partition table", article(pt), pt);
		else if (type && usage && strcmp(usage, "filesystem") == 0)
			snprintf(ret_what, PROBE_SIG_MAX, "%s %s filesystem", article(type), type);
		else if (type)
			snprintf(ret_what, PROBE_SIG_MAX, "%s %s signature%s%s%s", article(type),
				 type, usage ? " (" : "", usage ? usage : "", usage ? ")" : "");
		else
			snprintf(ret_what, PROBE_SIG_MAX, "a signature");
		r = 1;
	} else if (r == -2) {
		snprintf(ret_what, PROBE_SIG_MAX, "several signatures");
		r = 1;
	} else if (r == 1) {
		ret_what[0] = '\0';
		r = 0;
	} else {
		snprintf(ret_what, PROBE_SIG_MAX, "signatures could not be read");
		r = -EIO;
	}
	blkid_free_probe(pr);
	return r;
}
