/* SPDX-License-Identifier: MIT */
/*
 * The one query parser of every endpoint (api_params.h). Each case states the
 * rule it checks; a failure must give exactly the message every endpoint gives,
 * and write nothing.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/api/api_params.h"

/* The destinations of the table below, with recognisable defaults. */
struct out {
	int64_t from, to, limit, step;
	int kind;
	const char *who;
	bool on, has_from;
};

static const struct out defaults = {
	.from = -1, .to = -2, .limit = 10, .kind = -1, .who = "dflt", .has_from = true};

static const char *const kinds[] = {"a", "b", "c", NULL};

static void table(struct out *o, struct api_param t[7])
{
	const struct api_param v[7] = {
		{.name = "from",
		 .kind = API_PARAM_TIME,
		 .dest.i64 = &o->from,
		 .given = &o->has_from},
		{.name = "to", .kind = API_PARAM_TIME, .dest.i64 = &o->to},
		{.name = "limit",
		 .kind = API_PARAM_INT,
		 .min = 1,
		 .max = 100000,
		 .dest.i64 = &o->limit},
		{.name = "step",
		 .kind = API_PARAM_DURATION,
		 .min = 1000,
		 .max = 3650 * 86400000LL,
		 .dest.i64 = &o->step},
		{.name = "kind", .kind = API_PARAM_ENUM, .names = kinds, .dest.index = &o->kind},
		{.name = "who", .kind = API_PARAM_STRING, .dest.str = &o->who},
		{.name = "on", .kind = API_PARAM_BOOL, .dest.flag = &o->on},
	};
	memcpy(t, v, sizeof(v));
}

static void dump(const struct out *o, char *buf, size_t size)
{
	snprintf(buf, size,
		 "from=%" PRId64 " to=%" PRId64 " limit=%" PRId64 " step=%" PRId64
		 " kind=%d who=%s on=%d given=%d",
		 o->from, o->to, o->limit, o->step, o->kind, o->who, o->on, o->has_from);
}

#define KNOWN	  "(known: from, to, limit, step, kind, who, on)"
#define DFLT	  "from=-1 to=-2 limit=10 step=0 kind=-1 who=dflt on=0 given=0"
#define BAD_LIMIT "parameter 'limit' must be an integer from 1 to 100000"
#define BAD_FROM                                                                                   \
	"parameter 'from' must be an RFC 3339 time or unix milliseconds, years 0000 to 9999"
#define BAD_TO "parameter 'to' must be an RFC 3339 time or unix milliseconds, years 0000 to 9999"
#define BAD_STEP                                                                                   \
	"parameter 'step' must be a duration (\"60s\", \"5m\", \"1h\", or seconds) from 1s to "    \
	"3650d"

static const struct {
	const char *rule;
	struct api_query_param q[3];
	size_t n;
	const char *want; /* the destinations after success, or the 400 message */
} rules[] = {
	/* ---- what is accepted, and where it goes */
	{"no query: every destination keeps its default", {{0}}, 0, DFLT},
	{"an RFC 3339 UTC time",
	 {{"from", "2025-11-30T00:00:00Z"}},
	 1,
	 "from=1764460800000 to=-2 limit=10 step=0 kind=-1 who=dflt on=0 given=1"},
	{"an RFC 3339 time with an offset and a fraction",
	 {{"to", "2025-11-30T01:00:00.5+01:00"}},
	 1,
	 "from=-1 to=1764460800500 limit=10 step=0 kind=-1 who=dflt on=0 given=0"},
	{"unix milliseconds, negative ones too (before 1970)",
	 {{"from", "-1000"}, {"to", "1000"}},
	 2,
	 "from=-1000 to=1000 limit=10 step=0 kind=-1 who=dflt on=0 given=1"},
	{"0000-01-01 and 9999-12-31T23:59:59.999 are the first and last times",
	 {{"from", "0000-01-01T00:00:00Z"}, {"to", "9999-12-31T23:59:59.999Z"}},
	 2,
	 "from=-62167219200000 to=253402300799999 limit=10 step=0 kind=-1 who=dflt on=0 given=1"},
	{"the same limits in unix ms",
	 {{"from", "-62167219200000"}, {"to", "253402300799999"}},
	 2,
	 "from=-62167219200000 to=253402300799999 limit=10 step=0 kind=-1 who=dflt on=0 given=1"},
	{"an integer at its lower bound",
	 {{"limit", "1"}},
	 1,
	 "from=-1 to=-2 limit=1 step=0 kind=-1 who=dflt on=0 given=0"},
	{"an integer at its upper bound",
	 {{"limit", "100000"}},
	 1,
	 "from=-1 to=-2 limit=100000 step=0 kind=-1 who=dflt on=0 given=0"},
	{"a duration in minutes",
	 {{"step", "5m"}},
	 1,
	 "from=-1 to=-2 limit=10 step=300000 kind=-1 who=dflt on=0 given=0"},
	{"a bare duration is seconds",
	 {{"step", "90"}},
	 1,
	 "from=-1 to=-2 limit=10 step=90000 kind=-1 who=dflt on=0 given=0"},
	{"a duration at its lower bound, in ms",
	 {{"step", "1000ms"}},
	 1,
	 "from=-1 to=-2 limit=10 step=1000 kind=-1 who=dflt on=0 given=0"},
	{"a duration at its upper bound, in days",
	 {{"step", "3650d"}},
	 1,
	 "from=-1 to=-2 limit=10 step=315360000000 kind=-1 who=dflt on=0 given=0"},
	{"an enum gives the index of its name",
	 {{"kind", "c"}},
	 1,
	 "from=-1 to=-2 limit=10 step=0 kind=2 who=dflt on=0 given=0"},
	{"a string is taken as it is, spaces and UTF-8 too",
	 {{"who", "Zoë and me"}},
	 1,
	 "from=-1 to=-2 limit=10 step=0 kind=-1 who=Zoë and me on=0 given=0"},
	{"a bool is true or 1",
	 {{"on", "1"}},
	 1,
	 "from=-1 to=-2 limit=10 step=0 kind=-1 who=dflt on=1 given=0"},
	{"parameters come in any order",
	 {{"on", "true"}, {"limit", "7"}, {"from", "5"}},
	 3,
	 "from=5 to=-2 limit=7 step=0 kind=-1 who=dflt on=1 given=1"},

	/* ---- unknown parameters: named (when printable), with the known ones */
	{"an unknown parameter is refused, the known ones listed",
	 {{"bogus", "1"}},
	 1,
	 "unknown query parameter 'bogus' " KNOWN},
	{"names are case-sensitive", {{"From", "1"}}, 1, "unknown query parameter 'From' " KNOWN},
	{"an unknown parameter without a value is still unknown",
	 {{"x", NULL}},
	 1,
	 "unknown query parameter 'x' " KNOWN},
	{"an empty name is unknown", {{"", "1"}}, 1, "unknown query parameter '' " KNOWN},
	{"a name with a control byte is not echoed",
	 {{"x\x01y", "1"}},
	 1,
	 "unknown query parameter " KNOWN},
	{"a name over 64 bytes is not echoed",
	 {{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "1"}},
	 1,
	 "unknown query parameter " KNOWN},
	{"an unknown parameter fails even after valid ones",
	 {{"limit", "5"}, {"lmit", "5"}},
	 2,
	 "unknown query parameter 'lmit' " KNOWN},

	/* ---- repeated parameters */
	{"a parameter given twice is refused",
	 {{"from", "1"}, {"from", "2"}},
	 2,
	 "parameter 'from' given twice"},
	{"twice is refused even with the same value",
	 {{"limit", "5"}, {"limit", "5"}},
	 2,
	 "parameter 'limit' given twice"},
	{"the first problem is the one reported",
	 {{"from", "yesterday"}, {"bogus", "1"}},
	 2,
	 BAD_FROM},

	/* ---- integers: decimal digits, an optional '-', in range, never wrapped */
	{"an integer below its range", {{"limit", "0"}}, 1, BAD_LIMIT},
	{"an integer above its range", {{"limit", "100001"}}, 1, BAD_LIMIT},
	{"a negative integer below its range", {{"limit", "-1"}}, 1, BAD_LIMIT},
	{"a word is no integer", {{"limit", "ten"}}, 1, BAD_LIMIT},
	{"a leading space (points=%205) is no integer", {{"limit", " 5"}}, 1, BAD_LIMIT},
	{"a trailing space is no integer", {{"limit", "5 "}}, 1, BAD_LIMIT},
	{"a '+' sign is no integer", {{"limit", "+5"}}, 1, BAD_LIMIT},
	{"hexadecimal is no integer", {{"limit", "0x10"}}, 1, BAD_LIMIT},
	{"an exponent is no integer", {{"limit", "1e3"}}, 1, BAD_LIMIT},
	{"20 nines overflow int64: refused, not wrapped",
	 {{"limit", "99999999999999999999"}},
	 1,
	 BAD_LIMIT},
	{"2^64 + 5 is refused, not wrapped to 5",
	 {{"limit", "18446744073709551621"}},
	 1,
	 BAD_LIMIT},
	{"INT64_MAX + 1 is refused", {{"limit", "9223372036854775808"}}, 1, BAD_LIMIT},
	{"an empty value is malformed", {{"limit", ""}}, 1, BAD_LIMIT},
	{"no value at all (?limit) is malformed", {{"limit", NULL}}, 1, BAD_LIMIT},

	/* ---- times: RFC 3339 or unix ms, years 0000 to 9999 */
	{"a word is no time", {{"from", "yesterday"}}, 1, BAD_FROM},
	{"month 13 is no date", {{"to", "2025-13-01T00:00:00Z"}}, 1, BAD_TO},
	{"2100 is no leap year", {{"from", "2100-02-29T00:00:00Z"}}, 1, BAD_FROM},
	{"INT64_MIN ms is before year 0000", {{"from", "-9223372036854775808"}}, 1, BAD_FROM},
	{"INT64_MAX ms is after year 9999", {{"to", "9223372036854775807"}}, 1, BAD_TO},
	{"one ms before year 0000", {{"from", "-62167219200001"}}, 1, BAD_FROM},
	{"one ms after year 9999", {{"to", "253402300800000"}}, 1, BAD_TO},
	{"an offset that moves year 0000 into year -1",
	 {{"from", "0000-01-01T00:00:00+00:01"}},
	 1,
	 BAD_FROM},
	{"unix ms beyond int64 are refused, not wrapped",
	 {{"from", "99999999999999999999"}},
	 1,
	 BAD_FROM},
	{"a decoded %00 (a control byte) spoils a time", {{"from", "1000\x01"}}, 1, BAD_FROM},
	{"an empty time is malformed", {{"from", ""}}, 1, BAD_FROM},

	/* ---- durations: a number and a unit, in range */
	{"a duration below its range", {{"step", "999ms"}}, 1, BAD_STEP},
	{"zero is below the range", {{"step", "0"}}, 1, BAD_STEP},
	{"a duration above its range", {{"step", "3651d"}}, 1, BAD_STEP},
	{"INT64_MAX seconds overflow: refused, not wrapped",
	 {{"step", "9223372036854775807s"}},
	 1,
	 BAD_STEP},
	{"INT64_MAX ms is above the range", {{"step", "9223372036854775807ms"}}, 1, BAD_STEP},
	{"an unknown unit", {{"step", "1w"}}, 1, BAD_STEP},
	{"a negative duration", {{"step", "-5s"}}, 1, BAD_STEP},
	{"a space inside a duration", {{"step", "5 m"}}, 1, BAD_STEP},

	/* ---- enums, strings, bools */
	{"an enum outside its names",
	 {{"kind", "d"}},
	 1,
	 "parameter 'kind' must be one of: a, b, c"},
	{"enum names are case-sensitive",
	 {{"kind", "A"}},
	 1,
	 "parameter 'kind' must be one of: a, b, c"},
	{"a string with a control byte",
	 {{"who", "a\x01b"}},
	 1,
	 "parameter 'who' must be text without control characters"},
	{"an empty string is malformed",
	 {{"who", ""}},
	 1,
	 "parameter 'who' must be text without control characters"},
	{"a bool is not 'yes'", {{"on", "yes"}}, 1, "parameter 'on' must be true or false"},
	{"bool words are lower case", {{"on", "TRUE"}}, 1, "parameter 'on' must be true or false"},
};

Test(api_params, table)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		struct out o = defaults;
		struct api_param t[7];
		char err[API_ERR_MAX] = "", got[512];
		int r;

		table(&o, t);
		r = api_params_parse_query(rules[i].q, rules[i].n, t, 7, err);
		if (r == 0) {
			dump(&o, got, sizeof(got));
			cr_expect_str_eq(got, rules[i].want, "%s", rules[i].rule);
			continue;
		}
		cr_expect_eq(r, -EINVAL, "%s: %d", rules[i].rule, r);
		cr_expect_str_eq(err, rules[i].want, "%s", rules[i].rule);
		dump(&o, got, sizeof(got));
		/* "given" is written with the rest: on failure it keeps its 1. */
		cr_expect_str_eq(got, "from=-1 to=-2 limit=10 step=0 kind=-1 who=dflt on=0 given=1",
				 "%s: a destination written on failure", rules[i].rule);
	}
}

Test(api_params, required)
{
	int64_t id = 42;
	const struct api_param t[] = {
		{.name = "id",
		 .kind = API_PARAM_INT,
		 .required = true,
		 .min = 1,
		 .max = 9,
		 .dest.i64 = &id},
	};
	const struct api_query_param q = {"id", "7"};
	char err[API_ERR_MAX] = "";

	/* A required parameter that is absent is refused by name. */
	cr_expect_eq(api_params_parse_query(NULL, 0, t, 1, err), -EINVAL);
	cr_expect_str_eq(err, "parameter 'id' is required");
	cr_expect_eq(id, 42);
	/* Given, it is taken. */
	cr_expect_eq(api_params_parse_query(&q, 1, t, 1, err), 0, "%s", err);
	cr_expect_eq(id, 7);
}

Test(api_params, no_parameters)
{
	const struct api_query_param q = {"x", "1"};
	char err[API_ERR_MAX] = "";

	/* An endpoint without a query accepts none, and says so the same way. */
	cr_expect_eq(api_params_parse_query(NULL, 0, NULL, 0, err), 0);
	cr_expect_eq(api_params_parse_query(&q, 1, NULL, 0, err), -EINVAL);
	cr_expect_str_eq(err, "unknown query parameter 'x' (known: none)");
}

Test(api_params, unbounded_integers)
{
	static const struct {
		const char *rule, *in;
		int r;
		int64_t want;
	} cases[] = {
		{"INT64_MIN is an int64", "-9223372036854775808", 0, INT64_MIN},
		{"INT64_MAX is an int64", "9223372036854775807", 0, INT64_MAX},
		{"INT64_MIN - 1 is refused, not wrapped", "-9223372036854775809", -EINVAL, 0},
		{"INT64_MAX + 1 is refused, not wrapped", "9223372036854775808", -EINVAL, 0},
		{"'-' alone is no integer", "-", -EINVAL, 0},
		{"'-0' is zero", "-0", 0, 0},
		{"leading zeros are fine", "007", 0, 7},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t n = 4242;
		const struct api_param t[] = {
			{.name = "n",
			 .kind = API_PARAM_INT,
			 .min = INT64_MIN,
			 .max = INT64_MAX,
			 .dest.i64 = &n},
		};
		const struct api_query_param q = {"n", cases[i].in};
		char err[API_ERR_MAX] = "";
		int r = api_params_parse_query(&q, 1, t, 1, err);

		cr_expect_eq(r, cases[i].r, "%s: %d", cases[i].rule, r);
		if (r == 0)
			cr_expect_eq(n, cases[i].want, "%s: %" PRId64, cases[i].rule, n);
		else
			/* An unbounded integer's message states no range. */
			cr_expect_str_eq(err, "parameter 'n' must be an integer", "%s",
					 cases[i].rule);
	}
}
