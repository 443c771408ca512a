/* SPDX-License-Identifier: MIT */
/*
 * A rollup step on a full disk (issue 15 §6: "disk full during a rollup"): the
 * step fails with -ENOSPC as one transaction ("…and prune one chunk of expired
 * rows, in one transaction", store_rollup.h), leaving no half-built rollup and the
 * file sound; once space is freed the same handle builds it. A tiny tmpfs in a
 * private mount namespace of this test process (Criterion runs each test in its
 * own process); skipped where mounting is not permitted.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "nvmond/store/store.h"
#include "nvmond/store/store_rollup.h"

#define S    1000LL
#define MIN  (60 * S)
#define HOUR (60 * MIN)
#define T0   (1764460800000LL) /* an hour boundary */

static char dir[] = "/tmp/nvmond-test-rollup-full-XXXXXX";
static char mnt[300];

static void teardown(void)
{
	if (mnt[0])
		umount2(mnt, MNT_DETACH);
	rmdir(mnt);
	rmdir(dir);
}

static int64_t count(const char *db_path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t n = -1;

	cr_assert_eq(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s",
		     sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

Test(rollup_full, a_step_on_a_full_disk_fails_whole_then_builds_once_freed, .fini = teardown,
     .timeout = 60)
{
	char db_path[400], filler[400], err[STORE_ERR_MAX] = "";
	struct store_rollup_cfg c = {.keep_raw_ms = 90 * 24 * HOUR, .keep_1m_ms = 90 * 24 * HOUR};
	struct device_row row = {.first_seen_ms = T0, .last_seen_ms = T0};
	struct store *s = NULL;
	static char block[4096];
	int64_t id;
	bool more;
	int fd, r;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(mnt, sizeof(mnt), "%s/m", dir);
	cr_assert_eq(mkdir(mnt, 0700), 0);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", mnt, "tmpfs", 0, "size=4m") < 0) {
		mnt[0] = '\0';
		cr_skip_test("cannot mount a tmpfs here: %s", strerror(errno));
	}
	snprintf(db_path, sizeof(db_path), "%s/r.db", mnt);
	snprintf(filler, sizeof(filler), "%s/filler", mnt);
	cr_assert_eq(store_open(db_path, &s, err), 0, "%s", err);
	snprintf(row.key, sizeof(row.key), "m/s0");
	snprintf(row.model, sizeof(row.model), "m");
	snprintf(row.serial, sizeof(row.serial), "s0");
	snprintf(row.namespaces, sizeof(row.namespaces), "[]");
	cr_assert_eq(store_device_upsert(s, &row, &id), 0);

	/* Six hours of samples every 10 s. */
	size_t n = 6 * 360;
	struct sample *v = calloc(n, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		v[i].device_id = id;
		v[i].ts_ms = T0 + (int64_t)i * 10 * S;
		v[i].smart.temperature_k = (uint16_t)(300 + i % 40);
	}
	cr_assert_eq(store_samples_insert(s, v, n), 0, "%s", store_strerror(s));
	free(v);
	cr_assert_eq(store_checkpoint(s), 0, "%s", store_strerror(s));

	/* Fill the rest of the file system. */
	fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0);
	while (write(fd, block, sizeof(block)) == (ssize_t)sizeof(block))
		;
	cr_assert_eq(errno, ENOSPC);
	close(fd);

	r = store_rollup_step(s, &c, T0 + 8 * HOUR, &more);
	cr_assert_eq(r, -ENOSPC, "got %d: %s", r, store_rollup_errmsg(s));
	cr_assert_eq(count(db_path, "SELECT count(*) FROM rollups"), 0, "nothing half-built");

	/* Space again: the same handle builds the six hours of 1-minute rows. */
	cr_assert_eq(unlink(filler), 0);
	do
		cr_assert_eq(store_rollup_step(s, &c, T0 + 8 * HOUR, &more), 0, "%s",
			     store_rollup_errmsg(s));
	while (more);
	cr_assert_eq(store_checkpoint(s), 0, "%s", store_strerror(s));
	store_close(s);
	cr_assert_geq(count(db_path, "SELECT count(*) FROM rollups WHERE res_s = 60"), 6 * 60);
	cr_assert_eq(count(db_path, "SELECT count(*) FROM rollups GROUP BY device_id, res_s, ts_ms "
				    "HAVING count(*) > 1"),
		     -1, "no duplicated bucket");
	unlink(db_path);
}
