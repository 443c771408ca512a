/* SPDX-License-Identifier: MIT */
/*
 * Probe safety: budgets, gates and leases (tables), and what sysfs and
 * mountinfo say about raw namespaces, on the real system (a mounted device)
 * and on a fixture sysfs tree. The probe file's own refusals are in
 * test_probe_file.c.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../sysfs_fixture.h"
#include "nvmond/core/cfg.h"
#include "nvmond/probe/probe_nsopen.h"
#include "nvmond/probe/probe_safety.h"

#define MiB (1ull << 20)
#define GB  1000000000ull

Test(probe_budget, default_is_a_small_share_of_endurance)
{
	struct probe_budget b;

	probe_budget_default(600 * 1000 * GB, &b); /* 980 PRO 1TB: 600 TBW */
	cr_expect_eq(b.month, 600 * GB);
	cr_expect_eq(b.day, 150 * GB);
	probe_budget_default(0, &b);
	cr_expect_eq(b.month, PROBE_DEFAULT_RATED_BYTES / 1000);
}

/*
 * docs/configuration.md, probe_budget_month: "0 = 0.1 % of the rated endurance (150 TB
 * assumed when not rated)". The rated endurance is rated_tbw, else the built-in table's
 * (issue 28 §11: demo0, a 950 PRO rated 400 TBW in the table, got 150 TB's budget).
 */
Test(probe_budget, for_a_drive_follows_its_rated_endurance)
{
	struct cfg_device cd = {0};
	struct probe_budget b;

	probe_budget_for(&cd, "Samsung SSD 950 PRO 512GB", &b); /* the table: 400 TBW */
	cr_expect_eq(b.month, 400 * GB);
	cr_expect_eq(b.day, 100 * GB);
	probe_budget_for(&cd, "An Unknown SSD 1TB", &b);
	cr_expect_eq(b.month, 150 * GB);
	cr_expect_eq(b.day, 37500000000ull);
	cd.rated_bytes = 1200 * 1000 * GB; /* rated_tbw = 1.2PB wins over the table */
	probe_budget_for(&cd, "Samsung SSD 950 PRO 512GB", &b);
	cr_expect_eq(b.month, 1200 * GB);
	cd.probe_budget_day = 7 * GB; /* each key on its own */
	probe_budget_for(&cd, "Samsung SSD 950 PRO 512GB", &b);
	cr_expect_eq(b.day, 7 * GB);
	cr_expect_eq(b.month, 1200 * GB);
	cd.probe_budget_month = 9 * GB;
	probe_budget_for(&cd, NULL, &b);
	cr_expect_eq(b.day, 7 * GB);
	cr_expect_eq(b.month, 9 * GB);
}

static struct probe_gate_input gate_in(void)
{
	return (struct probe_gate_input){
		.scheduled = true,
		.writes = true,
		.budget = {.day = 10 * GB, .month = 40 * GB},
		.busy_known = true,
		.busy_max_iops = 50,
		.busy_max_bps = 10e6,
		.temp_k = 273 + 40,
		.wctemp_k = 273 + 70,
		.margin_k = 5,
	};
}

Test(probe_budget, gate_enforces_budget_busy_and_temperature)
{
	char why[PROBE_REASON_MAX];
	uint64_t allowed = 0;
	struct probe_gate_input in = gate_in();

	cr_expect_eq(probe_gate(&in, &allowed, why), PROBE_GO);
	cr_expect_eq(allowed, 10 * GB / MiB * MiB);

	in.used_day = 9 * GB;
	cr_expect_eq(probe_gate(&in, &allowed, why), PROBE_GO);
	cr_expect_eq(allowed, 1 * GB / MiB * MiB);
	in.used_day = 10 * GB;
	cr_expect_eq(probe_gate(&in, &allowed, why), PROBE_OVER_BUDGET);
	cr_expect(strstr(why, "budget"), "%s", why);
	in.used_day = 12 * GB; /* over already (a probe overshoots by < 1 block) */
	cr_expect_eq(probe_gate(&in, &allowed, why), PROBE_OVER_BUDGET);
	/* The month runs out before the day does. */
	in.used_day = 0;
	in.used_month = 39.5 * GB;
	cr_expect_eq(probe_gate(&in, &allowed, why), PROBE_GO);
	cr_expect_eq(allowed, (uint64_t)(0.5 * GB) / MiB * MiB);
	in.used_month = 40 * GB;
	cr_expect_eq(probe_gate(&in, &allowed, why), PROBE_OVER_BUDGET);
	/* A read-only preset needs no budget. */
	in.writes = false;
	cr_expect_eq(probe_gate(&in, &allowed, why), PROBE_GO);
	cr_expect_eq(allowed, 0);

	in = gate_in();
	in.temp_k = 273 + 65; /* WCTEMP 70 − margin 5 */
	cr_expect_eq(probe_gate(&in, &allowed, why), PROBE_SKIP_HOT);
	in.temp_k = 273 + 64;
	cr_expect_eq(probe_gate(&in, &allowed, why), PROBE_GO);
	in.temp_k = 0; /* not reported */
	cr_expect_eq(probe_gate(&in, &allowed, why), PROBE_GO);

	in = gate_in();
	in.busy_iops = 51;
	cr_expect_eq(probe_gate(&in, &allowed, why), PROBE_SKIP_BUSY);
	in.busy_iops = 1;
	in.busy_bps = 11e6;
	cr_expect_eq(probe_gate(&in, &allowed, why), PROBE_SKIP_BUSY);
	in.scheduled = false; /* asked for by hand: busy is the user's call */
	cr_expect_eq(probe_gate(&in, &allowed, why), PROBE_GO);
}

Test(probe_budget, abort_on_foreground_io_or_wctemp)
{
	char why[PROBE_REASON_MAX];
	uint64_t s = 2 * GB / 512; /* the probe moved 2 GB in the interval */

	cr_expect_eq(probe_abort_check(s, s, 330, 343, why), 0);
	cr_expect_eq(probe_abort_check(s + s / 20, s, 330, 343, why), 0); /* merges, metadata */
	cr_expect_eq(probe_abort_check(s + s / 5, s, 330, 343, why), 1);
	cr_expect(strstr(why, "foreground"), "%s", why);
	cr_expect_eq(probe_abort_check(4 * MiB / 512, 0, 330, 343, why), 0);
	cr_expect_eq(probe_abort_check(9 * MiB / 512, 0, 330, 343, why), 1);
	cr_expect_eq(probe_abort_check(s, s, 343, 343, why), 1);
	cr_expect(strstr(why, "warning temperature"), "%s", why);
	cr_expect_eq(probe_abort_check(s, s, 343, 0, why), 0);
}

/*
 * docs/probes.md (Safety): a lease is recorded before a write passes the last one,
 * about a second of writes ahead, so a crash leaves at most that second
 * charged and unwritten; never past the run's reservation.
 */
Test(probe_budget, lease_is_about_a_second_ahead_within_the_reservation)
{
	const uint64_t cap = 100 * GB;
	struct {
		uint64_t want;
		double rate;
		uint64_t next;
		const char *rule;
	} t[] = {
		{MiB, 0, MiB + PROBE_LEASE_MIN, "rate unknown yet: the minimum ahead"},
		{MiB, 10e6, MiB + PROBE_LEASE_MIN, "slow: still the minimum ahead"},
		{GB, 5e9, GB + 5 * GB, "5 GB/s: one second of writes ahead"},
		{99 * GB, 5e9, cap, "never past the reservation"},
		{cap, 5e9, cap, "at the reservation: nothing more"},
		{GB, 1e30, cap, "an absurd rate cannot overflow"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(probe_lease_next(t[i].want, cap, t[i].rate), t[i].next, "%s",
			     t[i].rule);
	cr_expect_eq(probe_lease_next(UINT64_MAX - 1, UINT64_MAX, 1e9), UINT64_MAX);
}

Test(probe_target, refuses_writes_to_a_mounted_device)
{
	char why[PROBE_REASON_MAX], disk_of_root[64], link[64], real[PATH_MAX];
	struct probe_raw_facts f;
	struct stat st;

	cr_assert_eq(stat("/", &st), 0);
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	if (!realpath(link, real))
		cr_skip_test("/ is not on a block device");
	snprintf(disk_of_root, sizeof(disk_of_root), "%s", strrchr(real, '/') + 1);
	/* The disk (or its partition) holding / is mounted. */
	const char *whole = disk_of_root;
	char parent[PATH_MAX + 16];
	snprintf(parent, sizeof(parent), "%s/partition", real);
	if (access(parent, F_OK) == 0) {
		/* / is on a partition: ask about the whole disk, which must count it. */
		*strrchr(real, '/') = '\0';
		whole = strrchr(real, '/') + 1;
	}
	cr_assert_eq(probe_raw_facts_read("/sys", "/proc/self/mountinfo", whole, &f), 0);
	cr_expect(f.mounted);
	cr_expect_eq(probe_raw_verdict(&f, whole, true, true, why), -EPERM);
	cr_expect(strstr(why, "mounted"), "%s", why);
	cr_expect_eq(probe_raw_verdict(&f, whole, false, false, why), 0); /* reading is fine */
	cr_expect_eq(probe_raw_facts_read("/sys", "/proc/self/mountinfo", "nosuchdisk9", &f),
		     -ENOENT);
	cr_expect_eq(probe_raw_facts_read("/sys", "/proc/self/mountinfo", "../x", &f), -EINVAL);
}

/* ---- a fixture sysfs: namespaces with partitions, holders, dm ---- */

static void fx_setup(void)
{
	snprintf(fx, sizeof(fx), "/tmp/nvmond-sysfs-XXXXXX");
	cr_assert_not_null(mkdtemp(fx));
	const char *pci = "devices/pci0000:00/0000:00:04.0/nvme/nvme0";
	char p[512];
	/* nvme0n1: one partition, held by dm-0 which holds the filesystem */
	snprintf(p, sizeof(p), "%s/nvme0n1/dev", pci);
	fx_put(p, "259:0\n");
	snprintf(p, sizeof(p), "%s/nvme0n1/nvme0n1p1/dev", pci);
	fx_put(p, "259:1\n");
	snprintf(p, sizeof(p), "%s/nvme0n1/nvme0n1p1/partition", pci);
	fx_put(p, "1\n");
	snprintf(p, sizeof(p), "%s/nvme0n1/holders", pci);
	fx_put(p, NULL);
	snprintf(p, sizeof(p), "%s/nvme0n1/nvme0n1p1/holders/dm-0", pci);
	fx_put(p, "");
	/* nvme0n2: a clean namespace */
	snprintf(p, sizeof(p), "%s/nvme0n2/dev", pci);
	fx_put(p, "259:2\n");
	snprintf(p, sizeof(p), "%s/nvme0n2/holders", pci);
	fx_put(p, NULL);
	/* nvme0n3: held directly (md) */
	snprintf(p, sizeof(p), "%s/nvme0n3/dev", pci);
	fx_put(p, "259:3\n");
	snprintf(p, sizeof(p), "%s/nvme0n3/holders/md0", pci);
	fx_put(p, "");
	fx_put("devices/virtual/block/dm-0/dev", "253:0\n");
	fx_ln("../../../../"
	      "devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1/nvme0n1p1",
	      "devices/virtual/block/dm-0/slaves/nvme0n1p1");
	char t[512];
	snprintf(t, sizeof(t), "../../%s/nvme0n1", pci);
	fx_ln(t, "class/block/nvme0n1");
	snprintf(t, sizeof(t), "../../%s/nvme0n1/nvme0n1p1", pci);
	fx_ln(t, "class/block/nvme0n1p1");
	snprintf(t, sizeof(t), "../../%s/nvme0n2", pci);
	fx_ln(t, "class/block/nvme0n2");
	snprintf(t, sizeof(t), "../../%s/nvme0n3", pci);
	fx_ln(t, "class/block/nvme0n3");
	fx_ln("../../devices/virtual/block/dm-0", "class/block/dm-0");
	snprintf(t, sizeof(t), "../../%s/nvme0n2", pci);
	fx_ln(t, "dev/block/259:2");
	fx_ln("../../devices/virtual/block/dm-0", "dev/block/253:0");
	fx_put("mountinfo", "27 1 253:0 / /home rw,relatime - ext4 /dev/mapper/vg-home rw\n"
			    "28 1 0:23 / /dev/shm rw - tmpfs tmpfs rw\n");
}

static void fx_teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx);
	cr_expect_eq(system(cmd), 0);
}

Test(probe_target, raw_namespaces_on_a_fixture, .init = fx_setup, .fini = fx_teardown)
{
	char why[PROBE_REASON_MAX], mi[PATH_MAX + 16];
	struct probe_raw_facts f;

	snprintf(mi, sizeof(mi), "%s/mountinfo", fx);
	cr_assert_eq(probe_raw_facts_read(fx, mi, "nvme0n1", &f), 0);
	cr_expect_eq(f.partitions, 1);
	cr_expect_not(f.mounted); /* mounted through dm-0, which holds the partition */
	cr_expect_eq(probe_raw_verdict(&f, "nvme0n1", true, true, why), -EPERM);
	cr_expect(strstr(why, "partition"), "%s", why);

	cr_assert_eq(probe_raw_facts_read(fx, mi, "nvme0n3", &f), 0);
	cr_expect_eq(f.holders, 1);
	cr_expect_eq(probe_raw_verdict(&f, "nvme0n3", true, true, why), -EPERM);
	cr_expect(strstr(why, "held"), "%s", why);

	cr_assert_eq(probe_raw_facts_read(fx, mi, "nvme0n2", &f), 0);
	cr_expect_eq(f.partitions + f.holders, 0);
	cr_expect_eq(probe_raw_verdict(&f, "nvme0n2", true, false, why), -EPERM);
	cr_expect(strstr(why, "destructive = yes"), "%s", why);
	cr_expect_eq(probe_raw_verdict(&f, "nvme0n2", true, true, why), 0);
	cr_expect_eq(probe_raw_verdict(&f, "nvme0n2", false, false, why), 0);

	/* A namespace mounted directly. */
	fx_put("mountinfo2", "30 1 259:2 / /data rw - xfs /dev/nvme0n2 rw\n");
	snprintf(mi, sizeof(mi), "%s/mountinfo2", fx);
	cr_assert_eq(probe_raw_facts_read(fx, mi, "nvme0n2", &f), 0);
	cr_expect(f.mounted);
	cr_expect_str_eq(f.mountpoint, "/data");
	cr_expect_eq(probe_raw_verdict(&f, "nvme0n2", true, true, why), -EPERM);
}

/*
 * Rule (docs/security.md#privilege-separation): the device process opens a
 * probe's namespace only when asked for one by name ("nvme<N>n<M>") of a
 * named drive, and opens one to write only when nothing is on it: the checks
 * that need no descriptor come before open(), so a refused namespace is never
 * opened at all (this host has no /dev/nvme0n1: an open() would say ENOENT).
 */
Test(probe_target, namespace_opener_refuses_before_opening, .init = fx_setup, .fini = fx_teardown)
{
	struct dev_ident who = {.model = "", .serial = "S1"}, nobody = {.model = "", .serial = ""};
	char why[DEV_NS_REASON_MAX], mi[PATH_MAX + 16];
	static const char *const not_a_namespace[] = {
		"sda", "nvme0", "nvme0n1p1", "ng0n1", "../nvme0n1", "nvme0n1/", "", "nvme0n1 "};

	snprintf(mi, sizeof(mi), "%s/mountinfo", fx);
	for (size_t i = 0; i < sizeof(not_a_namespace) / sizeof(not_a_namespace[0]); i++)
		cr_expect_eq(
			probe_ns_open_at(fx, mi, not_a_namespace[i], &who, 1, DEV_NS_READ, why),
			-EINVAL, "\"%s\" is not a namespace's name", not_a_namespace[i]);
	cr_expect_eq(probe_ns_open_at(fx, mi, "nvme0n2", &nobody, 2, DEV_NS_READ, why), -EINVAL,
		     "a namespace of no drive");
	cr_expect_eq(probe_ns_open_at(fx, mi, "nvme0n2", &who, 0, DEV_NS_READ, why), -EINVAL,
		     "NSID 0");
	cr_expect_eq(probe_ns_open_at(fx, mi, "nvme0n2", &who, 2, (enum dev_ns_mode)0, why),
		     -EINVAL, "no such mode");
	cr_expect_eq(probe_ns_open_at(fx, mi, "nvme0n2", &who, 2, (enum dev_ns_mode)4, why),
		     -EINVAL, "no such mode");

	/* To write: a partition, a holder, a mount refuse it before it is opened. */
	cr_expect_eq(probe_ns_open_at(fx, mi, "nvme0n1", &who, 1, DEV_NS_WRITE, why), -EPERM);
	cr_expect(strstr(why, "partition"), "%s", why);
	cr_expect_eq(probe_ns_open_at(fx, mi, "nvme0n3", &who, 3, DEV_NS_WRITE, why), -EPERM);
	cr_expect(strstr(why, "held"), "%s", why);
	fx_put("mountinfo2", "30 1 259:2 / /data rw - xfs /dev/nvme0n2 rw\n");
	snprintf(mi, sizeof(mi), "%s/mountinfo2", fx);
	cr_expect_eq(probe_ns_open_at(fx, mi, "nvme0n2", &who, 2, DEV_NS_WRITE, why), -EPERM);
	cr_expect(strstr(why, "mounted"), "%s", why);
}

Test(probe_target, filesystem_through_dm_belongs_to_its_controller, .init = fx_setup,
     .fini = fx_teardown)
{
	char why[PROBE_REASON_MAX];

	cr_expect_eq(probe_fs_on_device(fx, makedev(253, 0), "nvme0", why), 1, "%s", why);
	cr_expect_eq(probe_fs_on_device(fx, makedev(253, 0), "nvme1", why), 0);
	cr_expect_eq(probe_fs_on_device(fx, makedev(259, 2), "nvme0", why), 1, "%s", why);
	cr_expect_eq(probe_fs_on_device(fx, makedev(259, 2), "nvme", why), 0);
	cr_expect_eq(probe_fs_on_device(fx, makedev(0, 23), "nvme0", why), 0);
}
