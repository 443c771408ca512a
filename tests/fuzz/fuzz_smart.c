/* SPDX-License-Identifier: MIT */
/*
 * The SMART / Health Information log page (02h) as a controller returns it:
 * smart_decode() of any 512 bytes, what the poller derives from it, and the
 * encoder's round trip (decode, encode, decode again gives the same page).
 */
#include "fuzz.h"
#include "nvmond/decode/smart.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t page[SMART_LOG_SIZE], again[SMART_LOG_SIZE], third[SMART_LOG_SIZE];
	struct smart_log l, l2;
	int c;

	fuzz_page(data, size, page, sizeof(page));
	if (smart_decode(page, &l) < 0)
		return 0;
	(void)smart_hottest_k(&l);
	(void)smart_bytes(l.data_units_written);
	(void)smart_kelvin_to_c(l.temperature_k, &c);
	for (size_t i = 0; i < SMART_NUM_SENSORS; i++)
		(void)smart_kelvin_to_c(l.temp_sensor_k[i], &c);
	smart_encode(&l, again);
	FUZZ_CHECK(smart_decode(again, &l2) == 0);
	smart_encode(&l2, third);
	FUZZ_CHECK(memcmp(again, third, sizeof(again)) == 0);
	return 0;
}
