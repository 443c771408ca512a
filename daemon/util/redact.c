/* SPDX-License-Identifier: MIT */
/* Userinfo never shown (redact.h). Pure. */
#include <stdio.h>
#include <string.h>

#include "nvmond/util/redact.h"

#define MASK "***@"

static size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

size_t redact_userinfo(char *dst, size_t size, const char *text)
{
	const char *sep = strstr(text, "://");
	const char *at = sep ? strrchr(sep + 3, '@') : NULL;
	size_t len = strlen(text), head, n_head, n_mask, n_tail;

	if (size == 0)
		return 0;
	if (!at) {
		n_head = min_sz(len, size - 1);
		memmove(dst, text, n_head);
		dst[n_head] = '\0';
		return n_head;
	}
	/* Text before "://" and "://", the mask, the text after the '@'; each cut to fit. */
	head = (size_t)(sep + 3 - text);
	n_head = min_sz(head, size - 1);
	n_mask = min_sz(strlen(MASK), size - 1 - n_head);
	n_tail = min_sz(len - (size_t)(at + 1 - text), size - 1 - n_head - n_mask);
	/* The tail first: with @dst == @text, the mask is written over where it was. */
	memmove(dst + n_head + n_mask, at + 1, n_tail);
	memcpy(dst + n_head, MASK, n_mask);
	memmove(dst, text, n_head);
	dst[n_head + n_mask + n_tail] = '\0';
	return n_head + n_mask + n_tail;
}

void redact_url_origin(const char *url, char *dst, size_t size)
{
	const char *sep = strstr(url, "://");
	const char *host, *at;

	if (size == 0)
		return;
	if (!sep) {
		snprintf(dst, size, "(a URL)");
		return;
	}
	at = strrchr(sep + 3, '@');
	host = at ? at + 1 : sep + 3;
	snprintf(dst, size, "%.*s%.*s", (int)(sep + 3 - url), url, (int)strcspn(host, "/?#"), host);
}

bool redact_url_ambiguous(const char *url)
{
	const char *sep = strstr(url, "://");
	const char *at = sep ? strrchr(sep + 3, '@') : NULL;

	return at && sep + 3 + strcspn(sep + 3, "/?#") < at;
}
