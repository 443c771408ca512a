/* SPDX-License-Identifier: MIT */
/*
 * A request's header fields before its body is read (api_frame.h, RFC 9112) and the
 * names Host may give (api_host.h, against DNS rebinding): tables, each row naming
 * its rule.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/api/api_frame.h"
#include "nvmond/api/api_host.h"

/* Up to 4 fields "Name: value" of one request. */
struct req {
	const char *f[4][2];
	bool http11;
	unsigned want;
	const char *rule;
};

Test(api_frame, check)
{
	static const struct req t[] = {
		{{{"Host", "a"}}, true, 0, "one Host, no body"},
		{{{"Host", "a"}, {"Content-Length", "12"}}, true, 0, "a body with Content-Length"},
		{{{"host", "a"}, {"content-length", "0"}}, true, 0, "field names in any case"},
		{{{0}}, false, 0, "HTTP/1.0 without Host (RFC 9112 3.2: 1.1 only)"},
		{{{0}}, true, 400, "HTTP/1.1 without Host (RFC 9112 3.2)"},
		{{{"Host", "a"}, {"Host", "a"}}, true, 400, "two Host fields (RFC 9112 3.2)"},
		{{{"Host", "a"}, {"HOST", "b"}}, false, 400, "two Host fields in HTTP/1.0 too"},
		{{{"Host", "a"}, {"Authorization", "Bearer x"}}, true, 0, "one Authorization"},
		{{{"Host", "a"}, {"Authorization", "Bearer x"}, {"authorization", "Bearer y"}},
		 true,
		 400,
		 "two Authorization fields: which one is checked?"},
		{{{"Host", "a"}, {"Content-Length", "5"}, {"Transfer-Encoding", "chunked"}},
		 true,
		 400,
		 "Transfer-Encoding with Content-Length (RFC 9112 6.3 p3)"},
		{{{"Host", "a"}, {"Transfer-Encoding", "chunked"}, {"Content-Length", "5"}},
		 true,
		 400,
		 "... in either order"},
		{{{"Host", "a"}, {"Content-Length", "0"}, {"Content-Length", "45"}},
		 true,
		 400,
		 "two Content-Lengths that differ (RFC 9112 6.3 p5)"},
		{{{"Host", "a"}, {"Content-Length", "2"}, {"Content-Length", "2"}},
		 true,
		 0,
		 "two equal Content-Lengths are one (RFC 9112 6.3 p5)"},
		{{{"Host", "a"}, {"Content-Length", "2, 2"}}, true, 0, "a list of equal values"},
		{{{"Host", "a"}, {"Content-Length", " 7 "}}, true, 0, "OWS around the value"},
		{{{"Host", "a"}, {"Content-Length", "2, 3"}}, true, 400, "a list that differs"},
		{{{"Host", "a"}, {"Content-Length", "2"}, {"Content-Length", "2, 3"}},
		 true,
		 400,
		 "a later list that differs from the first field"},
		{{{"Host", "a"}, {"Content-Length", "+5"}}, true, 400, "not digits"},
		{{{"Host", "a"}, {"Content-Length", "5x"}}, true, 400, "digits then junk"},
		{{{"Host", "a"}, {"Content-Length", "5x5"}}, true, 400, "junk between digits"},
		{{{"Host", "a"}, {"Content-Length", "1 1"}},
		 true,
		 400,
		 "two numbers without a comma"},
		{{{"Host", "a"}, {"Content-Length", ""}}, true, 400, "empty"},
		{{{"Host", "a"}, {"Content-Length", "5,"}}, true, 400, "an empty list element"},
		{{{"Host", "a"}, {"Content-Length", "18446744073709551615"}},
		 true,
		 0,
		 "the largest 64-bit number (413 comes later)"},
		{{{"Host", "a"}, {"Content-Length", "18446744073709551616"}},
		 true,
		 400,
		 "past 64 bits: never wrapped"},
		{{{"Host", "a"}, {"Transfer-Encoding", "chunked"}},
		 true,
		 411,
		 "chunked: bodies with Content-Length only (RFC 9110 15.5.12)"},
		{{{"Host", "a"}, {"Transfer-Encoding", "Chunked"}},
		 true,
		 411,
		 "codings in any case"},
		{{{"Host", "a"}, {"Transfer-Encoding", " , chunked ;x=1"}},
		 true,
		 411,
		 "empty elements, OWS, parameters (RFC 9110 5.6.1)"},
		{{{"Host", "a"}, {"Transfer-Encoding", "gzip"}},
		 true,
		 400,
		 "last coding not chunked (RFC 9112 6.3 p4)"},
		{{{"Host", "a"}, {"Transfer-Encoding", ""}}, true, 400, "no coding at all"},
		{{{"Host", "a"}, {"Transfer-Encoding", "chunked, gzip"}},
		 true,
		 400,
		 "chunked not last (RFC 9112 6.1)"},
		{{{"Host", "a"}, {"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "gzip"}},
		 true,
		 400,
		 "chunked not last, over two fields"},
		{{{"Host", "a"}, {"Transfer-Encoding", "chunked, chunked"}},
		 true,
		 400,
		 "chunked twice (RFC 9112 6.1: at most once)"},
		{{{"Host", "a"}, {"Transfer-Encoding", "gzip, chunked"}},
		 true,
		 501,
		 "a coding it does not implement before chunked (RFC 9112 6.1)"},
		{{{"Host", "a"}, {"Transfer-Encoding", "gzip"}, {"Transfer-Encoding", "chunked"}},
		 true,
		 501,
		 "the same over two fields"},
		{{{"Host", "a"}, {"Transfer-Encoding", "chunkedx"}},
		 true,
		 400,
		 "a coding is a whole token"},
		{{{"Transfer-Encoding", "chunked"}},
		 false,
		 400,
		 "Transfer-Encoding in HTTP/1.0 (RFC 9112 6.1)"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct api_frame f;
		const char *msg = "unset";
		unsigned got;

		api_frame_init(&f);
		for (size_t k = 0; k < 4 && t[i].f[k][0]; k++)
			api_frame_field(&f, t[i].f[k][0], t[i].f[k][1]);
		got = api_frame_check(&f, t[i].http11, &msg);
		cr_expect_eq(got, t[i].want, "%zu (%s): %u, want %u", i, t[i].rule, got, t[i].want);
		cr_expect(got ? msg && msg[0] : msg == NULL,
			  "%zu (%s): a message with each refusal", i, t[i].rule);
	}
}

Test(api_frame, keeps_the_first_host_and_length)
{
	struct api_frame f;
	const char *msg;

	api_frame_init(&f);
	api_frame_field(&f, "Host", "one.example:80");
	api_frame_field(&f, "Content-Length", "42");
	api_frame_field(&f, "X-Other", "x");
	cr_assert_eq(api_frame_check(&f, true, &msg), 0);
	cr_expect_str_eq(f.host, "one.example:80");
	cr_expect_eq(f.length, 42);
	api_frame_init(&f);
	cr_expect_null(f.host, "no Host: NULL");
	cr_expect_eq(f.length, 0, "no Content-Length: 0, no body");
}

Test(api_host, check)
{
	struct api_hosts h = {0};
	static const struct {
		const char *field;
		enum api_host_verdict want;
		const char *rule;
	} t[] = {
		{NULL, API_HOST_OK, "no Host at all (HTTP/1.0): nothing to check"},
		{"localhost", API_HOST_OK, "a listed name"},
		{"localhost:9470", API_HOST_OK, "a listed name and a port"},
		{"LocalHost", API_HOST_OK, "names in any case (RFC 3986 3.2.2)"},
		{"localhost.", API_HOST_OK, "one trailing dot: the same name"},
		{"localhost.:8080", API_HOST_OK, "a trailing dot and a port"},
		{"host1.example.org", API_HOST_OK, "an allowed_hosts name"},
		{"localhost..", API_HOST_UNKNOWN, "two trailing dots: another name"},
		{"attacker.example", API_HOST_UNKNOWN, "DNS rebinding: an unknown name"},
		{"attacker.example:9470", API_HOST_UNKNOWN, "... with our port"},
		{"localhost.attacker.example", API_HOST_UNKNOWN, "a listed name as a prefix"},
		{"xlocalhost", API_HOST_UNKNOWN, "a listed name as a suffix"},
		{"localhos", API_HOST_UNKNOWN, "a prefix of a listed name"},
		{"127.0.0.1", API_HOST_OK, "an IPv4 address: no rebinding gives one"},
		{"127.0.0.1:9470", API_HOST_OK, "... with a port"},
		{"192.0.2.7:1", API_HOST_OK, "any IPv4 address (listen = 0.0.0.0)"},
		{"[::1]", API_HOST_OK, "a bracketed IPv6 address"},
		{"[::1]:9470", API_HOST_OK, "... with a port"},
		{"[2001:db8::7]:80", API_HOST_OK, "any IPv6 address"},
		{"127.0.0.256", API_HOST_UNKNOWN, "not an address: a name, not listed"},
		{"", API_HOST_UNKNOWN, "empty: no name of ours"},
		{":9470", API_HOST_UNKNOWN, "a port without a name"},
		{"[::1", API_HOST_BAD, "an unclosed bracket (RFC 9112 3.2: 400)"},
		{"[::1]x", API_HOST_BAD, "junk after the bracket"},
		{"[nope]", API_HOST_BAD, "not an IPv6 address in brackets"},
		{"[]", API_HOST_BAD, "empty brackets"},
		{"localhost:94a", API_HOST_BAD, "a port that is not digits"},
		{"localhost:1:2", API_HOST_BAD, "two colons outside brackets"},
		{"a b", API_HOST_BAD, "a space"},
		{"a/b", API_HOST_BAD, "a path in Host"},
		{"user@localhost", API_HOST_BAD, "userinfo in Host"},
		{"local%68ost", API_HOST_UNKNOWN, "a percent-encoded name is not decoded"},
		{"local%6", API_HOST_BAD, "a broken percent-encoding"},
		{"l\xc3\xb6"
		 "cal",
		 API_HOST_BAD, "a raw non-ASCII byte"},
	};

	cr_assert_eq(api_hosts_add(&h, "localhost", 9), 0);
	cr_assert_eq(api_hosts_parse(&h, "host1.example.org", NULL, 0), 0);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(api_host_check(&h, t[i].field), t[i].want, "'%s': %s",
			     t[i].field ? t[i].field : "(none)", t[i].rule);
	h.any = true;
	cr_expect_eq(api_host_check(&h, "attacker.example"), API_HOST_OK, "*: any name");
	cr_expect_eq(api_host_check(&h, "a b"), API_HOST_BAD, "*: still a 400 for a bad value");
	cr_expect_eq(api_host_check(&h, ""), API_HOST_UNKNOWN, "*: an empty Host is no name");
}

Test(api_host, parse)
{
	static const struct {
		const char *list;
		int want;
		size_t n;
		bool any;
		const char *rule;
	} t[] = {
		{"", 0, 0, false, "empty: no more names"},
		{"a.example", 0, 1, false, "one name"},
		{"a.example, b.example c.example\tD.EXAMPLE.", 0, 4, false,
		 "commas and blanks; any case; a trailing dot"},
		{" , a.example,,", 0, 1, false, "empty entries are skipped"},
		{"*", 0, 0, true, "any name"},
		{"a.example, [::1]", -EINVAL, 1, false, "an address in brackets is not a name"},
		{"a:80", -EINVAL, 0, false, "a port is not part of a name"},
		{"é.example", -EINVAL, 0, false, "letters are ASCII"},
		{".", -EINVAL, 0, false, "a dot alone"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct api_hosts h = {0};
		char err[200] = "";
		int r = api_hosts_parse(&h, t[i].list, err, sizeof(err));

		cr_expect_eq(r, t[i].want, "'%s': %d (%s)", t[i].list, r, t[i].rule);
		cr_expect_eq(h.n, t[i].n, "'%s': %zu names (%s)", t[i].list, h.n, t[i].rule);
		cr_expect_eq(h.any, t[i].any, "'%s': any (%s)", t[i].list, t[i].rule);
		if (r < 0)
			cr_expect(strstr(err, "is not a host name"), "'%s': the message: %s",
				  t[i].list, err);
	}
	struct api_hosts h = {0};
	char err[200];
	cr_expect_eq(api_hosts_parse(&h, "a, b, c", err, sizeof(err)), 0);
	cr_expect_str_eq(h.name[2], "c");

	/* API_HOSTS_MAX names, then one more. */
	char list[API_HOSTS_MAX * 8 + 16] = "";
	for (int i = 0; i <= API_HOSTS_MAX; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "h%d ", i);
	struct api_hosts full = {0};
	cr_expect_eq(api_hosts_parse(&full, list, err, sizeof(err)), -ENOSPC);
	cr_expect_eq(full.n, API_HOSTS_MAX);
	/* A name of 253 characters is one; of 254 it is not. */
	char name[256];
	memset(name, 'a', sizeof(name));
	struct api_hosts one = {0};
	cr_expect_eq(api_hosts_add(&one, name, 253), 0, "253 characters");
	cr_expect_eq(api_hosts_add(&one, name, 254), -EINVAL, "254 characters");
	cr_expect_eq(api_host_check(&one, "AAAA"), API_HOST_UNKNOWN);
}
