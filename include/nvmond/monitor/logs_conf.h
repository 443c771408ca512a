/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * [logs]: what a drive knows beyond its health log (issue 27), a section the
 * poller owns (core/cfg_section.h): its keys, defaults and ranges are the table
 * in logs_conf.c, which docs/configuration.md is checked against.
 */
#include <stdint.h>

#include "nvmond/core/cfg.h"
#include "nvmond/core/cfg_section.h"

struct logs_conf {
	int ocp;		 /* read log C0h where its GUID is the OCP one */
	int64_t ocp_interval_ms; /* at most this often; 0 = every poll */
	int pel;		 /* read the Persistent Event Log where LPA says so */
	int64_t pel_interval_ms; /* look for new events at least this often */
	int power;		 /* power state every poll, APST and HCTM at scans */
};

/* The section, for main's list (cfg_sections_register()). */
extern const struct cfg_section logs_cfg_section;

/** logs_conf() - [logs] of @c. */
const struct logs_conf *logs_conf(const struct cfg *c);
