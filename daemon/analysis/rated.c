/* SPDX-License-Identifier: MIT */
/*
 * The spec check: rated sequential rates of known models, the statistics of a
 * repeated series and the below-rating rule. Pure: no clock, no I/O.
 */
#define _GNU_SOURCE /* FNM_CASEFOLD */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/analysis/alert.h"
#include "nvmond/analysis/rated.h"
#include "nvmond/util/utf8.h"

/*
 * Rated sequential read and write, MB/s, of models whose manufacturer
 * publishes them: data-sheet figures (the "up to" sequential rates, measured
 * by the manufacturer at 128 KiB and a high queue depth), next to wear.c's
 * endurance table and matched the same way: the Identify model string against
 * an fnmatch(3) pattern, ignoring case, with the capacity part of the model.
 * No two patterns may match one model (tests/unit/analysis/test_rated.c).
 */
struct speed_entry {
	const char *pattern;
	uint32_t read_mbps, write_mbps;
	const char *ref;
};

#define SAMSUNG_950PRO	"Samsung 950 PRO data sheet"
#define SAMSUNG_960PRO	"Samsung 960 PRO data sheet"
#define SAMSUNG_970PRO	"Samsung 970 PRO data sheet"
#define SAMSUNG_970EVOP "Samsung 970 EVO Plus data sheet"
#define SAMSUNG_980	"Samsung 980 data sheet"
#define SAMSUNG_980PRO	"Samsung 980 PRO data sheet"
#define SAMSUNG_990PRO	"Samsung 990 PRO data sheet"
#define SAMSUNG_PM9A3	"Samsung PM9A3 data sheet"
#define WD_SN850X	"WD_BLACK SN850X NVMe SSD product brief"
#define WD_SN850	"WD_BLACK SN850 NVMe SSD product brief"
#define WD_SN770	"WD_BLACK SN770 NVMe SSD product brief"
#define CRUCIAL_P5P	"Crucial P5 Plus SSD product flyer"
#define CRUCIAL_T700	"Crucial T700 SSD product flyer"
#define INTEL_660P	"Intel SSD 660p product brief"
#define SOLIDIGM_P44P	"Solidigm P44 Pro product brief"
#define KIOXIA_XG6	"KIOXIA XG6 product brief"

static const struct speed_entry speeds[] = {
	/* Samsung, consumer */
	{"Samsung SSD 950 PRO 256GB", 2200, 900, SAMSUNG_950PRO},
	{"Samsung SSD 950 PRO 512GB", 2500, 1500, SAMSUNG_950PRO},
	{"Samsung SSD 960 PRO 512GB", 3500, 2100, SAMSUNG_960PRO},
	{"Samsung SSD 960 PRO 1TB", 3500, 2100, SAMSUNG_960PRO},
	{"Samsung SSD 960 PRO 2TB", 3500, 2100, SAMSUNG_960PRO},
	{"Samsung SSD 970 PRO 512GB", 3500, 2300, SAMSUNG_970PRO},
	{"Samsung SSD 970 PRO 1TB", 3500, 2700, SAMSUNG_970PRO},
	{"Samsung SSD 970 EVO Plus 250GB", 3500, 2300, SAMSUNG_970EVOP},
	{"Samsung SSD 970 EVO Plus 500GB", 3500, 3200, SAMSUNG_970EVOP},
	{"Samsung SSD 970 EVO Plus 1TB", 3500, 3300, SAMSUNG_970EVOP},
	{"Samsung SSD 970 EVO Plus 2TB", 3500, 3300, SAMSUNG_970EVOP},
	{"Samsung SSD 980 250GB", 2900, 1300, SAMSUNG_980},
	{"Samsung SSD 980 500GB", 3100, 2600, SAMSUNG_980},
	{"Samsung SSD 980 1TB", 3500, 3000, SAMSUNG_980},
	{"Samsung SSD 980 PRO 250GB", 6400, 2700, SAMSUNG_980PRO},
	{"Samsung SSD 980 PRO 500GB", 6900, 5000, SAMSUNG_980PRO},
	{"Samsung SSD 980 PRO 1TB", 7000, 5000, SAMSUNG_980PRO},
	{"Samsung SSD 980 PRO 2TB", 7000, 5100, SAMSUNG_980PRO},
	{"Samsung SSD 990 PRO 1TB", 7450, 6900, SAMSUNG_990PRO},
	{"Samsung SSD 990 PRO 2TB", 7450, 6900, SAMSUNG_990PRO},
	{"Samsung SSD 990 PRO 4TB", 7450, 6900, SAMSUNG_990PRO},
	/* Samsung PM9A3, U.2 (MZQL2…) */
	{"SAMSUNG MZQL2960*", 6500, 1500, SAMSUNG_PM9A3},
	{"SAMSUNG MZQL21T9*", 6800, 2700, SAMSUNG_PM9A3},
	{"SAMSUNG MZQL23T8*", 6900, 4100, SAMSUNG_PM9A3},
	{"SAMSUNG MZQL27T6*", 6900, 4100, SAMSUNG_PM9A3},
	/* Western Digital: the name the drive reports */
	{"WD_BLACK SN850X 1000GB", 7300, 6300, WD_SN850X},
	{"WD_BLACK SN850X 2000GB", 7300, 6600, WD_SN850X},
	{"WD_BLACK SN850X 4000GB", 7300, 6600, WD_SN850X},
	{"WD_BLACK SN850 500GB", 7000, 4100, WD_SN850},
	{"WD_BLACK SN850 1TB", 7000, 5300, WD_SN850},
	{"WD_BLACK SN850 2TB", 7000, 5100, WD_SN850},
	{"WD_BLACK SN770 250GB", 4000, 2000, WD_SN770},
	{"WD_BLACK SN770 500GB", 5000, 4000, WD_SN770},
	{"WD_BLACK SN770 1TB", 5150, 4900, WD_SN770},
	{"WD_BLACK SN770 2TB", 5150, 4850, WD_SN770},
	/* Crucial: the part number is the model; SSD5 is the heatsink build */
	{"CT500P5PSSD[58]", 6600, 4000, CRUCIAL_P5P},
	{"CT1000P5PSSD[58]", 6600, 5000, CRUCIAL_P5P},
	{"CT2000P5PSSD[58]", 6600, 5000, CRUCIAL_P5P},
	{"CT1000T700SSD[35]", 11700, 9500, CRUCIAL_T700},
	{"CT2000T700SSD[35]", 12400, 11800, CRUCIAL_T700},
	{"CT4000T700SSD[35]", 12400, 11800, CRUCIAL_T700},
	/* Intel, Solidigm, KIOXIA */
	{"INTEL SSDPEKNW010T8", 1800, 1800, INTEL_660P},
	{"INTEL SSDPEKNW020T8", 1800, 1800, INTEL_660P},
	{"SOLIDIGM SSDPFKKW010X7*", 7000, 6500, SOLIDIGM_P44P},
	{"SOLIDIGM SSDPFKKW020X7*", 7000, 6500, SOLIDIGM_P44P},
	{"KXG60ZNV1T02 KIOXIA", 3180, 2960, KIOXIA_XG6},
};

static const struct speed_entry *find(const char *model, size_t *ret_count)
{
	const struct speed_entry *hit = NULL;
	size_t n = 0;

	for (size_t i = 0; model && i < sizeof(speeds) / sizeof(speeds[0]); i++) {
		if (fnmatch(speeds[i].pattern, model, FNM_CASEFOLD) != 0)
			continue;
		if (!hit)
			hit = &speeds[i];
		n++;
	}
	if (ret_count)
		*ret_count = n;
	return hit;
}

bool rated_builtin_lookup(const char *model, struct rated_speed *ret)
{
	const struct speed_entry *e = find(model, NULL);

	if (!e)
		return false;
	*ret = (struct rated_speed){.mbps = {e->read_mbps, e->write_mbps}, .ref = e->ref};
	return true;
}

size_t rated_builtin_matches(const char *model)
{
	size_t n;

	(void)find(model, &n);
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int rated_stats_of(const double *v, size_t n, struct rated_stats *ret)
{
	double s[RATED_STATS_MAX];

	if (n == 0 || n > RATED_STATS_MAX)
		return -EINVAL;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	*ret = (struct rated_stats){
		.n = n,
		.best = s[n - 1],
		.min = s[0],
		.max = s[n - 1],
		.median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2,
	};
	if (n > 1 && ret->median > 0)
		ret->spread = (ret->max - ret->min) / ret->median;
	return 0;
}

/* 2598 → "2,598". */
static void thousands(double v, char *buf, size_t len)
{
	long long x = llround(v);

	if (x >= 1000000)
		snprintf(buf, len, "%lld,%03lld,%03lld", x / 1000000, x / 1000 % 1000, x % 1000);
	else if (x >= 1000)
		snprintf(buf, len, "%lld,%03lld", x / 1000, x % 1000);
	else
		snprintf(buf, len, "%lld", x);
}

char *rated_format(double mbps, uint32_t rated, enum rated_dir d, char *buf, size_t len)
{
	char m[32], r[32];

	thousands(mbps, m, sizeof(m));
	thousands(rated, r, sizeof(r));
	snprintf(buf, len, "%s MB/s %s = %.0f %% of %s rated", m,
		 d == RATED_READ ? "read" : "write", rated ? mbps * 100.0 / rated : 0.0, r);
	return buf;
}

void rated_check(const struct rated_check_input *in, struct rated_verdict *ret)
{
	char part[2][96];
	size_t n_part = 0;

	*ret = (struct rated_verdict){0};
	for (int d = 0; d < _RATED_DIR_MAX; d++) {
		if (in->best_mbps[d] <= 0 || !in->rated_mbps[d])
			continue;
		ret->known = true;
		ret->pct[d] = in->best_mbps[d] * 100.0 / in->rated_mbps[d];
		if (in->runs >= 2 && ret->pct[d] < RATED_BELOW_PCT) {
			ret->below = true;
			rated_format(in->best_mbps[d], in->rated_mbps[d], (enum rated_dir)d,
				     part[n_part++], sizeof(part[0]));
		}
	}
	if (!ret->below)
		return;
	char temp[32] = "temperature unknown";
	if (in->temp_c != INT32_MIN)
		snprintf(temp, sizeof(temp), "%d °C", in->temp_c);
	/* Cut when long (the alert keeps 159 bytes anyway): the return value says so. */
	int len = snprintf(ret->message, sizeof(ret->message),
			   "best of %zu %s runs below %d %% of the rating: %s%s%s; link %s, %s",
			   in->runs, in->preset ? in->preset : "probe", RATED_BELOW_PCT, part[0],
			   n_part > 1 ? ", " : "", n_part > 1 ? part[1] : "",
			   in->link && in->link[0] ? in->link : "unknown", temp);
	(void)len;
}

void rated_alert_condition(const struct rated_verdict *v, struct alert_cond *ret)
{
	*ret = (struct alert_cond){
		.known = v->known, .active = v->below, .severity = ALERT_SEV_INFO};
	/* The alert keeps 159 bytes: cut at a character, never inside "°C". */
	utf8_copy(ret->message, sizeof(ret->message),
		  v->below ? v->message : "the best of the last repeated run reached its rating");
}
