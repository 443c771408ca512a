/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Between dev_async.c (the loop's side) and dev_call.c (each command's block):
 * nothing outside daemon/dev includes this.
 */
#include "nvmond/dev/dev_async.h"

/** dev_async_backend() - The backend @a sends to. */
struct dev_backend *dev_async_backend(const struct dev_async *a);

/** dev_async_submit() - dev_guard_submit() through @a's client, its deadline timer armed. */
int dev_async_submit(struct dev_async *a, const char *ctrl, dev_guard_fn fn,
		     dev_guard_discard_fn discard, const void *io, size_t io_size,
		     size_t answer_off, dev_done_fn done, void *userdata);
