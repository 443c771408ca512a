/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

/*
 * Identify Namespace (CNS 00h, 4096 bytes; NVMe NVM Command Set 1.0 Figure 97,
 * Base 1.4 Figure 245): a namespace's size, capacity and utilization in
 * logical blocks, and its block size. Pure.
 */

#define IDNS_SIZE 4096

struct idns {
	uint64_t nsze, ncap, nuse; /* logical blocks: size, capacity, utilization */
	uint32_t lba_size;	   /* bytes of the formatted LBA format (0 = unknown) */
	uint8_t nmic;		   /* Namespace Multi-path I/O and Sharing Capabilities */
	uint32_t anagrpid;	   /* ANA Group Identifier (0 = none) */
};

/**
 * idns_decode() - Decode the raw structure. The LBA format in use is FLBAS
 * bits 3:0 with bits 6:5 above them (more than 16 formats); its LBADS is the
 * block size's power of two (below 9 or above 31: unknown, 0).
 * Return: 0.
 */
int idns_decode(const uint8_t page[IDNS_SIZE], struct idns *ret);

/** idns_encode() - The inverse for demo drives and tests (one LBA format, index 0). */
void idns_encode(const struct idns *ns, uint8_t page[IDNS_SIZE]);
