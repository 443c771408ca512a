/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdio.h>

#include <jansson.h>

#include "nvmond/store/store_probe.h"

/*
 * A copy-to run's result: the rate of the drive read and of the drive
 * written, beside each drive's latest copy-self (the seed's "700 MB/s onto
 * itself, 1,250 MB/s to the other drive").
 */

/**
 * probe_copyto_json_add() - For a copy-to @run (source_device_id set): add
 * "copy_to" to @o: read_mb_s, write_mb_s, "from" and "to" (device_id, name,
 * copy_self_id and copy_self_mb_s of the drive's latest measured copy-self
 * started before the run, or null) and a one-line "text". Nothing for other runs.
 * Return: 0 or negative errno.
 */
int probe_copyto_json_add(struct store *s, const struct probe_run_row *run, json_t *o);

/** probe_copyto_print() - The "copy_to" line of a run detail @d, if any. */
void probe_copyto_print(FILE *out, const json_t *d);
