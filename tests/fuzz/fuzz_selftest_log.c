/* SPDX-License-Identifier: MIT */
/*
 * The Device Self-test log page (06h): selftest_decode() of a page of any length
 * (a short one is refused), the names, which results are new after any stored
 * one, and the encoder's round trip. The first 8 bytes pick the stored result's
 * key (a result of the same page, or one from elsewhere).
 */
#include "fuzz.h"
#include "nvmond/decode/selftest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct selftest_log log, log2;
	struct selftest_key key;
	uint8_t again[SELFTEST_LOG_SIZE], third[SELFTEST_LOG_SIZE];
	size_t idx[SELFTEST_RESULTS], n;
	uint8_t pick = 0;

	if (size >= 8) {
		pick = data[0];
		data += 8;
		size -= 8;
	}
	if (selftest_decode(data, size, &log) < 0) {
		FUZZ_CHECK(size < SELFTEST_LOG_SIZE);
		return 0;
	}
	FUZZ_CHECK(selftest_code_name(log.current) != NULL);
	for (size_t i = 0; i < SELFTEST_RESULTS; i++) {
		FUZZ_CHECK(selftest_result_name(log.r[i].result) != NULL);
		FUZZ_CHECK(selftest_code_name(log.r[i].code) != NULL);
	}
	/* After nothing stored, after one of the page's results, after a vanished one. */
	n = selftest_new_results(NULL, 1, &log, idx);
	FUZZ_CHECK(n <= SELFTEST_RESULTS);
	selftest_key_of(&log.r[pick % SELFTEST_RESULTS], &key);
	n = selftest_new_results(&key, 1, &log, idx);
	FUZZ_CHECK(n <= SELFTEST_RESULTS);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(idx[i] < SELFTEST_RESULTS);
	key.poh ^= 0x5a5a;
	n = selftest_new_results(&key, 1, &log, idx);
	FUZZ_CHECK(n <= SELFTEST_RESULTS);
	/* Every used entry stored, as the service keeps them: nothing is new. */
	struct selftest_key seen[SELFTEST_RESULTS];
	size_t n_seen = selftest_log_keys(&log, seen);
	FUZZ_CHECK(n_seen <= SELFTEST_RESULTS);
	FUZZ_CHECK(selftest_new_results(seen, n_seen, &log, idx) == 0);

	selftest_encode(&log, again);
	FUZZ_CHECK(selftest_decode(again, sizeof(again), &log2) == 0);
	selftest_encode(&log2, third);
	FUZZ_CHECK(memcmp(again, third, sizeof(again)) == 0);
	return 0;
}
