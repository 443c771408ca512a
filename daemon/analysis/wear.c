/* SPDX-License-Identifier: MIT */
/*
 * Wear analysis: bytes written against the rated endurance, write rates over
 * 1, 7 and 30 days, and projections. Pure: no clock, no I/O.
 */
#define _GNU_SOURCE /* FNM_CASEFOLD */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/decode/smart.h"
#include "nvmond/util/timefmt.h"
#include "nvmond/analysis/wear.h"
#include "nvmond/util/units.h"

#define GB (1000ULL * 1000 * 1000)
#define TB (1000ULL * GB)

/*
 * Rated endurance of models whose manufacturer publishes it, from each
 * series' data sheet (product brief) and limited warranty statement; the
 * reference names the document. A rating is either a TBW figure or, for
 * datacenter drives, drive writes per day over the warranty: TBW = DWPD ×
 * capacity × 365 × warranty years.
 *
 * Matched against the Identify model string (MN) with fnmatch(3), ignoring
 * case (firmware revisions change "Micron_" to "MICRON_", "SAMSUNG" to
 * "Samsung"). The capacity is part of every model string listed here, so no
 * namespace size is needed. Patterns name what the drives report, e.g.
 * "WD_BLACK SN850X 1000GB", and also the retail part number some firmware
 * (and OEM builds) report instead, e.g. "WDS100T2X0E-00BCA0". No two patterns
 * may match one model (tests/unit/analysis/test_wear.c checks the strings it
 * knows). A model that matches nothing stays unknown.
 */
struct rating {
	const char *pattern;
	uint32_t tbw;		/* TB written; 0 when rated in DWPD */
	uint8_t dwpd;		/* drive writes per day over the warranty; 0 when rated in TBW */
	uint32_t capacity_gb;	/* for DWPD ratings: the capacity they apply to */
	uint8_t warranty_years; /* 0 = the data sheet gives none */
	const char *ref;
};

/* clang-format off */
#define TBW(p, tb, years, doc)     {.pattern = p, .tbw = tb, .warranty_years = years, .ref = doc}
#define DWPD(p, d, gb, years, doc) {.pattern = p, .dwpd = d, .capacity_gb = gb, \
				    .warranty_years = years, .ref = doc}
/* clang-format on */

#define SAMSUNG_950PRO	"Samsung 950 PRO data sheet / limited warranty"
#define SAMSUNG_960PRO	"Samsung 960 PRO data sheet / limited warranty"
#define SAMSUNG_970PRO	"Samsung 970 PRO data sheet / limited warranty"
#define SAMSUNG_970EVOP "Samsung 970 EVO Plus data sheet"
#define SAMSUNG_980	"Samsung 980 data sheet / limited warranty"
#define SAMSUNG_980PRO	"Samsung 980 PRO data sheet / limited warranty"
#define SAMSUNG_990PRO	"Samsung 990 PRO data sheet / limited warranty"
#define SAMSUNG_990EVO	"Samsung 990 EVO data sheet / limited warranty"
#define SAMSUNG_PM9A3	"Samsung PM9A3 data sheet (1 DWPD, 5 years)"
#define WD_SN850X	"WD_BLACK SN850X NVMe SSD product brief"
#define WD_SN850	"WD_BLACK SN850 NVMe SSD product brief"
#define WD_SN770	"WD_BLACK SN770 NVMe SSD product brief"
#define WD_SN570	"WD Blue SN570 NVMe SSD product brief"
#define WD_SN580	"WD Blue SN580 NVMe SSD product brief"
#define CRUCIAL_P3	"Crucial P3 SSD product flyer"
#define CRUCIAL_P3P	"Crucial P3 Plus SSD product flyer"
#define CRUCIAL_P5P	"Crucial P5 Plus SSD product flyer"
#define CRUCIAL_T500	"Crucial T500 SSD product flyer"
#define CRUCIAL_T700	"Crucial T700 SSD product flyer"
#define MICRON_7450	"Micron 7450 SSD product brief (PRO 1 DWPD, MAX 3 DWPD, 5 years)"
#define MICRON_7400	"Micron 7400 SSD product brief (PRO 1 DWPD, MAX 3 DWPD, 5 years)"
#define KINGSTON_KC3000 "Kingston KC3000 data sheet"
#define KINGSTON_NV2	"Kingston NV2 data sheet"
#define KINGSTON_FURY	"Kingston FURY Renegade SSD data sheet"
#define SKHYNIX_P41	"SK hynix Platinum P41 data sheet"
#define SKHYNIX_P31	"SK hynix Gold P31 data sheet"
#define SOLIDIGM_P41P	"Solidigm P41 Plus product brief"
#define SOLIDIGM_P44P	"Solidigm P44 Pro product brief"
#define SOLIDIGM_P5520	"Solidigm D7-P5520 product brief (1 DWPD, 5 years)"
#define INTEL_670P	"Intel SSD 670p product brief"
#define SEAGATE_FC530	"Seagate FireCuda 530 SSD data sheet"

static const struct rating ratings[] = {
	/* Samsung, consumer */
	TBW("Samsung SSD 950 PRO 256GB", 200, 5, SAMSUNG_950PRO),
	TBW("Samsung SSD 950 PRO 512GB", 400, 5, SAMSUNG_950PRO),
	TBW("Samsung SSD 960 PRO 512GB", 400, 5, SAMSUNG_960PRO),
	TBW("Samsung SSD 960 PRO 1TB", 800, 5, SAMSUNG_960PRO),
	TBW("Samsung SSD 960 PRO 2TB", 1200, 5, SAMSUNG_960PRO),
	TBW("Samsung SSD 970 PRO 512GB", 600, 5, SAMSUNG_970PRO),
	TBW("Samsung SSD 970 PRO 1TB", 1200, 5, SAMSUNG_970PRO),
	TBW("Samsung SSD 970 EVO Plus 250GB", 150, 5, SAMSUNG_970EVOP),
	TBW("Samsung SSD 970 EVO Plus 500GB", 300, 5, SAMSUNG_970EVOP),
	TBW("Samsung SSD 970 EVO Plus 1TB", 600, 5, SAMSUNG_970EVOP),
	TBW("Samsung SSD 970 EVO Plus 2TB", 1200, 5, SAMSUNG_970EVOP),
	TBW("Samsung SSD 980 250GB", 150, 5, SAMSUNG_980),
	TBW("Samsung SSD 980 500GB", 300, 5, SAMSUNG_980),
	TBW("Samsung SSD 980 1TB", 600, 5, SAMSUNG_980),
	TBW("Samsung SSD 980 PRO 250GB", 150, 5, SAMSUNG_980PRO),
	TBW("Samsung SSD 980 PRO 500GB", 300, 5, SAMSUNG_980PRO),
	TBW("Samsung SSD 980 PRO 1TB", 600, 5, SAMSUNG_980PRO),
	TBW("Samsung SSD 980 PRO 2TB", 1200, 5, SAMSUNG_980PRO),
	TBW("Samsung SSD 990 PRO 1TB", 600, 5, SAMSUNG_990PRO),
	TBW("Samsung SSD 990 PRO 2TB", 1200, 5, SAMSUNG_990PRO),
	TBW("Samsung SSD 990 PRO 4TB", 2400, 5, SAMSUNG_990PRO),
	TBW("Samsung SSD 990 EVO 1TB", 600, 5, SAMSUNG_990EVO),
	TBW("Samsung SSD 990 EVO 2TB", 1200, 5, SAMSUNG_990EVO),
	/* Samsung PM9A3: U.2 (MZQL2…) and M.2 22110 (MZ1L2…) */
	DWPD("SAMSUNG MZQL2960*", 1, 960, 5, SAMSUNG_PM9A3),
	DWPD("SAMSUNG MZQL21T9*", 1, 1920, 5, SAMSUNG_PM9A3),
	DWPD("SAMSUNG MZQL23T8*", 1, 3840, 5, SAMSUNG_PM9A3),
	DWPD("SAMSUNG MZQL27T6*", 1, 7680, 5, SAMSUNG_PM9A3),
	DWPD("SAMSUNG MZQL215T*", 1, 15360, 5, SAMSUNG_PM9A3),
	DWPD("SAMSUNG MZ1L2960*", 1, 960, 5, SAMSUNG_PM9A3),
	DWPD("SAMSUNG MZ1L21T9*", 1, 1920, 5, SAMSUNG_PM9A3),
	DWPD("SAMSUNG MZ1L23T8*", 1, 3840, 5, SAMSUNG_PM9A3),
	/* Western Digital: the name the drive reports, and the retail part number */
	TBW("WD_BLACK SN850X 1000GB", 600, 5, WD_SN850X),
	TBW("WD_BLACK SN850X 2000GB", 1200, 5, WD_SN850X),
	TBW("WD_BLACK SN850X 4000GB", 2400, 5, WD_SN850X),
	TBW("WDS100T2X[0H]E-*", 600, 5, WD_SN850X),
	TBW("WDS200T2X[0H]E-*", 1200, 5, WD_SN850X),
	TBW("WDS400T2X[0H]E-*", 2400, 5, WD_SN850X),
	TBW("WD_BLACK SN850 500GB", 300, 5, WD_SN850),
	TBW("WD_BLACK SN850 1TB", 600, 5, WD_SN850),
	TBW("WD_BLACK SN850 2TB", 1200, 5, WD_SN850),
	TBW("WDS500G1X[0H]E-*", 300, 5, WD_SN850),
	TBW("WDS100T1X[0H]E-*", 600, 5, WD_SN850),
	TBW("WDS200T1X[0H]E-*", 1200, 5, WD_SN850),
	TBW("WD_BLACK SN770 250GB", 200, 5, WD_SN770),
	TBW("WD_BLACK SN770 500GB", 300, 5, WD_SN770),
	TBW("WD_BLACK SN770 1TB", 600, 5, WD_SN770),
	TBW("WD_BLACK SN770 2TB", 1200, 5, WD_SN770),
	TBW("WDS250G3X0E-*", 200, 5, WD_SN770),
	TBW("WDS500G3X0E-*", 300, 5, WD_SN770),
	TBW("WDS100T3X0E-*", 600, 5, WD_SN770),
	TBW("WDS200T3X0E-*", 1200, 5, WD_SN770),
	TBW("WD Blue SN570 250GB", 150, 5, WD_SN570),
	TBW("WD Blue SN570 500GB", 300, 5, WD_SN570),
	TBW("WD Blue SN570 1TB", 600, 5, WD_SN570),
	TBW("WD Blue SN570 2TB", 900, 5, WD_SN570),
	TBW("WDS250G3B0C-*", 150, 5, WD_SN570),
	TBW("WDS500G3B0C-*", 300, 5, WD_SN570),
	TBW("WDS100T3B0C-*", 600, 5, WD_SN570),
	TBW("WDS200T3B0C-*", 900, 5, WD_SN570),
	TBW("WD Blue SN580 250GB", 150, 5, WD_SN580),
	TBW("WD Blue SN580 500GB", 300, 5, WD_SN580),
	TBW("WD Blue SN580 1TB", 600, 5, WD_SN580),
	TBW("WD Blue SN580 2TB", 900, 5, WD_SN580),
	TBW("WDS250G3B0E-*", 150, 5, WD_SN580),
	TBW("WDS500G3B0E-*", 300, 5, WD_SN580),
	TBW("WDS100T3B0E-*", 600, 5, WD_SN580),
	TBW("WDS200T3B0E-*", 900, 5, WD_SN580),
	/* Crucial: the part number is the model; SSD5 is the heatsink build */
	TBW("CT500P3SSD8", 110, 5, CRUCIAL_P3),
	TBW("CT1000P3SSD8", 220, 5, CRUCIAL_P3),
	TBW("CT2000P3SSD8", 440, 5, CRUCIAL_P3),
	TBW("CT4000P3SSD8", 800, 5, CRUCIAL_P3),
	TBW("CT500P3PSSD8", 110, 5, CRUCIAL_P3P),
	TBW("CT1000P3PSSD8", 220, 5, CRUCIAL_P3P),
	TBW("CT2000P3PSSD8", 440, 5, CRUCIAL_P3P),
	TBW("CT4000P3PSSD8", 800, 5, CRUCIAL_P3P),
	TBW("CT500P5PSSD[58]", 300, 5, CRUCIAL_P5P),
	TBW("CT1000P5PSSD[58]", 600, 5, CRUCIAL_P5P),
	TBW("CT2000P5PSSD[58]", 1200, 5, CRUCIAL_P5P),
	TBW("CT500T500SSD[58]", 300, 5, CRUCIAL_T500),
	TBW("CT1000T500SSD[58]", 600, 5, CRUCIAL_T500),
	TBW("CT2000T500SSD[58]", 1200, 5, CRUCIAL_T500),
	TBW("CT4000T500SSD[58]", 2400, 5, CRUCIAL_T500),
	TBW("CT1000T700SSD[35]", 600, 5, CRUCIAL_T700),
	TBW("CT2000T700SSD[35]", 1200, 5, CRUCIAL_T700),
	TBW("CT4000T700SSD[35]", 2400, 5, CRUCIAL_T700),
	/*
	 * Micron datacenter: Micron_74x0_MTFDK<form factor, 2><capacity>…; the
	 * capacity tells PRO (1 DWPD) from MAX (3 DWPD).
	 */
	DWPD("Micron_7450_MTFDK??480*", 1, 480, 5, MICRON_7450),
	DWPD("Micron_7450_MTFDK??960*", 1, 960, 5, MICRON_7450),
	DWPD("Micron_7450_MTFDK??1T9*", 1, 1920, 5, MICRON_7450),
	DWPD("Micron_7450_MTFDK??3T8*", 1, 3840, 5, MICRON_7450),
	DWPD("Micron_7450_MTFDK??7T6*", 1, 7680, 5, MICRON_7450),
	DWPD("Micron_7450_MTFDK??15T*", 1, 15360, 5, MICRON_7450),
	DWPD("Micron_7450_MTFDK??400*", 3, 400, 5, MICRON_7450),
	DWPD("Micron_7450_MTFDK??800*", 3, 800, 5, MICRON_7450),
	DWPD("Micron_7450_MTFDK??1T6*", 3, 1600, 5, MICRON_7450),
	DWPD("Micron_7450_MTFDK??3T2*", 3, 3200, 5, MICRON_7450),
	DWPD("Micron_7450_MTFDK??6T4*", 3, 6400, 5, MICRON_7450),
	DWPD("Micron_7450_MTFDK??12T*", 3, 12800, 5, MICRON_7450),
	DWPD("Micron_7400_MTFDK??480*", 1, 480, 5, MICRON_7400),
	DWPD("Micron_7400_MTFDK??960*", 1, 960, 5, MICRON_7400),
	DWPD("Micron_7400_MTFDK??1T9*", 1, 1920, 5, MICRON_7400),
	DWPD("Micron_7400_MTFDK??3T8*", 1, 3840, 5, MICRON_7400),
	DWPD("Micron_7400_MTFDK??7T6*", 1, 7680, 5, MICRON_7400),
	DWPD("Micron_7400_MTFDK??400*", 3, 400, 5, MICRON_7400),
	DWPD("Micron_7400_MTFDK??800*", 3, 800, 5, MICRON_7400),
	DWPD("Micron_7400_MTFDK??1T6*", 3, 1600, 5, MICRON_7400),
	DWPD("Micron_7400_MTFDK??3T2*", 3, 3200, 5, MICRON_7400),
	DWPD("Micron_7400_MTFDK??6T4*", 3, 6400, 5, MICRON_7400),
	/* Kingston */
	TBW("KINGSTON SKC3000S512G", 400, 5, KINGSTON_KC3000),
	TBW("KINGSTON SKC3000S1024G", 800, 5, KINGSTON_KC3000),
	TBW("KINGSTON SKC3000D2048G", 1600, 5, KINGSTON_KC3000),
	TBW("KINGSTON SKC3000D4096G", 3200, 5, KINGSTON_KC3000),
	TBW("KINGSTON SNV2S250G", 80, 3, KINGSTON_NV2),
	TBW("KINGSTON SNV2S500G", 160, 3, KINGSTON_NV2),
	TBW("KINGSTON SNV2S1000G", 320, 3, KINGSTON_NV2),
	TBW("KINGSTON SNV2S2000G", 640, 3, KINGSTON_NV2),
	TBW("KINGSTON SNV2S4000G", 1280, 3, KINGSTON_NV2),
	TBW("KINGSTON SFYRS500G", 500, 5, KINGSTON_FURY),
	TBW("KINGSTON SFYRS1000G", 1000, 5, KINGSTON_FURY),
	TBW("KINGSTON SFYRD2000G", 2000, 5, KINGSTON_FURY),
	TBW("KINGSTON SFYRD4000G", 4000, 5, KINGSTON_FURY),
	/* SK hynix: some firmware appends a revision ("SHGP31-1000GM-2") */
	TBW("SHPP41-500GM*", 500, 5, SKHYNIX_P41),
	TBW("SHPP41-1000GM*", 750, 5, SKHYNIX_P41),
	TBW("SHPP41-2000GM*", 1200, 5, SKHYNIX_P41),
	TBW("SHGP31-500GM*", 500, 5, SKHYNIX_P31),
	TBW("SHGP31-1000GM*", 750, 5, SKHYNIX_P31),
	TBW("SHGP31-2000GM*", 1200, 5, SKHYNIX_P31),
	/* Solidigm and Intel */
	TBW("SOLIDIGM SSDPFKNU512GZ*", 200, 5, SOLIDIGM_P41P),
	TBW("SOLIDIGM SSDPFKNU010TZ*", 400, 5, SOLIDIGM_P41P),
	TBW("SOLIDIGM SSDPFKNU020TZ*", 800, 5, SOLIDIGM_P41P),
	TBW("SOLIDIGM SSDPFKKW512H7*", 400, 5, SOLIDIGM_P44P),
	TBW("SOLIDIGM SSDPFKKW010X7*", 750, 5, SOLIDIGM_P44P),
	TBW("SOLIDIGM SSDPFKKW020X7*", 1200, 5, SOLIDIGM_P44P),
	/* D7-P5520 (U.2): …T1, …T1M, …T1O; sold as INTEL before SOLIDIGM */
	DWPD("* SSDPF2KX019T1*", 1, 1920, 5, SOLIDIGM_P5520),
	DWPD("* SSDPF2KX038T1*", 1, 3840, 5, SOLIDIGM_P5520),
	DWPD("* SSDPF2KX076T1*", 1, 7680, 5, SOLIDIGM_P5520),
	DWPD("* SSDPF2KX153T1*", 1, 15360, 5, SOLIDIGM_P5520),
	TBW("INTEL SSDPEKNU512GZ*", 185, 5, INTEL_670P),
	TBW("INTEL SSDPEKNU010TZ*", 370, 5, INTEL_670P),
	TBW("INTEL SSDPEKNU020TZ*", 740, 5, INTEL_670P),
	/* Seagate: ZP…GM30013, ZP…GM30023 with heatsink */
	TBW("Seagate FireCuda 530 ZP500GM3*", 640, 5, SEAGATE_FC530),
	TBW("Seagate FireCuda 530 ZP1000GM3*", 1275, 5, SEAGATE_FC530),
	TBW("Seagate FireCuda 530 ZP2000GM3*", 2550, 5, SEAGATE_FC530),
	TBW("Seagate FireCuda 530 ZP4000GM3*", 5100, 5, SEAGATE_FC530),
};

static const int64_t window_ms[_WEAR_WINDOW_MAX] = {MS_PER_DAY, 7 * MS_PER_DAY, 30 * MS_PER_DAY};

static bool rating_matches(const struct rating *r, const char *model)
{
	return fnmatch(r->pattern, model, FNM_CASEFOLD) == 0;
}

bool wear_builtin_lookup(const char *model, struct wear_rating *ret)
{
	for (size_t i = 0; model && model[0] && i < sizeof(ratings) / sizeof(ratings[0]); i++) {
		const struct rating *r = &ratings[i];

		if (!rating_matches(r, model))
			continue;
		*ret = (struct wear_rating){
			.rated_bytes = r->dwpd ? (uint64_t)r->dwpd * r->capacity_gb * GB * 365 *
							 r->warranty_years
					       : (uint64_t)r->tbw * TB,
			.warranty_years = r->warranty_years,
			.dwpd = r->dwpd,
			.ref = r->ref,
		};
		return true;
	}
	return false;
}

size_t wear_builtin_matches(const char *model)
{
	size_t n = 0;

	for (size_t i = 0; model && model[0] && i < sizeof(ratings) / sizeof(ratings[0]); i++)
		n += rating_matches(&ratings[i], model);
	return n;
}

bool wear_builtin_rating(const char *model, uint64_t *ret_bytes, const char **ret_ref)
{
	struct wear_rating r;

	if (!wear_builtin_lookup(model, &r))
		return false;
	*ret_bytes = r.rated_bytes;
	*ret_ref = r.ref;
	return true;
}

/* Units written between two points; a counter that went backwards restarted at 0. */
static u128 delta_units(const struct wear_point *a, const struct wear_point *b)
{
	return b->data_units_written >= a->data_units_written
		       ? b->data_units_written - a->data_units_written
		       : b->data_units_written;
}

static double u128_to_double(u128 v)
{
	return (double)v; /* for rates and ratios only; counters stay exact */
}

static void rate_in(const struct wear_point *v, size_t n, int64_t from_ms, int64_t to_ms,
		    int64_t window, struct wear_rate *ret)
{
	struct wear_rate r = {0};
	size_t first = n;
	u128 units = 0;

	for (size_t i = 0; i < n; i++) {
		if (v[i].ts_ms < from_ms || v[i].ts_ms > to_ms)
			continue;
		if (first == n)
			first = i;
		else
			units += delta_units(&v[i - 1], &v[i]);
		r.span_ms = v[i].ts_ms - v[first].ts_ms;
	}
	r.bytes = smart_bytes(units);
	r.known = first < n && r.span_ms >= WEAR_RATE_MIN_SPAN_MS;
	r.complete = r.known && r.span_ms * 10 >= window * 9;
	if (r.known)
		r.bytes_per_day = u128_to_double(r.bytes) * (double)MS_PER_DAY / (double)r.span_ms;
	*ret = r;
}

/*
 * Percentage used per day from the drive's own steps: the time between the
 * first and the last increase since the last reset. One step alone says
 * nothing about the slope, so it takes two.
 */
static double used_slope(const struct wear_point *v, size_t n, int64_t *ret_last_ms)
{
	int64_t t_first = 0, t_last = 0;
	int first_val = -1, last_val = -1;

	for (size_t i = 1; i < n; i++) {
		if (v[i].percent_used < v[i - 1].percent_used) {
			first_val = last_val = -1; /* reset: start over */
			continue;
		}
		if (v[i].percent_used == v[i - 1].percent_used)
			continue;
		if (first_val < 0) {
			first_val = v[i].percent_used;
			t_first = v[i].ts_ms;
		}
		last_val = v[i].percent_used;
		t_last = v[i].ts_ms;
	}
	if (first_val < 0 || last_val <= first_val || t_last <= t_first)
		return 0;
	*ret_last_ms = t_last;
	return (double)(last_val - first_val) * (double)MS_PER_DAY / (double)(t_last - t_first);
}

int wear_alert_level(double rated_fraction)
{
	return rated_fraction >= 1.0   ? 100
	       : rated_fraction >= 0.9 ? 90
	       : rated_fraction >= 0.8 ? 80
				       : 0;
}

int wear_alert_level_of(u128 bytes_written, uint64_t rated_bytes)
{
	if (!rated_bytes)
		return 0;
	return wear_alert_level(u128_to_double(bytes_written) / (double)rated_bytes);
}

uint64_t wear_rated_bytes(uint64_t configured, const char *model)
{
	struct wear_rating builtin;

	if (configured)
		return configured;
	return wear_builtin_lookup(model, &builtin) ? builtin.rated_bytes : 0;
}

int wear_analyze(const struct wear_point *v, size_t n, const struct wear_cfg *c, const char *model,
		 u128 probe_bytes, int64_t now_ms, struct wear_report *ret)
{
	struct wear_report w = {.rating_ref = ""};
	const struct wear_point *last;
	double factor = c->unusual_factor > 0 ? c->unusual_factor : WEAR_UNUSUAL_FACTOR_DEFAULT;
	int64_t t_step = 0;
	struct wear_rating builtin;

	if (n == 0)
		return -EINVAL;
	last = &v[n - 1];
	w.unusual_factor = factor;
	w.bytes_written = smart_bytes(last->data_units_written);
	w.probe_bytes = probe_bytes;
	w.host_bytes = w.bytes_written > probe_bytes ? w.bytes_written - probe_bytes : 0;
	w.percent_used = last->percent_used;
	for (size_t i = 1; i < n; i++)
		if (v[i].data_units_written < v[i - 1].data_units_written)
			w.counter_resets++;

	if (c->rated_bytes) {
		w.rated_bytes = c->rated_bytes;
		w.rating_source = WEAR_RATING_CONFIG;
		w.rating_ref = "configuration";
	} else if (wear_builtin_lookup(model, &builtin)) {
		w.rated_bytes = builtin.rated_bytes;
		w.rating_source = WEAR_RATING_BUILTIN;
		w.rating_ref = builtin.ref;
		w.warranty_years = builtin.warranty_years;
		w.dwpd = builtin.dwpd;
	}
	if (w.rated_bytes) {
		w.rated_fraction = u128_to_double(w.bytes_written) / (double)w.rated_bytes;
		w.alert_level = wear_alert_level(w.rated_fraction);
	}

	for (int k = 0; k < _WEAR_WINDOW_MAX; k++)
		rate_in(v, n, now_ms - window_ms[k], now_ms, window_ms[k], &w.rate[k]);
	for (int k = _WEAR_WINDOW_MAX - 1; k >= 0; k--)
		if (w.rate[k].known) {
			w.basis = (enum wear_window)k;
			w.projectable = true;
			break;
		}

	if (w.rated_bytes) {
		w.tbw_reached = w.bytes_written >= (u128)w.rated_bytes;
		if (!w.tbw_reached && w.projectable && w.rate[w.basis].bytes_per_day > 0) {
			double left = (double)w.rated_bytes - u128_to_double(w.bytes_written);
			double days = left / w.rate[w.basis].bytes_per_day;

			if (days < 1e6) /* beyond ~2700 years: "never" */
				w.tbw_date_ms = now_ms + (int64_t)(days * (double)MS_PER_DAY);
		}
	}

	w.used_reached = w.percent_used >= 100;
	w.used_per_day = used_slope(v, n, &t_step);
	if (!w.used_reached && w.used_per_day > 0) {
		double days = (100.0 - last->percent_used) / w.used_per_day;

		if (days < 1e6)
			w.used_date_ms = t_step + (int64_t)(days * (double)MS_PER_DAY);
	}

	/* A baseline needs a week at least; the day must be a full one. */
	if (w.rate[WEAR_30D].known && w.rate[WEAR_30D].span_ms >= 7 * MS_PER_DAY) {
		w.avg_30d_bytes_per_day = w.rate[WEAR_30D].bytes_per_day;
		w.unusual =
			w.rate[WEAR_1D].complete &&
			w.rate[WEAR_1D].bytes >= (u128)c->unusual_min_bytes &&
			u128_to_double(w.rate[WEAR_1D].bytes) > factor * w.avg_30d_bytes_per_day;
	}
	*ret = w;
	return 0;
}

void wear_daily(const struct wear_point *v, size_t n, int64_t now_ms, size_t days, u128 *ret)
{
	int64_t day0 = (now_ms / MS_PER_DAY - (int64_t)days + 1) * MS_PER_DAY;

	memset(ret, 0, days * sizeof(*ret));
	for (size_t i = 1; i < n; i++) {
		int64_t d;

		if (v[i].ts_ms < day0 || v[i].ts_ms > now_ms)
			continue;
		d = (v[i].ts_ms - day0) / MS_PER_DAY;
		ret[d] += smart_bytes(delta_units(&v[i - 1], &v[i]));
	}
}

void wear_alert_conditions(const struct wear_report *w, struct alert_cond ret[_ALERT_RULE_MAX])
{
	static const struct {
		enum alert_rule rule;
		int pct;
		enum alert_severity sev;
	} tbw[] = {
		{ALERT_TBW_80, 80, ALERT_SEV_INFO},
		{ALERT_TBW_90, 90, ALERT_SEV_WARNING},
		{ALERT_TBW_100, 100, ALERT_SEV_CRITICAL},
	};

	memset(ret, 0, sizeof(*ret) * _ALERT_RULE_MAX);
	for (size_t i = 0; w->rated_bytes && i < sizeof(tbw) / sizeof(tbw[0]); i++) {
		struct alert_cond *c = &ret[tbw[i].rule];

		c->known = true;
		c->active = w->rated_fraction * 100.0 >= tbw[i].pct;
		c->severity = tbw[i].sev;
		snprintf(c->message, sizeof(c->message),
			 "%.1f TB written: %.1f%% of the rated %.0f TB (%s), past %d%%",
			 u128_to_double(w->bytes_written) / 1e12, w->rated_fraction * 100.0,
			 (double)w->rated_bytes / 1e12, w->rating_ref, tbw[i].pct);
	}
	if (w->avg_30d_bytes_per_day > 0 && w->rate[WEAR_1D].complete) {
		struct alert_cond *c = &ret[ALERT_WRITE_RATE];

		c->known = true;
		c->active = w->unusual;
		c->severity = ALERT_SEV_WARNING;
		snprintf(c->message, sizeof(c->message),
			 "the last day wrote %.1f GB, %.1fx the 30-day average of %.1f GB a day",
			 u128_to_double(w->rate[WEAR_1D].bytes) / 1e9,
			 u128_to_double(w->rate[WEAR_1D].bytes) / w->avg_30d_bytes_per_day,
			 w->avg_30d_bytes_per_day / 1e9);
	}
}
