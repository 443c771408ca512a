/* SPDX-License-Identifier: MIT */
/*
 * The probe endpoints' bodies parsed and checked (probe_body.h). Pure: no
 * clock, no I/O, no logging; the messages are the 400s the API answers.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>

#include "nvmond/core/cfg.h"
#include "nvmond/probe/probe_body.h"
#include "nvmond/probe/probe_series.h"

static __attribute__((format(printf, 3, 4))) int body_fail(json_t *body, char ret_err[API_ERR_MAX],
							   const char *fmt, ...)
{
	va_list ap;

	json_decref(body);
	va_start(ap, fmt);
	vsnprintf(ret_err, API_ERR_MAX, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int probe_body_parse(const char *body, size_t len, int64_t device_id, struct probe_body *ret,
		     char ret_err[API_ERR_MAX])
{
	json_error_t jerr;
	json_t *b = json_loadb(body, len, 0, &jerr);
	const char *preset = json_string_value(json_object_get(b, "preset"));
	json_t *repeat = json_object_get(b, "repeat"), *cooldown = json_object_get(b, "cooldown"),
	       *to = json_object_get(b, "to");
	struct probe_body p = {.repeat = 1, .cooldown_ms = PROBE_COOLDOWN_DEFAULT_MS};

	if (!b || !json_is_object(b))
		return body_fail(b, ret_err, "body: a JSON object {\"preset\": \"…\"}");
	if (repeat && (!json_is_integer(repeat) || json_integer_value(repeat) < 1 ||
		       json_integer_value(repeat) > PROBE_REPEAT_MAX))
		return body_fail(b, ret_err, "repeat: an integer, 1 … %d", PROBE_REPEAT_MAX);
	if (repeat)
		p.repeat = (uint32_t)json_integer_value(repeat);
	if (cooldown && (!json_is_string(cooldown) ||
			 cfg_parse_duration_ms(json_string_value(cooldown), &p.cooldown_ms) < 0 ||
			 p.cooldown_ms < 0 || p.cooldown_ms > PROBE_COOLDOWN_MAX_MS))
		return body_fail(b, ret_err, "cooldown: a duration (\"30s\", \"2m\"), at most 1 h");
	char names[PROBE_PRESET_NAMES_MAX];
	if (!preset || !probe_preset_find(preset, &p.preset))
		return body_fail(b, ret_err, "preset: one of %s",
				 probe_preset_names(names, sizeof(names), 0));
	if (probe_preset_get(p.preset)->study && (repeat || cooldown))
		return body_fail(b, ret_err,
				 "cache-recovery is a study: its runs follow [probes] "
				 "recovery_intervals (no repeat, no cooldown)");
	/* copy-to: this drive is read, "to" (a device id) written. */
	if (probe_preset_get(p.preset)->copy_to != !!to)
		return body_fail(b, ret_err, "%s",
				 to ? "to: only copy-to copies to another drive"
				    : "copy-to: \"to\", the id of the drive to copy to");
	if (to && (!json_is_integer(to) || json_integer_value(to) <= 0 ||
		   json_integer_value(to) == device_id || repeat || cooldown))
		return body_fail(b, ret_err,
				 "to: the id of another drive (copy-self copies a drive onto "
				 "itself); copy-to runs once (no repeat, no cooldown)");
	if (to)
		p.to_device_id = json_integer_value(to);
	json_decref(b);
	*ret = p;
	return 0;
}

int probe_group_body_parse(const char *body, size_t len, struct probe_group_body *ret,
			   char ret_err[API_ERR_MAX])
{
	json_error_t jerr;
	json_t *b = json_loadb(body, len, 0, &jerr);
	const char *preset = json_string_value(json_object_get(b, "preset"));
	json_t *devices = json_object_get(b, "devices"), *v;
	struct probe_group_body g = {.n = 0};
	size_t i;

	if (!b || !json_is_object(b) || !json_is_array(devices) || json_array_size(devices) < 2 ||
	    json_array_size(devices) > PROBE_GROUP_MAX)
		return body_fail(b, ret_err,
				 "body: {\"preset\": \"…\", \"devices\": [id, id, …]} (2 … %d "
				 "drives)",
				 PROBE_GROUP_MAX);
	json_array_foreach(devices, i, v)
	{
		if (!json_is_integer(v))
			return body_fail(b, ret_err, "devices: drive ids (integers)");
		g.device_id[g.n++] = json_integer_value(v);
	}
	char names[PROBE_PRESET_NAMES_MAX];
	if (!preset || !probe_preset_find(preset, &g.preset) || probe_preset_get(g.preset)->study)
		return body_fail(b, ret_err, "preset: one of %s (a group runs no study)",
				 probe_preset_names(names, sizeof(names),
						    PROBE_NAMES_NO_COPY_TO | PROBE_NAMES_NO_STUDY));
	if (json_object_get(b, "repeat") || json_object_get(b, "cooldown"))
		return body_fail(b, ret_err, "a group run is run once (no repeat, no cooldown)");
	json_decref(b);
	*ret = g;
	return 0;
}
