/* SPDX-License-Identifier: MIT */
/* The sections the subsystems own (main_cfg.h). */
#include "nvmond/alert/risk_conf.h"
#include "nvmond/api/api_conf.h"
#include "nvmond/core/cfg_section.h"
#include "nvmond/fleetview/fleetview_conf.h"
#include "nvmond/main/main_cfg.h"
#include "nvmond/monitor/logs_conf.h"
#include "nvmond/probe/probe_conf.h"
#include "nvmond/selftest/selftest_conf.h"
#include "nvmond/store/store_conf.h"

int main_cfg_sections(void)
{
	static const struct cfg_section *const sections[] = {
		&store_cfg_section,	/* store/store_conf.h */
		&http_cfg_section,	/* api/api_conf.h */
		&logs_cfg_section,	/* monitor/logs_conf.h */
		&risk_cfg_section,	/* alert/risk_conf.h */
		&probe_cfg_section,	/* probe/probe_conf.h */
		&selftest_cfg_section,	/* selftest/selftest_conf.h */
		&fleetview_cfg_section, /* fleetview/fleetview_conf.h */
	};

	return cfg_sections_register(sections, sizeof(sections) / sizeof(sections[0]));
}
