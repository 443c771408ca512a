/* SPDX-License-Identifier: MIT */
/*
 * The poller with a scripted backend (issue 11): a runtime-suspended drive is
 * not read and stays online as asleep, and is read again when it wakes; a
 * drive without privileges is sampled from hwmon and nothing of it is stored;
 * a firmware revision is a baseline first and a change later; a link change
 * is recorded; samples wait for [store] commit_interval.
 */
#define _GNU_SOURCE /* nftw */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvmond/core/cfg.h"
#include "nvmond/core/loop.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/monitor/poller.h"
#include "nvmond/store/store.h"
#include "nvmond/store/store_conf.h"
#include "nvmond/store/store_facts.h"

/* What the scripted drive "nvme0" is now. */
static struct {
	enum nvme_runtime_status rt;
	enum dev_access access;
	char fr[9];
	struct nvme_pcie_link link;
	bool wake_ok; /* wake_sleeping = yes: reading a suspended drive is right */
	int smart_reads, hwmon_reads;
	int log_reads;		      /* issue 27: power state, C0h, event log */
	int smart_delay_ms;	      /* each health-log read takes this long */
	int reads_out;		      /* health-log reads running now (atomic) */
	int scans, scans_over_a_read; /* scans, and those that began while a read ran */
	int scan_delay_ms;	      /* each scan takes this long */
	int scans_out;		      /* scans running now (atomic) */
	int reads_over_a_scan;	      /* health-log reads that began while a scan ran */
	bool gone;		      /* the scan does not find it (atomic) */
} drive;

static int fake_scan(void *ctx, int64_t now_ms, struct dev_info **ret, size_t *ret_n)
{
	struct dev_info *v = calloc(1, sizeof(*v));

	(void)ctx;
	(void)now_ms;
	if (!v)
		return -ENOMEM;
	__atomic_add_fetch(&drive.scans, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&drive.reads_out, __ATOMIC_SEQ_CST) > 0)
		__atomic_add_fetch(&drive.scans_over_a_read, 1, __ATOMIC_SEQ_CST);
	if (drive.scan_delay_ms) {
		__atomic_add_fetch(&drive.scans_out, 1, __ATOMIC_SEQ_CST);
		usleep((useconds_t)drive.scan_delay_ms * 1000);
		__atomic_sub_fetch(&drive.scans_out, 1, __ATOMIC_SEQ_CST);
	}
	if (__atomic_load_n(&drive.gone, __ATOMIC_SEQ_CST)) {
		*ret = v;
		*ret_n = 0;
		return 0;
	}
	snprintf(v->name, sizeof(v->name), "nvme0");
	snprintf(v->path, sizeof(v->path), "/dev/nvme0");
	snprintf(v->id.model, sizeof(v->id.model), "ACME NVMe");
	snprintf(v->id.serial, sizeof(v->id.serial), "SLEEPY1");
	snprintf(v->id.firmware, sizeof(v->id.firmware), "%s", drive.fr);
	v->asleep = nvme_runtime_asleep(drive.rt);
	v->access = drive.access;
	v->id.wctemp_k = v->asleep ? 0 : 343;
	v->id.lpa = IDCTL_LPA_PEL | IDCTL_LPA_EXT_DATA; /* issue 27: it has an event log */
	v->facts.link = drive.link;
	v->facts.runtime = drive.rt;
	*ret = v;
	*ret_n = 1;
	return 0;
}

static int fake_smart(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
		      uint8_t page[SMART_LOG_SIZE])
{
	struct smart_log s = {.temperature_k = 310, .avail_spare = 100, .data_units_written = 7};

	(void)ctx;
	(void)name;
	(void)who;
	(void)now_ms;
	__atomic_add_fetch(&drive.smart_reads, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&drive.scans_out, __ATOMIC_SEQ_CST) > 0)
		__atomic_add_fetch(&drive.reads_over_a_scan, 1, __ATOMIC_SEQ_CST);
	if (drive.access == DEV_ACCESS_SYSFS)
		return -EACCES;
	if (drive.smart_delay_ms) {
		__atomic_add_fetch(&drive.reads_out, 1, __ATOMIC_SEQ_CST);
		usleep((useconds_t)drive.smart_delay_ms * 1000);
		__atomic_sub_fetch(&drive.reads_out, 1, __ATOMIC_SEQ_CST);
	}
	cr_expect(drive.wake_ok || !nvme_runtime_asleep(drive.rt), "a sleeping drive was read");
	smart_encode(&s, page);
	return 0;
}

static int fake_runtime(void *ctx, const char *name, int64_t now_ms, enum nvme_runtime_status *ret)
{
	(void)ctx;
	(void)name;
	(void)now_ms;
	*ret = drive.rt;
	return 0;
}

static int fake_hwmon(void *ctx, const char *name, int64_t now_ms, struct nvme_hwmon_temps *ret)
{
	(void)ctx;
	(void)name;
	(void)now_ms;
	cr_expect_not(nvme_runtime_asleep(drive.rt), "hwmon of a sleeping drive was read");
	drive.hwmon_reads++;
	*ret = (struct nvme_hwmon_temps){.composite_k = 321};
	ret->sensor_k[1] = 330;
	return 0;
}

/* Issue 27: the reads after the health log obey the same rule (wake_sleeping = no). */
static void log_read(void)
{
	__atomic_add_fetch(&drive.log_reads, 1, __ATOMIC_SEQ_CST);
	cr_expect(drive.wake_ok || !nvme_runtime_asleep(drive.rt),
		  "a sleeping drive was asked for its power state or logs");
}

static int fake_power(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
		      uint8_t which, struct dev_power *ret)
{
	(void)ctx, (void)name, (void)who, (void)now_ms, (void)which;
	log_read();
	*ret = (struct dev_power){.got = DEV_POWER_PM};
	return 0;
}

static int fake_ocp(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
		    uint8_t page[OCP_LOG_SIZE])
{
	(void)ctx, (void)name, (void)who, (void)now_ms, (void)page;
	log_read();
	return -EOPNOTSUPP;
}

static int fake_pel(void *ctx, const char *name, const struct dev_ident *who, int64_t now_ms,
		    uint64_t offset, uint32_t len, bool ext_data, uint8_t head[PEL_HEADER_SIZE],
		    uint8_t *data)
{
	(void)ctx, (void)name, (void)who, (void)now_ms, (void)offset, (void)len, (void)ext_data;
	(void)head, (void)data;
	log_read();
	return -EOPNOTSUPP;
}

static const struct dev_backend_ops fake_ops = {
	.name = "fake",
	.scan = fake_scan,
	.read_smart = fake_smart,
	.read_runtime = fake_runtime,
	.read_hwmon = fake_hwmon,
	.read_power = fake_power,
	.read_ocp = fake_ocp,
	.read_pel = fake_pel,
};

static uint32_t rig_caps; /* the fake backend's DEV_CAP_* for the next rig_start() */
static char dir[] = "/tmp/nvmond-test-poller-XXXXXX";
static char db[256];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/n.db", dir);
	memset(&drive, 0, sizeof(drive));
	rig_caps = 0;
	drive.rt = NVME_RUNTIME_ACTIVE;
	snprintf(drive.fr, sizeof(drive.fr), "1.0");
	drive.link = (struct nvme_pcie_link){160, 4, 160, 4};
}

static void teardown(void)
{
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

TestSuite(poller_facts, .init = setup, .fini = teardown);

static int64_t stop_cb(struct loop *l, void *u)
{
	(void)u;
	loop_stop(l);
	return -1;
}

/* A daemon's main loop in small: the poller for @ms, then its state. */
struct rig {
	struct dev_backend b;
	struct store *s;
	struct fleet *f;
	struct poller *p;
	struct loop *l;
	struct cfg c;
};

static void rig_start(struct rig *r, bool wake)
{
	char err[STORE_ERR_MAX];
	static struct dev_backend_ops ops;

	ops = fake_ops;
	ops.caps = rig_caps;
	*r = (struct rig){.b = {.ops = &ops}};
	/* [store] is the store's section (store_conf.h): set here through cfg_set(). */
	cr_assert_eq(
		cfg_sections_register((const struct cfg_section *const[]){&store_cfg_section}, 1),
		0);
	cfg_defaults(&r->c);
	r->c.poll_interval_ms = 50;
	r->c.rescan_interval_ms = 100;
	r->c.wake_sleeping = wake;
	cr_assert_eq(store_open(db, &r->s, err), 0, "%s", err);
	r->f = fleet_new();
	r->l = loop_new();
	cr_assert_eq(poller_new(&r->c, &r->b, r->s, r->f, &r->p), 0);
	cr_assert_eq(poller_start(r->p, r->l), 0);
}

static void rig_run(struct rig *r, int64_t ms)
{
	cr_assert_geq(loop_add_timer(r->l, ms, stop_cb, NULL), 0);
	cr_assert_eq(loop_run(r->l), 0);
}

static void rig_stop(struct rig *r)
{
	poller_flush(r->p);
	poller_free(r->p);
	loop_free(r->l);
	fleet_free(r->f);
	store_close(r->s);
}

static struct fleet_device the_drive(struct rig *r)
{
	struct fleet_device *v = NULL, d;
	size_t n = 0;

	cr_assert_eq(fleet_snapshot(r->f, &v, &n), 0);
	cr_assert_eq(n, 1);
	d = v[0];
	free(v);
	return d;
}

Test(poller_facts, asleep_is_not_read_and_not_offline_then_wakes)
{
	struct rig r;
	struct fleet_device d;

	drive.rt = NVME_RUNTIME_SUSPENDED;
	rig_start(&r, false);
	rig_run(&r, 300);
	d = the_drive(&r);
	cr_expect_eq(drive.smart_reads, 0, "nothing sent to a sleeping drive");
	cr_expect_eq(drive.log_reads, 0, "not its power state either (issue 27)");
	cr_expect_eq(drive.hwmon_reads, 0);
	cr_expect(d.row.online, "asleep is not offline");
	cr_expect(d.facts.asleep);
	cr_expect_not(d.has_sample);

	drive.rt = NVME_RUNTIME_ACTIVE; /* it woke */
	rig_run(&r, 300);
	d = the_drive(&r);
	cr_expect_gt(drive.smart_reads, 0, "polled again once awake");
	cr_expect_gt(drive.log_reads, 0, "and its power state read");
	cr_expect_not(d.facts.asleep);
	cr_expect(d.has_sample);
	cr_expect_eq(d.last.source, SAMPLE_SOURCE_SMART);
	cr_expect_eq(d.row.wctemp_k, 343, "the full identity replaced the sysfs one");
	rig_stop(&r);
}

Test(poller_facts, wake_sleeping_yes_polls_anyway)
{
	struct rig r;

	drive.rt = NVME_RUNTIME_SUSPENDED;
	drive.wake_ok = true;
	rig_start(&r, true);
	rig_run(&r, 200);
	cr_expect_gt(drive.smart_reads, 0);
	rig_stop(&r);
}

Test(poller_facts, without_privileges_hwmon_only_and_nothing_stored)
{
	struct rig r;
	struct fleet_device d;
	struct sample last;

	drive.access = DEV_ACCESS_SYSFS;
	rig_start(&r, false);
	rig_run(&r, 300);
	d = the_drive(&r);
	cr_expect_eq(drive.smart_reads, 0, "the scan said: no admin commands");
	cr_expect_gt(drive.hwmon_reads, 0);
	cr_expect(d.facts.hwmon_only);
	cr_assert(d.has_sample);
	cr_expect_eq(d.last.source, SAMPLE_SOURCE_HWMON);
	cr_expect_eq(d.last.smart.temperature_k, 321);
	cr_expect_eq(d.last.smart.temp_sensor_k[1], 330);
	cr_expect(d.last.smart.data_units_written == 0);
	rig_stop(&r);
	rig_start(&r, false);
	cr_expect_eq(store_sample_latest(r.s, d.row.id, &last), -ENOENT,
		     "hwmon samples never stored");
	rig_stop(&r);
}

Test(poller_facts, health_log_refused_switches_to_hwmon)
{
	struct rig r;
	struct fleet_device d;

	/* Identify answered (a 6.2+ kernel lets anyone Identify), the health log not */
	rig_start(&r, false);
	drive.access = DEV_ACCESS_SYSFS;
	rig_run(&r, 300);
	d = the_drive(&r);
	cr_expect(d.row.online, "no permission is not offline");
	cr_expect(d.facts.hwmon_only);
	cr_expect_eq(d.last.source, SAMPLE_SOURCE_HWMON);
	rig_stop(&r);
}

Test(poller_facts, firmware_baseline_change_and_restart)
{
	struct rig r;
	struct store_fw_row *v = NULL;
	struct store_link_row *l = NULL;
	size_t n = 0, nl = 0;
	struct fleet_device d;

	rig_start(&r, false);
	rig_run(&r, 250);
	snprintf(drive.fr, sizeof(drive.fr), "1.1");
	drive.link = (struct nvme_pcie_link){80, 2, 160, 4};
	rig_run(&r, 250);
	d = the_drive(&r);
	cr_expect_str_eq(d.facts.firmware, "1.1");
	cr_expect_str_eq(d.facts.firmware_prev, "1.0");
	cr_expect_gt(d.facts.firmware_changed_ms, 0);
	cr_expect_str_eq(d.row.firmware, "1.1", "the device row follows");
	cr_expect(nvme_pcie_link_degraded(&d.facts.link));
	rig_stop(&r);
	/* a restart with the same revision and link records nothing new */
	rig_start(&r, false);
	rig_run(&r, 250);
	cr_assert_eq(store_fw_list(r.s, d.row.id, 10, &v, &n), 0);
	cr_assert_eq(n, 2, "baseline and one change, got %zu", n);
	cr_expect_str_eq(v[0].old_rev, "1.0");
	cr_expect_str_eq(v[0].new_rev, "1.1");
	cr_expect_str_eq(v[1].old_rev, "");
	cr_expect_str_eq(v[1].new_rev, "1.0");
	cr_assert_eq(store_link_list(r.s, d.row.id, 10, &l, &nl), 0);
	cr_expect_eq(nl, 2, "the first link and its change, got %zu", nl);
	d = the_drive(&r);
	cr_expect_str_eq(d.facts.firmware_prev, "1.0", "the last change survives a restart");
	free(v);
	free(l);
	rig_stop(&r);
}

/*
 * configuration.md, [store] commit_interval: longer than the run, the samples
 * of every poll wait in the buffer, all of them seen by the fleet; a stop
 * stores them. At 0 (the default) each poll is committed as it ends.
 */
Test(poller_facts, commit_interval_holds_samples_until_due_or_stop)
{
	struct rig r;
	struct poller_stats ps;
	struct sample *v = NULL;
	size_t n = 0;

	rig_start(&r, false);
	cr_assert_eq(cfg_set(&r.c, "store", "commit_interval", "1m", (char[CFG_ERR_MAX]){0}), 0);
	cr_assert_eq(poller_reconfigure(r.p, &r.c), 0);
	rig_run(&r, 300);
	poller_stats(r.p, &ps);
	cr_assert_geq(ps.polls, 2, "polled");
	cr_expect_eq(ps.samples_stored, 0, "a minute has not passed: nothing committed");
	cr_expect_eq(ps.samples_pending, ps.polls, "every sample waits");
	cr_expect(the_drive(&r).has_sample, "the fleet has the newest at once");
	int64_t id = the_drive(&r).row.id;
	cr_assert_eq(poller_flush(r.p), 0);
	cr_assert_eq(store_samples_range(r.s, id, 0, INT64_MAX, 1000, &v, &n), 0);
	cr_expect_eq(n, ps.polls, "the stop stored them all");
	free(v);

	cr_assert_eq(cfg_set(&r.c, "store", "commit_interval", "0", (char[CFG_ERR_MAX]){0}), 0);
	cr_assert_eq(poller_reconfigure(r.p, &r.c), 0);
	rig_run(&r, 200);
	poller_stats(r.p, &ps);
	cr_expect_eq(ps.samples_pending, 0, "0: each poll committed as it ends");
	cr_expect_eq(ps.samples_stored, ps.polls);
	rig_stop(&r);
}

/*
 * Rule (issue 15, docs/architecture.md#device-commands-and-hung-controllers):
 * while a command to a controller is out, nothing more is sent to it; libnvme's
 * scan sends Identify to every controller, so a rescan waits until the round's
 * polls are answered (a poll about to hang would get a second command, the
 * scan's, before its deadline made it unresponsive), and a round waits for the
 * rescan's answer (the scan runs on its own thread: a round due meanwhile would
 * send a poll's command beside the scan's).
 */
Test(poller_facts, no_rescan_while_a_poll_is_out)
{
	struct rig r;

	drive.smart_delay_ms = 40; /* a poll is out most of the time */
	rig_start(&r, false);
	rig_run(&r, 1500);
	cr_expect_gt(drive.scans, 3, "rescans went on (%d)", drive.scans);
	cr_expect_gt(drive.smart_reads, 10, "polls went on (%d)", drive.smart_reads);
	cr_expect_eq(drive.scans_over_a_read, 0, "%d of %d scans began while a poll's read ran",
		     drive.scans_over_a_read, drive.scans);
	rig_stop(&r);
}

/* The same rule the other way: a round due while a rescan is out waits for its answer. */
Test(poller_facts, no_poll_while_a_rescan_is_out)
{
	struct rig r;

	drive.scan_delay_ms = 60; /* a scan is out most of the time */
	rig_start(&r, false);
	rig_run(&r, 1500);
	cr_expect_gt(drive.scans, 3, "rescans went on (%d)", drive.scans);
	cr_expect_gt(drive.smart_reads, 5, "polls went on (%d)", drive.smart_reads);
	cr_expect_eq(drive.reads_over_a_scan, 0, "%d of %d polls began while a scan ran",
		     drive.reads_over_a_scan, drive.smart_reads);
	rig_stop(&r);
}

/* What the listeners heard of the drive's online state. */
static int heard_online, heard_offline;

static void count_online(void *ctx, const struct device_row *dev, bool online, int64_t now_ms)
{
	(void)ctx;
	(void)dev;
	(void)now_ms;
	__atomic_add_fetch(online ? &heard_online : &heard_offline, 1, __ATOMIC_SEQ_CST);
}

static int seen(int *v)
{
	return __atomic_load_n(v, __ATOMIC_SEQ_CST);
}

/* Run the loop until *@v reaches @want (5 s at most), then until three more scans ran. */
static void rig_run_until(struct rig *r, int *v, int want)
{
	for (int i = 0; i < 100 && seen(v) < want; i++)
		rig_run(r, 50);
	cr_assert_geq(seen(v), want, "not within 5 s: %d of %d", seen(v), want);
	int scans = seen(&drive.scans);
	for (int i = 0; i < 100 && seen(&drive.scans) < scans + 3; i++)
		rig_run(r, 50);
	cr_assert_geq(seen(&drive.scans), scans + 3, "the scans stopped");
}

/*
 * poller.c, rescan_take(): "new controllers get a store id, known ones may have
 * a new name, missing ones go offline"; set_online() tells the listeners (the
 * alert service's offline rule) of a change only, once per change, however
 * many scans see the same.
 */
Test(poller_facts, missing_from_the_scan_goes_offline_once_and_back_once)
{
	struct rig r;
	struct poller_listener li = {.on_online = count_online};
	struct device_row row;

	rig_start(&r, false);
	cr_assert_eq(poller_add_listener(r.p, &li), 0);
	rig_run_until(&r, &drive.scans, 1);
	cr_expect(the_drive(&r).row.online);
	cr_expect_eq(seen(&heard_online), 0, "the first sighting came before the listener");

	__atomic_store_n(&drive.gone, true, __ATOMIC_SEQ_CST);
	rig_run_until(&r, &heard_offline, 1);
	cr_expect_not(the_drive(&r).row.online, "offline in the fleet");
	cr_expect_eq(store_device_get(r.s, the_drive(&r).row.id, &row), 0);
	cr_expect_not(row.online, "offline in the database");
	cr_expect_eq(seen(&heard_offline), 1, "told once, three scans later too");

	__atomic_store_n(&drive.gone, false, __ATOMIC_SEQ_CST);
	rig_run_until(&r, &heard_online, 1);
	cr_expect(the_drive(&r).row.online, "back");
	cr_expect_eq(seen(&heard_offline), 1);
	cr_expect_eq(seen(&heard_online), 1, "told once it is back, three scans later too");
	rig_stop(&r);
}

/*
 * Rule (dev.h DEV_CAP_SIMULATED; docs/api.md "demo"): a drive is marked simulated
 * when the backend that found it says its drives are, never by its name; the row
 * in the fleet and in the store says so, and a hardware backend's does not.
 */
Test(poller_facts, simulated_as_the_backend_says)
{
	struct rig r;
	struct device_row row;

	for (int sim = 0; sim <= 1; sim++) {
		rig_caps = sim ? DEV_CAP_SIMULATED : 0;
		rig_start(&r, false);
		rig_run(&r, 200);
		struct fleet_device d = the_drive(&r);
		cr_expect_eq(d.row.simulated, sim, "in the fleet: %d", d.row.simulated);
		cr_assert_eq(store_device_get(r.s, d.row.id, &row), 0);
		cr_expect_eq(row.simulated, sim, "in the store: %d", row.simulated);
		rig_stop(&r);
	}
}
