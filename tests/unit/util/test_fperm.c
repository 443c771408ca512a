/* SPDX-License-Identifier: MIT */
/*
 * Files nvmond trusts (util/fperm.c, issue 23 §8: a world-writable
 * configuration, a 0666 tls_key and token file were taken silently). Each case
 * names the rule of docs/security.md#files-nvmond-trusts it checks.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvmond/util/fperm.h"

#define ME   1000
#define ROOT 0

Test(fperm, file_rule)
{
	const struct {
		const char *rule;
		mode_t mode;
		uid_t owner, euid;
		enum fperm_use use;
		enum fperm_why want;
	} t[] = {
		{"a configuration 0644 of root", 0644, ROOT, ME, FPERM_TRUSTED, FPERM_OK},
		{"the install's root:nvmond 0640", 0640, ROOT, ME, FPERM_SECRET, FPERM_OK},
		{"a secret 0600 of the reader", 0600, ME, ME, FPERM_SECRET, FPERM_OK},
		{"a secret 0400 of root, read by root", 0400, ROOT, ROOT, FPERM_SECRET, FPERM_OK},
		{"a hook 0755 of root", 0755, ROOT, ME, FPERM_TRUSTED, FPERM_OK},
		{"anyone may write: refused", 0666, ROOT, ME, FPERM_TRUSTED, FPERM_OTHER_WRITABLE},
		{"o+w alone: refused", 0602, ME, ME, FPERM_TRUSTED, FPERM_OTHER_WRITABLE},
		{"its group may write: refused", 0664, ME, ME, FPERM_TRUSTED, FPERM_GROUP_WRITABLE},
		{"g+w alone: refused", 0620, ROOT, ME, FPERM_SECRET, FPERM_GROUP_WRITABLE},
		{"a secret anyone may read: refused", 0644, ROOT, ME, FPERM_SECRET,
		 FPERM_OTHER_READABLE},
		{"o+r alone on a secret: refused", 0604, ME, ME, FPERM_SECRET,
		 FPERM_OTHER_READABLE},
		{"a trusted file anyone may read: fine", 0644, ME, ME, FPERM_TRUSTED, FPERM_OK},
		{"a 0666 secret: writable comes first", 0666, ROOT, ME, FPERM_SECRET,
		 FPERM_OTHER_WRITABLE},
		{"owned by another user: refused (they may chmod it)", 0600, 1001, ME,
		 FPERM_TRUSTED, FPERM_OWNER},
		{"owned by another user, read by root: refused", 0644, 1001, ROOT, FPERM_TRUSTED,
		 FPERM_OWNER},
		{"o+x of a hook: fine", 0751, ROOT, ME, FPERM_TRUSTED, FPERM_OK},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(fperm_judge_file(t[i].mode | S_IFREG, t[i].owner, t[i].euid, t[i].use),
			     t[i].want, "%s", t[i].rule);
}

Test(fperm, directory_rule)
{
	const struct {
		const char *rule;
		mode_t mode;
		uid_t owner, euid;
		enum fperm_why want;
	} t[] = {
		{"/etc: 0755 of root", 0755, ROOT, ME, FPERM_OK},
		{"the reader's 0700", 0700, ME, ME, FPERM_OK},
		{"/tmp: 1777, sticky", 01777, ROOT, ME, FPERM_OK},
		{"anyone may replace a file: refused", 0777, ROOT, ME, FPERM_OTHER_WRITABLE},
		{"its group may replace a file: refused", 0775, ME, ME, FPERM_GROUP_WRITABLE},
		{"a sticky group-writable directory: fine", 01770, ROOT, ME, FPERM_OK},
		{"owned by another user: refused", 0755, 1001, ME, FPERM_OWNER},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(fperm_judge_dir(t[i].mode | S_IFDIR, t[i].owner, t[i].euid), t[i].want,
			     "%s", t[i].rule);
}

/* The I/O side: real files and directories, their messages. */
Test(fperm, check_on_real_files)
{
	char dir[] = "/tmp/nvmond-fperm.XXXXXX", file[64], sub[64], err[512];

	cr_assert_not_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/secret", dir);
	int fd = open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);

	cr_expect_eq(fperm_check(fd, file, FPERM_SECRET, err, sizeof(err)), 0, "%s", err);
	fchmod(fd, 0644);
	cr_expect_eq(fperm_check(fd, file, FPERM_SECRET, err, sizeof(err)), -EPERM);
	cr_expect(strstr(err, "anyone can read it (mode 0644): chmod o-rwx"), "%s", err);
	cr_expect_eq(fperm_check(-1, file, FPERM_TRUSTED, err, sizeof(err)), 0, "%s", err);
	fchmod(fd, 0666);
	cr_expect_eq(fperm_check(-1, file, FPERM_TRUSTED, err, sizeof(err)), -EPERM);
	cr_expect(strstr(err, "is writable by anyone (mode 0666): chmod o-w"), "%s", err);
	fchmod(fd, 0600);

	/* The directory: writable by anyone, then sticky as /tmp is. */
	chmod(dir, 0777);
	cr_expect_eq(fperm_check(fd, file, FPERM_SECRET, err, sizeof(err)), -EPERM);
	cr_expect(strstr(err, "its directory") && strstr(err, "chmod o-w"), "%s", err);
	chmod(dir, 01777);
	cr_expect_eq(fperm_check(fd, file, FPERM_SECRET, err, sizeof(err)), 0, "%s", err);
	chmod(dir, 0700);

	/* Another owner (root can make one). */
	if (geteuid() == 0) {
		cr_assert_eq(fchown(fd, 4242, 4242), 0);
		cr_expect_eq(fperm_check(fd, file, FPERM_SECRET, err, sizeof(err)), -EPERM);
		cr_expect(strstr(err, "owned by uid 4242"), "%s", err);
		cr_assert_eq(fchown(fd, 0, 0), 0);
	}
	close(fd);

	/* Not a file; not there. */
	snprintf(sub, sizeof(sub), "%s/d", dir);
	mkdir(sub, 0700);
	cr_expect_eq(fperm_check(-1, sub, FPERM_TRUSTED, err, sizeof(err)), -EINVAL);
	rmdir(sub);
	cr_expect_eq(fperm_check(-1, sub, FPERM_TRUSTED, err, sizeof(err)), -ENOENT);
	cr_expect(strstr(err, "No such file"), "%s", err);
	unlink(file);
	rmdir(dir);
}
