/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/dev/dev.h"
#include "nvmond/decode/errlog.h"
#include "nvmond/dev/nvme_hwinfo.h"
#include "nvmond/decode/sample.h"
#include "nvmond/decode/selftest.h"
#include "nvmond/decode/smart.h"

struct dev_backend;

/*
 * The simulated demo drives (demo_drives.c: who each one is; demo_backend.c: how it
 * behaves; demo_selftest.c: its self-tests). Drive 0 is a hot Samsung 950 PRO,
 * drive 1 a cool 980 PRO; drives 2 … 63 are other models (970 EVO Plus, WD
 * SN850X, Crucial P5 Plus, Intel, Solidigm, Kioxia, …) with workloads and
 * temperatures varied per drive. Pure: every value is a function of the
 * drive's index and of the time asked for (but for the self-tests the demo
 * backend was told to run).
 */
#define DEV_DEMO_MAX	 64
#define DEV_DEMO_DEFAULT 2

#define DEV_DEMO_EPOCH_MS 1704067200000LL /* 2024-01-01T00:00:00Z: the drives' "power on" */

/* A demo drive's short self-test takes this long (its extended one EDSTT). */
#define DEV_DEMO_ST_SHORT_MIN 2
/* The 950 PRO's failed and reset-aborted extended tests come back this often. */
#define DEV_DEMO_ST_PERIOD_MS (365 * 86400000LL)

/* The demo year's error log (demo_year.h): a burst of benign entries a month,
 * and the media entries after this many bursts (about day 200 of the year). */
#define DEV_DEMO_ERR_MONTHS  12
#define DEV_DEMO_MEDIA_AFTER 7
#define DEV_DEMO_MEDIA_LBA   0x2b0c418 /* the first media entry's LBA (dev_demo_error()) */

/* The engine of a probe run on a demo drive, as it is stored (probe_demo.c, demo_backfill.c). */
#define DEV_DEMO_ENGINE "demo"

/* How a drive's probes go (probe_demo.c): datasheet-like figures. */
struct dev_demo_perf {
	double seq_read[2], seq_write[2]; /* bytes/s at QD1, QD8 */
	double rnd_read[2], rnd_write[2]; /* IOPS at QD1, QD32 */
	double native_write;		  /* bytes/s once the write cache is full */
	double cache_bytes;
};

/*
 * The demo drives' write cache after a cliff (probe_demo.c, demo_year_probes.c):
 * idle time folds the cached data into native cells, a full cache in
 * DEV_DEMO_FOLD_MS. Until the fold is done, the drive shares itself between
 * folding and the host: a write into the cache runs at the native rate plus
 * the folded fraction of the difference to its fast rate, and what it writes
 * into the cache is more to fold. A cache-recovery study's bursts of a tenth
 * of the cache on a 980 PRO (demo1) after 5, 10, 20, 40 min idle run at about
 * 40, 42, 52, 80 % of the rate before the cliff, the one after 60 min at the
 * full rate: the seed's "full speed after 40, 50 or 60 idle minutes".
 */
#define DEV_DEMO_FOLD_MS (40 * 60 * 1000LL)

/**
 * dev_demo_cache_rate() - The rate of a write into the cache while it folds.
 * @fast: the drive's rate into an idle cache (bytes/s)
 * @native: its rate once the cache is full
 * @folded: how much of the fold is done, 0 … 1 (1: none pending)
 *
 * Return: bytes/s; @fast when @fast is not above @native (random writes).
 */
static inline double dev_demo_cache_rate(double fast, double native, double folded)
{
	if (fast <= native)
		return fast;
	if (folded < 0)
		folded = 0;
	return native + (fast - native) * (folded > 1 ? 1 : folded);
}

struct dev_demo_drive {
	char model[41], serial[21], firmware[9];
	uint16_t vid;
	struct nvme_pcie_link link; /* as sysfs would show it */
	uint16_t wctemp_k, cctemp_k;
	uint64_t capacity;
	double rated_bytes; /* endurance, drives percent_used */
	/* workload: writes and reads oscillate between 0.3 and 1.7 × the mean rate */
	double write_bps, read_bps;
	double written0, read0; /* bytes already written / read at the epoch */
	/* temperature: base + amp × (1 - cos)/2 over each period; every Nth peak hotter */
	double period_s, base_c, amp_c, heavy_amp_c;
	int heavy_every;       /* 0 = never */
	double tmt1_c, tmt2_c; /* thermal management thresholds (0 = no throttling) */
	double sensor_off_c[2];
	uint16_t sensor2_stuck_k; /* Sensor 2 reads this, always; 0 = it follows the drive */
	/* Get Features 04h over-temperature thresholds of sensors 1-2 (0 or FFFFh = unset) */
	uint16_t sensor_limit_k[2];
	uint32_t power_cycles0, unsafe_shutdowns;
	/*
	 * The error log, oldest first (dev_demo_error()): err_log_entries benign
	 * entries logged before the demo year, err_bursts[m] more in its month m
	 * (tools asking for what the drive does not have), and media_errors entries
	 * of one bad read after DEV_DEMO_MEDIA_AFTER bursts, which the health log's
	 * media_errors counts too. The live drive has logged them all.
	 */
	uint32_t err_log_entries;
	uint8_t err_bursts[DEV_DEMO_ERR_MONTHS];
	uint8_t media_errors;
	/* Facts that changed in the demo year: the firmware ran firmware_was until
	 * an update ("" = never updated), and the link ran at link_was for three
	 * weeks (all 0 = never) before it came back to @link. */
	char firmware_was[9];
	struct nvme_pcie_link link_was;
	struct dev_demo_perf perf;
	/*
	 * Device Self-test (demo_selftest.c). no_selftest: OACS bit 4 clear, the
	 * command and log 06h refused. edstt_min: Identify's EDSTT, and what an
	 * extended test takes. st_schedule: the tests something other than
	 * nvmond (smartd, say) ran since the epoch, in selftest_sched syntax, in
	 * UTC ("" = none); they all pass. st_fail_ms: the start of an extended
	 * test, started by hand, that fails segment st_fail_segment at LBA
	 * st_fail_lba of namespace 1 (Unrecovered Read Error) at 60 % of its time,
	 * again every DEV_DEMO_ST_PERIOD_MS, so that any year holds one;
	 * st_reset_ms likewise one aborted by a controller level reset after
	 * 4 minutes (0 = none).
	 */
	bool no_selftest;
	uint16_t edstt_min;
	const char *st_schedule;
	int64_t st_fail_ms, st_reset_ms;
	uint8_t st_fail_segment;
	uint64_t st_fail_lba;
	/*
	 * Issue 27 (demo_logs.c). ocp: what the drive answers to log C0h
	 * (DEMO_OCP_*); ocp_unc_every_days: its uncorrectable reads (and one bad
	 * block) rise every so many days since the epoch (0 = never). pel: it
	 * keeps a Persistent Event Log (LPA bit 4). apst: APSTA set; apst_on: the
	 * host enabled it. hctm: HCTMA set; tmt1_k/tmt2_k what the host set (0 =
	 * off).
	 */
	uint8_t ocp;
	uint16_t ocp_unc_every_days;
	bool pel, apst, apst_on, hctm;
	uint16_t tmt1_k, tmt2_k;
};

enum {
	DEMO_OCP_REFUSED, /* Invalid Log Page, as a client drive answers */
	DEMO_OCP_YES,	  /* the OCP page */
	DEMO_OCP_VENDOR,  /* a page of its own under C0h: another GUID */
};

/**
 * dev_demo_unit() - A number in [0, 1) from @x: splitmix64's finalizer, the
 * demo's one source of variety (the live drives and the demo year alike).
 */
static inline double dev_demo_unit(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return (double)(x >> 11) / 9007199254740992.0;
}

/**
 * dev_demo_drive() - Demo drive @index (0 … DEV_DEMO_MAX - 1).
 * Return: 0, or -ENODEV past the last one.
 */
int dev_demo_drive(size_t index, struct dev_demo_drive *ret);

/**
 * dev_demo_open() - Two simulated drives (see demo_backend.c), a pure function of time.
 * Return: 0, or negative errno.
 */
int dev_demo_open(struct dev_backend **ret);

/**
 * dev_demo_open_n() - @n simulated drives, demo0 … demo<n-1> (see demo.h).
 * Return: 0, -EINVAL unless 1 <= @n <= DEV_DEMO_MAX, or negative errno.
 */
int dev_demo_open_n(size_t n, struct dev_backend **ret);

/** dev_demo_state() - The health log of @d at @now_ms (wall-clock unix ms). */
void dev_demo_state(const struct dev_demo_drive *d, int64_t now_ms, struct smart_log *ret);

/** dev_demo_errors() - num_err_log_entries of @d: every entry its log counts. */
uint64_t dev_demo_errors(const struct dev_demo_drive *d);

/**
 * dev_demo_error() - Entry @count (1 … dev_demo_errors()) of @d's error log, a
 * function of the count alone, so the live log and the demo year agree: the
 * media entries are Unrecovered Read Errors on I/O queue 2 of namespace 1 at
 * neighbouring LBAs; every other entry an admin command the controller refused
 * (Invalid Log Page, Invalid Field in Command). Past the last one: empty.
 */
void dev_demo_error(const struct dev_demo_drive *d, uint64_t count, struct errlog_entry *ret);

/** dev_demo_name_is() - Whether @name is a demo drive's controller name ("demo0" …). */
bool dev_demo_name_is(const char *name);

/*
 * The demo backend names its drives; only this library reads those names.
 * Whoever else needs to know about a demo drive asks the backend's
 * capabilities (dev.h DEV_CAP_*) and then one of these.
 */

/**
 * dev_demo_index() - The demo drive under controller @name ("demo1": 1).
 * Return: 0 with *@ret, or -ENODEV for a name that is no demo drive's.
 */
int dev_demo_index(const char *name, size_t *ret);

/**
 * dev_demo_find() - The demo drive of serial @serial, looked up by identity as
 * a real drive's controller is in sysfs: its index, its controller's name and
 * its path as the scan names them ("demo1", "demo:1").
 * Return: 0, or -ENODEV when no demo drive has that serial.
 */
int dev_demo_find(const char *serial, size_t *ret_index, char ret_name[DEV_NAME_MAX],
		  char ret_path[DEV_NAME_MAX + 8]);

/**
 * dev_demo_selftest_schedule() - The self-test schedule demo drive @name runs
 * on its own (st_schedule, selftest_sched syntax), which the self-test service
 * takes over where none is configured (dev_demo_selftest_handover()).
 * Return: the schedule (static), or NULL for none or no such drive.
 */
const char *dev_demo_selftest_schedule(const char *name);

/* One self-test a demo drive ran: when it started and ended, and its result. */
struct demo_selftest {
	int64_t started_ms, ended_ms;
	struct selftest_result r; /* poh: the drive's power-on hours at ended_ms */
	bool scheduled;		  /* a test of st_schedule (else st_fail_ms, st_reset_ms) */
};

/* The environment variable naming the demo backend's hang file (a test hook). */
#define DEV_DEMO_HANG_ENV "NVMOND_DEMO_HANG"

/**
 * dev_demo_hang_wait() - Block while the file $NVMOND_DEMO_HANG names demo
 * drive @name on a line: every command to a demo drive calls it first, so a
 * test can make one controller stop answering (issue 15) and answer again by
 * removing the line. Returns at once when the variable is not set.
 */
void dev_demo_hang_wait(const char *name);

/* The environment variable naming the demo backend's busy file (a test hook). */
#define DEV_DEMO_BUSY_ENV "NVMOND_DEMO_BUSY"

/**
 * dev_demo_foreground() - Foreground I/O on demo drive @name now, as a test
 * asks through the file $NVMOND_DEMO_BUSY: its "NAME IOPS MBPS" lines (none for
 * the drive, or no file: 0). The demo drives have no block device whose I/O
 * the probes' busy rule could read; this is the only way to make one busy.
 * Return: 0 with *@ret_iops and *@ret_bps; -ENOENT when the variable is not
 * set (not known, as for a drive without diskstats); -EOPNOTSUPP for another
 * backend.
 */
int dev_demo_foreground(struct dev_backend *b, const char *name, double *ret_iops, double *ret_bps);

/**
 * dev_demo_selftest_handover() - From @at_ms on, demo drive @name (of the
 * demo backend @b) runs no self-test of its own schedule: the daemon runs that
 * schedule instead (the self-test service, for a demo drive whose schedule is
 * not configured). Its history before @at_ms stays as it was.
 * Return: 0, -EOPNOTSUPP for another backend, -ENODEV for no such drive.
 */
int dev_demo_selftest_handover(struct dev_backend *b, const char *name, int64_t at_ms);

/**
 * demo_selftest_history() - The self-tests demo drive @d ran on its own
 * (st_schedule, st_fail_ms, st_reset_ms) that ended after @from_ms and at or
 * before @to_ms, oldest first: what its Device Self-test log showed, for a
 * backfill. Pure: tests the demo backend was sent (dev_selftest_start()) are
 * not in it. Any window of DEV_DEMO_ST_PERIOD_MS (a year: a backfill asks
 * for (now - DEV_DEMO_ST_PERIOD_MS, now]) that ends after July 2025 holds the
 * 950 PRO's failed test exactly once.
 * Return: the number written to @ret, at most @max (the oldest ones when the
 * window holds more).
 */
size_t demo_selftest_history(const struct dev_demo_drive *d, int64_t from_ms, int64_t to_ms,
			     struct demo_selftest *ret, size_t max);

/* ---- issue 27: log C0h, the Persistent Event Log, power states (demo_logs.c) ---- */

/** dev_demo_npss() - The power states a demo drive has, 0's based (Identify NPSS). */
#define DEV_DEMO_NPSS 4

/** dev_demo_psd() - Power state @ps's descriptor (the same five on every demo drive). */
void dev_demo_psd(unsigned ps, struct power_state_desc *ret);

/**
 * dev_demo_ocp() - Drive @d's log C0h at @now_ms: the physical media written
 * and read (write amplification rising slowly from 1.1 with its wear), bad
 * blocks and uncorrectable reads rising every ocp_unc_every_days.
 */
void dev_demo_ocp(const struct dev_demo_drive *d, int64_t now_ms, struct ocp_log *ret);

/**
 * dev_demo_unc_rise_after() - When @d's C0h uncorrectable reads next rise at
 * or after @from_ms. Return: unix ms, or 0 for a drive whose never do.
 */
int64_t dev_demo_unc_rise_after(const struct dev_demo_drive *d, int64_t from_ms);

/**
 * dev_demo_ocp_page() - What drive @d answers to log C0h at @now_ms.
 * Return: 0 with the page, or -EOPNOTSUPP where it refuses the log.
 */
int dev_demo_ocp_page(const struct dev_demo_drive *d, int64_t now_ms, uint8_t page[OCP_LOG_SIZE]);

/**
 * dev_demo_power() - The power state of @d at @now_ms (PS0 busy, PS2 quiet,
 * PS3 when its APST is on and the workload rests), and its APST table and
 * HCTM thresholds, as Get Features answers them.
 */
void dev_demo_power(const struct dev_demo_drive *d, int64_t now_ms, struct dev_power *ret);

/* How long before the live drive was first read its thermal excursions start. */
#define DEV_DEMO_PEL_LIVE_BEFORE_MS (2 * 3600 * 1000LL)

/**
 * dev_demo_pel() - Drive @d's Persistent Event Log at @now_ms, whole: its
 * header, then its events oldest first: since the epoch a power-on each
 * power cycle with the timestamp and APST the kernel sets after it and a
 * health snapshot; on demo0 a hardware error in its first month and a
 * firmware commit on day 200; on demo1 a sanitize, a namespace change and a
 * format in its first days; on drives that throttle a thermal excursion each
 * time the live drive passes TMT2, from DEV_DEMO_PEL_LIVE_BEFORE_MS before
 * @live_ms (when this process first read the log: the hours before are the
 * ones nvmond did not watch) on. Every event is at a fixed time, so a log read
 * again holds the same events and more.
 * Return: 0 with *@ret_log (malloc()) of *@ret_len bytes, -EOPNOTSUPP for a
 * drive without one, or -ENOMEM.
 */
int dev_demo_pel(const struct dev_demo_drive *d, size_t index, int64_t now_ms, int64_t live_ms,
		 uint8_t **ret_log, size_t *ret_len);
