/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/decode/idctl.h"
#include "nvmond/decode/smart.h"

/*
 * What sysfs tells about an NVMe controller without sending it a command, so
 * without CAP_SYS_ADMIN and without waking it: the PCIe link of its PCI
 * function, whether that function is runtime-suspended, the temperatures the
 * driver's hwmon device shows, and the identity the driver read at probe.
 * The readers take the sysfs root ("/sys", or a fixture tree in tests) and
 * a controller name ("nvme0"); they read files only and never log. The
 * parsers and the link helpers are pure.
 */

/*
 * A PCIe link: speeds in tenths of GT/s (25 = 2.5 GT/s, 160 = 16.0 GT/s),
 * widths in lanes. 0 = unknown (the file is missing, says "Unknown", or the
 * link is down).
 */
struct nvme_pcie_link {
	unsigned cur_speed_dgts;
	unsigned cur_width;
	unsigned max_speed_dgts; /* what the drive supports */
	unsigned max_width;
};

/* "PCIe 16.0 GT/s x2 (max 16.0 GT/s x4)" and a little room. */
#define NVME_PCIE_LINK_STR_MAX 64

/**
 * nvme_pcie_speed_parse() - Parse a current_link_speed / max_link_speed
 * value: "8.0 GT/s PCIe" (current kernels), "8 GT/s" (older ones),
 * "Unknown", "Unknown speed". Pure.
 * Return: 0 with *@ret_dgts (0 for unknown), or -EINVAL for anything else
 * (e.g. a conventional PCI bus speed, "33 MHz PCI").
 */
int nvme_pcie_speed_parse(const char *s, unsigned *ret_dgts);

/**
 * nvme_pcie_width_parse() - Parse a current_link_width / max_link_width
 * value: lanes in decimal ("4"; "x4" accepted). 0 (link down) and 255 (the
 * kernel's "unknown width") give 0. Pure.
 * Return: 0 with *@ret_width, or -EINVAL.
 */
int nvme_pcie_width_parse(const char *s, unsigned *ret_width);

/**
 * nvme_pcie_gen() - The PCIe generation of a speed: 2.5 → 1, 5 → 2, 8 → 3,
 * 16 → 4, 32 → 5, 64 → 6 GT/s. Pure.
 * Return: 1..6, or 0 for an unknown speed.
 */
int nvme_pcie_gen(unsigned speed_dgts);

/**
 * nvme_pcie_link_degraded() - Whether the link runs slower or narrower than
 * the drive supports. A dimension with either side unknown is not degraded.
 * Pure.
 */
bool nvme_pcie_link_degraded(const struct nvme_pcie_link *l);

/**
 * nvme_pcie_link_known() - Whether anything of the link is known. Pure.
 */
bool nvme_pcie_link_known(const struct nvme_pcie_link *l);

/**
 * nvme_pcie_link_format() - "PCIe 8.0 GT/s x2 (max 8.0 GT/s x4)"; unknown
 * parts read "? GT/s" and "x?", the "(max …)" part is left out when nothing
 * of it is known, and a link of which nothing is known reads "PCIe link
 * unknown". Pure.
 * Return: the length snprintf() gives.
 */
int nvme_pcie_link_format(const struct nvme_pcie_link *l, char *buf, size_t len);

/**
 * nvme_hwinfo_pci_dir() - The sysfs directory of the PCI function behind
 * controller @ctrl (the target of class/nvme/@ctrl/device).
 * Return: 0, -EINVAL (not a controller name), -ENOENT (no such
 * controller), -ENODEV (a controller on no PCI function: fabrics, or a
 * platform device), -ENAMETOOLONG, or negative errno.
 */
int nvme_hwinfo_pci_dir(const char *sysfs, const char *ctrl, char *ret, size_t len);

/**
 * nvme_hwinfo_link_read() - The PCIe link of controller @ctrl. Files that
 * are missing or unreadable leave their field unknown.
 * Return: 0, or what nvme_hwinfo_pci_dir() returns.
 */
int nvme_hwinfo_link_read(const char *sysfs, const char *ctrl, struct nvme_pcie_link *ret);

/* power/runtime_status of the PCI function. */
enum nvme_runtime_status {
	NVME_RUNTIME_UNKNOWN,
	NVME_RUNTIME_ACTIVE,
	NVME_RUNTIME_SUSPENDED,
	NVME_RUNTIME_SUSPENDING,
	NVME_RUNTIME_RESUMING,
	NVME_RUNTIME_UNSUPPORTED, /* no runtime PM: always powered */
};

/** nvme_runtime_status_parse() - "active", "suspended", …; anything else UNKNOWN. Pure. */
enum nvme_runtime_status nvme_runtime_status_parse(const char *s);

/** nvme_runtime_status_name() - The sysfs word for @s ("unknown" for UNKNOWN). Pure. */
const char *nvme_runtime_status_name(enum nvme_runtime_status s);

/**
 * nvme_runtime_asleep() - Whether a command would wake the drive: its PCI
 * function is suspended. One that is suspending or resuming is not asleep
 * (it is on its way, or awake already). Pure.
 */
bool nvme_runtime_asleep(enum nvme_runtime_status s);

/**
 * nvme_hwinfo_runtime_read() - power/runtime_status of controller @ctrl's PCI
 * function.
 * Return: 0 with *@ret, or what nvme_hwinfo_pci_dir() returns, or the
 * negative errno of reading the file (-ENOENT without runtime PM support in
 * the kernel).
 */
int nvme_hwinfo_runtime_read(const char *sysfs, const char *ctrl, enum nvme_runtime_status *ret);

/*
 * Temperatures from the nvme driver's hwmon device, in Kelvin like the SMART
 * log (0 = not shown). The driver shows the composite as "Composite" and the
 * implemented sensors as "Sensor 1".."Sensor 8", in millidegrees Celsius.
 */
struct nvme_hwmon_temps {
	uint16_t composite_k;
	uint16_t sensor_k[SMART_NUM_SENSORS];
	/*
	 * temp1_max: the composite's over-temperature threshold (the driver
	 * reads it with Get Features 04h; it is WCTEMP unless someone set it).
	 */
	uint16_t wctemp_k;
	uint16_t cctemp_k; /* temp1_crit: CCTEMP from Identify */
	/* tempN_max of sensor N (Get Features 04h, TMPSEL N); 65535 = none set */
	uint16_t sensor_max_k[SMART_NUM_SENSORS];
};

/**
 * nvme_hwmon_mc_to_kelvin() - A hwmon value in millidegrees Celsius as Kelvin,
 * rounded to the nearest as the kernel does (millicelsius_to_kelvin()), so
 * a value the nvme driver converted from Kelvin comes back exact. Pure.
 * Return: Kelvin, 0 below 1 K (nothing real), 65535 at most.
 */
uint16_t nvme_hwmon_mc_to_kelvin(long long mc);

/**
 * nvme_hwmon_label_slot() - Which temperature a label names: 0 for
 * "Composite", N for "Sensor N" (1..8). Pure.
 * Return: 0..8, or -1 for any other label.
 */
int nvme_hwmon_label_slot(const char *label);

/**
 * nvme_hwinfo_temps_read() - The temperatures of controller @ctrl from its
 * hwmon device: class/nvme/@ctrl/hwmonN (current kernels), else the PCI
 * function's hwmon/hwmonN (the first kernels with nvme hwmon, from 5.5). A
 * temperature without a label is
 * placed by its channel as the driver numbers them (temp1 composite,
 * tempN+1 sensor N). Reading temp*_input makes the driver send Get Log
 * Page 02h to the drive: where a sleeping drive must not be woken, ask
 * nvme_hwinfo_runtime_read() first.
 * Return: 0, -ENOENT when the controller has no hwmon device (before 5.5,
 * or CONFIG_NVME_HWMON off), or what nvme_hwinfo_pci_dir() returns other than
 * -ENODEV.
 */
int nvme_hwinfo_temps_read(const char *sysfs, const char *ctrl, struct nvme_hwmon_temps *ret);

/* The identity the driver read from Identify Controller at probe. */
struct nvme_hwinfo_ident {
	char model[sizeof(((struct idctl *)0)->model)];
	char serial[sizeof(((struct idctl *)0)->serial)];
	char firmware[sizeof(((struct idctl *)0)->firmware)]; /* "" when not shown */
};

/**
 * nvme_hwinfo_ident_read() - model, serial and firmware_rev of controller
 * @ctrl, cleaned as idctl_decode() cleans them. firmware_rev is what the
 * driver last read (at probe, or after a firmware activation notice), so it
 * can lag behind a drive that activated new firmware without telling.
 * Return: 0, -EINVAL (not a controller name), -ENOENT, or negative errno.
 */
int nvme_hwinfo_ident_read(const char *sysfs, const char *ctrl, struct nvme_hwinfo_ident *ret);

/* Longest ANA state sysfs shows ("persistent-loss"), with its NUL. */
#define NVME_ANA_STATE_MAX 20

/**
 * nvme_hwinfo_ana_read() - The ANA state of namespace @ns (the block device
 * "nvme<S>n<N>") on the path through controller @ctrl: the ana_state of the
 * path device "nvme<S>c<C>n<N>" under the controller (native multipath on a
 * controller with ANA reporting), e.g. "optimized", "non-optimized",
 * "inaccessible", "persistent-loss", "change". Reads sysfs only.
 * Return: 0; -ENOENT where there is none (no multipath, no ANA); -EINVAL for a
 * name that is not a controller's or a namespace's; or negative errno.
 */
int nvme_hwinfo_ana_read(const char *sysfs, const char *ctrl, const char *ns,
			 char ret[NVME_ANA_STATE_MAX]);
