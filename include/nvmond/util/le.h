/* SPDX-License-Identifier: MIT */
/*
 * Little-endian fields of the pages NVMe drives answer (every multi-byte field of
 * a log page or an Identify structure is little-endian: NVMe Base 2.0 §1.4.1).
 */
#ifndef NVMOND_UTIL_LE_H
#define NVMOND_UTIL_LE_H

#include <stdint.h>

/**
 * le_get() - The @n-byte little-endian value at @p (@n 1 … 8).
 * Return: the value.
 */
static inline uint64_t le_get(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/** le_put() - Write @v's low @n bytes at @p, little-endian (@n 1 … 8). */
static inline void le_put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

#endif
