/* SPDX-License-Identifier: MIT */
/*
 * The per-drive probe lock across processes (docs/probes.md, Safety: one probe per
 * drive across every nvmond process), and the name it takes from a serial.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvmond/probe/probe_lock.h"

static char base[64], dir[PATH_MAX];

static void setup(void)
{
	snprintf(base, sizeof(base), "/tmp/nvmond-lock-XXXXXX");
	cr_assert_not_null(mkdtemp(base));
	/* The lock directory is made on first use. */
	snprintf(dir, sizeof(dir), "%s/locks", base);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(probe_lock, .init = setup, .fini = teardown);

Test(probe_lock, names_keep_serials_apart)
{
	char a[128], b[128];

	cr_assert_eq(probe_lock_name("S6B0NL0W123456", a, sizeof(a)), 0);
	cr_expect_str_eq(a, "probe-S6B0NL0W123456.lock");
	cr_assert_eq(probe_lock_name("a/b c", b, sizeof(b)), 0);
	cr_expect_str_eq(b, "probe-a%2Fb%20c.lock", "no path separator from a serial");
	cr_assert_eq(probe_lock_name("a%2Fb c", b, sizeof(b)), 0);
	cr_expect_str_neq(b, "probe-a%2Fb%20c.lock", "%% is escaped too: no two serials alike");
	cr_expect_eq(probe_lock_name("x", a, 8), -ENAMETOOLONG);
}

/* A child holds the drive; the parent is refused with the holder named, then gets it. */
Test(probe_lock, one_process_per_drive)
{
	char why[PROBE_LOCK_ERR_MAX];
	int fds[2], fd = -1;

	cr_assert_eq(pipe(fds), 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		int l = -1;
		char w[PROBE_LOCK_ERR_MAX];
		if (probe_lock_take(dir, "SER1", "nvmond probe", &l, w) < 0)
			_exit(1);
		(void)!write(fds[1], "x", 1);
		pause(); /* killed below: the kernel lets go of the lock */
		_exit(0);
	}
	char c;
	cr_assert_eq(read(fds[0], &c, 1), 1);
	cr_expect_eq(probe_lock_take(dir, "SER1", "the daemon", &fd, why), -EBUSY);
	cr_expect(strstr(why, "another nvmond process"), "%s", why);
	char want[64];
	snprintf(want, sizeof(want), "pid %d, nvmond probe", (int)pid);
	cr_expect(strstr(why, want), "%s", why);
	/* Another drive is free. */
	cr_assert_eq(probe_lock_take(dir, "SER2", "the daemon", &fd, why), 0, "%s", why);
	probe_lock_release(fd);
	/* Killed, the holder lets go: no stale lock. */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	cr_assert_eq(probe_lock_take(dir, "SER1", "the daemon", &fd, why), 0, "%s", why);
	/* One process, two handles: still one probe per drive. */
	int fd2 = -1;
	cr_expect_eq(probe_lock_take(dir, "SER1", "the daemon", &fd2, why), -EBUSY);
	probe_lock_release(fd);
	probe_lock_release(-1);
	close(fds[0]);
	close(fds[1]);
}

Test(probe_lock, refuses_no_serial_and_a_bad_dir)
{
	char why[PROBE_LOCK_ERR_MAX];
	int fd = -1;

	cr_expect_eq(probe_lock_take(dir, "", "x", &fd, why), -EINVAL);
	cr_expect_lt(probe_lock_take("/proc/nvmond-no/such", "S", "x", &fd, why), 0);
	cr_expect(strstr(why, "lock directory"), "%s", why);
	char buf[PATH_MAX];
	cr_expect(probe_lock_dir_default(buf, sizeof(buf))[0] == '/');
}

/*
 * probe_lock.h: root (`nvmond probe`) and the daemon's user share the lock
 * directory. A lock file is made 0644 whatever the umask (the unit's is
 * 0077), and one this process may not write is still locked, read-only,
 * leaving the holder line as it was. As root the other side is a child that
 * became nobody; otherwise the file is made 0400.
 */
Test(probe_lock, either_side_locks_the_others_file)
{
	char why[PROBE_LOCK_ERR_MAX], path[PATH_MAX + 32], before[96] = "", after[96] = "";
	int fds[2], fd = -1;
	struct stat st;
	FILE *f;

	mode_t old = umask(077);
	cr_assert_eq(probe_lock_take(dir, "SER1", "nvmond probe", &fd, why), 0, "%s", why);
	umask(old);
	probe_lock_release(fd);
	snprintf(path, sizeof(path), "%s/probe-SER1.lock", dir);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0644, "mode %o under umask 077", st.st_mode & 07777);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(before, sizeof(before), f));
	fclose(f);

	if (geteuid() == 0) {
		cr_assert_eq(chmod(base, 0755), 0);
		cr_assert_eq(chmod(dir, 0755), 0);
	} else {
		cr_assert_eq(chmod(path, 0400), 0);
	}
	cr_assert_eq(pipe(fds), 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		int l = -1;
		char w[PROBE_LOCK_ERR_MAX];
		if (geteuid() == 0 &&
		    (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
		     setresuid(65534, 65534, 65534) < 0))
			_exit(2);
		if (access(path, W_OK) == 0) /* the case under test: not ours to write */
			_exit(3);
		if (probe_lock_take(dir, "SER1", "the daemon", &l, w) < 0)
			_exit(1);
		(void)!write(fds[1], "x", 1);
		pause(); /* killed below */
		_exit(0);
	}
	close(fds[1]);
	char c;
	cr_assert_eq(read(fds[0], &c, 1), 1, "the other side could not lock the file");
	cr_expect_eq(probe_lock_take(dir, "SER1", "nvmond probe", &fd, why), -EBUSY, "%s", why);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_expect_not_null(fgets(after, sizeof(after), f));
	fclose(f);
	cr_expect_str_eq(after, before, "a read-only holder does not write its line");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(fds[0]);
	if (geteuid() != 0)
		cr_assert_eq(chmod(path, 0600), 0);
	cr_expect_eq(probe_lock_take(dir, "SER1", "nvmond probe", &fd, why), 0, "%s", why);
	probe_lock_release(fd);
}

/*
 * probe_lock.h: a run that holds two drives takes the smaller serial's lock
 * first, whichever drive it reads and whichever it writes, so two processes
 * copying between the same pair (A to B, B to A) take them in one order.
 */
Test(probe_lock, two_drives_in_serial_order)
{
	static const struct {
		const char *a, *b;
		bool a_first;
	} t[] = {
		{"S1", "S2", true},
		{"S2", "S1", false},
		{"S6B0NL0W123456", "S6B0NL0W123457", true},
		{"Z", "A", false},
		{"abc", "abc", true}, /* the same drive: one lock, taken once */
		{"S10", "S9", true},  /* byte order, not numeric */
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		cr_expect_eq(probe_lock_order(t[i].a, t[i].b), t[i].a_first, "%s %s", t[i].a,
			     t[i].b);
		if (strcmp(t[i].a, t[i].b))
			cr_expect_neq(probe_lock_order(t[i].a, t[i].b),
				      probe_lock_order(t[i].b, t[i].a), "%s %s: one order", t[i].a,
				      t[i].b);
	}
}
