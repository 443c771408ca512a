/* SPDX-License-Identifier: MIT */
/*
 * A group member's solo run (migrations/0012, docs/probes.md "Several drives at
 * once"): "the ratio to that drive's own latest solo run of the same preset" —
 * on the same target, alone, measured, and before the group run.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvmond/store/store.h"
#include "nvmond/store/store_probe.h"
#include "nvmond/store/store_probe_group.h"

static int64_t run(struct store *s, int64_t dev, const char *preset, const char *target,
		   const char *state)
{
	struct probe_run_row r = {
		.device_id = dev, .trigger = "api", .started_ms = 1000, .ended_ms = 2000};
	int64_t id;

	snprintf(r.preset, sizeof(r.preset), "%s", preset);
	snprintf(r.target, sizeof(r.target), "%s", target);
	snprintf(r.state, sizeof(r.state), "%s", state);
	cr_assert_eq(store_probe_run_insert(s, &r, &id), 0);
	return id;
}

Test(store_probe_group, solo_run_is_the_latest_alone_on_the_same_target)
{
	char path[] = "/tmp/nvmond-store-group-XXXXXX", db[64], err[STORE_ERR_MAX];
	struct device_row row = {.key = "M/S",
				 .model = "M",
				 .serial = "S",
				 .name = "nvme0",
				 .namespaces = "[]",
				 .first_seen_ms = 1,
				 .last_seen_ms = 1,
				 .online = 1};
	const char *file = "/mnt/n0/probe/.nvmond-probe", *raw = "/dev/nvme0n1";
	struct store *s;
	int64_t dev, id;

	cr_assert_not_null(mkdtemp(path));
	snprintf(db, sizeof(db), "%s/t.db", path);
	cr_assert_eq(store_open(db, &s, err), 0, "%s", err);
	cr_assert_eq(store_device_upsert(s, &row, &dev), 0);

	int64_t file_solo = run(s, dev, "seq1m-q8", file, "done");
	run(s, dev, "seq1m-q1", file, "done");			 /* another preset */
	run(s, dev, "seq1m-q8", file, "aborted");		 /* measured nothing whole */
	int64_t raw_solo = run(s, dev, "seq1m-q8", raw, "done"); /* the raw namespace, read only */
	int64_t other_member = run(s, dev, "seq1m-q8", file, "done");
	cr_assert_eq(store_probe_group_add(s, 7, other_member), 0); /* an earlier group's */
	int64_t group_run = run(s, dev, "seq1m-q8", file, "done");
	cr_assert_eq(store_probe_group_add(s, 8, group_run), 0);
	run(s, dev, "seq1m-q8", file, "done"); /* after the group run */

	cr_assert_eq(store_probe_solo_latest(s, dev, "seq1m-q8", file, group_run, &id), 0);
	cr_expect_eq(id, file_solo, "the file run %lld, not the raw one %lld: got %lld",
		     (long long)file_solo, (long long)raw_solo, (long long)id);
	cr_assert_eq(store_probe_solo_latest(s, dev, "seq1m-q8", raw, group_run, &id), 0);
	cr_expect_eq(id, raw_solo);
	cr_expect_eq(store_probe_solo_latest(s, dev, "seq1m-q8", "demo:1", group_run, &id), -ENOENT,
		     "no run on that target");
	cr_expect_eq(store_probe_solo_latest(s, dev, "seq1m-q8", file, file_solo, &id), -ENOENT,
		     "none before the first");
	store_close(s);
	unlink(db);
	rmdir(path);
}
