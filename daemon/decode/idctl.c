/* SPDX-License-Identifier: MIT */
/*
 * Identify Controller: the fields nvmond uses, decoded from (and, for demo
 * drives and tests, encoded into) the raw 4096-byte structure. Pure.
 */
#include <string.h>

#include "nvmond/decode/idctl.h"
#include "nvmond/util/le.h"

/* Byte offsets in Identify Controller (NVMe 2.0, Figure 275). */
enum {
	OFF_VID = 0,
	OFF_SN = 4,
	LEN_SN = 20,
	OFF_MN = 24,
	LEN_MN = 40,
	OFF_FR = 64,
	LEN_FR = 8,
	OFF_CMIC = 76,
	OFF_OACS = 256,
	OFF_LPA = 261,
	OFF_ELPE = 262,
	OFF_NPSS = 263,
	OFF_APSTA = 265,
	OFF_WCTEMP = 266,
	OFF_CCTEMP = 268,
	OFF_TNVMCAP = 280,
	OFF_EDSTT = 316,
	OFF_HCTMA = 322,
	OFF_MNTMT = 324,
	OFF_MXTMT = 326,
	OFF_PELS = 352,
	OFF_NN = 516,
	OFF_PSD0 = 2048,
	LEN_PSD = 32,
};

_Static_assert(OFF_PSD0 + POWER_STATES_MAX * LEN_PSD == 3072, "PSD31 ends at byte 3071");
_Static_assert(sizeof(((struct idctl *)0)->serial) == LEN_SN + 1, "serial buffer");
_Static_assert(sizeof(((struct idctl *)0)->model) == LEN_MN + 1, "model buffer");
_Static_assert(sizeof(((struct idctl *)0)->firmware) == LEN_FR + 1, "firmware buffer");

void idctl_str_clean(char *dst, const uint8_t *src, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		uint8_t c = src[i];
		dst[i] = (c >= 0x20 && c < 0x7f) ? (char)c : (c == 0 ? ' ' : '?');
	}
	n = len;
	while (n > 0 && dst[n - 1] == ' ')
		n--;
	dst[n] = '\0';
	/* Leading blanks are padding too (some drives right-align). */
	size_t lead = strspn(dst, " ");
	if (lead)
		memmove(dst, dst + lead, n - lead + 1);
}

static void field_put(uint8_t *dst, const char *src, size_t len)
{
	size_t n = strnlen(src, len);

	memset(dst, ' ', len);
	memcpy(dst, src, n);
}

int idctl_decode(const uint8_t page[IDCTL_SIZE], struct idctl *ret)
{
	struct idctl id = {
		.vid = (uint16_t)le_get(page + OFF_VID, 2),
		.wctemp_k = (uint16_t)le_get(page + OFF_WCTEMP, 2),
		.cctemp_k = (uint16_t)le_get(page + OFF_CCTEMP, 2),
		.tnvmcap = u128_from_le(page + OFF_TNVMCAP),
		.nn = (uint32_t)le_get(page + OFF_NN, 4),
		.oacs = (uint16_t)le_get(page + OFF_OACS, 2),
		.elpe = page[OFF_ELPE],
		.lpa = page[OFF_LPA],
		.edstt = (uint16_t)le_get(page + OFF_EDSTT, 2),
		.cmic = page[OFF_CMIC],
		.npss = page[OFF_NPSS],
		.apsta = page[OFF_APSTA],
		.hctma = (uint16_t)le_get(page + OFF_HCTMA, 2),
		.mntmt = (uint16_t)le_get(page + OFF_MNTMT, 2),
		.mxtmt = (uint16_t)le_get(page + OFF_MXTMT, 2),
		.pels = (uint32_t)le_get(page + OFF_PELS, 4),
	};

	idctl_str_clean(id.serial, page + OFF_SN, LEN_SN);
	idctl_str_clean(id.model, page + OFF_MN, LEN_MN);
	idctl_str_clean(id.firmware, page + OFF_FR, LEN_FR);
	for (int i = 0; i < POWER_STATES_MAX; i++)
		power_psd_decode(page + OFF_PSD0 + LEN_PSD * i, &id.ps[i]);
	*ret = id;
	return 0;
}

void idctl_encode(const struct idctl *id, uint8_t page[IDCTL_SIZE])
{
	memset(page, 0, IDCTL_SIZE);
	le_put(page + OFF_VID, id->vid, 2);
	field_put(page + OFF_SN, id->serial, LEN_SN);
	field_put(page + OFF_MN, id->model, LEN_MN);
	field_put(page + OFF_FR, id->firmware, LEN_FR);
	le_put(page + OFF_WCTEMP, id->wctemp_k, 2);
	le_put(page + OFF_CCTEMP, id->cctemp_k, 2);
	u128_to_le(id->tnvmcap, page + OFF_TNVMCAP);
	le_put(page + OFF_NN, id->nn, 4);
	le_put(page + OFF_OACS, id->oacs, 2);
	page[OFF_ELPE] = id->elpe;
	page[OFF_LPA] = id->lpa;
	le_put(page + OFF_EDSTT, id->edstt, 2);
	page[OFF_CMIC] = id->cmic;
	page[OFF_NPSS] = id->npss;
	page[OFF_APSTA] = id->apsta;
	le_put(page + OFF_HCTMA, id->hctma, 2);
	le_put(page + OFF_MNTMT, id->mntmt, 2);
	le_put(page + OFF_MXTMT, id->mxtmt, 2);
	le_put(page + OFF_PELS, id->pels, 4);
	for (int i = 0; i < POWER_STATES_MAX; i++)
		power_psd_encode(&id->ps[i], page + OFF_PSD0 + LEN_PSD * i);
}
