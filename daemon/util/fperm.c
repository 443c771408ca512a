/* SPDX-License-Identifier: MIT */
/* Files nvmond trusts: who may write and read them (fperm.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvmond/util/fperm.h"

enum fperm_why fperm_judge_file(mode_t mode, uid_t owner, uid_t euid, enum fperm_use use)
{
	if (owner != 0 && owner != euid)
		return FPERM_OWNER;
	if (mode & S_IWOTH)
		return FPERM_OTHER_WRITABLE;
	if (mode & S_IWGRP)
		return FPERM_GROUP_WRITABLE;
	if (use == FPERM_SECRET && (mode & S_IROTH))
		return FPERM_OTHER_READABLE;
	return FPERM_OK;
}

enum fperm_why fperm_judge_dir(mode_t mode, uid_t owner, uid_t euid)
{
	if (owner != 0 && owner != euid)
		return FPERM_OWNER;
	if (mode & S_ISVTX)
		return FPERM_OK; /* others cannot replace what they do not own */
	if (mode & S_IWOTH)
		return FPERM_OTHER_WRITABLE;
	if (mode & S_IWGRP)
		return FPERM_GROUP_WRITABLE;
	return FPERM_OK;
}

/* "what is wrong; what to do" for @why of @file, or of its directory @dir (NULL: the file). */
static void explain(enum fperm_why why, const char *file, const char *dir, const struct stat *st,
		    uid_t euid, char *err, size_t errsize)
{
	const char *obj = dir ? dir : file;
	char what[300];
	unsigned mode = (unsigned)st->st_mode & 07777;

	if (dir)
		snprintf(what, sizeof(what), "%s: its directory %s", file, dir);
	else
		snprintf(what, sizeof(what), "%s", file);
	switch (why) {
	case FPERM_OWNER:
		snprintf(err, errsize,
			 "%s is owned by uid %u, neither root nor the user nvmond runs as (uid "
			 "%u), who could change it: chown it",
			 what, (unsigned)st->st_uid, (unsigned)euid);
		break;
	case FPERM_OTHER_WRITABLE:
		snprintf(err, errsize, "%s is writable by anyone (mode %04o): chmod o-w %s", what,
			 mode, obj);
		break;
	case FPERM_GROUP_WRITABLE:
		snprintf(err, errsize, "%s is writable by its group (mode %04o): chmod g-w %s",
			 what, mode, obj);
		break;
	case FPERM_OTHER_READABLE:
		snprintf(err, errsize,
			 "%s holds a secret and anyone can read it (mode %04o): chmod o-rwx %s",
			 what, mode, obj);
		break;
	case FPERM_OK:
		break;
	}
}

int fperm_check(int fd, const char *path, enum fperm_use use, char *err, size_t errsize)
{
	struct stat st, dst;
	char dir[4096];
	const char *slash = strrchr(path, '/');
	uid_t euid = geteuid();
	enum fperm_why why;

	if ((fd >= 0 ? fstat(fd, &st) : stat(path, &st)) < 0) {
		int r = -errno;
		snprintf(err, errsize, "%s: %s", path, strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errsize, "%s: not a file", path);
		return -EINVAL;
	}
	why = fperm_judge_file(st.st_mode, st.st_uid, euid, use);
	if (why != FPERM_OK) {
		explain(why, path, NULL, &st, euid, err, errsize);
		return -EPERM;
	}
	/* The directory the path names it in: "/" for "/x", "." for "x". */
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (stat(dir, &dst) < 0) {
		int r = -errno;
		snprintf(err, errsize, "%s: its directory %s: %s", path, dir, strerror(-r));
		return r;
	}
	why = fperm_judge_dir(dst.st_mode, dst.st_uid, euid);
	if (why != FPERM_OK) {
		explain(why, path, dir, &dst, euid, err, errsize);
		return -EPERM;
	}
	return 0;
}
