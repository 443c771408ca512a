/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

/**
 * io_read_all() - Read exactly @len bytes from @fd, through EINTR and short reads.
 * Return: 0; -ENODATA when the other end closed before the first byte;
 * -EPROTO when it closed within them; -errno.
 */
int io_read_all(int fd, void *buf, size_t len);

/** io_write_all() - Write all @len bytes to @fd (MSG_NOSIGNAL on a socket). Return: 0 or -errno. */
int io_write_all(int fd, const void *buf, size_t len);

/**
 * io_wait_readable() - Sleep until @fd has something to read, or its end or
 * an error (the read then says which), through EINTR. A read(2) asleep on a
 * unix socket is also woken when the peer reads what this end wrote, and goes
 * back to sleep: a wakeup for nothing per answer; poll(2) for POLLIN is not.
 * Return: 0 or -errno.
 */
int io_wait_readable(int fd);
