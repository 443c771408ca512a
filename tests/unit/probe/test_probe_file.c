/* SPDX-License-Identifier: MIT */
/*
 * The probe file on a real filesystem: made unnamed and named last, opened
 * only as the inode nvmond recorded, and every other thing that can sit at
 * its name (a symlink, a hard link, another file, a FIFO, a device node, a
 * bind mount) refused without a byte written to it. Each case states the
 * docs/probes.md (Safety) rule it checks.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvmond/probe/probe_file.h"

#define MiB  (1ull << 20)
#define SIZE (4 * MiB)

static char dir[PATH_MAX];
static char disk[64];
static char path[PATH_MAX + 32];

static void setup(void)
{
	const char *bases[] = {getenv("NVMOND_PROBE_TMP"), "/var/tmp", NULL};
	struct stat st;
	char link[64], real[PATH_MAX];

	dir[0] = '\0';
	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]) && !dir[0]; i++) {
		if (!bases[i])
			continue;
		snprintf(dir, sizeof(dir), "%s/nvmond-file-XXXXXX", bases[i]);
		if (!mkdtemp(dir))
			dir[0] = '\0';
	}
	if (!dir[0])
		cr_skip_test("no directory for the test");
	cr_assert_eq(stat(dir, &st), 0);
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	if (!realpath(link, real))
		cr_skip_test("%s is not on a block device", dir);
	snprintf(disk, sizeof(disk), "%s", strrchr(real, '/') + 1);
	snprintf(path, sizeof(path), "%s/" PROBE_FILE_NAME, dir);
	/* O_DIRECT must work here. */
	int fd = open(dir, O_RDWR | O_TMPFILE | O_DIRECT, 0600);
	if (fd < 0)
		cr_skip_test("%s: no O_TMPFILE with O_DIRECT (%s)", dir, strerror(errno));
	close(fd);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	if (!dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(probe_file, .init = setup, .fini = teardown);

struct rec {
	int made;
	bool name_existed; /* when made() was called */
	struct probe_file_id id;
	int fail;	/* made() answers this */
	uint64_t grant; /* lease: grant at most this (0: all) */
	int lease_err;
	uint64_t asked;
};

static int rec_made(void *ctx, const struct probe_file_id *id)
{
	struct rec *r = ctx;

	r->made++;
	r->name_existed = access(path, F_OK) == 0;
	r->id = *id;
	return r->fail;
}

static int rec_lease(void *ctx, uint64_t want, uint64_t *ret)
{
	struct rec *r = ctx;

	r->asked = want;
	if (r->lease_err)
		return r->lease_err;
	*ret = r->grant && want > r->grant ? r->grant : want;
	return 0;
}

static struct probe_file_req req(struct rec *r, const struct probe_file_id *known)
{
	return (struct probe_file_req){.sysfs = "/sys",
				       .dir = dir,
				       .ctrl = disk,
				       .size = SIZE,
				       .min_free_pct = 0,
				       .known = known,
				       .lease = rec_lease,
				       .lease_ctx = r,
				       .made = rec_made,
				       .made_ctx = r};
}

static int try_open(const struct probe_file_req *q, struct probe_file_id *id, uint64_t *laid,
		    char why[PROBE_REASON_MAX])
{
	uint64_t sub = 0;
	int fd = -1;
	int r = probe_file_open(q, &fd, id, laid, &sub, why);

	cr_expect_eq(sub, *laid, "submitted = written when no write failed");
	if (r == 0)
		close(fd);
	return r;
}

static void put_file(const char *p, const char *text)
{
	FILE *fp = fopen(p, "w");

	cr_assert_not_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static off_t size_of(const char *p)
{
	struct stat st;

	cr_assert_eq(stat(p, &st), 0, "%s", p);
	return st.st_size;
}

/* Safety: made once, recorded, named last; then opened as the inode recorded. */
Test(probe_file, made_recorded_and_reopened)
{
	struct rec r = {0};
	struct probe_file_req q = req(&r, NULL);
	struct probe_file_id id, again;
	char why[PROBE_REASON_MAX];
	uint64_t laid = 0;

	cr_assert_eq(try_open(&q, &id, &laid, why), 0, "%s", why);
	cr_expect_eq(laid, SIZE);
	cr_expect_eq(r.made, 1);
	cr_expect_not(r.name_existed, "recorded before it has its name");
	cr_expect(r.id.has_gen || r.id.has_btime);
	cr_expect(probe_file_id_eq(&r.id, &id));
	cr_expect_eq(size_of(path), SIZE);
	cr_expect_eq(r.asked, SIZE, "the layout took leases up to its size");

	q = req(&r, &id);
	cr_assert_eq(try_open(&q, &again, &laid, why), 0, "%s", why);
	cr_expect_eq(laid, 0);
	cr_expect_eq(r.made, 1);
	cr_expect(probe_file_id_eq(&id, &again));
}

/* Safety: a file nvmond has no record of making is never opened. */
Test(probe_file, refuses_a_file_it_did_not_make)
{
	struct rec r = {0};
	struct probe_file_req q = req(&r, NULL);
	struct probe_file_id id;
	char why[PROBE_REASON_MAX];
	uint64_t laid = 0;

	put_file(path, "someone's data\n");
	cr_expect_eq(try_open(&q, &id, &laid, why), -EPERM);
	cr_expect(strstr(why, "no record"), "%s", why);
	cr_expect_eq(size_of(path), 15);
	cr_expect_eq(r.made, 0);
}

/*
 * Safety: the hard-link race: the name swapped for a link to another file
 * whose own name was then removed (one link again) is another inode: refused.
 */
Test(probe_file, refuses_another_inode_at_the_name)
{
	struct rec r = {0};
	struct probe_file_req q = req(&r, NULL);
	struct probe_file_id id, seen;
	char why[PROBE_REASON_MAX], victim[PATH_MAX + 32];
	uint64_t laid = 0;

	cr_assert_eq(try_open(&q, &id, &laid, why), 0, "%s", why);
	snprintf(victim, sizeof(victim), "%s/precious", dir);
	put_file(victim, "user data\n");
	cr_assert_eq(rename(victim, path), 0); /* one link, a regular file, same filesystem */
	q = req(&r, &id);
	cr_expect_eq(try_open(&q, &seen, &laid, why), -EPERM);
	cr_expect(strstr(why, "not the file nvmond made"), "%s", why);
	cr_expect_eq(size_of(path), 10);

	/* Same inode number, another generation: a new file that reused it. */
	struct probe_file_id old = id;
	unlink(path);
	q = req(&r, NULL);
	cr_assert_eq(try_open(&q, &id, &laid, why), 0, "%s", why);
	old.ino = id.ino;
	old.gen = id.gen + 1;
	old.btime_ns = id.btime_ns + 1;
	q = req(&r, &old);
	cr_expect_eq(try_open(&q, &seen, &laid, why), -EPERM);
	cr_expect(strstr(why, "generation"), "%s", why);
}

/* Safety: a symlink, a hard link, a FIFO or a device node at the name: refused. */
Test(probe_file, refuses_what_is_not_a_plain_file)
{
	struct rec r = {0};
	struct probe_file_req q = req(&r, NULL);
	struct probe_file_id id, seen;
	char why[PROBE_REASON_MAX], victim[PATH_MAX + 32], sub[PATH_MAX + 32];
	uint64_t laid = 0;

	cr_assert_eq(try_open(&q, &id, &laid, why), 0, "%s", why);
	q = req(&r, &id);
	snprintf(victim, sizeof(victim), "%s/precious", dir);
	put_file(victim, "user data\n");

	/* A second name for the probe file. */
	cr_assert_eq(link(path, victim), -1);
	char extra[PATH_MAX + 32];
	snprintf(extra, sizeof(extra), "%s/extra", dir);
	cr_assert_eq(link(path, extra), 0);
	cr_expect_eq(try_open(&q, &seen, &laid, why), -EPERM);
	cr_expect(strstr(why, "2 links"), "%s", why);
	cr_assert_eq(unlink(extra), 0);
	cr_expect_eq(try_open(&q, &seen, &laid, why), 0, "%s", why);

	/* A symlink to another file: never followed. */
	cr_assert_eq(rename(path, extra), 0);
	cr_assert_eq(symlink(victim, path), 0);
	cr_expect_eq(try_open(&q, &seen, &laid, why), -ELOOP);
	cr_expect(strstr(why, "symlink"), "%s", why);
	cr_expect_eq(size_of(victim), 10);
	cr_assert_eq(unlink(path), 0);

	/* A FIFO. */
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_expect_eq(try_open(&q, &seen, &laid, why), -EPERM);
	cr_expect(strstr(why, "FIFO"), "%s", why);
	cr_assert_eq(unlink(path), 0);

	/* A device node (of /dev/null: harmless if it were opened). */
	if (mknod(path, S_IFCHR | 0600, makedev(1, 3)) == 0) {
		cr_expect_eq(try_open(&q, &seen, &laid, why), -EPERM);
		cr_expect(strstr(why, "character device"), "%s", why);
		cr_assert_eq(unlink(path), 0);
	}

	/* The directory a symlink, or a symlink on its path. */
	snprintf(sub, sizeof(sub), "%s/link", dir);
	cr_assert_eq(symlink(dir, sub), 0);
	struct probe_file_req q2 = req(&r, &id);
	q2.dir = sub;
	cr_expect_eq(try_open(&q2, &seen, &laid, why), -ELOOP);
	cr_expect(strstr(why, "symlink"), "%s", why);
	char deep[PATH_MAX + 64];
	snprintf(deep, sizeof(deep), "%s/link/inner", dir);
	char inner[PATH_MAX + 64];
	snprintf(inner, sizeof(inner), "%s/inner", dir);
	cr_assert_eq(mkdir(inner, 0700), 0);
	q2.dir = deep;
	cr_expect_eq(try_open(&q2, &seen, &laid, why), -ELOOP, "%s", why);
	q2.dir = "relative/dir";
	cr_expect_eq(try_open(&q2, &seen, &laid, why), -EINVAL);
}

/* Safety: probe_dir belongs to root (or nvmond's user) and no one else may write it. */
Test(probe_file, refuses_a_directory_others_can_write)
{
	struct rec r = {0};
	struct probe_file_req q = req(&r, NULL);
	struct probe_file_id id;
	char why[PROBE_REASON_MAX];
	uint64_t laid = 0;

	cr_assert_eq(chmod(dir, 01777), 0);
	cr_expect_eq(try_open(&q, &id, &laid, why), -EPERM);
	cr_expect(strstr(why, "writable by others"), "%s", why);
	cr_assert_eq(chmod(dir, 0770), 0);
	cr_expect_eq(try_open(&q, &id, &laid, why), -EPERM);
	cr_expect(strstr(why, "its group"), "%s", why);
	cr_assert_eq(chmod(dir, 0755), 0);
	if (geteuid() == 0) {
		cr_assert_eq(chown(dir, 12345, 0), 0);
		cr_expect_eq(try_open(&q, &id, &laid, why), -EPERM);
		cr_expect(strstr(why, "uid 12345"), "%s", why);
		cr_assert_eq(chown(dir, 0, 0), 0);
	}
	cr_expect_eq(access(path, F_OK), -1, "nothing was made");
	cr_expect_eq(try_open(&q, &id, &laid, why), 0, "%s", why);
}

/* Safety: a directory on another drive, or on tmpfs, is refused before anything is made. */
Test(probe_file, refuses_a_directory_on_another_device)
{
	struct rec r = {0};
	struct probe_file_req q = req(&r, NULL);
	struct probe_file_id id;
	char why[PROBE_REASON_MAX];
	uint64_t laid = 0;

	q.ctrl = "nvme7";
	cr_expect_eq(try_open(&q, &id, &laid, why), -EXDEV);
	cr_expect(strstr(why, "not on nvme7"), "%s", why);
	cr_expect_eq(access(path, F_OK), -1);
	char shm[] = "/dev/shm/nvmond-file-XXXXXX";
	if (mkdtemp(shm)) {
		q.dir = shm;
		q.ctrl = disk;
		cr_expect_eq(try_open(&q, &id, &laid, why), -EXDEV);
		cr_expect(strstr(why, "not on a block device"), "%s", why);
		rmdir(shm);
	}
}

/* Safety: the layout never leaves less than min_free of the filesystem free. */
Test(probe_file, room_is_checked_before_and_during_the_layout)
{
	struct {
		uint64_t total, avail, step;
		unsigned pct;
		bool ok;
		const char *rule;
	} t[] = {
		{1000 * MiB, 100 * MiB, 40 * MiB, 5, true, "leaves 60 MiB >= 50 MiB"},
		{1000 * MiB, 100 * MiB, 50 * MiB, 5, true, "leaves exactly 5 %"},
		{1000 * MiB, 100 * MiB, 51 * MiB, 5, false, "would leave less than 5 %"},
		{1000 * MiB, 10 * MiB, 11 * MiB, 0, false, "more than is free"},
		{1000 * MiB, 10 * MiB, 10 * MiB, 0, true, "min_free = 0: all of it"},
		{UINT64_MAX, UINT64_MAX, 1, 50, true, "no overflow"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(probe_layout_may_write(t[i].total, t[i].avail, t[i].step, t[i].pct),
			     t[i].ok, "%s", t[i].rule);

	/* A file larger than the free space is refused before a byte is written. */
	struct statvfs sv;
	cr_assert_eq(statvfs(dir, &sv), 0);
	struct rec r = {0};
	struct probe_file_req q = req(&r, NULL);
	struct probe_file_id id;
	char why[PROBE_REASON_MAX];
	uint64_t laid = 0;
	q.size = ((uint64_t)sv.f_bavail * sv.f_frsize / MiB + 1) * MiB;
	cr_expect_eq(try_open(&q, &id, &laid, why), -ENOSPC);
	cr_expect(strstr(why, "no room"), "%s", why);
	cr_expect_eq(laid, 0);
	cr_expect_eq(r.asked, 0, "not one lease asked for");
}

/* Safety: every byte of the layout is leased first; no lease, no write. */
Test(probe_file, layout_stops_without_a_lease)
{
	struct rec r = {.grant = 2 * MiB};
	struct probe_file_req q = req(&r, NULL);
	struct probe_file_id id;
	char why[PROBE_REASON_MAX];
	uint64_t laid = 0;

	cr_expect_eq(try_open(&q, &id, &laid, why), -EDQUOT);
	cr_expect(strstr(why, "budget"), "%s", why);
	cr_expect_eq(laid, 2 * MiB, "the 2 MiB leased, nothing more");
	cr_expect_eq(access(path, F_OK), -1, "an unfinished file has no name");

	r = (struct rec){.lease_err = -EIO};
	q = req(&r, NULL);
	cr_expect_eq(try_open(&q, &id, &laid, why), -EIO);
	cr_expect(strstr(why, "cannot record"), "%s", why);
	cr_expect_eq(laid, 0);

	/* Not recorded: it never gets its name. */
	r = (struct rec){.fail = -EROFS};
	q = req(&r, NULL);
	cr_expect_eq(try_open(&q, &id, &laid, why), -EROFS);
	cr_expect_eq(access(path, F_OK), -1);
}

/* A recorded file of another size than configured now is made again. */
Test(probe_file, remade_at_a_new_size)
{
	struct rec r = {0};
	struct probe_file_req q = req(&r, NULL);
	struct probe_file_id id, id2;
	char why[PROBE_REASON_MAX];
	uint64_t laid = 0;

	cr_assert_eq(try_open(&q, &id, &laid, why), 0, "%s", why);
	q = req(&r, &id);
	q.size = 2 * MiB;
	cr_assert_eq(try_open(&q, &id2, &laid, why), 0, "%s", why);
	cr_expect_eq(laid, 2 * MiB);
	cr_expect_eq(size_of(path), 2 * MiB);
	cr_expect_not(probe_file_id_eq(&id, &id2));
}

/* probe_file_check() before every phase: the same inode, on the drive. */
Test(probe_file, check_before_each_phase)
{
	struct rec r = {0};
	struct probe_file_req q = req(&r, NULL);
	struct probe_file_id id, other;
	char why[PROBE_REASON_MAX];
	uint64_t laid = 0, sub = 0;
	int fd = -1;

	cr_assert_eq(probe_file_open(&q, &fd, &id, &laid, &sub, why), 0, "%s", why);
	cr_expect_eq(probe_file_check("/sys", fd, disk, &id, why), 0, "%s", why);
	cr_expect_eq(probe_file_check("/sys", fd, "nvme7", &id, why), -EPERM);
	other = id;
	other.ino++;
	cr_expect_eq(probe_file_check("/sys", fd, disk, &other, why), -EPERM);
	close(fd);
}

/* Safety: a file bind-mounted onto the name is refused (in a private mount namespace). */
Test(probe_file, refuses_a_bind_mounted_file)
{
	struct rec r = {0};
	struct probe_file_req q = req(&r, NULL);
	struct probe_file_id id;
	char why[PROBE_REASON_MAX], victim[PATH_MAX + 32];
	uint64_t laid = 0;

	cr_assert_eq(try_open(&q, &id, &laid, why), 0, "%s", why);
	snprintf(victim, sizeof(victim), "%s/precious", dir);
	put_file(victim, "user data\n");
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(77);
		if (mount(victim, path, NULL, MS_BIND, NULL) < 0)
			_exit(78);
		struct probe_file_req qq = req(&r, &id);
		uint64_t l = 0, s = 0;
		int fd = -1, rc = probe_file_open(&qq, &fd, &id, &l, &s, why);
		_exit(rc == -EXDEV && strstr(why, "mount point") ? 0 : 1);
	}
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) >= 77)
		cr_skip_test("no private mount namespace here (needs CAP_SYS_ADMIN)");
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a bind-mounted file was opened");
	cr_expect_eq(size_of(victim), 10);
}
