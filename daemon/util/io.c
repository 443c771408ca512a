/* SPDX-License-Identifier: MIT */
/* Whole reads and writes on a descriptor (io.h). */
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nvmond/util/io.h"

int io_read_all(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return got ? -EPROTO : -ENODATA;
		got += (size_t)n;
	}
	return 0;
}

int io_write_all(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = send(fd, (const char *)buf + done, len - done, MSG_NOSIGNAL);
		if (n < 0 && errno == ENOTSOCK)
			n = write(fd, (const char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += (size_t)n;
	}
	return 0;
}

int io_wait_readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	for (;;) {
		int n = poll(&p, 1, -1);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}
