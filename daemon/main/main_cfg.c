/* SPDX-License-Identifier: MIT */
/* The sections the subsystems own (main_cfg.h). */
#include "nvmond/core/cfg_section.h"
#include "nvmond/fleetview/fleetview_conf.h"
#include "nvmond/main/main_cfg.h"

int main_cfg_sections(void)
{
	static const struct cfg_section *const sections[] = {
		&fleetview_cfg_section,
	};

	return cfg_sections_register(sections, sizeof(sections) / sizeof(sections[0]));
}
