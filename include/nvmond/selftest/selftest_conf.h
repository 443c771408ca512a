/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * [selftests]: the schedule of drives without their own, a section the self-test
 * service owns (core/cfg_section.h): the table in selftest_conf.c, with the check
 * of the schedule's syntax, and the rule of which schedule a drive runs.
 */
#include <stddef.h>

#include "nvmond/core/cfg.h"
#include "nvmond/core/cfg_section.h"

struct selftest_conf {
	char default_schedule[256]; /* of drives without their own; "" = none */
};

/* The section, for main's list (cfg_sections_register()). */
extern const struct cfg_section selftest_cfg_section;

/** selftest_conf() - [selftests] of @c. */
const struct selftest_conf *selftest_conf(const struct cfg *c);

/**
 * selftest_conf_check_schedule() - The check of a self-test schedule's syntax
 * (analysis/selftest_sched.h) as the file is read: [selftests] default_schedule,
 * and [device] selftest_schedule through main's list.
 * Return: 0, or -EINVAL with @err.
 */
int selftest_conf_check_schedule(const char *value, char *err, size_t errsize);

/**
 * selftest_schedule_in_effect() - The schedule a drive runs (docs/configuration.md):
 * its own @own ([device] selftest_schedule), else (not set, or "") @def
 * ([selftests] default_schedule); "none" (any case) there is "", no scheduled
 * self-tests. Into @buf (@len bytes, cut to it). Return: @buf.
 */
char *selftest_schedule_in_effect(const char *own, const char *def, char *buf, size_t len);
