/* SPDX-License-Identifier: MIT */
#pragma once

#include "nvmond/alert/alert_svc.h"
#include "nvmond/core/cfg.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/core/loop.h"
#include "nvmond/store/store.h"

/*
 * The wear rules on the main loop: every hour (the first time shortly after the
 * start) each drive's wear report is computed from the store and its conditions
 * (80/90/100 % of the rated TBW, an unusual day of writes) go to the alert
 * service, which keeps their state, stores them and notifies.
 */
struct wear_mon;

#define WEAR_MON_FIRST_MS  (10 * 1000)
#define WEAR_MON_PERIOD_MS (3600 * 1000)

/** wear_mon_new() - Borrow everything (@c: the running configuration). Return: 0 or -ENOMEM. */
int wear_mon_new(struct store *s, struct fleet *f, struct alert_svc *a, const struct cfg *c,
		 struct wear_mon **ret);

/** wear_mon_start() - Arm the timer on @l. Return: 0 or negative errno. */
int wear_mon_start(struct wear_mon *m, struct loop *l);

/** wear_mon_free() - Accepts NULL. Return: NULL. */
struct wear_mon *wear_mon_free(struct wear_mon *m);
