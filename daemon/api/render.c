/* SPDX-License-Identifier: MIT */
/*
 * JSON views of devices and samples (jansson only). Every builder returns a new
 * reference or NULL when jansson runs out of memory; a partly built object is
 * never returned.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/api/errors_api.h"
#include "nvmond/api/drive_api.h"
#include "nvmond/api/render.h"
#include "nvmond/decode/smart.h"
#include "nvmond/monitor/fleet_health.h"
#include "nvmond/util/timefmt.h"
#include "nvmond/util/u128.h"
#include "nvmond/util/utf8.h"

/* Names of the critical warning bits, in bit order (see enum smart_crit). */
static const struct {
	uint8_t bit;
	const char *name;
} crit_names[] = {
	{SMART_CRIT_SPARE, "spare"},
	{SMART_CRIT_TEMPERATURE, "temperature"},
	{SMART_CRIT_DEGRADED, "degraded"},
	{SMART_CRIT_READ_ONLY, "read_only"},
	{SMART_CRIT_VOLATILE, "volatile_backup"},
	{SMART_CRIT_PMR_RO, "pmr_read_only"},
};

/*
 * Set @key to @v, taking the reference. A NULL @v (failed allocation upstream)
 * or a failed set turns into -ENOMEM, so callers can chain sets and check once.
 */
static int obj_set(json_t *o, const char *key, json_t *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_set_new(o, key, v) < 0)
		return -ENOMEM;
	return 0;
}

json_t *render_u128(u128 v)
{
	char buf[U128_DEC_MAX];

	if (v <= (u128)INT64_MAX)
		return json_integer((json_int_t)v);
	return json_string(u128_to_dec(v, buf));
}

/* °C for a reported temperature, null for 0 K ("not reported"). */
static json_t *render_celsius(uint16_t kelvin)
{
	int c;

	if (!smart_kelvin_to_c(kelvin, &c))
		return json_null();
	return json_integer(c);
}

static json_t *render_time(int64_t ms)
{
	char buf[TIMEFMT_MAX];

	return json_string(timefmt_rfc3339(ms, buf));
}

static json_t *render_crit_bits(uint8_t warning)
{
	json_t *a = json_array();

	if (!a)
		return NULL;
	for (size_t i = 0; i < sizeof(crit_names) / sizeof(crit_names[0]); i++) {
		if (!(warning & crit_names[i].bit))
			continue;
		if (json_array_append_new(a, json_string(crit_names[i].name)) < 0)
			return json_decref(a), NULL;
	}
	return a;
}

static json_t *render_sensors(const uint16_t k[SMART_NUM_SENSORS], bool celsius)
{
	json_t *a = json_array();

	if (!a)
		return NULL;
	for (size_t i = 0; i < SMART_NUM_SENSORS; i++) {
		json_t *v = celsius ? render_celsius(k[i]) : json_integer(k[i]);

		if (json_array_append_new(a, v) < 0)
			return json_decref(a), NULL;
	}
	return a;
}

/* Add the fields of @s to @o (shared by render_smart() and render_sample()). */
static int smart_fields_add(json_t *o, const struct smart_log *s)
{
	int r = 0;

	r |= obj_set(o, "critical_warning", json_integer(s->critical_warning));
	r |= obj_set(o, "critical_warning_bits", render_crit_bits(s->critical_warning));
	r |= obj_set(o, "temperature_k", json_integer(s->temperature_k));
	r |= obj_set(o, "temperature_c", render_celsius(s->temperature_k));
	r |= obj_set(o, "avail_spare", json_integer(s->avail_spare));
	r |= obj_set(o, "spare_thresh", json_integer(s->spare_thresh));
	r |= obj_set(o, "percent_used", json_integer(s->percent_used));
	r |= obj_set(o, "endurance_grp_crit_warn", json_integer(s->endurance_grp_crit_warn));
	r |= obj_set(o, "data_units_read", render_u128(s->data_units_read));
	r |= obj_set(o, "data_units_written", render_u128(s->data_units_written));
	r |= obj_set(o, "data_read_bytes", render_u128(smart_bytes(s->data_units_read)));
	r |= obj_set(o, "data_written_bytes", render_u128(smart_bytes(s->data_units_written)));
	r |= obj_set(o, "host_read_commands", render_u128(s->host_read_commands));
	r |= obj_set(o, "host_write_commands", render_u128(s->host_write_commands));
	r |= obj_set(o, "controller_busy_time", render_u128(s->controller_busy_time));
	r |= obj_set(o, "power_cycles", render_u128(s->power_cycles));
	r |= obj_set(o, "power_on_hours", render_u128(s->power_on_hours));
	r |= obj_set(o, "unsafe_shutdowns", render_u128(s->unsafe_shutdowns));
	r |= obj_set(o, "media_errors", render_u128(s->media_errors));
	r |= obj_set(o, "num_err_log_entries", render_u128(s->num_err_log_entries));
	r |= obj_set(o, "warning_temp_time", json_integer(s->warning_temp_time));
	r |= obj_set(o, "critical_temp_time", json_integer(s->critical_temp_time));
	r |= obj_set(o, "temp_sensors_k", render_sensors(s->temp_sensor_k, false));
	r |= obj_set(o, "temp_sensors_c", render_sensors(s->temp_sensor_k, true));
	r |= obj_set(o, "thm_temp1_trans_count", json_integer(s->thm_temp1_trans_count));
	r |= obj_set(o, "thm_temp2_trans_count", json_integer(s->thm_temp2_trans_count));
	r |= obj_set(o, "thm_temp1_total_time", json_integer(s->thm_temp1_total_time));
	r |= obj_set(o, "thm_temp2_total_time", json_integer(s->thm_temp2_total_time));
	return r ? -ENOMEM : 0;
}

json_t *render_smart(const struct smart_log *s)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	if (smart_fields_add(o, s) < 0)
		return json_decref(o), NULL;
	return o;
}

/* What a hwmon sample knows; every other field of it is null. */
static bool hwmon_field(const char *key)
{
	static const char *const known[] = {"ts",
					    "ts_ms",
					    "source",
					    "temperature_k",
					    "temperature_c",
					    "temp_sensors_k",
					    "temp_sensors_c"};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(key, known[i]) == 0)
			return true;
	return false;
}

json_t *render_sample(const struct sample *s)
{
	json_t *o = json_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= obj_set(o, "ts", render_time(s->ts_ms));
	r |= obj_set(o, "ts_ms", json_integer(s->ts_ms));
	r |= smart_fields_add(o, &s->smart);
	r |= obj_set(o, "source",
		     json_string(s->source == SAMPLE_SOURCE_HWMON ? "hwmon" : "smart"));
	if (!r && s->source == SAMPLE_SOURCE_HWMON) {
		const char *key;
		json_t *v;
		void *tmp;

		json_object_foreach_safe(o, tmp, key, v)
		{
			if (!hwmon_field(key))
				r |= obj_set(o, key, json_null());
		}
	}
	if (r)
		return json_decref(o), NULL;
	return o;
}

/*
 * A fixed-size identity field (NUL-terminated or full). Drives report ASCII, but a
 * broken one must not make the whole view fail: bytes that are not valid UTF-8
 * become '?'.
 */
static json_t *render_text(const char *s, size_t size)
{
	size_t n = strnlen(s, size);
	json_t *v = json_stringn(s, n);
	char *copy;

	if (v)
		return v;
	copy = strndup(s, n);
	if (!copy)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)copy[i] >= 0x80 || copy[i] == '\0')
			copy[i] = '?';
	v = json_stringn(copy, n);
	free(copy);
	return v;
}

#define RENDER_TEXT(field) render_text(field, sizeof(field))

/* The stored namespaces string parsed; an empty array when it is not a JSON array. */
static json_t *render_namespaces(const char *text, size_t size)
{
	json_t *v = json_loadb(text, strnlen(text, size), JSON_DECODE_ANY, NULL);

	if (json_is_array(v))
		return v;
	json_decref(v);
	return json_array();
}

/* Add the identity fields of @row to @o. */
static int row_fields_add(json_t *o, const struct device_row *row)
{
	int r = 0;

	r |= obj_set(o, "id", json_integer(row->id));
	r |= obj_set(o, "key", RENDER_TEXT(row->key));
	r |= obj_set(o, "model", RENDER_TEXT(row->model));
	r |= obj_set(o, "serial", RENDER_TEXT(row->serial));
	r |= obj_set(o, "firmware", RENDER_TEXT(row->firmware));
	r |= obj_set(o, "wctemp_k", json_integer(row->wctemp_k));
	r |= obj_set(o, "wctemp_c", render_celsius(row->wctemp_k));
	r |= obj_set(o, "cctemp_k", json_integer(row->cctemp_k));
	r |= obj_set(o, "cctemp_c", render_celsius(row->cctemp_k));
	r |= obj_set(o, "capacity_bytes", render_u128(row->capacity_bytes));
	r |= obj_set(o, "name", RENDER_TEXT(row->name));
	r |= obj_set(o, "namespaces", render_namespaces(row->namespaces, sizeof(row->namespaces)));
	r |= obj_set(o, "first_seen", render_time(row->first_seen_ms));
	r |= obj_set(o, "last_seen", render_time(row->last_seen_ms));
	r |= obj_set(o, "online", json_boolean(row->online));
	/* A simulated drive (its history may be the generated demo year). */
	r |= obj_set(o, "demo", json_boolean(row->simulated));
	return r ? -ENOMEM : 0;
}

json_t *render_device_row(const struct device_row *row)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	if (row_fields_add(o, row) < 0)
		return json_decref(o), NULL;
	return o;
}

/* A speed in tenths of GT/s as a number of GT/s; null when unknown. */
static json_t *render_gts(unsigned dgts)
{
	return dgts ? json_real(dgts / 10.0) : json_null();
}

static json_t *render_uint_or_null(unsigned v)
{
	return v ? json_integer(v) : json_null();
}

json_t *render_link(const struct nvme_pcie_link *l)
{
	char text[NVME_PCIE_LINK_STR_MAX];
	json_t *o;
	int r = 0;

	if (!nvme_pcie_link_known(l))
		return json_null();
	o = json_object();
	if (!o)
		return NULL;
	nvme_pcie_link_format(l, text, sizeof(text));
	r |= obj_set(o, "current_speed_gts", render_gts(l->cur_speed_dgts));
	r |= obj_set(o, "current_width", render_uint_or_null(l->cur_width));
	r |= obj_set(o, "max_speed_gts", render_gts(l->max_speed_dgts));
	r |= obj_set(o, "max_width", render_uint_or_null(l->max_width));
	r |= obj_set(o, "current_gen",
		     render_uint_or_null((unsigned)nvme_pcie_gen(l->cur_speed_dgts)));
	r |= obj_set(o, "max_gen", render_uint_or_null((unsigned)nvme_pcie_gen(l->max_speed_dgts)));
	r |= obj_set(o, "degraded", json_boolean(nvme_pcie_link_degraded(l)));
	r |= obj_set(o, "text", json_string(text));
	if (r)
		return json_decref(o), NULL;
	return o;
}

/* The facts fields (issue 11): state, source, link, firmware. */
static int facts_fields_add(json_t *o, const struct fleet_device *d)
{
	const struct fleet_facts *f = &d->facts;
	int r = 0;

	r |= obj_set(o, "state", json_string(fleet_device_state(d)));
	r |= obj_set(o, "asleep", json_boolean(d->row.online && f->asleep));
	r |= obj_set(o, "unresponsive", json_boolean(d->row.online && f->unresponsive));
	r |= obj_set(o, "source", json_string(f->hwmon_only ? "hwmon" : "smart"));
	r |= obj_set(o, "link", render_link(&f->link));
	r |= obj_set(o, "firmware_pending",
		     f->firmware_pending[0] ? RENDER_TEXT(f->firmware_pending) : json_null());
	if (f->firmware_changed_ms)
		r |= obj_set(o, "firmware_changed",
			     json_pack("{s:o, s:o, s:o}", "from", RENDER_TEXT(f->firmware_prev),
				       "to", RENDER_TEXT(f->firmware), "at",
				       render_time(f->firmware_changed_ms)));
	else
		r |= obj_set(o, "firmware_changed", json_null());
	return r ? -ENOMEM : 0;
}

/* The limit a sensor is judged against, or the drive's own threshold when it has
 * one but the sensor does not alert (shown all the same). */
static void sensor_limit(const struct fleet_temps *t, int i, uint16_t *ret_k, const char **ret_src)
{
	const struct sensor_verdict *v = &t->v.sensor[i];
	uint16_t drive = t->drive_limit_k[i];

	*ret_k = v->limit_k;
	*ret_src = v->limit_src == SENSOR_LIMIT_NONE ? NULL : sensor_limit_src_name(v->limit_src);
	if (!*ret_src && drive != 0 && drive != 0xffff) {
		*ret_k = drive;
		*ret_src = sensor_limit_src_name(SENSOR_LIMIT_DRIVE);
	}
}

static json_t *render_sensor(const struct fleet_temps *t, const struct smart_log *s, int i)
{
	const struct sensor_verdict *v = &t->v.sensor[i];
	uint16_t drive = t->drive_limit_k[i], limit_k;
	const char *src;
	json_t *o = json_object();
	int r = 0;

	if (!o)
		return NULL;
	sensor_limit(t, i, &limit_k, &src);
	r |= obj_set(o, "sensor", json_integer(i + 1));
	r |= obj_set(o, "temperature_k", json_integer(s->temp_sensor_k[i]));
	r |= obj_set(o, "temperature_c", render_celsius(s->temp_sensor_k[i]));
	r |= obj_set(o, "over_wctemp", json_boolean(v->note));
	r |= obj_set(o, "implausible", json_boolean(v->implausible != SENSOR_PLAUSIBLE));
	r |= obj_set(o, "implausible_reason",
		     v->implausible == SENSOR_PLAUSIBLE
			     ? json_null()
			     : json_string(sensor_implausible_name(v->implausible)));
	r |= obj_set(o, "alerts", json_boolean(v->may_alert));
	r |= obj_set(o, "limit_c", src ? render_celsius(limit_k) : json_null());
	r |= obj_set(o, "limit_source", src ? json_string(src) : json_null());
	r |= obj_set(o, "drive_limit_c", drive == 0xffff ? json_null() : render_celsius(drive));
	r |= obj_set(o, "over_limit", json_boolean(v->over_limit));
	if (r)
		return json_decref(o), NULL;
	return o;
}

static int note_add(json_t *a, const char *kind, int sensor, const char *msg)
{
	json_t *n = json_pack("{s:s, s:i, s:s}", "kind", kind, "sensor", sensor, "message", msg);

	return n && json_array_append_new(a, n) == 0 ? 0 : -ENOMEM;
}

/*
 * What an administrator should know about the sensors: one above WCTEMP while
 * the composite is below it (WCTEMP applies to the composite: a note, not an
 * alert), one that looks implausible (never alerts).
 */
static json_t *render_notes(const struct fleet_device *d)
{
	const struct fleet_temps *t = &d->temps;
	const struct smart_log *s = &d->last.smart;
	json_t *a = json_array();
	char msg[256];
	int r = 0;

	if (!a)
		return NULL;
	for (int i = 0; d->has_sample && t->judged && i < SMART_NUM_SENSORS; i++) {
		const struct sensor_verdict *v = &t->v.sensor[i];
		int sc = (int)s->temp_sensor_k[i] - 273;

		if (v->note) {
			snprintf(msg, sizeof(msg),
				 "Sensor %d reads %d °C, above WCTEMP %d °C, while the composite "
				 "is %d °C: WCTEMP applies to the composite, so this is %s",
				 i + 1, sc, (int)d->row.wctemp_k - 273, (int)s->temperature_k - 273,
				 v->may_alert ? "judged against the sensor's own limit"
					      : "a note, not an alert");
			r |= note_add(a, "sensor_over_wctemp", i + 1, msg);
		}
		if (v->implausible == SENSOR_STUCK) {
			snprintf(msg, sizeof(msg),
				 "Sensor %d looks implausible: %d °C unchanged for 6 h or more "
				 "while the composite moved by 5 °C or more; it never alerts",
				 i + 1, sc);
			r |= note_add(a, "sensor_implausible", i + 1, msg);
		} else if (v->implausible == SENSOR_BEYOND_CCTEMP) {
			snprintf(msg, sizeof(msg),
				 "Sensor %d looks implausible: %d °C is 15 °C or more above CCTEMP "
				 "%d °C while the composite is below WCTEMP; it never alerts",
				 i + 1, sc, (int)d->row.cctemp_k - 273);
			r |= note_add(a, "sensor_implausible", i + 1, msg);
		}
	}
	if (r)
		return json_decref(a), NULL;
	return a;
}

/* The reported sensors 1-8 of the latest sample with their verdicts; [] before
 * the first judged sample. */
static json_t *render_judged_sensors(const struct fleet_device *d)
{
	json_t *a = json_array();

	if (!a)
		return NULL;
	for (int i = 0; d->has_sample && d->temps.judged && i < SMART_NUM_SENSORS; i++) {
		if (!d->temps.v.sensor[i].reported)
			continue;
		if (json_array_append_new(a, render_sensor(&d->temps, &d->last.smart, i)) < 0)
			return json_decref(a), NULL;
	}
	return a;
}

json_t *render_health(const struct health_verdict *h)
{
	json_t *why = json_array();
	char text[HEALTH_WHY_LEN * 3]; /* each byte at worst U+FFFD */

	if (!why)
		return NULL;
	for (size_t i = 0; i < h->n_why; i++) {
		/* An alert's message from the store is text a drive may have garbled. */
		utf8_copy(text, sizeof(text), h->why[i]);
		if (json_array_append_new(why, json_string(text)) < 0)
			return json_decref(why), NULL;
	}
	return json_pack("{s:s, s:o}", "state", health_state_name(h->state), "why", why);
}

json_t *render_fleet_device(const struct fleet_device *d)
{
	json_t *o = json_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= row_fields_add(o, &d->row);
	/* What the operator calls the drive ([device] label, location); null when unset. */
	r |= obj_set(o, "label", d->names.label[0] ? json_string(d->names.label) : json_null());
	r |= obj_set(o, "location",
		     d->names.location[0] ? json_string(d->names.location) : json_null());
	r |= facts_fields_add(o, d);
	r |= obj_set(o, "latest", d->has_sample ? render_sample(&d->last) : json_null());
	r |= obj_set(o, "sensors", render_judged_sensors(d));
	r |= obj_set(o, "notes", render_notes(d));
	/* Error log entries by class; null until the drive's log was first read. */
	r |= obj_set(o, "errors", d->errors_read ? render_error_counts(d->errors) : json_null());
	r |= render_drive_fields_add(o, d); /* issue 27: C0h, power, events, risk */
	/* The one health rule (analysis/health.h): what the dashboard and /metrics show. */
	struct health_verdict h;
	fleet_health(d, &h);
	r |= obj_set(o, "health", render_health(&h));
	if (r)
		return json_decref(o), NULL;
	return o;
}
