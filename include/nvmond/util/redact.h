/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * What a message may say of a URL that may carry a secret: never its userinfo
 * (user:password@), however the URL parses. A password with a raw '/', '?',
 * '#', '@' or ':' splits the usual parse (RFC 3986 §3.2: the authority ends at
 * the first '/', '?' or '#') before its '@', so the usual parse is not used:
 * everything from "://" up to the LAST '@' of the text is userinfo here. That
 * may take more than the userinfo (an '@' in a path); it never takes less.
 * Pure.
 */

/**
 * redact_userinfo() - @text (a URL, or a message that holds URLs) into @dst
 * (@size bytes with the NUL) with what may be userinfo removed: after the first
 * "://", when an '@' follows anywhere in the rest of @text, everything up to
 * and including the last '@' becomes "***@". No byte between "://" and that '@'
 * is ever copied; a cut (@size too small) only shortens the rest. @dst may be
 * @text (in place).
 * Return: the length written.
 */
size_t redact_userinfo(char *dst, size_t size, const char *text);

/**
 * redact_url_origin() - "scheme://host[:port]" of @url for messages: its
 * scheme, then the text after the last '@' (or after "://" without one) up to
 * the first '/', '?' or '#'. No userinfo, no path, query or fragment (a Slack
 * or Discord URL's path is its secret). Without "://": "(a URL)".
 */
void redact_url_origin(const char *url, char *dst, size_t size);

/**
 * redact_url_ambiguous() - Whether @url has an '@' after the first '/', '?'
 * or '#' that follows "://": there the usual parse (libcurl's) and
 * redact_userinfo() disagree on where the host is, and a host libcurl names in
 * its messages ("Could not resolve host: admin") may be a piece of the
 * userinfo. Such messages must not be shown.
 */
bool redact_url_ambiguous(const char *url);
