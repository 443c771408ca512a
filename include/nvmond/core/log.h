/* SPDX-License-Identifier: MIT */
#pragma once

#include "nvmond/core/cfg.h"

/*
 * Logging happens only at the edges: main, loop callbacks, HTTP handlers.
 * Library modules return errors and messages to their caller instead.
 * Under systemd (stderr is the journal stream) lines go to the journal with
 * PRIORITY= and SYSLOG_IDENTIFIER=nvmond; elsewhere to stderr as
 * "nvmond: level: message".
 */
void log_set_level(enum log_level lvl);
enum log_level log_get_level(void);

void log_msg(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * log_event() - A line about one device. Under the journal it carries the fields
 * DEVICE= (e.g. "nvme0"), SERIAL= and EVENT= (a short tag such as "online",
 * "throttle"), so `journalctl -u nvmond SERIAL=S5GX… EVENT=throttle` finds it;
 * elsewhere it is a plain line on stderr. NULL or "" fields are left out.
 */
void log_event(enum log_level lvl, const char *device, const char *serial, const char *event,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/**
 * log_errno() - A line as log_msg() writes it, followed by ": " and strerror(@err):
 * log_errno(LOG_LVL_WARNING, -r, "cannot read %s", path) writes the same line as
 * log_warn("cannot read %s: %s", path, strerror(-r)).
 * @err: a positive errno value (-r of a negative-errno return, or errno)
 */
void log_errno(enum log_level lvl, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define log_error(...) log_msg(LOG_LVL_ERROR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_LVL_WARNING, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)
