/* SPDX-License-Identifier: MIT */
/*
 * A fixture sysfs (or any small tree) under the directory @fx the test makes:
 * fx_put() writes a file (or, with NULL, makes a directory) and fx_ln() a
 * symbolic link, each making the directories on the way. Include it once;
 * the test's setup fills fx (mkdtemp) and its teardown removes the tree.
 */
#pragma once

#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char fx[PATH_MAX];

/* mkdir -p of the directory that holds @path. */
static inline void fx_mkdirs_for(const char *path)
{
	char d[PATH_MAX * 2];

	snprintf(d, sizeof(d), "%s", path);
	for (char *p = d + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		cr_assert(mkdir(d, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", d,
			  strerror(errno));
		*p = '/';
	}
}

/* Write @content to @rel under fx; NULL makes @rel a directory. */
static inline void fx_put(const char *rel, const char *content)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", fx, rel);
	fx_mkdirs_for(path);
	if (!content) {
		cr_assert_eq(mkdir(path, 0755), 0, "mkdir %s: %s", path, strerror(errno));
		return;
	}
	FILE *fp = fopen(path, "w");
	cr_assert_not_null(fp, "%s", path);
	fputs(content, fp);
	fclose(fp);
}

/* A symbolic link @rel under fx to @target (as given: relative links stay relative). */
static inline void fx_ln(const char *target, const char *rel)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", fx, rel);
	fx_mkdirs_for(path);
	(void)unlink(path); /* as ln -sfn */
	cr_assert_eq(symlink(target, path), 0, "ln -s %s %s: %s", target, path, strerror(errno));
}
