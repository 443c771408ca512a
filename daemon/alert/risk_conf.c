/* SPDX-License-Identifier: MIT */
/* [risk]'s keys (risk_conf.h): what core's reader applies and checks, what the docs list. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/alert/risk_conf.h"
#include "nvmond/analysis/risk.h"

/* disable: rule names the verdict has (analysis/risk.h), checked as the file is read. */
static int check_disable(const char *value, char *err, size_t errsize)
{
	static const char prefix[] = "[risk] disable: ";
	struct risk_cfg c;
	char e[256];

	if (risk_rules_parse(value, &c, e, sizeof(e)) == 0)
		return 0;
	/* Its message names the key, which FILE:LINE's own prefix names already. */
	snprintf(err, errsize, "%s",
		 strncmp(e, prefix, sizeof(prefix) - 1) == 0 ? e + sizeof(prefix) - 1 : e);
	return -EINVAL;
}

static const struct cfg_key risk_keys[] = {
	CFG_KEY_PATH(struct risk_conf, "risk", "disable", disable, 0, "", .check = check_disable),
};

const struct cfg_section risk_cfg_section = CFG_SECTION("risk", risk_keys, struct risk_conf);

const struct risk_conf *risk_conf(const struct cfg *c)
{
	return cfg_section_get(c, &risk_cfg_section);
}
