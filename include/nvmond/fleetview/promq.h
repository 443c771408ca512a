/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * The answers of a Prometheus-compatible HTTP query API (Prometheus, VictoriaMetrics
 * single or vmselect, Thanos Query, Mimir), parsed into plain C: an instant vector
 * (GET/POST /api/v1/query) or the label sets of /api/v1/series. Pure: text in,
 * samples out; nothing here does I/O, logs or reads the clock. The text comes from
 * the network, so every field is checked: a wrong type is an error, an oversized
 * sample is left out and counted, never trusted.
 */

#define PROMQ_SAMPLES_MAX   2000000 /* more in one answer: -E2BIG */
#define PROMQ_LABELS_MAX    64	    /* a sample with more labels is left out */
#define PROMQ_LABEL_LEN_MAX 4096    /* a label name or value longer: the sample is left out */
#define PROMQ_ERR_MAX	    256

struct promq_label {
	const char *name;
	const char *value;
};

struct promq_sample {
	const struct promq_label *labels; /* as the engine sent them ("__name__" included) */
	size_t n_labels;
	double value; /* NaN, ±Inf allowed; NaN for a label set of /series */
	double ts;    /* seconds: the evaluation time the engine gives the sample (instant) */
};

struct promq_arena;

struct promq_result {
	struct promq_sample *v;
	size_t n;
	size_t skipped;		     /* samples left out: too many labels, too long, a bad value */
	double eval_ts;		     /* the largest sample time of an instant vector; 0 when none */
	char warning[PROMQ_ERR_MAX]; /* the engine's first warning, "" when none */
	struct promq_arena *arena;   /* owns every string and label array */
};

/**
 * promq_parse_vector() - Parse the answer of an instant query: status "success" with
 * data.resultType "vector".
 * @body: the HTTP body, @len bytes (need not be NUL-terminated)
 * @ret: filled on success (free with promq_result_free()); untouched on failure
 * @err: PROMQ_ERR_MAX bytes: why it failed
 * Return: 0; -EBADMSG when the text is not such an answer (not JSON, a field of the
 * wrong type, another resultType); -EPROTO when the engine answered status "error"
 * (@err holds its errorType and error); -E2BIG beyond PROMQ_SAMPLES_MAX; -ENOMEM.
 */
int promq_parse_vector(const char *body, size_t len, struct promq_result *ret, char *err);

/**
 * promq_parse_series() - Parse the answer of /api/v1/series: data is an array of label
 * sets; each becomes a sample with value and ts NaN.
 * Return: as promq_parse_vector().
 */
int promq_parse_series(const char *body, size_t len, struct promq_result *ret, char *err);

/** promq_result_free() - Free what @r holds and empty it. Accepts an emptied result. */
void promq_result_free(struct promq_result *r);

/** promq_get() - The value of label @name of @s. Return: it, or NULL when @s has none. */
const char *promq_get(const struct promq_sample *s, const char *name);

/**
 * promq_string() - @s as a PromQL string literal, quotes included: '"', '\' and
 * control characters escaped. Return: a malloc()ed string, or NULL (out of memory).
 */
char *promq_string(const char *s);

/**
 * promq_regex_alternatives() - A PromQL string literal holding an RE2 regex that
 * matches exactly the strings @v (@n of them, n ≥ 1): each one's metacharacters
 * escaped, joined by '|'. Return: a malloc()ed string, or NULL (out of memory).
 */
char *promq_regex_alternatives(const char *const *v, size_t n);
