/* SPDX-License-Identifier: MIT */
/*
 * The self-test service (selftest_svc.c, selftest_plan.c) through its public
 * interface: selftest_svc_request(), the poller's listener it registers (a
 * drive's sample, its online state) and the schedule's tick it arms. Before
 * issue 26 only the integration tests (test_selftest*.sh) reached it.
 *
 * On a real database (store_fixture.h: dev_a "A1", dev_b "B2", both named
 * nvme0), a fleet holding them, a probe service
 * whose locks are in the test's directory, and a fake backend: an ops table
 * with one drive's Device Self-test log (06h) and command (14h), which
 * records what was sent. Without a guard the service sends its commands on
 * the caller's thread (selftest_svc_start()), so every answer is in before
 * the call returns: each step is observed (a done call, a store row, a
 * command sent), never waited for. The last two cases give the backend a
 * guard, as the poller does: the commands then go to the controller's worker
 * and the loop runs until their answers came.
 *
 * The link wraps (tests/CMakeLists.txt) timefmt_now_ms() (the wall clock the
 * schedule reads) and timefmt_mono_ms() (when a case sets it: the idle
 * reads of the log), poller_add_listener() (to learn the listener; there is no
 * poller, whose guard would send the commands on workers) and
 * loop_add_timer_lazy() (to learn the schedule's tick and run it by hand at
 * a chosen time). TZ is UTC: schedules are in local time.
 */
#include "../store/store_fixture.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "nvmond/core/cfg.h"
#include "nvmond/core/loop.h"
#include "nvmond/decode/selftest.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/monitor/poller.h"
#include "nvmond/probe/probe_conf.h"
#include "nvmond/probe/probe_lock.h"
#include "nvmond/probe/probe_svc.h"
#include "nvmond/selftest/selftest_conf.h"
#include "nvmond/selftest/selftest_svc.h"
#include "nvmond/store/store_selftest.h"
#include "nvmond/util/units.h"

#include "../../../daemon/selftest/selftest_internal.h"

#define DAY0	     1796169600000LL /* 2026-12-02T00:00:00Z, a Wednesday */
#define AT(h, m, ms) (DAY0 + (h)*MS_PER_HOUR + (m)*MS_PER_MIN + (ms))

/* ---- the wrapped functions ---- */

int64_t __wrap_timefmt_now_ms(void);
int64_t __real_timefmt_mono_ms(void);
int64_t __wrap_timefmt_mono_ms(void);
int __wrap_poller_add_listener(struct poller *p, const struct poller_listener *l);
int64_t __real_loop_add_timer_lazy(struct loop *l, int64_t period_ms, int64_t deadline_ms,
				   loop_timer_fn fn, void *userdata);
int64_t __wrap_loop_add_timer_lazy(struct loop *l, int64_t period_ms, int64_t deadline_ms,
				   loop_timer_fn fn, void *userdata);

static int64_t now_ms;
static int64_t mono_ms; /* 0: the real monotonic clock (the loop's timers run on it) */
static struct poller_listener listener;
static loop_timer_fn tick_fn;
static void *tick_arg;

int64_t __wrap_timefmt_now_ms(void)
{
	return now_ms;
}

int64_t __wrap_timefmt_mono_ms(void)
{
	return mono_ms ? mono_ms : __real_timefmt_mono_ms();
}

int __wrap_poller_add_listener(struct poller *p, const struct poller_listener *l)
{
	(void)p;
	listener = *l;
	return 0;
}

int64_t __wrap_loop_add_timer_lazy(struct loop *l, int64_t period_ms, int64_t deadline_ms,
				   loop_timer_fn fn, void *userdata)
{
	tick_fn = fn;
	tick_arg = userdata;
	return __real_loop_add_timer_lazy(l, period_ms, deadline_ms, fn, userdata);
}

/* ---- the fake drive ---- */

static struct fake_drive {
	struct selftest_log log;
	int n_read, n_sent;
	uint8_t stc[8];
	uint32_t nsid[8];
	int read_r;	/* what a read of the log answers */
	int start_r;	/* what Device Self-test answers */
	bool completes; /* a test started ends at once, passed */
	uint64_t poh;
} drive;

/* With a guard: the log reads wait (on the controller's worker) while held. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static bool gate_held;

static void gate(bool held)
{
	pthread_mutex_lock(&gate_lock);
	gate_held = held;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
}

/* A result on top of the log (most recent first), as the drive adds one. */
static void push_result(uint8_t code, uint8_t result)
{
	memmove(&drive.log.r[1], &drive.log.r[0], (SELFTEST_RESULTS - 1) * sizeof(drive.log.r[0]));
	drive.log.r[0] =
		(struct selftest_result){.code = code, .result = result, .poh = drive.poh++};
}

static int fake_start(void *ctx, const char *name, const struct dev_ident *who, int64_t now,
		      uint32_t nsid, uint8_t stc)
{
	(void)ctx;
	(void)name;
	(void)who;
	(void)now;
	if (drive.n_sent < 8) {
		drive.stc[drive.n_sent] = stc;
		drive.nsid[drive.n_sent] = nsid;
	}
	drive.n_sent++;
	if (drive.start_r < 0)
		return drive.start_r;
	if (stc == SELFTEST_CODE_ABORT) {
		push_result(drive.log.current, SELFTEST_RES_ABORTED_CMD);
		drive.log.current = 0;
		drive.log.percent = 0;
	} else if (drive.completes) {
		push_result(stc, SELFTEST_RES_NO_ERROR);
	} else {
		drive.log.current = stc;
		drive.log.percent = 0;
	}
	return 0;
}

static int fake_read(void *ctx, const char *name, const struct dev_ident *who, int64_t now,
		     uint8_t ret_page[SELFTEST_LOG_SIZE])
{
	(void)ctx;
	(void)name;
	(void)who;
	(void)now;
	pthread_mutex_lock(&gate_lock);
	while (gate_held)
		pthread_cond_wait(&gate_cond, &gate_lock);
	pthread_mutex_unlock(&gate_lock);
	drive.n_read++;
	if (drive.read_r < 0)
		return drive.read_r;
	selftest_encode(&drive.log, ret_page);
	return 0;
}

static int fake_scan(void *ctx, int64_t now, struct dev_info **ret, size_t *ret_n)
{
	(void)ctx;
	(void)now;
	*ret = NULL;
	*ret_n = 0;
	return 0;
}

static int fake_smart(void *ctx, const char *name, const struct dev_ident *who, int64_t now,
		      uint8_t ret_page[SMART_LOG_SIZE])
{
	(void)ctx;
	(void)name;
	(void)who;
	(void)now;
	(void)ret_page;
	return -ENODEV;
}

static void fake_free(void *ctx)
{
	(void)ctx;
}

static const struct dev_backend_ops fake_ops = {
	.name = "fake",
	.scan = fake_scan,
	.read_smart = fake_smart,
	.free = fake_free,
	.selftest_start = fake_start,
	.read_selftest = fake_read,
};

static struct dev_backend backend = {.ops = &fake_ops};
static struct dev_backend *be = &backend; /* guarded(): one with a guard */

/* ---- the service ---- */

static struct cfg c;
static struct fleet *f;
static struct loop *l;
static struct probe_svc *probes;
static struct selftest_svc *t;

static void setup(void)
{
	char err[CFG_ERR_MAX];

	store_fixture_setup();
	setenv("TZ", "UTC", 1);
	tzset();
	now_ms = AT(2, 50, 0);
	mono_ms = 0;
	drive = (struct fake_drive){.poh = 100};
	for (size_t i = 0; i < SELFTEST_RESULTS; i++)
		drive.log.r[i].result = SELFTEST_RES_UNUSED;
	/* [probes] is the probe service's section (probe_conf.h). */
	cr_assert_eq(
		cfg_sections_register((const struct cfg_section *const[]){&probe_cfg_section,
									  &selftest_cfg_section},
				      2),
		0);
	cfg_defaults(&c);
	cr_assert_eq(cfg_set(&c, "probes", "lock_dir", dir, err), 0, "%s", err);
	f = fleet_new();
	l = loop_new();
	cr_assert_not_null(f);
	cr_assert_not_null(l);
	tick_fn = NULL;
}

/* A drive as the scan found it: online, Identify read, OACS bit 4 set. */
static void drive_capable(int64_t id)
{
	struct fleet_facts ff = {.known = true, .id_known = true, .selftest_supported = true};

	cr_assert_eq(fleet_set_online(f, id, true, now_ms), 0);
	cr_assert_eq(fleet_put_facts(f, id, &ff), 0);
}

/*
 * The service on @c, started: the drives in the fleet as the poller loads
 * them from the store; no poller (the service hands it its listener, which
 * the wrap keeps), so no guard: the commands go on the caller's thread.
 */
static void svc_up(void)
{
	char err[SELFTEST_SVC_ERR_MAX] = "", perr[PROBE_SVC_ERR_MAX] = "";
	struct device_row *rows = NULL;
	size_t n = 0;

	cr_assert_eq(store_devices_list(s, &rows, &n), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(fleet_put_device(f, &rows[i]), 0);
	free(rows);
	drive_capable(dev_a);
	cr_assert_eq(probe_svc_new(&c, be, s, f, NULL, &probes, perr), 0, "%s", perr);
	cr_assert_eq(selftest_svc_new(&c, be, s, f, NULL, NULL, probes, &t, err), 0, "%s", err);
	cr_assert_eq(selftest_svc_start(t, l, NULL), 0);
	cr_assert_not_null(listener.on_sample);
	cr_assert_not_null(tick_fn, "the schedule's tick is armed");
}

/* The daemon stops (a restart is svc_down(), svc_up()). */
static void svc_down(void)
{
	t = selftest_svc_free(t);
	probes = probe_svc_free(probes);
}

static void teardown(void)
{
	svc_down();
	gate(false);
	if (be != &backend)
		be = dev_backend_free(be); /* joins the controller's worker */
	be = &backend;
	loop_free(l);
	fleet_free(f);
	store_fixture_teardown();
}

TestSuite(selftest_svc, .init = setup, .fini = teardown);

/* A poll of drive @id: its sample reaches the service's listener. */
static void sample(int64_t id)
{
	struct fleet_device fd;
	struct sample smp = {.device_id = id, .ts_ms = now_ms};

	cr_assert_eq(fleet_get(f, id, &fd), 0);
	listener.on_sample(listener.ctx, &fd.row, &smp);
}

/* The schedule's timer fires at @at. */
static void tick_at(int64_t at)
{
	now_ms = at;
	(void)tick_fn(l, tick_arg);
}

struct answer {
	int calls, r;
	uint8_t ended;
	char reason[SELFTEST_SVC_ERR_MAX];
};

static void on_done(void *arg, int r, uint8_t ended, const char *reason)
{
	struct answer *a = arg;

	a->calls++;
	a->r = r;
	a->ended = ended;
	snprintf(a->reason, sizeof(a->reason), "%s", reason ? reason : "");
}

/* selftest_svc_request(), answered exactly once before it returns (no guard). */
static struct answer request(int64_t id, uint8_t stc, uint32_t nsid, enum selftest_origin o)
{
	struct answer a = {0};

	selftest_svc_request(t, id, stc, nsid, o, on_done, &a);
	cr_assert_eq(a.calls, 1, "done exactly once, before it returns without a guard");
	return a;
}

/* The actions of @kind (< 0: all) recorded for @id, newest first; *n of them. */
static struct store_selftest_action *actions(int64_t id, int kind, size_t *n)
{
	struct store_selftest_action *v = NULL;

	cr_assert_eq(store_selftest_actions(s, id, kind, 50, &v, n), 0);
	return v;
}

static size_t n_actions(int64_t id, int kind)
{
	size_t n = 0;

	free(actions(id, kind, &n));
	return n;
}

static struct fleet_selftest fleet_st(int64_t id)
{
	struct fleet_device fd;

	cr_assert_eq(fleet_get(f, id, &fd), 0);
	return fd.selftest;
}

/* ---- starting and aborting ---- */

/*
 * docs/api.md, POST …/selftests: "Starts a self-test … the default,
 * 4294967295 = FFFFFFFFh, is the controller and every namespace"; the start
 * is recorded with who asked (docs/selftests.md: "who started it (schedule,
 * catch-up, api, cli)"), and the API's running shows it at once, since when.
 */
Test(selftest_svc, start_is_sent_and_recorded_with_its_origin)
{
	svc_up();
	struct answer a =
		request(dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API);
	cr_assert_eq(a.r, 0, "%s", a.reason);
	cr_expect_eq(drive.n_read, 1, "the log is read first");
	cr_assert_eq(drive.n_sent, 1);
	cr_expect_eq(drive.stc[0], SELFTEST_CODE_SHORT);
	cr_expect_eq(drive.nsid[0], DEV_SELFTEST_NSID_ALL);

	size_t n = 0;
	struct store_selftest_action *v = actions(dev_a, STORE_SELFTEST_START, &n);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(v[0].origin, "api");
	cr_expect_eq(v[0].code, SELFTEST_CODE_SHORT);
	cr_expect_eq(v[0].nsid, DEV_SELFTEST_NSID_ALL);
	cr_expect_eq(v[0].ts_ms, now_ms);
	free(v);
	struct fleet_selftest st = fleet_st(dev_a);
	cr_expect_eq(st.running, SELFTEST_CODE_SHORT);
	cr_expect_eq(st.running_since_ms, now_ms);
	cr_expect_eq(st.running_nsid, DEV_SELFTEST_NSID_ALL);
}

/*
 * docs/selftests.md: "A start is refused (409) while a test runs on the drive
 * (the drive's log is read first, so a test started by nvme-cli counts)";
 * docs/api.md: "a short self-test is already running on demo0 (3 %)".
 */
Test(selftest_svc, second_start_while_one_runs_is_refused)
{
	svc_up();
	cr_assert_eq(
		request(dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API).r,
		0);
	drive.log.percent = 3;
	struct answer a =
		request(dev_a, SELFTEST_CODE_EXTENDED, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_CLI);
	cr_expect_eq(a.r, -EBUSY);
	cr_expect_str_eq(a.reason, "a short self-test is already running on nvme0 (3 %)");
	cr_expect_eq(drive.n_read, 2, "the log was read again");
	cr_expect_eq(drive.n_sent, 1, "nothing more was sent");
	cr_expect_eq(n_actions(dev_a, STORE_SELFTEST_START), 1);
}

/* The same rule: a test nvmond did not start (nvme-cli, smartd) counts, seen in the log. */
Test(selftest_svc, test_started_by_another_tool_refuses_a_start)
{
	svc_up();
	drive.log.current = SELFTEST_CODE_EXTENDED;
	drive.log.percent = 40;
	struct answer a =
		request(dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API);
	cr_expect_eq(a.r, -EBUSY);
	cr_expect_str_eq(a.reason, "an extended self-test is already running on nvme0 (40 %)");
	cr_expect_eq(drive.n_sent, 0);
	struct fleet_selftest st = fleet_st(dev_a);
	cr_expect_eq(st.running, SELFTEST_CODE_EXTENDED, "the read shows it to the fleet");
	cr_expect_eq(st.percent, 40);
	cr_expect_eq(st.running_nsid, 0, "not started by nvmond: its namespace is not known");
}

/*
 * docs/api.md, POST …/selftests/abort: "Answers 200 {"aborted": {"type":
 * "short", …}}; the result (aborted by a Device Self-test command, origin of
 * the aborted test) is in the history after the next poll, and an abort from
 * nvmond never fires selftest_aborted." The abort is recorded with its own
 * origin.
 */
Test(selftest_svc, abort_is_recorded_with_its_origin_and_never_alerts)
{
	push_result(SELFTEST_CODE_SHORT, SELFTEST_RES_NO_ERROR); /* an older result */
	svc_up();
	sample(dev_a);
	now_ms += 1000;
	cr_assert_eq(
		request(dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API).r,
		0);
	now_ms += 1000;
	struct answer a =
		request(dev_a, SELFTEST_CODE_ABORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_CLI);
	cr_assert_eq(a.r, 0, "%s", a.reason);
	cr_expect_eq(a.ended, SELFTEST_CODE_SHORT, "the test it ended");
	cr_expect_eq(drive.stc[1], SELFTEST_CODE_ABORT);

	size_t n = 0;
	struct store_selftest_action *v = actions(dev_a, STORE_SELFTEST_ABORT, &n);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(v[0].origin, "cli");
	cr_expect_eq(v[0].ts_ms, now_ms);
	free(v);

	now_ms += 1000;
	sample(dev_a); /* the next poll: the test ran, so the log is read */
	struct store_selftest_row *rows = NULL;
	cr_assert_eq(store_selftest_list(s, dev_a, 10, &rows, &n), 0);
	cr_assert_eq(n, 2);
	cr_expect_eq(rows[0].r.result, SELFTEST_RES_ABORTED_CMD);
	cr_expect_str_eq(rows[0].origin, "api", "the origin of the test aborted");
	free(rows);
	cr_expect(selftest_dev_find(t, dev_a)->aborted_by_nvmond,
		  "nvmond's abort: no selftest_aborted");
	cr_expect_eq(fleet_st(dev_a).running, 0);
}

/*
 * docs/selftests.md, selftest_aborted: "a test was aborted by something else
 * than nvmond or its operator (a reset, …)": the counter-case of the above.
 */
Test(selftest_svc, abort_by_a_reset_is_not_nvmonds)
{
	push_result(SELFTEST_CODE_SHORT, SELFTEST_RES_NO_ERROR);
	svc_up();
	sample(dev_a);
	now_ms += 1000;
	cr_assert_eq(
		request(dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API).r,
		0);
	push_result(drive.log.current, SELFTEST_RES_ABORTED_RESET);
	drive.log.current = 0;
	now_ms += 1000;
	sample(dev_a);
	cr_expect_not(selftest_dev_find(t, dev_a)->aborted_by_nvmond);
}

/* docs/api.md, abort: "409 when no test runs (no self-test is running on demo0)". */
Test(selftest_svc, abort_with_nothing_running_is_refused)
{
	svc_up();
	struct answer a =
		request(dev_a, SELFTEST_CODE_ABORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API);
	cr_expect_eq(a.r, -EALREADY);
	cr_expect_str_eq(a.reason, "no self-test is running on nvme0");
	cr_expect_eq(drive.n_sent, 0);
	cr_expect_eq(n_actions(dev_a, -1), 0);
}

/*
 * docs/selftests.md, Capability: "A test asked of such a drive is refused
 * (HTTP 409 …) and nothing is sent"; docs/api.md: "(or nvmond has not read its
 * Identify data)".
 */
Test(selftest_svc, drive_without_the_capability_is_sent_nothing)
{
	struct fleet_facts ff = {.known = true, .id_known = true};

	svc_up();
	cr_assert_eq(fleet_put_facts(f, dev_a, &ff), 0);
	struct answer a =
		request(dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API);
	cr_expect_eq(a.r, -EOPNOTSUPP);
	cr_expect_str_eq(a.reason, "nvme0 (ACME NVMe 2TB) does not support device self-tests "
				   "(Identify Controller OACS bit 4 is 0): nothing was sent");
	ff = (struct fleet_facts){.known = true, .asleep = true};
	cr_assert_eq(fleet_put_facts(f, dev_a, &ff), 0);
	a = request(dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API);
	cr_expect_eq(a.r, -EOPNOTSUPP);
	cr_expect(strstr(a.reason, "nvmond has not read its Identify data (it was asleep at the "
				   "scan)"),
		  "%s", a.reason);
	cr_expect_eq(drive.n_read + drive.n_sent, 0, "nothing sent, not even the log read");
}

/*
 * docs/api.md, POST …/selftests: "409 … offline or unresponsive", "404 for an
 * unknown device (no device 9)"; selftest_svc.h: -ENODEV, -ENOENT.
 */
Test(selftest_svc, offline_unresponsive_and_unknown_drives_are_refused)
{
	struct fleet_facts ff = {
		.known = true, .id_known = true, .selftest_supported = true, .unresponsive = true};

	svc_up();
	struct answer a =
		request(9, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API);
	cr_expect_eq(a.r, -ENOENT);
	cr_expect_str_eq(a.reason, "no device 9");
	cr_assert_eq(fleet_set_online(f, dev_a, false, now_ms), 0);
	a = request(dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API);
	cr_expect_eq(a.r, -ENODEV);
	cr_expect_str_eq(a.reason, "nvme0 is offline");
	cr_assert_eq(fleet_set_online(f, dev_a, true, now_ms), 0);
	cr_assert_eq(fleet_put_facts(f, dev_a, &ff), 0);
	a = request(dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API);
	cr_expect_eq(a.r, -ENODEV);
	cr_expect_str_eq(a.reason,
			 "nvme0 is unresponsive (a command to it is stuck past device_timeout)");
	cr_expect_eq(drive.n_read + drive.n_sent, 0);
}

/*
 * docs/api.md, POST …/selftests: "nsid" (1 … 4294967295) names one namespace
 * of the drive, the default its controller; selftest_svc.h: "-EINVAL a bad
 * @nsid or @stc" (codes: "1h short, 2h extended").
 */
Test(selftest_svc, nsid_is_a_namespace_of_the_drive_and_the_code_a_test)
{
	struct device_row row;

	svc_up();
	struct answer a = request(dev_a, SELFTEST_CODE_SHORT, 1, SELFTEST_ORIGIN_API);
	cr_expect_eq(a.r, -EINVAL);
	cr_expect(strstr(a.reason, "nvme0 has no namespace 1 "), "%s", a.reason);
	a = request(dev_a, 3, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API);
	cr_expect_eq(a.r, -EINVAL);
	cr_expect_str_eq(a.reason, "self-test code 3: 1 short, 2 extended");
	cr_expect_eq(drive.n_sent, 0);

	cr_assert_eq(store_device_get(s, dev_a, &row), 0);
	snprintf(row.namespaces, sizeof(row.namespaces), "[{\"nsid\": 1}]");
	cr_assert_eq(fleet_put_device(f, &row), 0);
	drive_capable(dev_a);
	a = request(dev_a, SELFTEST_CODE_SHORT, 1, SELFTEST_ORIGIN_API);
	cr_assert_eq(a.r, 0, "%s", a.reason);
	cr_expect_eq(drive.nsid[0], 1);
	cr_expect_eq(fleet_st(dev_a).running_nsid, 1);
}

/*
 * docs/selftests.md: "A start is refused (409) … while a probe runs on it (in
 * the daemon or in `nvmond probe`)": `nvmond probe` holds the drive's lock.
 */
Test(selftest_svc, probe_of_another_process_refuses_a_start)
{
	char why[PROBE_LOCK_ERR_MAX];
	int fd = -1;

	svc_up();
	cr_assert_eq(probe_lock_take(dir, "A1", "nvmond probe", &fd, why), 0, "%s", why);
	struct answer a =
		request(dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API);
	probe_lock_release(fd);
	cr_expect_eq(a.r, -EBUSY);
	cr_expect(strstr(a.reason, "a probe is running on this drive in another nvmond process"),
		  "%s", a.reason);
	cr_expect_eq(drive.n_sent, 0);
	a = request(dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API);
	cr_expect_eq(a.r, 0, "the lock released: %s", a.reason);
}

/*
 * selftest_svc.h: "-EBUSY a test already runs … -ETIMEDOUT no answer within
 * device_timeout"; docs/api.md: "500 when one got no answer in time (cannot
 * read the Device Self-test log: Connection timed out)". What the drive
 * refused is not recorded as started.
 */
Test(selftest_svc, drive_answers_are_the_reason)
{
	svc_up();
	drive.start_r = -EBUSY;
	struct answer a =
		request(dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API);
	cr_expect_eq(a.r, -EBUSY);
	cr_expect_str_eq(
		a.reason,
		"nvme0: Device Self-test (short): the drive says a self-test is in progress");
	cr_expect_eq(n_actions(dev_a, -1), 0, "nothing recorded");
	cr_expect_eq(fleet_st(dev_a).running, 0);
	drive.start_r = 0;
	drive.read_r = -ETIMEDOUT;
	a = request(dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API);
	cr_expect_eq(a.r, -ETIMEDOUT);
	cr_expect_str_eq(a.reason, "cannot read the Device Self-test log: Connection timed out");
	cr_expect_eq(drive.n_sent, 1, "no command after a log that did not read");
}

/* ---- following the log ---- */

/*
 * docs/selftests.md, History: "Every result the log shows is stored once …
 * and who started it (schedule, catch-up, api, cli; none = another tool) …
 * The first read of a drive stores the results it already held."
 */
Test(selftest_svc, results_are_stored_once_with_who_started_them)
{
	struct store_selftest_row *rows = NULL;
	size_t n = 0;

	push_result(SELFTEST_CODE_EXTENDED, SELFTEST_RES_NO_ERROR);
	push_result(SELFTEST_CODE_SHORT, SELFTEST_RES_SEGMENT_FAILED);
	svc_up();
	sample(dev_a);
	cr_assert_eq(store_selftest_list(s, dev_a, 10, &rows, &n), 0);
	cr_expect_eq(n, 2, "the results it already held");
	free(rows);

	now_ms += 1000;
	cr_assert_eq(
		request(dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API).r,
		0);
	drive.log.percent = 50;
	now_ms += 1000;
	sample(dev_a); /* running: read at every poll */
	cr_expect_eq(fleet_st(dev_a).percent, 50);
	push_result(SELFTEST_CODE_SHORT, SELFTEST_RES_NO_ERROR);
	drive.log.current = 0;
	now_ms += 1000;
	sample(dev_a);
	cr_expect_eq(fleet_st(dev_a).running, 0);
	/* Another read of the same log: a start reads it first. */
	cr_assert_eq(
		request(dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_CLI).r,
		0);
	cr_assert_eq(store_selftest_list(s, dev_a, 10, &rows, &n), 0);
	cr_assert_eq(n, 3, "each result once");
	cr_expect_eq(rows[0].r.result, SELFTEST_RES_NO_ERROR);
	cr_expect_str_eq(rows[0].origin, "api");
	cr_expect_str_eq(rows[1].origin, "", "another tool's: none");
	cr_expect_eq(rows[1].r.result, SELFTEST_RES_SEGMENT_FAILED);
	free(rows);
}

/*
 * daemon/selftest/README.md: the service "reads each capable drive's log at
 * every poll while a test runs (every minute otherwise, so tests started by
 * nvme-cli or smartd show too)" (SELFTEST_SVC_IDLE_READ_MS).
 */
Test(selftest_svc, log_read_each_poll_while_a_test_runs_else_each_minute)
{
	mono_ms = 1000000;
	svc_up();
	sample(dev_a);
	cr_assert_eq(drive.n_read, 1, "the first poll reads it");
	mono_ms += SELFTEST_SVC_IDLE_READ_MS - 1;
	sample(dev_a);
	cr_expect_eq(drive.n_read, 1, "idle: not before a minute");
	drive.log.current = SELFTEST_CODE_SHORT; /* nvme-cli starts one */
	drive.log.percent = 10;
	mono_ms += 1;
	sample(dev_a);
	cr_expect_eq(drive.n_read, 2, "a minute later");
	cr_expect_eq(fleet_st(dev_a).running, SELFTEST_CODE_SHORT, "another tool's test shows");
	drive.log.percent = 20;
	mono_ms += 1000;
	sample(dev_a);
	cr_expect_eq(drive.n_read, 3, "running: at every poll");
	cr_expect_eq(fleet_st(dev_a).percent, 20);
}

/* selftest_svc.c, on_online(): "Gone: nothing runs that nvmond can see; the log tells the end." */
Test(selftest_svc, drive_gone_runs_nothing)
{
	struct fleet_device fd;

	svc_up();
	cr_assert_eq(
		request(dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API).r,
		0);
	cr_assert_eq(fleet_st(dev_a).running, SELFTEST_CODE_SHORT);
	cr_assert_eq(fleet_set_online(f, dev_a, false, now_ms), 0);
	cr_assert_eq(fleet_get(f, dev_a, &fd), 0);
	listener.on_online(listener.ctx, &fd.row, false, now_ms);
	cr_expect_eq(fleet_st(dev_a).running, 0);
}

/* ---- schedules ---- */

static void schedule(const char *serial, const char *v)
{
	char sect[64], err[CFG_ERR_MAX];

	snprintf(sect, sizeof(sect), "device \"%s\"", serial);
	cr_assert_eq(cfg_set(&c, sect, "selftest_schedule", v, err), 0, "%s", err);
}

/* The newest skip of @id: its reason, "" when none. */
static char *last_skip(int64_t id, char *buf, size_t len)
{
	size_t n = 0;
	struct store_selftest_action *v = actions(id, STORE_SELFTEST_SKIP, &n);

	snprintf(buf, len, "%s", n ? v[0].reason : "");
	free(v);
	return buf;
}

/*
 * docs/selftests.md, Schedules: "When a test falls due, nvmond starts it"
 * (origin schedule) — once: the ticks after it in the same minute, and the
 * next minute's, start nothing; the next day's occurrence starts again.
 */
Test(selftest_svc, schedule_starts_once_at_its_time)
{
	char why[256];

	schedule("A1", "daily 03:00 short");
	drive.completes = true; /* so that a second start would be sent, not refused */
	svc_up();
	sample(dev_a); /* 02:50: the schedule is read */
	cr_expect_eq(fleet_st(dev_a).next_ms, AT(3, 0, 0));
	cr_expect_eq(fleet_st(dev_a).next_code, SELFTEST_CODE_SHORT);
	tick_at(AT(2, 59, 59999));
	cr_expect_eq(drive.n_sent, 0, "not before its minute");
	tick_at(AT(3, 0, 500));
	cr_assert_eq(drive.n_sent, 1, "due at 03:00");
	cr_expect_eq(drive.stc[0], SELFTEST_CODE_SHORT);
	tick_at(AT(3, 0, 30500));
	tick_at(AT(3, 1, 500));
	cr_expect_eq(drive.n_sent, 1, "not twice");
	cr_expect_eq(n_actions(dev_a, STORE_SELFTEST_START), 1);
	cr_expect_str_eq(last_skip(dev_a, why, sizeof(why)), "", "nor skipped");
	size_t n = 0;
	struct store_selftest_action *v = actions(dev_a, STORE_SELFTEST_START, &n);
	cr_expect_str_eq(v[0].origin, "schedule");
	cr_expect_eq(v[0].ts_ms, AT(3, 0, 500));
	free(v);
	cr_expect_eq(fleet_st(dev_a).next_ms, AT(3, 0, 0) + MS_PER_DAY, "next: tomorrow");
	tick_at(AT(3, 0, 500) + MS_PER_DAY);
	cr_expect_eq(drive.n_sent, 2, "tomorrow's");
}

/*
 * docs/selftests.md, Schedules: "nvmond starts it unless … it is offline. The
 * skip is then recorded with its reason (skips in the API …); the test waits
 * for its next occurrence".
 */
Test(selftest_svc, drive_gone_at_its_time_is_skipped_with_the_reason)
{
	char why[256];

	schedule("A1", "daily 03:00 short");
	svc_up();
	sample(dev_a);
	cr_assert_eq(fleet_set_online(f, dev_a, false, now_ms), 0);
	tick_at(AT(3, 0, 500));
	cr_expect_eq(drive.n_sent, 0);
	cr_expect_str_eq(last_skip(dev_a, why, sizeof(why)), "nvme0 is offline");
	size_t n = 0;
	struct store_selftest_action *v = actions(dev_a, STORE_SELFTEST_SKIP, &n);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(v[0].origin, "schedule");
	cr_expect_eq(v[0].code, SELFTEST_CODE_SHORT);
	free(v);
	tick_at(AT(3, 1, 500));
	cr_expect_eq(n_actions(dev_a, STORE_SELFTEST_SKIP), 1, "skipped once, not at every tick");
	cr_assert_eq(fleet_set_online(f, dev_a, true, now_ms), 0);
	tick_at(AT(3, 0, 500) + MS_PER_DAY);
	cr_expect_eq(drive.n_sent, 1, "back: the next occurrence runs");
}

/*
 * docs/selftests.md, Schedules: "unless … the drive is asleep
 * (runtime-suspended): a scheduled test never wakes it"; docs/api.md, abort:
 * "409 when … asleep". A start asked by hand is not in that list: it is sent.
 */
Test(selftest_svc, asleep_drive_is_not_woken_by_its_schedule)
{
	struct fleet_facts ff = {
		.known = true, .id_known = true, .selftest_supported = true, .asleep = true};
	char why[256];

	schedule("A1", "daily 03:00 short");
	svc_up();
	sample(dev_a);
	cr_assert_eq(fleet_put_facts(f, dev_a, &ff), 0);
	tick_at(AT(3, 0, 500));
	cr_expect_eq(drive.n_read + drive.n_sent, 1, "the first sample's read only");
	cr_expect_str_eq(last_skip(dev_a, why, sizeof(why)),
			 "the drive is asleep (runtime-suspended): a scheduled test does not wake "
			 "it");
	struct answer a =
		request(dev_a, SELFTEST_CODE_ABORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API);
	cr_expect_eq(a.r, -EAGAIN);
	a = request(dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL, SELFTEST_ORIGIN_API);
	cr_expect_eq(a.r, 0, "%s", a.reason);
}

/* docs/selftests.md, Schedules: "unless … another self-test runs on it" (skipped, with why). */
Test(selftest_svc, another_test_running_at_its_time_is_a_skip)
{
	char why[256];

	schedule("A1", "daily 03:00 short");
	svc_up();
	sample(dev_a);
	drive.log.current = SELFTEST_CODE_EXTENDED; /* nvme-cli's */
	drive.log.percent = 10;
	tick_at(AT(3, 0, 500));
	cr_expect_eq(drive.n_sent, 0);
	cr_expect_str_eq(last_skip(dev_a, why, sizeof(why)),
			 "an extended self-test is already running on nvme0 (10 %)");
}

/*
 * docs/selftests.md, Schedules: "When a short and an extended test fall due
 * together, the extended one runs" (the short one is a skip, with why).
 */
Test(selftest_svc, extended_wins_when_both_fall_due)
{
	schedule("A1", "daily 03:00 short, daily 03:00 extended");
	svc_up();
	sample(dev_a);
	cr_expect_eq(fleet_st(dev_a).next_code, SELFTEST_CODE_EXTENDED);
	tick_at(AT(3, 0, 500));
	cr_assert_eq(drive.n_sent, 1);
	cr_expect_eq(drive.stc[0], SELFTEST_CODE_EXTENDED);
	size_t n = 0;
	struct store_selftest_action *v = actions(dev_a, STORE_SELFTEST_SKIP, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(v[0].code, SELFTEST_CODE_SHORT);
	cr_expect_str_eq(v[0].reason, "the extended self-test was due at the same time");
	free(v);
}

/*
 * docs/selftests.md, Schedules: "An occurrence missed while nvmond was down
 * runs once at the next start (one catch-up per type, however many were
 * missed); the start is recorded before anything else, so a restart never
 * runs it twice, and a schedule new to a drive starts at its next occurrence."
 */
Test(selftest_svc, missed_occurrence_is_caught_up_once)
{
	struct store_selftest_action last = {.device_id = dev_a,
					     .ts_ms = AT(3, 0, 500) - 3 * MS_PER_DAY,
					     .kind = STORE_SELFTEST_START,
					     .code = SELFTEST_CODE_SHORT,
					     .nsid = DEV_SELFTEST_NSID_ALL,
					     .origin = "schedule"};
	char err[CFG_ERR_MAX];
	size_t n = 0;

	cr_assert_eq(cfg_set(&c, "selftests", "default_schedule", "daily 03:00 short", err), 0,
		     "%s", err);
	cr_assert_eq(store_selftest_action_add(s, &last), 0);
	drive.completes = true;
	now_ms = AT(4, 0, 0); /* down since three days before: three missed */
	svc_up();
	drive_capable(dev_b);
	sample(dev_a);
	cr_assert_eq(drive.n_sent, 1, "caught up once");
	struct store_selftest_action *v = actions(dev_a, STORE_SELFTEST_START, &n);
	cr_assert_eq(n, 2);
	cr_expect_str_eq(v[0].origin, "catch-up");
	cr_expect_eq(v[0].code, SELFTEST_CODE_SHORT);
	free(v);
	sample(dev_b);
	cr_expect_eq(drive.n_sent, 1, "B2 never ran its schedule: it starts at the next one");

	svc_down(); /* a restart before the next occurrence */
	now_ms += MS_PER_MIN;
	svc_up();
	drive_capable(dev_b);
	sample(dev_a);
	sample(dev_b);
	cr_expect_eq(drive.n_sent, 1, "not again after a restart");
}

/* ---- with a guard: the answers on the loop ---- */

/* A backend as the daemon's poller makes it: each command on its controller's worker. */
static void guarded(void)
{
	be = calloc(1, sizeof(*be));
	cr_assert_not_null(be);
	be->ops = &fake_ops;
	cr_assert_eq(dev_backend_guard(be, 5000), 0);
}

static int answered;  /* requests answered, in order */
static int stop_at;   /* the loop stops once this many are */
static bool too_long; /* the loop's safety timer fired */

struct queued {
	struct answer a;
	int order; /* 1: answered first */
};

static void on_queued(void *arg, int r, uint8_t ended, const char *reason)
{
	struct queued *q = arg;

	on_done(&q->a, r, ended, reason);
	q->order = ++answered;
	if (answered >= stop_at)
		loop_stop(l);
}

static int64_t on_too_long(struct loop *lp, void *arg)
{
	(void)arg;
	too_long = true;
	loop_stop(lp);
	return -1;
}

/* The loop runs until @n requests in all were answered (5 s at most). */
static void run_until_answered(int n)
{
	int64_t guard = loop_add_timer(l, 5000, on_too_long, NULL);

	stop_at = n;
	too_long = false;
	if (answered < n)
		cr_assert_eq(loop_run(l), 0);
	cr_assert_not(too_long, "%d of %d requests answered in 5 s", answered, n);
	(void)loop_cancel_timer(l, guard);
}

/*
 * selftest_svc.h, selftest_svc_request(): "The loop never waits for the
 * drive: the log read and Device Self-test go to its controller's worker, and
 * @done follows on the loop, exactly once … One request per drive is out at a
 * time, the others wait their turn": the second start reads the log after the
 * first one's test began, and is refused (docs/selftests.md: "the drive's log
 * is read first").
 */
Test(selftest_svc, requests_to_a_drive_wait_their_turn)
{
	struct queued a = {0}, b = {0};

	guarded();
	svc_up();
	answered = 0;
	selftest_svc_request(t, dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL,
			     SELFTEST_ORIGIN_API, on_queued, &a);
	selftest_svc_request(t, dev_a, SELFTEST_CODE_EXTENDED, DEV_SELFTEST_NSID_ALL,
			     SELFTEST_ORIGIN_CLI, on_queued, &b);
	cr_expect_eq(a.a.calls + b.a.calls, 0, "answered on the loop, not before");
	run_until_answered(2);
	cr_expect_eq(a.a.calls, 1);
	cr_expect_eq(b.a.calls, 1);
	cr_expect_eq(a.order, 1);
	cr_expect_eq(a.a.r, 0, "%s", a.a.reason);
	cr_expect_eq(b.a.r, -EBUSY);
	cr_expect_str_eq(b.a.reason, "a short self-test is already running on nvme0 (0 %)");
	cr_expect_eq(drive.n_read, 2, "each read the log");
	cr_expect_eq(drive.n_sent, 1, "one Device Self-test");
}

/*
 * selftest_svc.h, selftest_svc_stop(): "drop the commands still out, and end
 * their requests with -ECANCELED (an HTTP thread waiting for one answers 503
 * at once)"; docs/api.md: "503 when the daemon stops first (shutting down)".
 * The one out and the one waiting its turn both end, once.
 */
Test(selftest_svc, stop_ends_the_requests_out_and_waiting)
{
	struct queued a = {0}, b = {0};

	guarded();
	svc_up();
	answered = 0;
	gate(true); /* the drive does not answer its log read yet */
	selftest_svc_request(t, dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL,
			     SELFTEST_ORIGIN_API, on_queued, &a);
	selftest_svc_request(t, dev_a, SELFTEST_CODE_SHORT, DEV_SELFTEST_NSID_ALL,
			     SELFTEST_ORIGIN_API, on_queued, &b);
	cr_expect_eq(answered, 0);
	selftest_svc_stop(t);
	cr_expect_eq(a.a.calls, 1);
	cr_expect_eq(b.a.calls, 1);
	cr_expect_eq(a.a.r, -ECANCELED);
	cr_expect_eq(b.a.r, -ECANCELED);
	cr_expect_str_eq(a.a.reason, "shutting down");
	cr_expect_str_eq(b.a.reason, "shutting down");
	gate(false);
	svc_down(); /* stops again: nothing more is answered */
	cr_expect_eq(a.a.calls + b.a.calls, 2);
	cr_expect_eq(drive.n_sent, 0, "no command followed");
}
