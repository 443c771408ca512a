/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <string.h>

#include "nvmond/api/render.h"

static char *dump(json_t *v)
{
	char *s;

	cr_assert_not_null(v);
	s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
	cr_assert_not_null(s);
	return s;
}

static void expect_json(json_t *v, const char *want)
{
	char *s = dump(v);

	cr_expect_str_eq(s, want);
	free(s);
	json_decref(v);
}

Test(render, u128_integer_or_string)
{
	static const struct {
		u128 v;
		const char *json;
	} cases[] = {
		{0, "0"},
		{1, "1"},
		{(u128)INT64_MAX, "9223372036854775807"},
		{(u128)INT64_MAX + 1, "\"9223372036854775808\""},
		{(u128)UINT64_MAX, "\"18446744073709551615\""},
		{(u128)UINT64_MAX + 1, "\"18446744073709551616\""}, /* 2^64 */
		{U128_MAX, "\"340282366920938463463374607431768211455\""},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *v = render_u128(cases[i].v);

		if (cases[i].v <= (u128)INT64_MAX)
			cr_expect(json_is_integer(v), "case %zu", i);
		else
			cr_expect(json_is_string(v), "case %zu", i);
		expect_json(v, cases[i].json);
	}
}

/* The names other components (and the VM test) rely on. */
static const char *const smart_keys[] = {
	"critical_warning",
	"temperature_k",
	"temperature_c",
	"avail_spare",
	"spare_thresh",
	"percent_used",
	"endurance_grp_crit_warn",
	"data_units_read",
	"data_units_written",
	"data_read_bytes",
	"data_written_bytes",
	"host_read_commands",
	"host_write_commands",
	"controller_busy_time",
	"power_cycles",
	"power_on_hours",
	"unsafe_shutdowns",
	"media_errors",
	"num_err_log_entries",
	"warning_temp_time",
	"critical_temp_time",
	"temp_sensors_k",
	"temp_sensors_c",
	"thm_temp1_trans_count",
	"thm_temp2_trans_count",
	"thm_temp1_total_time",
	"thm_temp2_total_time",
	"critical_warning_bits",
};

static struct smart_log smart_fixture(void)
{
	struct smart_log s = {
		.critical_warning = SMART_CRIT_SPARE | SMART_CRIT_READ_ONLY | SMART_CRIT_PMR_RO,
		.temperature_k = 310,
		.avail_spare = 95,
		.spare_thresh = 10,
		.percent_used = 3,
		.endurance_grp_crit_warn = 0,
		.data_units_read = 1000,
		.data_units_written = ((u128)1 << 64) + 5, /* beyond 2^64 */
		.host_read_commands = 123456789,
		.host_write_commands = 987654321,
		.controller_busy_time = 42,
		.power_cycles = 7,
		.power_on_hours = 1234,
		.unsafe_shutdowns = 2,
		.media_errors = 0,
		.num_err_log_entries = 9,
		.warning_temp_time = 11,
		.critical_temp_time = 1,
		.temp_sensor_k = {305, 0, 273, 0, 0, 0, 0, 400},
		.thm_temp1_trans_count = 3,
		.thm_temp2_trans_count = 4,
		.thm_temp1_total_time = 50,
		.thm_temp2_total_time = 60,
	};
	return s;
}

Test(render, smart_fields)
{
	struct smart_log s = smart_fixture();
	json_t *o = render_smart(&s);

	cr_assert(json_is_object(o));
	cr_expect_eq(json_object_size(o), sizeof(smart_keys) / sizeof(smart_keys[0]));
	for (size_t i = 0; i < sizeof(smart_keys) / sizeof(smart_keys[0]); i++)
		cr_expect_not_null(json_object_get(o, smart_keys[i]), "%s", smart_keys[i]);
	cr_expect_eq(json_integer_value(json_object_get(o, "critical_warning")), 0x29);
	cr_expect_eq(json_integer_value(json_object_get(o, "temperature_k")), 310);
	cr_expect_eq(json_integer_value(json_object_get(o, "temperature_c")), 37);
	cr_expect_eq(json_integer_value(json_object_get(o, "avail_spare")), 95);
	cr_expect_eq(json_integer_value(json_object_get(o, "spare_thresh")), 10);
	cr_expect_eq(json_integer_value(json_object_get(o, "percent_used")), 3);
	cr_expect_eq(json_integer_value(json_object_get(o, "data_units_read")), 1000);
	cr_expect_eq(json_integer_value(json_object_get(o, "data_read_bytes")), 512000000);
	cr_expect_str_eq(json_string_value(json_object_get(o, "data_units_written")),
			 "18446744073709551621");
	/* (2^64 + 5) * 512000 */
	cr_expect_str_eq(json_string_value(json_object_get(o, "data_written_bytes")),
			 "9444732965739290429952000");
	cr_expect_eq(json_integer_value(json_object_get(o, "host_read_commands")), 123456789);
	cr_expect_eq(json_integer_value(json_object_get(o, "host_write_commands")), 987654321);
	cr_expect_eq(json_integer_value(json_object_get(o, "controller_busy_time")), 42);
	cr_expect_eq(json_integer_value(json_object_get(o, "power_cycles")), 7);
	cr_expect_eq(json_integer_value(json_object_get(o, "power_on_hours")), 1234);
	cr_expect_eq(json_integer_value(json_object_get(o, "unsafe_shutdowns")), 2);
	cr_expect_eq(json_integer_value(json_object_get(o, "num_err_log_entries")), 9);
	cr_expect(json_is_integer(json_object_get(o, "media_errors")));
	cr_expect_eq(json_integer_value(json_object_get(o, "warning_temp_time")), 11);
	cr_expect_eq(json_integer_value(json_object_get(o, "critical_temp_time")), 1);
	cr_expect_eq(json_integer_value(json_object_get(o, "thm_temp1_trans_count")), 3);
	cr_expect_eq(json_integer_value(json_object_get(o, "thm_temp2_trans_count")), 4);
	cr_expect_eq(json_integer_value(json_object_get(o, "thm_temp1_total_time")), 50);
	cr_expect_eq(json_integer_value(json_object_get(o, "thm_temp2_total_time")), 60);
	cr_expect(json_is_integer(json_object_get(o, "endurance_grp_crit_warn")));
	expect_json(json_incref(json_object_get(o, "temp_sensors_k")), "[305,0,273,0,0,0,0,400]");
	/* 0 K is "not reported" (null); 273 K is a real 0 °C. */
	expect_json(json_incref(json_object_get(o, "temp_sensors_c")),
		    "[32,null,0,null,null,null,null,127]");
	expect_json(json_incref(json_object_get(o, "critical_warning_bits")),
		    "[\"spare\",\"read_only\",\"pmr_read_only\"]");
	json_decref(o);
}

Test(render, every_critical_bit_named)
{
	struct smart_log s = {.critical_warning = 0x3f};
	json_t *o = render_smart(&s);

	expect_json(json_incref(json_object_get(o, "critical_warning_bits")),
		    "[\"spare\",\"temperature\",\"degraded\",\"read_only\",\"volatile_backup\","
		    "\"pmr_read_only\"]");
	json_decref(o);

	s.critical_warning = 0;
	o = render_smart(&s);
	expect_json(json_incref(json_object_get(o, "critical_warning_bits")), "[]");
	json_decref(o);
}

Test(render, zero_kelvin_is_null)
{
	struct smart_log s = {0};
	json_t *o = render_smart(&s);

	cr_expect(json_is_null(json_object_get(o, "temperature_c")));
	cr_expect_eq(json_integer_value(json_object_get(o, "temperature_k")), 0);
	expect_json(json_incref(json_object_get(o, "temp_sensors_c")),
		    "[null,null,null,null,null,null,null,null]");
	json_decref(o);
}

Test(render, sample_flattens_smart)
{
	struct sample s = {.device_id = 4, .ts_ms = 1764469160123, .smart = smart_fixture()};
	json_t *o = render_sample(&s);

	cr_assert(json_is_object(o));
	cr_expect_str_eq(json_string_value(json_object_get(o, "ts")), "2025-11-30T02:19:20.123Z");
	cr_expect_eq(json_integer_value(json_object_get(o, "ts_ms")), 1764469160123);
	cr_expect_eq(json_integer_value(json_object_get(o, "temperature_c")), 37);
	cr_expect_str_eq(json_string_value(json_object_get(o, "data_units_written")),
			 "18446744073709551621");
	/* ts, ts_ms, source and every smart field, nothing else */
	cr_expect_str_eq(json_string_value(json_object_get(o, "source")), "smart");
	cr_expect_eq(json_object_size(o), 3 + sizeof(smart_keys) / sizeof(smart_keys[0]));
	for (size_t i = 0; i < sizeof(smart_keys) / sizeof(smart_keys[0]); i++)
		cr_expect_not_null(json_object_get(o, smart_keys[i]), "%s", smart_keys[i]);
	json_decref(o);
}

static struct device_row row_fixture(void)
{
	struct device_row r = {
		.id = 2,
		.wctemp_k = 343,
		.cctemp_k = 0,
		.capacity_bytes = (u128)1 << 70,
		.first_seen_ms = 0,
		.last_seen_ms = 1764469160000,
		.online = 1,
	};

	strcpy(r.key, "ACME 1TB/S123");
	strcpy(r.model, "ACME 1TB");
	strcpy(r.serial, "S123");
	strcpy(r.firmware, "1.0");
	strcpy(r.name, "nvme0");
	strcpy(r.namespaces, "[{\"nsid\":1,\"name\":\"nvme0n1\"}]");
	return r;
}

Test(render, device_row)
{
	struct device_row r = row_fixture();

	expect_json(
		render_device_row(&r),
		"{\"capacity_bytes\":\"1180591620717411303424\",\"cctemp_c\":null,"
		"\"cctemp_k\":0,\"demo\":false,\"firmware\":\"1.0\","
		"\"first_seen\":\"1970-01-01T00:00:00.000Z\","
		"\"id\":2,\"key\":\"ACME 1TB/S123\",\"last_seen\":\"2025-11-30T02:19:20.000Z\","
		"\"model\":\"ACME 1TB\",\"name\":\"nvme0\",\"namespaces\":[{\"name\":\"nvme0n1\","
		"\"nsid\":1}],\"online\":true,\"serial\":\"S123\",\"wctemp_c\":70,"
		"\"wctemp_k\":343}");
}

/* docs/api.md: "demo" says a drive is simulated (its history may be made up): the row's
 * mark, which the backend that found it set (DEV_CAP_SIMULATED), never its name. */
Test(render, device_row_demo)
{
	struct device_row r = row_fixture();
	json_t *o;

	r.simulated = 1;
	o = render_device_row(&r);
	cr_assert_not_null(o);
	cr_expect(json_is_true(json_object_get(o, "demo")));
	json_decref(o);

	r.simulated = 0;
	strcpy(r.name, "demo12"); /* a name alone marks nothing */
	o = render_device_row(&r);
	cr_assert_not_null(o);
	cr_expect(json_is_false(json_object_get(o, "demo")));
	json_decref(o);
}

Test(render, device_row_bad_namespaces_and_text)
{
	struct device_row r = row_fixture();
	json_t *o;

	strcpy(r.namespaces, "{not json");
	r.model[0] = (char)0xff; /* not UTF-8: must not fail the whole view */
	r.online = 0;
	o = render_device_row(&r);
	cr_assert_not_null(o);
	expect_json(json_incref(json_object_get(o, "namespaces")), "[]");
	cr_expect_str_eq(json_string_value(json_object_get(o, "model")), "?CME 1TB");
	cr_expect(json_is_false(json_object_get(o, "online")));
	json_decref(o);

	strcpy(r.namespaces, "{\"an\":\"object\"}");
	o = render_device_row(&r);
	expect_json(json_incref(json_object_get(o, "namespaces")), "[]");
	json_decref(o);
}

Test(render, fleet_device_latest)
{
	struct fleet_device d = {.row = row_fixture(), .has_sample = false};
	json_t *o = render_fleet_device(&d);

	cr_expect(json_is_null(json_object_get(o, "latest")));
	cr_expect_eq(json_integer_value(json_object_get(o, "id")), 2);
	json_decref(o);

	d.has_sample = true;
	d.last = (struct sample){.device_id = 2, .ts_ms = 5000, .smart = smart_fixture()};
	o = render_fleet_device(&d);
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(o, "latest"), "ts_ms")),
		     5000);
	cr_expect_eq(
		json_integer_value(json_object_get(json_object_get(o, "latest"), "temperature_k")),
		310);
	cr_expect_str_eq(json_string_value(json_object_get(o, "serial")), "S123");
	json_decref(o);
}

/* "health": the rule of analysis/health.h on the fleet's drive, with its reasons;
 * an alert's message that is not UTF-8 (an older database) still renders. */
Test(render, fleet_device_health)
{
	struct fleet_device d = {.row = row_fixture(), .has_sample = false};
	json_t *o = render_fleet_device(&d);

	expect_json(json_incref(json_object_get(o, "health")),
		    "{\"state\":\"unknown\",\"why\":[\"no sample yet\"]}");
	json_decref(o);
	d.has_sample = true;
	d.last = (struct sample){.device_id = 2, .ts_ms = 5000, .smart = smart_fixture()};
	d.last.smart.critical_warning = 0;
	d.last.smart.percent_used = 85;
	d.alerts.n = 1;
	d.alerts.v[0] = (struct fleet_alert){.id = 1,
					     .rule = ALERT_THROTTLING,
					     .severity = ALERT_SEV_WARNING,
					     .message = "throttling \xff"};
	o = render_fleet_device(&d);
	expect_json(json_incref(json_object_get(o, "health")),
		    "{\"state\":\"warning\",\"why\":[\"85 % used\",\"throttling \xef\xbf\xbd\"]}");
	json_decref(o);
	d.row.online = 0;
	o = render_fleet_device(&d);
	expect_json(json_incref(json_object_get(o, "health")),
		    "{\"state\":\"offline\",\"why\":[\"not seen now\"]}");
	json_decref(o);
}

/* Issue 11: a sample read from hwmon knows the temperatures only. */
Test(render, hwmon_sample_is_temperatures_and_nulls)
{
	struct sample s = {.device_id = 4, .ts_ms = 1764469160123, .source = SAMPLE_SOURCE_HWMON};
	json_t *o;

	s.smart.temperature_k = 323;
	s.smart.temp_sensor_k[1] = 330;
	o = render_sample(&s);
	cr_assert(json_is_object(o));
	cr_expect_str_eq(json_string_value(json_object_get(o, "source")), "hwmon");
	cr_expect_eq(json_integer_value(json_object_get(o, "temperature_c")), 50);
	cr_expect_eq(json_integer_value(json_array_get(json_object_get(o, "temp_sensors_c"), 1)),
		     57);
	cr_expect_eq(json_object_size(o), 3 + sizeof(smart_keys) / sizeof(smart_keys[0]));
	for (size_t i = 0; i < sizeof(smart_keys) / sizeof(smart_keys[0]); i++) {
		bool temp = strncmp(smart_keys[i], "temp", 4) == 0;
		json_t *v = json_object_get(o, smart_keys[i]);

		cr_expect_not_null(v, "%s", smart_keys[i]);
		cr_expect_eq(json_is_null(v), !temp, "%s: null unless a temperature",
			     smart_keys[i]);
	}
	json_decref(o);
}

Test(render, device_facts)
{
	struct fleet_device d = {.row = {.id = 3, .online = 1}};
	json_t *o, *l;

	snprintf(d.row.firmware, sizeof(d.row.firmware), "5B2QGXA8");
	d.facts = (struct fleet_facts){.known = true,
				       .link = {80, 2, 160, 4},
				       .firmware = "5B2QGXA8",
				       .firmware_prev = "5B2QGXA7",
				       .firmware_changed_ms = 1764469160000};
	o = render_fleet_device(&d);
	cr_assert(json_is_object(o));
	cr_expect_str_eq(json_string_value(json_object_get(o, "state")), "online");
	cr_expect_str_eq(json_string_value(json_object_get(o, "source")), "smart");
	cr_expect(json_is_false(json_object_get(o, "asleep")));
	l = json_object_get(o, "link");
	cr_expect_str_eq(json_string_value(json_object_get(l, "text")),
			 "PCIe 8.0 GT/s x2 (max 16.0 GT/s x4)");
	cr_expect(json_is_true(json_object_get(l, "degraded")));
	cr_expect_eq(json_real_value(json_object_get(l, "current_speed_gts")), 8.0);
	cr_expect_eq(json_integer_value(json_object_get(l, "max_width")), 4);
	cr_expect_eq(json_integer_value(json_object_get(l, "current_gen")), 3);
	cr_expect_eq(json_integer_value(json_object_get(l, "max_gen")), 4);
	cr_expect(json_is_null(json_object_get(o, "firmware_pending")));
	json_t *fc = json_object_get(o, "firmware_changed");
	cr_expect_str_eq(json_string_value(json_object_get(fc, "from")), "5B2QGXA7");
	cr_expect_str_eq(json_string_value(json_object_get(fc, "to")), "5B2QGXA8");
	cr_expect_str_eq(json_string_value(json_object_get(fc, "at")), "2025-11-30T02:19:20.000Z");
	json_decref(o);

	/* asleep, without privileges, link unknown, offline */
	d.facts = (struct fleet_facts){.known = true, .asleep = true, .hwmon_only = true};
	o = render_fleet_device(&d);
	cr_expect_str_eq(json_string_value(json_object_get(o, "state")), "asleep");
	cr_expect(json_is_true(json_object_get(o, "asleep")));
	cr_expect_str_eq(json_string_value(json_object_get(o, "source")), "hwmon");
	cr_expect(json_is_null(json_object_get(o, "link")));
	cr_expect(json_is_null(json_object_get(o, "firmware_changed")));
	json_decref(o);
	d.row.online = 0;
	o = render_fleet_device(&d);
	cr_expect_str_eq(json_string_value(json_object_get(o, "state")), "offline",
			 "gone is offline, even if it slept before");
	cr_expect(json_is_false(json_object_get(o, "asleep")));
	json_decref(o);
}

/*
 * The sensors judged, on the device: the stuck-sensor drive (WCTEMP 74.8 °C,
 * Sensor 2 at 81.8 °C) shows a note and, stuck for 6 h, the implausible flag
 * with its reason; the drive's own threshold is shown even where the sensor
 * does not alert.
 */
Test(render, fleet_device_sensors_and_notes)
{
	struct fleet_device d = {.row = row_fixture(), .has_sample = true};
	json_t *o;

	d.row.wctemp_k = 348;
	d.row.cctemp_k = 353;
	d.last = (struct sample){.device_id = 2, .ts_ms = 5000, .smart = smart_fixture()};
	d.last.smart.temperature_k = 307;
	memset(d.last.smart.temp_sensor_k, 0, sizeof(d.last.smart.temp_sensor_k));
	d.last.smart.temp_sensor_k[0] = 310;
	d.last.smart.temp_sensor_k[1] = 355;

	o = render_fleet_device(&d);
	expect_json(json_incref(json_object_get(o, "sensors")), "[]");
	expect_json(json_incref(json_object_get(o, "notes")), "[]");
	json_decref(o);

	d.temps.judged = true;
	d.temps.drive_limit_k[0] = 353;
	d.temps.drive_limit_k[1] = 0xffff;
	d.temps.v.sensor[0] = (struct sensor_verdict){.reported = true};
	d.temps.v.sensor[1] = (struct sensor_verdict){
		.reported = true, .note = true, .implausible = SENSOR_STUCK};
	o = render_fleet_device(&d);
	expect_json(json_incref(json_object_get(o, "sensors")),
		    "[{\"alerts\":false,\"drive_limit_c\":80,\"implausible\":false,"
		    "\"implausible_reason\":null,\"limit_c\":80,\"limit_source\":\"drive\","
		    "\"over_limit\":false,\"over_wctemp\":false,\"sensor\":1,\"temperature_c\":37,"
		    "\"temperature_k\":310},"
		    "{\"alerts\":false,\"drive_limit_c\":null,\"implausible\":true,"
		    "\"implausible_reason\":\"stuck\",\"limit_c\":null,\"limit_source\":null,"
		    "\"over_limit\":false,\"over_wctemp\":true,\"sensor\":2,\"temperature_c\":82,"
		    "\"temperature_k\":355}]");
	json_t *notes = json_object_get(o, "notes");
	cr_assert_eq(json_array_size(notes), 2);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(notes, 0), "kind")),
			 "sensor_over_wctemp");
	cr_expect(strstr(json_string_value(json_object_get(json_array_get(notes, 0), "message")),
			 "Sensor 2 reads 82 °C, above WCTEMP 75 °C, while the composite is 34 °C"));
	cr_expect(strstr(json_string_value(json_object_get(json_array_get(notes, 0), "message")),
			 "a note, not an alert"));
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(notes, 1), "kind")),
			 "sensor_implausible");
	cr_expect_eq(json_integer_value(json_object_get(json_array_get(notes, 1), "sensor")), 2);
	json_decref(o);

	/* Asked for (sensor_alerts): the limit that alerts, and it is plausible. */
	d.temps.v.sensor[1] = (struct sensor_verdict){.reported = true,
						      .note = true,
						      .may_alert = true,
						      .limit_src = SENSOR_LIMIT_WCTEMP,
						      .limit_k = 348,
						      .over_limit = true};
	o = render_fleet_device(&d);
	json_t *s2 = json_array_get(json_object_get(o, "sensors"), 1);
	cr_expect_eq(json_integer_value(json_object_get(s2, "limit_c")), 75);
	cr_expect_str_eq(json_string_value(json_object_get(s2, "limit_source")), "wctemp");
	cr_expect(json_is_true(json_object_get(s2, "alerts")));
	cr_expect(json_is_true(json_object_get(s2, "over_limit")));
	cr_expect_eq(json_array_size(json_object_get(o, "notes")), 1);
	json_decref(o);
}
