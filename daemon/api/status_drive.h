/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Private to daemon/api: `nvmond status`'s part of issue 27 (status.c calls
 * it): what a drive knows beyond its health log, read once, and its verdict.
 */
#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "nvmond/dev/dev.h"
#include "nvmond/monitor/fleet.h"
#include "nvmond/store/store.h"

/**
 * status_drive_collect() - Into @fd (its row and sample filled): the power
 * state (and APST, HCTM where Identify says the drive has them), log C0h
 * where the daemon's database says the drive has the OCP one (never probed
 * here: a drive without it logs an error for the command), the namespaces'
 * usage from the scan, and the verdict: the daemon's last stored one, or,
 * without it, the rules evaluated on this one read (@ret_one_read set).
 * Nothing is sent to a sleeping drive or without permission.
 */
void status_drive_collect(struct dev_backend *b, struct store *s, const struct device_row *rows,
			  size_t n_rows, const struct dev_info *info, int64_t now_ms,
			  struct fleet_device *fd, bool *ret_one_read);

/** status_print_drive() - The lines of the table under a drive: health, power, C0h, usage. */
void status_print_drive(FILE *out, const json_t *d, bool color);
