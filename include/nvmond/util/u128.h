/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The NVMe health log counts in 128-bit little-endian integers. They stay exact
 * here: never converted to double.
 */
typedef unsigned __int128 u128;

#define U128_MAX       (~(u128)0)
#define U128_DEC_MAX   40      /* 39 digits + NUL */
#define BYTES_PER_UNIT 512000u /* one NVMe "data unit" = 1000 * 512 bytes */

/**
 * u128_from_le() - Read a 16-byte little-endian counter.
 * Return: the value.
 */
u128 u128_from_le(const uint8_t p[16]);

/**
 * u128_to_le() - Write a 16-byte little-endian counter.
 */
void u128_to_le(u128 v, uint8_t p[16]);

/**
 * u128_to_dec() - Format as decimal into @buf (at least U128_DEC_MAX bytes).
 * Return: @buf.
 */
char *u128_to_dec(u128 v, char buf[U128_DEC_MAX]);

/**
 * u128_from_dec() - Parse a decimal string (digits only, no sign, no blanks).
 * Return: 0, or -EINVAL on a non-digit or empty string, -ERANGE on overflow.
 */
int u128_from_dec(const char *s, u128 *ret);

/**
 * u128_mul_sat() - Multiply, saturating at U128_MAX.
 * Return: a * b, or U128_MAX when it would overflow.
 */
u128 u128_mul_sat(u128 a, u128 b);
