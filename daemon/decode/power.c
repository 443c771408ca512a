/* SPDX-License-Identifier: MIT */
/*
 * Power state descriptors, Power Management, APST and Host Controlled Thermal
 * Management decoded from their raw bytes and dwords. See power.h.
 */
#include <string.h>

#include "nvmond/decode/power.h"
#include "nvmond/util/le.h"

/* Power State Descriptor (NVMe Base 2.0 Figure 276). */
enum {
	PSD_MP = 0,	   /* 2: Maximum Power */
	PSD_FLAGS = 3,	   /* bit 0 MXPS, bit 1 NOPS */
	PSD_MXPS = 1 << 0, /* MP in 0.0001 W instead of 0.01 W */
	PSD_NOPS = 1 << 1, /* non-operational state */
	PSD_ENLAT = 4,	   /* 4: entry latency, µs */
	PSD_EXLAT = 8,	   /* 4: exit latency, µs */
	PSD_RRT = 12,	   /* bits 4:0 */
	PSD_RRL = 13,
	PSD_RWT = 14,
	PSD_RWL = 15,
	PSD_IDLP = 16,	  /* 2 */
	PSD_IPS = 18,	  /* bits 7:6 */
	PSD_ACTP = 20,	  /* 2 */
	PSD_APW_APS = 22, /* bits 2:0 APW, bits 7:6 APS */
	PSD_LAT_MASK = 0x1f,
	SCALE_SHIFT = 6,
};

/* Power Management (Feature 02h): Dword 0 bits 4:0 PS, 7:5 WH. */
enum { PM_PS_MASK = 0x1f, PM_WH_SHIFT = 5, PM_WH_MASK = 0x7 };
/* APST (Feature 0Ch): Dword 0 bit 0 APSTE; entries bits 7:3 ITPS, 31:8 ITPT. */
enum { APST_ENABLE = 1, ITPS_SHIFT = 3, ITPS_MASK = 0x1f, ITPT_SHIFT = 8, APST_ENTRY_LEN = 8 };

/* IDLP / ACTP scaled by their 2-bit scale: 01b 0.0001 W, 10b 0.01 W, else unknown. */
static uint32_t scaled_uw(uint32_t v, unsigned scale)
{
	return scale == 1 ? v * 100 : scale == 2 ? v * 10000 : 0;
}

void power_psd_decode(const uint8_t p[32], struct power_state_desc *ret)
{
	uint32_t mp = (uint32_t)le_get(p + PSD_MP, 2);

	*ret = (struct power_state_desc){
		.max_uw = p[PSD_FLAGS] & PSD_MXPS ? mp * 100 : mp * 10000,
		.non_operational = p[PSD_FLAGS] & PSD_NOPS,
		.enlat_us = (uint32_t)le_get(p + PSD_ENLAT, 4),
		.exlat_us = (uint32_t)le_get(p + PSD_EXLAT, 4),
		.rrt = p[PSD_RRT] & PSD_LAT_MASK,
		.rrl = p[PSD_RRL] & PSD_LAT_MASK,
		.rwt = p[PSD_RWT] & PSD_LAT_MASK,
		.rwl = p[PSD_RWL] & PSD_LAT_MASK,
		.idle_uw = scaled_uw((uint32_t)le_get(p + PSD_IDLP, 2), p[PSD_IPS] >> SCALE_SHIFT),
		.active_uw =
			scaled_uw((uint32_t)le_get(p + PSD_ACTP, 2), p[PSD_APW_APS] >> SCALE_SHIFT),
	};
}

/*
 * A power in µW into IDLP or ACTP and its scale (bits 7:6 of @scale): 0.0001 W where
 * it fits the 16 bits, else 0.01 W (at most 655.35 W), so that decoding gives back
 * what it decoded (an encoder that wrapped the 16 bits turned 163.84 W into 0).
 */
static void scaled_put(uint8_t *field, uint8_t *scale, uint32_t uw)
{
	if (uw / 100 == 0)
		return; /* nothing to say: no scale, "not reported" */
	if (uw / 100 <= 0xffff) {
		le_put(field, uw / 100, 2);
		*scale = 1 << SCALE_SHIFT;
	} else {
		le_put(field, uw / 10000 > 0xffff ? 0xffff : uw / 10000, 2);
		*scale = 2 << SCALE_SHIFT;
	}
}

void power_psd_encode(const struct power_state_desc *d, uint8_t p[32])
{
	memset(p, 0, 32);
	/* MP in 0.01 W, or in 0.0001 W (MXPS) where that is exact and fits. */
	if (d->max_uw % 10000 && d->max_uw / 100 <= 0xffff) {
		le_put(p + PSD_MP, d->max_uw / 100, 2);
		p[PSD_FLAGS] = PSD_MXPS;
	} else {
		le_put(p + PSD_MP, d->max_uw / 10000 > 0xffff ? 0xffff : d->max_uw / 10000, 2);
	}
	p[PSD_FLAGS] |= d->non_operational ? PSD_NOPS : 0;
	le_put(p + PSD_ENLAT, d->enlat_us, 4);
	le_put(p + PSD_EXLAT, d->exlat_us, 4);
	p[PSD_RRT] = d->rrt;
	p[PSD_RRL] = d->rrl;
	p[PSD_RWT] = d->rwt;
	p[PSD_RWL] = d->rwl;
	scaled_put(p + PSD_IDLP, p + PSD_IPS, d->idle_uw);
	scaled_put(p + PSD_ACTP, p + PSD_APW_APS, d->active_uw);
}

struct power_mgmt power_mgmt_decode(uint32_t dw0)
{
	return (struct power_mgmt){.ps = dw0 & PM_PS_MASK, .wh = (dw0 >> PM_WH_SHIFT) & PM_WH_MASK};
}

void apst_decode(uint32_t dw0, const uint8_t table[APST_TABLE_SIZE], struct apst *ret)
{
	struct apst a = {.enabled = dw0 & APST_ENABLE};

	for (int i = 0; i < APST_ENTRIES; i++) {
		uint32_t v = (uint32_t)le_get(table + APST_ENTRY_LEN * i, 4);
		a.e[i] = (struct apst_entry){.itps = (v >> ITPS_SHIFT) & ITPS_MASK,
					     .itpt_ms = v >> ITPT_SHIFT};
	}
	*ret = a;
}

uint32_t apst_encode(const struct apst *a, uint8_t table[APST_TABLE_SIZE])
{
	memset(table, 0, APST_TABLE_SIZE);
	for (int i = 0; i < APST_ENTRIES; i++)
		le_put(table + APST_ENTRY_LEN * i,
		       (uint32_t)(a->e[i].itps & ITPS_MASK) << ITPS_SHIFT |
			       (a->e[i].itpt_ms & 0xffffff) << ITPT_SHIFT,
		       4);
	return a->enabled ? APST_ENABLE : 0;
}

struct apst_idle apst_first_idle(const struct apst *a, const struct power_state_desc *psd,
				 unsigned npss, uint8_t ps)
{
	struct apst_idle r = {0};
	uint32_t total = 0;

	if (!a->enabled || npss >= POWER_STATES_MAX)
		return r;
	if (ps <= npss && psd[ps].non_operational)
		ps = 0;
	uint8_t from = ps;
	for (unsigned step = 0; step <= npss && ps <= npss; step++) {
		const struct apst_entry *e = &a->e[ps];
		if (e->itpt_ms == 0 || e->itps > npss || e->itps == ps)
			return r; /* no transition from here */
		total += e->itpt_ms;
		ps = e->itps;
		if (psd[ps].non_operational) {
			r = (struct apst_idle){
				.reaches = true, .idle_ms = total, .from_ps = from, .to_ps = ps};
			return r;
		}
	}
	return r;
}

struct hctm hctm_decode(uint32_t dw0)
{
	return (struct hctm){.tmt1_k = (uint16_t)(dw0 >> 16), .tmt2_k = (uint16_t)dw0};
}
