/* SPDX-License-Identifier: MIT */
#pragma once

/**
 * dev_sandbox_apply() - Confine the calling process (every thread it starts
 * from now on, and itself) to what the device process needs: a seccomp
 * filter refuses sockets of any family but AF_UNIX (socket(), socketpair():
 * EAFNOSUPPORT), io_uring_setup() (its socket opcode would pass the filter:
 * EPERM) and execve()/execveat() (EPERM), and sets no_new_privs. Call it
 * before any thread starts. Return: 0 or -errno.
 */
int dev_sandbox_apply(void);
