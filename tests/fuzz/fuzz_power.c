/* SPDX-License-Identifier: MIT */
/*
 * Power states: a Power State Descriptor (any 32 bytes), an APST table (any
 * 256 bytes and Dword 0), Power Management and HCTM dwords. Rules: powers
 * within what 16 bits can scale to; the APST walk from any state ends within
 * NPSS + 1 steps in a non-operational state it names, with the idle time the
 * sum of the table's ITPTs (at most 32 × 2^24 - 1 ms); a table survives
 * encode → decode.
 */
#include "fuzz.h"
#include "nvmond/decode/power.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t in[4 + 32 * POWER_STATES_MAX + APST_TABLE_SIZE + 2], t2[APST_TABLE_SIZE];
	struct power_state_desc psd[POWER_STATES_MAX];
	struct apst a, b;
	uint32_t dw0;

	fuzz_page(data, size, in, sizeof(in));
	memcpy(&dw0, in, 4);
	for (int i = 0; i < POWER_STATES_MAX; i++) {
		power_psd_decode(in + 4 + 32 * i, &psd[i]);
		FUZZ_CHECK(psd[i].max_uw <= 65535u * 10000u);
		FUZZ_CHECK(psd[i].idle_uw <= 65535u * 10000u &&
			   psd[i].active_uw <= 65535u * 10000u);
	}
	const uint8_t *table = in + 4 + 32 * POWER_STATES_MAX;
	apst_decode(dw0, table, &a);
	unsigned npss = in[sizeof(in) - 2] % POWER_STATES_MAX;
	uint8_t ps = (uint8_t)(in[sizeof(in) - 1] % POWER_STATES_MAX);
	struct apst_idle r = apst_first_idle(&a, psd, npss, ps);
	if (r.reaches) {
		FUZZ_CHECK(a.enabled && r.to_ps <= npss && psd[r.to_ps].non_operational);
		FUZZ_CHECK(r.idle_ms > 0 && r.idle_ms <= 32u * 0xffffffu);
	}
	dw0 = apst_encode(&a, t2);
	apst_decode(dw0, t2, &b);
	FUZZ_CHECK(b.enabled == a.enabled);
	for (int i = 0; i < APST_ENTRIES; i++)
		FUZZ_CHECK(b.e[i].itps == a.e[i].itps && b.e[i].itpt_ms == a.e[i].itpt_ms);
	FUZZ_CHECK(power_mgmt_decode(dw0).ps < 32 && power_mgmt_decode(dw0).wh < 8);
	struct hctm h = hctm_decode(dw0);
	FUZZ_CHECK(((uint32_t)h.tmt1_k << 16 | h.tmt2_k) == dw0);
	return 0;
}
