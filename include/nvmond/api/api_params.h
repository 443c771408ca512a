/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * One parser for every endpoint's query string. An endpoint declares its
 * parameters in a table (name, kind, range, where the value goes) and calls
 * api_params_parse() once; unknown, repeated and malformed parameters then get
 * the same 400, with the same message, on every endpoint:
 *
 *   unknown query parameter 'x' (known: from, to, limit)
 *   parameter 'from' given twice
 *   parameter 'limit' must be an integer from 1 to 100000
 *   parameter 'from' must be an RFC 3339 time or unix milliseconds, years 0000 to 9999
 *   parameter 'step' must be a duration ("60s", "5m", "1h", or seconds) of at least 1s
 *   parameter 'kind' must be one of: a, b, c
 *   parameter 'x' is required
 *
 * A value is needed: "?from" and "?from=" are malformed. Pure: no clock, no I/O.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/api/api.h"

/* Times are refused outside years 0000 to 9999 (UTC) by timefmt_parse(). */

enum api_param_kind {
	API_PARAM_INT,	    /* a decimal integer ("-" allowed, no "+", no spaces) in [min, max] */
	API_PARAM_TIME,	    /* RFC 3339 or unix ms (timefmt_parse()), years 0000 to 9999 */
	API_PARAM_DURATION, /* "250ms", "60s", "5m", "1h", "1d" or seconds, in [min, max] ms */
	API_PARAM_ENUM,	    /* one of .names; the index goes to .dest.index */
	API_PARAM_STRING,   /* any value without control bytes (nor a decoded %00) */
	API_PARAM_BOOL,	    /* "true", "false", "1" or "0" */
};

/*
 * One parameter. The destination keeps its value when the parameter is absent,
 * so initialise it with the default; nothing is written unless the whole query
 * is valid.
 */
struct api_param {
	const char *name;
	enum api_param_kind kind;
	bool required;		  /* absent: 400 "parameter 'x' is required" */
	int64_t min, max;	  /* API_PARAM_INT, API_PARAM_DURATION (ms) */
	const char *const *names; /* API_PARAM_ENUM: NULL-terminated */
	union {
		int64_t *i64;	  /* INT, TIME (unix ms), DURATION (ms) */
		int *index;	  /* ENUM */
		const char **str; /* STRING: points into the request, valid during it */
		bool *flag;	  /* BOOL */
	} dest;
	bool *given; /* optional: set to whether the parameter was given */
};

/**
 * api_params_parse_query() - Check @v against the table @t and fill its destinations.
 * @ret_err: the 400 message, naming the parameter
 * Return: 0 with every given parameter stored (and every .given set), or -EINVAL
 * with nothing written.
 */
int api_params_parse_query(const struct api_query_param *v, size_t n, const struct api_param *t,
			   size_t n_t, char ret_err[API_ERR_MAX]);

/**
 * api_params_parse() - api_params_parse_query() on @req's query, for a handler.
 * On failure @ret becomes the 400 error; the handler just returns.
 * Return: 0, or -EINVAL.
 */
int api_params_parse(const struct api_request *req, const struct api_param *t, size_t n_t,
		     struct api_reply *ret);

/**
 * api_parse_int64() - A decimal int64 of exactly @len bytes: optional '-', then
 * digits, nothing else. Values beyond int64 are refused, never wrapped.
 * Return: 0 with *ret set, or -EINVAL (also for out of range).
 */
int api_parse_int64(const char *s, size_t len, int64_t *ret);
