/* SPDX-License-Identifier: MIT */
/*
 * Static files of the web root. No HTTP here: a decoded URL path goes in, an
 * open file (or -ENOENT) comes out. Two fences keep requests inside the root: a
 * lexical one (no ".." segment, no control byte) and a resolved one (realpath()
 * of the result must still be below the root, which catches symlinks).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Is the resolved @path @root itself or below it? */
static bool path_inside(const char *root, const char *path)
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
	if (!path_inside(root, real)) {
		free(real);
		return -ENOENT;
	}
	*ret = real;
	return 0;
}

int api_static_open(const char *root, const char *url, int *ret_fd, uint64_t *ret_size,
		    const char **ret_type)
{
	char *rel = NULL, *path = NULL, *real = NULL, *index = NULL;
	const char *type;
	struct stat st;
	int fd = -1, r;

	rel = malloc(strlen(url) + 1);
	if (!rel)
		return -ENOMEM;
	r = api_static_relpath(url, rel);
	if (r < 0)
		goto out;
	if (asprintf(&path, "%s/%s", root, rel) < 0) {
		path = NULL;
		r = -ENOMEM;
		goto out;
	}
	r = resolve_inside(root, path, &real);
	if (r < 0)
		goto out;
	if (stat(real, &st) < 0) {
		r = -ENOENT;
		goto out;
	}
	type = api_content_type(rel);
	if (!S_ISDIR(st.st_mode) && url[strlen(url) - 1] == '/') {
		r = -ENOENT; /* "file/" names a directory, as for open(2) */
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		char *dir_index;

		if (asprintf(&dir_index, "%s/index.html", real) < 0) {
			r = -ENOMEM;
			goto out;
		}
		r = resolve_inside(root, dir_index, &index);
		free(dir_index);
		if (r < 0)
			goto out;
		free(real);
		real = index;
		index = NULL;
		type = api_content_type("index.html");
	}

	/* The path has no symlink left; O_NOFOLLOW refuses one swapped in since. */
	fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0) {
		r = errno == ENOMEM || errno == EMFILE || errno == ENFILE ? -errno : -ENOENT;
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = -ENOENT;
		goto out;
	}
	*ret_fd = fd;
	*ret_size = (uint64_t)st.st_size;
	*ret_type = type;
	fd = -1;
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	free(index);
	free(real);
	free(path);
	free(rel);
	return r;
}
