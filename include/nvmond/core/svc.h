/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * The service manager: readiness, status and the watchdog (sd_notify(3)).
 * Everything is a no-op when the daemon does not run under systemd
 * ($NOTIFY_SOCKET unset), so callers never check.
 */

/**
 * svc_notify() - Send one or more "KEY=value" lines, e.g. "READY=1\nSTATUS=…".
 * Return: > 0 sent, 0 not under a service manager, or negative errno.
 */
int svc_notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** svc_managed() - Return: whether a service manager listens ($NOTIFY_SOCKET set). */
bool svc_managed(void);

/**
 * svc_watchdog_ms() - The watchdog timeout the manager set (WatchdogSec=).
 * Return: milliseconds (> 0) when the watchdog is on for this process, else 0.
 */
int64_t svc_watchdog_ms(void);
