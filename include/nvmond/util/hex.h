/* SPDX-License-Identifier: MIT */
/* Hexadecimal digits: a percent escape's (RFC 3986 2.1), a machine id's (machine-id(5)). */
#ifndef NVMOND_UTIL_HEX_H
#define NVMOND_UTIL_HEX_H

/**
 * hex_digit() - The value of the hexadecimal digit @c, either case.
 * Return: 0 … 15, or -1 when @c is not a hexadecimal digit.
 */
static inline int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
