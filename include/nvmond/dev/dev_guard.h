/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The device-command guard: every admin command of the daemon runs on a
 * worker thread of its controller, and the caller waits for it at most a
 * deadline ([daemon] device_timeout). A command past its deadline leaves the
 * controller unresponsive: the caller gets -ETIMEDOUT, later callers get
 * -ETIMEDOUT at once, and nothing more is sent to that controller until the
 * stuck command returns from the kernel (then it has recovered). So at most
 * one thread per controller is ever stuck, and a hung controller costs its
 * callers one deadline, once. Rules: dev_guard_rule.h.
 */
struct dev_guard;

/* The worker of the scans (not a controller name: those are "nvmeN", "demoN"). */
#define DEV_GUARD_SCAN "scan"

/* A command: reads and writes only @io, a copy the guard owns (see dev_guard_run()). */
typedef int (*dev_guard_fn)(void *io);
/* What an abandoned command's late answer left in its @io (0 = its return), freed. */
typedef void (*dev_guard_discard_fn)(void *io, int r);

/**
 * dev_guard_new() - A guard with deadline @timeout_ms (> 0).
 * Return: 0, -EINVAL, or -ENOMEM.
 */
int dev_guard_new(int64_t timeout_ms, struct dev_guard **ret);

/**
 * dev_guard_free() - Stop the workers, then call @release(@arg) (may be NULL)
 * for what the commands use (the backend). A worker whose command is still
 * stuck cannot be joined: the workers are then detached and the last one to
 * finish frees the guard and calls @release, whenever the kernel lets its
 * command return. Accepts NULL (then @release is called at once).
 * Return: true when everything was freed now, false when it was left to a
 * stuck worker.
 */
bool dev_guard_free(struct dev_guard *g, void (*release)(void *arg), void *arg);

/** dev_guard_set_timeout() - A new deadline (> 0) for the commands to come. */
void dev_guard_set_timeout(struct dev_guard *g, int64_t timeout_ms);

/**
 * dev_guard_run() - Run @fn on controller @ctrl's worker with a copy of the
 * @io_size bytes at @io, and copy them back when it returns in time. The copy
 * is the guard's: a command abandoned at its deadline writes only into it,
 * never into the caller's memory. @fn must not point into the caller's stack
 * through @io either (put strings in @io by value). A second command to the
 * same controller waits for the first (within its own deadline).
 * Return: @fn's return; -ETIMEDOUT when the deadline passed, or a command is
 * stuck on @ctrl; -ENOMEM, or -EAGAIN when no thread could be started.
 */
int dev_guard_run(struct dev_guard *g, const char *ctrl, dev_guard_fn fn, void *io, size_t io_size);

/**
 * dev_guard_run_discard() - dev_guard_run(), and when the command returns after
 * its caller left, @discard(copy, its return) frees what it allocated.
 */
int dev_guard_run_discard(struct dev_guard *g, const char *ctrl, dev_guard_fn fn,
			  dev_guard_discard_fn discard, void *io, size_t io_size);

/**
 * dev_guard_unresponsive() - Whether a command to @ctrl is stuck past its
 * deadline now.
 */
bool dev_guard_unresponsive(struct dev_guard *g, const char *ctrl);

/** dev_guard_timeouts() - Commands that passed their deadline since the start. */
uint64_t dev_guard_timeouts(struct dev_guard *g);
