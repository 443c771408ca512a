/* SPDX-License-Identifier: MIT */
/* UTF-8 cut at character boundaries and made valid (utf8.h). Pure. */
#include <stdio.h>
#include <string.h>

#include "nvmond/util/utf8.h"

/* RFC 3629 §4: how many bytes the character led by @c has; 0 for a byte that leads none. */
static size_t lead_len(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		return 2;
	if (c >= 0xE0 && c <= 0xEF)
		return 3;
	if (c >= 0xF0 && c <= 0xF4)
		return 4;
	return 0; /* a continuation byte, C0/C1 (overlong) or F5..FF (above U+10FFFF) */
}

/*
 * Whether @b may follow the lead @lead as its second byte (RFC 3629 §4's
 * UTF8-2/3/4): E0 and F0 would be overlong below A0 / 90, ED is a surrogate from
 * A0, F4 is above U+10FFFF from 90.
 */
static bool second_ok(unsigned char lead, unsigned char b)
{
	unsigned char lo = 0x80, hi = 0xBF;

	if (lead == 0xE0)
		lo = 0xA0;
	else if (lead == 0xED)
		hi = 0x9F;
	else if (lead == 0xF0)
		lo = 0x90;
	else if (lead == 0xF4)
		hi = 0x8F;
	return b >= lo && b <= hi;
}

/* How many of the @left bytes at @s agree with one valid character (at most its length). */
static size_t prefix_len(const unsigned char *s, size_t left, size_t *ret_need)
{
	size_t need = left ? lead_len(s[0]) : 0, k;

	*ret_need = need;
	if (need == 0)
		return 0;
	for (k = 1; k < need && k < left; k++)
		if (k == 1 ? !second_ok(s[0], s[1]) : (s[k] & 0xC0) != 0x80)
			break;
	return k;
}

size_t utf8_char_len(const char *s, size_t left)
{
	size_t need, k = prefix_len((const unsigned char *)s, left, &need);

	return need && k == need ? need : 0;
}

bool utf8_valid(const char *s, size_t len)
{
	for (size_t i = 0, k; i < len; i += k)
		if (!(k = utf8_char_len(s + i, len - i)))
			return false;
	return true;
}

size_t utf8_cut(const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	if (n < max || s[n] == '\0')
		return n; /* the whole string fits */
	/* s[n] is the first byte left out: inside a character, cut before its lead. */
	for (int k = 0; k < 3 && n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80; k++)
		n--;
	return n;
}

/* The string in @s (a buffer of @size bytes) made valid in place, as utf8_copy() says. */
static size_t fix(char *s, size_t size)
{
	size_t len = strnlen(s, size - 1), i = 0, need;

	while (i < len) {
		size_t k = prefix_len((const unsigned char *)s + i, len - i, &need);
		if (need && k == need) {
			i += k;
			continue;
		}
		if (need && k == len - i)
			break; /* an incomplete character at the end: a cut */
		/* One byte that leads no valid character: U+FFFD, if it fits whole. */
		if (i + 3 > size - 1)
			break;
		size_t newlen = len + 2 < size - 1 ? len + 2 : size - 1;
		memmove(s + i + 3, s + i + 1, newlen - (i + 3));
		memcpy(s + i, UTF8_REPLACEMENT, 3);
		len = newlen;
		i += 3;
	}
	s[i] = '\0';
	return i;
}

size_t utf8_copy(char *dst, size_t size, const char *src)
{
	if (size == 0)
		return 0;
	if (dst != src) {
		size_t n = strnlen(src, size - 1);
		memmove(dst, src, n);
		dst[n] = '\0';
	}
	return fix(dst, size);
}

size_t utf8_vformat(char *dst, size_t size, const char *fmt, va_list ap)
{
	if (size == 0)
		return 0;
	if (vsnprintf(dst, size, fmt, ap) < 0)
		dst[0] = '\0';
	return fix(dst, size);
}

size_t utf8_format(char *dst, size_t size, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = utf8_vformat(dst, size, fmt, ap);
	va_end(ap);
	return n;
}
