/* SPDX-License-Identifier: MIT */
/*
 * What a drive knows beyond its health log, in a real SQLite file (migration
 * 0016, issue 27): C0h rows with counters past 2^64 exact; the power timeline
 * starting in the state in force; Persistent Event Log entries stored once
 * (by fingerprint, also after reopening), filtered by kind; the cursor, the
 * C0h probe, namespace usage and verdicts; whether nvmond watched a drive at
 * a time; the media errors at the start of a window.
 */
#include "store_fixture.h"

#include <errno.h>
#include "nvmond/decode/sample.h"
#include "nvmond/store/store_drive.h"

TestSuite(store_drive, .init = store_fixture_setup, .fini = store_fixture_teardown);

#define T0 1764547200000LL /* 2025-12-01 00:00 UTC */

Test(store_drive, ocp_rows_exact)
{
	struct store_ocp_row a = {.device_id = dev_a, .ts_ms = T0}, b, *v = NULL;
	size_t n = 0;

	a.l.phys_written_bytes = ((u128)1 << 70) + 7;
	a.l.phys_read_bytes = 12345;
	a.host_written_units = ((u128)1 << 64) + 1;
	a.l.bad_user_blocks = 0xFFFFFFFFFFFFull;
	a.l.uncorrectable_reads = 3;
	a.l.spec_major = 2;
	a.l.spec_minor = 5;
	a.l.capacitor_health = 0xFFFF;
	cr_assert_eq(store_ocp_insert(s, &a), 0, "%s", store_strerror(s));
	a.ts_ms = T0 + 3600000;
	a.l.uncorrectable_reads = 5;
	cr_assert_eq(store_ocp_insert(s, &a), 0);
	cr_assert_eq(store_ocp_last(s, dev_a, INT64_MAX, &b), 0);
	cr_expect(b.l.phys_written_bytes == ((u128)1 << 70) + 7, "128 bits exact");
	cr_expect(b.host_written_units == ((u128)1 << 64) + 1);
	cr_expect_eq(b.l.bad_user_blocks, 0xFFFFFFFFFFFFull);
	cr_expect_eq(b.l.uncorrectable_reads, 5);
	cr_expect_eq(b.l.spec_minor, 5);
	cr_expect_eq(b.l.capacitor_health, 0xFFFF);
	cr_assert_eq(store_ocp_last(s, dev_a, T0 + 1, &b), 0);
	cr_expect_eq(b.l.uncorrectable_reads, 3, "the newest at or before the time asked");
	cr_assert_eq(store_ocp_first_since(s, dev_a, T0 + 1, &b), 0);
	cr_expect_eq(b.ts_ms, T0 + 3600000);
	cr_expect_eq(store_ocp_last(s, dev_b, INT64_MAX, &b), -ENOENT);
	cr_assert_eq(store_ocp_range(s, dev_a, 0, INT64_MAX, 1, &v, &n), 0);
	cr_assert_eq(n, 1, "the newest when limited");
	cr_expect_eq(v[0].ts_ms, T0 + 3600000);
	free(v);
	cr_assert_eq(store_ocp_range(s, dev_a, 0, INT64_MAX, 10, &v, &n), 0);
	cr_assert_eq(n, 2);
	cr_expect_lt(v[0].ts_ms, v[1].ts_ms, "oldest first");
	free(v);
}

Test(store_drive, power_timeline_starts_in_force)
{
	struct store_power_row r = {.device_id = dev_a,
				    .ps = 0,
				    .max_uw = 8250000,
				    .non_operational = 0,
				    .apst_enabled = 1,
				    .apst_idle_ms = 100,
				    .tmt1_k = -1,
				    .tmt2_k = -1},
			       *v = NULL, last;
	size_t n = 0;

	for (int i = 0; i < 4; i++) {
		r.ts_ms = T0 + i * 60000;
		r.ps = i;
		cr_assert_eq(store_power_insert(s, &r), 0, "%s", store_strerror(s));
	}
	cr_assert_eq(store_power_range(s, dev_a, T0 + 90000, T0 + 200000, 100, &v, &n), 0);
	cr_assert_eq(n, 3, "the row in force at the start, then the two inside");
	cr_expect_eq(v[0].ps, 1);
	cr_expect_eq(v[1].ps, 2);
	cr_expect_eq(v[2].ps, 3);
	cr_expect_eq(v[0].tmt1_k, -1, "NULL: unknown");
	cr_expect_eq(v[0].apst_enabled, 1);
	free(v);
	cr_assert_eq(store_power_last(s, dev_a, &last), 0);
	cr_expect_eq(last.ps, 3);
	cr_expect_eq(store_power_last(s, dev_b, &last), -ENOENT);
}

static struct store_pel_row pel(uint64_t fp, const char *kind, uint8_t type, int64_t ts)
{
	struct store_pel_row e = {.fingerprint = fp,
				  .type = type,
				  .ts_ms = ts,
				  .time_known = true,
				  .read_ms = ts + 1000};

	snprintf(e.kind, sizeof(e.kind), "%s", kind);
	snprintf(e.summary, sizeof(e.summary), "%s at %lld", kind, (long long)ts);
	snprintf(e.detail, sizeof(e.detail), "{\"n\":%llu}", (unsigned long long)fp);
	return e;
}

Test(store_drive, pel_entries_stored_once)
{
	struct store_pel_row v[3] = {pel(1, "thermal_excursion", 0x0D, T0),
				     pel(0xFFFFFFFFFFFFFFF0ull, "firmware_commit", 0x02, T0 + 10),
				     pel(3, "hardware_error", 0x05, T0 + 20)};
	struct store_pel_row *got = NULL;
	size_t added = 9, n = 0;
	uint64_t count = 0;

	cr_assert_eq(store_pel_add(s, dev_a, v, 3, &added), 0, "%s", store_strerror(s));
	cr_expect_eq(added, 3);
	cr_expect_gt(v[0].id, 0);
	/* Read again (after a restart): nothing new. */
	char err[STORE_ERR_MAX];
	s = store_close(s);
	cr_assert_eq(store_open(db_path, &s, err), 0, "%s", err);
	v[2].id = 0;
	cr_assert_eq(store_pel_add(s, dev_a, v, 3, &added), 0);
	cr_expect_eq(added, 0, "the same fingerprints: stored before");
	cr_expect_eq(v[0].id, 0);
	/* Another drive may have the same bytes. */
	cr_assert_eq(store_pel_add(s, dev_b, v, 1, &added), 0);
	cr_expect_eq(added, 1);

	cr_assert_eq(store_pel_range(s, dev_a, 0, INT64_MAX, NULL, 10, &got, &n), 0);
	cr_assert_eq(n, 3);
	cr_expect_eq(got[1].fingerprint, 0xFFFFFFFFFFFFFFF0ull, "64-bit fingerprint kept");
	cr_expect_str_eq(got[0].kind, "thermal_excursion", "oldest first");
	cr_expect_str_eq(got[1].detail, "{\"n\":18446744073709551600}");
	free(got);
	const char *const kinds[] = {"hardware_error", "thermal_excursion", NULL};
	cr_assert_eq(store_pel_range(s, dev_a, 0, INT64_MAX, kinds, 10, &got, &n), 0);
	cr_expect_eq(n, 2, "filtered by kind");
	free(got);
	const char *const bad[] = {"x') OR 1=1 --", NULL};
	cr_expect_eq(store_pel_range(s, dev_a, 0, INT64_MAX, bad, 10, &got, &n), -EINVAL);
	cr_assert_eq(store_pel_count(s, dev_a, 0x05, 0, INT64_MAX, &count), 0);
	cr_expect_eq(count, 1);
	cr_assert_eq(store_pel_count(s, dev_a, -1, T0 + 5, INT64_MAX, &count), 0);
	cr_expect_eq(count, 2);
}

Test(store_drive, cursor_probe_namespaces_verdicts)
{
	struct store_pel_cursor c = {.tll = 4096,
				     .tnev = 9,
				     .generation = 2,
				     .anchor_off = 3000,
				     .anchor_size = 26,
				     .anchor_fp = 0x8000000000000001ull,
				     .read_ms = T0},
				d;
	cr_expect_eq(store_pel_cursor_get(s, dev_a, &d), -ENOENT);
	cr_assert_eq(store_pel_cursor_put(s, dev_a, &c), 0);
	c.anchor_off = 3026;
	cr_assert_eq(store_pel_cursor_put(s, dev_a, &c), 0, "replaced");
	cr_assert_eq(store_pel_cursor_get(s, dev_a, &d), 0);
	cr_expect_eq(d.anchor_off, 3026);
	cr_expect_eq(d.anchor_fp, 0x8000000000000001ull);
	cr_expect_eq(d.generation, 2);

	struct store_ocp_probe p = {.firmware = "1.0",
				    .ocp = false,
				    .why = "another vendor's C0h",
				    .ts_ms = T0},
			       q;
	cr_expect_eq(store_ocp_probe_get(s, dev_a, &q), -ENOENT);
	cr_assert_eq(store_ocp_probe_put(s, dev_a, &p), 0);
	cr_assert_eq(store_ocp_probe_get(s, dev_a, &q), 0);
	cr_expect_not(q.ocp);
	cr_expect_str_eq(q.why, "another vendor's C0h");

	struct store_ns_row ns = {.device_id = dev_a,
				  .ts_ms = T0,
				  .nsid = 1,
				  .nsze = 1000,
				  .ncap = 900,
				  .nuse = 10,
				  .lba_size = 4096,
				  .ana_state = "optimized"},
			    m;
	cr_assert_eq(store_ns_insert(s, &ns), 0);
	ns.ts_ms += 1;
	ns.nuse = 20;
	cr_assert_eq(store_ns_insert(s, &ns), 0);
	cr_assert_eq(store_ns_last(s, dev_a, 1, &m), 0);
	cr_expect_eq(m.nuse, 20);
	cr_expect_str_eq(m.ana_state, "optimized");
	cr_expect_eq(store_ns_last(s, dev_a, 2, &m), -ENOENT);

	struct store_verdict_row w = {.device_id = dev_a,
				      .ts_ms = T0,
				      .level = "watch",
				      .reasons = "[]"},
				 x;
	cr_assert_eq(store_verdict_insert(s, &w), 0);
	snprintf(w.level, sizeof(w.level), "bogus");
	cr_expect_lt(store_verdict_insert(s, &w), 0, "the levels are a closed list (CHECK)");
	cr_assert_eq(store_verdict_last(s, dev_a, &x), 0);
	cr_expect_str_eq(x.level, "watch");
	cr_expect_eq(store_verdict_last(s, dev_b, &x), -ENOENT);
}

Test(store_drive, watched_and_media_errors_since)
{
	struct sample v[3] = {{.device_id = dev_a, .ts_ms = T0},
			      {.device_id = dev_a, .ts_ms = T0 + 10000},
			      {.device_id = dev_a, .ts_ms = T0 + 20000}};
	u128 me = 0;
	int64_t at = 0;

	v[0].smart.media_errors = 4;
	v[1].smart.media_errors = 5;
	v[2].smart.media_errors = 6;
	cr_assert_eq(store_samples_insert(s, v, 3), 0);
	cr_expect_eq(store_watched_at(s, dev_a, T0 + 15000, 30000), 1);
	cr_expect_eq(store_watched_at(s, dev_a, T0 + 100000, 30000), 0, "past the gap");
	cr_expect_eq(store_watched_at(s, dev_b, T0, 30000), 0, "another drive");
	cr_assert_eq(store_media_errors_since(s, dev_a, T0 + 5000, &me, &at), 0);
	cr_expect(me == 5);
	cr_expect_eq(at, T0 + 10000);
	cr_expect_eq(store_media_errors_since(s, dev_a, T0 + 50000, &me, &at), -ENOENT);
}
