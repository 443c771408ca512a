/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include "nvmond/alert/alert_svc.h"
#include "nvmond/core/cfg.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/monitor/poller.h"
#include "nvmond/store/store.h"

/*
 * The risk verdict on the main loop (issue 27 §3; docs/health.md): a poller
 * listener that, after each sample, evaluates the rules (analysis/risk.h)
 * on the drive's inputs (monitor/risk_input.h) — its windows of history
 * read again hourly, or when a counter they rest on moved — advances its
 * state, and when the level changes stores the verdict, puts it into the
 * fleet and feeds the alert service's `risk` rule. The first verdict of a
 * drive goes on from the last one stored.
 */
struct risk_mon;

#define RISK_MON_HISTORY_MS (3600 * 1000LL)
#define RISK_MON_ERR_MAX    160

/**
 * risk_mon_new() - Borrow everything. @c's [risk] disable is checked.
 * Return: 0; -EINVAL with the reason in @ret_err; -ENOMEM.
 */
int risk_mon_new(const struct cfg *c, struct store *s, struct fleet *f, struct alert_svc *a,
		 struct risk_mon **ret, char ret_err[RISK_MON_ERR_MAX]);

/** risk_mon_attach() - Listen to @p's samples. Return: 0 or negative errno. */
int risk_mon_attach(struct risk_mon *m, struct poller *p);

/**
 * risk_mon_reconfigure() - Apply a reloaded [risk] disable.
 * Return: 0, or -EINVAL with the reason in @ret_err (the running rules stay).
 */
int risk_mon_reconfigure(struct risk_mon *m, const struct cfg *c, char ret_err[RISK_MON_ERR_MAX]);

/** risk_mon_free() - Accepts NULL. Return: NULL. */
struct risk_mon *risk_mon_free(struct risk_mon *m);

/**
 * risk_reasons_json() - The reasons of @v as stored (a JSON array of
 * {rule, level, reason, source}) into @buf. Return: 0, or -ENOSPC.
 */
int risk_reasons_json(const struct risk_verdict *v, char *buf, size_t len);
