/* SPDX-License-Identifier: MIT */
/*
 * The query API's answers (Prometheus HTTP API, "Expression queries" and "Finding
 * series by label matchers"; the answers below are what Prometheus 2.42 and
 * VictoriaMetrics 1.79 sent to the same queries) and the PromQL literals.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/fleetview/promq.h"

static int parse(const char *text, struct promq_result *r, char *err)
{
	return promq_parse_vector(text, strlen(text), r, err);
}

/* Prometheus: the value time is the evaluation time, fractional; the value a string. */
Test(promq, prometheus_vector)
{
	const char *t =
		"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		"{\"metric\":{\"env\":\"dev\",\"host\":\"h2\",\"instance\":\"127.0.0.1:18470\","
		"\"job\":\"nvmond\"},\"value\":[1796291443.940,\"1796291443.382\"]}]}}";
	struct promq_result r;
	char err[PROMQ_ERR_MAX];

	cr_assert_eq(parse(t, &r, err), 0, "%s", err);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.skipped, 0);
	cr_assert_eq(r.v[0].n_labels, 4);
	cr_assert_str_eq(promq_get(&r.v[0], "instance"), "127.0.0.1:18470");
	cr_assert_str_eq(promq_get(&r.v[0], "env"), "dev");
	cr_assert_null(promq_get(&r.v[0], "public_url"), "an empty label is an absent one");
	cr_assert_float_eq(r.v[0].value, 1796291443.382, 1e-6);
	cr_assert_float_eq(r.v[0].ts, 1796291443.940, 1e-6);
	cr_assert_float_eq(r.eval_ts, 1796291443.940, 1e-6);
	promq_result_free(&r);
	cr_assert_eq(r.n, 0);
	promq_result_free(&r); /* an emptied result again */
}

/* VictoriaMetrics: whole seconds; a warning; the special values Prometheus writes. */
Test(promq, victoriametrics_vector_and_special_values)
{
	const char *t = "{\"status\":\"success\",\"warnings\":[\"partial response\"],\"data\":{"
			"\"resultType\":\"vector\",\"result\":["
			"{\"metric\":{\"q\":\"a\"},\"value\":[1796291449,\"NaN\"]},"
			"{\"metric\":{\"q\":\"b\"},\"value\":[1796291449,\"+Inf\"]},"
			"{\"metric\":{\"q\":\"c\"},\"value\":[1796291449,\"-Inf\"]},"
			"{\"metric\":{\"q\":\"d\"},\"value\":[1796291449,\"2.5e+14\"]},"
			"{\"metric\":{},\"value\":[1796291450,\"0\"]}]}}";
	struct promq_result r;
	char err[PROMQ_ERR_MAX];

	cr_assert_eq(parse(t, &r, err), 0, "%s", err);
	cr_assert_eq(r.n, 5);
	cr_assert(isnan(r.v[0].value));
	cr_assert(isinf(r.v[1].value) && r.v[1].value > 0);
	cr_assert(isinf(r.v[2].value) && r.v[2].value < 0);
	cr_assert_float_eq(r.v[3].value, 2.5e14, 1);
	cr_assert_eq(r.v[4].n_labels, 0);
	cr_assert_float_eq(r.eval_ts, 1796291450, 1e-9, "the largest time");
	cr_assert_str_eq(r.warning, "partial response");
	promq_result_free(&r);
}

/* Cases that fail, each with the rule it checks. */
static const struct bad {
	const char *rule, *text;
	int want;
	const char *msg; /* part of the message */
} bads[] = {
	{"the engine's error is said as it gave it",
	 "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"1:1: parse error\"}",
	 -EPROTO, "bad_data: 1:1: parse error"},
	{"an error without a type", "{\"status\":\"error\",\"error\":\"x\"}", -EPROTO, "error: x"},
	{"not JSON (a proxy's HTML page)", "<html>502 Bad Gateway</html>", -EBADMSG, "not JSON"},
	{"a truncated answer", "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"res",
	 -EBADMSG, "not JSON"},
	{"JSON that is no answer", "[1,2]", -EBADMSG, "no \"status\""},
	{"success without data", "{\"status\":\"success\"}", -EBADMSG, "without \"data\""},
	{"a range query's matrix is not an instant vector",
	 "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}", -EBADMSG,
	 "matrix"},
	{"a scalar neither",
	 "{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[1,\"1\"]}}",
	 -EBADMSG, "a scalar answer"},
	{"a sample without metric",
	 "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"value\":[1,"
	 "\"1\"]}]}}",
	 -EBADMSG, "result 0"},
	{"a value that is not [time, value]",
	 "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},"
	 "\"value\":[1]}]}}",
	 -EBADMSG, "result 0"},
	{"a time that is no number",
	 "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},"
	 "\"value\":[\"x\",\"1\"]}]}}",
	 -EBADMSG, "result 0"},
	{"a label value that is not a string",
	 "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{"
	 "\"a\":1},\"value\":[1,\"1\"]}]}}",
	 -EBADMSG, "not a string"},
	{"a label given twice (RFC 8259 4: names SHOULD be unique; two values, which one?)",
	 "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{"
	 "\"a\":\"1\",\"a\":\"2\"},\"value\":[1,\"1\"]}]}}",
	 -EBADMSG, "not JSON"},
};

Test(promq, bad_answers)
{
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct promq_result r = {.n = 77};
		char err[PROMQ_ERR_MAX] = "";
		int got = parse(bads[i].text, &r, err);

		cr_assert_eq(got, bads[i].want, "%s: got %d (%s)", bads[i].rule, got, err);
		cr_assert(strstr(err, bads[i].msg), "%s: message '%s' lacks '%s'", bads[i].rule,
			  err, bads[i].msg);
		cr_assert_eq(r.n, 77, "%s: the result is untouched on failure", bads[i].rule);
	}
}

/* A sample the view cannot hold is left out and counted, the others kept. */
Test(promq, oversized_samples_are_left_out)
{
	char *t, *labels = NULL, *longv;
	size_t len;
	FILE *f = open_memstream(&labels, &len);
	struct promq_result r;
	char err[PROMQ_ERR_MAX];

	for (int i = 0; i <= PROMQ_LABELS_MAX; i++) /* one label too many */
		fprintf(f, "%s\"l%d\":\"v\"", i ? "," : "", i);
	fclose(f);
	longv = malloc(PROMQ_LABEL_LEN_MAX + 2);
	memset(longv, 'x', PROMQ_LABEL_LEN_MAX + 1);
	longv[PROMQ_LABEL_LEN_MAX + 1] = '\0';
	cr_assert_geq(
		asprintf(&t,
			 "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
			 "{\"metric\":{%s},\"value\":[1,\"1\"]},"
			 "{\"metric\":{\"a\":\"%s\"},\"value\":[1,\"1\"]},"
			 "{\"metric\":{\"a\":\"ok\"},\"value\":[1,\"12abc\"]},"
			 "{\"metric\":{\"a\":\"ok\"},\"value\":[1,\"\"]},"
			 "{\"metric\":{\"a\":\"ok\"},\"value\":[2,\"7\"]}]}}",
			 labels, longv),
		0);
	cr_assert_eq(parse(t, &r, err), 0, "%s", err);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.skipped, 4, "65 labels, a value of 4097 bytes, '12abc', ''");
	cr_assert_float_eq(r.v[0].value, 7, 0);
	promq_result_free(&r);
	free(t);
	free(labels);
	free(longv);
}

Test(promq, series)
{
	const char *t =
		"{\"status\":\"success\",\"data\":[{\"__name__\":\"nvmond_host_info\","
		"\"env\":\"prod\",\"job\":\"nvmond\",\"instance\":\"h1\",\"host\":\"h1\"}]}";
	struct promq_result r;
	char err[PROMQ_ERR_MAX];

	cr_assert_eq(promq_parse_series(t, strlen(t), &r, err), 0, "%s", err);
	cr_assert_eq(r.n, 1);
	cr_assert_str_eq(promq_get(&r.v[0], "__name__"), "nvmond_host_info");
	cr_assert_str_eq(promq_get(&r.v[0], "instance"), "h1");
	cr_assert(isnan(r.v[0].value) && isnan(r.v[0].ts));
	promq_result_free(&r);
	t = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}";
	cr_assert_eq(promq_parse_series(t, strlen(t), &r, err), -EBADMSG);
	t = "{\"status\":\"success\",\"data\":[\"nvmond_host_info\"]}";
	cr_assert_eq(promq_parse_series(t, strlen(t), &r, err), -EBADMSG);
	cr_assert(strstr(err, "series 0"), "%s", err);
}

/* The body need not end with NUL: only @len bytes are read. */
Test(promq, length_bounded)
{
	const char *t = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}"
			"}GARBAGE";
	struct promq_result r;
	char err[PROMQ_ERR_MAX];

	cr_assert_eq(promq_parse_vector(t, strlen(t) - 7, &r, err), 0, "%s", err);
	cr_assert_eq(r.n, 0);
	cr_assert_eq(r.eval_ts, 0);
	promq_result_free(&r);
	cr_assert_eq(promq_parse_vector(t, strlen(t), &r, err), -EBADMSG);
}

/* PromQL strings take Go's escapes: the quote and the backslash, control characters. */
Test(promq, string_literal)
{
	char *s = promq_string("a\"b\\c\nd\x01");

	cr_assert_str_eq(s, "\"a\\\"b\\\\c\\nd\\x01\"");
	free(s);
}

/*
 * An instance in a regex matcher must match itself only: RE2's metacharacters
 * escaped ('.' would match any character: 127.0.0.1 would match 127x0y0z1), then the
 * backslashes doubled for the string literal.
 */
Test(promq, regex_alternatives)
{
	const char *v[] = {"127.0.0.1:9470", "a|b", "x(y)*+?[]{}^$\\"};
	char *s = promq_regex_alternatives(v, 3);

	cr_assert_str_eq(
		s, "\"127\\\\.0\\\\.0\\\\.1:9470|a\\\\|b|x\\\\(y\\\\)\\\\*\\\\+\\\\?\\\\[\\\\]"
		   "\\\\{\\\\}\\\\^\\\\$\\\\\\\\\"");
	free(s);
}
