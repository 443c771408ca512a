/* SPDX-License-Identifier: MIT */
/*
 * The Firmware Slot Information log page (03h): fwlog_decode() of any 512 bytes,
 * the active and pending revisions, and the firmware-change rule against a
 * previous revision and an Identify FR taken from the input's first 16 bytes.
 */
#include "fuzz.h"
#include "nvmond/decode/fwlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t page[FWLOG_SIZE], again[FWLOG_SIZE], third[FWLOG_SIZE];
	char prev[9] = "", fr[9] = "";
	struct fw_change ch;
	struct fwlog l, l2;
	const char *rev;

	if (size >= 16) {
		memcpy(prev, data, 8);
		memcpy(fr, data + 8, 8);
		data += 16;
		size -= 16;
	}
	fuzz_page(data, size, page, sizeof(page));
	FUZZ_CHECK(fwlog_decode(page, &l) == 0);
	rev = fwlog_active_rev(&l);
	FUZZ_CHECK(!rev || strnlen(rev, FWLOG_REV_MAX) < FWLOG_REV_MAX);
	rev = fwlog_pending_rev(&l);
	FUZZ_CHECK(!rev || strnlen(rev, FWLOG_REV_MAX) < FWLOG_REV_MAX);
	(void)fwlog_change(prev, fr, &l, &ch);
	FUZZ_CHECK(strnlen(ch.current, FWLOG_REV_MAX) < FWLOG_REV_MAX);
	FUZZ_CHECK(strnlen(ch.pending, FWLOG_REV_MAX) < FWLOG_REV_MAX);
	(void)fwlog_change(NULL, fr, NULL, &ch);
	FUZZ_CHECK(!ch.changed); /* a first sight is the baseline */
	fwlog_encode(&l, again);
	FUZZ_CHECK(fwlog_decode(again, &l2) == 0);
	fwlog_encode(&l2, third);
	FUZZ_CHECK(memcmp(again, third, sizeof(again)) == 0);
	return 0;
}
