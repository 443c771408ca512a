/* SPDX-License-Identifier: MIT */
/*
 * The OCP SMART / Health Information Extended log (C0h): decoded from and
 * encoded into its raw 512 bytes, after its GUID is checked. See ocp.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/decode/ocp.h"
#include "nvmond/util/le.h"

/*
 * Byte offsets in the page (OCP Datacenter NVMe SSD Specification 2.0,
 * "SMART / Health Information Extended (Log Identifier C0h)"): each field's
 * first byte; widths next to it.
 */
enum {
	OFF_PMUW = 0,	      /* 16 bytes */
	OFF_PMUR = 16,	      /* 16 */
	OFF_BUNB_RAW = 32,    /* 6 */
	OFF_BUNB_NORM = 38,   /* 2 */
	OFF_BSNB_RAW = 40,    /* 6 */
	OFF_BSNB_NORM = 46,   /* 2 */
	OFF_XOR = 48,	      /* 8 */
	OFF_UREC = 56,	      /* 8 */
	OFF_SEEC = 64,	      /* 8 */
	OFF_E2E_DET = 72,     /* 4 */
	OFF_E2E_COR = 76,     /* 4 */
	OFF_SDPU = 80,	      /* 1 */
	OFF_TT_COUNT = 96,    /* 1 */
	OFF_TT_STATUS = 97,   /* 1 */
	OFF_VER_ERRATA = 98,  /* 1 */
	OFF_VER_POINT = 99,   /* 2 */
	OFF_VER_MINOR = 101,  /* 2 */
	OFF_VER_MAJOR = 103,  /* 1 */
	OFF_PCIE_CE = 104,    /* 8 */
	OFF_ICS = 112,	      /* 4 */
	OFF_PFB = 120,	      /* 1 */
	OFF_CAP_HEALTH = 128, /* 2 */
	OFF_LPV = 494,	      /* 2 */
	OFF_GUID = 496,	      /* 16 */
};

_Static_assert(OFF_GUID + OCP_GUID_LEN == OCP_LOG_SIZE, "the GUID ends the page");

const uint8_t ocp_smart_guid[OCP_GUID_LEN] = {0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4,
					      0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5, 0xAF};

/* A little-endian unsigned field of @n bytes (n <= 8). */

bool ocp_guid_ok(const uint8_t page[OCP_LOG_SIZE])
{
	return memcmp(page + OFF_GUID, ocp_smart_guid, OCP_GUID_LEN) == 0;
}

int ocp_decode(const uint8_t page[OCP_LOG_SIZE], struct ocp_log *ret)
{
	if (!ocp_guid_ok(page))
		return -ENOMSG;
	*ret = (struct ocp_log){
		.phys_written_bytes = u128_from_le(page + OFF_PMUW),
		.phys_read_bytes = u128_from_le(page + OFF_PMUR),
		.bad_user_blocks = le_get(page + OFF_BUNB_RAW, 6),
		.bad_user_norm = (uint16_t)le_get(page + OFF_BUNB_NORM, 2),
		.bad_system_blocks = le_get(page + OFF_BSNB_RAW, 6),
		.bad_system_norm = (uint16_t)le_get(page + OFF_BSNB_NORM, 2),
		.xor_recoveries = le_get(page + OFF_XOR, 8),
		.uncorrectable_reads = le_get(page + OFF_UREC, 8),
		.soft_ecc_errors = le_get(page + OFF_SEEC, 8),
		.e2e_detected = (uint32_t)le_get(page + OFF_E2E_DET, 4),
		.e2e_corrected = (uint32_t)le_get(page + OFF_E2E_COR, 4),
		.system_data_used_pct = page[OFF_SDPU],
		.throttle_events = page[OFF_TT_COUNT],
		.throttle_status = page[OFF_TT_STATUS],
		.spec_errata = page[OFF_VER_ERRATA],
		.spec_point = (uint16_t)le_get(page + OFF_VER_POINT, 2),
		.spec_minor = (uint16_t)le_get(page + OFF_VER_MINOR, 2),
		.spec_major = page[OFF_VER_MAJOR],
		.pcie_correctable = le_get(page + OFF_PCIE_CE, 8),
		.incomplete_shutdowns = (uint32_t)le_get(page + OFF_ICS, 4),
		.free_blocks_pct = page[OFF_PFB],
		.capacitor_health = (uint16_t)le_get(page + OFF_CAP_HEALTH, 2),
		.version = (uint16_t)le_get(page + OFF_LPV, 2),
	};
	return 0;
}

void ocp_encode(const struct ocp_log *l, uint8_t page[OCP_LOG_SIZE])
{
	memset(page, 0, OCP_LOG_SIZE);
	u128_to_le(l->phys_written_bytes, page + OFF_PMUW);
	u128_to_le(l->phys_read_bytes, page + OFF_PMUR);
	le_put(page + OFF_BUNB_RAW, l->bad_user_blocks, 6);
	le_put(page + OFF_BUNB_NORM, l->bad_user_norm, 2);
	le_put(page + OFF_BSNB_RAW, l->bad_system_blocks, 6);
	le_put(page + OFF_BSNB_NORM, l->bad_system_norm, 2);
	le_put(page + OFF_XOR, l->xor_recoveries, 8);
	le_put(page + OFF_UREC, l->uncorrectable_reads, 8);
	le_put(page + OFF_SEEC, l->soft_ecc_errors, 8);
	le_put(page + OFF_E2E_DET, l->e2e_detected, 4);
	le_put(page + OFF_E2E_COR, l->e2e_corrected, 4);
	page[OFF_SDPU] = l->system_data_used_pct;
	page[OFF_TT_COUNT] = l->throttle_events;
	page[OFF_TT_STATUS] = l->throttle_status;
	page[OFF_VER_ERRATA] = l->spec_errata;
	le_put(page + OFF_VER_POINT, l->spec_point, 2);
	le_put(page + OFF_VER_MINOR, l->spec_minor, 2);
	page[OFF_VER_MAJOR] = l->spec_major;
	le_put(page + OFF_PCIE_CE, l->pcie_correctable, 8);
	le_put(page + OFF_ICS, l->incomplete_shutdowns, 4);
	page[OFF_PFB] = l->free_blocks_pct;
	le_put(page + OFF_CAP_HEALTH, l->capacitor_health, 2);
	le_put(page + OFF_LPV, l->version, 2);
	memcpy(page + OFF_GUID, ocp_smart_guid, OCP_GUID_LEN);
}

int64_t ocp_write_amp_x100(u128 phys_bytes, u128 host_units)
{
	u128 host = u128_mul_sat(host_units, BYTES_PER_UNIT), q;

	if (host == 0)
		return -1;
	/* phys * 100 / host, rounded: exact unless phys * 100 overflows (then
	 * the quotient of the halves is close enough to saturate anyway). */
	if (phys_bytes > U128_MAX / 200)
		q = phys_bytes / host * 100;
	else
		q = (phys_bytes * 200 / host + 1) / 2;
	return q > INT64_MAX ? INT64_MAX : (int64_t)q;
}

char *ocp_version_str(const struct ocp_log *l, char *buf, size_t len)
{
	if (!l->spec_major && !l->spec_minor && !l->spec_point && !l->spec_errata)
		snprintf(buf, len, "%s", "");
	else if (l->spec_errata)
		snprintf(buf, len, "%u.%u.%u errata %u", l->spec_major, l->spec_minor,
			 l->spec_point, l->spec_errata);
	else if (l->spec_point)
		snprintf(buf, len, "%u.%u.%u", l->spec_major, l->spec_minor, l->spec_point);
	else
		snprintf(buf, len, "%u.%u", l->spec_major, l->spec_minor);
	return buf;
}
