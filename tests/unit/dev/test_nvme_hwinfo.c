/* SPDX-License-Identifier: MIT */
/*
 * PCIe link, runtime power state, hwmon temperatures and identity from the
 * fixture sysfs trees in tests/fixtures/sysfs (built by make.sh there, laid
 * out as real kernels lay them out):
 *   gen4-at-gen3x2  Linux 6.x, a Gen4 x4 980 PRO trained at Gen3 x2, hwmon
 *                   under the controller; nvme1 an NVMe/TCP controller
 *   suspended       Linux 5.6, a runtime-suspended SN770, hwmon under the PCI
 *                   function
 *   no-hwmon        Linux 4.19, no nvme hwmon, "8 GT/s", identity padded
 *   qemu            QEMU's controller behind a root port: 2.5 GT/s x1 both
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/dev/nvme_hwinfo.h"

#define FX(name) FIXTURES_DIR "/sysfs/" name

/* Kelvin as the driver shows it: K × 1000 - 273150 millidegrees. */
#define MC(k) ((long long)(k)*1000 - 273150)

Test(nvme_hwinfo, speed_parse)
{
	static const struct {
		const char *s;
		int r;
		unsigned dgts;
	} cases[] = {
		{"2.5 GT/s PCIe", 0, 25},   {"5.0 GT/s PCIe", 0, 50},	{"8.0 GT/s PCIe", 0, 80},
		{"16.0 GT/s PCIe", 0, 160}, {"32.0 GT/s PCIe", 0, 320}, {"64.0 GT/s PCIe", 0, 640},
		{"2.5 GT/s", 0, 25},	    {"5 GT/s", 0, 50},		{"8 GT/s", 0, 80},
		{"16 GT/s", 0, 160},	    {"Unknown", 0, 0},		{"Unknown speed", 0, 0},
		{"33 MHz PCI", -EINVAL, 0}, {"", -EINVAL, 0},		{"8.0GT/s", -EINVAL, 0},
		{"8.0 GT/sx", -EINVAL, 0},  {"8. GT/s", -EINVAL, 0},	{"fast", -EINVAL, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned v = 99;

		cr_expect_eq(nvme_pcie_speed_parse(cases[i].s, &v), cases[i].r, "'%s'", cases[i].s);
		cr_expect_eq(v, cases[i].dgts, "'%s': %u", cases[i].s, v);
	}
}

Test(nvme_hwinfo, width_parse_and_gen)
{
	unsigned w;

	cr_expect_eq(nvme_pcie_width_parse("4", &w), 0);
	cr_expect_eq(w, 4);
	cr_expect_eq(nvme_pcie_width_parse("x16", &w), 0);
	cr_expect_eq(w, 16);
	cr_expect_eq(nvme_pcie_width_parse("0", &w), 0, "link down");
	cr_expect_eq(w, 0);
	cr_expect_eq(nvme_pcie_width_parse("255", &w), 0, "the kernel's unknown width");
	cr_expect_eq(w, 0);
	cr_expect_eq(nvme_pcie_width_parse("", &w), -EINVAL);
	cr_expect_eq(nvme_pcie_width_parse("4 lanes", &w), -EINVAL);
	cr_expect_eq(nvme_pcie_width_parse("-1", &w), -EINVAL);

	cr_expect_eq(nvme_pcie_gen(25), 1);
	cr_expect_eq(nvme_pcie_gen(50), 2);
	cr_expect_eq(nvme_pcie_gen(80), 3);
	cr_expect_eq(nvme_pcie_gen(160), 4);
	cr_expect_eq(nvme_pcie_gen(320), 5);
	cr_expect_eq(nvme_pcie_gen(640), 6);
	cr_expect_eq(nvme_pcie_gen(0), 0);
	cr_expect_eq(nvme_pcie_gen(100), 0);
}

Test(nvme_hwinfo, degraded_and_format)
{
	static const struct {
		struct nvme_pcie_link l;
		bool degraded;
		const char *str;
	} cases[] = {
		{{80, 2, 80, 4}, true, "PCIe 8.0 GT/s x2 (max 8.0 GT/s x4)"},
		{{80, 2, 160, 4}, true, "PCIe 8.0 GT/s x2 (max 16.0 GT/s x4)"},
		{{80, 4, 160, 4}, true, "PCIe 8.0 GT/s x4 (max 16.0 GT/s x4)"},
		{{160, 4, 160, 4}, false, "PCIe 16.0 GT/s x4 (max 16.0 GT/s x4)"},
		{{25, 1, 25, 1}, false, "PCIe 2.5 GT/s x1 (max 2.5 GT/s x1)"},
		/* unknown on either side: not degraded in that dimension */
		{{0, 2, 160, 4}, true, "PCIe ? GT/s x2 (max 16.0 GT/s x4)"},
		{{0, 4, 160, 4}, false, "PCIe ? GT/s x4 (max 16.0 GT/s x4)"},
		{{80, 0, 0, 4}, false, "PCIe 8.0 GT/s x? (max ? GT/s x4)"},
		{{80, 4, 0, 0}, false, "PCIe 8.0 GT/s x4"},
		{{0, 0, 0, 0}, false, "PCIe link unknown"},
		/* a link faster than the drive claims is no degradation */
		{{160, 4, 80, 4}, false, "PCIe 16.0 GT/s x4 (max 8.0 GT/s x4)"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[NVME_PCIE_LINK_STR_MAX];

		cr_expect_eq(nvme_pcie_link_degraded(&cases[i].l), cases[i].degraded, "case %zu",
			     i);
		nvme_pcie_link_format(&cases[i].l, buf, sizeof(buf));
		cr_expect_str_eq(buf, cases[i].str, "case %zu", i);
	}
}

Test(nvme_hwinfo, gen4_drive_at_gen3_x2)
{
	struct nvme_pcie_link l;
	char buf[NVME_PCIE_LINK_STR_MAX], pci[PATH_MAX];

	cr_assert_eq(nvme_hwinfo_link_read(FX("gen4-at-gen3x2"), "nvme0", &l), 0);
	cr_expect_eq(l.cur_speed_dgts, 80);
	cr_expect_eq(l.cur_width, 2);
	cr_expect_eq(l.max_speed_dgts, 160);
	cr_expect_eq(l.max_width, 4);
	cr_expect_eq(nvme_pcie_gen(l.cur_speed_dgts), 3);
	cr_expect_eq(nvme_pcie_gen(l.max_speed_dgts), 4);
	cr_expect(nvme_pcie_link_degraded(&l));
	nvme_pcie_link_format(&l, buf, sizeof(buf));
	cr_expect_str_eq(buf, "PCIe 8.0 GT/s x2 (max 16.0 GT/s x4)");

	cr_assert_eq(nvme_hwinfo_pci_dir(FX("gen4-at-gen3x2"), "nvme0", pci, sizeof(pci)), 0);
	cr_expect(strstr(pci, "/0000:02:00.0") && !strstr(pci, "/nvme/"), "%s", pci);
}

Test(nvme_hwinfo, controllers_without_pci_function)
{
	struct nvme_pcie_link l;
	enum nvme_runtime_status s;
	struct nvme_hwmon_temps t;
	struct nvme_hwinfo_ident id;

	/* NVMe/TCP: a controller, but no link, no runtime PM of a PCI function, no hwmon. */
	cr_expect_eq(nvme_hwinfo_link_read(FX("gen4-at-gen3x2"), "nvme1", &l), -ENODEV);
	cr_expect_eq(nvme_hwinfo_runtime_read(FX("gen4-at-gen3x2"), "nvme1", &s), -ENODEV);
	cr_expect_eq(nvme_hwinfo_temps_read(FX("gen4-at-gen3x2"), "nvme1", &t), -ENOENT);
	cr_expect_eq(nvme_hwinfo_ident_read(FX("gen4-at-gen3x2"), "nvme1", &id), 0);
	cr_expect_str_eq(id.model, "Linux");
	/* No such controller; not a controller name. */
	cr_expect_eq(nvme_hwinfo_link_read(FX("gen4-at-gen3x2"), "nvme7", &l), -ENOENT);
	cr_expect_eq(nvme_hwinfo_link_read(FX("gen4-at-gen3x2"), "../nvme0", &l), -EINVAL);
	cr_expect_eq(nvme_hwinfo_temps_read(FX("gen4-at-gen3x2"), "nvme0n1", &t), -EINVAL);
	cr_expect_eq(nvme_hwinfo_ident_read(FX("gen4-at-gen3x2"), "nvme-subsys0", &id), -EINVAL);
}

Test(nvme_hwinfo, hwmon_under_the_controller)
{
	struct nvme_hwmon_temps t;

	cr_assert_eq(nvme_hwinfo_temps_read(FX("gen4-at-gen3x2"), "nvme0", &t), 0);
	cr_expect_eq(t.composite_k, 315);
	cr_expect_eq(t.sensor_k[0], 315);
	cr_expect_eq(t.sensor_k[1], 320);
	for (int i = 2; i < SMART_NUM_SENSORS; i++)
		cr_expect_eq(t.sensor_k[i], 0, "sensor %d is not implemented", i + 1);
	cr_expect_eq(t.wctemp_k, 355);
	cr_expect_eq(t.cctemp_k, 358);
	cr_expect_eq(t.sensor_max_k[0], 65535, "no per-sensor threshold set");
	cr_expect_eq(t.sensor_max_k[2], 0);
}

Test(nvme_hwinfo, suspended_drive)
{
	enum nvme_runtime_status s;
	struct nvme_hwmon_temps t;
	struct nvme_pcie_link l;

	cr_assert_eq(nvme_hwinfo_runtime_read(FX("suspended"), "nvme0", &s), 0);
	cr_expect_eq(s, NVME_RUNTIME_SUSPENDED);
	cr_expect(nvme_runtime_asleep(s));
	cr_expect_str_eq(nvme_runtime_status_name(s), "suspended");
	/* Its hwmon under the PCI function, as Linux 5.5 placed it. */
	cr_assert_eq(nvme_hwinfo_temps_read(FX("suspended"), "nvme0", &t), 0);
	cr_expect_eq(t.composite_k, 303);
	cr_expect_eq(t.sensor_k[0], 305);
	cr_expect_eq(t.sensor_k[1], 0);
	cr_expect_eq(t.wctemp_k, 353);
	cr_expect_eq(t.cctemp_k, 358);
	cr_assert_eq(nvme_hwinfo_link_read(FX("suspended"), "nvme0", &l), 0);
	cr_expect_not(nvme_pcie_link_degraded(&l));
	cr_expect_eq(nvme_pcie_gen(l.cur_speed_dgts), 4);

	cr_assert_eq(nvme_hwinfo_runtime_read(FX("gen4-at-gen3x2"), "nvme0", &s), 0);
	cr_expect_eq(s, NVME_RUNTIME_ACTIVE);
	cr_expect_not(nvme_runtime_asleep(s));
}

Test(nvme_hwinfo, runtime_status_words)
{
	static const struct {
		const char *s;
		enum nvme_runtime_status st;
		bool asleep;
	} cases[] = {
		{"active", NVME_RUNTIME_ACTIVE, false},
		{"suspended", NVME_RUNTIME_SUSPENDED, true},
		{"suspending", NVME_RUNTIME_SUSPENDING, false},
		{"resuming", NVME_RUNTIME_RESUMING, false},
		{"unsupported", NVME_RUNTIME_UNSUPPORTED, false},
		{"error", NVME_RUNTIME_UNKNOWN, false},
		{"", NVME_RUNTIME_UNKNOWN, false},
		{"Suspended", NVME_RUNTIME_UNKNOWN, false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum nvme_runtime_status st = nvme_runtime_status_parse(cases[i].s);

		cr_expect_eq(st, cases[i].st, "'%s'", cases[i].s);
		cr_expect_eq(nvme_runtime_asleep(st), cases[i].asleep, "'%s'", cases[i].s);
		if (cases[i].st != NVME_RUNTIME_UNKNOWN)
			cr_expect_str_eq(nvme_runtime_status_name(st), cases[i].s);
	}
	cr_expect_str_eq(nvme_runtime_status_name(NVME_RUNTIME_UNKNOWN), "unknown");
}

Test(nvme_hwinfo, no_hwmon_old_kernel)
{
	struct nvme_hwmon_temps t;
	struct nvme_pcie_link l;
	struct nvme_hwinfo_ident id;
	char buf[NVME_PCIE_LINK_STR_MAX];

	cr_expect_eq(nvme_hwinfo_temps_read(FX("no-hwmon"), "nvme0", &t), -ENOENT);
	cr_assert_eq(nvme_hwinfo_link_read(FX("no-hwmon"), "nvme0", &l), 0);
	nvme_pcie_link_format(&l, buf, sizeof(buf));
	cr_expect_str_eq(buf, "PCIe 8.0 GT/s x4 (max 8.0 GT/s x4)");
	cr_expect_not(nvme_pcie_link_degraded(&l));
	/* 4.19 printed the fields padded to their widths. */
	cr_assert_eq(nvme_hwinfo_ident_read(FX("no-hwmon"), "nvme0", &id), 0);
	cr_expect_str_eq(id.model, "INTEL SSDPEKNU010TZ");
	cr_expect_str_eq(id.serial, "BTKA1234567X1P0B");
	cr_expect_str_eq(id.firmware, "002C");
}

Test(nvme_hwinfo, qemu_layout)
{
	struct nvme_pcie_link l;
	struct nvme_hwmon_temps t;
	struct nvme_hwinfo_ident id;
	enum nvme_runtime_status s;
	char buf[NVME_PCIE_LINK_STR_MAX];

	cr_assert_eq(nvme_hwinfo_link_read(FX("qemu"), "nvme0", &l), 0);
	cr_expect_eq(l.cur_speed_dgts, 25);
	cr_expect_eq(l.cur_width, 1);
	cr_expect_eq(l.max_speed_dgts, 25);
	cr_expect_eq(l.max_width, 1);
	cr_expect_eq(nvme_pcie_gen(l.cur_speed_dgts), 1);
	cr_expect_not(nvme_pcie_link_degraded(&l));
	nvme_pcie_link_format(&l, buf, sizeof(buf));
	cr_expect_str_eq(buf, "PCIe 2.5 GT/s x1 (max 2.5 GT/s x1)");

	cr_assert_eq(nvme_hwinfo_temps_read(FX("qemu"), "nvme0", &t), 0);
	cr_expect_eq(t.composite_k, 323);
	cr_expect_eq(t.wctemp_k, 343);
	cr_expect_eq(t.cctemp_k, 373);
	for (int i = 0; i < SMART_NUM_SENSORS; i++)
		cr_expect_eq(t.sensor_k[i], 0);

	cr_assert_eq(nvme_hwinfo_ident_read(FX("qemu"), "nvme0", &id), 0);
	cr_expect_str_eq(id.model, "QEMU NVMe Ctrl");
	cr_expect_str_eq(id.serial, "NVMOND-VM-0000");
	cr_expect_str_eq(id.firmware, "8.2.2");
	cr_assert_eq(nvme_hwinfo_runtime_read(FX("qemu"), "nvme0", &s), 0);
	cr_expect_eq(s, NVME_RUNTIME_ACTIVE);
}

Test(nvme_hwinfo, millidegrees_to_kelvin)
{
	/* What the driver wrote from Kelvin comes back exact, over the whole range. */
	for (long long k = 1; k <= 65535; k++)
		cr_assert_eq(nvme_hwmon_mc_to_kelvin(MC(k)), k, "%lld K", k);
	/* Anything else to the nearest, halves up (DIV_ROUND_CLOSEST). */
	cr_expect_eq(nvme_hwmon_mc_to_kelvin(41349), 314, "41.349 °C = 314.499 K");
	cr_expect_eq(nvme_hwmon_mc_to_kelvin(41350), 315, "41.350 °C = 314.5 K");
	cr_expect_eq(nvme_hwmon_mc_to_kelvin(40000), 313, "40.000 °C = 313.15 K");
	cr_expect_eq(nvme_hwmon_mc_to_kelvin(-273150), 0, "0 K: nothing real");
	cr_expect_eq(nvme_hwmon_mc_to_kelvin(-400000), 0);
	cr_expect_eq(nvme_hwmon_mc_to_kelvin(99999999), 65535, "clamped");
}

Test(nvme_hwinfo, labels)
{
	cr_expect_eq(nvme_hwmon_label_slot("Composite"), 0);
	cr_expect_eq(nvme_hwmon_label_slot("Sensor 1"), 1);
	cr_expect_eq(nvme_hwmon_label_slot("Sensor 8"), 8);
	cr_expect_eq(nvme_hwmon_label_slot("Sensor 9"), -1);
	cr_expect_eq(nvme_hwmon_label_slot("Sensor 0"), -1);
	cr_expect_eq(nvme_hwmon_label_slot("Sensor 10"), -1);
	cr_expect_eq(nvme_hwmon_label_slot("Sensor"), -1);
	cr_expect_eq(nvme_hwmon_label_slot("composite"), -1);
	cr_expect_eq(nvme_hwmon_label_slot(""), -1);
}

/*
 * Issue 27: the ANA state of a namespace's path through a controller (native
 * multipath): /sys/class/nvme/nvme0/nvme0c0n1/ana_state for nvme0n1.
 */
Test(nvme_hwinfo, ana_state_of_a_path)
{
	char st[NVME_ANA_STATE_MAX] = "x";

	cr_assert_eq(nvme_hwinfo_ana_read(FX("gen4-at-gen3x2"), "nvme0", "nvme0n1", st), 0);
	cr_expect_str_eq(st, "optimized");
	cr_expect_eq(nvme_hwinfo_ana_read(FX("gen4-at-gen3x2"), "nvme0", "nvme0n2", st), -ENOENT,
		     "no path device: no ANA");
	cr_expect_eq(nvme_hwinfo_ana_read(FX("gen4-at-gen3x2"), "nvme0", "nvme1n1", st), -ENOENT,
		     "another subsystem's namespace");
	cr_expect_eq(nvme_hwinfo_ana_read(FX("qemu"), "nvme0", "nvme0n1", st), -ENOENT,
		     "QEMU 7.2 has no ANA");
	cr_expect_eq(nvme_hwinfo_ana_read(FX("gen4-at-gen3x2"), "nvme0", "nvme0n1/../x", st),
		     -EINVAL);
	cr_expect_eq(nvme_hwinfo_ana_read(FX("gen4-at-gen3x2"), "../nvme0", "nvme0n1", st),
		     -EINVAL);
}
