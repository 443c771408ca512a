/* SPDX-License-Identifier: MIT */
/*
 * Static files of the web root. No HTTP here: a decoded URL path goes in, an
 * open file (or -ENOENT) comes out. Three fences keep requests to the dashboard's
 * own files:
 * - a lexical one: no ".." segment, no control byte;
 * - an allowlist: the files of the dashboard are the root's own files and those of
 *   vendor/ (uPlot), of the types a page loads (html, js, css, svg, png, ico, woff2),
 *   not hidden. So the source tree's web/ never serves package.json or node_modules/;
 * - a resolved one: openat2(RESOLVE_BENEATH) from the root where the kernel has it
 *   (5.6), so that no component of the path (not only the last) may lead out of it
 *   while it is opened; else realpath() of the result must still be below the root,
 *   and O_NOFOLLOW refuses a last component swapped for a link since.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nvmond/api/api_route.h"

static const struct {
	const char *ext;
	const char *type;
} content_types[] = {
	{"html", "text/html; charset=utf-8"},
	{"htm", "text/html; charset=utf-8"},
	{"js", "text/javascript; charset=utf-8"},
	{"mjs", "text/javascript; charset=utf-8"},
	{"css", "text/css; charset=utf-8"},
	{"svg", "image/svg+xml"},
	{"png", "image/png"},
	{"json", "application/json"},
	{"map", "application/json"},
	{"ico", "image/x-icon"},
	{"woff2", "font/woff2"},
	{"txt", "text/plain; charset=utf-8"},
};

/* The types a page of the dashboard loads: the allowlist's second half. */
static const char *const served_exts[] = {"html", "htm", "js",	"mjs",	"css",
					  "svg",  "png", "ico", "woff2"};

bool api_static_allowed(const char *rel)
{
	const char *base = strrchr(rel, '/'), *dot;

	if (!rel[0])
		return true; /* the root: its index.html */
	if (base) {
		if ((size_t)(base - rel) != strlen("vendor") || strncmp(rel, "vendor", 6) != 0)
			return false;
		base++;
	} else {
		base = rel;
	}
	dot = strrchr(base, '.');
	if (base[0] == '.' || !dot)
		return false;
	for (size_t i = 0; i < sizeof(served_exts) / sizeof(served_exts[0]); i++)
		if (strcasecmp(dot + 1, served_exts[i]) == 0)
			return true;
	return false;
}

const char *api_content_type(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *dot;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (dot && dot != base)
		for (size_t i = 0; i < sizeof(content_types) / sizeof(content_types[0]); i++)
			if (strcasecmp(dot + 1, content_types[i].ext) == 0)
				return content_types[i].type;
	return "application/octet-stream";
}

int api_static_relpath(const char *url, char *ret)
{
	char *w = ret;

	if (url[0] != '/')
		return -ENOENT;
	for (const char *p = url; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return -ENOENT;

	for (const char *seg = url; *seg;) {
		size_t len;

		while (*seg == '/')
			seg++;
		len = strcspn(seg, "/");
		if (len == 0)
			break;
		if (len == 2 && seg[0] == '.' && seg[1] == '.')
			return -ENOENT;
		if (!(len == 1 && seg[0] == '.')) {
			if (w != ret)
				*w++ = '/';
			memcpy(w, seg, len);
			w += len;
		}
		seg += len;
	}
	*w = '\0';
	return 0;
}

bool api_static_path_inside(const char *root, const char *path)
{
	size_t n = strlen(root);

	if (n > 0 && root[n - 1] == '/') /* root is "/" */
		return strncmp(path, root, n) == 0;
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* realpath() of @path, refused unless inside @root. */
static int resolve_inside(const char *root, const char *path, char **ret)
{
	char *real = realpath(path, NULL);

	if (!real)
		return errno == ENOMEM ? -ENOMEM : -ENOENT;
	if (!api_static_path_inside(root, real)) {
		free(real);
		return -ENOENT;
	}
	*ret = real;
	return 0;
}

/* The fallback: realpath() below the root, then O_NOFOLLOW on the last component. */
static int open_resolved(const char *root, const char *rel, int *ret_fd)
{
	char *path = NULL, *real = NULL;
	int fd, r;

	if (asprintf(&path, "%s/%s", root, rel) < 0)
		return -ENOMEM;
	r = resolve_inside(root, path, &real);
	free(path);
	if (r < 0)
		return r;
	fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	free(real);
	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

/*
 * openat2() with RESOLVE_BENEATH: no ".." above the root, no absolute link, no link
 * leading out, for every component. Return: 0, -ENOSYS when this kernel (or a seccomp
 * filter) has no openat2, or another negative errno.
 */
static int open_beneath(const char *root, const char *rel, int *ret_fd)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	int dfd, fd, r;

	dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	do
		fd = (int)syscall(SYS_openat2, dfd, rel, &how, sizeof(how));
	while (fd < 0 && errno == EAGAIN); /* a rename raced with the lookup */
	r = fd < 0 ? -errno : 0;
	close(dfd);
	if (r == -EPERM)
		r = -ENOSYS; /* seccomp filters of container runtimes say EPERM */
	if (r == 0)
		*ret_fd = fd;
	return r;
}

int api_static_open(const char *root, const char *url, int *ret_fd, uint64_t *ret_size,
		    const char **ret_type)
{
	char *rel = NULL;
	const char *name;
	struct stat st;
	int fd = -1, r;

	rel = malloc(strlen(url) + sizeof("/index.html"));
	if (!rel)
		return -ENOMEM;
	r = api_static_relpath(url, rel);
	if (r < 0)
		goto out;
	r = -ENOENT;
	if (!api_static_allowed(rel))
		goto out;
	if (rel[0] && url[strlen(url) - 1] == '/')
		goto out; /* "file/" names a directory, as for open(2) */
	name = rel[0] ? rel : "index.html";

	r = open_beneath(root, name, &fd);
	if (r == -ENOSYS)
		r = open_resolved(root, name, &fd);
	if (r < 0) {
		r = r == -ENOMEM || r == -EMFILE || r == -ENFILE ? r : -ENOENT;
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = -ENOENT;
		goto out;
	}
	*ret_fd = fd;
	*ret_size = (uint64_t)st.st_size;
	*ret_type = api_content_type(name);
	fd = -1;
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	free(rel);
	return r;
}
