/* SPDX-License-Identifier: MIT */
/* [logs]'s keys (logs_conf.h): what core's reader applies, the defaults, what the docs list. */
#include "nvmond/monitor/logs_conf.h"
#include "nvmond/util/units.h"

#define L struct logs_conf

static const struct cfg_key logs_keys[] = {
	CFG_KEY_BOOL(L, "logs", "ocp", ocp, "yes"),
	CFG_KEY_DURATION(L, "logs", "ocp_interval", ocp_interval_ms, 0, MS_PER_DAY, "0"),
	CFG_KEY_BOOL(L, "logs", "pel", pel, "yes"),
	CFG_KEY_DURATION(L, "logs", "pel_interval", pel_interval_ms, MS_PER_MIN, MS_PER_DAY, "1h"),
	CFG_KEY_BOOL(L, "logs", "power", power, "yes"),
};

const struct cfg_section logs_cfg_section = CFG_SECTION("logs", logs_keys, L);

const struct logs_conf *logs_conf(const struct cfg *c)
{
	return cfg_section_get(c, &logs_cfg_section);
}
