/* SPDX-License-Identifier: MIT */
/*
 * The real backend's sysfs facts on the fixture trees (tests/fixtures/sysfs):
 * the runtime state a poll asks first, hwmon without privileges, a gone
 * controller, and the poll plan they lead to (issue 11).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "nvmond/demo/demo.h"
#include "nvmond/dev/dev.h"
#include "nvmond/monitor/pollplan.h"

#define FX(name) FIXTURES_DIR "/sysfs/" name

static struct dev_backend *open_fx(const char *root)
{
	struct dev_backend *b = NULL;

	cr_assert_eq(dev_nvme_open_at(root, &b), 0);
	return b;
}

Test(dev_facts, suspended_fixture_is_left_asleep)
{
	struct dev_backend *b = open_fx(FX("suspended"));
	enum nvme_runtime_status rt = NVME_RUNTIME_UNKNOWN;

	cr_assert_eq(dev_read_runtime(b, "nvme0", 0, &rt), 0);
	cr_expect_eq(rt, NVME_RUNTIME_SUSPENDED);
	cr_expect_eq(poll_plan(rt, false, DEV_ACCESS_ADMIN), POLL_ASLEEP);
	cr_expect_eq(poll_plan(rt, false, DEV_ACCESS_SYSFS), POLL_ASLEEP);
	dev_configure(b, &(struct dev_opts){.wake_sleeping = true});
	cr_expect_eq(poll_plan(rt, true, DEV_ACCESS_ADMIN), POLL_SMART);
	dev_backend_free(b);
}

Test(dev_facts, active_fixture_without_privileges_reads_hwmon)
{
	struct dev_backend *b = open_fx(FX("gen4-at-gen3x2"));
	enum nvme_runtime_status rt = NVME_RUNTIME_UNKNOWN;
	struct nvme_hwmon_temps t;

	cr_assert_eq(dev_read_runtime(b, "nvme0", 0, &rt), 0);
	cr_expect_eq(rt, NVME_RUNTIME_ACTIVE);
	cr_expect_eq(poll_plan(rt, false, DEV_ACCESS_SYSFS), POLL_HWMON);
	cr_assert_eq(dev_read_hwmon(b, "nvme0", 0, &t), 0);
	cr_expect_eq(t.composite_k, 315, "41.85 °C");
	cr_expect_eq(t.sensor_k[1], 320, "Sensor 2 at 46.85 °C");
	dev_backend_free(b);
}

Test(dev_facts, controller_without_pci_function_is_never_asleep)
{
	struct dev_backend *b = open_fx(FX("gen4-at-gen3x2"));
	enum nvme_runtime_status rt = NVME_RUNTIME_UNKNOWN;

	/* nvme1 is an NVMe/TCP controller: no PCI function, no runtime PM */
	cr_assert_eq(dev_read_runtime(b, "nvme1", 0, &rt), 0);
	cr_expect_eq(rt, NVME_RUNTIME_UNSUPPORTED);
	cr_expect_eq(poll_plan(rt, false, DEV_ACCESS_ADMIN), POLL_SMART);
	dev_backend_free(b);
}

Test(dev_facts, gone_and_bad_names)
{
	struct dev_backend *b = open_fx(FX("qemu"));
	enum nvme_runtime_status rt;
	struct nvme_hwmon_temps t;

	cr_expect_eq(dev_read_runtime(b, "nvme7", 0, &rt), -ENODEV, "gone");
	cr_expect_eq(dev_read_runtime(b, "../nvme0", 0, &rt), -EINVAL);
	cr_expect_eq(dev_read_hwmon(b, "nvme0/..", 0, &t), -EINVAL);
	dev_backend_free(b);
}

Test(dev_facts, no_hwmon_kernel)
{
	struct dev_backend *b = open_fx(FX("no-hwmon"));
	struct nvme_hwmon_temps t;

	cr_expect_eq(dev_read_hwmon(b, "nvme0", 0, &t), -ENOENT);
	dev_backend_free(b);
}

Test(dev_facts, demo_backend_is_always_awake)
{
	struct dev_backend *b = NULL;
	enum nvme_runtime_status rt = NVME_RUNTIME_UNKNOWN;
	struct nvme_hwmon_temps t;

	cr_assert_eq(dev_demo_open(&b), 0);
	cr_expect_eq(dev_read_runtime(b, "demo0", 0, &rt), 0);
	cr_expect_eq(rt, NVME_RUNTIME_UNSUPPORTED);
	cr_expect_eq(dev_read_hwmon(b, "demo0", 0, &t), -ENOENT);
	dev_backend_free(b);
}

Test(dev_facts, permission_errors)
{
	cr_expect(dev_no_permission(-EACCES));
	cr_expect(dev_no_permission(-EPERM));
	cr_expect_not(dev_no_permission(-ENODEV));
	cr_expect_not(dev_no_permission(0));
}
