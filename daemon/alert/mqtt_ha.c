/* SPDX-License-Identifier: MIT */
/*
 * The MQTT sink's topics and payloads, and Home Assistant's MQTT discovery
 * configs (https://www.home-assistant.io/integrations/mqtt/#mqtt-discovery):
 * one HA device per drive, its sensors and binary sensors pointing at the
 * retained state topics, all sharing the host's availability topic.
 */
#define _GNU_SOURCE /* vasprintf */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "nvmond/alert/mqtt_ha.h"
#include "nvmond/decode/sample.h"
#include "nvmond/decode/smart.h"
#include "nvmond/util/utf8.h"

void mqtt_msgs_clear(struct mqtt_msgs *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].topic);
		free(m->v[i].payload);
	}
	m->n = 0;
}

/* Append; takes @topic and @payload (freed on failure). */
static int push(struct mqtt_msgs *m, char *topic, char *payload, bool retain)
{
	if (!topic || !payload)
		goto fail;
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		struct mqtt_msg *v = realloc(m->v, cap * sizeof(*v));
		if (!v)
			goto fail;
		m->v = v;
		m->cap = cap;
	}
	m->v[m->n++] = (struct mqtt_msg){.topic = topic, .payload = payload, .retain = retain};
	return 0;
fail:
	free(topic);
	free(payload);
	return -ENOMEM;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	char *s = NULL;
	va_list ap;

	va_start(ap, f);
	int r = vasprintf(&s, f, ap);
	va_end(ap);
	return r < 0 ? NULL : s;
}

void mqtt_topic_id(const char *s, char *out, size_t size)
{
	size_t i = 0;

	for (; s && *s && i + 1 < size; s++) {
		char ch = *s;
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';
		out[i++] = ok ? ch : '_';
	}
	out[i] = '\0';
	if (i == 0)
		snprintf(out, size, "unknown");
}

void mqtt_drive_state_from(const struct device_row *dev, const struct smart_log *smart,
			   bool throttling, struct mqtt_drive_state *ret)
{
	*ret = (struct mqtt_drive_state){0};
	/* Valid UTF-8 (the payloads are JSON): bytes that are not become U+FFFD. */
	utf8_copy(ret->device, sizeof(ret->device), dev->name);
	utf8_copy(ret->model, sizeof(ret->model), dev->model);
	utf8_copy(ret->serial, sizeof(ret->serial), dev->serial);
	utf8_copy(ret->firmware, sizeof(ret->firmware), dev->firmware);
	if (!smart)
		return;
	ret->has_sample = true;
	ret->temperature_c = (int)smart->temperature_k - 273;
	ret->percentage_used = smart->percent_used;
	ret->data_units_written = smart->data_units_written > UINT64_MAX
					  ? UINT64_MAX
					  : (uint64_t)smart->data_units_written;
	ret->available_spare = smart->avail_spare;
	ret->throttling = throttling;
	ret->problem = smart->critical_warning != 0 || smart->endurance_grp_crit_warn != 0;
}

void mqtt_tb(uint64_t units, char *out, size_t size)
{
	/* thousandths of a TB = units * 512 000 / 10^9, rounded half up */
	unsigned __int128 milli = ((unsigned __int128)units * 512000u + 500000000u) / 1000000000u;
	uint64_t m = milli > UINT64_MAX ? UINT64_MAX : (uint64_t)milli;

	snprintf(out, size, "%" PRIu64 ".%03" PRIu64, m / 1000, m % 1000);
}

int mqtt_ha_status_topic(const struct mqtt_ha_cfg *c, char *out, size_t size)
{
	char host[128];

	mqtt_topic_id(c->host, host, sizeof(host));
	int n = snprintf(out, size, "%s/%s/status", c->topic_prefix, host);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* The trimmed serial as an id: NVMe serials are space-padded ASCII. */
static void serial_id(const char *serial, char *out, size_t size)
{
	char t[32];
	size_t l = strnlen(serial, sizeof(t) - 1);

	memcpy(t, serial, l);
	while (l > 0 && t[l - 1] == ' ')
		l--;
	t[l] = '\0';
	const char *p = t;
	while (*p == ' ')
		p++;
	mqtt_topic_id(p, out, size);
}

void mqtt_ha_drive_id(const struct mqtt_drive_state *d, char *out, size_t size)
{
	serial_id(d->serial, out, size);
}

static const struct ha_entity {
	const char *component; /* "sensor" or "binary_sensor" */
	const char *object;    /* topic level and object id */
	const char *name;
	const char *device_class; /* NULL: none */
	const char *unit;	  /* NULL: none */
	const char *state_class;  /* NULL: none */
	const char *icon;	  /* NULL: HA's default for the class */
} ENTITIES[] = {
	{"sensor", "temperature", "Temperature", "temperature", "°C", "measurement", NULL},
	{"sensor", "percentage_used", "Percentage used", NULL, "%", "measurement", "mdi:gauge"},
	{"sensor", "data_written", "Data written", "data_size", "TB", "total_increasing", NULL},
	{"sensor", "available_spare", "Available spare", NULL, "%", "measurement", "mdi:harddisk"},
	{"binary_sensor", "throttling", "Throttling", "heat", NULL, NULL, NULL},
	{"binary_sensor", "problem", "Health problem", "problem", NULL, NULL, NULL},
	/* HA's event entity: each notification on the event topic, "event_type" = its state */
	{"event", "event", "Alert", NULL, NULL, NULL, "mdi:alert"},
};

static json_t *device_info(const struct mqtt_ha_cfg *c, const struct mqtt_drive_state *d,
			   const char *sid)
{
	char name[128];
	char model[sizeof(d->model)];
	size_t l = strnlen(d->model, sizeof(model) - 1);

	memcpy(model, d->model, l);
	while (l > 0 && model[l - 1] == ' ')
		l--;
	model[l] = '\0';
	snprintf(name, sizeof(name), "%s %s", model[0] ? model : "NVMe", sid);
	json_t *dev = json_pack("{s:[s+], s:s, s:s}", "identifiers", "nvmond_", sid, "name", name,
				"model", model[0] ? model : "NVMe SSD");
	if (!dev)
		return NULL;
	if (d->vendor[0])
		json_object_set_new(dev, "manufacturer", json_string(d->vendor));
	if (d->firmware[0])
		json_object_set_new(dev, "sw_version", json_string(d->firmware));
	(void)c;
	return dev;
}

int mqtt_ha_discovery(const struct mqtt_ha_cfg *c, const struct mqtt_drive_state *d,
		      struct mqtt_msgs *out)
{
	char sid[32], host[128], status[512];

	serial_id(d->serial, sid, sizeof(sid));
	mqtt_topic_id(c->host, host, sizeof(host));
	if (mqtt_ha_status_topic(c, status, sizeof(status)) < 0)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < sizeof(ENTITIES) / sizeof(ENTITIES[0]); i++) {
		const struct ha_entity *e = &ENTITIES[i];
		char *state = fmt("%s/%s/%s/%s", c->topic_prefix, host, sid, e->object);
		char *uid = fmt("nvmond_%s_%s", sid, e->object);
		json_t *dev = device_info(c, d, sid);
		json_t *o = state && uid && dev
				    ? json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o}", "name",
						e->name, "unique_id", uid, "state_topic", state,
						"availability_topic", status, "payload_available",
						"online", "payload_not_available", "offline",
						"device", dev)
				    : NULL;
		if (!o)
			json_decref(dev);
		free(state);
		free(uid);
		if (!o)
			return -ENOMEM;
		if (e->device_class)
			json_object_set_new(o, "device_class", json_string(e->device_class));
		if (e->unit)
			json_object_set_new(o, "unit_of_measurement", json_string(e->unit));
		if (e->state_class)
			json_object_set_new(o, "state_class", json_string(e->state_class));
		if (e->icon)
			json_object_set_new(o, "icon", json_string(e->icon));
		if (strcmp(e->component, "event") == 0)
			json_object_set_new(
				o, "event_types",
				json_pack("[s,s,s,s]", "firing", "escalated", "resolved", "test"));
		if (strcmp(e->component, "binary_sensor") == 0) {
			json_object_set_new(o, "payload_on", json_string("ON"));
			json_object_set_new(o, "payload_off", json_string("OFF"));
		}
		json_object_set_new(o, "origin",
				    json_pack("{s:s, s:s}", "name", "nvmond", "sw_version",
					      c->sw_version ? c->sw_version : ""));
		char *payload = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
		json_decref(o);
		char *topic = fmt("%s/%s/nvmond_%s/%s/config", c->discovery_prefix, e->component,
				  sid, e->object);
		if (push(out, topic, payload, true) < 0)
			return -ENOMEM;
	}
	return 0;
}

int mqtt_ha_states(const struct mqtt_ha_cfg *c, const struct mqtt_drive_state *d,
		   struct mqtt_msgs *out)
{
	char sid[32], host[128], tb[32];

	if (!d->has_sample)
		return 0;
	serial_id(d->serial, sid, sizeof(sid));
	mqtt_topic_id(c->host, host, sizeof(host));
	mqtt_tb(d->data_units_written, tb, sizeof(tb));
	const struct {
		const char *object;
		char *value;
	} v[] = {
		{"temperature", fmt("%d", d->temperature_c)},
		{"percentage_used", fmt("%u", d->percentage_used)},
		{"data_written", fmt("%s", tb)},
		{"available_spare", fmt("%u", d->available_spare)},
		{"throttling", fmt("%s", d->throttling ? "ON" : "OFF")},
		{"problem", fmt("%s", d->problem ? "ON" : "OFF")},
	};
	int r = 0;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		if (r < 0) {
			free(v[i].value);
			continue;
		}
		r = push(out, fmt("%s/%s/%s/%s", c->topic_prefix, host, sid, v[i].object),
			 v[i].value, true);
	}
	return r;
}

int mqtt_ha_event(const struct mqtt_ha_cfg *c, const struct alert_note *n, struct mqtt_msgs *out)
{
	char sid[32], host[128];
	char serial[sizeof(n->serial)];

	snprintf(serial, sizeof(serial), "%.*s", (int)sizeof(n->serial) - 1, n->serial);
	mqtt_topic_id(c->host, host, sizeof(host));
	json_t *o = alert_note_json(n);
	if (!o)
		return -ENOMEM;
	json_object_set_new(o, "host", json_string(c->host));
	/* for Home Assistant's event entity: the type is the state (firing, resolved, …) */
	json_object_set_new(o, "event_type", json_string(n->state));
	char *payload = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	bool any = false;
	for (const char *p = serial; *p; p++)
		any |= *p != ' ';
	if (!any)
		return push(out, fmt("%s/%s/event", c->topic_prefix, host), payload, false);
	serial_id(serial, sid, sizeof(sid));
	return push(out, fmt("%s/%s/%s/event", c->topic_prefix, host, sid), payload, false);
}
