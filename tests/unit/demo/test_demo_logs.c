/* SPDX-License-Identifier: MIT */
/*
 * The demo drives' log C0h, Persistent Event Log and power states (issue 27),
 * through the backend as the poller reads them: demo0 has the OCP log (its
 * uncorrectable reads rising every 60 days), demo1 answers C0h with a page of
 * its own (another GUID), demo3 refuses it; both first drives keep an event
 * log that only grows, whose every event walks and decodes; power states
 * follow the workload, with APST off on demo0 and on on demo1.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/demo/demo.h"
#include "nvmond/dev/dev.h"

#define NOW 1796296320000LL /* 2026-12-03 */
#define DAY (24 * 3600 * 1000LL)

static struct dev_backend *b;

static void setup(void)
{
	cr_assert_eq(dev_demo_open_n(4, &b), 0);
}

static void teardown(void)
{
	b = dev_backend_free(b);
}

TestSuite(demo_logs, .init = setup, .fini = teardown);

Test(demo_logs, c0h_answers)
{
	uint8_t page[OCP_LOG_SIZE];
	struct ocp_log a, c;

	cr_assert_eq(dev_read_ocp(b, "demo0", NULL, NOW, page), 0);
	cr_assert_eq(ocp_decode(page, &a), 0, "demo0 has the OCP log");
	cr_assert_eq(dev_read_ocp(b, "demo0", NULL, NOW + 61 * DAY, page), 0);
	cr_assert_eq(ocp_decode(page, &c), 0);
	cr_expect_gt(c.uncorrectable_reads, a.uncorrectable_reads, "uncorrectables every 60 days");
	cr_expect_gt(c.bad_user_blocks, a.bad_user_blocks, "and a bad block");
	cr_expect(c.phys_written_bytes > a.phys_written_bytes);
	int64_t wa = ocp_write_amp_x100(a.phys_written_bytes, 0);
	cr_expect_eq(wa, -1);
	cr_assert_eq(dev_read_ocp(b, "demo1", NULL, NOW, page), 0);
	cr_expect_eq(ocp_decode(page, &a), -ENOMSG, "demo1's C0h is a vendor page");
	cr_expect_eq(dev_read_ocp(b, "demo3", NULL, NOW, page), -EOPNOTSUPP, "demo3 refuses C0h");
}

/* What walk() saw: the events in time order, the thermal excursions. */
static int64_t last_ms, first_excursion_ms;
static unsigned excursions;

static void walk(const char *name, int64_t now, struct pel_header *ret_h, uint32_t *ret_n)
{
	uint8_t head[PEL_HEADER_SIZE], *data = malloc(DEV_PEL_READ_MAX);
	struct pel_cursor c = {0};
	struct pel_take t;
	uint32_t n = 0;

	cr_assert_not_null(data);
	last_ms = excursions = 0;
	first_excursion_ms = 0;
	do {
		uint64_t off = pel_next_read(&c);
		int got = dev_read_pel(b, name, NULL, now, off, DEV_PEL_READ_MAX, true, head, data);
		cr_assert_geq(got, 0);
		cr_assert_eq(pel_header_decode(head, ret_h), 0);
		cr_assert_eq(pel_take(&c, ret_h, off, data, (size_t)got, &t), 0,
			     "every event walks");
		for (size_t i = 0; i < t.n; i++) {
			struct pel_event e;
			cr_assert_eq(pel_event_decode(data + t.off[i], (size_t)got - t.off[i], &e),
				     0);
			cr_expect_not(e.data_short, "%s: event type %02x whole", name, e.type);
			int64_t ms = pel_ts_wall_ms(&e.ts);
			cr_expect_geq(ms, last_ms, "%s: oldest first", name);
			last_ms = ms;
			if (e.type == PEL_THERMAL_EXCURSION) {
				if (!excursions++)
					first_excursion_ms = ms;
			}
		}
		n += (uint32_t)t.n;
		c = t.cursor;
		cr_assert_not(t.restart);
	} while (t.more);
	free(data);
	*ret_n = n;
}

Test(demo_logs, event_log_grows_and_decodes)
{
	struct pel_header h, h2;
	uint32_t n, n2;

	walk("demo0", NOW, &h, &n);
	cr_expect_eq(n, h.tnev, "TNEV events in TLL bytes");
	/* Its passes over TMT2 (every third 300 s period) from 2 h before the first read. */
	cr_expect_eq(excursions, 8, "2 h of excursions, one each 15 min");
	cr_expect_geq(first_excursion_ms, NOW - DEV_DEMO_PEL_LIVE_BEFORE_MS);
	walk("demo0", NOW + 7 * DAY, &h2, &n2);
	cr_expect_gt(h2.tll, h.tll, "a week later it is longer");
	cr_expect_gt(n2, n);
	cr_expect_eq(excursions, 8 + 7 * 96, "and a week of them more");
	walk("demo1", NOW, &h, &n);
	cr_expect_gt(n, 100);
	uint8_t head[PEL_HEADER_SIZE], data[64];
	cr_expect_eq(dev_read_pel(b, "demo3", NULL, NOW, 512, 64, true, head, data), -EOPNOTSUPP,
		     "demo3 keeps none");
	/* The next read starts at the last event taken, which need not end on a
	 * dword (an event is EHL + 3 + EL bytes): any offset past the header. */
	uint8_t at512[64];
	cr_expect_eq(dev_read_pel(b, "demo0", NULL, NOW, 512, 64, true, head, at512), 64);
	cr_expect_eq(dev_read_pel(b, "demo0", NULL, NOW, 514, 64, true, head, data), 64,
		     "an offset off the dword grid is read");
	cr_expect_arr_eq(data, at512 + 2, 62, "from that byte on");
	cr_expect_eq(dev_read_pel(b, "demo0", NULL, NOW, 510, 64, true, head, data), -EINVAL,
		     "never inside the header");
}

Test(demo_logs, power_states)
{
	struct dev_power p;
	bool seen[5] = {0};

	for (int64_t t = 0; t < 600000; t += 10000) {
		cr_assert_eq(dev_read_power(b, "demo1", NULL, NOW + t, DEV_POWER_ALL, &p), 0);
		seen[power_mgmt_decode(p.pm_dw0).ps] = true;
	}
	cr_expect(seen[0] && seen[3], "demo1 works in PS0 and rests in PS3 (APST on)");
	struct apst a;
	apst_decode(p.apst_dw0, p.apst_table, &a);
	cr_expect(a.enabled);
	memset(seen, 0, sizeof(seen));
	for (int64_t t = 0; t < 600000; t += 10000) {
		cr_assert_eq(dev_read_power(b, "demo0", NULL, NOW + t, DEV_POWER_ALL, &p), 0);
		seen[power_mgmt_decode(p.pm_dw0).ps] = true;
	}
	cr_expect(!seen[3] && !seen[4], "demo0 never idles: its APST is off");
	apst_decode(p.apst_dw0, p.apst_table, &a);
	cr_expect_not(a.enabled);
	struct hctm h = hctm_decode(p.hctm_dw0);
	cr_expect_eq(h.tmt1_k, 341);
	cr_expect_eq(h.tmt2_k, 346);
	cr_assert_eq(dev_read_power(b, "demo0", NULL, NOW, DEV_POWER_PM, &p), 0);
	cr_expect_eq(p.got, DEV_POWER_PM, "only what was asked");
}
