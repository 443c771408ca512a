/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * One probe per drive across every nvmond process: the daemon, `nvmond probe`,
 * a second daemon on another database. The lock is flock(2) on a file named
 * after the drive's serial in a directory all of them agree on; the kernel
 * drops it when its holder dies, however it dies. While a process holds it,
 * a run of that drive left "running" in the database belongs to it; a run
 * found "running" by the next holder is one whose process died.
 */

#define PROBE_LOCK_DIR_ROOT "/run/nvmond"
#define PROBE_LOCK_ERR_MAX  256

/**
 * probe_lock_dir_default() - Where the locks live when [probes] lock_dir is
 * not set: /run/nvmond for root and for the user who owns it (the unit's
 * User=, or [daemon] user, to whom the daemon hands it), else
 * $XDG_RUNTIME_DIR/nvmond, else /tmp/nvmond-UID.
 * Return: @buf.
 */
char *probe_lock_dir_default(char *buf, size_t len);

/**
 * probe_lock_take() - Take the lock of the drive @serial without waiting,
 * making @dir (0700) when it is missing. The holder's pid and @who ("the
 * daemon", "nvmond probe") are written into the file for the refusal message
 * others get. A new lock file is made 0644 (umask aside), so that root and
 * the daemon's user can each open the other's; one this process may not
 * write is locked through a read-only descriptor, and its holder line is
 * then left as it was.
 * Return: 0 with *ret_fd (close it, or probe_lock_release(), to let go);
 * -EBUSY when another process holds it (@ret_reason says which); other
 * negative errno with @ret_reason filled.
 */
int probe_lock_take(const char *dir, const char *serial, const char *who, int *ret_fd,
		    char ret_reason[PROBE_LOCK_ERR_MAX]);

/** probe_lock_release() - Let go of a lock from probe_lock_take(). Accepts -1. */
void probe_lock_release(int fd);

/**
 * probe_lock_name() - The lock file's name for @serial: "probe-SERIAL.lock",
 * every byte outside [A-Za-z0-9._-] written as %XX. Pure.
 * Return: 0, or -ENAMETOOLONG.
 */
int probe_lock_name(const char *serial, char *buf, size_t len);

/**
 * probe_lock_order() - Which of two drives' locks a run that holds both
 * (copy-to) takes first: the smaller serial (byte order), so that two
 * processes taking the same pair never each hold one and wait for the other.
 * Pure.
 * Return: true when @serial_a's lock is taken first.
 */
bool probe_lock_order(const char *serial_a, const char *serial_b);
