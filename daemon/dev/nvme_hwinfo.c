/* SPDX-License-Identifier: MIT */
/*
 * PCIe link, runtime power state, hwmon temperatures and identity of NVMe
 * controllers, from sysfs. See nvme_hwinfo.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvmond/dev/nvme_hwinfo.h"
#include "nvmond/dev/nvme_sysfs.h"

static int ctrl_dir(const char *sysfs, const char *ctrl, char *ret, size_t len)
{
	if (!nvme_sysfs_ctrl_name_ok(ctrl))
		return -EINVAL;
	if ((size_t)snprintf(ret, len, "%s/class/nvme/%s", sysfs, ctrl) >= len)
		return -ENAMETOOLONG;
	if (access(ret, F_OK) < 0)
		return -errno;
	return 0;
}

/* "0000:02:00.0": a PCI function (domain:bus:device.function). */
static bool pci_name_ok(const char *s)
{
	unsigned dom, bus, dev, fn;
	int end = 0;

	return sscanf(s, "%4x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &end) == 4 && end == 12 &&
	       s[end] == '\0';
}

int nvme_pcie_speed_parse(const char *s, unsigned *ret_dgts)
{
	unsigned whole = 0, tenth = 0;
	const char *p = s;

	*ret_dgts = 0;
	if (strncmp(s, "Unknown", 7) == 0)
		return 0;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	while (*p >= '0' && *p <= '9' && whole < 1000)
		whole = whole * 10 + (unsigned)(*p++ - '0');
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		tenth = (unsigned)(*p++ - '0');
	}
	if (strncmp(p, " GT/s", 5) != 0 || (p[5] != '\0' && p[5] != ' '))
		return -EINVAL;
	*ret_dgts = whole * 10 + tenth;
	return 0;
}

int nvme_pcie_width_parse(const char *s, unsigned *ret_width)
{
	unsigned long v;
	char *end;

	*ret_width = 0;
	if (*s == 'x')
		s++;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	v = strtoul(s, &end, 10);
	if (*end)
		return -EINVAL;
	*ret_width = v <= 32 ? (unsigned)v : 0; /* 255: the kernel's unknown width */
	return 0;
}

int nvme_pcie_gen(unsigned speed_dgts)
{
	static const unsigned gen[] = {25, 50, 80, 160, 320, 640};

	for (size_t i = 0; i < sizeof(gen) / sizeof(gen[0]); i++)
		if (speed_dgts == gen[i])
			return (int)i + 1;
	return 0;
}

bool nvme_pcie_link_degraded(const struct nvme_pcie_link *l)
{
	return (l->cur_speed_dgts && l->max_speed_dgts && l->cur_speed_dgts < l->max_speed_dgts) ||
	       (l->cur_width && l->max_width && l->cur_width < l->max_width);
}

bool nvme_pcie_link_known(const struct nvme_pcie_link *l)
{
	return l->cur_speed_dgts || l->cur_width || l->max_speed_dgts || l->max_width;
}

/* "8.0 GT/s x4", "? GT/s x4", "8.0 GT/s x?" */
static void format_pair(unsigned speed, unsigned width, char *buf, size_t len)
{
	char s[24] = "?", w[12] = "?";

	if (speed)
		snprintf(s, sizeof(s), "%u.%u", speed / 10, speed % 10);
	if (width)
		snprintf(w, sizeof(w), "%u", width);
	snprintf(buf, len, "%s GT/s x%s", s, w);
}

int nvme_pcie_link_format(const struct nvme_pcie_link *l, char *buf, size_t len)
{
	char cur[48], max[48];

	if (!nvme_pcie_link_known(l))
		return snprintf(buf, len, "PCIe link unknown");
	format_pair(l->cur_speed_dgts, l->cur_width, cur, sizeof(cur));
	if (!l->max_speed_dgts && !l->max_width)
		return snprintf(buf, len, "PCIe %s", cur);
	format_pair(l->max_speed_dgts, l->max_width, max, sizeof(max));
	return snprintf(buf, len, "PCIe %s (max %s)", cur, max);
}

int nvme_hwinfo_pci_dir(const char *sysfs, const char *ctrl, char *ret, size_t len)
{
	char dir[PATH_MAX], link[PATH_MAX + 8], real[PATH_MAX];
	const char *base;
	int r = ctrl_dir(sysfs, ctrl, dir, sizeof(dir));

	if (r < 0)
		return r;
	snprintf(link, sizeof(link), "%s/device", dir);
	if (!realpath(link, real))
		return errno == ENOENT ? -ENODEV : -errno;
	base = strrchr(real, '/');
	if (!base || !pci_name_ok(base + 1))
		return -ENODEV;
	if ((size_t)snprintf(ret, len, "%s", real) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int nvme_hwinfo_link_read(const char *sysfs, const char *ctrl, struct nvme_pcie_link *ret)
{
	char pci[PATH_MAX], buf[64];
	struct nvme_pcie_link l = {0};
	int r = nvme_hwinfo_pci_dir(sysfs, ctrl, pci, sizeof(pci));

	if (r < 0)
		return r;
	/* Each field on its own: a missing or odd file leaves that one unknown. */
	if (nvme_sysfs_read_attr(pci, "current_link_speed", buf, sizeof(buf)) == 0)
		(void)nvme_pcie_speed_parse(buf, &l.cur_speed_dgts);
	if (nvme_sysfs_read_attr(pci, "current_link_width", buf, sizeof(buf)) == 0)
		(void)nvme_pcie_width_parse(buf, &l.cur_width);
	if (nvme_sysfs_read_attr(pci, "max_link_speed", buf, sizeof(buf)) == 0)
		(void)nvme_pcie_speed_parse(buf, &l.max_speed_dgts);
	if (nvme_sysfs_read_attr(pci, "max_link_width", buf, sizeof(buf)) == 0)
		(void)nvme_pcie_width_parse(buf, &l.max_width);
	*ret = l;
	return 0;
}

static const char *const runtime_names[] = {
	[NVME_RUNTIME_UNKNOWN] = "unknown",	[NVME_RUNTIME_ACTIVE] = "active",
	[NVME_RUNTIME_SUSPENDED] = "suspended", [NVME_RUNTIME_SUSPENDING] = "suspending",
	[NVME_RUNTIME_RESUMING] = "resuming",	[NVME_RUNTIME_UNSUPPORTED] = "unsupported",
};

enum nvme_runtime_status nvme_runtime_status_parse(const char *s)
{
	for (size_t i = NVME_RUNTIME_ACTIVE; i < sizeof(runtime_names) / sizeof(runtime_names[0]);
	     i++)
		if (strcmp(s, runtime_names[i]) == 0)
			return (enum nvme_runtime_status)i;
	return NVME_RUNTIME_UNKNOWN;
}

const char *nvme_runtime_status_name(enum nvme_runtime_status s)
{
	return (size_t)s < sizeof(runtime_names) / sizeof(runtime_names[0])
		       ? runtime_names[s]
		       : runtime_names[NVME_RUNTIME_UNKNOWN];
}

bool nvme_runtime_asleep(enum nvme_runtime_status s)
{
	return s == NVME_RUNTIME_SUSPENDED;
}

int nvme_hwinfo_runtime_read(const char *sysfs, const char *ctrl, enum nvme_runtime_status *ret)
{
	char pci[PATH_MAX], buf[32];
	int r = nvme_hwinfo_pci_dir(sysfs, ctrl, pci, sizeof(pci));

	if (r < 0)
		return r;
	r = nvme_sysfs_read_attr(pci, "power/runtime_status", buf, sizeof(buf));
	if (r < 0)
		return r;
	*ret = nvme_runtime_status_parse(buf);
	return 0;
}

uint16_t nvme_hwmon_mc_to_kelvin(long long mc)
{
	/* DIV_ROUND_CLOSEST(mc + 273150, 1000), halves away from zero */
	long long mk = mc + 273150, k;

	if (mk < 500)
		return 0;
	k = (mk + 500) / 1000;
	return k > UINT16_MAX ? UINT16_MAX : (uint16_t)k;
}

int nvme_hwmon_label_slot(const char *label)
{
	if (strcmp(label, "Composite") == 0)
		return 0;
	if (strncmp(label, "Sensor ", 7) == 0 && label[7] >= '1' &&
	    label[7] <= '0' + SMART_NUM_SENSORS && label[8] == '\0')
		return label[7] - '0';
	return -1;
}

/* A hwmon directory of the nvme driver in @dir: an entry "hwmon<N>" whose name is "nvme". */
static bool find_hwmon(const char *dir, char *ret, size_t len)
{
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(dir);

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		char sub[PATH_MAX], name[32];
		unsigned n;
		int end = 0;

		if (sscanf(de->d_name, "hwmon%u%n", &n, &end) != 1 || de->d_name[end])
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name) >= sizeof(sub))
			continue;
		/* No name file: trust the place; another driver's name: not ours. */
		if (nvme_sysfs_read_attr(sub, "name", name, sizeof(name)) == 0 &&
		    strcmp(name, "nvme") != 0)
			continue;
		found = (size_t)snprintf(ret, len, "%s", sub) < len;
	}
	closedir(d);
	return found;
}

static bool read_mc(const char *dir, unsigned ch, const char *what, uint16_t *ret_k)
{
	char attr[32], buf[32], *end;
	long long v;

	snprintf(attr, sizeof(attr), "temp%u_%s", ch, what);
	if (nvme_sysfs_read_attr(dir, attr, buf, sizeof(buf)) < 0 || !buf[0])
		return false;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || *end)
		return false;
	*ret_k = nvme_hwmon_mc_to_kelvin(v);
	return true;
}

/* The driver's channels: temp1 the composite, temp2..temp9 sensors 1..8. */
#define HWMON_CHANNELS (1 + SMART_NUM_SENSORS)

int nvme_hwinfo_temps_read(const char *sysfs, const char *ctrl, struct nvme_hwmon_temps *ret)
{
	char dir[PATH_MAX], pci[PATH_MAX], hw[PATH_MAX + 16];
	struct nvme_hwmon_temps t = {0};
	int r = ctrl_dir(sysfs, ctrl, dir, sizeof(dir));

	if (r < 0)
		return r;
	if (!find_hwmon(dir, hw, sizeof(hw))) {
		char sub[PATH_MAX + 8];

		r = nvme_hwinfo_pci_dir(sysfs, ctrl, pci, sizeof(pci));
		if (r == -ENODEV)
			return -ENOENT;
		if (r < 0)
			return r;
		snprintf(sub, sizeof(sub), "%s/hwmon", pci);
		if (!find_hwmon(sub, hw, sizeof(hw)))
			return -ENOENT;
	}
	for (unsigned ch = 1; ch <= HWMON_CHANNELS; ch++) {
		char attr[32], label[32];
		uint16_t k;
		int slot;

		if (!read_mc(hw, ch, "input", &k))
			continue;
		snprintf(attr, sizeof(attr), "temp%u_label", ch);
		slot = nvme_sysfs_read_attr(hw, attr, label, sizeof(label)) == 0
			       ? nvme_hwmon_label_slot(label)
			       : (int)ch - 1;
		if (slot == 0) {
			t.composite_k = k;
			(void)read_mc(hw, ch, "max", &t.wctemp_k);
			(void)read_mc(hw, ch, "crit", &t.cctemp_k);
		} else if (slot > 0) {
			t.sensor_k[slot - 1] = k;
			(void)read_mc(hw, ch, "max", &t.sensor_max_k[slot - 1]);
		}
	}
	*ret = t;
	return 0;
}

static void clean_into(char *dst, size_t dst_len, const char *raw)
{
	size_t n = strlen(raw);

	idctl_str_clean(dst, (const uint8_t *)raw, n < dst_len - 1 ? n : dst_len - 1);
}

int nvme_hwinfo_ident_read(const char *sysfs, const char *ctrl, struct nvme_hwinfo_ident *ret)
{
	char dir[PATH_MAX], raw[128];
	struct nvme_hwinfo_ident id = {0};
	int r = ctrl_dir(sysfs, ctrl, dir, sizeof(dir));

	if (r < 0)
		return r;
	r = nvme_sysfs_read_attr(dir, "model", raw, sizeof(raw));
	if (r < 0)
		return r;
	clean_into(id.model, sizeof(id.model), raw);
	r = nvme_sysfs_read_attr(dir, "serial", raw, sizeof(raw));
	if (r < 0)
		return r;
	clean_into(id.serial, sizeof(id.serial), raw);
	if (nvme_sysfs_read_attr(dir, "firmware_rev", raw, sizeof(raw)) == 0)
		clean_into(id.firmware, sizeof(id.firmware), raw);
	*ret = id;
	return 0;
}

int nvme_hwinfo_ana_read(const char *sysfs, const char *ctrl, const char *ns,
			 char ret[NVME_ANA_STATE_MAX])
{
	char dir[PATH_MAX], path[PATH_MAX], raw[64];
	unsigned subsys, nsnum, s, c, n;
	struct dirent *e;
	int r = ctrl_dir(sysfs, ctrl, dir, sizeof(dir)), end = 0;
	DIR *d;

	if (r < 0)
		return r;
	if (!nvme_sysfs_ns_name_ok(ns) || sscanf(ns, "nvme%un%u", &subsys, &nsnum) != 2)
		return -EINVAL;
	d = opendir(dir);
	if (!d)
		return -errno;
	r = -ENOENT;
	while ((e = readdir(d)) != NULL) {
		/* "nvme<S>c<C>n<N>": the path of namespace N of subsystem S through this
		 * controller (its instance C; the name says which). */
		if (sscanf(e->d_name, "nvme%uc%un%u%n", &s, &c, &n, &end) != 3 || e->d_name[end] ||
		    s != subsys || n != nsnum)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path))
			continue;
		if (nvme_sysfs_read_attr(path, "ana_state", raw, sizeof(raw)) < 0)
			continue;
		size_t k = strcspn(raw, " \n");
		if (k > NVME_ANA_STATE_MAX - 1)
			k = NVME_ANA_STATE_MAX - 1;
		memcpy(ret, raw, k);
		ret[k] = '\0';
		r = 0;
		break;
	}
	closedir(d);
	return r;
}
