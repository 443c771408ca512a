/* SPDX-License-Identifier: MIT */
/*
 * Probe safety: budgets, busy and temperature gates (pure), foreground I/O,
 * and what sysfs and mountinfo say about a target's device (the probe file
 * itself is probe_file.c).
 */
#define _GNU_SOURCE /* O_DIRECT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "nvmond/analysis/wear.h"
#include "nvmond/core/cfg.h"
#include "nvmond/dev/nvme_sysfs.h"
#include "nvmond/probe/probe.h"
#include "nvmond/probe/probe_safety.h"
#include "nvmond/util/units.h"

void probe_reasonf(char ret[PROBE_REASON_MAX], const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ret, PROBE_REASON_MAX, fmt, ap);
	va_end(ap);
}

void probe_budget_default(uint64_t rated_bytes, struct probe_budget *ret)
{
	uint64_t rated = rated_bytes ? rated_bytes : PROBE_DEFAULT_RATED_BYTES;

	ret->month = rated / 1000;
	ret->day = ret->month / 4;
}

void probe_budget_for(const struct cfg_device *cd, const char *model, struct probe_budget *ret)
{
	uint64_t rated = cd->rated_bytes;
	const char *ref;

	/* The built-in table's rating is the drive's rated endurance for the wear
	 * report and /metrics alike; the budget followed rated_tbw only (issue 28 §11). */
	if (!rated && (!model || !wear_builtin_rating(model, &rated, &ref)))
		rated = 0;
	probe_budget_default(rated, ret);
	if (cd->probe_budget_day)
		ret->day = cd->probe_budget_day;
	if (cd->probe_budget_month)
		ret->month = cd->probe_budget_month;
}

uint64_t probe_lease_next(uint64_t want, uint64_t cap, double rate_bps)
{
	uint64_t ahead = rate_bps > (double)PROBE_LEASE_MIN
				 ? rate_bps < 1e18 ? (uint64_t)rate_bps : 1000000000000000000ull
				 : PROBE_LEASE_MIN;
	uint64_t next = want > UINT64_MAX - ahead ? UINT64_MAX : want + ahead;

	return next < cap ? next : cap;
}

const char *probe_verdict_name(enum probe_verdict v)
{
	switch (v) {
	case PROBE_GO:
		return "go";
	case PROBE_SKIP_BUSY:
		return "busy";
	case PROBE_SKIP_HOT:
		return "hot";
	case PROBE_OVER_BUDGET:
		return "over-budget";
	}
	return "?";
}

bool probe_busy(bool known, double iops, double bps, double max_iops, double max_bps)
{
	return known && (iops > max_iops || bps > max_bps);
}

enum probe_verdict probe_gate(const struct probe_gate_input *in, uint64_t *ret_allowed,
			      char ret_reason[PROBE_REASON_MAX])
{
	uint64_t left_day = in->used_day < in->budget.day ? in->budget.day - in->used_day : 0;
	uint64_t left_month =
		in->used_month < in->budget.month ? in->budget.month - in->used_month : 0;
	uint64_t left = left_day < left_month ? left_day : left_month;

	/* Less than one 1 MiB block left is no budget: a write probe would be empty. */
	if (in->writes && left < MiB) {
		probe_reasonf(ret_reason,
			      "write budget used: %" PRIu64 " of %" PRIu64 " MB today, %" PRIu64
			      " of %" PRIu64 " MB in 30 days",
			      in->used_day / 1000000, in->budget.day / 1000000,
			      in->used_month / 1000000, in->budget.month / 1000000);
		return PROBE_OVER_BUDGET;
	}
	if (in->wctemp_k && in->temp_k && in->temp_k + in->margin_k >= in->wctemp_k) {
		probe_reasonf(ret_reason,
			      "drive at %d °C, within %u °C of its warning temperature %d °C",
			      in->temp_k - 273, in->margin_k, in->wctemp_k - 273);
		return PROBE_SKIP_HOT;
	}
	if (in->scheduled && probe_busy(in->busy_known, in->busy_iops, in->busy_bps,
					in->busy_max_iops, in->busy_max_bps)) {
		probe_reasonf(ret_reason, "drive busy: %.0f IO/s, %.1f MB/s over the last minute",
			      in->busy_iops, in->busy_bps / 1e6);
		return PROBE_SKIP_BUSY;
	}
	*ret_allowed = in->writes ? left / MiB * MiB : 0;
	ret_reason[0] = '\0';
	return PROBE_GO;
}

int probe_abort_check(uint64_t dev_sectors, uint64_t probe_sectors, uint16_t temp_k,
		      uint16_t wctemp_k, char ret_reason[PROBE_REASON_MAX])
{
	uint64_t slack = probe_sectors / 10;

	if (slack < 8 * MiB / 512)
		slack = 8 * MiB / 512;
	if (wctemp_k && temp_k >= wctemp_k) {
		probe_reasonf(ret_reason, "drive reached its warning temperature (%d °C)",
			      temp_k - 273);
		return 1;
	}
	if (dev_sectors > probe_sectors + slack) {
		probe_reasonf(ret_reason,
			      "foreground I/O started (%" PRIu64 " MB beyond the probe's own)",
			      (dev_sectors - probe_sectors) * 512 / 1000000);
		return 1;
	}
	return 0;
}

int probe_diskstat_read(const char *sysfs, const char *name, struct probe_diskstat *ret)
{
	char path[PATH_MAX];
	uint64_t f[11] = {0};
	FILE *fp;
	int n;

	snprintf(path, sizeof(path), "%s/class/block/%s/stat", sysfs, name);
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	n = fscanf(fp,
		   "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
		   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10]);
	fclose(fp);
	if (n < 7)
		return -EIO;
	/* reads completed, -, sectors read, -, writes completed, -, sectors written */
	*ret = (struct probe_diskstat){.ios = f[0] + f[4], .sectors = f[2] + f[6]};
	return 0;
}

int probe_drive_diskstat(const char *sysfs, const char *ctrl, struct probe_diskstat *ret)
{
	struct nvme_sysfs_ns v[NVME_SYSFS_NS_MAX];
	struct probe_diskstat sum = {0};
	size_t n = 0;
	int r = nvme_sysfs_ns_list(sysfs, ctrl, v, NVME_SYSFS_NS_MAX, &n);

	if (r < 0)
		return r;
	if (n == 0)
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		struct probe_diskstat d;
		r = probe_diskstat_read(sysfs, v[i].name, &d);
		if (r < 0)
			return r;
		sum.ios += d.ios;
		sum.sectors += d.sectors;
	}
	*ret = sum;
	return 0;
}

/* Whether @name is a path of controller @ctrl to a namespace: nvme<S>c<C>n<N>. */
static bool ns_path_of(const char *name, const char *ctrl)
{
	unsigned sub, c, ns;
	char tail;

	if (sscanf(name, "nvme%uc%un%u%c", &sub, &c, &ns, &tail) != 3)
		return false;
	char want[32];
	snprintf(want, sizeof(want), "nvme%u", c);
	return strcmp(want, ctrl) == 0;
}

/* Whether one component of @path is @ctrl, or a path of it (nvme0c0n1). */
static bool path_through(const char *path, const char *ctrl)
{
	size_t len = strlen(ctrl);

	for (const char *p = path; (p = strchr(p, '/')); p++) {
		const char *c = p + 1, *end = strchrnul(c, '/');
		char comp[64];
		if ((size_t)(end - c) == len && strncmp(c, ctrl, len) == 0)
			return true;
		if ((size_t)(end - c) < sizeof(comp)) {
			snprintf(comp, sizeof(comp), "%.*s", (int)(end - c), c);
			if (ns_path_of(comp, ctrl))
				return true;
		}
	}
	return false;
}

/* A native-multipath namespace head (nvme-subsystem/…/nvme0n1): its paths. */
static bool multipath_through(const char *syspath, const char *ctrl)
{
	char dir[PATH_MAX + 16];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/multipath", syspath);
	d = opendir(dir);
	if (!d)
		return false;
	while ((de = readdir(d)))
		if (ns_path_of(de->d_name, ctrl))
			found = true;
	closedir(d);
	return found;
}

static int on_device_depth(const char *sysfs, const char *syspath, const char *ctrl, int depth)
{
	char slaves[PATH_MAX];
	struct dirent *de;
	int n = 0, r = 1;
	DIR *d;

	if (path_through(syspath, ctrl) || multipath_through(syspath, ctrl))
		return 1;
	/* A partition of a multipath head: ask the disk. */
	char parent[PATH_MAX + 16];
	snprintf(parent, sizeof(parent), "%s/partition", syspath);
	if (access(parent, F_OK) == 0) {
		snprintf(parent, sizeof(parent), "%s", syspath);
		char *slash = strrchr(parent, '/');
		if (slash) {
			*slash = '\0';
			if (multipath_through(parent, ctrl))
				return 1;
		}
	}
	if (depth > 4)
		return 0;
	snprintf(slaves, sizeof(slaves), "%s/slaves", syspath);
	d = opendir(slaves);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char link[PATH_MAX], real[PATH_MAX];
		if (de->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/class/block/%s", sysfs, de->d_name);
		if (!realpath(link, real)) {
			r = 0;
			break;
		}
		n++;
		if (on_device_depth(sysfs, real, ctrl, depth + 1) != 1) {
			r = 0;
			break;
		}
	}
	closedir(d);
	return n > 0 ? r : 0;
}

int probe_fs_on_device(const char *sysfs, dev_t dev, const char *ctrl,
		       char ret_reason[PROBE_REASON_MAX])
{
	char link[PATH_MAX], real[PATH_MAX];

	/* Class directory names appear in every path: never a device's name. */
	if (!ctrl[0] || strchr(ctrl, '/') || strcmp(ctrl, "nvme") == 0 ||
	    strcmp(ctrl, "block") == 0) {
		probe_reasonf(ret_reason, "'%s' is not a controller or disk name", ctrl);
		return 0;
	}
	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sysfs, major(dev), minor(dev));
	if (!realpath(link, real)) {
		probe_reasonf(
			ret_reason,
			"the filesystem (device %u:%u) is not on a block device, so not on %s",
			major(dev), minor(dev), ctrl);
		return 0;
	}
	if (on_device_depth(sysfs, real, ctrl, 0) == 1)
		return 1;
	const char *base = strrchr(real, '/');
	probe_reasonf(ret_reason, "the filesystem is on %s (%u:%u), not on %s",
		      base ? base + 1 : real, major(dev), minor(dev), ctrl);
	return 0;
}

/* mountinfo field 3 is "major:minor" of the mounted device. */
static int mounted_devs(const char *mountinfo, dev_t *devs, size_t n, char *ret_mp, size_t mplen)
{
	char line[4096];
	FILE *fp = fopen(mountinfo, "re");

	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		unsigned maj, mnr;
		char mp[256];
		if (sscanf(line, "%*u %*u %u:%u %*s %255s", &maj, &mnr, mp) != 3)
			continue;
		for (size_t i = 0; i < n; i++)
			if (devs[i] == makedev(maj, mnr)) {
				snprintf(ret_mp, mplen, "%s", mp);
				fclose(fp);
				return 1;
			}
	}
	fclose(fp);
	return 0;
}

static int read_dev(const char *path, dev_t *ret)
{
	unsigned maj, mnr;
	FILE *fp = fopen(path, "re");
	int n;

	if (!fp)
		return -errno;
	n = fscanf(fp, "%u:%u", &maj, &mnr);
	fclose(fp);
	if (n != 2)
		return -EIO;
	*ret = makedev(maj, mnr);
	return 0;
}

int probe_raw_facts_read(const char *sysfs, const char *mountinfo, const char *name,
			 struct probe_raw_facts *ret)
{
	struct probe_raw_facts f = {0};
	char path[PATH_MAX];
	dev_t devs[64];
	size_t n_devs = 0;
	struct dirent *de;
	DIR *d;
	int r;

	if (strchr(name, '/') || name[0] == '.')
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/class/block/%s/dev", sysfs, name);
	r = read_dev(path, &devs[n_devs]);
	if (r < 0)
		return r;
	n_devs++;
	snprintf(path, sizeof(path), "%s/class/block/%s", sysfs, name);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		/* Partitions are subdirectories named after the disk: nvme0n1p1. */
		if (strncmp(de->d_name, name, strlen(name)) != 0 || !de->d_name[strlen(name)])
			continue;
		f.partitions++;
		char dev[PATH_MAX + 300];
		snprintf(dev, sizeof(dev), "%s/%s/dev", path, de->d_name);
		if (n_devs < 64 && read_dev(dev, &devs[n_devs]) == 0)
			n_devs++;
	}
	closedir(d);
	snprintf(path, sizeof(path), "%s/class/block/%s/holders", sysfs, name);
	d = opendir(path);
	if (d) {
		while ((de = readdir(d)))
			if (de->d_name[0] != '.')
				f.holders++;
		closedir(d);
	}
	r = mounted_devs(mountinfo, devs, n_devs, f.mountpoint, sizeof(f.mountpoint));
	if (r < 0)
		return r;
	f.mounted = r > 0;
	*ret = f;
	return 0;
}

int probe_raw_verdict(const struct probe_raw_facts *f, const char *name, bool wants_write,
		      bool destructive, char ret_reason[PROBE_REASON_MAX])
{
	if (!wants_write)
		return 0;
	if (!destructive) {
		probe_reasonf(ret_reason,
			      "%s is a raw namespace: probes only read it unless destructive = yes",
			      name);
		return -EPERM;
	}
	if (f->mounted) {
		probe_reasonf(ret_reason, "%s has a mounted filesystem (%s): refused", name,
			      f->mountpoint);
		return -EPERM;
	}
	if (f->partitions) {
		probe_reasonf(ret_reason, "%s has %u partition(s): refused", name, f->partitions);
		return -EPERM;
	}
	if (f->holders) {
		probe_reasonf(ret_reason, "%s is held by %u device(s) (LVM, RAID, dm): refused",
			      name, f->holders);
		return -EPERM;
	}
	return 0;
}
