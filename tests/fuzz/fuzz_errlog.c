/* SPDX-License-Identifier: MIT */
/*
 * The Error Information log page (01h): errlog_decode() of a page of any length
 * (whole 64-byte entries, a torn last one), the status names, and which entries
 * are new for any previous and current error count. The first 16 bytes are the
 * two counts (prev, cur), the rest the page.
 */
#include "fuzz.h"
#include "nvmond/decode/errlog.h"

#define ENTRIES_MAX 256 /* ELPE is one byte: a controller keeps at most 256 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct errlog_entry e[ENTRIES_MAX];
	size_t idx[ENTRIES_MAX], n, k;
	uint64_t prev = 0, cur = 0, lost = 0;
	uint8_t raw[ERRLOG_ENTRY_SIZE];

	if (size >= 16) {
		memcpy(&prev, data, 8);
		memcpy(&cur, data + 8, 8);
		data += 16;
		size -= 16;
	}
	n = errlog_decode(data, size, e, ENTRIES_MAX);
	FUZZ_CHECK(n == (size / ERRLOG_ENTRY_SIZE < ENTRIES_MAX ? size / ERRLOG_ENTRY_SIZE
								: ENTRIES_MAX));
	for (size_t i = 0; i < n; i++) {
		struct errlog_entry again;
		const char *name = errlog_status_name(e[i].sct, e[i].sc); /* NULL: not named */

		FUZZ_CHECK(!name || name[0]);
		FUZZ_CHECK(errlog_sct_name(e[i].sct) != NULL);
		errlog_encode_entry(&e[i], raw);
		/* 1 for an empty entry (error count 0), else 0 */
		FUZZ_CHECK(errlog_decode_entry(raw, &again) == (e[i].error_count == 0));
		FUZZ_CHECK(again.error_count == e[i].error_count && again.sc == e[i].sc &&
			   again.sct == e[i].sct && again.lba == e[i].lba);
	}
	k = errlog_new_entries(prev, cur, e, n, idx, &lost);
	FUZZ_CHECK(k <= n);
	for (size_t i = 0; i < k; i++)
		FUZZ_CHECK(idx[i] < n);
	for (unsigned kept = 1; kept <= 256; kept *= 4) {
		size_t c = errlog_read_count(prev != 0, prev, cur, kept, cur & 1);
		FUZZ_CHECK(c <= kept);
	}
	return 0;
}
