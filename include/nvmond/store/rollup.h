/* SPDX-License-Identifier: MIT */
#pragma once

#include "nvmond/core/loop.h"
#include "nvmond/store/store_rollup.h"

/*
 * The long-history builder on the main loop (a timer calling
 * store_rollup_step(): every minute, or back to back in short steps while it
 * catches up).
 */
struct rollup;

/** rollup_new() - Borrow @s (the writer handle); copy @c. Return: 0 or -ENOMEM. */
int rollup_new(struct store *s, const struct store_rollup_cfg *c, struct rollup **ret);

/** rollup_start() - Arm the timer on @l (first step at once). Return: 0 or negative errno. */
int rollup_start(struct rollup *r, struct loop *l);

/** rollup_free() - Accepts NULL. Return: NULL. */
struct rollup *rollup_free(struct rollup *r);
