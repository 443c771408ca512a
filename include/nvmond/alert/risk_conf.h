/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * [risk]: the verdict's settings (docs/health.md), a section the risk monitor owns
 * (core/cfg_section.h): the table in risk_conf.c, with the check of its rule list.
 */
#include "nvmond/core/cfg.h"
#include "nvmond/core/cfg_section.h"

struct risk_conf {
	char disable[256]; /* rules to leave out: risk_rules_parse() (analysis/risk.h) */
};

/* The section, for main's list (cfg_sections_register()). */
extern const struct cfg_section risk_cfg_section;

/** risk_conf() - [risk] of @c. */
const struct risk_conf *risk_conf(const struct cfg *c);
