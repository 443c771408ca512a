/* SPDX-License-Identifier: MIT */
/* Identify Namespace: size, capacity, utilization, block size. See idns.h. */
#include <string.h>

#include "nvmond/decode/idns.h"
#include "nvmond/util/le.h"

/* Byte offsets (NVM Command Set 1.0 Figure 97, "Identify Namespace"). */
enum {
	OFF_NSZE = 0,  /* 8 */
	OFF_NCAP = 8,  /* 8 */
	OFF_NUSE = 16, /* 8 */
	OFF_NLBAF = 25,
	OFF_FLBAS = 26,
	OFF_NMIC = 30,
	OFF_ANAGRPID = 92, /* 4 */
	OFF_LBAF0 = 128,   /* 4 bytes each: bits 23:16 LBADS */
	LBAF_LEN = 4,
	LBAF_MAX = 64,
	FLBAS_LO_MASK = 0x0f,
	FLBAS_HI_SHIFT = 5,
	FLBAS_HI_MASK = 0x3,
	LBADS_BYTE = 2,
};

int idns_decode(const uint8_t page[IDNS_SIZE], struct idns *ret)
{
	unsigned fmt = (page[OFF_FLBAS] & FLBAS_LO_MASK) |
		       ((page[OFF_FLBAS] >> FLBAS_HI_SHIFT) & FLBAS_HI_MASK) << 4;
	unsigned lbads = fmt < LBAF_MAX ? page[OFF_LBAF0 + LBAF_LEN * fmt + LBADS_BYTE] : 0;

	*ret = (struct idns){
		.nsze = le_get(page + OFF_NSZE, 8),
		.ncap = le_get(page + OFF_NCAP, 8),
		.nuse = le_get(page + OFF_NUSE, 8),
		.lba_size = lbads >= 9 && lbads <= 31 ? 1u << lbads : 0,
		.nmic = page[OFF_NMIC],
		.anagrpid = (uint32_t)le_get(page + OFF_ANAGRPID, 4),
	};
	return 0;
}

void idns_encode(const struct idns *ns, uint8_t page[IDNS_SIZE])
{
	unsigned lbads = 0;

	memset(page, 0, IDNS_SIZE);
	le_put(page + OFF_NSZE, ns->nsze, 8);
	le_put(page + OFF_NCAP, ns->ncap, 8);
	le_put(page + OFF_NUSE, ns->nuse, 8);
	while (lbads < 31 && (1u << lbads) < ns->lba_size)
		lbads++;
	page[OFF_LBAF0 + LBADS_BYTE] = (uint8_t)lbads;
	page[OFF_NMIC] = ns->nmic;
	le_put(page + OFF_ANAGRPID, ns->anagrpid, 4);
}
