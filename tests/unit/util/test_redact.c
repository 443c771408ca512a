/* SPDX-License-Identifier: MIT */
/*
 * Userinfo never shown (util/redact.c; issue 23 §6: with a raw '#', '?' or '/'
 * in a sink URL's password, last_error and the log showed
 * "http://admin:S3cr…"). Each case names what is in the password or the host.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/util/redact.h"

Test(redact, userinfo_removed_whatever_it_holds)
{
	const struct {
		const char *what, *in, *want;
	} t[] = {
		{"'#' in the password", "http://admin:S3cr#et@example.com/hook",
		 "http://***@example.com/hook"},
		{"'?' in the password", "http://admin:S3cr?et@example.com/hook",
		 "http://***@example.com/hook"},
		{"'/' in the password", "http://admin:S3cr/et@example.com/hook",
		 "http://***@example.com/hook"},
		{"'@' in the password", "http://admin:S3cr@et@example.com/hook",
		 "http://***@example.com/hook"},
		{"':' in the password", "http://admin:S3:cr:et@example.com:8080/hook",
		 "http://***@example.com:8080/hook"},
		{"a port-like password that libcurl takes for a port",
		 "http://admin:12/et@127.0.0.1:9/", "http://***@127.0.0.1:9/"},
		{"percent-encoded, as RFC 3986 wants", "https://admin:S3cr%23et@example.com/",
		 "https://***@example.com/"},
		{"a user without a password", "smtp://alice@mail.example:587",
		 "smtp://***@mail.example:587"},
		{"an IPv6 host", "http://u:p@[2001:db8::1]:8080/x",
		 "http://***@[2001:db8::1]:8080/x"},
		{"an IPv6 host, no userinfo", "http://[::1]:9/x?y#z", "http://[::1]:9/x?y#z"},
		{"no userinfo", "https://hooks.slack.com/services/T0/B0/x",
		 "https://hooks.slack.com/services/T0/B0/x"},
		{"inside a message", "email: smtp://alice:pw#1@mail.example:587: Login denied",
		 "email: smtp://***@mail.example:587: Login denied"},
		{"two URLs: up to the last '@'", "from http://a:b@x/ to http://c:d@y/ failed",
		 "from http://***@y/ failed"},
		{"an address but no URL", "ops@example.org: refused", "ops@example.org: refused"},
		{"a raw space in the password", "http://adm in:p w@example.com/",
		 "http://***@example.com/"},
		{"nothing after '://'", "http://", "http://"},
		{"empty", "", ""},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char out[128];
		size_t n = redact_userinfo(out, sizeof(out), t[i].in);
		cr_expect_str_eq(out, t[i].want, "%s", t[i].what);
		cr_expect_eq(n, strlen(t[i].want), "%s", t[i].what);
	}
}

/* In place (sink_msg_clean() cleans a message in its own buffer), growing and shrinking. */
Test(redact, in_place)
{
	const struct {
		const char *in, *want;
	} t[] = {
		{"http://u@h/x", "http://***@h/x"},
		{"http://admin:S3cr#et@example.com/hook: refused",
		 "http://***@example.com/hook: refused"},
		{"mqtt: connection refused: not authorised",
		 "mqtt: connection refused: not authorised"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char buf[64];
		snprintf(buf, sizeof(buf), "%s", t[i].in);
		cr_expect_eq(redact_userinfo(buf, sizeof(buf), buf), strlen(t[i].want));
		cr_expect_str_eq(buf, t[i].want);
	}
	char small[10] = "http://u@h";
	cr_expect_eq(redact_userinfo(small, sizeof(small), "http://u@hostname"), 9);
	cr_expect_str_eq(small, "http://**");
}

/* Cut short at every size, the result never holds a byte of the password. */
Test(redact, a_cut_never_shows_userinfo)
{
	const char *in = "http://admin:S3cr#et@example.com/hook";
	char out[64];

	for (size_t size = 1; size <= strlen(in) + 1; size++) {
		size_t n = redact_userinfo(out, size, in);
		cr_expect_lt(n, size);
		cr_expect_eq(strlen(out), n);
		cr_expect_null(strstr(out, "admin"), "size %zu: %s", size, out);
		cr_expect_null(strstr(out, "S3"), "size %zu: %s", size, out);
	}
	cr_expect_eq(redact_userinfo(out, 0, in), 0);
}

/* redact.h: the result fits @size with its NUL, also for text without userinfo. */
Test(redact, a_cut_of_plain_text_fits_with_its_nul)
{
	const char *in = "mqtt: connection refused";
	char out[64];

	for (size_t size = 1; size <= strlen(in) + 1; size++) {
		memset(out, 'x', sizeof(out));
		size_t n = redact_userinfo(out, size, in);
		cr_expect_eq(n, size - 1, "size %zu", size);
		cr_expect_eq(out[n], '\0');
		cr_expect_eq(out[size], 'x', "size %zu: nothing written past it", size);
		cr_expect_eq(strncmp(out, in, n), 0);
	}
}

Test(redact, origin_is_scheme_and_host_only)
{
	const struct {
		const char *what, *in, *want;
	} t[] = {
		{"'#' in the password", "http://admin:S3cr#et@example.com:8080/hook",
		 "http://example.com:8080"},
		{"'/' in the password", "http://admin:S3cr/et@example.com/hook",
		 "http://example.com"},
		{"'?' in the password", "http://admin:S3cr?et@example.com/hook",
		 "http://example.com"},
		{"'@' in the password", "http://admin:p@ss@example.com/", "http://example.com"},
		{"the path is a secret (Slack)", "https://hooks.slack.com/services/T0/B0/secret",
		 "https://hooks.slack.com"},
		{"an IPv6 host with userinfo", "http://u:p@[2001:db8::1]:8080/x",
		 "http://[2001:db8::1]:8080"},
		{"an IPv6 host, a query", "http://[::1]:9?x", "http://[::1]:9"},
		{"a fragment", "http://host#frag", "http://host"},
		{"not a URL", "notaurl", "(a URL)"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char out[128];
		redact_url_origin(t[i].in, out, sizeof(out));
		cr_expect_str_eq(out, t[i].want, "%s", t[i].what);
	}
}

/*
 * Ambiguous: an '@' after the end of the authority as RFC 3986 §3.2 finds it
 * (the first '/', '?' or '#' after "://"), where libcurl takes a host out of
 * what the user meant as userinfo.
 */
Test(redact, ambiguous_where_the_usual_parse_splits_early)
{
	const struct {
		const char *what, *in;
		bool want;
	} t[] = {
		{"'/' in the password", "http://admin:12/et@127.0.0.1:9/", true},
		{"'#' in the password", "http://admin:S3cr#et@h/", true},
		{"'?' in the password", "http://admin:S3cr?et@h/", true},
		{"an '@' in a query (the usual parse has no userinfo)", "http://h/p?x=a@b", true},
		{"userinfo in the authority", "http://u:p@h/x", false},
		{"'@' in the password, within the authority", "http://u:p@ss@h/", false},
		{"no userinfo", "http://h/", false},
		{"an IPv6 host", "http://u:p@[::1]:9/x", false},
		{"not a URL", "a@b", false},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(redact_url_ambiguous(t[i].in), t[i].want, "%s", t[i].what);
}
