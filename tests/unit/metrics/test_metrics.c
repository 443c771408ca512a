/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/api/render.h"
#include "nvmond/metrics/metrics.h"

/* A hot drive online with a sample, and one offline drive without one. */
static void two_devices(struct metrics_device devs[2])
{
	memset(devs, 0, 2 * sizeof(devs[0]));
	struct device_row *a = &devs[0].fd.row, *b = &devs[1].fd.row;

	*a = (struct device_row){.id = 1, .wctemp_k = 343, .cctemp_k = 353, .online = 1};
	strcpy(a->model, "Samsung SSD 950 PRO \"512GB\"");
	strcpy(a->serial, "S2GMNX0H");
	strcpy(a->firmware, "2B0QBXX7");
	strcpy(a->name, "nvme0");
	a->capacity_bytes = 512110190592;
	devs[0].fd.has_sample = true;
	devs[0].rated_bytes = 400000000000000ull;
	struct sample *s = &devs[0].fd.last;
	s->device_id = 1;
	s->ts_ms = 1700000000123;
	s->smart = (struct smart_log){
		.critical_warning = SMART_CRIT_TEMPERATURE,
		.temperature_k = 345,
		.avail_spare = 100,
		.spare_thresh = 10,
		.percent_used = 7,
		.data_units_read = 1000,
		.data_units_written = (u128)1 << 100, /* beyond 64 bits, still exact */
		.power_on_hours = 10,
		.controller_busy_time = 3,
		.media_errors = 0,
		.warning_temp_time = 2,
		.critical_temp_time = 1,
		.thm_temp1_trans_count = 4,
		.thm_temp2_trans_count = 1,
		.thm_temp1_total_time = 120,
		.thm_temp2_total_time = 30,
	};
	s->smart.temp_sensor_k[0] = 350;
	s->smart.temp_sensor_k[2] = 273; /* 0 °C is reported; 0 K is not */

	*b = (struct device_row){.id = 2, .online = 0};
	strcpy(b->model, "Samsung SSD 980 PRO 1TB");
	strcpy(b->serial, "S5GXNX0R");
	strcpy(b->name, "nvme1");
}

static char *render(const struct metrics_device *devs, size_t n)
{
	struct metrics_input in = {
		.devs = devs,
		.n_devs = n,
		.poller = {.polls = 42,
			   .poll_errors = 3,
			   .store_errors = 2,
			   .samples_stored = 40,
			   .samples_dropped = 1,
			   .samples_pending = 5,
			   .buffer_capacity = 100},
		.has_alert_sinks = true,
		.alert_sinks = {{.name = "webhook", .enabled = true, .delivered = 1}},
		.n_alert_sinks = 1,
		.start_ms = 1699999999000,
		.version = "9.9.9",
	};
	char *text = NULL;
	size_t len = 0;

	cr_assert_eq(metrics_render(&in, &text, &len), 0);
	cr_assert_not_null(text);
	cr_assert_eq(strlen(text), len);
	return text;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

#define L0 "device=\"nvme0\",model=\"Samsung SSD 950 PRO \\\"512GB\\\"\",serial=\"S2GMNX0H\""
#define L1 "device=\"nvme1\",model=\"Samsung SSD 980 PRO 1TB\",serial=\"S5GXNX0R\""

Test(metrics, values_units_and_labels)
{
	struct metrics_device devs[2];
	two_devices(devs);
	char *t = render(devs, 2);

	static const char *const want[] = {
		"nvmond_device_info{" L0 ",firmware=\"2B0QBXX7\",label=\"\",location=\"\"} 1",
		"nvmond_device_info{" L1 ",firmware=\"\",label=\"\",location=\"\"} 1",
		"nvmond_device_up{" L0 "} 1",
		"nvmond_device_up{" L1 "} 0",
		"nvmond_capacity_bytes{" L0 "} 512110190592",
		"nvmond_last_sample_timestamp_seconds{" L0 "} 1700000000.123",
		"nvmond_temperature_celsius{" L0 ",sensor=\"composite\"} 72",
		"nvmond_temperature_celsius{" L0 ",sensor=\"1\"} 77",
		"nvmond_temperature_celsius{" L0 ",sensor=\"3\"} 0",
		"nvmond_temperature_warning_threshold_celsius{" L0 "} 70",
		"nvmond_temperature_critical_threshold_celsius{" L0 "} 80",
		"nvmond_available_spare_ratio{" L0 "} 1.00",
		"nvmond_available_spare_threshold_ratio{" L0 "} 0.10",
		"nvmond_endurance_used_ratio{" L0 "} 0.07",
		"nvmond_rated_endurance_bytes{" L0 "} 400000000000000",
		"nvmond_critical_warning{" L0 ",warning=\"temperature\"} 1",
		"nvmond_critical_warning{" L0 ",warning=\"spare\"} 0",
		"nvmond_warning_temperature_seconds_total{" L0 "} 120",
		"nvmond_critical_temperature_seconds_total{" L0 "} 60",
		"nvmond_thermal_management_transitions_total{" L0 ",level=\"1\"} 4",
		"nvmond_thermal_management_transitions_total{" L0 ",level=\"2\"} 1",
		"nvmond_thermal_management_seconds_total{" L0 ",level=\"1\"} 120",
		"nvmond_thermal_management_seconds_total{" L0 ",level=\"2\"} 30",
		"nvmond_data_read_bytes_total{" L0 "} 512000000",
		/* 2^100 * 512000, exact */
		"nvmond_data_written_bytes_total{" L0 "} 649037107316853453566312041152512000",
		"nvmond_power_on_seconds_total{" L0 "} 36000",
		"nvmond_controller_busy_seconds_total{" L0 "} 180",
		"nvmond_media_errors_total{" L0 "} 0",
		"nvmond_build_info{version=\"9.9.9\"} 1",
		"nvmond_start_time_seconds 1699999999.000",
		"nvmond_polls_total 42",
		"nvmond_poll_errors_total 3",
		"nvmond_store_errors_total 2",
		"nvmond_samples_stored_total 40",
		"nvmond_samples_dropped_total 1",
		"nvmond_samples_buffered 5",
		"nvmond_sample_buffer_capacity 100",
		"# TYPE nvmond_data_written_bytes_total counter",
		"# TYPE nvmond_temperature_celsius gauge",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect(has_line(t, want[i]), "missing line: %s", want[i]);

	/* Sensors not reported (0 K) and the offline drive's health are absent. */
	cr_expect_null(strstr(t, "sensor=\"2\""));
	cr_expect_null(strstr(t, "nvmond_temperature_celsius{" L1));
	cr_expect_null(strstr(t, "nvmond_media_errors_total{" L1));
	cr_expect_null(strstr(t, "nvmond_rated_endurance_bytes{" L1));
	free(t);
}

/* Sensors judged: a note and an implausible flag per reported sensor, 0 or 1;
 * nothing before the first judged sample. */
Test(metrics, sensor_flags)
{
	struct metrics_device devs[2];
	two_devices(devs);
	char *t = render(devs, 2);

	cr_expect_null(strstr(t, "nvmond_sensor_implausible{"), "not judged: no lines");
	free(t);
	devs[0].fd.temps.judged = true;
	devs[0].fd.temps.v.sensor[0] = (struct sensor_verdict){.reported = true, .note = true};
	devs[0].fd.temps.v.sensor[2] =
		(struct sensor_verdict){.reported = true, .implausible = SENSOR_STUCK};
	t = render(devs, 2);
	static const char *const want[] = {
		"nvmond_sensor_over_wctemp{" L0 ",sensor=\"1\"} 1",
		"nvmond_sensor_over_wctemp{" L0 ",sensor=\"3\"} 0",
		"nvmond_sensor_implausible{" L0 ",sensor=\"1\"} 0",
		"nvmond_sensor_implausible{" L0 ",sensor=\"3\"} 1",
		"# TYPE nvmond_sensor_implausible gauge",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect(has_line(t, want[i]), "missing line: %s", want[i]);
	cr_expect_null(strstr(t, "nvmond_sensor_implausible{" L0 ",sensor=\"2\""));
	free(t);
}

/* Every family has HELP and TYPE exactly once, before its samples; every sample line parses. */
Test(metrics, well_formed)
{
	struct metrics_device devs[2];
	struct metrics_probe probe = {.preset = "seq1m-q8",
				      .phase = "read",
				      .direction = "read",
				      .ended_ms = 1,
				      .bytes_per_second = 3.25e9,
				      .iops = 0.5};
	two_devices(devs);
	devs[0].probes = &probe;
	devs[0].n_probes = 1;
	devs[0].has_probe_bytes = true;
	devs[0].wear_tbw_end_ms = 1;
	devs[0].fd.facts = (struct fleet_facts){.id_known = true, .selftest_supported = true};
	devs[0].fd.selftest = (struct fleet_selftest){
		.log_read = true,
		.running = SELFTEST_CODE_SHORT,
		.percent = 10,
		.has_last = {true, true},
		.last_seen_ms = {1, 2},
	};
	char *t = render(devs, 2);
	regex_t sample_re;

	cr_assert_eq(
		regcomp(&sample_re,
			"^(nvmond_[a-z_]+)(\\{[a-z_]+=\"([^\"\\\\]|\\\\.)*\"(,[a-z_]+=\"([^\"\\\\]|"
			"\\\\.)*\")*\\})? -?[0-9]+(\\.[0-9]+)?(e[-+][0-9]+)?$",
			REG_EXTENDED),
		0);
	char typed[96][96];
	size_t n_typed = 0;
	char *save = NULL;
	for (char *line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[96];

		if (sscanf(line, "# TYPE %95s", name) == 1) {
			for (size_t i = 0; i < n_typed; i++)
				cr_expect_str_neq(typed[i], name, "TYPE twice: %s", name);
			cr_assert_lt(n_typed, 96);
			strcpy(typed[n_typed++], name);
			continue;
		}
		if (line[0] == '#')
			continue;
		regmatch_t m[2];
		cr_expect_eq(regexec(&sample_re, line, 2, m, 0), 0, "bad line: %s", line);
		size_t len = (size_t)(m[1].rm_eo - m[1].rm_so);
		cr_expect(n_typed > 0 && strlen(typed[n_typed - 1]) == len &&
				  strncmp(typed[n_typed - 1], line, len) == 0,
			  "sample outside its family: %s", line);
	}
	regfree(&sample_re);
	free(t);
}

Test(metrics, wear_probes_alerts)
{
	struct metrics_device devs[2];
	struct metrics_probe probes[] = {
		{.preset = "rnd4k-q1",
		 .phase = "read",
		 .direction = "read",
		 .ended_ms = 1700000100000,
		 .bytes_per_second = 50000000,
		 .iops = 12207.03125,
		 .lat_p50_ns = 81000,
		 .lat_p99_ns = 250000,
		 .lat_p999_ns = 1500000000},
		{.preset = "seq1m-q8",
		 .phase = "write",
		 .direction = "write",
		 .ended_ms = 1700000200500,
		 .bytes_per_second = 1.5e9,
		 .iops = 1430.5,
		 .lat_p50_ns = 5000000},
	};
	two_devices(devs);
	devs[0].wear_tbw_end_ms = 1900000000000;
	devs[0].wear_used_end_ms = 2000000000001;
	devs[0].has_probe_bytes = true;
	devs[0].probe_bytes_written = 123456789;
	devs[0].probes = probes;
	devs[0].n_probes = 2;
	struct metrics_input in = {
		.devs = devs,
		.n_devs = 2,
		.has_alert_sinks = true,
		.alert_sinks = {{.name = "webhook",
				 .enabled = true,
				 .queued = 7,
				 .delivered = 5,
				 .failed = 1,
				 .dropped = 2,
				 .retries = 3,
				 .pending = 1},
				{.name = "phone", .type = "ntfy", .enabled = true, .resent = 4}},
		.n_alert_sinks = 2,
		.start_ms = 1,
		.version = "x",
	};
	char *t = NULL;
	size_t len;

	cr_assert_eq(metrics_render(&in, &t, &len), 0);
	static const char *const want[] = {
		"nvmond_wear_projected_end_timestamp_seconds{" L0
		",basis=\"rated_tbw\"} 1900000000.000",
		"nvmond_wear_projected_end_timestamp_seconds{" L0
		",basis=\"percent_used\"} 2000000000.001",
		"nvmond_probe_written_bytes_total{" L0 "} 123456789",
		"nvmond_probe_last_timestamp_seconds{" L0 ",preset=\"rnd4k-q1\"} 1700000100.000",
		"nvmond_probe_last_timestamp_seconds{" L0 ",preset=\"seq1m-q8\"} 1700000200.500",
		"nvmond_probe_throughput_bytes_per_second{" L0
		",preset=\"seq1m-q8\",phase=\"write\",direction=\"write\"} 1500000000",
		"nvmond_probe_iops{" L0
		",preset=\"rnd4k-q1\",phase=\"read\",direction=\"read\"} 12207.03125",
		"nvmond_probe_latency_seconds{" L0
		",preset=\"rnd4k-q1\",phase=\"read\",direction=\"read\",percentile=\"99\"} "
		"0.000250000",
		"nvmond_probe_latency_seconds{" L0
		",preset=\"rnd4k-q1\",phase=\"read\",direction=\"read\",percentile=\"99.9\"} "
		"1.500000000",
		"nvmond_alert_sink_enabled{sink=\"exec\"} 0",
		"nvmond_alert_sink_enabled{sink=\"webhook\"} 1",
		"nvmond_alert_notifications_queued_total{sink=\"webhook\"} 7",
		"nvmond_alert_deliveries_total{sink=\"webhook\",result=\"delivered\"} 5",
		"nvmond_alert_deliveries_total{sink=\"webhook\",result=\"failed\"} 1",
		"nvmond_alert_notifications_dropped_total{sink=\"webhook\"} 2",
		"nvmond_alert_webhook_retries_total 3",
		"nvmond_alert_queue_depth{sink=\"webhook\"} 1",
		"nvmond_alert_retries_total{sink=\"webhook\"} 3",
		"nvmond_alert_sink_enabled{sink=\"phone\"} 1",
		"nvmond_alert_resent_total{sink=\"phone\"} 4",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect(has_line(t, want[i]), "missing line: %s", want[i]);
	/* No projection, probe or wear series for the drive that has none. */
	cr_expect_null(strstr(t, "nvmond_wear_projected_end_timestamp_seconds{" L1));
	cr_expect_null(strstr(t, "nvmond_probe_written_bytes_total{" L1));
	free(t);
}

Test(metrics, no_devices)
{
	char *t = render(NULL, 0);

	cr_expect(has_line(t, "nvmond_polls_total 42"));
	cr_expect_null(strstr(t, "nvmond_device_info{"));
	/* no figures from the allocator, no series claiming them */
	cr_expect_null(strstr(t, "nvmond_malloc_"));
	free(t);
}

/* docs/metrics.md: nvmond_malloc_in_use_bytes and nvmond_malloc_kept_free_bytes, the
 * daemon's allocator's count (a leak grows the first), in bytes past 32 bits. */
Test(metrics, daemon_memory)
{
	struct metrics_input in = {.version = "1", .has_memory = true};
	char *t = NULL;
	size_t len = 0;

	in.has_memory = false;
	metrics_memory_read(&in);
#if defined(__SANITIZE_ADDRESS__)
	/* ASan's allocator is not glibc's: mallinfo2() counts nothing, no figures */
	cr_expect_not(in.has_memory, "ASan: mallinfo2() gave %" PRIu64, in.memory_in_use);
	in.has_memory = true;
#else
	cr_assert(in.has_memory);
	cr_expect_gt(in.memory_in_use, 0, "this process has allocated something");
	void *big = malloc(3 << 20); /* mapped (1 MiB and more): in use until freed */
	cr_assert_not_null(big);
	memset(big, 1, 3 << 20);
	uint64_t before = in.memory_in_use;
	metrics_memory_read(&in);
	cr_expect_geq(in.memory_in_use, before + (3 << 20), "%" PRIu64 " then %" PRIu64, before,
		      in.memory_in_use);
	free(big);
#endif

	in.memory_in_use = (uint64_t)5 << 40;
	in.memory_kept_free = 7;
	cr_assert_eq(metrics_render(&in, &t, &len), 0);
	cr_expect(has_line(t, "# TYPE nvmond_malloc_in_use_bytes gauge"));
	cr_expect(has_line(t, "nvmond_malloc_in_use_bytes 5497558138880"));
	cr_expect(has_line(t, "# TYPE nvmond_malloc_kept_free_bytes gauge"));
	cr_expect(has_line(t, "nvmond_malloc_kept_free_bytes 7"));
	free(t);
}

Test(metrics, escape_label)
{
	char buf[16];

	cr_expect_str_eq(metrics_escape_label("a\"b\\c\nd", buf, sizeof(buf)), "a\\\"b\\\\c\\nd");
	/* cut at a whole escape, always terminated */
	cr_expect_str_eq(metrics_escape_label("abcdefghijklmn\"", buf, sizeof(buf)),
			 "abcdefghijklmn");
	cr_expect_str_eq(metrics_escape_label("", buf, sizeof(buf)), "");
	cr_expect_str_eq(metrics_escape_label("a\tb\xff\xc3", buf, sizeof(buf)), "a?b??");
	/* Label values are UTF-8 (Prometheus data model): a label's en dash stays whole,
	 * an invalid byte goes, and a sequence is never cut in half. */
	cr_expect_str_eq(metrics_escape_label("bay 3 – s", buf, sizeof(buf)), "bay 3 – s");
	cr_expect_str_eq(metrics_escape_label("\xed\xa0\x80", buf, sizeof(buf)), "???");
	cr_expect_str_eq(metrics_escape_label("abcdefghijklm–", buf, sizeof(buf)), "abcdefghijklm");
}

/*
 * Error log entries by class, from the store: also for a drive offline now;
 * none for a drive whose log was never read. The reads themselves are counted.
 */
Test(metrics, error_log_entries_by_class)
{
	struct metrics_device devs[2];
	two_devices(devs);
	devs[1].fd.errors_read = true;
	devs[1].fd.errors[ERRCLASS_BENIGN] = 14;
	devs[1].fd.errors[ERRCLASS_MEDIA] = 2;
	struct metrics_input in = {
		.devs = devs,
		.n_devs = 2,
		.poller = {.polls = 1000, .errlog_reads = 3, .errlog_errors = 1},
	};
	char *t = NULL;
	size_t len = 0;

	cr_assert_eq(metrics_render(&in, &t, &len), 0);
	static const char *const want[] = {
		"# TYPE nvmond_error_entries_total counter",
		"nvmond_error_entries_total{" L1 ",class=\"benign\"} 14",
		"nvmond_error_entries_total{" L1 ",class=\"media\"} 2",
		"nvmond_error_entries_total{" L1 ",class=\"io\"} 0",
		"nvmond_error_entries_total{" L1 ",class=\"other\"} 0",
		"nvmond_error_log_reads_total 3",
		"nvmond_error_log_read_errors_total 1",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect(has_line(t, want[i]), "missing line: %s", want[i]);
	cr_expect_null(strstr(t, "nvmond_error_entries_total{" L0), "never read: no series");
	free(t);
}

/* Issue 11: the link, sleep and access; a hwmon-only device exports no counter. */
Test(metrics, link_sleep_and_hwmon_only)
{
	struct metrics_device devs[2];
	char *text;

	two_devices(devs);
	devs[0].fd.facts = (struct fleet_facts){.known = true, .link = {80, 2, 160, 4}};
	devs[1].fd.row.online = 1;
	devs[1].fd.has_sample = true;
	devs[1].fd.last = (struct sample){
		.device_id = 2, .ts_ms = 1700000000000, .source = SAMPLE_SOURCE_HWMON};
	devs[1].fd.last.smart.temperature_k = 318;
	devs[1].fd.facts =
		(struct fleet_facts){.known = true, .hwmon_only = true, .link = {25, 1, 25, 1}};
	text = render(devs, 2);
	cr_expect(has_line(text, "nvmond_pcie_link_speed_gts{" L0 ",kind=\"current\"} 8.0"));
	cr_expect(has_line(text, "nvmond_pcie_link_speed_gts{" L0 ",kind=\"max\"} 16.0"));
	cr_expect(has_line(text, "nvmond_pcie_link_width{" L0 ",kind=\"current\"} 2"));
	cr_expect(has_line(text, "nvmond_pcie_link_width{" L0 ",kind=\"max\"} 4"));
	cr_expect(has_line(text, "nvmond_pcie_link_degraded{" L0 "} 1"));
	cr_expect(has_line(text, "nvmond_pcie_link_speed_gts{" L1 ",kind=\"current\"} 2.5"));
	cr_expect(has_line(text, "nvmond_pcie_link_degraded{" L1 "} 0"));
	cr_expect(has_line(text, "nvmond_device_asleep{" L0 "} 0"));
	cr_expect(has_line(text, "nvmond_health_log_readable{" L0 "} 1"));
	cr_expect(has_line(text, "nvmond_health_log_readable{" L1 "} 0"));
	/* hwmon: the temperature is there, no counter is exported as 0 */
	cr_expect(has_line(text, "nvmond_temperature_celsius{" L1 ",sensor=\"composite\"} 45"));
	cr_expect_null(strstr(text, "nvmond_data_written_bytes_total{" L1));
	cr_expect_null(strstr(text, "nvmond_available_spare_ratio{" L1));
	cr_expect_null(strstr(text, "nvmond_critical_warning{" L1));
	cr_expect_null(strstr(text, "nvmond_endurance_used_ratio{" L1));
	cr_expect_not_null(strstr(text, "nvmond_data_written_bytes_total{" L0));
	free(text);

	/* asleep; nothing of the link known: no link series at all */
	devs[0].fd.facts = (struct fleet_facts){.known = true, .asleep = true};
	text = render(devs, 1);
	cr_expect(has_line(text, "nvmond_device_asleep{" L0 "} 1"));
	cr_expect_null(strstr(text, "nvmond_pcie_link_degraded{"));
	cr_expect_null(strstr(text, "nvmond_pcie_link_width{"));
	free(text);
}

/*
 * Issue 12: device self-tests, from the fleet. The capability is absent while
 * Identify is unknown; running and percent while the log was never read; the
 * last result of a type while none is stored. A running test has its type
 * labelled 1 and the other 0; its percent is the drive's 0..100.
 */
Test(metrics, selftests)
{
	struct metrics_device devs[2];
	char *text;

	two_devices(devs);
	text = render(devs, 2);
	cr_expect(has_line(text, "# TYPE nvmond_selftest_supported gauge"));
	cr_expect(has_line(text, "# TYPE nvmond_selftest_last_timestamp_seconds gauge"));
	cr_expect_null(strstr(text, "nvmond_selftest_supported{"), "Identify unknown: absent");
	cr_expect_null(strstr(text, "nvmond_selftest_running{"), "log never read: absent");
	cr_expect_null(strstr(text, "nvmond_selftest_progress_ratio{"));
	cr_expect_null(strstr(text, "nvmond_selftest_last_result{"), "nothing stored: absent");
	free(text);

	devs[0].fd.facts = (struct fleet_facts){
		.known = true, .id_known = true, .selftest_supported = true, .edstt_min = 10};
	devs[0].fd.selftest = (struct fleet_selftest){
		.log_read = true,
		.running = SELFTEST_CODE_EXTENDED,
		.percent = 42,
		.running_since_ms = 1700000100000,
		.has_last = {true, true},
		.last = {{.code = SELFTEST_CODE_SHORT, .result = SELFTEST_RES_NO_ERROR},
			 {.code = SELFTEST_CODE_EXTENDED,
			  .result = SELFTEST_RES_SEGMENT_FAILED,
			  .segment = 3,
			  .valid = SELFTEST_VALID_FLBA,
			  .lba = 123456}},
		.last_seen_ms = {1700000000250, 1690000000000},
	};
	/* Offline now: its capability and stored results stay exported. */
	devs[1].fd.facts = (struct fleet_facts){.known = true, .id_known = true};
	devs[1].fd.selftest = (struct fleet_selftest){
		.log_read = true,
		.has_last = {true, false},
		.last = {{.code = SELFTEST_CODE_SHORT, .result = SELFTEST_RES_ABORTED_CMD}},
		.last_seen_ms = {1700000000000, 0},
	};
	text = render(devs, 2);
	static const char *const want[] = {
		"nvmond_selftest_supported{" L0 "} 1",
		"nvmond_selftest_supported{" L1 "} 0",
		"nvmond_selftest_running{" L0 ",type=\"short\"} 0",
		"nvmond_selftest_running{" L0 ",type=\"extended\"} 1",
		"nvmond_selftest_running{" L1 ",type=\"short\"} 0",
		"nvmond_selftest_running{" L1 ",type=\"extended\"} 0",
		"nvmond_selftest_progress_ratio{" L0 "} 0.42",
		"nvmond_selftest_progress_ratio{" L1 "} 0",
		"nvmond_selftest_last_result{" L0 ",type=\"short\"} 0",
		"nvmond_selftest_last_result{" L0 ",type=\"extended\"} 7",
		"nvmond_selftest_last_result{" L1 ",type=\"short\"} 1",
		"nvmond_selftest_last_passed{" L0 ",type=\"short\"} 1",
		"nvmond_selftest_last_passed{" L0 ",type=\"extended\"} 0",
		"nvmond_selftest_last_passed{" L1 ",type=\"short\"} 0",
		"nvmond_selftest_last_timestamp_seconds{" L0 ",type=\"short\"} 1700000000.250",
		"nvmond_selftest_last_timestamp_seconds{" L0 ",type=\"extended\"} 1690000000.000",
		"nvmond_selftest_last_timestamp_seconds{" L1 ",type=\"short\"} 1700000000.000",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect(has_line(text, want[i]), "missing line: %s", want[i]);
	cr_expect_null(strstr(text, "nvmond_selftest_last_result{" L1 ",type=\"extended\""),
		       "no extended result stored: absent");
	cr_expect_null(strstr(text, "type=\"vendor_specific\""));
	free(text);

	/* A vendor-specific test runs: its own series, the two types 0. */
	devs[0].fd.selftest.running = SELFTEST_CODE_VENDOR;
	devs[0].fd.selftest.percent = 5;
	text = render(devs, 1);
	cr_expect(has_line(text, "nvmond_selftest_running{" L0 ",type=\"vendor_specific\"} 1"));
	cr_expect(has_line(text, "nvmond_selftest_running{" L0 ",type=\"extended\"} 0"));
	cr_expect(has_line(text, "nvmond_selftest_progress_ratio{" L0 "} 0.05"));
	free(text);
}

/* A firing alert of a drive, as the alerts service puts it into the fleet. */
static void fire(struct fleet_device *d, int64_t id, enum alert_rule rule, enum alert_severity sev,
		 const char *msg)
{
	struct fleet_alert *a = &d->alerts.v[d->alerts.n++];

	*a = (struct fleet_alert){.id = id, .rule = rule, .severity = sev};
	snprintf(a->message, sizeof(a->message), "%s", msg);
}

/* The state GET /api/v1/devices gives @d (render_fleet_device()). */
static const char *api_state(const struct fleet_device *d, char buf[16])
{
	json_t *o = render_fleet_device(d);

	cr_assert_not_null(o);
	snprintf(buf, 16, "%s",
		 json_string_value(json_object_get(json_object_get(o, "health"), "state")));
	json_decref(o);
	return buf;
}

/*
 * Issue 24 §1: who is who. The host's target labels on nvmond_host_info only,
 * never on a drive's series ("target labels are not repeated on every series for
 * pull"); a drive's label and location on nvmond_device_info; a series per firing
 * alert; the drive's health as a StateSet of five states, the API's own
 * (docs/metrics.md: "the same rule as the API's health").
 */
Test(metrics, host_info_device_names_alerts_and_health)
{
	struct metrics_device devs[4];
	struct metrics_host host = {
		.id = "e1bad763ccec40fb86cf965290b5ea9e",
		.name = "db-fra1-07",
		.public_url = "https://db7:9470/",
		.labels = {.n = 2, .v = {{"site", "fra1"}, {"room", "Süd \"2\""}}}};
	struct metrics_alert alerts[] = {
		{.device_id = 1, .rule = "temperature_warning", .severity = "warning"},
		{.device_id = 2, .rule = "offline", .severity = "critical"},
		{.device_id = 3, .rule = "firmware_changed", .severity = "info"},
	};

	two_devices(devs);
	/* nvme0: a cool, healthy sample and a warning alert firing: warning. */
	devs[0].fd.last.smart.critical_warning = 0;
	devs[0].fd.last.smart.temperature_k = 300;
	devs[0].fd.last.smart.data_units_written = 1000;
	fire(&devs[0].fd, 7, ALERT_TEMP_WARNING, ALERT_SEV_WARNING, "temperature 70 °C reached");
	/* nvme1: offline, its critical offline alert firing: offline. */
	fire(&devs[1].fd, 8, ALERT_OFFLINE, ALERT_SEV_CRITICAL, "device nvme1 disappeared");
	/* nvme2: as nvme0 but an info alert: ok. */
	devs[2] = devs[0];
	devs[2].fd.row.id = 3;
	strcpy(devs[2].fd.row.name, "nvme2");
	devs[2].fd.alerts.n = 0;
	fire(&devs[2].fd, 9, ALERT_FIRMWARE_CHANGED, ALERT_SEV_INFO, "firmware changed");
	/* nvme3: online, no sample yet: unknown. */
	devs[3] = devs[1];
	devs[3].fd.row.id = 4;
	devs[3].fd.row.online = 1;
	devs[3].fd.alerts.n = 0;
	strcpy(devs[3].fd.row.name, "nvme3");
	strcpy(devs[0].fd.names.label, "bay 3 – scratch");
	strcpy(devs[0].fd.names.location, "rack 12 U4 slot 3");
	struct metrics_input in = {.devs = devs,
				   .n_devs = 4,
				   .host = &host,
				   .alerts = alerts,
				   .n_alerts = 3,
				   .version = "1"};
	char *t = NULL;
	size_t len;
	cr_assert_eq(metrics_render(&in, &t, &len), 0);
#define L2 "device=\"nvme2\",model=\"Samsung SSD 950 PRO \\\"512GB\\\"\",serial=\"S2GMNX0H\""
#define L3 "device=\"nvme3\",model=\"Samsung SSD 980 PRO 1TB\",serial=\"S5GXNX0R\""
	static const char *const want[] = {
		"nvmond_host_info{host_id=\"e1bad763ccec40fb86cf965290b5ea9e\",host=\"db-fra1-07\","
		"public_url=\"https://db7:9470/\",site=\"fra1\",room=\"Süd \\\"2\\\"\"} 1",
		"nvmond_device_info{" L0 ",firmware=\"2B0QBXX7\",label=\"bay 3 – scratch\","
		"location=\"rack 12 U4 slot 3\"} 1",
		"nvmond_alert_firing{" L0 ",rule=\"temperature_warning\",severity=\"warning\"} 1",
		"nvmond_alert_firing{" L1 ",rule=\"offline\",severity=\"critical\"} 1",
		"nvmond_alert_firing{" L2 ",rule=\"firmware_changed\",severity=\"info\"} 1",
		/* a warning alert: warning; one series per state */
		"nvmond_device_health{" L0 ",state=\"ok\"} 0",
		"nvmond_device_health{" L0 ",state=\"warning\"} 1",
		"nvmond_device_health{" L0 ",state=\"critical\"} 0",
		"nvmond_device_health{" L0 ",state=\"offline\"} 0",
		"nvmond_device_health{" L0 ",state=\"unknown\"} 0",
		/* offline first, as the dashboard's card: its critical offline alert aside */
		"nvmond_device_health{" L1 ",state=\"offline\"} 1",
		"nvmond_device_health{" L1 ",state=\"critical\"} 0",
		/* an info alert does not change the health */
		"nvmond_device_health{" L2 ",state=\"ok\"} 1",
		/* no sample yet */
		"nvmond_device_health{" L3 ",state=\"unknown\"} 1",
		"nvmond_device_health{" L3 ",state=\"ok\"} 0",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect(has_line(t, want[i]), "missing line: %s\n%s", want[i], t);
	/* The host's labels are on nvmond_host_info alone. */
	const char *site = strstr(t, "site=\"");
	cr_assert_not_null(site);
	cr_expect_null(strstr(site + 1, "site=\""));
	free(t);

	/* The StateSet is the API's health of each drive, whatever the drive. */
	devs[2].fd.facts.unresponsive = true;	 /* critical */
	devs[1].fd.facts.unresponsive = true;	 /* still offline first */
	devs[0].fd.last.smart.percent_used = 85; /* a warning alert and 85 % used */
	devs[3].fd.row.online = 1;		 /* unknown */
	in.n_alerts = 0;			 /* nvmond_alert_firing is apart */
	cr_assert_eq(metrics_render(&in, &t, &len), 0);
	static const char *const labels[] = {L0, L1, L2, L3};
	for (size_t i = 0; i < 4; i++) {
		char line[600], state[16];

		snprintf(line, sizeof(line), "nvmond_device_health{%s,state=\"%s\"} 1", labels[i],
			 api_state(&devs[i].fd, state));
		cr_expect(has_line(t, line), "the API's health is not /metrics' (%s):\n%s", line,
			  t);
	}
	char buf[16];
	cr_expect_str_eq(api_state(&devs[2].fd, buf), "critical");
	cr_expect_str_eq(api_state(&devs[1].fd, buf), "offline");
	free(t);

	/*
	 * Remote write pushes the same series (docs/metrics.md#remote-write): its live
	 * part (omit_stored) carries the StateSet as /metrics does, all five series.
	 */
	in.omit_stored = true;
	cr_assert_eq(metrics_render(&in, &t, &len), 0);
	for (size_t i = 0; i < 4; i++) {
		char line[600], state[16];

		snprintf(line, sizeof(line), "nvmond_device_health{%s,state=\"%s\"} 1", labels[i],
			 api_state(&devs[i].fd, state));
		cr_expect(has_line(t, line), "a push's health is not /metrics' (%s):\n%s", line, t);
		snprintf(line, sizeof(line), "nvmond_device_health{%s,state=\"unknown\"} %d",
			 labels[i], strcmp(state, "unknown") == 0);
		cr_expect(has_line(t, line), "a push's StateSet lacks unknown (%s)", line);
	}
	free(t);
}

/*
 * A push's live part (omit_stored): what the store holds goes with its own
 * timestamps, so those families are left out here but for a drive whose sample
 * is from hwmon (never stored); everything else stays.
 */
Test(metrics, omit_stored_leaves_the_stored_families_to_the_store)
{
	struct metrics_device devs[3];
	two_devices(devs);
	devs[2] = devs[0];
	devs[2].fd.row.id = 3;
	strcpy(devs[2].fd.row.name, "nvme2");
	devs[2].fd.last.source = SAMPLE_SOURCE_HWMON;
	struct metrics_input in = {.devs = devs, .n_devs = 3, .omit_stored = true, .version = "1"};
	char *t = NULL;
	size_t len;

	cr_assert_eq(metrics_render(&in, &t, &len), 0);
	cr_expect_null(strstr(t, "nvmond_temperature_celsius{" L0));
	cr_expect_null(strstr(t, "nvmond_data_written_bytes_total{" L0));
	cr_expect_null(strstr(t, "nvmond_critical_warning{" L0));
	cr_expect(has_line(t, "nvmond_temperature_celsius{" L2 ",sensor=\"composite\"} 72"), "%s",
		  t);
	cr_expect(has_line(t, "nvmond_last_sample_timestamp_seconds{" L0 "} 1700000000.123"));
	cr_expect(has_line(t, "nvmond_device_up{" L0 "} 1"));
	cr_expect(has_line(t, "nvmond_temperature_warning_threshold_celsius{" L0 "} 70"));
	free(t);
}

Test(metrics, export_families)
{
	struct metrics_export e[] = {{.name = "vm",
				      .up = true,
				      .lag_ms = 12500,
				      .backlog = 32,
				      .samples_sent = 1000,
				      .samples_dropped = 7,
				      .requests = 3,
				      .requests_failed = 2,
				      .last_success_ms = 1700000000123,
				      .last_error_ms = 0}};
	struct metrics_input in = {
		.has_exports = true, .exports = e, .n_exports = 1, .version = "1"};
	char *t = NULL;
	size_t len;

	cr_assert_eq(metrics_render(&in, &t, &len), 0);
	static const char *const want[] = {
		"nvmond_export_up{export=\"vm\"} 1",
		"nvmond_export_lag_seconds{export=\"vm\"} 12.500",
		"nvmond_export_backlog_samples{export=\"vm\"} 32",
		"nvmond_export_samples_total{export=\"vm\"} 1000",
		"nvmond_export_samples_dropped_total{export=\"vm\"} 7",
		"nvmond_export_requests_total{export=\"vm\"} 3",
		"nvmond_export_request_failures_total{export=\"vm\"} 2",
		"nvmond_export_last_success_timestamp_seconds{export=\"vm\"} 1700000000.123",
		"# TYPE nvmond_export_samples_dropped_total counter",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect(has_line(t, want[i]), "missing line: %s", want[i]);
	cr_expect_null(strstr(t, "nvmond_export_last_error_timestamp_seconds{"), "none yet");
	free(t);
}
