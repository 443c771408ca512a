/* SPDX-License-Identifier: MIT */
/*
 * [fleet]'s keys (fleetview_conf.h): the table core's reader applies and checks
 * each value with, the defaults, and what the docs list.
 */
#include "nvmond/fleetview/fleetview_conf.h"
#include "nvmond/fleetview/fleetview_svc.h"
#include "nvmond/util/units.h"

#define F struct fleet_conf

static const struct cfg_key fleet_keys[] = {
	CFG_KEY_PATH(F, "fleet", "query_url", query_url, 0, "", .check = fleetview_check_query_url),
	CFG_KEY_PATH(F, "fleet", "bearer_token_file", bearer_token_file, 0, ""),
	CFG_KEY_PATH(F, "fleet", "tls_ca_file", tls_ca_file, 0, ""),
	CFG_KEY_PATH(F, "fleet", "basic_auth_user", basic_auth_user, 0, ""),
	CFG_KEY_PATH(F, "fleet", "basic_auth_password_file", basic_auth_password_file, 0, ""),
	CFG_KEY_PATH(F, "fleet", "org_id", org_id, 0, ""),
	CFG_KEY_DURATION(F, "fleet", "timeout", timeout_ms, 100, MS_PER_MIN, "10s"),
	CFG_KEY_DURATION(F, "fleet", "stale_after", stale_after_ms, MS_PER_SEC, MS_PER_DAY, "1m"),
	CFG_KEY_DURATION(F, "fleet", "forget_after", forget_after_ms, MS_PER_HOUR, 366 * MS_PER_DAY,
			 "7d"),
};

const struct cfg_section fleetview_cfg_section = CFG_SECTION("fleet", fleet_keys, F);

const struct fleet_conf *fleet_conf(const struct cfg *c)
{
	return cfg_section_get(c, &fleetview_cfg_section);
}
