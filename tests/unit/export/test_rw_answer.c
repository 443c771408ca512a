/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <string.h>

#include "nvmond/export/rw_answer.h"

#define NOW_MS 784111777000LL /* Sun, 06 Nov 1994 08:49:37 GMT: RFC 9110's example */

/* Remote-Write 1.0, "Retries & Backoff": retry 5xx (MUST) and 429 (MAY, nvmond does),
 * never 2xx or another 4xx; no HTTP answer at all (network, DNS, TLS) is retried. */
Test(rw_answer, spec_retries_5xx_and_429_only)
{
	static const struct {
		long status;
		enum rw_action want;
		const char *rule;
	} cases[] = {
		{200, RW_DONE, "2xx: done"},
		{204, RW_DONE, "2xx: done (VictoriaMetrics answers 204)"},
		{0, RW_RETRY, "no answer: retried"},
		{500, RW_RETRY, "MUST retry write requests on HTTP 5xx"},
		{503, RW_RETRY, "MUST retry write requests on HTTP 5xx"},
		{599, RW_RETRY, "MUST retry write requests on HTTP 5xx"},
		{429, RW_RETRY, "MAY retry on HTTP 429"},
		{400, RW_DROP, "MUST NOT retry ... 4xx responses other than 429"},
		{401, RW_DROP, "MUST NOT retry ... 4xx responses other than 429"},
		{404, RW_DROP, "MUST NOT retry ... 4xx responses other than 429"},
		{408, RW_DROP, "MUST NOT retry ... 4xx responses other than 429"},
		{413, RW_DROP, "MUST NOT retry ... 4xx responses other than 429"},
		{301, RW_DROP, "not 2xx, 5xx or 429: as Prometheus, not recoverable"},
		{600, RW_DROP, "not 2xx, 5xx or 429: as Prometheus, not recoverable"},
	};
	struct rw_answer a;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rw_answer_classify(cases[i].status, NULL, "", 0, NOW_MS, &a);
		cr_expect_eq(a.action, cases[i].want, "%ld: %s", cases[i].status, cases[i].rule);
	}
}

/* The engine's message, for the log of a dropped batch: its first line, clean. */
Test(rw_answer, message_is_the_engines_first_line)
{
	struct rw_answer a;
	const char prom[] = "out of bounds\n";
	const char bad[] = "bad\x01value \xff\xfe caf\xc3\xa9\r\nsecond line";

	rw_answer_classify(400, NULL, prom, strlen(prom), NOW_MS, &a);
	cr_expect_eq(a.action, RW_DROP);
	cr_expect_str_eq(a.message, "HTTP 400: out of bounds");
	rw_answer_classify(400, NULL, bad, sizeof(bad) - 1, NOW_MS, &a);
	cr_expect_str_eq(a.message, "HTTP 400: bad value ?? café");
	rw_answer_classify(500, NULL, NULL, 0, NOW_MS, &a);
	cr_expect_str_eq(a.message, "HTTP 500");
	rw_answer_classify(0, NULL, "Could not resolve host: nowhere", 31, NOW_MS, &a);
	cr_expect_str_eq(a.message, "Could not resolve host: nowhere");
	char big[4000];
	memset(big, 'x', sizeof(big));
	big[1000] = '\xc3'; /* a 2-byte character cut at the end must go whole */
	big[1001] = '\xa9';
	rw_answer_classify(400, NULL, big, sizeof(big), NOW_MS, &a);
	cr_expect_lt(strlen(a.message), RW_MESSAGE_MAX);
}

/* RFC 9110, 10.2.3: Retry-After = HTTP-date / delay-seconds. */
Test(rw_answer, retry_after)
{
	static const struct {
		const char *v;
		int r;
		int64_t ms;
	} cases[] = {
		{"120", 0, 120000},
		{" 0 ", 0, 0},
		{"Sun, 06 Nov 1994 08:49:47 GMT", 0, 10000},	    /* IMF-fixdate, 10 s later */
		{"Sun, 06 Nov 1994 08:49:27 GMT", 0, 0},	    /* in the past: at once */
		{"99999999999999999999", 0, RW_RETRY_AFTER_MAX_MS}, /* capped */
		{"Sunday, 06-Nov-94 08:49:37 GMT", -22, 0},	    /* obsolete form: not taken */
		{"Sun, 06 Nov 1994 08:49:37 UTC", -22, 0},
		{"Sun, 32 Nov 1994 08:49:37 GMT", -22, 0},
		{"12s", -22, 0},
		{"-5", -22, 0},
		{"", -22, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t ms = -1;
		cr_expect_eq(rw_retry_after_parse(cases[i].v, NOW_MS, &ms), cases[i].r, "'%s'",
			     cases[i].v);
		if (cases[i].r == 0)
			cr_expect_eq(ms, cases[i].ms, "'%s': %lld", cases[i].v, (long long)ms);
	}
	struct rw_answer a;
	rw_answer_classify(429, "7", "", 0, NOW_MS, &a);
	cr_expect_eq(a.retry_after_ms, 7000);
	rw_answer_classify(503, "soon", "", 0, NOW_MS, &a);
	cr_expect_eq(a.retry_after_ms, -1, "unusable: the backoff");
	rw_answer_classify(400, "7", "", 0, NOW_MS, &a);
	cr_expect_eq(a.retry_after_ms, -1, "a dropped batch waits for nothing");
}

/* "MUST use a backoff algorithm": doubling, capped. */
Test(rw_answer, backoff_doubles_up_to_its_max)
{
	cr_expect_eq(rw_backoff_ms(1, 250, 5000), 250);
	cr_expect_eq(rw_backoff_ms(2, 250, 5000), 500);
	cr_expect_eq(rw_backoff_ms(3, 250, 5000), 1000);
	cr_expect_eq(rw_backoff_ms(5, 250, 5000), 4000);
	cr_expect_eq(rw_backoff_ms(6, 250, 5000), 5000);
	cr_expect_eq(rw_backoff_ms(1000, 250, 5000), 5000);
}
