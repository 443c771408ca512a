/* SPDX-License-Identifier: MIT */
/*
 * The Identify Controller data structure (CNS 01h): idctl_decode() of any 4096
 * bytes. Its strings must come out NUL-terminated and printable (they go into
 * JSON, the database and log lines), and the encoder round-trips.
 */
#include "fuzz.h"
#include "nvmond/decode/idctl.h"

static void check_clean(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	FUZZ_CHECK(n < cap);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK((unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t page[IDCTL_SIZE], again[IDCTL_SIZE], third[IDCTL_SIZE];
	struct idctl id, id2;
	char clean[64];

	fuzz_page(data, size, page, sizeof(page));
	FUZZ_CHECK(idctl_decode(page, &id) == 0);
	check_clean(id.serial, sizeof(id.serial));
	check_clean(id.model, sizeof(id.model));
	check_clean(id.firmware, sizeof(id.firmware));
	FUZZ_CHECK(idctl_errlog_entries(&id) >= 1 && idctl_errlog_entries(&id) <= 256);
	/* idctl_str_clean() on any field width up to the largest (MN, 40 bytes). */
	idctl_str_clean(clean, page, size < 40 ? size : 40);
	check_clean(clean, sizeof(clean));
	idctl_encode(&id, again);
	FUZZ_CHECK(idctl_decode(again, &id2) == 0);
	idctl_encode(&id2, third);
	FUZZ_CHECK(memcmp(again, third, sizeof(again)) == 0);
	return 0;
}
