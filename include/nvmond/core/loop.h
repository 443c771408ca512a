/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

/*
 * A small single-threaded event loop (after redis ae.c): fd watchers and
 * monotonic timers; the poll timeout comes from the nearest timer.
 */
struct loop;

typedef void (*loop_fd_fn)(struct loop *l, int fd, void *userdata);
/* Return the next delay in ms to re-arm, or < 0 to remove the timer. */
typedef int64_t (*loop_timer_fn)(struct loop *l, void *userdata);

/** loop_new() - Return: a loop, or NULL on ENOMEM. */
struct loop *loop_new(void);

/** loop_free() - Accepts NULL. Return: NULL. */
struct loop *loop_free(struct loop *l);

/** loop_add_fd() - Watch @fd for input. Return: 0 or negative errno. */
int loop_add_fd(struct loop *l, int fd, loop_fd_fn fn, void *userdata);

/** loop_remove_fd() - Stop watching @fd (also from a callback). Return: 0, or -ENOENT. */
int loop_remove_fd(struct loop *l, int fd);

/** loop_add_timer() - Run @fn after @delay_ms. Return: timer id (> 0) or negative errno. */
int64_t loop_add_timer(struct loop *l, int64_t delay_ms, loop_timer_fn fn, void *userdata);

/**
 * loop_timer_lazy() - For @id's callback, about its next run: at the loop's
 * first wakeup @period_ms or more from now, whatever woke it (a poll, an
 * answer, another timer), and at @deadline_ms from now at the latest (< 0:
 * none; the timer then never wakes the loop by itself). A deadline within the
 * period wins: the timer runs then, as a plain one. It stays so for the runs
 * after, until called again. So a check that has no deadline of its own costs
 * no wakeup of its own (docs/architecture.md#idle-wakeups).
 * Return: the delay for the callback to return.
 */
int64_t loop_timer_lazy(struct loop *l, int64_t id, int64_t period_ms, int64_t deadline_ms);

/**
 * loop_add_timer_lazy() - loop_add_timer() of a timer as loop_timer_lazy()
 * makes it, from its first run. Return: timer id (> 0) or negative errno.
 */
int64_t loop_add_timer_lazy(struct loop *l, int64_t period_ms, int64_t deadline_ms,
			    loop_timer_fn fn, void *userdata);

/**
 * loop_timer_pull() - Run @id within @deadline_ms at the latest (its deadline
 * moved nearer: a new drive, a new schedule). From @id's own callback, the
 * delay it returns decides instead. Return: 0, or -ENOENT.
 */
int loop_timer_pull(struct loop *l, int64_t id, int64_t deadline_ms);

/** loop_cancel_timer() - Return: 0, or -ENOENT. */
int loop_cancel_timer(struct loop *l, int64_t id);

/** loop_run() - Until loop_stop(). Return: 0, or negative errno from poll(). */
int loop_run(struct loop *l);

/** loop_stop() - Make loop_run() return after the current callback. */
void loop_stop(struct loop *l);
