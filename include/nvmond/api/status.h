/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "nvmond/core/cfg.h"
#include "nvmond/dev/dev.h"

/* What `nvmond status` says when it may not send admin commands. */
#define STATUS_HINT_NO_PERMISSION                                                                  \
	"no permission for NVMe admin commands: identity from sysfs and temperatures from "        \
	"hwmon only; the health counters stay unknown. Run as root, or with CAP_SYS_ADMIN and "    \
	"read access to /dev/nvme* (e.g. sudo nvmond status)"

struct store;

/**
 * status_collect() - Scan @b and read every controller's health log once: a
 * sleeping drive is not woken, and without permission for admin commands the
 * temperatures come from hwmon (then "hint" says how to grant it). Its sensors
 * are judged as @c says (NULL: the built-in defaults), from this one sample.
 * Each device has "selftests": {"supported" (Identify OACS bit 4; null when
 * this scan could not read Identify), "unsupported_reason", "edstt_min",
 * "last": {"short", "extended"}}: the newest result of each type stored in
 * @s, the daemon's database (NULL: none, "last" is null). A failed database
 * read leaves "last" null and says why in "database_error".
 * Return: 0 with *ret = {"devices": [...], "hint"?: "...", "database_error"?:
 * "..."} (new reference), or negative errno with @err filled.
 */
int status_collect(struct dev_backend *b, const struct cfg *c, struct store *s, int64_t now_ms,
		   json_t **ret, char *err, size_t errlen);

/**
 * status_print_table() - The human table of `nvmond status`.
 * @color: mark warnings with ANSI colors (the caller decides: a terminal, no NO_COLOR)
 * Return: 0.
 */
int status_print_table(FILE *out, const json_t *status, bool color);
