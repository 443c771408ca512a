/* SPDX-License-Identifier: MIT */
/* Content coding and entity tags of API answers (RFC 9110, RFC 1952): api_encode.h. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "nvmond/api/api_encode.h"

Test(api_encode, accepts_gzip)
{
	static const struct {
		const char *h;
		bool want;
		const char *rule;
	} t[] = {
		{NULL, false, "no Accept-Encoding: identity only (RFC 9110 12.5.3)"},
		{"", false, "an empty value: identity only"},
		{"gzip", true, "listed"},
		{"gzip, deflate, br", true, "listed among others (curl, browsers)"},
		{"deflate, br", false, "not listed, no *"},
		{"GZIP", true, "codings are case-insensitive"},
		{"x-gzip", true, "x-gzip is gzip (RFC 9110 8.4.1.3)"},
		{"gzip;q=0", false, "weight 0: not acceptable (12.4.2)"},
		{"gzip ; q=0.000", false, "weight 0 with three decimals and spaces"},
		{"gzip;q=0.", false, "weight 0 written 0."},
		{"gzip;q=0.001", true, "the smallest weight above 0"},
		{"gzip;q=1", true, "weight 1"},
		{"gzip;Q=0.5", true, "the parameter name is case-insensitive"},
		{"*", true, "* covers gzip"},
		{"*;q=0", false, "* refused, gzip not listed"},
		{"gzip;q=0, *", false, "gzip refused by name: * does not bring it back"},
		{"*;q=0, gzip", true, "gzip accepted by name over *;q=0"},
		{"identity", false, "identity only"},
		{"gzipx, xgzip", false, "a coding is a whole token"},
		{"br,gzip", true, "no space after the comma"},
		{"gzip;q=0, gzip;q=1", true, "listed twice: accepted if any member accepts"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(api_accepts_gzip(t[i].h), t[i].want, "%s: %s",
			     t[i].h ? t[i].h : "(none)", t[i].rule);
}

Test(api_encode, etag_matches)
{
	const char *tag = "W/\"10-deadbeef00c0ffee\"";
	static const struct {
		const char *h;
		bool want;
		const char *rule;
	} t[] = {
		{NULL, false, "no If-None-Match"},
		{"W/\"10-deadbeef00c0ffee\"", true, "the same tag"},
		{"\"10-deadbeef00c0ffee\"", true, "weak comparison ignores W/ (RFC 9110 8.8.3.2)"},
		{"\"other\", W/\"10-deadbeef00c0ffee\"", true, "one of a list"},
		{"\"a\" ,\"b\",   W/\"10-deadbeef00c0ffee\"  ", true, "OWS around commas"},
		{"*", true, "* matches any current answer (13.1.2)"},
		{" * ", true, "* with OWS"},
		{"W/\"10-deadbeef00c0ffef\"", false, "one digit differs"},
		{"W/\"10-deadbeef00c0ffe\"", false, "a prefix of the tag"},
		{"W/\"10-deadbeef00c0ffee", false, "unterminated: malformed, no match"},
		{"10-deadbeef00c0ffee", false, "unquoted: malformed"},
		{"\"a\" \"10-deadbeef00c0ffee\"", false, "no comma: malformed"},
		{"", false, "empty"},
		{"*, \"a\"", false, "* is only valid alone"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(api_etag_matches(t[i].h, tag), t[i].want, "%s: %s",
			     t[i].h ? t[i].h : "(none)", t[i].rule);
}

Test(api_encode, etag)
{
	/* Equal bytes, equal tags; any change (one byte, one byte more) another. */
	char a[API_ETAG_MAX], b[API_ETAG_MAX], c[API_ETAG_MAX], d[API_ETAG_MAX];
	char body[] = "{\"devices\":[{\"id\":1,\"temp_c\":41}]}";

	api_etag(body, strlen(body), a);
	api_etag(body, strlen(body), b);
	cr_expect_str_eq(a, b);
	cr_expect_eq(strncmp(a, "W/\"", 3), 0, "weak: %s", a);
	cr_expect(api_etag_matches(a, a), "a tag matches itself: %s", a);
	body[strlen(body) - 4] = '2'; /* 41 -> 42... same length */
	api_etag(body, strlen(body), c);
	cr_expect_str_neq(a, c);
	api_etag(body, strlen(body) - 1, d);
	cr_expect_str_neq(c, d);
	api_etag("", 0, d);
	cr_expect_str_neq(a, d);
}

Test(api_encode, gzip_round_trip)
{
	/* RFC 1952: what api_gzip() makes, zlib's gzip reader gives back byte for byte. */
	size_t len = 200000;
	char *in = malloc(len);
	unsigned char *back = malloc(len + 1);
	void *z;
	size_t zlen;

	cr_assert(in && back);
	for (size_t i = 0; i < len; i++)
		in[i] = "[1700000000000,41.5,null],"[i % 26] ^ (char)(i % 7 == 0);
	cr_assert_eq(api_gzip(in, len, &z, &zlen), 0);
	cr_expect_lt(zlen, len / 4, "compressible input compresses: %zu of %zu", zlen, len);
	cr_expect_eq(((unsigned char *)z)[0], 0x1f);
	cr_expect_eq(((unsigned char *)z)[1], 0x8b, "a gzip member starts 1f 8b");
	z_stream s = {0};
	cr_assert_eq(inflateInit2(&s, 15 + 16), Z_OK);
	s.next_in = z;
	s.avail_in = (uInt)zlen;
	s.next_out = back;
	s.avail_out = (uInt)len + 1;
	cr_expect_eq(inflate(&s, Z_FINISH), Z_STREAM_END);
	cr_expect_eq(s.total_out, len);
	cr_expect_eq(memcmp(in, back, len), 0);
	inflateEnd(&s);
	free(z);
	cr_assert_eq(api_gzip("", 0, &z, &zlen), 0, "an empty answer is a valid member too");
	cr_expect_gt(zlen, 0);
	free(z);
	free(in);
	free(back);
}
