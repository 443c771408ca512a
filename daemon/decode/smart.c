/* SPDX-License-Identifier: MIT */
/*
 * The SMART / Health Information log page (02h): decoded from and encoded
 * into its raw 512 bytes, with temperature and byte-count helpers. Pure.
 */
#include <string.h>

#include "nvmond/decode/smart.h"
#include "nvmond/util/le.h"

/* Byte offsets in the page (NVMe 2.0, Figure 207). */
enum {
	OFF_CRIT_WARN = 0,
	OFF_TEMP = 1,
	OFF_AVAIL_SPARE = 3,
	OFF_SPARE_THRESH = 4,
	OFF_PERCENT_USED = 5,
	OFF_ENDU_GRP = 6,
	OFF_DUR = 32,
	OFF_DUW = 48,
	OFF_HRC = 64,
	OFF_HWC = 80,
	OFF_BUSY = 96,
	OFF_PWR_CYCLES = 112,
	OFF_POH = 128,
	OFF_UNSAFE = 144,
	OFF_MEDIA_ERR = 160,
	OFF_ERR_LOG = 176,
	OFF_WARN_TIME = 192,
	OFF_CRIT_TIME = 196,
	OFF_SENSORS = 200,
	OFF_TMT1_COUNT = 216,
	OFF_TMT2_COUNT = 220,
	OFF_TMT1_TIME = 224,
	OFF_TMT2_TIME = 228,
};

/* The ten 128-bit counters, in page order. */
#define SMART_U128_FIELDS(X)                                                                       \
	X(OFF_DUR, data_units_read)                                                                \
	X(OFF_DUW, data_units_written)                                                             \
	X(OFF_HRC, host_read_commands)                                                             \
	X(OFF_HWC, host_write_commands)                                                            \
	X(OFF_BUSY, controller_busy_time)                                                          \
	X(OFF_PWR_CYCLES, power_cycles)                                                            \
	X(OFF_POH, power_on_hours)                                                                 \
	X(OFF_UNSAFE, unsafe_shutdowns)                                                            \
	X(OFF_MEDIA_ERR, media_errors)                                                             \
	X(OFF_ERR_LOG, num_err_log_entries)

int smart_decode(const uint8_t page[SMART_LOG_SIZE], struct smart_log *ret)
{
	struct smart_log s = {
		.critical_warning = page[OFF_CRIT_WARN],
		.temperature_k = (uint16_t)le_get(page + OFF_TEMP, 2),
		.avail_spare = page[OFF_AVAIL_SPARE],
		.spare_thresh = page[OFF_SPARE_THRESH],
		.percent_used = page[OFF_PERCENT_USED],
		.endurance_grp_crit_warn = page[OFF_ENDU_GRP],
		.warning_temp_time = (uint32_t)le_get(page + OFF_WARN_TIME, 4),
		.critical_temp_time = (uint32_t)le_get(page + OFF_CRIT_TIME, 4),
		.thm_temp1_trans_count = (uint32_t)le_get(page + OFF_TMT1_COUNT, 4),
		.thm_temp2_trans_count = (uint32_t)le_get(page + OFF_TMT2_COUNT, 4),
		.thm_temp1_total_time = (uint32_t)le_get(page + OFF_TMT1_TIME, 4),
		.thm_temp2_total_time = (uint32_t)le_get(page + OFF_TMT2_TIME, 4),
	};

#define X(off, field) s.field = u128_from_le(page + (off));
	SMART_U128_FIELDS(X)
#undef X
	for (int i = 0; i < SMART_NUM_SENSORS; i++)
		s.temp_sensor_k[i] = (uint16_t)le_get(page + OFF_SENSORS + 2 * i, 2);
	*ret = s;
	return 0;
}

void smart_encode(const struct smart_log *s, uint8_t page[SMART_LOG_SIZE])
{
	memset(page, 0, SMART_LOG_SIZE);
	page[OFF_CRIT_WARN] = s->critical_warning;
	le_put(page + OFF_TEMP, s->temperature_k, 2);
	page[OFF_AVAIL_SPARE] = s->avail_spare;
	page[OFF_SPARE_THRESH] = s->spare_thresh;
	page[OFF_PERCENT_USED] = s->percent_used;
	page[OFF_ENDU_GRP] = s->endurance_grp_crit_warn;
#define X(off, field) u128_to_le(s->field, page + (off));
	SMART_U128_FIELDS(X)
#undef X
	le_put(page + OFF_WARN_TIME, s->warning_temp_time, 4);
	le_put(page + OFF_CRIT_TIME, s->critical_temp_time, 4);
	for (int i = 0; i < SMART_NUM_SENSORS; i++)
		le_put(page + OFF_SENSORS + 2 * i, s->temp_sensor_k[i], 2);
	le_put(page + OFF_TMT1_COUNT, s->thm_temp1_trans_count, 4);
	le_put(page + OFF_TMT2_COUNT, s->thm_temp2_trans_count, 4);
	le_put(page + OFF_TMT1_TIME, s->thm_temp1_total_time, 4);
	le_put(page + OFF_TMT2_TIME, s->thm_temp2_total_time, 4);
}

bool smart_kelvin_to_c(uint16_t kelvin, int *ret_c)
{
	if (kelvin == 0)
		return false;
	*ret_c = (int)kelvin - 273;
	return true;
}

uint16_t smart_hottest_k(const struct smart_log *log)
{
	uint16_t t = log->temperature_k;

	for (int i = 0; i < SMART_NUM_SENSORS; i++)
		if (log->temp_sensor_k[i] > t)
			t = log->temp_sensor_k[i];
	return t;
}

u128 smart_bytes(u128 data_units)
{
	return u128_mul_sat(data_units, BYTES_PER_UNIT);
}
