/* SPDX-License-Identifier: MIT */
/*
 * secret_file_read() (secret_file.h): a secret's first line, the file judged as a
 * secret (fperm.h), never cut silently, never in a message.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvmond/util/secret_file.h"

static char dir[] = "/tmp/nvmond-test-secret.XXXXXX";
static char path[128];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(chmod(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/s", dir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
}

TestSuite(secret_file, .init = setup, .fini = teardown);

static void put(const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	cr_assert_eq(close(fd), 0);
	cr_assert_eq(chmod(path, mode), 0);
}

/* The first line, its line end (LF or CRLF) not part of it; the rest of the file ignored. */
Test(secret_file, first_line)
{
	static const struct {
		const char *text, *want;
		unsigned flags;
	} cases[] = {
		{"s3cret\n", "s3cret", 0},
		{"s3cret", "s3cret", 0},
		{"s3cret\r\nsecond\n", "s3cret", 0},
		{"pass word \t\nx\n", "pass word \t", 0}, /* a secret's blanks are its own */
		{"tok \t\n", "tok", SECRET_TRIM_BLANKS},  /* a token's are not (http, fleet) */
	};
	char buf[32], err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put(cases[i].text, 0600);
		memset(buf, 'x', sizeof(buf));
		cr_assert_eq(
			secret_file_read(path, buf, sizeof(buf), cases[i].flags, err, sizeof(err)),
			0, "%s", err);
		cr_expect_str_eq(buf, cases[i].want);
		cr_expect_eq(buf[sizeof(buf) - 1], '\0', "the rest of the buffer zeroed");
	}
}

/* An empty first line is no secret (-ENODATA), even with more lines after it. */
Test(secret_file, empty)
{
	char buf[32], err[256];

	put("", 0600);
	cr_expect_eq(secret_file_read(path, buf, sizeof(buf), 0, err, sizeof(err)), -ENODATA);
	cr_expect_str_eq(err, path);
	put("\nsecond line\n", 0600);
	cr_expect_eq(secret_file_read(path, buf, sizeof(buf), 0, err, sizeof(err)), -ENODATA);
	put("  \t\n", 0600);
	cr_expect_eq(secret_file_read(path, buf, sizeof(buf), SECRET_TRIM_BLANKS, err, sizeof(err)),
		     -ENODATA, "blanks only: nothing left of a token");
}

/* Never cut silently: a line of @size - 1 bytes fits, one of @size does not. */
Test(secret_file, too_long_is_refused_not_cut)
{
	char buf[8], err[256];

	put("1234567\n", 0600);
	cr_expect_eq(secret_file_read(path, buf, sizeof(buf), 0, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(buf, "1234567");
	put("12345678\n", 0600);
	cr_expect_eq(secret_file_read(path, buf, sizeof(buf), 0, err, sizeof(err)), -E2BIG);
	put("12345678", 0600);
	cr_expect_eq(secret_file_read(path, buf, sizeof(buf), 0, err, sizeof(err)), -E2BIG);
	cr_expect_null(strstr(err, "1234"), "the secret in a message: %s", err);
}

/* security.md: nobody but its owner may read or write a secret (fperm.h); the
 * message says why and how to fix it, and never holds the secret. */
Test(secret_file, judged_as_a_secret)
{
	char buf[32], err[256], want[512];

	put("hunter2\n", 0644);
	cr_expect_eq(secret_file_read(path, buf, sizeof(buf), 0, err, sizeof(err)), -EPERM);
	snprintf(want, sizeof(want),
		 "%s holds a secret and anyone can read it (mode 0644): chmod o-rwx %s", path,
		 path);
	cr_expect_str_eq(err, want);
	cr_expect_null(strstr(err, "hunter2"));
	put("hunter2\n", 0640); /* a group may read it (root:nvmond 0640) */
	cr_expect_eq(secret_file_read(path, buf, sizeof(buf), 0, err, sizeof(err)), 0, "%s", err);
}

Test(secret_file, missing)
{
	char buf[32], err[256], want[512];

	cr_expect_eq(secret_file_read(path, buf, sizeof(buf), 0, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	cr_expect_str_eq(err, want);
}
