/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "nvmond/util/u128.h"

#define SMART_LOG_SIZE	  512
#define SMART_NUM_SENSORS 8

/* Critical warning bits (NVMe 2.0, Figure 207, byte 0). */
enum smart_crit {
	SMART_CRIT_SPARE = 1 << 0,	 /* available spare below threshold */
	SMART_CRIT_TEMPERATURE = 1 << 1, /* a temperature crossed a threshold */
	SMART_CRIT_DEGRADED = 1 << 2,	 /* NVM subsystem reliability degraded */
	SMART_CRIT_READ_ONLY = 1 << 3,	 /* media placed in read-only mode */
	SMART_CRIT_VOLATILE = 1 << 4,	 /* volatile memory backup failed */
	SMART_CRIT_PMR_RO = 1 << 5,	 /* persistent memory region read-only */
};

/*
 * One decoded SMART / Health Information log page (log identifier 02h).
 * Temperatures stay in Kelvin as the drive reports them; 0 means "not reported"
 * (see smart_kelvin_to_c()). Times are in the units the specification gives.
 */
struct smart_log {
	uint8_t critical_warning;
	uint16_t temperature_k; /* composite temperature */
	uint8_t avail_spare;	/* percent */
	uint8_t spare_thresh;	/* percent */
	uint8_t percent_used;	/* may exceed 100, saturates at 255 */
	uint8_t endurance_grp_crit_warn;
	u128 data_units_read;	 /* in units of 512,000 bytes */
	u128 data_units_written; /* in units of 512,000 bytes */
	u128 host_read_commands;
	u128 host_write_commands;
	u128 controller_busy_time; /* minutes */
	u128 power_cycles;
	u128 power_on_hours;
	u128 unsafe_shutdowns;
	u128 media_errors;
	u128 num_err_log_entries;
	uint32_t warning_temp_time;  /* minutes */
	uint32_t critical_temp_time; /* minutes */
	uint16_t temp_sensor_k[SMART_NUM_SENSORS];
	uint32_t thm_temp1_trans_count;
	uint32_t thm_temp2_trans_count;
	uint32_t thm_temp1_total_time; /* seconds */
	uint32_t thm_temp2_total_time; /* seconds */
};

/**
 * smart_decode() - Decode a raw 512-byte SMART / Health log page.
 * @page: the page exactly as the controller returned it (little-endian)
 * @ret:  filled on success
 *
 * Pure: no I/O. Every field of the page is decoded; reserved bytes are ignored.
 * Return: 0 (every 512-byte page is decodable).
 */
int smart_decode(const uint8_t page[SMART_LOG_SIZE], struct smart_log *ret);

/**
 * smart_encode() - Build the raw page for @log (the inverse of smart_decode()).
 * Used by the demo drives and by tests. Reserved bytes are zero.
 */
void smart_encode(const struct smart_log *log, uint8_t page[SMART_LOG_SIZE]);

/**
 * smart_kelvin_to_c() - Convert a reported temperature to degrees Celsius.
 * @kelvin: as reported; 0 means the sensor is not implemented / not reported
 * @ret_c:  written only when the temperature is reported
 * Return: true when reported, false for 0 K ("not reported", distinct from 0 °C = 273 K).
 */
bool smart_kelvin_to_c(uint16_t kelvin, int *ret_c);

/**
 * smart_hottest_k() - Hottest of the composite and all reported sensors.
 * Return: Kelvin, or 0 when nothing is reported.
 */
uint16_t smart_hottest_k(const struct smart_log *log);

/**
 * smart_bytes() - Data units to bytes (units * 512,000), saturating at U128_MAX.
 */
u128 smart_bytes(u128 data_units);
