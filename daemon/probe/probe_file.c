/* SPDX-License-Identifier: MIT */
/*
 * The probe file: made unnamed, recorded, named; opened only as the inode
 * nvmond recorded. See probe_file.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nvmond/probe/probe_file.h"
#include "nvmond/util/units.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

#define SPACE_CHECK_MiB 64 /* the layout looks at free space this often */

bool probe_file_id_eq(const struct probe_file_id *known, const struct probe_file_id *seen)
{
	/* The inode number alone can be reused by another file: never enough. */
	if (!known->has_gen && !known->has_btime)
		return false;
	if (known->ino != seen->ino)
		return false;
	if (known->has_gen && (!seen->has_gen || known->gen != seen->gen))
		return false;
	if (known->has_btime && (!seen->has_btime || known->btime_ns != seen->btime_ns))
		return false;
	return true;
}

bool probe_layout_may_write(uint64_t total, uint64_t avail, uint64_t step, unsigned min_free_pct)
{
	uint64_t keep = total / 100 * min_free_pct + total % 100 * min_free_pct / 100;

	return avail >= step && avail - step >= keep;
}

static int sys_openat2(int dfd, const char *path, uint64_t flags, uint64_t resolve)
{
#ifdef SYS_openat2
	struct open_how how = {.flags = flags, .resolve = resolve};
	return (int)syscall(SYS_openat2, dfd, path, &how, sizeof(how));
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* The mount an fd is on: statx where the kernel has it (5.8), else fdinfo. */
static int fd_mnt_id(int fd, uint64_t *ret)
{
	struct statx sx;
	char path[64], line[128];
	FILE *fp;
	int r = -ENOSYS;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) == 0 && (sx.stx_mask & STATX_MNT_ID)) {
		*ret = sx.stx_mnt_id;
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "mnt_id: %" SCNu64, ret) == 1) {
			r = 0;
			break;
		}
	fclose(fp);
	return r;
}

/* The identity of an inode open for I/O on @fd (ioctl needs a real open). */
static int fd_identity(int fd, struct probe_file_id *ret)
{
	struct statx sx;
	long gen = 0;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_INO | STATX_BTIME | STATX_SIZE, &sx) < 0)
		return -errno;
	*ret = (struct probe_file_id){.ino = sx.stx_ino, .size = sx.stx_size};
	if (sx.stx_mask & STATX_BTIME) {
		ret->has_btime = true;
		ret->btime_ns = (int64_t)sx.stx_btime.tv_sec * 1000000000LL + sx.stx_btime.tv_nsec;
	}
	/* Filesystems write an int there (ext4, xfs, btrfs). */
	if (ioctl(fd, FS_IOC_GETVERSION, &gen) == 0) {
		ret->has_gen = true;
		ret->gen = (uint32_t)gen;
	}
	return 0;
}

/* Open @dir with no symlink anywhere on its path and check who may write it. */
static int dir_open(const struct probe_file_req *q, int *ret_dfd, struct stat *ret_st,
		    char reason[PROBE_REASON_MAX])
{
	int dfd, r;

	if (q->dir[0] != '/') {
		probe_reasonf(reason, "probe_dir %s is not an absolute path", q->dir);
		return -EINVAL;
	}
	dfd = sys_openat2(AT_FDCWD, q->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC,
			  RESOLVE_NO_SYMLINKS);
	if (dfd < 0 && errno == ENOSYS)
		dfd = open(q->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		r = -errno;
		if (r == -ELOOP)
			probe_reasonf(
				reason,
				"probe directory %s: a symlink is on its path (nvmond follows "
				"none)",
				q->dir);
		else if (r == -ENOTDIR)
			probe_reasonf(
				reason,
				"probe directory %s: not a directory (or a symlink on its path)",
				q->dir);
		else
			probe_reasonf(reason, "probe directory %s: %s", q->dir, strerror(-r));
		return r;
	}
	if (fstat(dfd, ret_st) < 0) {
		r = -errno;
		probe_reasonf(reason, "probe directory %s: %s", q->dir, strerror(-r));
		close(dfd);
		return r;
	}
	/* Whoever can write it can swap the probe file's name for another file's. */
	if (ret_st->st_uid != 0 && ret_st->st_uid != geteuid()) {
		probe_reasonf(reason,
			      "probe directory %s belongs to uid %u: it must belong to root or to "
			      "nvmond's user",
			      q->dir, (unsigned)ret_st->st_uid);
		close(dfd);
		return -EPERM;
	}
	if (ret_st->st_mode & (S_IWGRP | S_IWOTH)) {
		probe_reasonf(reason,
			      "probe directory %s is writable by %s (mode %04o): make it 0755 or "
			      "stricter",
			      q->dir, ret_st->st_mode & S_IWOTH ? "others" : "its group",
			      (unsigned)(ret_st->st_mode & 07777));
		close(dfd);
		return -EPERM;
	}
	*ret_dfd = dfd;
	return 0;
}

/* Lay @size bytes of incompressible data into @fd, within space and leases. */
static int layout(const struct probe_file_req *q, int dfd, int fd, uint64_t *ret_written,
		  uint64_t *ret_submitted, char reason[PROBE_REASON_MAX])
{
	uint64_t seed = 0x70726f6265ull, granted = 0, written = 0, submitted = 0;
	void *buf = NULL;
	int r;

	r = -posix_memalign(&buf, 4096, MiB);
	if (r < 0) {
		probe_reasonf(reason, "out of memory");
		return r;
	}
	for (uint64_t off = 0; off < q->size; off += MiB) {
		if (q->cancelled && q->cancelled(q->cancel_ctx)) {
			probe_reasonf(reason, "cancelled while making the probe file");
			r = -ECANCELED;
			goto out;
		}
		if (q->lease && off + MiB > granted) {
			r = q->lease(q->lease_ctx, off + MiB, &granted);
			if (r < 0) {
				probe_reasonf(reason, "cannot record the probe's writes: %s",
					      strerror(-r));
				goto out;
			}
			if (off + MiB > granted) {
				probe_reasonf(
					reason,
					"the write budget ran out while making the probe file");
				r = -EDQUOT;
				goto out;
			}
		}
		if (off % (SPACE_CHECK_MiB * MiB) == 0) {
			struct statvfs sv;
			uint64_t step = q->size - off < SPACE_CHECK_MiB * MiB
						? q->size - off
						: SPACE_CHECK_MiB * MiB;
			if (fstatvfs(dfd, &sv) < 0) {
				r = -errno;
				probe_reasonf(reason, "probe directory %s: %s", q->dir,
					      strerror(-r));
				goto out;
			}
			/* Space fallocate() reserved is the file's already. */
			struct stat st;
			uint64_t reserved = fstat(fd, &st) == 0 ? (uint64_t)st.st_blocks * 512 : 0;
			uint64_t need = reserved >= off + step ? 0 : off + step - reserved;
			if (need &&
			    !probe_layout_may_write((uint64_t)sv.f_blocks * sv.f_frsize,
						    (uint64_t)sv.f_bavail * sv.f_frsize,
						    need > step ? step : need, q->min_free_pct)) {
				probe_reasonf(
					reason,
					"the filesystem of %s is filling up: stopped making the "
					"probe file "
					"to keep %u %% of it free",
					q->dir, q->min_free_pct);
				r = -ENOSPC;
				goto out;
			}
		}
		probe_fill_random(buf, MiB, &seed);
		submitted += MiB;
		ssize_t n = pwrite(fd, buf, MiB, (off_t)off);
		if (n != (ssize_t)MiB) {
			r = n < 0 ? -errno : -EIO;
			probe_reasonf(reason, "cannot write the probe file: %s", strerror(-r));
			goto out;
		}
		written += MiB;
	}
	if (fsync(fd) < 0) {
		r = -errno;
		probe_reasonf(reason, "cannot write the probe file: %s", strerror(-r));
		goto out;
	}
	r = 0;
out:
	free(buf);
	*ret_written = written;
	*ret_submitted = submitted;
	return r;
}

/* Make the file unnamed, lay it out, have it recorded, then name it. */
static int file_make(const struct probe_file_req *q, int dfd, int *ret_fd,
		     struct probe_file_id *ret_id, uint64_t *ret_written, uint64_t *ret_submitted,
		     char reason[PROBE_REASON_MAX])
{
	char tmp[64] = "", proc[64];
	struct statvfs sv;
	int fd, r;

	*ret_written = *ret_submitted = 0;
	if (fstatvfs(dfd, &sv) < 0) {
		r = -errno;
		probe_reasonf(reason, "probe directory %s: %s", q->dir, strerror(-r));
		return r;
	}
	uint64_t total = (uint64_t)sv.f_blocks * sv.f_frsize,
		 avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	if (!probe_layout_may_write(total, avail, q->size, q->min_free_pct)) {
		probe_reasonf(
			reason,
			"no room for the %.1f MB probe file in %s: %.1f MB free, and %u %% of the "
			"filesystem (%.1f MB) stays free ([probes] min_free)",
			(double)q->size / 1e6, q->dir, (double)avail / 1e6, q->min_free_pct,
			(double)total * q->min_free_pct / 100 / 1e6);
		return -ENOSPC;
	}
	fd = openat(dfd, ".", O_TMPFILE | O_RDWR | O_DIRECT | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		/* No O_TMPFILE here: a fresh name of our own, renamed without replacing. */
		snprintf(tmp, sizeof(tmp), ".nvmond-probe.%ld.tmp", (long)getpid());
		(void)unlinkat(dfd, tmp, 0);
		fd = openat(dfd, tmp, O_CREAT | O_EXCL | O_RDWR | O_DIRECT | O_NOFOLLOW | O_CLOEXEC,
			    0600);
	}
	if (fd < 0) {
		r = -errno;
		probe_reasonf(reason, "cannot make the probe file in %s: %s", q->dir, strerror(-r));
		return r;
	}
	/* Reserve the space at once where the filesystem can (not ext2). */
	if (fallocate(fd, 0, 0, (off_t)q->size) < 0 && errno != EOPNOTSUPP && errno != ENOSYS) {
		r = -errno;
		probe_reasonf(reason, "cannot allocate %" PRIu64 " MB in %s: %s", q->size / 1000000,
			      q->dir, strerror(-r));
		goto fail;
	}
	r = layout(q, dfd, fd, ret_written, ret_submitted, reason);
	if (r < 0)
		goto fail;
	r = fd_identity(fd, ret_id);
	if (r < 0) {
		probe_reasonf(reason, "probe file in %s: %s", q->dir, strerror(-r));
		goto fail;
	}
	if (!ret_id->has_gen && !ret_id->has_btime) {
		probe_reasonf(
			reason,
			"the filesystem of %s cannot tell a file from a later one with the same "
			"inode "
			"number (no inode generation or birth time): use ext4, xfs or btrfs",
			q->dir);
		r = -EPERM;
		goto fail;
	}
	if (q->made) {
		r = q->made(q->made_ctx, ret_id);
		if (r < 0) {
			probe_reasonf(reason, "cannot record the new probe file: %s", strerror(-r));
			goto fail;
		}
	}
	/* The name last, and only if nobody has taken it meanwhile. */
	if (!tmp[0]) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		r = linkat(AT_FDCWD, proc, dfd, PROBE_FILE_NAME, AT_SYMLINK_FOLLOW);
		if (r < 0 && errno == ENOENT) /* no /proc: needs CAP_DAC_READ_SEARCH */
			r = linkat(fd, "", dfd, PROBE_FILE_NAME, AT_EMPTY_PATH);
	} else {
		r = renameat2(dfd, tmp, dfd, PROBE_FILE_NAME, RENAME_NOREPLACE);
	}
	if (r < 0) {
		r = -errno;
		probe_reasonf(reason, "%s/%s %s", q->dir, PROBE_FILE_NAME,
			      r == -EEXIST ? "appeared while nvmond was making it: refused"
					   : strerror(-r));
		goto fail;
	}
	*ret_fd = fd;
	return 0;
fail:
	if (tmp[0])
		(void)unlinkat(dfd, tmp, 0);
	close(fd); /* an O_TMPFILE file vanishes with its last fd */
	return r;
}

/* Resolve the name to an O_PATH handle: no symlink, no mount point crossed. */
static int name_open(const struct probe_file_req *q, int dfd, int *ret_pfd,
		     char reason[PROBE_REASON_MAX])
{
	int pfd = sys_openat2(dfd, PROBE_FILE_NAME, O_PATH | O_CLOEXEC,
			      RESOLVE_BENEATH | RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS);
	int r;

	if (pfd < 0 && errno == ENOSYS)
		pfd = openat(dfd, PROBE_FILE_NAME, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd >= 0) {
		*ret_pfd = pfd;
		return 0;
	}
	r = -errno;
	if (r == -ELOOP)
		probe_reasonf(reason, "%s/%s is a symlink: refusing to follow it", q->dir,
			      PROBE_FILE_NAME);
	else if (r == -EXDEV)
		probe_reasonf(reason, "%s/%s is a mount point (a bind mount?): refused", q->dir,
			      PROBE_FILE_NAME);
	else if (r != -ENOENT)
		probe_reasonf(reason, "%s/%s: %s", q->dir, PROBE_FILE_NAME, strerror(-r));
	return r;
}

/* Check the O_PATH handle of an existing name before anything opens it for I/O. */
static int name_check(const struct probe_file_req *q, int dfd, int pfd,
		      char reason[PROBE_REASON_MAX])
{
	struct statx sx;
	uint64_t dmnt = 0, fmnt = 0;
	struct stat dst;

	if (statx(pfd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_NLINK | STATX_INO, &sx) < 0 ||
	    fstat(dfd, &dst) < 0) {
		probe_reasonf(reason, "%s/%s: %s", q->dir, PROBE_FILE_NAME, strerror(errno));
		return -errno;
	}
	if (S_ISLNK(sx.stx_mode)) {
		probe_reasonf(reason, "%s/%s is a symlink: refusing to follow it", q->dir,
			      PROBE_FILE_NAME);
		return -ELOOP;
	}
	if (!S_ISREG(sx.stx_mode)) {
		probe_reasonf(reason, "%s/%s is not a regular file (%s): refused", q->dir,
			      PROBE_FILE_NAME,
			      S_ISFIFO(sx.stx_mode)  ? "a FIFO"
			      : S_ISBLK(sx.stx_mode) ? "a block device node"
			      : S_ISCHR(sx.stx_mode) ? "a character device node"
			      : S_ISDIR(sx.stx_mode) ? "a directory"
						     : "a socket");
		return -EPERM;
	}
	if (sx.stx_nlink != 1) {
		probe_reasonf(reason, "%s/%s has %u links (another name points at it): refused",
			      q->dir, PROBE_FILE_NAME, (unsigned)sx.stx_nlink);
		return -EPERM;
	}
	if (makedev(sx.stx_dev_major, sx.stx_dev_minor) != dst.st_dev ||
	    fd_mnt_id(dfd, &dmnt) < 0 || fd_mnt_id(pfd, &fmnt) < 0 || dmnt != fmnt) {
		probe_reasonf(
			reason,
			"%s/%s is on another mount than its directory (a bind mount?): refused",
			q->dir, PROBE_FILE_NAME);
		return -EPERM;
	}
	if (!q->known) {
		probe_reasonf(
			reason,
			"%s/%s exists, but nvmond has no record of making it: it may be someone "
			"else's file. If it is an old probe file, remove it; nvmond then makes a "
			"new one",
			q->dir, PROBE_FILE_NAME);
		return -EPERM;
	}
	if (sx.stx_ino != q->known->ino) {
		probe_reasonf(reason,
			      "%s/%s is not the file nvmond made there (inode %" PRIu64
			      ", nvmond made inode %" PRIu64 "): refused",
			      q->dir, PROBE_FILE_NAME, (uint64_t)sx.stx_ino, q->known->ino);
		return -EPERM;
	}
	return 0;
}

/* Open the very inode @pfd names, for I/O, and check its generation / birth time. */
static int reopen(const struct probe_file_req *q, int dfd, int pfd, int *ret_fd,
		  struct probe_file_id *ret_id, char reason[PROBE_REASON_MAX])
{
	char proc[64];
	struct stat pst, fst;
	int fd, r;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	int mode = q->read_only ? O_RDONLY : O_RDWR;
	fd = open(proc, mode | O_DIRECT | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		fd = sys_openat2(dfd, PROBE_FILE_NAME, mode | O_DIRECT | O_CLOEXEC,
				 RESOLVE_BENEATH | RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS);
	if (fd < 0) {
		r = -errno;
		probe_reasonf(reason, "%s/%s: %s", q->dir, PROBE_FILE_NAME, strerror(-r));
		return r;
	}
	if (fstat(pfd, &pst) < 0 || fstat(fd, &fst) < 0 || pst.st_ino != fst.st_ino ||
	    pst.st_dev != fst.st_dev || !S_ISREG(fst.st_mode)) {
		probe_reasonf(reason, "%s/%s changed while being opened: refused", q->dir,
			      PROBE_FILE_NAME);
		close(fd);
		return -EPERM;
	}
	r = fd_identity(fd, ret_id);
	if (r < 0) {
		probe_reasonf(reason, "%s/%s: %s", q->dir, PROBE_FILE_NAME, strerror(-r));
		close(fd);
		return r;
	}
	if (!probe_file_id_eq(q->known, ret_id)) {
		probe_reasonf(reason,
			      "%s/%s is not the file nvmond made there (same inode number, another "
			      "generation: a new file): refused",
			      q->dir, PROBE_FILE_NAME);
		close(fd);
		return -EPERM;
	}
	*ret_fd = fd;
	return 0;
}

int probe_file_open(const struct probe_file_req *q, int *ret_fd, struct probe_file_id *ret_id,
		    uint64_t *ret_laid_out, uint64_t *ret_submitted,
		    char ret_reason[PROBE_REASON_MAX])
{
	struct stat dst;
	int dfd = -1, pfd = -1, fd = -1, r;

	*ret_laid_out = *ret_submitted = 0;
	if (q->size < MiB || q->size % MiB) {
		probe_reasonf(ret_reason, "probe file size must be whole MiB");
		return -EINVAL;
	}
	r = dir_open(q, &dfd, &dst, ret_reason);
	if (r < 0)
		return r;
	r = probe_fs_on_device(q->sysfs, dst.st_dev, q->ctrl, ret_reason);
	if (r <= 0) {
		r = r < 0 ? r : -EXDEV;
		goto out;
	}
	r = name_open(q, dfd, &pfd, ret_reason);
	if (r == -ENOENT && q->read_only) {
		probe_reasonf(
			ret_reason,
			"%s/%s does not exist: it is read only as nvmond made it (a probe that "
			"writes on this drive makes it)",
			q->dir, PROBE_FILE_NAME);
		goto out;
	}
	if (r == -ENOENT) {
		r = file_make(q, dfd, &fd, ret_id, ret_laid_out, ret_submitted, ret_reason);
		goto out;
	}
	if (r < 0)
		goto out;
	r = name_check(q, dfd, pfd, ret_reason);
	if (r < 0)
		goto out;
	r = reopen(q, dfd, pfd, &fd, ret_id, ret_reason);
	if (r < 0)
		goto out;
	if (ret_id->size != q->size && !q->read_only) {
		/* Ours, at another size than configured now: make it again. */
		struct stat st;
		if (unlinkat(dfd, PROBE_FILE_NAME, 0) < 0 || fstat(fd, &st) < 0 ||
		    st.st_nlink != 0) {
			r = -EPERM;
			probe_reasonf(ret_reason,
				      "%s/%s could not be replaced by one of the new size: refused",
				      q->dir, PROBE_FILE_NAME);
			goto out;
		}
		close(fd);
		fd = -1;
		r = file_make(q, dfd, &fd, ret_id, ret_laid_out, ret_submitted, ret_reason);
	}
out:
	if (pfd >= 0)
		close(pfd);
	close(dfd);
	if (r < 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

int probe_file_check(const char *sysfs, int fd, const char *ctrl, const struct probe_file_id *id,
		     char ret_reason[PROBE_REASON_MAX])
{
	struct probe_file_id seen;
	struct stat st;
	int r;

	if (fd_identity(fd, &seen) < 0 || !probe_file_id_eq(id, &seen) || fstat(fd, &st) < 0) {
		probe_reasonf(ret_reason, "the probe file is no longer the one nvmond opened");
		return -EPERM;
	}
	r = probe_fs_on_device(sysfs, st.st_dev, ctrl, ret_reason);
	return r == 1 ? 0 : -EPERM;
}
