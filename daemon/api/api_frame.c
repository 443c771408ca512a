/* SPDX-License-Identifier: MIT */
/*
 * A request's framing and the fields that must come once (api_frame.h): pure,
 * table-tested.
 */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "nvmond/api/api_frame.h"

void api_frame_init(struct api_frame *f)
{
	*f = (struct api_frame){0};
}

static bool is_ows(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * One Content-Length field: a list of equal numbers is one number (RFC 9110 §8.6,
 * RFC 9112 §6.3 ¶5); anything else, or a number other than one seen before, is bad.
 */
static void length_field(struct api_frame *f, const char *v)
{
	const char *p = v;

	for (;;) {
		uint64_t n = 0;
		size_t digits = 0;

		while (is_ows(*p))
			p++;
		while (*p >= '0' && *p <= '9') {
			unsigned d = (unsigned)(*p - '0');

			if (n > (UINT64_MAX - d) / 10) {
				f->length_bad = true;
				return;
			}
			n = n * 10 + d;
			digits++;
			p++;
		}
		while (is_ows(*p))
			p++;
		if (digits == 0 || (*p != ',' && *p != '\0')) {
			f->length_bad = true;
			return;
		}
		if (!f->length_seen) {
			f->length = n; /* the first number of the first field */
			f->length_seen = true;
		} else if (n != f->length) {
			f->length_bad = true;
		}
		if (*p == '\0')
			return;
		p++; /* ',' */
	}
}

/* One Transfer-Encoding field: its codings in order (parameters after ';' ignored). */
static void te_field(struct api_frame *f, const char *v)
{
	const char *p = v;

	f->te = true;
	while (*p) {
		const char *start, *end;
		size_t n;

		while (is_ows(*p) || *p == ',')
			p++; /* empty list elements are allowed (RFC 9110 §5.6.1) */
		if (!*p)
			break;
		start = p;
		while (*p && *p != ',' && *p != ';' && !is_ows(*p))
			p++;
		end = p;
		while (*p && *p != ',')
			p++; /* parameters, spaces */
		n = (size_t)(end - start);
		if (f->te_last_chunked)
			f->te_chunked_early = true; /* another coding after chunked */
		f->te_last_chunked = n == 7 && strncasecmp(start, "chunked", 7) == 0;
		if (!f->te_last_chunked)
			f->te_other = true;
	}
}

void api_frame_field(struct api_frame *f, const char *name, const char *value)
{
	if (!name)
		return;
	if (!value)
		value = "";
	if (strcasecmp(name, "Host") == 0) {
		if (f->n_host++ == 0)
			f->host = value;
	} else if (strcasecmp(name, "Authorization") == 0) {
		f->n_auth++;
	} else if (strcasecmp(name, "Content-Length") == 0) {
		f->n_length++;
		length_field(f, value);
	} else if (strcasecmp(name, "Transfer-Encoding") == 0) {
		te_field(f, value);
	}
}

unsigned api_frame_check(const struct api_frame *f, bool http11, const char **ret_msg)
{
	static const struct {
		unsigned status;
		const char *msg;
	} verdicts[] = {
		{400, "more than one Host header field"},
		{400, "an HTTP/1.1 request needs a Host header field"},
		{400, "more than one Authorization header field"},
		{400, "Transfer-Encoding and Content-Length together"},
		{400, "Content-Length fields that disagree or are not numbers"},
		{400, "Transfer-Encoding in an HTTP/1.0 request"},
		{400, "the last transfer coding is not chunked"},
		{501, "transfer codings other than chunked are not implemented"},
		{411, "send the request body with a Content-Length (chunked bodies are not taken)"},
	};
	const bool why[] = {
		f->n_host > 1,
		http11 && f->n_host == 0,
		f->n_auth > 1,
		f->te && f->n_length > 0,
		f->length_bad,
		f->te && !http11,
		f->te && (!f->te_last_chunked || f->te_chunked_early),
		f->te && f->te_other,
		f->te,
	};
	_Static_assert(sizeof(why) / sizeof(why[0]) == sizeof(verdicts) / sizeof(verdicts[0]),
		       "one verdict per reason");

	for (size_t i = 0; i < sizeof(why) / sizeof(why[0]); i++)
		if (why[i]) {
			*ret_msg = verdicts[i].msg;
			return verdicts[i].status;
		}
	*ret_msg = NULL;
	return 0;
}
