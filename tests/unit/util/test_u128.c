/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "nvmond/util/u128.h"

Test(u128, decimal_roundtrip)
{
	const struct {
		const char *dec;
		u128 v;
	} cases[] = {
		{"0", 0},
		{"1", 1},
		{"9223372036854775807", (u128)INT64_MAX},
		{"9223372036854775808", (u128)INT64_MAX + 1},
		{"18446744073709551615", (u128)UINT64_MAX},
		{"18446744073709551616", (u128)UINT64_MAX + 1},
		{"340282366920938463463374607431768211455", U128_MAX},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[U128_DEC_MAX];
		u128 v = 7;

		cr_expect_str_eq(u128_to_dec(cases[i].v, buf), cases[i].dec);
		cr_expect_eq(u128_from_dec(cases[i].dec, &v), 0, "%s", cases[i].dec);
		cr_expect(v == cases[i].v, "%s", cases[i].dec);
	}
}

Test(u128, rejects_bad_decimal)
{
	const char *bad[] = {"", "-1", "+1", " 1", "1 ", "0x10", "12a", "1.5"};
	u128 v = 42;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(u128_from_dec(bad[i], &v), -EINVAL, "'%s'", bad[i]);
	cr_expect_eq(u128_from_dec("340282366920938463463374607431768211456", &v), -ERANGE);
	cr_expect_eq(u128_from_dec("999999999999999999999999999999999999999", &v), -ERANGE);
	cr_expect(v == 42, "untouched on failure");
}

Test(u128, little_endian)
{
	uint8_t p[16], q[16];

	for (int i = 0; i < 16; i++)
		p[i] = (uint8_t)(i + 1);
	u128 v = u128_from_le(p);
	cr_expect_eq((uint64_t)v, 0x0807060504030201ULL);
	cr_expect_eq((uint64_t)(v >> 64), 0x100f0e0d0c0b0a09ULL);
	u128_to_le(v, q);
	cr_expect_arr_eq(p, q, 16);
}

Test(u128, multiply_saturates)
{
	cr_expect(u128_mul_sat(0, U128_MAX) == 0);
	cr_expect(u128_mul_sat(U128_MAX, 1) == U128_MAX);
	cr_expect(u128_mul_sat(U128_MAX, 2) == U128_MAX);
	cr_expect(u128_mul_sat((u128)1 << 64, (u128)1 << 63) == (u128)1 << 127);
	cr_expect(u128_mul_sat((u128)1 << 64, (u128)1 << 64) == U128_MAX);
}
