/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "nvmond/core/cfg.h"
#include "nvmond/dev/dev.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/core/loop.h"
#include "nvmond/store/store.h"
#include "nvmond/store/store_errlog.h"

/*
 * Ties the pieces together on the main loop: rescans controllers, reads each
 * one's health log every poll interval, keeps the fleet current, and feeds the
 * store through a bounded buffer that survives a full or locked database.
 */
struct poller;

/** poller_new() - Borrow everything; load known devices from the store into the fleet. */
int poller_new(const struct cfg *c, struct dev_backend *b, struct store *s, struct fleet *f,
	       struct poller **ret);

/** poller_free() - Accepts NULL. Return: NULL. */
struct poller *poller_free(struct poller *p);

/** poller_start() - Scan now and arm the timers on @l. Return: 0 or negative errno. */
int poller_start(struct poller *p, struct loop *l);

/*
 * Listeners see, on the main loop, every sample as it is taken and every change
 * of a device's online state (analysis, alerts, probes hang off these). They
 * must not block: the main loop polls every device.
 */
struct poller_listener {
	void (*on_sample)(void *ctx, const struct device_row *dev, const struct sample *s);
	void (*on_online)(void *ctx, const struct device_row *dev, bool online, int64_t now_ms);
	/*
	 * New entries of a drive's Error Information log, stored, oldest first,
	 * told before the sample whose num_err_log_entries showed them. Entries
	 * that were in the log when nvmond first read it are not told.
	 */
	void (*on_errors)(void *ctx, const struct device_row *dev, const struct errlog_row *v,
			  size_t n);
	/*
	 * The facts of a device after each scan that found it (PCIe link,
	 * firmware, asleep) and whenever it falls asleep or wakes. Optional.
	 */
	void (*on_facts)(void *ctx, const struct device_row *dev, const struct fleet_facts *f,
			 int64_t now_ms);
	/*
	 * A round is over: every drive it polled answered (or passed its
	 * deadline), its samples went to the store (or wait in the buffer). In
	 * the wakeup of its last answer: work that follows the polls costs the
	 * loop no wakeup of its own there (docs/architecture.md#idle-wakeups).
	 * Optional.
	 */
	void (*on_round)(void *ctx);
	void *ctx;
};

/** poller_add_listener() - Copy @l into the list (at most 16). Return: 0 or -ENOSPC. */
int poller_add_listener(struct poller *p, const struct poller_listener *l);

/** poller_reconfigure() - Apply a reloaded configuration (intervals, buffer). */
int poller_reconfigure(struct poller *p, const struct cfg *c);

/** poller_flush() - Store everything buffered (at shutdown). Return: 0 or negative errno. */
int poller_flush(struct poller *p);

/** poller_pending() - Samples waiting in the buffer. */
size_t poller_pending(const struct poller *p);

/* Counters since start, for GET /metrics. */
struct poller_stats {
	uint64_t polls;		  /* health-log reads that succeeded */
	uint64_t poll_errors;	  /* health-log reads that failed */
	uint64_t store_errors;	  /* failed attempts to store a batch */
	uint64_t samples_stored;  /* samples written to the database */
	uint64_t samples_dropped; /* oldest samples dropped from a full buffer */
	uint64_t errlog_reads;	  /* error log reads that succeeded (only when the count moved) */
	uint64_t errlog_errors;	  /* error log reads (or stores of what they read) that failed */
	size_t samples_pending;	  /* samples waiting in the buffer */
	size_t buffer_capacity;
};

/** poller_stats() - Copy the counters (on the main loop, e.g. through mainq_call()). */
void poller_stats(const struct poller *p, struct poller_stats *ret);
