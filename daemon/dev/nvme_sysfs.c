/* SPDX-License-Identifier: MIT */
/*
 * NVMe controllers and namespaces as sysfs shows them. See nvme_sysfs.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "nvmond/dev/nvme_sysfs.h"

int nvme_sysfs_read_attr(const char *dir, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *fp;
	size_t n;
	int r = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, attr) >= sizeof(path))
		return -ENAMETOOLONG;
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	n = fread(buf, 1, len - 1, fp);
	if (ferror(fp))
		r = -EIO;
	fclose(fp);
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return r;
}

bool nvme_sysfs_ctrl_name_ok(const char *s)
{
	if (strncmp(s, "nvme", 4) != 0 || !s[4] || strlen(s) >= NVME_SYSFS_NAME_MAX)
		return false;
	for (const char *p = s + 4; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

bool nvme_sysfs_ns_name_ok(const char *s)
{
	static const char digits[] = "0123456789";
	size_t n;

	if (strncmp(s, "nvme", 4) != 0 || strlen(s) >= NVME_SYSFS_NAME_MAX)
		return false;
	s += 4;
	n = strspn(s, digits);
	if (!n || s[n] != 'n')
		return false;
	s += n + 1;
	n = strspn(s, digits);
	return n && !s[n];
}

/* The identity string @attr of @dir, cleaned as Identify's are, into @ret (@size bytes). */
static int read_ident_attr(const char *dir, const char *attr, char *ret, size_t size)
{
	char raw[128];
	size_t n;
	int r = nvme_sysfs_read_attr(dir, attr, raw, sizeof(raw));

	if (r < 0)
		return r;
	n = strlen(raw);
	idctl_str_clean(ret, (const uint8_t *)raw, n < size - 1 ? n : size - 1);
	return 0;
}

/* Identity from a controller's own sysfs directory. */
static int ctrl_from_dir(const char *dir, const char *name, struct nvme_sysfs_ctrl *ret)
{
	int r;

	*ret = (struct nvme_sysfs_ctrl){0};
	snprintf(ret->name, sizeof(ret->name), "%s", name);
	r = read_ident_attr(dir, "serial", ret->serial, sizeof(ret->serial));
	if (r == 0)
		r = read_ident_attr(dir, "model", ret->model, sizeof(ret->model));
	return r;
}

int nvme_sysfs_ctrl_read(const char *sysfs, const char *name, struct nvme_sysfs_ctrl *ret)
{
	char dir[PATH_MAX];

	if (!nvme_sysfs_ctrl_name_ok(name))
		return -EINVAL;
	snprintf(dir, sizeof(dir), "%s/class/nvme/%s", sysfs, name);
	if (access(dir, F_OK) < 0)
		return -errno;
	return ctrl_from_dir(dir, name, ret);
}

int nvme_sysfs_ctrl_of_chardev(const char *sysfs, dev_t rdev, struct nvme_sysfs_ctrl *ret)
{
	char link[PATH_MAX], real[PATH_MAX], *base, *parent;

	snprintf(link, sizeof(link), "%s/dev/char/%u:%u", sysfs, major(rdev), minor(rdev));
	if (!realpath(link, real))
		return errno == ENOENT ? -ENOENT : -errno;
	/* .../nvme/nvme3: a controller of the nvme class, nothing else. */
	base = strrchr(real, '/');
	if (!base || !nvme_sysfs_ctrl_name_ok(base + 1))
		return -ENOENT;
	*base = '\0';
	parent = strrchr(real, '/');
	if (!parent || strcmp(parent + 1, "nvme") != 0)
		return -ENOENT;
	*base = '/';
	return ctrl_from_dir(real, base + 1, ret);
}

bool nvme_sysfs_ident_eq(const struct nvme_sysfs_ctrl *c, const char *serial, const char *model)
{
	if (!serial || !serial[0] || strcmp(c->serial, serial) != 0)
		return false;
	return !model || !model[0] || strcmp(c->model, model) == 0;
}

int nvme_sysfs_ctrl_find(const char *sysfs, const char *serial, const char *model,
			 struct nvme_sysfs_ctrl *ret)
{
	char dir[PATH_MAX];
	struct dirent *de;
	long best = -1;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/class/nvme", sysfs);
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? -ENODEV : -errno;
	while ((de = readdir(d))) {
		struct nvme_sysfs_ctrl c;
		if (!nvme_sysfs_ctrl_name_ok(de->d_name) ||
		    nvme_sysfs_ctrl_read(sysfs, de->d_name, &c) < 0)
			continue;
		if (!nvme_sysfs_ident_eq(&c, serial, model))
			continue;
		long num = strtol(de->d_name + 4, NULL, 10);
		if (best < 0 || num < best) {
			best = num;
			*ret = c;
		}
	}
	closedir(d);
	return best < 0 ? -ENODEV : 0;
}

static int read_devt(const char *dir, dev_t *ret)
{
	char buf[32];
	unsigned maj, mnr;
	int r = nvme_sysfs_read_attr(dir, "dev", buf, sizeof(buf));

	if (r < 0)
		return r;
	if (sscanf(buf, "%u:%u", &maj, &mnr) != 2)
		return -EIO;
	*ret = makedev(maj, mnr);
	return 0;
}

/* A namespace from its block device directory. */
static int ns_from_dir(const char *dir, const char *name, struct nvme_sysfs_ns *ret)
{
	char buf[32];
	unsigned long nsid;
	char *end;
	int r;

	*ret = (struct nvme_sysfs_ns){0};
	snprintf(ret->name, sizeof(ret->name), "%s", name);
	r = read_devt(dir, &ret->dev);
	if (r < 0)
		return r;
	r = nvme_sysfs_read_attr(dir, "nsid", buf, sizeof(buf));
	if (r < 0)
		return r;
	nsid = strtoul(buf, &end, 10);
	if (!buf[0] || *end || nsid == 0 || nsid > UINT32_MAX)
		return -EIO;
	ret->nsid = (uint32_t)nsid;
	if (nvme_sysfs_read_attr(dir, "wwid", ret->wwid, sizeof(ret->wwid)) < 0)
		ret->wwid[0] = '\0';
	return 0;
}

/* Add the namespaces in @dir (entries named like a namespace) to @v. */
static void ns_scan_dir(const char *dir, struct nvme_sysfs_ns *v, size_t cap, size_t *n)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)) && *n < cap) {
		char sub[PATH_MAX];
		if (!nvme_sysfs_ns_name_ok(de->d_name))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		if (ns_from_dir(sub, de->d_name, &v[*n]) == 0)
			(*n)++;
	}
	closedir(d);
}

/* The nvme-subsystem directory holding controller @ctrl, for multipath heads. */
static bool subsys_of(const char *sysfs, const char *ctrl, char *ret, size_t len)
{
	char dir[PATH_MAX], probe[PATH_MAX * 2];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/class/nvme-subsystem", sysfs);
	d = opendir(dir);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(probe, sizeof(probe), "%s/%s/%s", dir, de->d_name, ctrl);
		if (access(probe, F_OK) == 0)
			found = (size_t)snprintf(ret, len, "%.*s",
						 (int)(strlen(probe) - strlen(ctrl) - 1),
						 probe) < len;
	}
	closedir(d);
	return found;
}

static int by_nsid(const void *a, const void *b)
{
	const struct nvme_sysfs_ns *x = a, *y = b;

	return x->nsid < y->nsid ? -1 : x->nsid > y->nsid;
}

int nvme_sysfs_ns_list(const char *sysfs, const char *ctrl, struct nvme_sysfs_ns *v, size_t cap,
		       size_t *ret_n)
{
	char dir[PATH_MAX], sub[PATH_MAX];
	size_t n = 0;

	if (!nvme_sysfs_ctrl_name_ok(ctrl))
		return -EINVAL;
	snprintf(dir, sizeof(dir), "%s/class/nvme/%s", sysfs, ctrl);
	if (access(dir, F_OK) < 0)
		return -errno;
	ns_scan_dir(dir, v, cap, &n);
	if (subsys_of(sysfs, ctrl, sub, sizeof(sub)))
		ns_scan_dir(sub, v, cap, &n);
	qsort(v, n, sizeof(*v), by_nsid);
	*ret_n = n;
	return 0;
}

int nvme_sysfs_ns_find(const char *sysfs, const char *ctrl, uint32_t nsid,
		       struct nvme_sysfs_ns *ret)
{
	struct nvme_sysfs_ns v[NVME_SYSFS_NS_MAX];
	size_t n = 0;
	int r = nvme_sysfs_ns_list(sysfs, ctrl, v, NVME_SYSFS_NS_MAX, &n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		if (v[i].nsid == nsid) {
			*ret = v[i];
			return 0;
		}
	return -ENOENT;
}

int nvme_sysfs_ns_of_dev(const char *sysfs, dev_t dev, struct nvme_sysfs_ns *ret,
			 char (*ret_ctrls)[NVME_SYSFS_NAME_MAX], size_t cap, size_t *ret_n_ctrls)
{
	char link[PATH_MAX], real[PATH_MAX], mp[PATH_MAX + 16];
	struct nvme_sysfs_ns ns;
	size_t n = 0;
	DIR *d;
	int r;

	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sysfs, major(dev), minor(dev));
	if (!realpath(link, real))
		return errno == ENOENT ? -ENOENT : -errno;
	char *base = strrchr(real, '/');
	if (!base || !nvme_sysfs_ns_name_ok(base + 1))
		return -ENOENT;
	r = ns_from_dir(real, base + 1, &ns);
	if (r < 0)
		return r;
	if (ns.dev != dev)
		return -ENOENT;
	/* A multipath head: its paths nvme<S>c<C>n<N> name the controllers. */
	snprintf(mp, sizeof(mp), "%s/multipath", real);
	d = opendir(mp);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			unsigned s, c, k;
			int end = 0;
			if (sscanf(de->d_name, "nvme%uc%un%u%n", &s, &c, &k, &end) != 3 ||
			    de->d_name[end])
				continue;
			if (n < cap)
				snprintf(ret_ctrls[n], NVME_SYSFS_NAME_MAX, "nvme%u", c);
			n++;
		}
		closedir(d);
	} else {
		/* .../nvme/nvme3/nvme3n1: the parent is the controller. */
		*base = '\0';
		char *p = strrchr(real, '/');
		if (!p || !nvme_sysfs_ctrl_name_ok(p + 1))
			return -ENOENT;
		*p = '\0';
		char *q = strrchr(real, '/');
		if (!q || strcmp(q + 1, "nvme") != 0)
			return -ENOENT;
		if (cap > 0)
			snprintf(ret_ctrls[0], NVME_SYSFS_NAME_MAX, "%s", p + 1);
		n = 1;
	}
	if (n == 0 || n > cap)
		return -ENOENT;
	*ret = ns;
	*ret_n_ctrls = n;
	return 0;
}
