/* SPDX-License-Identifier: MIT */
/*
 * copy-to runs in the store (migrations/0011): a run belongs to the drive it
 * writes, and is listed on both drives.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/decode/sample.h"
#include "nvmond/store/store.h"
#include "nvmond/store/store_probe.h"

static int64_t add_device(struct store *s, const char *serial)
{
	struct device_row row = {.model = "M",
				 .name = "nvme0",
				 .namespaces = "[]",
				 .first_seen_ms = 1,
				 .last_seen_ms = 1,
				 .online = 1};
	int64_t id;

	snprintf(row.key, sizeof(row.key), "M/%s", serial);
	snprintf(row.serial, sizeof(row.serial), "%s", serial);
	cr_assert_eq(store_device_upsert(s, &row, &id), 0);
	return id;
}

/* migrations/0011: "The run belongs to the drive it writes (device_id), so its
 * budget and every budget query stay as they were"; store_probe.h: a drive's
 * runs are "the runs that wrote it and the copy-to runs that read it". */
Test(store_probe, copy_to_runs_are_listed_on_both_drives_and_charged_to_the_written_one)
{
	char path[] = "/tmp/nvmond-store-copyto-XXXXXX", db[64], err[STORE_ERR_MAX];
	struct store *s;

	cr_assert_not_null(mkdtemp(path));
	snprintf(db, sizeof(db), "%s/t.db", path);
	cr_assert_eq(store_open(db, &s, err), 0, "%s", err);
	int64_t a = add_device(s, "A"), b = add_device(s, "B"), c = add_device(s, "C"), id, self;

	struct probe_run_row own = {.device_id = a,
				    .preset = "copy-self",
				    .trigger = "api",
				    .state = "done",
				    .started_ms = 1000,
				    .ended_ms = 2000,
				    .bytes_charged = 10};
	cr_assert_eq(store_probe_run_insert(s, &own, &self), 0);
	struct probe_run_row run = {.device_id = b,
				    .preset = "copy-to",
				    .trigger = "api",
				    .state = "running",
				    .target = "/srv/b/.nvmond-probe",
				    .started_ms = 3000,
				    .bytes_charged = 500,
				    .source_device_id = a,
				    .source_target = "/srv/a/.nvmond-probe"};
	cr_assert_eq(store_probe_run_insert(s, &run, &id), 0);
	run.id = id;
	snprintf(run.state, sizeof(run.state), "done");
	run.ended_ms = 4000;
	cr_assert_eq(store_probe_run_update(s, &run), 0);

	struct probe_run_row got;
	cr_assert_eq(store_probe_run_get(s, id, &got), 0);
	cr_expect_eq(got.device_id, b);
	cr_expect_eq(got.source_device_id, a);
	cr_expect_str_eq(got.source_target, "/srv/a/.nvmond-probe");
	cr_assert_eq(store_probe_run_get(s, self, &got), 0);
	cr_expect_eq(got.source_device_id, 0, "a run of one drive has no source");
	cr_expect_str_eq(got.source_target, "");

	struct probe_run_row *v = NULL;
	size_t n = 0;
	cr_assert_eq(store_probe_runs_list(s, a, 10, &v, &n), 0);
	cr_assert_eq(n, 2, "A: its copy-self and the copy-to that read it");
	cr_expect_eq(v[0].id, id);
	cr_expect_eq(v[1].id, self);
	free(v);
	cr_assert_eq(store_probe_runs_list(s, b, 10, &v, &n), 0);
	cr_assert_eq(n, 1);
	cr_expect_eq(v[0].id, id);
	free(v);
	cr_assert_eq(store_probe_runs_list(s, a, 1, &v, &n), 0);
	cr_expect_eq(n, 1, "the limit holds over both kinds");
	free(v);
	cr_assert_eq(store_probe_runs_list(s, c, 10, &v, &n), 0);
	cr_expect_eq(n, 0);
	free(v);

	uint64_t w = 0;
	cr_assert_eq(store_probe_written_since(s, a, 0, &w), 0);
	cr_expect_eq(w, 10, "reading A charges nothing to A's budget");
	cr_assert_eq(store_probe_written_since(s, b, 0, &w), 0);
	cr_expect_eq(w, 500);
	store_close(s);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", path);
	cr_expect_eq(system(cmd), 0);
}

/* docs/metrics.md: "the latest finished run of each preset" is exported: finished is
 * done or stopped (a sustained-write that found its cliff: issue 28 §8, the demo's 12
 * runs per drive never reached /metrics), however many runs came after it. */
Test(store_probe, latest_finished_run_of_each_preset)
{
	char path[] = "/tmp/nvmond-store-latest-XXXXXX", db[64], err[STORE_ERR_MAX];
	struct store *s;
	struct probe_run_row *v = NULL;
	size_t n = 0;
	int64_t id;

	cr_assert_not_null(mkdtemp(path));
	snprintf(db, sizeof(db), "%s/t.db", path);
	cr_assert_eq(store_open(db, &s, err), 0, "%s", err);
	int64_t a = add_device(s, "A"), b = add_device(s, "B");
	struct probe_run_row run = {.device_id = a, .trigger = "api", .started_ms = 1000};
	static const struct {
		const char *preset, *state;
	} runs[] = {
		{"sustained-write", "stopped"}, /* 1: the newest sustained-write that finished */
		{"sustained-write", "aborted"}, /* 2 */
		{"seq1m-q8", "done"},		/* 3 */
		{"seq1m-q8", "failed"},		/* 4 */
		{"rnd4k-q1", "skipped"},	/* 5: never finished */
	};
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		snprintf(run.preset, sizeof(run.preset), "%s", runs[i].preset);
		snprintf(run.state, sizeof(run.state), "%s", runs[i].state);
		cr_assert_eq(store_probe_run_insert(s, &run, &id), 0);
	}
	/* Many later runs of another preset push it past any "newest N". */
	snprintf(run.preset, sizeof(run.preset), "seq1m-q1");
	snprintf(run.state, sizeof(run.state), "done");
	for (int i = 0; i < 100; i++)
		cr_assert_eq(store_probe_run_insert(s, &run, &id), 0);
	/* Another drive's runs are not this one's. */
	run.device_id = b;
	snprintf(run.preset, sizeof(run.preset), "copy-self");
	cr_assert_eq(store_probe_run_insert(s, &run, &id), 0);

	cr_assert_eq(store_probe_runs_latest(s, a, &v, &n), 0);
	cr_assert_eq(n, 3);
	cr_expect_str_eq(v[0].preset, "seq1m-q1");
	cr_expect_eq(v[0].id, 105, "the newest of them");
	cr_expect_str_eq(v[1].preset, "seq1m-q8");
	cr_expect_eq(v[1].id, 3);
	cr_expect_str_eq(v[2].preset, "sustained-write");
	cr_expect_eq(v[2].id, 1);
	cr_expect_str_eq(v[2].state, "stopped");
	free(v);
	store_close(s);
}
