/* SPDX-License-Identifier: MIT */
/*
 * A request's header fields before its body is read (api_frame.h, RFC 9112): tables,
 * each row naming its rule.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "nvmond/api/api_frame.h"

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
