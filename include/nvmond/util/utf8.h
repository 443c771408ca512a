/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Text that leaves nvmond as JSON (the API, the JSON sinks, the outbox) must be
 * valid UTF-8: jansson refuses anything else, and a refused string used to drop
 * the whole alert. These cut text at character boundaries and make any bytes
 * from outside (a drive's strings, an old database row) valid. Pure.
 *
 * Valid is RFC 3629 §3-4: one to four bytes, no overlong form, no surrogate
 * (U+D800..U+DFFF), nothing above U+10FFFF; what jansson checks too.
 */

/* U+FFFD REPLACEMENT CHARACTER, what an invalid byte becomes. */
#define UTF8_REPLACEMENT "\xEF\xBF\xBD"

/**
 * utf8_char_len() - The length of the valid character that starts @s, of which
 * @left bytes may be read.
 * Return: 1 to 4; 0 when @s does not start a valid character within @left bytes.
 */
size_t utf8_char_len(const char *s, size_t left);

/**
 * utf8_valid() - Whether the @len bytes at @s are valid UTF-8 (a NUL byte is
 * valid here: C strings end before it).
 */
bool utf8_valid(const char *s, size_t len);

/**
 * utf8_cut() - The length of the longest prefix of the string @s that is at
 * most @max bytes and does not end inside a character: what "%.*s" may print of
 * a valid string without splitting a character.
 * Return: a length <= @max and <= strlen(@s).
 */
size_t utf8_cut(const char *s, size_t max);

/**
 * utf8_copy() - The string @src into @dst (@size bytes, with the NUL) as valid
 * UTF-8: each byte that does not start a valid character becomes U+FFFD,
 * except an incomplete character at the very end of @src, which is taken for a
 * cut and left out; a character that does not fit whole is left out with all
 * that follows. @dst and @src may be the same buffer only when @src is valid.
 * Return: the length written (without the NUL); 0 when @size is 0.
 */
size_t utf8_copy(char *dst, size_t size, const char *src);

/**
 * utf8_format() - snprintf() into @dst (@size bytes), then utf8_copy(): the
 * result is valid UTF-8 and a cut never splits a character.
 * Return: the length written.
 */
size_t utf8_format(char *dst, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** utf8_vformat() - utf8_format() with a va_list. */
size_t utf8_vformat(char *dst, size_t size, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
