/* SPDX-License-Identifier: MIT */
/*
 * The OCP SMART / Health Information Extended log (C0h): ocp_decode() of any
 * 512 bytes. Rules: a page is taken exactly when its bytes 511:496 are the
 * OCP GUID, and a taken page survives encode → decode; write amplification
 * of any two counters is -1 or a ratio in hundredths, never negative otherwise.
 */
#include <errno.h>

#include "fuzz.h"
#include "nvmond/decode/ocp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t page[OCP_LOG_SIZE], again[OCP_LOG_SIZE], third[OCP_LOG_SIZE];
	struct ocp_log l, l2;
	char v[OCP_VERSION_MAX];

	fuzz_page(data, size, page, sizeof(page));
	/* Half the inputs get the GUID, so the decoder's body is reached. */
	if (size && data[0] & 1)
		memcpy(page + OCP_LOG_SIZE - OCP_GUID_LEN, ocp_smart_guid, OCP_GUID_LEN);
	int r = ocp_decode(page, &l);
	FUZZ_CHECK(r == 0 || r == -ENOMSG);
	FUZZ_CHECK((r == 0) == (memcmp(page + 496, ocp_smart_guid, 16) == 0));
	if (r < 0)
		return 0;
	FUZZ_CHECK(l.bad_user_blocks < (1ull << 48) && l.bad_system_blocks < (1ull << 48));
	FUZZ_CHECK(strnlen(ocp_version_str(&l, v, sizeof(v)), sizeof(v)) < sizeof(v));
	int64_t wa = ocp_write_amp_x100(l.phys_written_bytes, l.phys_read_bytes);
	FUZZ_CHECK(wa >= -1);
	FUZZ_CHECK((wa == -1) == (l.phys_read_bytes == 0));
	ocp_encode(&l, again);
	FUZZ_CHECK(ocp_decode(again, &l2) == 0);
	ocp_encode(&l2, third);
	FUZZ_CHECK(memcmp(again, third, sizeof(again)) == 0);
	return 0;
}
