/* SPDX-License-Identifier: MIT */
/*
 * The families a stored health sample makes (metrics_stored.h): one table, one
 * switch. Names, units and labels follow docs/metrics.md: base units, _total
 * for counters, 128-bit counters exact.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/metrics/metrics_stored.h"
#include "nvmond/decode/smart.h"

enum {
	F_TEMP,
	F_CRIT,
	F_SPARE,
	F_SPARE_THRESH,
	F_USED,
	F_WARN_TIME,
	F_CRIT_TIME,
	F_THM_TRANS,
	F_THM_TIME,
	F_U128, /* the ten 128-bit counters follow, in u128_counters[] order */
};

/* The 128-bit health counters, each times a unit to reach a base unit. */
static const struct {
	size_t offset;
	u128 scale;
} u128_counters[] = {
	{offsetof(struct smart_log, data_units_read), BYTES_PER_UNIT},
	{offsetof(struct smart_log, data_units_written), BYTES_PER_UNIT},
	{offsetof(struct smart_log, host_read_commands), 1},
	{offsetof(struct smart_log, host_write_commands), 1},
	{offsetof(struct smart_log, controller_busy_time), 60},
	{offsetof(struct smart_log, power_cycles), 1},
	{offsetof(struct smart_log, power_on_hours), 3600},
	{offsetof(struct smart_log, unsafe_shutdowns), 1},
	{offsetof(struct smart_log, media_errors), 1},
	{offsetof(struct smart_log, num_err_log_entries), 1},
};

const struct metrics_stored_family metrics_stored_families[METRICS_STORED_FAMILIES] = {
	[F_TEMP] = {"nvmond_temperature_celsius", "gauge",
		    "Composite temperature (sensor=\"composite\") and each reported sensor."},
	[F_CRIT] = {"nvmond_critical_warning", "gauge",
		    "Critical warning bits of the health log: 1 when set."},
	[F_SPARE] = {"nvmond_available_spare_ratio", "gauge",
		     "Remaining spare capacity, 0..1 (1 = 100 %)."},
	[F_SPARE_THRESH] = {"nvmond_available_spare_threshold_ratio", "gauge",
			    "Spare capacity below which the drive raises a critical warning, "
			    "0..1."},
	[F_USED] = {"nvmond_endurance_used_ratio", "gauge",
		    "Vendor estimate of life used (Percentage Used / 100); may exceed 1."},
	[F_WARN_TIME] = {"nvmond_warning_temperature_seconds_total", "counter",
			 "Time the composite temperature spent at or above WCTEMP (whole "
			 "minutes)."},
	[F_CRIT_TIME] = {"nvmond_critical_temperature_seconds_total", "counter",
			 "Time the composite temperature spent at or above CCTEMP (whole "
			 "minutes)."},
	[F_THM_TRANS] = {"nvmond_thermal_management_transitions_total", "counter",
			 "Times the controller entered host-controlled thermal management "
			 "level 1 (light) or 2 (heavy throttling)."},
	[F_THM_TIME] = {"nvmond_thermal_management_seconds_total", "counter",
			"Time spent in thermal management level 1 or 2."},
	[F_U128 + 0] = {"nvmond_data_read_bytes_total", "counter",
			"Data read by the host, in bytes (data units x 512000)."},
	[F_U128 + 1] = {"nvmond_data_written_bytes_total", "counter",
			"Data written by the host, in bytes (data units x 512000)."},
	[F_U128 + 2] = {"nvmond_host_read_commands_total", "counter",
			"Read commands completed by the controller."},
	[F_U128 + 3] = {"nvmond_host_write_commands_total", "counter",
			"Write commands completed by the controller."},
	[F_U128 + 4] = {"nvmond_controller_busy_seconds_total", "counter",
			"Time the controller was busy with I/O."},
	[F_U128 + 5] = {"nvmond_power_cycles_total", "counter", "Power cycles."},
	[F_U128 + 6] = {"nvmond_power_on_seconds_total", "counter",
			"Power-on time (reported in whole hours)."},
	[F_U128 + 7] = {"nvmond_unsafe_shutdowns_total", "counter", "Unsafe shutdowns."},
	[F_U128 + 8] = {"nvmond_media_errors_total", "counter",
			"Unrecovered data integrity errors."},
	[F_U128 + 9] = {"nvmond_error_log_entries_total", "counter",
			"Error information log entries over the drive's life."},
};

_Static_assert(F_U128 + sizeof(u128_counters) / sizeof(u128_counters[0]) == METRICS_STORED_FAMILIES,
	       "one family per 128-bit counter");

static const struct {
	const char *label;
	enum smart_crit bit;
} crit_bits[] = {
	{"spare", SMART_CRIT_SPARE},
	{"temperature", SMART_CRIT_TEMPERATURE},
	{"degraded", SMART_CRIT_DEGRADED},
	{"read_only", SMART_CRIT_READ_ONLY},
	{"volatile_memory", SMART_CRIT_VOLATILE},
	{"pmr_read_only", SMART_CRIT_PMR_RO},
};

static const char *const sensor_names[SMART_NUM_SENSORS] = {"1", "2", "3", "4", "5", "6", "7", "8"};

static struct metrics_point int_point(const char *label, const char *value, int64_t v)
{
	return (struct metrics_point){
		.label = label, .label_value = value, .kind = METRICS_POINT_INT, .i = v};
}

static struct metrics_point centi_point(unsigned pct)
{
	return (struct metrics_point){.kind = METRICS_POINT_CENTI, .i = pct};
}

size_t metrics_stored_points(size_t family, const struct smart_log *s,
			     struct metrics_point ret[METRICS_POINTS_MAX])
{
	size_t n = 0;
	int c;

	switch (family) {
	case F_TEMP:
		if (smart_kelvin_to_c(s->temperature_k, &c))
			ret[n++] = int_point("sensor", "composite", c);
		for (unsigned k = 0; k < SMART_NUM_SENSORS; k++)
			if (smart_kelvin_to_c(s->temp_sensor_k[k], &c))
				ret[n++] = int_point("sensor", sensor_names[k], c);
		return n;
	case F_CRIT:
		for (size_t b = 0; b < sizeof(crit_bits) / sizeof(crit_bits[0]); b++)
			ret[n++] = int_point("warning", crit_bits[b].label,
					     (s->critical_warning & crit_bits[b].bit) ? 1 : 0);
		return n;
	case F_SPARE:
		ret[0] = centi_point(s->avail_spare);
		return 1;
	case F_SPARE_THRESH:
		ret[0] = centi_point(s->spare_thresh);
		return 1;
	case F_USED:
		ret[0] = centi_point(s->percent_used);
		return 1;
	case F_WARN_TIME:
		ret[0] = int_point(NULL, NULL, (int64_t)s->warning_temp_time * 60);
		return 1;
	case F_CRIT_TIME:
		ret[0] = int_point(NULL, NULL, (int64_t)s->critical_temp_time * 60);
		return 1;
	case F_THM_TRANS:
		ret[0] = int_point("level", "1", s->thm_temp1_trans_count);
		ret[1] = int_point("level", "2", s->thm_temp2_trans_count);
		return 2;
	case F_THM_TIME:
		ret[0] = int_point("level", "1", s->thm_temp1_total_time);
		ret[1] = int_point("level", "2", s->thm_temp2_total_time);
		return 2;
	default:
		if (family >= METRICS_STORED_FAMILIES)
			return 0;
		u128 v;
		memcpy(&v, (const char *)s + u128_counters[family - F_U128].offset, sizeof(v));
		ret[0] = (struct metrics_point){
			.kind = METRICS_POINT_U128,
			.u = u128_mul_sat(v, u128_counters[family - F_U128].scale)};
		return 1;
	}
}

char *metrics_point_text(const struct metrics_point *p, char buf[U128_DEC_MAX])
{
	switch (p->kind) {
	case METRICS_POINT_CENTI:
		snprintf(buf, U128_DEC_MAX, "%" PRId64 ".%02" PRId64, p->i / 100, p->i % 100);
		return buf;
	case METRICS_POINT_U128:
		return u128_to_dec(p->u, buf);
	case METRICS_POINT_INT:
	default:
		snprintf(buf, U128_DEC_MAX, "%" PRId64, p->i);
		return buf;
	}
}

double metrics_point_double(const struct metrics_point *p)
{
	switch (p->kind) {
	case METRICS_POINT_CENTI:
		return (double)p->i / 100.0;
	case METRICS_POINT_U128:
		return (double)p->u;
	case METRICS_POINT_INT:
	default:
		return (double)p->i;
	}
}

int metrics_stored_family_find(const char *name)
{
	for (size_t i = 0; i < METRICS_STORED_FAMILIES; i++)
		if (strcmp(metrics_stored_families[i].name, name) == 0)
			return (int)i;
	return -1;
}
