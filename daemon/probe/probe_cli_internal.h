/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * `nvmond probe`: what its group run (probe_cli_group.c) takes from the
 * single run's file (probe_cli.c, the owner). No state is shared: each
 * command keeps its own.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/dev/dev.h"
#include "nvmond/probe/probe_progress.h"
#include "nvmond/probe/probe_svc.h"
#include "nvmond/store/store.h"

#include "probe_plan_internal.h"

/*
 * The drive @device names (a store id, controller or namespace name, serial)
 * among the scanned @v and the stored @rows: on record in @s (upserted, so
 * budgets are shared with the daemon) as *ret_row, its temperature in @g, and whether the
 * backend answers its probes itself (DEV_CAP_OWN_PROBES). Messages go to stderr.
 * Return: 0; -ENOENT (no such device); or negative errno.
 */
int probe_cli_drive(struct dev_backend *b, struct store *s, const struct dev_info *v, size_t n,
		    const struct device_row *rows, size_t n_rows, const char *device, int64_t now,
		    struct device_row *ret_row, struct gate_facts *g, bool *ret_own_probes);
