/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <string.h>

#include "nvmond/decode/smart.h"

/* Offsets are written out here, independently of smart.c's table. */
static void put_le(uint8_t *p, unsigned __int128 v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

Test(smart, decodes_every_field_at_its_offset)
{
	uint8_t page[512] = {0};
	struct smart_log s;

	page[0] = 0x1f;
	put_le(page + 1, 323, 2);
	page[3] = 100;
	page[4] = 10;
	page[5] = 7;
	page[6] = 0x2;
	put_le(page + 32, 1, 16);
	put_le(page + 48, 132, 16);
	put_le(page + 64, 3, 16);
	put_le(page + 80, 4, 16);
	put_le(page + 96, 5, 16);
	put_le(page + 112, 6, 16);
	put_le(page + 128, 7, 16);
	put_le(page + 144, 8, 16);
	put_le(page + 160, 9, 16);
	put_le(page + 176, 10, 16);
	put_le(page + 192, 11, 4);
	put_le(page + 196, 12, 4);
	for (int i = 0; i < 8; i++)
		put_le(page + 200 + 2 * i, 300 + i, 2);
	put_le(page + 216, 13, 4);
	put_le(page + 220, 14, 4);
	put_le(page + 224, 15, 4);
	put_le(page + 228, 16, 4);
	memset(page + 232, 0xee, 280); /* reserved: ignored */

	cr_assert_eq(smart_decode(page, &s), 0);
	cr_expect_eq(s.critical_warning, 0x1f);
	cr_expect_eq(s.temperature_k, 323);
	cr_expect_eq(s.avail_spare, 100);
	cr_expect_eq(s.spare_thresh, 10);
	cr_expect_eq(s.percent_used, 7);
	cr_expect_eq(s.endurance_grp_crit_warn, 2);
	cr_expect(s.data_units_read == 1);
	cr_expect(s.data_units_written == 132);
	cr_expect(s.host_read_commands == 3);
	cr_expect(s.host_write_commands == 4);
	cr_expect(s.controller_busy_time == 5);
	cr_expect(s.power_cycles == 6);
	cr_expect(s.power_on_hours == 7);
	cr_expect(s.unsafe_shutdowns == 8);
	cr_expect(s.media_errors == 9);
	cr_expect(s.num_err_log_entries == 10);
	cr_expect_eq(s.warning_temp_time, 11);
	cr_expect_eq(s.critical_temp_time, 12);
	for (int i = 0; i < 8; i++)
		cr_expect_eq(s.temp_sensor_k[i], 300 + i, "sensor %d", i + 1);
	cr_expect_eq(s.thm_temp1_trans_count, 13);
	cr_expect_eq(s.thm_temp2_trans_count, 14);
	cr_expect_eq(s.thm_temp1_total_time, 15);
	cr_expect_eq(s.thm_temp2_total_time, 16);
}

struct u128_case {
	const char *name;
	unsigned __int128 value;
};

/* Counters beyond 64 bits must survive decoding, encoding and the bytes product. */
Test(smart, counters_stay_exact_past_64_bits)
{
	const struct u128_case cases[] = {
		{"zero", 0},
		{"one", 1},
		{"2^32", (unsigned __int128)1 << 32},
		{"2^63", (unsigned __int128)1 << 63},
		{"2^64 - 1", ((unsigned __int128)1 << 64) - 1},
		{"2^64", (unsigned __int128)1 << 64},
		{"2^64 + 1", ((unsigned __int128)1 << 64) + 1},
		{"2^100 + 12345", ((unsigned __int128)1 << 100) + 12345},
		{"all ones", ~(unsigned __int128)0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t page[512] = {0}, again[512];
		struct smart_log s;

		put_le(page + 48, cases[i].value, 16);
		smart_decode(page, &s);
		cr_expect(s.data_units_written == cases[i].value, "%s", cases[i].name);
		smart_encode(&s, again);
		cr_expect_arr_eq(page, again, 512, "%s: encode(decode(p)) == p", cases[i].name);
	}
}

Test(smart, all_ones_page)
{
	uint8_t page[512];
	struct smart_log s;

	memset(page, 0xff, sizeof(page));
	smart_decode(page, &s);
	cr_expect_eq(s.critical_warning, 0xff);
	cr_expect_eq(s.temperature_k, 0xffff);
	cr_expect_eq(s.percent_used, 255);
	cr_expect(s.media_errors == U128_MAX);
	cr_expect(s.power_on_hours == U128_MAX);
	cr_expect_eq(s.warning_temp_time, UINT32_MAX);
	cr_expect_eq(s.thm_temp2_total_time, UINT32_MAX);
	cr_expect_eq(s.temp_sensor_k[7], 0xffff);
	cr_expect(smart_bytes(s.data_units_written) == U128_MAX, "bytes saturate, never wrap");
}

Test(smart, bytes_from_units)
{
	const struct {
		unsigned __int128 units, bytes;
	} cases[] = {
		{0, 0},
		{1, 512000},
		{132, 67584000},
		{(unsigned __int128)1 << 64, ((unsigned __int128)1 << 64) * 512000},
		{U128_MAX / 512000, (U128_MAX / 512000) * 512000},
		{U128_MAX / 512000 + 1, U128_MAX},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect(smart_bytes(cases[i].units) == cases[i].bytes, "case %zu", i);
}

Test(smart, kelvin_zero_is_not_reported)
{
	int c = 12345;

	cr_expect_not(smart_kelvin_to_c(0, &c));
	cr_expect_eq(c, 12345, "ret_c untouched when not reported");
	cr_expect(smart_kelvin_to_c(273, &c));
	cr_expect_eq(c, 0, "273 K is a real 0 °C");
	cr_expect(smart_kelvin_to_c(323, &c));
	cr_expect_eq(c, 50);
	cr_expect(smart_kelvin_to_c(1, &c));
	cr_expect_eq(c, -272);
}

Test(smart, hottest_sees_sensors)
{
	struct smart_log s = {.temperature_k = 320};

	cr_expect_eq(smart_hottest_k(&s), 320);
	s.temp_sensor_k[5] = 351;
	cr_expect_eq(smart_hottest_k(&s), 351, "a hot sensor beats a cool composite");
	s = (struct smart_log){0};
	cr_expect_eq(smart_hottest_k(&s), 0, "nothing reported");
}

Test(smart, encode_decode_roundtrip)
{
	struct smart_log a =
				 {
					 .critical_warning =
						 SMART_CRIT_TEMPERATURE | SMART_CRIT_SPARE,
					 .temperature_k = 344,
					 .avail_spare = 98,
					 .spare_thresh = 10,
					 .percent_used = 121,
					 .data_units_written = ((unsigned __int128)7 << 70) | 99,
					 .warning_temp_time = 77,
					 .temp_sensor_k = {345, 0, 310},
					 .thm_temp1_trans_count = 0xfffffffe,
					 .thm_temp2_total_time = 600,
				 },
			 b;
	uint8_t page[512], again[512];

	smart_encode(&a, page);
	smart_decode(page, &b);
	/* Compare through the wire format: struct padding is not part of the value. */
	smart_encode(&b, again);
	cr_expect_arr_eq(page, again, sizeof(page));
	cr_expect(b.data_units_written == a.data_units_written);
	cr_expect_eq(b.percent_used, 121);
	cr_expect_eq(b.temp_sensor_k[2], 310);
	cr_expect_eq(b.thm_temp1_trans_count, 0xfffffffe);
}

/*
 * The hottest temperature is the highest of the composite and sensors 1-8
 * (README Events: over_wctemp uses "the hottest of the composite and all
 * sensors"; NVMe 2.0 Figure 207, bytes 215:200 hold eight sensors).
 */
Test(smart, hottest_sees_every_sensor_1_to_8)
{
	for (int hot = 0; hot < SMART_NUM_SENSORS; hot++) {
		struct smart_log s = {.temperature_k = 320};

		for (int i = 0; i < SMART_NUM_SENSORS; i++)
			s.temp_sensor_k[i] = (uint16_t)(310 + i);
		s.temp_sensor_k[hot] = 360;
		cr_expect_eq(smart_hottest_k(&s), 360, "sensor %d is the hottest", hot + 1);
	}
}

/* Reads @n little-endian bytes at @off: independent of smart.c's offset table. */
static uint64_t get_le(const uint8_t *page, int off, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | page[off + i];
	return v;
}

/*
 * smart_encode() writes every field at its own offset (NVMe 2.0 Figure 207): the
 * demo drives and the test fixtures are encoded pages, so a field written at
 * another's offset would feed the detector a wrong counter.
 */
Test(smart, encode_puts_each_field_at_its_offset)
{
	struct smart_log s = {
		.critical_warning = 0x05,
		.temperature_k = 0x0151,
		.avail_spare = 97,
		.spare_thresh = 11,
		.percent_used = 42,
		.endurance_grp_crit_warn = 3,
		.data_units_read = 0x0102,
		.data_units_written = 0x0203,
		.host_read_commands = 0x0304,
		.host_write_commands = 0x0405,
		.controller_busy_time = 0x0506,
		.power_cycles = 0x0607,
		.power_on_hours = 0x0708,
		.unsafe_shutdowns = 0x0809,
		.media_errors = 0x090a,
		.num_err_log_entries = 0x0a0b,
		.warning_temp_time = 0x11121314,
		.critical_temp_time = 0x21222324,
		.thm_temp1_trans_count = 0x31323334,
		.thm_temp2_trans_count = 0x41424344,
		.thm_temp1_total_time = 0x51525354,
		.thm_temp2_total_time = 0x61626364,
	};
	const struct {
		const char *field; /* the field, as Figure 207 names it */
		int off, len;
		uint64_t want;
	} t[] = {
		{"critical warning", 0, 1, 0x05},
		{"composite temperature", 1, 2, 0x0151},
		{"available spare", 3, 1, 97},
		{"available spare threshold", 4, 1, 11},
		{"percentage used", 5, 1, 42},
		{"endurance group critical warning summary", 6, 1, 3},
		{"data units read", 32, 8, 0x0102},
		{"data units written", 48, 8, 0x0203},
		{"host read commands", 64, 8, 0x0304},
		{"host write commands", 80, 8, 0x0405},
		{"controller busy time", 96, 8, 0x0506},
		{"power cycles", 112, 8, 0x0607},
		{"power on hours", 128, 8, 0x0708},
		{"unsafe shutdowns", 144, 8, 0x0809},
		{"media and data integrity errors", 160, 8, 0x090a},
		{"number of error information log entries", 176, 8, 0x0a0b},
		{"warning composite temperature time", 192, 4, 0x11121314},
		{"critical composite temperature time", 196, 4, 0x21222324},
		{"thermal management temperature 1 transition count", 216, 4, 0x31323334},
		{"thermal management temperature 2 transition count", 220, 4, 0x41424344},
		{"total time for thermal management temperature 1", 224, 4, 0x51525354},
		{"total time for thermal management temperature 2", 228, 4, 0x61626364},
	};
	uint8_t page[512];

	for (int i = 0; i < SMART_NUM_SENSORS; i++)
		s.temp_sensor_k[i] = (uint16_t)(0x0130 + i);
	smart_encode(&s, page);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(get_le(page, t[i].off, t[i].len), t[i].want, "%s at byte %d: %#llx",
			     t[i].field, t[i].off,
			     (unsigned long long)get_le(page, t[i].off, t[i].len));
	for (int i = 0; i < SMART_NUM_SENSORS; i++)
		cr_expect_eq(get_le(page, 200 + 2 * i, 2), 0x0130u + (unsigned)i,
			     "temperature sensor %d", i + 1);
}
