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

/** loop_cancel_timer() - Return: 0, or -ENOENT. */
int loop_cancel_timer(struct loop *l, int64_t id);

/** loop_run() - Until loop_stop(). Return: 0, or negative errno from poll(). */
int loop_run(struct loop *l);

/** loop_stop() - Make loop_run() return after the current callback. */
void loop_stop(struct loop *l);
