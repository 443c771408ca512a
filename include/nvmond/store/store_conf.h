/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * [store]: how samples reach the database and how long raw ones stay, a section
 * the store owns (core/cfg_section.h): the table in store_conf.c, which
 * docs/configuration.md is checked against. The poller's buffer and commit
 * timing and the rollup's horizon read it.
 */
#include <stdint.h>

#include "nvmond/core/cfg.h"
#include "nvmond/core/cfg_section.h"

struct store_conf {
	uint32_t buffer_samples;    /* samples held in memory while the database fails */
	int64_t retry_max_ms;	    /* longest back-off between store retries */
	int64_t commit_interval_ms; /* samples wait at most this long for one commit; 0 = every poll */
	int64_t keep_raw_ms;	    /* raw samples kept this long; older ones live on in rollups */
};

/* The section, for main's list (cfg_sections_register()). */
extern const struct cfg_section store_cfg_section;

/** store_conf() - [store] of @c. */
const struct store_conf *store_conf(const struct cfg *c);
