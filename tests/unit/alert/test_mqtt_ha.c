/* SPDX-License-Identifier: MIT */
/*
 * The MQTT sink's topics and payloads (daemon/alert/mqtt_ha.c): each case names
 * the rule it checks (the header's topic table, Home Assistant's MQTT discovery
 * documentation). The real broker round trip is tests/integration/test_sink_mqtt.sh.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "nvmond/alert/mqtt_ha.h"
#include "nvmond/decode/sample.h"
#include "nvmond/decode/smart.h"

static const struct mqtt_ha_cfg CFG = {.topic_prefix = "nvmond",
				       .discovery_prefix = "homeassistant",
				       .host = "nas.local",
				       .sw_version = "0.1.0"};

static struct mqtt_drive_state drive(void)
{
	struct mqtt_drive_state d = {.has_sample = true,
				     .temperature_c = 41,
				     .percentage_used = 3,
				     .data_units_written = 23437500, /* 12 TB */
				     .available_spare = 100,
				     .throttling = true};
	strcpy(d.device, "nvme0");
	strcpy(d.model, "Samsung SSD 980 1TB                     ");
	strcpy(d.serial, "S64D/NF0 R12       ");
	strcpy(d.firmware, "3B4QFXO7");
	strcpy(d.vendor, "Samsung");
	return d;
}

static const struct mqtt_msg *find(const struct mqtt_msgs *m, const char *topic)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->v[i].topic, topic) == 0)
			return &m->v[i];
	return NULL;
}

Test(mqtt_ha, topic_ids_are_one_safe_level)
{
	/* A topic level holds no "/", "+", "#" or space; HA ids only [a-zA-Z0-9_-]. */
	static const struct {
		const char *in, *out;
	} t[] = {
		{"S64DNF0R123", "S64DNF0R123"},
		{"a/b c", "a_b_c"},
		{"+#", "__"},
		{"", "unknown"},
		{"x-y_z", "x-y_z"},
		{"nas.local", "nas_local"},
		{"ü", "__"},
	};
	char out[64];
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		mqtt_topic_id(t[i].in, out, sizeof(out));
		cr_assert_str_eq(out, t[i].out, "%s", t[i].in);
	}
}

Test(mqtt_ha, terabytes_are_exact)
{
	/* NVMe Data Units Written: 1000 units of 512 bytes each = 512 000 bytes per unit. */
	static const struct {
		uint64_t units;
		const char *tb;
	} t[] = {
		{0, "0.000"},
		{1953125, "1.000"}, /* 10^12 bytes */
		{1952148, "0.999"}, /* 0.999499776 TB: rounded to the nearest thousandth */
		{1952149, "1.000"}, /* 0.999500288 TB: half up */
		{1953126, "1.000"},
		{23437500, "12.000"},
		{UINT64_MAX, "9444732965739.290"}, /* 2^64 × 512 000 fits 128 bits */
	};
	char out[40];
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		mqtt_tb(t[i].units, out, sizeof(out));
		cr_assert_str_eq(out, t[i].tb, "%llu", (unsigned long long)t[i].units);
	}
}

Test(mqtt_ha, states_are_retained_under_prefix_host_serial)
{
	/* Issue 16: each drive's state, retained, under nvmond/HOST/SERIAL/…; the serial trimmed
	 * of its NVMe space padding and made topic-safe. */
	struct mqtt_drive_state d = drive();
	struct mqtt_msgs m = {0};
	cr_assert_eq(mqtt_ha_states(&CFG, &d, &m), 0);
	cr_assert_eq(m.n, 6);
	static const struct {
		const char *topic, *payload;
	} want[] = {
		{"nvmond/nas_local/S64D_NF0_R12/temperature", "41"},
		{"nvmond/nas_local/S64D_NF0_R12/percentage_used", "3"},
		{"nvmond/nas_local/S64D_NF0_R12/data_written", "12.000"},
		{"nvmond/nas_local/S64D_NF0_R12/available_spare", "100"},
		{"nvmond/nas_local/S64D_NF0_R12/throttling", "ON"},
		{"nvmond/nas_local/S64D_NF0_R12/problem", "OFF"},
	};
	for (size_t i = 0; i < 6; i++) {
		const struct mqtt_msg *x = find(&m, want[i].topic);
		cr_assert_not_null(x, "%s", want[i].topic);
		cr_assert_str_eq(x->payload, want[i].payload);
		cr_assert(x->retain);
	}
	mqtt_msgs_clear(&m);

	/* No sample yet: no state (discovery alone). */
	d.has_sample = false;
	cr_assert_eq(mqtt_ha_states(&CFG, &d, &m), 0);
	cr_assert_eq(m.n, 0);
	free(m.v);
}

Test(mqtt_ha, discovery_config_per_ha_docs)
{
	/* HA MQTT discovery: <discovery_prefix>/<component>/[<node_id>/]<object_id>/config,
	 * retained; payload with unique_id, state_topic, availability and device info; device
	 * classes and units that HA knows (temperature °C, data_size TB, problem, heat). */
	struct mqtt_drive_state d = drive();
	struct mqtt_msgs m = {0};
	cr_assert_eq(mqtt_ha_discovery(&CFG, &d, &m), 0);
	cr_assert_eq(m.n, 7);
	static const struct {
		const char *topic, *state, *device_class, *unit, *state_class;
	} want[] = {
		{"homeassistant/sensor/nvmond_S64D_NF0_R12/temperature/config", "temperature",
		 "temperature", "°C", "measurement"},
		{"homeassistant/sensor/nvmond_S64D_NF0_R12/percentage_used/config",
		 "percentage_used", NULL, "%", "measurement"},
		{"homeassistant/sensor/nvmond_S64D_NF0_R12/data_written/config", "data_written",
		 "data_size", "TB", "total_increasing"},
		{"homeassistant/sensor/nvmond_S64D_NF0_R12/available_spare/config",
		 "available_spare", NULL, "%", "measurement"},
		{"homeassistant/binary_sensor/nvmond_S64D_NF0_R12/throttling/config", "throttling",
		 "heat", NULL, NULL},
		{"homeassistant/binary_sensor/nvmond_S64D_NF0_R12/problem/config", "problem",
		 "problem", NULL, NULL},
		{"homeassistant/event/nvmond_S64D_NF0_R12/event/config", "event", NULL, NULL, NULL},
	};
	for (size_t i = 0; i < 7; i++) {
		const struct mqtt_msg *x = find(&m, want[i].topic);
		cr_assert_not_null(x, "%s", want[i].topic);
		cr_assert(x->retain);
		json_error_t e;
		json_t *o = json_loads(x->payload, 0, &e);
		cr_assert_not_null(o, "%s", e.text);
		char st[128], uid[128];
		snprintf(st, sizeof(st), "nvmond/nas_local/S64D_NF0_R12/%s", want[i].state);
		snprintf(uid, sizeof(uid), "nvmond_S64D_NF0_R12_%s", want[i].state);
		cr_assert_str_eq(json_string_value(json_object_get(o, "state_topic")), st);
		cr_assert_str_eq(json_string_value(json_object_get(o, "unique_id")), uid);
		cr_assert_str_eq(json_string_value(json_object_get(o, "availability_topic")),
				 "nvmond/nas_local/status");
		cr_assert_not_null(json_string_value(json_object_get(o, "name")));
		const char *dc = json_string_value(json_object_get(o, "device_class"));
		const char *un = json_string_value(json_object_get(o, "unit_of_measurement"));
		const char *sc = json_string_value(json_object_get(o, "state_class"));
		cr_assert(want[i].device_class ? dc && !strcmp(dc, want[i].device_class) : !dc);
		cr_assert(want[i].unit ? un && !strcmp(un, want[i].unit) : !un);
		cr_assert(want[i].state_class ? sc && !strcmp(sc, want[i].state_class) : !sc);
		/* one HA device per drive, the same for all its entities */
		json_t *dev = json_object_get(o, "device");
		cr_assert_str_eq(
			json_string_value(json_array_get(json_object_get(dev, "identifiers"), 0)),
			"nvmond_S64D_NF0_R12");
		cr_assert_str_eq(json_string_value(json_object_get(dev, "model")),
				 "Samsung SSD 980 1TB");
		cr_assert_str_eq(json_string_value(json_object_get(dev, "manufacturer")),
				 "Samsung");
		cr_assert_str_eq(json_string_value(json_object_get(dev, "sw_version")), "3B4QFXO7");
		cr_assert_str_eq(json_string_value(json_object_get(dev, "name")),
				 "Samsung SSD 980 1TB S64D_NF0_R12");
		/* HA's event entity: the types it may fire, each the "event_type" of an event */
		json_t *types = json_object_get(o, "event_types");
		if (i == 6)
			cr_assert_eq(json_array_size(types), 4);
		else
			cr_assert_null(types);
		json_decref(o);
	}
	mqtt_msgs_clear(&m);
	free(m.v);
}

Test(mqtt_ha, events_not_retained_per_drive_or_host)
{
	/* Events: nvmond/HOST/SERIAL/event for a drive, nvmond/HOST/event without one; never
	 * retained (a new subscriber must not see old alerts as new). */
	struct alert_note n = {.alert_id = 7, .device_id = 1, .ts_ms = 1000};
	strcpy(n.serial, "S64D/NF0 R12");
	strcpy(n.rule, "temperature_critical");
	strcpy(n.severity, "critical");
	strcpy(n.state, "firing");
	strcpy(n.label, "bay 3"); /* issue 24: the drive's label and location go with it */
	strcpy(n.location, "rack 12");
	struct mqtt_msgs m = {0};
	cr_assert_eq(mqtt_ha_event(&CFG, &n, &m), 0);
	cr_assert_eq(m.n, 1);
	cr_assert_str_eq(m.v[0].topic, "nvmond/nas_local/S64D_NF0_R12/event");
	cr_assert_not(m.v[0].retain);
	json_t *o = json_loads(m.v[0].payload, 0, NULL);
	cr_assert_str_eq(json_string_value(json_object_get(o, "rule")), "temperature_critical");
	cr_assert_str_eq(json_string_value(json_object_get(o, "host")), "nas.local");
	cr_assert_str_eq(json_string_value(json_object_get(o, "event_type")), "firing");
	cr_assert_str_eq(json_string_value(json_object_get(o, "label")), "bay 3");
	cr_assert_str_eq(json_string_value(json_object_get(o, "location")), "rack 12");
	json_decref(o);
	mqtt_msgs_clear(&m);

	memset(n.serial, 0, sizeof(n.serial));
	cr_assert_eq(mqtt_ha_event(&CFG, &n, &m), 0);
	cr_assert_str_eq(m.v[0].topic, "nvmond/nas_local/event");
	mqtt_msgs_clear(&m);
	free(m.v);
}

Test(mqtt_ha, status_topic)
{
	/* The availability topic: P/H/status. */
	char t[64];
	cr_assert_eq(mqtt_ha_status_topic(&CFG, t, sizeof(t)), 0);
	cr_assert_str_eq(t, "nvmond/nas_local/status");
	cr_assert_eq(mqtt_ha_status_topic(&CFG, t, 10), -ENAMETOOLONG);
}

Test(mqtt_ha, state_from_store_row_and_smart_log)
{
	/* mqtt_ha.h: °C from kelvin, counters as read, "problem" = any critical warning bit
	 * (NVMe 2.0 Figure 207 byte 0) or an endurance group critical warning (byte 6). */
	struct device_row dev = {.id = 1};
	strcpy(dev.name, "nvme1");
	strcpy(dev.model, "WD_BLACK SN850X 2000GB");
	strcpy(dev.serial, "23123A800123");
	strcpy(dev.firmware, "620311WD");
	struct smart_log s = {.temperature_k = 318,
			      .avail_spare = 97,
			      .percent_used = 4,
			      .data_units_written = 23437500};
	static const struct {
		uint8_t cw, egcw;
		bool problem;
	} t[] = {{0, 0, false},	  {0x01, 0, true}, {0x02, 0, true}, {0x04, 0, true},
		 {0x08, 0, true}, {0x10, 0, true}, {0x20, 0, true}, {0, 0x04, true}};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct mqtt_drive_state d;
		s.critical_warning = t[i].cw;
		s.endurance_grp_crit_warn = t[i].egcw;
		mqtt_drive_state_from(&dev, &s, i == 1, &d);
		cr_assert_eq(d.problem, t[i].problem, "case %zu", i);
		cr_assert_eq(d.throttling, i == 1);
		cr_assert(d.has_sample);
		cr_assert_eq(d.temperature_c, 45);
		cr_assert_eq(d.available_spare, 97);
		cr_assert_eq(d.percentage_used, 4);
		cr_assert_eq(d.data_units_written, 23437500);
		cr_assert_str_eq(d.device, "nvme1");
		cr_assert_str_eq(d.serial, "23123A800123");
		cr_assert_str_eq(d.firmware, "620311WD");
	}
	/* Saturation: a counter past 2^64 units publishes as the largest value. */
	s.data_units_written = (u128)1 << 70;
	struct mqtt_drive_state d;
	mqtt_drive_state_from(&dev, &s, false, &d);
	cr_assert_eq(d.data_units_written, UINT64_MAX);
	/* No full log: identity only, no states published. */
	mqtt_drive_state_from(&dev, NULL, true, &d);
	cr_assert_not(d.has_sample);
	cr_assert_not(d.throttling);
	cr_assert_str_eq(d.model, "WD_BLACK SN850X 2000GB");
	struct mqtt_msgs m = {0};
	cr_assert_eq(mqtt_ha_states(&CFG, &d, &m), 0);
	cr_assert_eq(m.n, 0);
	free(m.v);
}

/*
 * A drive's strings that are not UTF-8 (a row an older version stored, a broken
 * drive) still make a discovery config: jansson refuses such strings, and the
 * drive would have no entities. The bytes become U+FFFD (issue 23 §7).
 */
Test(mqtt_ha, drive_strings_not_utf8_still_publish)
{
	struct device_row dev = {.id = 1};
	strcpy(dev.name, "nvme1");
	strcpy(dev.model, "WD \xC2 SN850X");
	strcpy(dev.serial, "23123A800123");
	strcpy(dev.firmware, "62\xFF");
	struct mqtt_drive_state d;
	mqtt_drive_state_from(&dev, NULL, false, &d);
	cr_assert_str_eq(d.model, "WD \xEF\xBF\xBD SN850X");
	cr_assert_str_eq(d.firmware, "62\xEF\xBF\xBD");
	struct mqtt_msgs m = {0};
	cr_assert_eq(mqtt_ha_discovery(&CFG, &d, &m), 0);
	cr_assert_eq(m.n, 7);
	json_t *j = json_loads(m.v[0].payload, 0, NULL);
	cr_assert_not_null(j, "%s", m.v[0].payload);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "device"), "model")),
			 "WD \xEF\xBF\xBD SN850X");
	json_decref(j);
	mqtt_msgs_clear(&m);
	free(m.v);
}
