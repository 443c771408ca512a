/* SPDX-License-Identifier: MIT */
/* [selftests]'s keys (selftest_conf.h) and which schedule a drive runs. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "nvmond/analysis/selftest_sched.h"
#include "nvmond/selftest/selftest_conf.h"

int selftest_conf_check_schedule(const char *value, char *err, size_t errsize)
{
	struct selftest_sched v[SELFTEST_SCHED_MAX];
	char e[SELFTEST_SCHED_ERR];
	size_t n;

	if (selftest_sched_parse(value, v, &n, e) < 0) {
		snprintf(err, errsize, "%s", e);
		return -EINVAL;
	}
	return 0;
}

static const struct cfg_key selftest_keys[] = {
	CFG_KEY_PATH(struct selftest_conf, "selftests", "default_schedule", default_schedule, 0, "",
		     .check = selftest_conf_check_schedule),
};

const struct cfg_section selftest_cfg_section =
	CFG_SECTION("selftests", selftest_keys, struct selftest_conf);

const struct selftest_conf *selftest_conf(const struct cfg *c)
{
	return cfg_section_get(c, &selftest_cfg_section);
}

char *selftest_schedule_in_effect(const char *own, const char *def, char *buf, size_t len)
{
	const char *from = own[0] ? own : def;

	if (!len)
		return buf;
	/* A copy, not snprintf(): this runs for every drive at every plan. */
	size_t n = strcasecmp(from, "none") == 0 ? 0 : strnlen(from, len - 1);
	memcpy(buf, from, n);
	buf[n] = '\0';
	return buf;
}
