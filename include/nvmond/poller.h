/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "nvmond/cfg.h"
#include "nvmond/dev.h"
#include "nvmond/fleet.h"
#include "nvmond/loop.h"
#include "nvmond/store.h"

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

/** poller_reconfigure() - Apply a reloaded configuration (intervals, buffer). */
int poller_reconfigure(struct poller *p, const struct cfg *c);

/** poller_flush() - Store everything buffered (at shutdown). Return: 0 or negative errno. */
int poller_flush(struct poller *p);

/** poller_pending() - Samples waiting in the buffer. */
size_t poller_pending(const struct poller *p);
