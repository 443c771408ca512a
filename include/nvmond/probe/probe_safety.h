/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * What keeps a probe from losing data or wearing the drive out.
 *
 * Decisions are pure (probe_gate(), probe_abort_check(), probe_raw_verdict()):
 * they take numbers and say go / skip / refuse with a reason. The I/O that
 * gathers those numbers and opens targets is separate and takes the sysfs root
 * and mountinfo path, so tests can point it at the real system or a fixture.
 */

#define PROBE_REASON_MAX	  256
#define PROBE_FILE_NAME		  "nvmond-probe.dat"
#define PROBE_DEFAULT_RATED_BYTES 150000000000000ull /* 150 TBW: a small drive's rating */

/**
 * probe_reasonf() - Why a probe is refused, into @ret, cut to PROBE_REASON_MAX bytes
 * (the one formatter of the reasons probe_safety.c and probe_file.c give).
 */
void probe_reasonf(char ret[PROBE_REASON_MAX], const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct probe_budget {
	uint64_t day, month; /* bytes the probes may write per UTC day / per 30 days */
};

/**
 * probe_budget_default() - A small share of the rated endurance @rated_bytes
 * (0: PROBE_DEFAULT_RATED_BYTES): 0.1 % of it per 30 days (6 % over five years),
 * and a quarter of that per day.
 */
void probe_budget_default(uint64_t rated_bytes, struct probe_budget *ret);

struct cfg_device;

/**
 * probe_budget_for() - The write budget of the drive @model with settings @cd:
 * probe_budget_day / probe_budget_month where set, else probe_budget_default() of
 * its rated endurance as everywhere else: rated_tbw, else the built-in table's
 * rating of @model (wear_builtin_rating()), else PROBE_DEFAULT_RATED_BYTES.
 */
void probe_budget_for(const struct cfg_device *cd, const char *model, struct probe_budget *ret);

enum probe_verdict {
	PROBE_GO,
	PROBE_SKIP_BUSY,   /* foreground I/O in the last minute */
	PROBE_SKIP_HOT,	   /* hotter than WCTEMP minus the margin */
	PROBE_OVER_BUDGET, /* no write budget left today / this month */
};

struct probe_gate_input {
	bool scheduled; /* busy only stops scheduled probes */
	bool writes;	/* the preset writes */
	struct probe_budget budget;
	uint64_t used_day, used_month; /* probe bytes written so far */
	bool busy_known;
	double busy_iops, busy_bps; /* foreground over the last minute */
	double busy_max_iops, busy_max_bps;
	uint16_t temp_k, wctemp_k; /* 0 = not reported */
	uint16_t margin_k;
};

/**
 * probe_busy() - The busy rule: foreground I/O over the last minute (@known:
 * measured) above @max_iops IO/s or @max_bps bytes/s. Scheduled probes skip a
 * busy drive, scheduled self-tests too, and a cache-recovery burst waits.
 */
bool probe_busy(bool known, double iops, double bps, double max_iops, double max_bps);

/**
 * probe_gate() - Whether a probe may start: the budget first (it lasts), then
 * the temperature, then (scheduled probes) foreground I/O.
 * @ret_reason: a sentence for the user (PROBE_REASON_MAX)
 * @ret_allowed: bytes it may write (the smaller of what is left today and
 * this month); written on PROBE_GO
 * Return: the verdict.
 */
enum probe_verdict probe_gate(const struct probe_gate_input *in, uint64_t *ret_allowed,
			      char ret_reason[PROBE_REASON_MAX]);

#define PROBE_LEASE_MIN (64ull << 20)

/**
 * probe_lease_next() - The write lease to record when a write would pass the
 * last one: @want plus about a second of writes at @rate_bps (at least
 * PROBE_LEASE_MIN), never past @cap (the run's reservation). A crash then
 * leaves at most that second charged and unwritten.
 */
uint64_t probe_lease_next(uint64_t want, uint64_t cap, double rate_bps);

/** probe_verdict_name() - "go", "busy", "hot", "over-budget". */
const char *probe_verdict_name(enum probe_verdict v);

/**
 * probe_abort_check() - Whether a running probe must stop, from one check
 * interval: block-device sectors moved (@dev_sectors) against the probe's own
 * (@probe_sectors), and the temperature. Foreground I/O is what the device did
 * beyond the probe: more than max(8 MiB, 10 % of the probe's) per interval.
 * Return: 0 go on, else 1 with @ret_reason filled.
 */
int probe_abort_check(uint64_t dev_sectors, uint64_t probe_sectors, uint16_t temp_k,
		      uint16_t wctemp_k, char ret_reason[PROBE_REASON_MAX]);

/* /sys/block/<name>/stat, summed over both directions. */
struct probe_diskstat {
	uint64_t ios, sectors;
};

/** probe_diskstat_read() - Return: 0, or negative errno. */
int probe_diskstat_read(const char *sysfs, const char *name, struct probe_diskstat *ret);

/**
 * probe_drive_diskstat() - The I/O of a whole drive: /sys/block stat summed
 * over every namespace of controller @ctrl (partitions are counted in their
 * disk's). Return: 0, -ENOENT (no namespace), or negative errno.
 */
int probe_drive_diskstat(const char *sysfs, const char *ctrl, struct probe_diskstat *ret);

/**
 * probe_fs_on_device() - Whether the block device @dev (a filesystem's st_dev)
 * lives on the controller or disk @ctrl ("nvme0", "vda"): its sysfs path goes
 * through @ctrl, or every slave of it (dm, md) does.
 * Return: 1 yes, 0 no (@ret_reason filled), negative errno.
 */
int probe_fs_on_device(const char *sysfs, dev_t dev, const char *ctrl,
		       char ret_reason[PROBE_REASON_MAX]);

/* What the system says about a raw namespace. */
struct probe_raw_facts {
	unsigned partitions, holders;
	bool mounted; /* it, or a partition of it, is in mountinfo */
	char mountpoint[256];
};

/**
 * probe_raw_facts_read() - Gather the facts about block device @name.
 * Return: 0, or negative errno (-ENOENT: no such block device).
 */
int probe_raw_facts_read(const char *sysfs, const char *mountinfo, const char *name,
			 struct probe_raw_facts *ret);

/**
 * probe_raw_verdict() - A raw namespace is only read, unless @destructive and
 * it has no partition, no holder and nothing mounted.
 * Return: 0 allowed, -EPERM refused with @ret_reason filled.
 */
int probe_raw_verdict(const struct probe_raw_facts *f, const char *name, bool wants_write,
		      bool destructive, char ret_reason[PROBE_REASON_MAX]);
