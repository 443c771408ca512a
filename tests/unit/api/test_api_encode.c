/* SPDX-License-Identifier: MIT */
/* Content coding and entity tags of API answers (RFC 9110, RFC 1952): api_encode.h. */
#include <criterion/criterion.h>
#include <errno.h>
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

/* A source of @len bytes of @data given @step at a time, or an error after @fail_at. */
struct src {
	const char *data;
	size_t len, off, step, fail_at;
};

static ssize_t src_read(void *cls, char *buf, size_t max)
{
	struct src *s = cls;
	size_t n = s->len - s->off;

	if (s->fail_at && s->off >= s->fail_at)
		return -ENOSPC;
	if (n > s->step)
		n = s->step;
	if (n > max)
		n = max;
	memcpy(buf, s->data + s->off, n);
	s->off += n;
	return (ssize_t)n;
}

/* Everything api_gzip_stream_read() gives, @out bytes a call, into *@ret. Return: its length or -errno. */
static ssize_t gzip_all(struct src *s, size_t out, unsigned char **ret)
{
	struct api_gzip_stream *g;
	size_t len = 0, cap = 1 << 20;
	unsigned char *z = malloc(cap);
	ssize_t n;

	cr_assert(z);
	cr_assert_eq(api_gzip_stream_new(src_read, s, &g), 0);
	while ((n = api_gzip_stream_read(g, (char *)z + len, len + out > cap ? cap - len : out)) >
	       0) {
		cr_assert_leq((size_t)n, out, "never more than asked for");
		len += (size_t)n;
		cr_assert_lt(len, cap);
	}
	cr_expect_eq(api_gzip_stream_read(g, (char *)z + len, out), n < 0 ? n : 0,
		     "the end (or the error) again when asked again");
	api_gzip_stream_free(g);
	*ret = z;
	return n < 0 ? n : (ssize_t)len;
}

static void expect_inflates_to(const unsigned char *z, size_t zlen, const char *in, size_t len)
{
	unsigned char *back = malloc(len + 1);
	z_stream s = {0};

	cr_assert(back);
	cr_assert_eq(inflateInit2(&s, 15 + 16), Z_OK);
	s.next_in = (Bytef *)z;
	s.avail_in = (uInt)zlen;
	s.next_out = back;
	s.avail_out = (uInt)len + 1;
	cr_expect_eq(inflate(&s, Z_FINISH), Z_STREAM_END, "one whole gzip member");
	cr_expect_eq(s.avail_in, 0, "nothing after the member's trailer");
	cr_expect_eq(s.total_out, len);
	cr_expect_eq(memcmp(in, back, len), 0);
	inflateEnd(&s);
	free(back);
}

Test(api_encode, gzip_stream_round_trip)
{
	/*
	 * RFC 1952: a streamed answer (/samples) compressed as it is read gives a member
	 * zlib reads back byte for byte, whatever the source's pieces and the buffers
	 * asked for (1 byte at a time too).
	 */
	size_t len = 300000;
	char *in = malloc(len);
	unsigned char *z;
	ssize_t zlen;

	static const char sample[] = "{\"ts_ms\":1700000000000,\"temp_c\":41}";

	cr_assert(in);
	for (size_t i = 0; i < len; i++)
		in[i] = sample[i % (sizeof(sample) - 1)] ^ (char)(i % 11 == 0);
	size_t steps[] = {1, 100, 16384, 300000}, outs[] = {1, 7, 32768};
	for (size_t a = 0; a < sizeof(steps) / sizeof(*steps); a++)
		for (size_t b = 0; b < sizeof(outs) / sizeof(*outs); b++) {
			if (steps[a] == 1 && outs[b] == 1)
				continue; /* the same as 1 and 7, 300,000 times slower */
			struct src s = {.data = in, .len = len, .step = steps[a]};
			zlen = gzip_all(&s, outs[b], &z);
			cr_assert_gt(zlen, 0, "source pieces %zu, out %zu", steps[a], outs[b]);
			cr_expect_lt((size_t)zlen, len / 4, "it compresses: %zd of %zu", zlen, len);
			expect_inflates_to(z, (size_t)zlen, in, len);
			free(z);
		}
	struct src empty = {.data = "", .len = 0, .step = 1};
	zlen = gzip_all(&empty, 64, &z);
	cr_expect_gt(zlen, 0, "an empty body is a valid member too");
	expect_inflates_to(z, (size_t)zlen, "", 0);
	free(z);
	struct src broken = {.data = in, .len = len, .step = 1000, .fail_at = 5000};
	cr_expect_eq(gzip_all(&broken, 64, &z), -ENOSPC, "the source's error comes out");
	free(z);
	free(in);
}
