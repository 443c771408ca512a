/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "nvmond/probe/probe.h"
#include "nvmond/probe/probe_safety.h"
#include "nvmond/store/store_probe_types.h"

/*
 * The probe file, probe_dir/nvmond-probe.dat: the only file a probe writes.
 *
 * nvmond opens only the inode it made itself. It makes the file unnamed
 * (O_TMPFILE), lays it out, records its identity (inode number plus the
 * inode generation or birth time, which no one can set) in the database, and
 * only then gives it its name with linkat(2), which fails if the name is
 * taken. Every later open resolves the name with openat2(2) (no symlink, no
 * mount crossed: a bind-mounted file is refused) to an O_PATH handle, checks
 * that handle (a regular file with one link, on the directory's mount, with
 * the recorded identity) and only then reopens that very inode for I/O. The
 * directory must belong to root (or nvmond's user) and be writable by no one
 * else, and its filesystem must live on the drive.
 */

/* struct probe_file_id, what identifies a probe file nvmond made across
 * reboots, is the store's: store_probe_types.h. */

/** probe_file_id_eq() - Same inode: number, and generation / birth time where recorded. Pure. */
bool probe_file_id_eq(const struct probe_file_id *known, const struct probe_file_id *seen);

/**
 * probe_layout_may_write() - Whether @step more bytes may be written to a
 * filesystem of @total bytes with @avail available, keeping @min_free_pct % of
 * it free afterwards. Pure.
 */
bool probe_layout_may_write(uint64_t total, uint64_t avail, uint64_t step, unsigned min_free_pct);

struct probe_file_req {
	const char *sysfs; /* "/sys" */
	const char *dir;   /* probe_dir */
	const char *ctrl;  /* the drive's controller, looked up by serial just now */
	uint64_t size;	   /* whole MiB */
	unsigned min_free_pct;
	const struct probe_file_id *known; /* what nvmond recorded making in @dir, or NULL */
	/* The layout's writes take leases like the engine's (see probe_lease_fn),
	 * counted from 0, and stop when @cancelled says so. */
	probe_lease_fn lease;
	void *lease_ctx;
	bool (*cancelled)(void *ctx);
	void *cancel_ctx;
	/* Called with the new file's identity after its layout and before it
	 * gets its name: record it, or fail (the file then vanishes). */
	int (*made)(void *ctx, const struct probe_file_id *id);
	void *made_ctx;
	/* Open it O_RDONLY, as it is (copy-to's source): never made, laid out
	 * or replaced; a missing one is refused with -ENOENT. */
	bool read_only;
};

/**
 * probe_file_open() - Open the probe file for O_DIRECT reads and writes,
 * making it when nvmond has recorded none there, or the recorded one is gone.
 * @ret_laid_out: bytes the layout wrote (0 when the file existed)
 * @ret_submitted: write bytes handed to the kernel for the layout, failed ones
 *                 included (>= @ret_laid_out); charge these
 * Return: 0 with *ret_fd and *ret_id; negative errno with @ret_reason filled
 * (-EPERM refused target, -ENOSPC no room, -EDQUOT no lease, -ECANCELED).
 */
int probe_file_open(const struct probe_file_req *q, int *ret_fd, struct probe_file_id *ret_id,
		    uint64_t *ret_laid_out, uint64_t *ret_submitted,
		    char ret_reason[PROBE_REASON_MAX]);

/**
 * probe_file_check() - Whether @fd (from probe_file_open()) is still the file
 * @id, on a filesystem of controller @ctrl: checked before every phase.
 * Return: 0, or -EPERM with @ret_reason filled.
 */
int probe_file_check(const char *sysfs, int fd, const char *ctrl, const struct probe_file_id *id,
		     char ret_reason[PROBE_REASON_MAX]);
