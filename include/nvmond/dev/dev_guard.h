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
 * command return. Its asynchronous clients are freed before it
 * (dev_guard_async_free()). Accepts NULL (then @release is called at once).
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

/** dev_guard_timeout_ms() - The deadline of every command, as last set. */
int64_t dev_guard_timeout_ms(struct dev_guard *g);

/** dev_guard_timeouts() - Commands that passed their deadline since the start. */
uint64_t dev_guard_timeouts(struct dev_guard *g);

/*
 * Asynchronous commands, for a caller that must never wait (the main loop):
 * dev_guard_submit() hands the command to its controller's worker (behind the
 * commands already waiting for it) and returns; the answer, or the deadline,
 * comes back as a call of its @done from dev_guard_async_dispatch(), which the
 * caller runs when dev_guard_async_fd() is readable and again
 * dev_guard_async_next_ms() from now. The rules are those of dev_guard_run():
 * a command past its deadline leaves the controller unresponsive.
 */
struct dev_guard_async;

/*
 * The end of an asynchronous command: @r is its return, or -ETIMEDOUT when its
 * deadline passed; @answer is the guard's copy of its io block at the
 * submitted offset when @r is 0 (valid during the call only; what it points
 * to that the command allocated is the callee's), NULL otherwise.
 */
typedef void (*dev_guard_done_fn)(void *userdata, int r, void *answer);

/**
 * dev_guard_async_new() - A client of @g for asynchronous commands, with its
 * eventfd. Free it before @g.
 * Return: 0, -ENOMEM, or negative errno from eventfd().
 */
int dev_guard_async_new(struct dev_guard *g, struct dev_guard_async **ret);

/**
 * dev_guard_async_free() - Drop @a's commands: their @done is never called; a
 * queued one is never sent, one on its worker is left to it (freed, with its
 * discard, when the kernel lets it return). Accepts NULL. Return: NULL.
 */
struct dev_guard_async *dev_guard_async_free(struct dev_guard_async *a);

/** dev_guard_async_fd() - Readable when an answer waits for dev_guard_async_dispatch(). */
int dev_guard_async_fd(const struct dev_guard_async *a);

/**
 * dev_guard_submit() - Run @fn on controller @ctrl's worker with a copy of
 * the @io_size bytes at @io (as dev_guard_run()); @done(@userdata, …) gets its
 * end from dev_guard_async_dispatch(), exactly once, with the copy at
 * @answer_off; @discard frees what the command allocated when its answer is
 * dropped (an error, a late return, dev_guard_async_free()).
 * Return: 0 (then @done follows); -ETIMEDOUT at once for a controller with a
 * command stuck (nothing is sent); -EINVAL, -ENOMEM, or -EAGAIN when no
 * thread could be started. @done is not called when it fails.
 */
int dev_guard_submit(struct dev_guard_async *a, const char *ctrl, dev_guard_fn fn,
		     dev_guard_discard_fn discard, const void *io, size_t io_size,
		     size_t answer_off, dev_guard_done_fn done, void *userdata);

/**
 * dev_guard_async_dispatch() - On the caller's thread: call @done of each of
 * @a's commands that returned or passed its deadline, in the order they were
 * submitted. A command past its deadline on its worker leaves the controller
 * unresponsive (dev_guard_unresponsive()); one still waiting behind another
 * was never sent. Commands a @done submits are answered at a later call.
 */
void dev_guard_async_dispatch(struct dev_guard_async *a);

/**
 * dev_guard_async_next_ms() - When to call dev_guard_async_dispatch() at the
 * latest: ms until the nearest deadline of @a's commands (0: one is due), or
 * -1 when none is pending.
 */
int64_t dev_guard_async_next_ms(struct dev_guard_async *a);
