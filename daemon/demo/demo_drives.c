/* SPDX-License-Identifier: MIT */
/*
 * Who the demo drives are (demo.h): their identity, workload, heat, error log
 * and self-tests; demo_backend.c makes them behave, demo_selftest.c runs their
 * self-tests. Pure.
 *
 * Drive 0 is a Samsung 950 PRO without airflow: its temperature swings with its
 * workload every five minutes, light-throttles (TMT1) at each peak and
 * heavy-throttles (TMT2) at every third. Drive 1 is a cool 980 PRO that never
 * throttles, with a Sensor 2 stuck above its WCTEMP (as on a real drive whose
 * Sensor 2 reads 81.8 °C forever while WCTEMP is 74.8 °C): a note, not an
 * alert, and implausible once it has not moved for 6 h. Their demo year adds
 * the rest of issue 11's facts: the 950 PRO's error log fills with benign
 * entries and two media errors, the 980 PRO had a firmware update and three
 * weeks on a degraded link. Both run a short self-test every Sunday and an
 * extended one on the first of each month; once a year the 950 PRO fails
 * one (at the LBA of its media errors) and has one aborted by a reset. Drives 2
 * and up cycle through other models (demo_models[]); demo2 has no Device
 * Self-test.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/demo/demo.h"

#define MB 1000000.0
#define GB 1e9

/* The self-tests a drive ran on its own, as smartd's -s would run them. */
#define DEMO_ST_BOTH "weekly Sun 02:00 short, monthly 1 03:00 extended"

/* Drives 0 and 1, as they always were. */
static const struct dev_demo_drive demo_first[] = {
	{
		.model = "Samsung SSD 950 PRO 512GB",
		.serial = "DEMO950PRO00001",
		.firmware = "2B0QBXX7",
		.vid = 0x144d,
		.link = {80, 4, 80, 4}, /* PCIe 3.0 x4 */
		.wctemp_k = 343,	/* 70 °C */
		.cctemp_k = 353,	/* 80 °C */
		.capacity = 512110190592ULL,
		.rated_bytes = 400e12, /* 400 TBW */
		.write_bps = 2.0 * MB,
		.read_bps = 3.5 * MB,
		.written0 = 40e12,
		.read0 = 61e12,
		.period_s = 300,
		.base_c = 45,
		.amp_c = 26,	   /* peaks at 71 °C: above TMT1 and WCTEMP */
		.heavy_amp_c = 31, /* peaks at 76 °C: above TMT2 */
		.heavy_every = 3,
		.tmt1_c = 68,
		.tmt2_c = 73,
		.sensor_off_c = {+4, -3},
		.sensor_limit_k = {353, 0xffff}, /* sensor 1: 80 °C */
		.power_cycles0 = 212,
		.unsafe_shutdowns = 9,
		.err_log_entries = 14,
		.err_bursts = {3, 5, 2, 4, 6, 3, 4, 2, 5, 3, 6, 4},
		.media_errors = 2, /* 14 + 47 + 2 = 63 entries: all in its 64-entry log */
		.perf = {{1.6 * GB, 2.5 * GB},
			 {1.2 * GB, 1.5 * GB},
			 {12000, 300000},
			 {40000, 110000},
			 0.6 * GB,
			 8 * GB},
		.edstt_min = 10,
		.st_schedule = DEMO_ST_BOTH,
		.st_fail_ms = 1719916800000LL, /* 2024-07-02T10:40Z, then yearly */
		.st_fail_segment = 3,
		.st_fail_lba = DEV_DEMO_MEDIA_LBA, /* where its media errors were */
		.st_reset_ms = 1710865200000LL,	   /* 2024-03-19T16:20Z, then yearly */
		/* Issue 27: the OCP log with uncorrectable reads every 60 days (a
		 * watch verdict), an event log, APST off (it never idles by itself),
		 * the host's thermal management at its throttling points. */
		.ocp = DEMO_OCP_YES,
		.ocp_unc_every_days = 60,
		.pel = true,
		.apst = true,
		.apst_on = false,
		.hctm = true,
		.tmt1_k = 341, /* 68 °C */
		.tmt2_k = 346, /* 73 °C */
	},
	{
		.model = "Samsung SSD 980 PRO 1TB",
		.serial = "DEMO980PRO00002",
		.firmware = "5B2QGXA8",
		.firmware_was = "5B2QGXA7", /* updated in the demo year */
		.vid = 0x144d,
		.link = {160, 4, 160, 4},    /* PCIe 4.0 x4 */
		.link_was = {80, 2, 160, 4}, /* for three weeks of the demo year */
		.wctemp_k = 355,	     /* 82 °C */
		.cctemp_k = 358,	     /* 85 °C */
		.capacity = 1000204886016ULL,
		.rated_bytes = 600e12,
		.write_bps = 1.0 * MB,
		.read_bps = 2.0 * MB,
		.written0 = 12e12,
		.read0 = 20e12,
		.period_s = 420,
		.base_c = 36,
		.amp_c = 9,
		.heavy_amp_c = 9,
		.heavy_every = 0,
		.tmt1_c = 0,
		.tmt2_c = 0,
		.sensor_off_c = {+6, -2},
		.sensor2_stuck_k = 357, /* 83.85 °C, WCTEMP 81.85 °C */
		.sensor_limit_k = {0xffff, 0xffff},
		.power_cycles0 = 41,
		.unsafe_shutdowns = 2,
		.err_log_entries = 0,
		.perf = {{3.0 * GB, 7.0 * GB},
			 {3.0 * GB, 5.0 * GB},
			 {18000, 600000},
			 {50000, 550000},
			 1.6 * GB,
			 24 * GB},
		.edstt_min = 12,
		.st_schedule = DEMO_ST_BOTH,
		/* Issue 27: a C0h page of its own (not the OCP GUID: ignored), an
		 * event log, APST on, HCTM supported but not set. */
		.ocp = DEMO_OCP_VENDOR,
		.pel = true,
		.apst = true,
		.apst_on = true,
		.hctm = true,
	},
};

/*
 * The models drives 2 … 63 take in turn, with their data sheets' thresholds,
 * capacities and endurance (TBW; the Samsung ones as in wear.c's table). Each
 * drive varies its template's workload, wear and temperature (see demo_vary()).
 */
static const struct {
	const char *tag; /* serial prefix after "DEMO" */
	struct dev_demo_drive d;
} demo_models[] = {
	{"970EVO",
	 {.model = "Samsung SSD 970 EVO Plus 1TB",
	  .firmware = "2B2QEXM7",
	  .vid = 0x144d,
	  .wctemp_k = 358,
	  .cctemp_k = 358,
	  .capacity = 1000204886016ULL,
	  .rated_bytes = 600e12,
	  .write_bps = 0.8 * MB,
	  .read_bps = 1.6 * MB,
	  .base_c = 38,
	  .amp_c = 8,
	  .sensor_off_c = {+5, -1},
	  .perf = {{2.0 * GB, 3.5 * GB},
		   {1.8 * GB, 3.3 * GB},
		   {15000, 480000},
		   {45000, 550000},
		   1.0 * GB,
		   42 * GB},
	  .edstt_min = 8}},
	{"SN850X",
	 {.model = "WD_BLACK SN850X 2000GB",
	  .firmware = "620331WD",
	  .vid = 0x15b7,
	  .wctemp_k = 363,
	  .cctemp_k = 367,
	  .capacity = 2000398934016ULL,
	  .rated_bytes = 1200e12,
	  .write_bps = 1.5 * MB,
	  .read_bps = 3.0 * MB,
	  .base_c = 41,
	  .amp_c = 10,
	  .sensor_off_c = {+7, -2},
	  .perf = {{3.2 * GB, 7.3 * GB},
		   {3.0 * GB, 6.6 * GB},
		   {20000, 800000},
		   {60000, 1100000},
		   1.5 * GB,
		   150 * GB},
	  .edstt_min = 12}},
	{"P5PLUS",
	 {.model = "CT1000P5PSSD8",
	  .firmware = "P7CR402",
	  .vid = 0xc0a9,
	  .wctemp_k = 353,
	  .cctemp_k = 358,
	  .capacity = 1000204886016ULL,
	  .rated_bytes = 600e12,
	  .write_bps = 0.9 * MB,
	  .read_bps = 1.5 * MB,
	  .base_c = 40,
	  .amp_c = 9,
	  .sensor_off_c = {+4, -2},
	  .perf = {{2.2 * GB, 6.6 * GB},
		   {2.0 * GB, 5.0 * GB},
		   {14000, 630000},
		   {42000, 700000},
		   1.1 * GB,
		   100 * GB},
	  .edstt_min = 10}},
	{"950PRO",
	 {.model = "Samsung SSD 950 PRO 256GB",
	  .firmware = "2B0QBXX7",
	  .vid = 0x144d,
	  .wctemp_k = 343,
	  .cctemp_k = 353,
	  .capacity = 256060514304ULL,
	  .rated_bytes = 200e12,
	  .write_bps = 1.2 * MB,
	  .read_bps = 2.0 * MB,
	  .period_s = 360,
	  .base_c = 46,
	  .amp_c = 25,
	  .heavy_amp_c = 30,
	  .heavy_every = 4,
	  .tmt1_c = 68,
	  .tmt2_c = 73,
	  .sensor_off_c = {+4, -3},
	  .perf = {{1.5 * GB, 2.2 * GB},
		   {0.9 * GB, 0.9 * GB},
		   {11000, 270000},
		   {38000, 85000},
		   0.5 * GB,
		   4 * GB},
	  .edstt_min = 10}},
	{"660P",
	 {.model = "INTEL SSDPEKNW010T8",
	  .firmware = "002C",
	  .vid = 0x8086,
	  .wctemp_k = 350,
	  .cctemp_k = 353,
	  .capacity = 1024209543168ULL,
	  .rated_bytes = 200e12,
	  .write_bps = 0.4 * MB,
	  .read_bps = 1.0 * MB,
	  .base_c = 35,
	  .amp_c = 7,
	  .sensor_off_c = {+3, 0},
	  .perf = {{1.0 * GB, 1.8 * GB},
		   {0.8 * GB, 1.8 * GB},
		   {9000, 150000},
		   {30000, 220000},
		   0.1 * GB,
		   24 * GB},
	  .edstt_min = 6}},
	{"P44PRO",
	 {.model = "SOLIDIGM SSDPFKKW020X7",
	  .firmware = "001C",
	  .vid = 0x025e,
	  .wctemp_k = 355,
	  .cctemp_k = 358,
	  .capacity = 2048408248320ULL,
	  .rated_bytes = 1200e12,
	  .write_bps = 1.2 * MB,
	  .read_bps = 2.4 * MB,
	  .base_c = 39,
	  .amp_c = 9,
	  .sensor_off_c = {+5, -2},
	  .perf = {{2.8 * GB, 7.0 * GB},
		   {2.6 * GB, 6.5 * GB},
		   {17000, 1000000},
		   {55000, 900000},
		   1.3 * GB,
		   200 * GB},
	  .edstt_min = 14}},
	{"XG6",
	 {.model = "KXG60ZNV1T02 KIOXIA",
	  .firmware = "AGGA4104",
	  .vid = 0x1e0f,
	  .wctemp_k = 351,
	  .cctemp_k = 355,
	  .capacity = 1024209543168ULL,
	  .rated_bytes = 800e12,
	  .write_bps = 0.7 * MB,
	  .read_bps = 2.2 * MB,
	  .base_c = 37,
	  .amp_c = 8,
	  .sensor_off_c = {+4, -1},
	  .perf = {{1.8 * GB, 3.2 * GB},
		   {1.4 * GB, 2.9 * GB},
		   {13000, 355000},
		   {40000, 365000},
		   0.9 * GB,
		   16 * GB},
	  .edstt_min = 9}},
	{"990PRO",
	 {.model = "Samsung SSD 990 PRO 2TB",
	  .firmware = "4B2QJXD7",
	  .vid = 0x144d,
	  .wctemp_k = 355,
	  .cctemp_k = 358,
	  .capacity = 2000398934016ULL,
	  .rated_bytes = 1200e12,
	  .write_bps = 1.4 * MB,
	  .read_bps = 3.2 * MB,
	  .base_c = 40,
	  .amp_c = 10,
	  .sensor_off_c = {+6, -2},
	  .perf = {{3.5 * GB, 7.4 * GB},
		   {3.0 * GB, 6.9 * GB},
		   {22000, 1200000},
		   {80000, 1550000},
		   1.5 * GB,
		   216 * GB},
	  .edstt_min = 15}},
	{"980PRO",
	 {.model = "Samsung SSD 980 PRO 1TB",
	  .firmware = "5B2QGXA7",
	  .vid = 0x144d,
	  .wctemp_k = 355,
	  .cctemp_k = 358,
	  .capacity = 1000204886016ULL,
	  .rated_bytes = 600e12,
	  .write_bps = 1.0 * MB,
	  .read_bps = 2.0 * MB,
	  .base_c = 37,
	  .amp_c = 9,
	  .sensor_off_c = {+6, -2},
	  .perf = {{3.0 * GB, 7.0 * GB},
		   {3.0 * GB, 5.0 * GB},
		   {18000, 600000},
		   {50000, 550000},
		   1.6 * GB,
		   24 * GB},
	  .edstt_min = 12}},
	{"970PRO",
	 {.model = "Samsung SSD 970 PRO 512GB",
	  .firmware = "1B2QEXP7",
	  .vid = 0x144d,
	  .wctemp_k = 358,
	  .cctemp_k = 358,
	  .capacity = 512110190592ULL,
	  .rated_bytes = 600e12,
	  .write_bps = 1.1 * MB,
	  .read_bps = 2.5 * MB,
	  .base_c = 42,
	  .amp_c = 11,
	  .sensor_off_c = {+5, -3},
	  .perf = {{2.0 * GB, 3.5 * GB},
		   {1.8 * GB, 2.3 * GB},
		   {15000, 370000},
		   {55000, 500000},
		   2.3 * GB,
		   512 * GB},
	  .edstt_min = 8}},
};

#define N_FIRST	 (sizeof(demo_first) / sizeof(demo_first[0]))
#define N_MODELS (sizeof(demo_models) / sizeof(demo_models[0]))

/* A number in [0, 1) from @i and @salt (splitmix64). */
static double unit(uint64_t i, uint64_t salt)
{
	return dev_demo_unit(i * 0x9e3779b97f4a7c15ULL + salt * 0xd1b54a32d192ed03ULL);
}

/* Drive @i >= 2: its model's template with its own serial, workload, wear and heat. */
static void demo_vary(size_t i, struct dev_demo_drive *ret)
{
	size_t k = (i - N_FIRST) % N_MODELS;
	struct dev_demo_drive d = demo_models[k].d;
	double load = 0.3 + 1.7 * unit(i, 1);

	snprintf(d.serial, sizeof(d.serial), "DEMO%s%05zu", demo_models[k].tag, i + 1);
	d.write_bps *= load;
	d.read_bps *= 0.5 + 1.5 * unit(i, 2);
	/* Lifetime writes at the epoch: 1 % to 60 % of the rating. */
	d.written0 = d.rated_bytes * (0.01 + 0.59 * unit(i, 3));
	d.read0 = d.written0 * (1.2 + unit(i, 4));
	d.base_c += -4 + 8 * unit(i, 5);
	if (!d.period_s)
		d.period_s = 300 + 240 * unit(i, 6);
	if (!d.heavy_amp_c)
		d.heavy_amp_c = d.amp_c;
	d.power_cycles0 = 20 + (uint32_t)(400 * unit(i, 7));
	d.unsafe_shutdowns = (uint32_t)(12 * unit(i, 8));
	d.err_log_entries = unit(i, 9) < 0.2 ? (uint32_t)(30 * unit(i, 10)) : 0;
	/* PCIe 4.0 x4 for the Gen4 models, 3.0 x4 for the others; the first SN850X
	 * (demo3) trained at 3.0 x2 in a slot that shares its lanes: link_degraded. */
	bool gen4 = strstr("SN850X P5PLUS P44PRO 990PRO 980PRO", demo_models[k].tag) != NULL;
	unsigned max = gen4 ? 160 : 80;
	d.link = (struct nvme_pcie_link){max, 4, max, 4};
	if (i == N_FIRST + 1)
		d.link = (struct nvme_pcie_link){80, 2, max, 4};
	/* Self-tests: demo2 has no Device Self-test (OACS bit 4 clear); the others
	 * ran both kinds on their own, only an extended one a month, or none yet. */
	double st = unit(i, 11);
	d.no_selftest = i == N_FIRST;
	if (d.no_selftest)
		d.edstt_min = 0;
	d.st_schedule = d.no_selftest ? ""
			: st < 0.5    ? DEMO_ST_BOTH
			: st < 0.75   ? "monthly 15 04:00 extended"
				      : "";
	/* Issue 27: every third drive has the OCP log, half an event log, most APST. */
	d.ocp = i % 3 == 2 ? DEMO_OCP_YES : DEMO_OCP_REFUSED;
	d.pel = unit(i, 12) < 0.5;
	d.apst = unit(i, 13) < 0.8;
	d.apst_on = d.apst && unit(i, 14) < 0.8;
	*ret = d;
}

int dev_demo_drive(size_t index, struct dev_demo_drive *ret)
{
	if (index >= DEV_DEMO_MAX)
		return -ENODEV;
	if (index < N_FIRST)
		*ret = demo_first[index];
	else
		demo_vary(index, ret);
	return 0;
}

bool dev_demo_name_is(const char *name)
{
	if (!name || strncmp(name, "demo", 4) != 0 || !name[4])
		return false;
	for (const char *p = name + 4; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}
