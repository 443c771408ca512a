/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/util/utf8.h"

#define FFFD UTF8_REPLACEMENT

/* Each case names the RFC 3629 rule (§3: the encoding; §4: the valid byte sequences). */
Test(utf8, char_len_follows_rfc3629)
{
	const struct {
		const char *s;
		size_t len; /* 0: invalid */
		const char *rule;
	} cases[] = {
		{"A", 1, "§3: U+0000..U+007F is one byte"},
		{"\xC2\xB0", 2, "§4: C2..DF 80..BF (the degree sign)"},
		{"\xDF\xBF", 2, "§4: U+07FF is the last two-byte character"},
		{"\xC0\xAF", 0, "§4: C0 and C1 would be overlong"},
		{"\xC1\xBF", 0, "§4: C1 would be overlong"},
		{"\xE0\xA0\x80", 3, "§4: E0 A0..BF 80..BF"},
		{"\xE0\x9F\xBF", 0, "§4: E0 80..9F would be overlong"},
		{"\xE2\x82\xAC", 3, "§4: E1..EC 80..BF 80..BF (the euro sign)"},
		{"\xED\x9F\xBF", 3, "§4: ED 80..9F: U+D7FF, below the surrogates"},
		{"\xED\xA0\x80", 0, "§3: U+D800..U+DFFF (surrogates) are not characters"},
		{"\xEF\xBF\xBD", 3, "§4: EE..EF 80..BF 80..BF (U+FFFD)"},
		{"\xF0\x90\x80\x80", 4, "§4: F0 90..BF 80..BF 80..BF"},
		{"\xF0\x8F\xBF\xBF", 0, "§4: F0 80..8F would be overlong"},
		{"\xF4\x8F\xBF\xBF", 4, "§4: F4 80..8F: U+10FFFF, the last character"},
		{"\xF4\x90\x80\x80", 0, "§3: nothing above U+10FFFF"},
		{"\xF5\x80\x80\x80", 0, "§4: F5..FF never appear"},
		{"\xFF", 0, "§4: FF never appears"},
		{"\x80", 0, "§4: a continuation byte leads nothing"},
		{"\xE2\x82", 0, "§4: a character needs all its bytes"},
		{"\xE2\x28\xA1", 0, "§4: the bytes after the first are 80..BF"},
		{"\xF0\x9F\x98\x41", 0, "§4: the fourth byte is 80..BF"},
		{"\xE2\x82\xC0", 0, "§4: the third byte is 80..BF, not C0..FF"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = strlen(cases[i].s);
		cr_expect_eq(utf8_char_len(cases[i].s, n), cases[i].len, "%s: %zu", cases[i].rule,
			     utf8_char_len(cases[i].s, n));
		cr_expect_eq(utf8_valid(cases[i].s, n), cases[i].len == n, "%s", cases[i].rule);
	}
	/* @left bounds the read: a valid character cut by it is not one. */
	cr_expect_eq(utf8_char_len("\xC2\xB0", 1), 0);
	cr_expect_eq(utf8_char_len("\xF0\x9F\x98\x80", 3), 0);
	cr_expect_eq(utf8_char_len("", 0), 0);
}

Test(utf8, cut_never_splits_a_character)
{
	const struct {
		const char *s;
		size_t max, want;
		const char *rule;
	} cases[] = {
		{"abc", 2, 2, "ASCII cuts anywhere"},
		{"abc", 10, 3, "a string shorter than max is whole"},
		{"abc", 3, 3, "a string of exactly max is whole"},
		{"a\xC2\xB0", 2, 1, "the cut falls inside the degree sign: before it"},
		{"a\xC2\xB0", 3, 3, "the cut falls after it: all of it"},
		{"a\xE2\x82\xAC", 3, 1, "inside a three-byte character, after two of its bytes"},
		{"a\xE2\x82\xAC", 2, 1, "inside a three-byte character, after one"},
		{"a\xF0\x9F\x98\x80z", 4, 1, "inside a four-byte character, after three"},
		{"a\xF0\x9F\x98\x80z", 5, 5, "right after a four-byte character"},
		{"\xC2\xB0", 1, 0, "nothing but half a character: nothing"},
		{"", 5, 0, "empty"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(utf8_cut(cases[i].s, cases[i].max), cases[i].want, "%s: %zu",
			     cases[i].rule, utf8_cut(cases[i].s, cases[i].max));
}

Test(utf8, copy_replaces_invalid_bytes_and_cuts_whole_characters)
{
	const struct {
		const char *src;
		size_t size;
		const char *want;
		const char *rule;
	} cases[] = {
		{"temperature 85 \xC2\xB0"
		 "C",
		 64,
		 "temperature 85 \xC2\xB0"
		 "C",
		 "valid text is kept"},
		{"85 \xC2\xB0"
		 "C",
		 5, "85 ", "a cut inside a character leaves all of it out"},
		{"85 \xC2\xB0"
		 "C",
		 6, "85 \xC2\xB0", "a cut after a character keeps it"},
		{"a\xC2"
		 "b",
		 64, "a" FFFD "b", "a lead byte without its continuation: U+FFFD"},
		{"a\x80"
		 "b",
		 64, "a" FFFD "b", "a stray continuation byte: U+FFFD"},
		{"\xC0\xAF", 64, FFFD FFFD, "an overlong form: each byte U+FFFD"},
		{"\xED\xA0\x80", 64, FFFD FFFD FFFD, "a surrogate: each byte U+FFFD"},
		{"\xF4\x90\x80\x80", 64, FFFD FFFD FFFD FFFD, "above U+10FFFF: each byte U+FFFD"},
		{"abc\xE2\x82", 64, "abc", "an incomplete character at the end is a cut: left out"},
		{"abc\xF0\x9F\x98", 64, "abc", "an incomplete four-byte character at the end"},
		{"ab\xFF", 4, "ab", "a U+FFFD that does not fit is left out"},
		{"\xFF\xFF"
		 "ab",
		 6, FFFD, "replacements push the rest out, whole"},
		{"\xFF"
		 "abcdef",
		 6, FFFD "ab", "a replacement pushes the tail out"},
		{"a\xF0\x9F\x98\x80", 4, "a",
		 "a four-byte character that does not fit is left out"},
		{"a\xF0\x9F\x98\x80", 6, "a\xF0\x9F\x98\x80", "one that fits is kept"},
		{"x", 1, "", "room for the NUL only"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[64];
		memset(buf, 'Z', sizeof(buf));
		size_t n = utf8_copy(buf, cases[i].size, cases[i].src);
		cr_expect_str_eq(buf, cases[i].want, "%s", cases[i].rule);
		cr_expect_eq(n, strlen(cases[i].want), "%s", cases[i].rule);
		cr_expect(n < cases[i].size, "%s: overflow", cases[i].rule);
	}
	/* In place. */
	char buf[16] = "a\xC2"
		       "b";
	cr_expect_eq(utf8_copy(buf, sizeof(buf), buf), 5);
	cr_expect_str_eq(buf, "a" FFFD "b");
	cr_expect_eq(utf8_copy(buf, 0, "x"), 0);
}

/*
 * The finding of issue 23 §7: a below_rated message cut at 159 bytes ended in
 * 0xC2, the first byte of "°C". Formatted with utf8_format() it ends before it.
 */
Test(utf8, format_cuts_the_degree_sign_whole)
{
	char msg[160], want[200];
	char pad[155];

	memset(pad, 'x', sizeof(pad));
	pad[154] = '\0';
	/* 154 + " 41 " = 158 bytes: the degree sign's first byte is the 159th. */
	size_t n = utf8_format(msg, sizeof(msg),
			       "%s 41 \xC2\xB0"
			       "C",
			       pad);
	cr_assert_lt(snprintf(want, sizeof(want), "%s 41 ", pad), 160);
	cr_expect_eq(n, 158, "%zu", n);
	cr_expect_str_eq(msg, want);
	json_t *j = json_string(msg);
	cr_expect_not_null(j);
	json_decref(j);
	/* snprintf() cuts there, and jansson refuses what it leaves: the case is real. */
	cr_expect_gt(snprintf(msg, sizeof(msg),
			      "%s 41 \xC2\xB0"
			      "C",
			      pad),
		     159);
	cr_expect_eq((unsigned char)msg[158], 0xC2);
	cr_expect_null(json_string(msg));
}

/*
 * Against jansson's own check: utf8_valid() agrees with json_stringn() on every
 * one- and two-byte string and on sampled three- and four-byte ones, and
 * utf8_copy() makes each of them a string jansson takes.
 */
Test(utf8, agrees_with_jansson)
{
	unsigned char s[5];
	char out[32];
	uint32_t x = 2463534242u;

	for (unsigned a = 1; a < 256; a++)
		for (unsigned b = 0; b < 256; b++) {
			s[0] = (unsigned char)a;
			s[1] = (unsigned char)b;
			size_t len = b ? 2 : 1;
			json_t *j = json_stringn((const char *)s, len);
			cr_assert_eq(utf8_valid((const char *)s, len), j != NULL, "%02x %02x", a,
				     b);
			json_decref(j);
			s[len] = '\0';
			utf8_copy(out, sizeof(out), (const char *)s);
			j = json_string(out);
			cr_assert_not_null(j, "%02x %02x", a, b);
			json_decref(j);
		}
	for (int i = 0; i < 200000; i++) {
		for (int k = 0; k < 4; k++) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5; /* xorshift32 */
			/* mostly bytes of E0..F4 and 80..BF: where the rules live */
			s[k] = (unsigned char)(k == 0 ? 0xE0 + x % 0x1F : 0x70 + x % 0x60);
		}
		json_t *j = json_stringn((const char *)s, 4);
		cr_assert_eq(utf8_valid((const char *)s, 4), j != NULL, "%02x %02x %02x %02x", s[0],
			     s[1], s[2], s[3]);
		json_decref(j);
		s[4] = '\0';
		utf8_copy(out, sizeof(out), (const char *)s);
		j = json_string(out);
		cr_assert_not_null(j, "%02x %02x %02x %02x", s[0], s[1], s[2], s[3]);
		json_decref(j);
	}
}
