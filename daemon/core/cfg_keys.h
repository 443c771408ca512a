/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The configuration's key tables (cfg_keys.c), shared by cfg.c, which applies a
 * value to a key, checks and describes them. Nothing outside daemon/core includes this.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/core/cfg_section.h" /* struct cfg_key, its types */

/* The sections' keys: offsets into struct cfg. */
extern const struct cfg_key cfg_keys[];
extern const size_t cfg_n_keys;
/* The keys of a [device "…"] section: offsets into struct cfg_device. */
extern const struct cfg_key cfg_device_keys[];
extern const size_t cfg_n_device_keys;
