/* SPDX-License-Identifier: MIT */
/* [store]'s keys (store_conf.h): what core's reader applies, the defaults, what the docs list. */
#include "nvmond/store/store_conf.h"
#include "nvmond/util/units.h"

#define S struct store_conf

static const struct cfg_key store_keys[] = {
	CFG_KEY_UINT32(S, "store", "buffer_samples", buffer_samples, 1, 10000000, "100000"),
	CFG_KEY_DURATION(S, "store", "retry_max", retry_max_ms, MS_PER_SEC, MS_PER_HOUR, "60s"),
	CFG_KEY_DURATION(S, "store", "commit_interval", commit_interval_ms, 0, MS_PER_MIN, "0"),
	CFG_KEY_DURATION(S, "store", "keep_raw", keep_raw_ms, MS_PER_HOUR, 90 * MS_PER_DAY, "7d",
			 .restart = true),
};

const struct cfg_section store_cfg_section = CFG_SECTION("store", store_keys, S);

const struct store_conf *store_conf(const struct cfg *c)
{
	return cfg_section_get(c, &store_cfg_section);
}
