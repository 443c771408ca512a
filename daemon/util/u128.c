/* SPDX-License-Identifier: MIT */
/*
 * Exact 128-bit counters: little-endian read and write, decimal form and a
 * saturating multiply. See u128.h.
 */
#include <errno.h>
#include <string.h>

#include "nvmond/util/u128.h"

u128 u128_from_le(const uint8_t p[16])
{
	u128 v = 0;

	for (int i = 15; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

void u128_to_le(u128 v, uint8_t p[16])
{
	for (int i = 0; i < 16; i++) {
		p[i] = (uint8_t)(v & 0xff);
		v >>= 8;
	}
}

char *u128_to_dec(u128 v, char buf[U128_DEC_MAX])
{
	char tmp[U128_DEC_MAX];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return buf;
}

int u128_from_dec(const char *s, u128 *ret)
{
	u128 v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		unsigned d = (unsigned)(*s - '0');
		if (v > (U128_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*ret = v;
	return 0;
}

u128 u128_mul_sat(u128 a, u128 b)
{
	if (a != 0 && b > U128_MAX / a)
		return U128_MAX;
	return a * b;
}
