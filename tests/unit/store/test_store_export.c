/* SPDX-License-Identifier: MIT */
/* Remote-write cursors in the store (migrations/0015_export_cursors.sql). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvmond/store/store.h"
#include "nvmond/store/store_export.h"

static char path[] = "/tmp/nvmond-test-export-XXXXXX";

static struct store *open_fresh(void)
{
	char err[STORE_ERR_MAX];
	struct store *s = NULL;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(store_open(path, &s, err), 0, "%s", err);
	return s;
}

static void cleanup(void)
{
	char p[64];
	unlink(path);
	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
}

Test(store_export, start_cursors_advance_pending, .fini = cleanup)
{
	struct store *s = open_fresh();
	struct device_row row = {.online = 1};
	int64_t id, created;

	snprintf(row.key, sizeof(row.key), "M/S1");
	snprintf(row.model, sizeof(row.model), "M");
	snprintf(row.serial, sizeof(row.serial), "S1");
	snprintf(row.name, sizeof(row.name), "nvme0");
	snprintf(row.namespaces, sizeof(row.namespaces), "[]");
	cr_assert_eq(store_device_upsert(s, &row, &id), 0);
	struct sample v[5];
	memset(v, 0, sizeof(v));
	for (int i = 0; i < 5; i++) {
		v[i].device_id = id;
		v[i].ts_ms = 1000 * (i + 1);
	}
	cr_assert_eq(store_samples_insert(s, v, 5), 0);

	/* The first start is kept: a restart does not move it. */
	cr_assert_eq(store_export_start(s, "vm", 1500, &created), 0);
	cr_expect_eq(created, 1500);
	cr_assert_eq(store_export_start(s, "vm", 9999, &created), 0);
	cr_expect_eq(created, 1500);

	struct export_cursor *c = NULL;
	size_t n = 9;
	cr_assert_eq(store_export_cursors(s, "vm", &c, &n), 0);
	cr_expect_eq(n, 0);
	uint64_t pending;
	int64_t oldest;
	cr_assert_eq(store_export_pending(s, id, created, &pending, &oldest), 0);
	cr_expect_eq(pending, 4);
	cr_expect_eq(oldest, 2000);

	struct export_cursor adv = {.device_id = id, .sent_ms = 4000};
	cr_assert_eq(store_export_advance(s, "vm", &adv, 1), 0);
	adv.sent_ms = 3000; /* never back */
	cr_assert_eq(store_export_advance(s, "vm", &adv, 1), 0);
	cr_assert_eq(store_export_cursors(s, "vm", &c, &n), 0);
	cr_assert_eq(n, 1);
	cr_expect_eq(c[0].device_id, id);
	cr_expect_eq(c[0].sent_ms, 4000);
	free(c);
	cr_assert_eq(store_export_pending(s, id, 4000, &pending, &oldest), 0);
	cr_expect_eq(pending, 1);
	cr_expect_eq(oldest, 5000);
	cr_assert_eq(store_export_pending(s, id, 5000, &pending, &oldest), 0);
	cr_expect_eq(pending, 0);
	cr_expect_eq(oldest, 0);
	/* Another export has its own. */
	cr_assert_eq(store_export_cursors(s, "prom", &c, &n), 0);
	cr_expect_eq(n, 0);
	store_close(s);
}
