/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/core/loop.h"
#include "nvmond/dev/dev.h"
#include "nvmond/dev/dev_guard.h"

/*
 * Commands to controllers for the main loop, which never waits for one: each
 * goes to its controller's worker (dev_guard_submit()) and the loop goes on;
 * its answer, or -ETIMEDOUT at its deadline ([daemon] device_timeout, which
 * then marks the controller unresponsive), comes back as a call of @done on
 * the loop (an eventfd and a timer of the loop's). The backend needs its guard
 * (dev_backend_guard()).
 */
struct dev_async;

/* @answer, for @r 0: what the command read (see each function), during the call only. */
typedef dev_guard_done_fn dev_done_fn;

/* The answer of dev_scan_async(): the callback takes @v (free()). */
struct dev_scan_answer {
	struct dev_info *v;
	size_t n;
};

/**
 * dev_async_new() - Asynchronous commands to @b's controllers, answered on @l.
 * Return: 0, -EINVAL when @b has no guard, or negative errno.
 */
int dev_async_new(struct dev_backend *b, struct loop *l, struct dev_async **ret);

/**
 * dev_async_free() - Drop the commands not yet answered (their @done is never
 * called; dev_guard_async_free()) and leave @l. Before the backend is freed.
 * Accepts NULL. Return: NULL.
 */
struct dev_async *dev_async_free(struct dev_async *a);

/*
 * Each of the following returns 0, and @done(@userdata, r, answer) follows on
 * the loop, exactly once (unless dev_async_free() comes first); or, without
 * calling @done, -ETIMEDOUT at once for a controller with a command stuck,
 * what its synchronous twin in dev.h returns before sending anything, or
 * -ENOMEM / -EAGAIN.
 */

/** dev_scan_async() - dev_scan(), on the scans' worker. Answer: struct dev_scan_answer. */
int dev_scan_async(struct dev_async *a, int64_t now_ms, dev_done_fn done, void *userdata);

/** dev_read_smart_async() - dev_read_smart(). Answer: the SMART_LOG_SIZE bytes of the page. */
int dev_read_smart_async(struct dev_async *a, const char *name, const struct dev_ident *who,
			 int64_t now_ms, dev_done_fn done, void *userdata);

/** dev_read_errlog_async() - dev_read_errlog(). Answer: @n entries of ERRLOG_ENTRY_SIZE. */
int dev_read_errlog_async(struct dev_async *a, const char *name, const struct dev_ident *who,
			  int64_t now_ms, size_t n, bool ext_data, dev_done_fn done,
			  void *userdata);

/** dev_read_hwmon_async() - dev_read_hwmon(). Answer: struct nvme_hwmon_temps. */
int dev_read_hwmon_async(struct dev_async *a, const char *name, int64_t now_ms, dev_done_fn done,
			 void *userdata);

/**
 * dev_read_sensor_limits_async() - dev_read_sensor_limits() for @sensors.
 * Answer: uint16_t[SMART_NUM_SENSORS], the thresholds in Kelvin (0: none).
 */
int dev_read_sensor_limits_async(struct dev_async *a, const char *name, const struct dev_ident *who,
				 uint8_t sensors, dev_done_fn done, void *userdata);

/** dev_read_selftest_async() - dev_read_selftest(). Answer: the SELFTEST_LOG_SIZE bytes of log 06h. */
int dev_read_selftest_async(struct dev_async *a, const char *name, const struct dev_ident *who,
			    int64_t now_ms, dev_done_fn done, void *userdata);

/**
 * dev_selftest_start_async() - dev_selftest_start(): Device Self-test code
 * @stc for @nsid. Answer: none (@r says it all).
 */
int dev_selftest_start_async(struct dev_async *a, const char *name, const struct dev_ident *who,
			     int64_t now_ms, uint32_t nsid, uint8_t stc, dev_done_fn done,
			     void *userdata);

/** dev_read_ocp_async() - dev_read_ocp(). Answer: the OCP_LOG_SIZE bytes of log C0h. */
int dev_read_ocp_async(struct dev_async *a, const char *name, const struct dev_ident *who,
		       int64_t now_ms, dev_done_fn done, void *userdata);

/* The answer of dev_read_pel_async(). */
struct dev_pel_answer {
	uint32_t got; /* bytes of data read */
	uint8_t head[PEL_HEADER_SIZE];
	uint8_t data[]; /* got bytes from the offset asked */
};

/** dev_read_pel_async() - dev_read_pel(). Answer: struct dev_pel_answer. */
int dev_read_pel_async(struct dev_async *a, const char *name, const struct dev_ident *who,
		       int64_t now_ms, uint64_t offset, uint32_t len, bool ext_data,
		       dev_done_fn done, void *userdata);

/** dev_read_power_async() - dev_read_power(). Answer: struct dev_power. */
int dev_read_power_async(struct dev_async *a, const char *name, const struct dev_ident *who,
			 int64_t now_ms, uint8_t which, dev_done_fn done, void *userdata);
