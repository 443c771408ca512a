/* SPDX-License-Identifier: MIT */
#pragma once

#include "nvmond/core/loop.h"

/*
 * Run a function on the main loop from another thread (an HTTP handler, a probe
 * thread) and wait for its result. State owned by the main loop (the writer
 * store, alert state, probe scheduling) is only ever touched there, so it needs
 * no locks. The main loop never blocks for long, so callers wait without a
 * timeout; @fn must not block either.
 */
struct mainq;

typedef int (*mainq_fn)(void *arg);

/** mainq_new() - Watch the queue on @l. Return: 0 or negative errno. */
int mainq_new(struct loop *l, struct mainq **ret);

/** mainq_free() - Accepts NULL. Return: NULL. */
struct mainq *mainq_free(struct mainq *q);

/**
 * mainq_call() - Run fn(arg) on the main loop and wait for it.
 * Return: what @fn returned, -ECANCELED when the loop stopped first, or -ENOMEM.
 */
int mainq_call(struct mainq *q, mainq_fn fn, void *arg);

/**
 * mainq_post() - Run fn(arg) on the main loop soon, without waiting for it
 * (its result is dropped). A post still queued at mainq_shutdown() never runs:
 * @fn must be a wake-up whose work is also done some other way at shutdown.
 * Return: 0, -ECANCELED after mainq_shutdown(), or -ENOMEM.
 */
int mainq_post(struct mainq *q, mainq_fn fn, void *arg);

/** mainq_shutdown() - Fail every pending and future call with -ECANCELED. */
void mainq_shutdown(struct mainq *q);
