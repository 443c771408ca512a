/* SPDX-License-Identifier: MIT */
/* The spec check: rated figures of known models, series statistics, the below-80 % rule. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "nvmond/analysis/alert.h"
#include "nvmond/analysis/rated.h"
#include "nvmond/util/utf8.h"
#include <stdio.h>

Test(rated, builtin_table)
{
	/* The figures (data sheets), matched as wear.c matches (case ignored). */
	static const struct {
		const char *model;
		uint32_t rd, wr;
	} known[] = {
		{"Samsung SSD 950 PRO 512GB", 2500, 1500},
		{"SAMSUNG SSD 950 PRO 512GB", 2500, 1500},
		{"Samsung SSD 980 PRO 1TB", 7000, 5000},
		{"Samsung SSD 970 EVO Plus 1TB", 3500, 3300},
		{"WD_BLACK SN850X 2000GB", 7300, 6600},
		{"CT1000P5PSSD8", 6600, 5000},
		{"SOLIDIGM SSDPFKKW020X7 ", 7000, 6500},
	};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		struct rated_speed s;
		cr_assert(rated_builtin_lookup(known[i].model, &s), "%s", known[i].model);
		cr_expect_eq(s.mbps[RATED_READ], known[i].rd, "%s", known[i].model);
		cr_expect_eq(s.mbps[RATED_WRITE], known[i].wr, "%s", known[i].model);
		cr_expect_not_null(s.ref);
		cr_expect_eq(rated_builtin_matches(known[i].model), 1, "%s", known[i].model);
	}
	struct rated_speed s;
	cr_expect_not(rated_builtin_lookup("Samsung SSD 980 PRO 1TBX", &s));
	cr_expect_not(rated_builtin_lookup("QEMU NVMe Ctrl", &s));
	cr_expect_not(rated_builtin_lookup(NULL, &s));
}

Test(rated, stats)
{
	/* Best = the highest, median = the middle (mean of the two middle ones),
	 * spread = (max - min) / median. */
	static const struct {
		double v[5];
		size_t n;
		double best, median, min, spread;
	} t[] = {
		{{2598}, 1, 2598, 2598, 2598, 0},
		{{2550, 2598, 2574}, 3, 2598, 2574, 2550, 48.0 / 2574},
		{{10, 30, 20, 40}, 4, 40, 25, 10, 30.0 / 25},
		{{5, 5, 5, 5, 5}, 5, 5, 5, 5, 0},
		{{0, 0}, 2, 0, 0, 0, 0},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct rated_stats s;
		cr_assert_eq(rated_stats_of(t[i].v, t[i].n, &s), 0);
		cr_expect_eq(s.n, t[i].n);
		cr_expect_float_eq(s.best, t[i].best, 1e-9, "case %zu", i);
		cr_expect_float_eq(s.median, t[i].median, 1e-9, "case %zu", i);
		cr_expect_float_eq(s.min, t[i].min, 1e-9, "case %zu", i);
		cr_expect_float_eq(s.spread, t[i].spread, 1e-9, "case %zu", i);
	}
	struct rated_stats s;
	double v[1] = {1};
	cr_expect_eq(rated_stats_of(v, 0, &s), -EINVAL);
	cr_expect_eq(rated_stats_of(v, RATED_STATS_MAX + 1, &s), -EINVAL);
}

Test(rated, format)
{
	char buf[96];

	cr_expect_str_eq(rated_format(2598.4, 2500, RATED_READ, buf, sizeof(buf)),
			 "2,598 MB/s read = 104 % of 2,500 rated");
	cr_expect_str_eq(rated_format(1576, 1500, RATED_WRITE, buf, sizeof(buf)),
			 "1,576 MB/s write = 105 % of 1,500 rated");
	cr_expect_str_eq(rated_format(950, 12400, RATED_READ, buf, sizeof(buf)),
			 "950 MB/s read = 8 % of 12,400 rated");
	/* Grouped by three past a million too (a RAID0 of fast drives, in MB/s). */
	cr_expect_str_eq(rated_format(1234567, 2500, RATED_READ, buf, sizeof(buf)),
			 "1,234,567 MB/s read = 49383 % of 2,500 rated");
	cr_expect_str_eq(rated_format(1000000, 1000000, RATED_WRITE, buf, sizeof(buf)),
			 "1,000,000 MB/s write = 100 % of 1,000,000 rated");
}

/*
 * The rule (docs/probes.md, "Repeat runs and the spec check"): a series of at
 * least 2 measured runs whose best is under 80 % of the rating in a direction
 * that is both measured and rated is below its rating; the event names the
 * link and the temperature. One run never is.
 */
Test(rated, below_rule)
{
	static const struct {
		const char *what;
		size_t runs;
		double rd, wr;
		uint32_t rated_rd, rated_wr;
		bool known, below;
	} t[] = {
		{"best of 3 at 104 %/105 %", 3, 2598, 1576, 2500, 1500, true, false},
		{"read at 79.9 % of 2500", 3, 1997.5, 1576, 2500, 1500, true, true},
		{"read at exactly 80 % is not below", 3, 2000, 1576, 2500, 1500, true, false},
		{"write below", 2, 2598, 1100, 2500, 1500, true, true},
		{"one run never", 1, 1000, 500, 2500, 1500, true, false},
		{"not rated: nothing compared", 3, 1000, 500, 0, 0, false, false},
		{"read-only preset: only read compared", 3, 2400, 0, 2500, 1500, true, false},
		{"write rated only", 3, 1000, 1000, 0, 1500, true, true},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct rated_check_input in = {.runs = t[i].runs,
					       .best_mbps = {t[i].rd, t[i].wr},
					       .rated_mbps = {t[i].rated_rd, t[i].rated_wr},
					       .preset = "seq1m-q8",
					       .link = "PCIe 8.0 GT/s x2 (max 8.0 GT/s x4)",
					       .temp_c = 71};
		struct rated_verdict v;
		rated_check(&in, &v);
		cr_expect_eq(v.known, t[i].known, "%s", t[i].what);
		cr_expect_eq(v.below, t[i].below, "%s", t[i].what);
		if (t[i].below) {
			cr_expect(strstr(v.message, "PCIe 8.0 GT/s x2"), "%s: %s", t[i].what,
				  v.message);
			cr_expect(strstr(v.message, "71 °C"), "%s: %s", t[i].what, v.message);
		} else {
			cr_expect_str_empty(v.message, "%s", t[i].what);
		}
	}
	struct rated_check_input in = {.runs = 3,
				       .best_mbps = {1000, 0},
				       .rated_mbps = {2500, 1500},
				       .preset = "seq1m-q8",
				       .temp_c = INT32_MIN};
	struct rated_verdict v;
	rated_check(&in, &v);
	cr_expect_str_eq(v.message,
			 "best of 3 seq1m-q8 runs below 80 % of the rating: 1,000 MB/s "
			 "read = 40 % of 2,500 rated; link unknown, temperature unknown");
}

/* below_rated is info; it fires on a series below its rating and resolves on one at it. */
Test(rated, alert_condition)
{
	struct rated_verdict below = {.known = true, .below = true}, fine = {.known = true},
			     none = {0};
	struct alert_cond c;

	snprintf(below.message, sizeof(below.message), "best of 3 seq1m-q8 runs below 80 %%");
	rated_alert_condition(&below, &c);
	cr_expect(c.known && c.active && c.severity == ALERT_SEV_INFO);
	cr_expect_str_eq(c.message, "best of 3 seq1m-q8 runs below 80 %");
	rated_alert_condition(&fine, &c);
	cr_expect(c.known && !c.active);
	rated_alert_condition(&none, &c);
	cr_expect_not(c.known);
	cr_expect_str_eq(alert_rule_name(ALERT_BELOW_RATED), "below_rated");
}

/*
 * The alert keeps 159 bytes of the verdict's message, cut at a character
 * (issue 23 §7: a cut inside "°C" left 0xC2, which jansson refuses, and the
 * alert fell out of the API). Links of each length move the degree sign over
 * the cut: every message is valid UTF-8 and a prefix of the verdict's.
 */
Test(rated, alert_message_cut_at_a_character)
{
	char link[64];
	int split = 0;

	for (size_t len = 1; len < sizeof(link); len++) {
		memset(link, 'x', len);
		link[len] = '\0';
		struct rated_check_input in = {.runs = 3,
					       .best_mbps = {1000, 900},
					       .rated_mbps = {2500, 1500},
					       .preset = "seq1m-q8",
					       .link = link,
					       .temp_c = 41};
		struct rated_verdict v;
		struct alert_cond c;
		rated_check(&in, &v);
		rated_alert_condition(&v, &c);
		size_t n = strlen(c.message);
		cr_expect(utf8_valid(c.message, n), "link of %zu: ends in %02x", len,
			  (unsigned char)c.message[n - 1]);
		cr_expect(n <= 159 && !strncmp(c.message, v.message, n), "link of %zu", len);
		split += (unsigned char)v.message[158] == 0xC2;
	}
	cr_assert_eq(split, 1, "no link length put the degree sign over the cut");
}
