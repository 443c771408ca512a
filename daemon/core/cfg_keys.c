/* SPDX-License-Identifier: MIT */
/*
 * The configuration's keys: one table of the sections' keys and one of the keys of
 * a [device "…"] section, each line a key with its type, bounds and default (what
 * cfg.c applies and describes, and docs/configuration.md lists).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "nvmond/core/cfg.h"
#include "nvmond/core/log.h"
#include "nvmond/util/fperm.h"
#include "cfg_internal.h"
#include "cfg_keys.h"

/*
 * A program the file names that nvmond runs (exec), trusted as fperm.h says, judged
 * as the file is read so that a refusal says FILE:LINE. One that is not there, or
 * that this user cannot reach, is left to the code that runs it (its message is the
 * one the docs show; `nvmond status` run by another user reads none).
 */
static int cfg_check_trusted(const char *value, char *err, size_t errsize)
{
	struct stat st;

	if (!value[0] || stat(value, &st) < 0)
		return 0;
	return fperm_check(-1, value, FPERM_TRUSTED, err, errsize) < 0 ? -EINVAL : 0;
}

static const struct cfg_choice cfg_demo_choices[] = {
	{"auto", CFG_DEMO_AUTO}, {"yes", CFG_DEMO_YES},
	{"no", CFG_DEMO_NO},	 {"true", CFG_DEMO_YES},
	{"false", CFG_DEMO_NO},	 {"on", CFG_DEMO_YES},
	{"off", CFG_DEMO_NO},	 {"1", CFG_DEMO_YES},
	{"0", CFG_DEMO_NO},	 {NULL, 0},
};

static const struct cfg_choice cfg_log_level_choices[] = {
	{"error", LOG_LVL_ERROR},
	{"warning", LOG_LVL_WARNING},
	{"info", LOG_LVL_INFO},
	{"debug", LOG_LVL_DEBUG},
	{NULL, 0},
};

const struct cfg_choice cfg_bool_choices[] = {
	{"yes", 1}, {"no", 0}, {"true", 1}, {"false", 0}, {"on", 1},
	{"off", 0}, {"1", 1},  {"0", 0},    {NULL, 0},
};

/* CFG_T_ENUM stores through an int *: the enums must be int-sized. */
_Static_assert(sizeof(enum cfg_demo) == sizeof(int), "enum cfg_demo is not int-sized");
_Static_assert(sizeof(enum log_level) == sizeof(int), "enum log_level is not int-sized");

/* The field must have the C type the key type writes; a mismatch fails to compile. */
#define CFG_OFF(field, ctype)                                                                      \
	(offsetof(struct cfg, field) + 0 * sizeof(_Generic(((struct cfg *)0)->field, ctype : 1)))

#define DURATION(sec, name, field, lo, hi, dflt, ...)                                              \
	{                                                                                          \
		.section = sec, .key = name, .type = CFG_T_DURATION,                               \
		.offset = CFG_OFF(field, int64_t), .min = lo, .max = hi, .def = dflt, __VA_ARGS__  \
	}
#define UINT32(sec, name, field, lo, hi, dflt, ...)                                                \
	{                                                                                          \
		.section = sec, .key = name, .type = CFG_T_UINT32,                                 \
		.offset = CFG_OFF(field, uint32_t), .min = lo, .max = hi, .def = dflt, __VA_ARGS__ \
	}
#define PATH(sec, name, field, minlen, dflt, ...)                                                  \
	{                                                                                          \
		.section = sec, .key = name, .type = CFG_T_PATH, .offset = CFG_OFF(field, char *), \
		.min = minlen, .max = sizeof(((struct cfg *)0)->field) - 1, .def = dflt,           \
		__VA_ARGS__                                                                        \
	}
#define ENUM(sec, name, field, ctype, list, hnt, dflt, ...)                                        \
	{                                                                                          \
		.section = sec, .key = name, .type = CFG_T_ENUM, .offset = CFG_OFF(field, ctype),  \
		.choices = list, .hint = hnt, .def = dflt, __VA_ARGS__                             \
	}
#define USER(sec, name, field, dflt, ...)                                                          \
	{                                                                                          \
		.section = sec, .key = name, .type = CFG_T_USER, .offset = CFG_OFF(field, char *), \
		.max = sizeof(((struct cfg *)0)->field) - 1, .def = dflt, __VA_ARGS__              \
	}
#define TEXT(sec, name, field, minlen, dflt, ...)                                                  \
	{                                                                                          \
		.section = sec, .key = name, .type = CFG_T_TEXT, .offset = CFG_OFF(field, char *), \
		.min = minlen, .max = sizeof(((struct cfg *)0)->field) - 1, .def = dflt,           \
		__VA_ARGS__                                                                        \
	}
#define URL(sec, name, field, dflt, ...)                                                           \
	{                                                                                          \
		.section = sec, .key = name, .type = CFG_T_URL, .offset = CFG_OFF(field, char *),  \
		.max = sizeof(((struct cfg *)0)->field) - 1, .def = dflt, __VA_ARGS__              \
	}
#define LABELS(sec, name, field, dflt, ...)                                                        \
	{                                                                                          \
		.section = sec, .key = name, .type = CFG_T_LABELS,                                 \
		.offset = CFG_OFF(field, struct cfg_labels), .def = dflt, __VA_ARGS__              \
	}
#define LISTEN(sec, name, dflt, ...)                                                               \
	{                                                                                          \
		.section = sec, .key = name, .type = CFG_T_LISTEN, .def = dflt, __VA_ARGS__        \
	}

const struct cfg_key cfg_keys[] = {
	LISTEN("daemon", "listen", CFG_DEFAULT_LISTEN, .restart = true),
	/* database: no fixed default, see cfg_default_database(); web_root "": built-in. */
	PATH("daemon", "database", database, 1, NULL, .restart = true),
	PATH("daemon", "web_root", web_root, 0, "", .restart = true),
	DURATION("daemon", "poll_interval", poll_interval_ms, 100, MS_PER_DAY, "10s"),
	DURATION("daemon", "rescan_interval", rescan_interval_ms, MS_PER_SEC, MS_PER_DAY, "30s"),
	ENUM("daemon", "demo", demo, enum cfg_demo, cfg_demo_choices, "auto, yes or no", "auto",
	     .restart = true),
	UINT32("daemon", "demo_drives", demo_drives, 1, 64, "2", .restart = true),
	/* Read at the first start with an empty database only. */
	ENUM("daemon", "demo_history", demo_history, int, cfg_bool_choices, "yes or no", "yes",
	     .restart = true),
	ENUM("daemon", "log_level", log_level, enum log_level, cfg_log_level_choices,
	     "error, warning, info or debug", "info"),
	ENUM("daemon", "wake_sleeping", wake_sleeping, int, cfg_bool_choices, "yes or no", "no"),
	DURATION("daemon", "device_timeout", device_timeout_ms, MS_PER_SEC, 60 * MS_PER_SEC, "5s"),
	/* The user the HTTP process becomes when started as root (main_privsep.c). */
	USER("daemon", "user", user, "", .restart = true),
	/* Who is who (issue 24). host_name: no fixed default, see cfg_default_host_name(). */
	TEXT("daemon", "host_name", host_name, 1, NULL),
	LABELS("daemon", "host_labels", host_labels, ""),
	URL("daemon", "public_url", public_url, ""),
	ENUM("alerts", "throttling", alert_throttling, int, cfg_bool_choices, "yes or no", "yes"),
	ENUM("alerts", "temperature", alert_temperature, int, cfg_bool_choices, "yes or no", "yes"),
	ENUM("alerts", "critical_warning", alert_critical_warning, int, cfg_bool_choices,
	     "yes or no", "yes"),
	ENUM("alerts", "spare", alert_spare, int, cfg_bool_choices, "yes or no", "yes"),
	ENUM("alerts", "percent_used", alert_percent_used, int, cfg_bool_choices, "yes or no",
	     "yes"),
	ENUM("alerts", "media_errors", alert_media_errors, int, cfg_bool_choices, "yes or no",
	     "yes"),
	ENUM("alerts", "offline", alert_offline, int, cfg_bool_choices, "yes or no", "yes"),
	ENUM("alerts", "risk", alert_risk, int, cfg_bool_choices, "yes or no", "yes"),
	ENUM("alerts", "unresponsive", alert_unresponsive, int, cfg_bool_choices, "yes or no",
	     "yes"),
	ENUM("alerts", "wear", alert_wear, int, cfg_bool_choices, "yes or no", "yes"),
	ENUM("alerts", "io_errors", alert_io_errors, int, cfg_bool_choices, "yes or no", "yes"),
	ENUM("alerts", "link_degraded", alert_link_degraded, int, cfg_bool_choices, "yes or no",
	     "yes"),
	ENUM("alerts", "firmware_changed", alert_firmware_changed, int, cfg_bool_choices,
	     "yes or no", "yes"),
	ENUM("alerts", "selftest", alert_selftest, int, cfg_bool_choices, "yes or no", "yes"),
	ENUM("alerts", "below_rated", alert_below_rated, int, cfg_bool_choices, "yes or no", "yes"),
	ENUM("alerts", "sensor_alerts", alert_sensor_alerts, int, cfg_bool_choices, "yes or no",
	     "no"),
	UINT32("alerts", "warning_margin", alert_warning_margin_c, 0, 50, "0"),
	UINT32("alerts", "critical_margin", alert_critical_margin_c, 0, 50, "0"),
	UINT32("alerts", "hysteresis", alert_hysteresis_c, 0, 20, "2"),
	DURATION("alerts", "resolve_after", alert_resolve_after_ms, 0, MS_PER_HOUR, "30s"),
	DURATION("alerts", "cooldown", alert_cooldown_ms, 0, MS_PER_DAY, "15m"),
	PATH("alerts", "exec", alert_exec, 0, "", .check = cfg_check_trusted),
	DURATION("alerts", "exec_timeout", alert_exec_timeout_ms, 100, MS_PER_HOUR, "10s"),
	PATH("alerts", "webhook", alert_webhook, 0, ""),
	DURATION("alerts", "webhook_timeout", alert_webhook_timeout_ms, 100, MS_PER_HOUR, "5s"),
	UINT32("alerts", "webhook_queue", alert_webhook_queue, 1, 100000, "256"),
	UINT32("alerts", "webhook_attempts", alert_webhook_attempts, 1, 100, "6"),
	DURATION("alerts", "webhook_retry_max", alert_webhook_retry_max_ms, MS_PER_SEC, MS_PER_HOUR,
		 "5m"),
};

/* struct cfg's key_line has a slot per key. */
_Static_assert(ELEMENTSOF(cfg_keys) <= CFG_KEYS_MAX, "raise CFG_KEYS_MAX");

/* Keys of [device "…"] sections: offsets into struct cfg_device. */
#define DEV_OFF(field, ctype)                                                                      \
	(offsetof(struct cfg_device, field) +                                                      \
	 0 * sizeof(_Generic(((struct cfg_device *)0)->field, ctype : 1)))
#define DEV_SIZE(name, field, lo, hi, dflt)                                                        \
	{                                                                                          \
		.section = "device", .key = name, .type = CFG_T_SIZE,                              \
		.offset = DEV_OFF(field, uint64_t), .min = lo, .max = hi, .def = dflt              \
	}

#define DEV_PATH(name, field, dflt)                                                                \
	{                                                                                          \
		.section = "device", .key = name, .type = CFG_T_PATH,                              \
		.offset = DEV_OFF(field, char *), .min = 0,                                        \
		.max = sizeof(((struct cfg_device *)0)->field) - 1, .def = dflt                    \
	}
#define DEV_TEXT(name, field, dflt)                                                                \
	{                                                                                          \
		.section = "device", .key = name, .type = CFG_T_TEXT,                              \
		.offset = DEV_OFF(field, char *), .min = 0,                                        \
		.max = sizeof(((struct cfg_device *)0)->field) - 1, .def = dflt                    \
	}
#define DEV_UINT32(name, field, lo, hi, dflt)                                                      \
	{                                                                                          \
		.section = "device", .key = name, .type = CFG_T_UINT32,                            \
		.offset = DEV_OFF(field, uint32_t), .min = lo, .max = hi, .def = dflt              \
	}
#define DEV_ENUM(name, field, list, hnt, dflt)                                                     \
	{                                                                                          \
		.section = "device", .key = name, .type = CFG_T_ENUM,                              \
		.offset = DEV_OFF(field, int), .choices = list, .hint = hnt, .def = dflt           \
	}

const struct cfg_key cfg_device_keys[] = {
	DEV_SIZE("rated_tbw", rated_bytes, 0, INT64_MAX, "0"),
	DEV_UINT32("rated_read_mbps", rated_read_mbps, 0, 1000000, "0"),
	DEV_UINT32("rated_write_mbps", rated_write_mbps, 0, 1000000, "0"),
	DEV_PATH("probe_dir", probe_dir, ""),
	DEV_PATH("probe_schedule", probe_schedule, ""),
	DEV_SIZE("probe_file_size", probe_file_size, 1 << 20, INT64_MAX, "1GiB"),
	DEV_SIZE("probe_budget_day", probe_budget_day, 0, INT64_MAX, "0"),
	DEV_SIZE("probe_budget_month", probe_budget_month, 0, INT64_MAX, "0"),
	DEV_SIZE("probe_sustained_limit", probe_sustained_limit, 1 << 20, INT64_MAX, "64GB"),
	DEV_ENUM("destructive", probe_destructive, cfg_bool_choices, "yes or no", "no"),
	DEV_UINT32("probe_namespace", probe_nsid, 1, 0xFFFFFFFE, "1"),
	/* Unset: [alerts] warning_margin / critical_margin (see cfg_device_for). */
	DEV_UINT32("warning_margin", alert_warning_margin_c, 0, 50, "0"),
	DEV_UINT32("critical_margin", alert_critical_margin_c, 0, 50, "0"),
	/* Unset: [alerts] sensor_alerts. Limits in °C, 0 = none. */
	DEV_ENUM("sensor_alerts", sensor_alerts, cfg_bool_choices, "yes or no", "no"),
	DEV_UINT32("sensor_limit_1", sensor_limit_c[0], 0, 200, "0"),
	DEV_UINT32("sensor_limit_2", sensor_limit_c[1], 0, 200, "0"),
	DEV_UINT32("sensor_limit_3", sensor_limit_c[2], 0, 200, "0"),
	DEV_UINT32("sensor_limit_4", sensor_limit_c[3], 0, 200, "0"),
	DEV_UINT32("sensor_limit_5", sensor_limit_c[4], 0, 200, "0"),
	DEV_UINT32("sensor_limit_6", sensor_limit_c[5], 0, 200, "0"),
	DEV_UINT32("sensor_limit_7", sensor_limit_c[6], 0, 200, "0"),
	DEV_UINT32("sensor_limit_8", sensor_limit_c[7], 0, 200, "0"),
	/* "" or unset: [selftests] default_schedule; "none": no schedule (selftest_conf.h). */
	DEV_PATH("selftest_schedule", selftest_schedule, ""),
	/* Who is who (issue 24): in the API, status, notifications and /metrics. */
	DEV_TEXT("label", label, ""),
	DEV_TEXT("location", location, ""),
};

/* The set_mask of struct cfg_device has a bit per device key. */
_Static_assert(sizeof(cfg_device_keys) / sizeof(cfg_device_keys[0]) <= 64, "too many device keys");

const size_t cfg_n_keys = ELEMENTSOF(cfg_keys);
const size_t cfg_n_device_keys = ELEMENTSOF(cfg_device_keys);

const char *const *cfg_bool_names(void)
{
	static const char *names[ELEMENTSOF(cfg_bool_choices)];

	for (size_t i = 0; i < ELEMENTSOF(cfg_bool_choices); i++)
		names[i] = cfg_bool_choices[i].name; /* the last is NULL */
	return names;
}
