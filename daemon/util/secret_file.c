/* SPDX-License-Identifier: MIT */
/* A secret's first line, read from the file the configuration names (secret_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nvmond/util/fperm.h"
#include "nvmond/util/secret_file.h"

int secret_file_read(const char *path, char *buf, size_t size, unsigned flags, char *err,
		     size_t errsize)
{
	char line[8192];
	size_t got = 0, n;
	ssize_t k;
	int fd, r;

	if (!size || size > sizeof(line))
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errsize, "%.200s: %s", path, strerror(-r));
		return r;
	}
	r = fperm_check(fd, path, FPERM_SECRET, err, errsize);
	if (r < 0) {
		close(fd);
		return r;
	}
	/* One byte past @size: a first line that does not fit is seen, not cut. */
	while (got < size && (k = read(fd, line + got, size - got)) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = -errno;
			close(fd);
			explicit_bzero(line, sizeof(line));
			snprintf(err, errsize, "%.200s: %s", path, strerror(-r));
			return r;
		}
		got += (size_t)k;
		if (memchr(line + got - (size_t)k, '\n', (size_t)k))
			break;
	}
	close(fd);
	n = 0;
	while (n < got && line[n] != '\n' && line[n] != '\r')
		n++;
	if (n >= size) {
		explicit_bzero(line, sizeof(line));
		snprintf(err, errsize, "%.200s", path);
		return -E2BIG;
	}
	while ((flags & SECRET_TRIM_BLANKS) && n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	if (n == 0) {
		explicit_bzero(line, sizeof(line));
		snprintf(err, errsize, "%.200s", path);
		return -ENODATA;
	}
	memcpy(buf, line, n);
	memset(buf + n, 0, size - n);
	explicit_bzero(line, sizeof(line));
	return 0;
}
