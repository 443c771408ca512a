/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/*
 * Files nvmond trusts, as OpenSSH and cron judge theirs: a file whose content
 * decides what nvmond runs or sends (the configuration, the exec hook) must be
 * writable by nobody but its owner, and its owner must be root or the user
 * nvmond reads it as; a secret (a token, a password, a TLS key) must also be
 * unreadable by others (the "other" permission class: a group may read it, as
 * the install's root:nvmond 0640 does). The directory that holds either must
 * be writable by nobody else either, unless it is sticky (as /tmp is: others
 * cannot replace a file there that they do not own).
 * docs/security.md#files-nvmond-trusts.
 */
enum fperm_use {
	FPERM_TRUSTED, /* nobody else may write it */
	FPERM_SECRET,  /* …nor read it */
};

/* What is wrong with a file or a directory; FPERM_OK when nothing is. */
enum fperm_why {
	FPERM_OK,
	FPERM_OWNER,	      /* owned by neither root nor the reader */
	FPERM_GROUP_WRITABLE, /* g+w */
	FPERM_OTHER_WRITABLE, /* o+w */
	FPERM_OTHER_READABLE, /* o+r, of a secret */
};

/**
 * fperm_judge_file() - The rule for a file of @mode owned by @owner that the
 * user @euid reads for @use. Pure.
 */
enum fperm_why fperm_judge_file(mode_t mode, uid_t owner, uid_t euid, enum fperm_use use);

/**
 * fperm_judge_dir() - The rule for the directory (@mode, @owner) that holds
 * such a file: owned by root or @euid, writable by nobody else unless sticky.
 * Pure.
 */
enum fperm_why fperm_judge_dir(mode_t mode, uid_t owner, uid_t euid);

/**
 * fperm_check() - The file open as @fd (@fd < 0: stat() @path) and the
 * directory @path names it in, judged for @use with this process's effective
 * uid. Not a file (a directory, a device): -EINVAL.
 * Return: 0; -EPERM or -EINVAL with "PATH: why (mode, owner); what to do" in
 * @err; another -errno when stat() failed (@err says so).
 */
int fperm_check(int fd, const char *path, enum fperm_use use, char *err, size_t errsize);
