/* SPDX-License-Identifier: MIT */
/*
 * log_errno() against the lines it replaced: log_*("…: %s", …, strerror(err)).
 * Tests grep the daemon's log lines, so the two must write the same bytes, also
 * where a long line is cut (LOG_LINE_MAX, 2048 with the terminator).
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/core/log.h"

static void setup(void)
{
	unsetenv("JOURNAL_STREAM"); /* the stderr form: "nvmond: level: message" */
	log_set_level(LOG_LVL_DEBUG);
	cr_redirect_stderr();
}

/* What stderr got: @n lines into @v (each without its newline), read back. */
static size_t lines_read(char v[][4096], size_t n)
{
	FILE *f = cr_get_redirected_stderr();
	size_t k = 0;

	fflush(stderr);
	while (k < n && fgets(v[k], 4096, f)) {
		v[k][strcspn(v[k], "\n")] = '\0';
		k++;
	}
	return k;
}

static char pad[3000];

/* The line log_warn("%s %s: %s", pad[len], word, strerror(err)) wrote, and log_errno's. */
static void both(size_t len, int err)
{
	char text[3000];

	memcpy(text, pad, len);
	text[len] = '\0';
	log_warn("%s %s: %s", text, "/var/lib/nvmond", strerror(err));
	log_errno(LOG_LVL_WARNING, err, "%s %s", text, "/var/lib/nvmond");
}

/* "messages must stay byte-identical (tests grep log lines)" (issue 26) */
Test(log, errno_line_as_before, .init = setup)
{
	static char v[16][4096];
	const size_t lens[] = {0, 10, 2000, 2020, 2030, 2040, 2100};
	const int errs[] = {ENOENT, ENOSPC, EACCES, 0, 4242};
	size_t n = 0;

	memset(pad, 'x', sizeof(pad));
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		both(lens[i], errs[i % (sizeof(errs) / sizeof(errs[0]))]);
	n = lines_read(v, 16);
	cr_assert_eq(n, 2 * sizeof(lens) / sizeof(lens[0]));
	for (size_t i = 0; i < n; i += 2)
		cr_expect_str_eq(v[i + 1], v[i], "length %zu", lens[i / 2]);
	cr_expect_str_eq(v[0], "nvmond: warning:  /var/lib/nvmond: No such file or directory");
	/* The longest are cut where log_msg() cuts them: 2047 bytes of message. */
	cr_expect_eq(strlen(v[n - 1]), strlen("nvmond: warning: ") + 2047);
}

/* A level below the one set writes nothing, as log_msg(). */
Test(log, errno_below_the_level, .init = setup)
{
	static char v[4][4096];

	log_set_level(LOG_LVL_WARNING);
	log_errno(LOG_LVL_INFO, ENOENT, "not written");
	log_errno(LOG_LVL_ERROR, ENOENT, "written");
	cr_assert_eq(lines_read(v, 4), 1);
	cr_expect_str_eq(v[0], "nvmond: error: written: No such file or directory");
}
