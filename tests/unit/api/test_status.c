/* SPDX-License-Identifier: MIT */
/*
 * `nvmond status` and device self-tests (issue 12): the capability from the
 * scan's Identify, the last result of each type from the daemon's database (a
 * real SQLite file, read only as `status` opens it), and the lines the table
 * prints under a drive: "self-tests: not supported" for a drive without OACS
 * bit 4, each last result with when it was seen, a failure's segment and LBA.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/api/selftest_render.h"
#include "nvmond/api/status.h"
#include "nvmond/demo/demo.h"
#include "nvmond/monitor/devrow.h"
#include "nvmond/store/store.h"
#include "nvmond/store/store_alert.h"
#include "nvmond/store/store_selftest.h"

#include "../store/store_fixture_dir.h"

#define NOW_MS 1796000000000LL

TestSuite(status, .init = store_fixture_dir_setup, .fini = store_fixture_dir_teardown);

/* The table of @status as text (no colors unless @color). free() it. */
static char *table(const json_t *status, bool color)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	cr_assert_eq(status_print_table(f, status, color), 0);
	cr_assert_eq(fclose(f), 0);
	return text;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

/* A device of `status --json` with "selftests" @st (stolen). */
static json_t *device(const char *name, json_t *st)
{
	json_t *d = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "name", name, "model", "ACME NVMe",
			      "serial", "S1", "firmware", "1.0", "error", "not read in this test",
			      "selftests", st);
	cr_assert_not_null(d);
	return d;
}

static json_t *result(const struct selftest_result *r, int64_t seen_ms, const char *origin)
{
	json_t *o = render_selftest_result(r, 1, seen_ms, origin);
	cr_assert_not_null(o);
	return o;
}

/*
 * The table: "self-tests: not supported" (OACS bit 4 is 0); each type's last
 * result with its time, a failure with its segment and LBA; "none stored yet"
 * with a database, "no database" without; nothing while unknown.
 */
Test(status, table_lines)
{
	const struct selftest_result passed = {.code = SELFTEST_CODE_SHORT, .poh = 100};
	const struct selftest_result failed = {.code = SELFTEST_CODE_EXTENDED,
					       .result = SELFTEST_RES_SEGMENT_FAILED,
					       .segment = 3,
					       .valid = SELFTEST_VALID_NSID | SELFTEST_VALID_FLBA,
					       .nsid = 1,
					       .lba = 123456,
					       .poh = 90};
	const struct selftest_result aborted = {.code = SELFTEST_CODE_SHORT,
						.result = SELFTEST_RES_ABORTED_RESET,
						.valid = SELFTEST_VALID_NSID,
						.nsid = 1};
	json_t *devs = json_array();

	json_array_append_new(
		devs, device("nvme0",
			     json_pack("{s:b, s:s, s:n, s:n}", "supported", 0, "unsupported_reason",
				       SELFTEST_WHY_UNSUPPORTED, "edstt_min", "last")));
	json_array_append_new(
		devs,
		device("nvme1", json_pack("{s:b, s:n, s:i, s:{s:o, s:o}}", "supported", 1,
					  "unsupported_reason", "edstt_min", 10, "last", "short",
					  result(&passed, NOW_MS, "schedule"), "extended",
					  result(&failed, NOW_MS - 86400000, NULL))));
	json_array_append_new(devs,
			      device("nvme2", json_pack("{s:b, s:n, s:n, s:{s:n, s:n}}",
							"supported", 1, "unsupported_reason",
							"edstt_min", "last", "short", "extended")));
	json_array_append_new(
		devs, device("nvme3", json_pack("{s:b, s:n, s:n, s:n}", "supported", 1,
						"unsupported_reason", "edstt_min", "last")));
	json_array_append_new(
		devs, device("nvme4", json_pack("{s:n, s:s, s:n, s:{s:n, s:n}}", "supported",
						"unsupported_reason", SELFTEST_WHY_UNKNOWN,
						"edstt_min", "last", "short", "extended")));
	json_array_append_new(
		devs, device("nvme5", json_pack("{s:b, s:n, s:n, s:{s:o, s:n}}", "supported", 1,
						"unsupported_reason", "edstt_min", "last", "short",
						result(&aborted, NOW_MS, NULL), "extended")));
	json_t *status = json_pack("{s:o}", "devices", devs);
	char *t = table(status, false);

	static const char *const want[] = {
		"         self-tests: not supported",
		"         last short self-test: no error (2026-11-30T00:53:20.000Z)",
		"         last extended self-test: completed with one or more failed segments, "
		"segment 3, first failing LBA 123456 in namespace 1 (2026-11-29T00:53:20.000Z)",
		"         self-tests: supported, none stored yet",
		"         self-tests: supported, results not read (no database)",
		/* Not a failure: no place named. */
		"         last short self-test: aborted by a controller level reset "
		"(2026-11-30T00:53:20.000Z)",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect(has_line(t, want[i]), "missing line: '%s' in\n%s", want[i], t);
	/* nvme4: capability unknown, nothing stored: no self-test line at all. */
	const char *n4 = strstr(t, "\nnvme4 "), *n5 = strstr(t, "\nnvme5 ");
	cr_assert(n4 && n5);
	cr_expect_null(memmem(n4, (size_t)(n5 - n4), "self-test", 9), "%s", t);
	free(t);

	/* On a terminal: a failure in red, an abort in yellow, a pass plain. */
	t = table(status, true);
	cr_expect_not_null(strstr(t, "\033[1;31mlast extended self-test: completed"), "%s", t);
	cr_expect_not_null(strstr(t, "\033[33mlast short self-test: aborted"), "%s", t);
	cr_expect_not_null(strstr(t, " last short self-test: no error"), "%s", t);
	free(t);
	json_decref(status);
}

/* A drive's health in its column, and its reasons under it when it is not ok. */
Test(status, table_health)
{
	json_t *status = json_pack("{s:[]}", "devices");
	json_t *ok = device("nvme0", json_pack("{s:n, s:n, s:n, s:n}", "supported",
					       "unsupported_reason", "edstt_min", "last"));
	json_t *warn = device("nvme1", json_pack("{s:n, s:n, s:n, s:n}", "supported",
						 "unsupported_reason", "edstt_min", "last"));
	json_object_set_new(ok, "health", json_pack("{s:s, s:[]}", "state", "ok", "why"));
	json_object_set_new(
		warn, "health",
		json_pack("{s:s, s:[s, s]}", "state", "warning", "why", "85 % used", "at WCTEMP"));
	json_array_append_new(json_object_get(status, "devices"), ok);
	json_array_append_new(json_object_get(status, "devices"), warn);
	char *t = table(status, false);

	cr_expect_not_null(strstr(t, "WRITTEN  HEALTH    WARNINGS\n"), "%s", t);
	cr_expect_not_null(strstr(t, "  ok        read failed"), "%s", t);
	cr_expect_not_null(strstr(t, "  warning   read failed"), "%s", t);
	cr_expect(has_line(t, "         health: warning: 85 % used; at WCTEMP"), "%s", t);
	cr_expect_null(strstr(t, "health: ok"), "%s", t);
	free(t);
	t = table(status, true);
	cr_expect_not_null(strstr(t, "\033[33mwarning \033[0m"), "yellow: %s", t);
	free(t);
	json_decref(status);
}

/* The database could not be read: the table says so under the drives. */
Test(status, table_database_error)
{
	json_t *status = json_pack("{s:[], s:s}", "devices", "database_error",
				   "reading the devices: database is locked");
	json_array_append_new(
		json_object_get(status, "devices"),
		device("nvme0", json_pack("{s:b, s:n, s:n, s:n}", "supported", 1,
					  "unsupported_reason", "edstt_min", "last")));
	char *t = table(status, false);

	cr_expect(has_line(t, "note: self-test results not shown: reading the devices: database "
			      "is locked"),
		  "%s", t);
	free(t);
	json_decref(status);
}

/* The object of the device @name in @status. */
static json_t *find(json_t *status, const char *name)
{
	json_t *devs = json_object_get(status, "devices"), *d;
	size_t i;

	json_array_foreach(devs, i, d) if (strcmp(json_string_value(json_object_get(d, "name")),
						  name) == 0) return d;
	cr_assert_fail("no device %s", name);
	return NULL;
}

/*
 * status_collect() on the demo drives and a database the daemon wrote: the
 * capability is the scan's Identify (OACS bit 4) whatever the demo answers;
 * the last of each type comes from the rows of the drive with that key; a
 * drive the database does not know has none; without a database, "last" is
 * null.
 */
Test(status, collect_from_database)
{
	struct dev_backend *b = NULL;
	struct dev_info *v = NULL;
	size_t n = 0;
	char err[STORE_ERR_MAX];
	struct store *s = NULL;
	int64_t id;

	cr_assert_eq(dev_demo_open(&b), 0);
	cr_assert_eq(dev_scan(b, NOW_MS, &v, &n), 0);
	cr_assert_geq(n, 2);

	/* The daemon's database: demo0 known, with three results. */
	cr_assert_eq(store_open(db_path, &s, err), 0, "%s", err);
	struct device_row row;
	size_t k0 = 0;
	while (k0 < n && strcmp(v[k0].name, "demo0") != 0)
		k0++;
	cr_assert_lt(k0, n);
	devrow_from_scan(b, &v[k0], NOW_MS, &row);
	cr_assert_eq(store_device_upsert(s, &row, &id), 0, "%s", store_strerror(s));
	struct store_selftest_row rows[] = {
		{.device_id = id,
		 .seen_ms = NOW_MS - 3000,
		 .r = {.code = SELFTEST_CODE_EXTENDED,
		       .result = SELFTEST_RES_SEGMENT_FAILED,
		       .segment = 3,
		       .valid = SELFTEST_VALID_FLBA,
		       .lba = 4096,
		       .poh = 10}},
		{.device_id = id,
		 .seen_ms = NOW_MS - 2000,
		 .r = {.code = SELFTEST_CODE_SHORT, .result = SELFTEST_RES_ABORTED_CMD, .poh = 11},
		 .origin = "api"},
		{.device_id = id,
		 .seen_ms = NOW_MS - 1000,
		 .r = {.code = SELFTEST_CODE_SHORT, .poh = 12},
		 .origin = "schedule"},
	};
	cr_assert_eq(store_selftest_add(s, rows, 3), 0, "%s", store_strerror(s));
	/* An alert the daemon has firing on demo0 counts in its health, as in the API. */
	struct alert_row al = {.device_id = id,
			       .rule = ALERT_LINK_DEGRADED,
			       .severity = ALERT_SEV_WARNING,
			       .firing = true,
			       .message = "PCIe 8.0 GT/s x2: slower than it supports",
			       .started_ms = NOW_MS,
			       .updated_ms = NOW_MS};
	int64_t al_id;
	cr_assert_eq(store_alert_insert(s, &al, &al_id), 0, "%s", store_strerror(s));
	s = store_close(s);
	cr_assert_eq(store_open_readonly(db_path, &s, err), 0, "%s", err);

	json_t *status = NULL;
	cr_assert_eq(status_collect(b, NULL, s, NOW_MS, &status, err, sizeof(err)), 0, "%s", err);
	cr_expect_null(json_object_get(status, "database_error"));
	for (size_t i = 0; i < n; i++) {
		json_t *st = json_object_get(find(status, v[i].name), "selftests");
		bool sup = dev_selftest_supported(&v[i].id);
		cr_expect(json_is_boolean(json_object_get(st, "supported")) &&
				  json_is_true(json_object_get(st, "supported")) == sup,
			  "%s: supported", v[i].name);
		cr_expect(sup == json_is_null(json_object_get(st, "unsupported_reason")));
		cr_expect(json_is_object(json_object_get(st, "last")), "%s", v[i].name);
	}
	json_t *last = json_object_get(json_object_get(find(status, "demo0"), "selftests"), "last");
	json_t *sh = json_object_get(last, "short"), *ex = json_object_get(last, "extended");
	cr_assert(json_is_object(sh) && json_is_object(ex));
	cr_expect(json_is_true(json_object_get(sh, "passed")));
	cr_expect_str_eq(json_string_value(json_object_get(sh, "origin")), "schedule");
	cr_expect_eq(json_integer_value(json_object_get(sh, "seen_ms")), NOW_MS - 1000);
	cr_expect_eq(json_integer_value(json_object_get(sh, "poh")), 12);
	cr_expect(json_is_true(json_object_get(ex, "failed")));
	cr_expect_eq(json_integer_value(json_object_get(ex, "segment")), 3);
	cr_expect_eq(json_integer_value(json_object_get(ex, "lba")), 4096);
	cr_expect(json_is_null(json_object_get(ex, "nsid")), "NSID not valid: null");
	cr_expect(json_is_null(json_object_get(ex, "origin")), "not nvmond: null");
	/* demo0's health: its firing alert (docs/dashboard.md#health) among the reasons. */
	json_t *h = json_object_get(find(status, "demo0"), "health");
	cr_expect_str_neq(json_string_value(json_object_get(h, "state")), "ok");
	json_t *why = json_object_get(h, "why");
	cr_expect_str_eq(json_string_value(json_array_get(why, json_array_size(why) - 1)),
			 "PCIe 8.0 GT/s x2: slower than it supports");
	/* demo1: not in the database, so nothing stored. */
	last = json_object_get(json_object_get(find(status, "demo1"), "selftests"), "last");
	cr_expect(json_is_null(json_object_get(last, "short")) &&
		  json_is_null(json_object_get(last, "extended")));
	json_decref(status);

	/* No database: "last" null, the capability still there; no alert in the health. */
	cr_assert_eq(status_collect(b, NULL, NULL, NOW_MS, &status, err, sizeof(err)), 0);
	json_t *st = json_object_get(find(status, "demo0"), "selftests");
	why = json_object_get(json_object_get(find(status, "demo0"), "health"), "why");
	for (size_t i = 0; i < json_array_size(why); i++)
		cr_expect_null(strstr(json_string_value(json_array_get(why, i)), "PCIe 8.0"));
	cr_expect(json_is_null(json_object_get(st, "last")));
	cr_expect(json_is_boolean(json_object_get(st, "supported")));
	json_decref(status);
	store_close(s);
	free(v);
	dev_backend_free(b);
}
