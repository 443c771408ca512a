/* SPDX-License-Identifier: MIT */
/*
 * The query API's answers parsed into samples (see promq.h): jansson reads the text,
 * every string is copied into an arena owned by the result, so that the JSON tree
 * can go at once and a result of 100,000 samples is a handful of allocations.
 */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "nvmond/fleetview/promq.h"

/* ---- the arena -------------------------------------------------------------- */

#define ARENA_BLOCK (64 * 1024)

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	max_align_t data[]; /* aligned for any type */
};

struct promq_arena {
	struct arena_block *head;
};

static void *arena_alloc(struct promq_arena *a, size_t len)
{
	struct arena_block *b = a->head;
	size_t align = sizeof(max_align_t);

	len = (len + align - 1) / align * align;
	if (!b || b->size - b->used < len) {
		size_t size = len > ARENA_BLOCK ? len : ARENA_BLOCK;
		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->size = size;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += len;
	return p;
}

static const char *arena_strndup(struct promq_arena *a, const char *s, size_t len)
{
	char *p = arena_alloc(a, len + 1);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

static void arena_free(struct promq_arena *a)
{
	if (!a)
		return;
	for (struct arena_block *b = a->head, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(a);
}

/* ---- parsing -------------------------------------------------------------- */

static int parse_fail(char *err, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int parse_fail(char *err, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, PROMQ_ERR_MAX, fmt, ap);
	va_end(ap);
	return r;
}

/*
 * A sample value as Prometheus writes it: a string holding a float ("1", "2.5e+10",
 * "NaN", "+Inf", "-Inf"). Return: true with @ret, false when it is none.
 */
static bool parse_float(const json_t *j, double *ret)
{
	const char *s;
	char *end;
	double v;

	if (json_is_number(j)) { /* not what the API sends, but unambiguous */
		*ret = json_number_value(j);
		return true;
	}
	if (!json_is_string(j))
		return false;
	s = json_string_value(j);
	if (!s[0] || s[0] == ' ' || strlen(s) != json_string_length(j))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (*end != '\0' || (errno == ERANGE && isfinite(v) && v != 0))
		return false;
	*ret = v;
	return true;
}

/*
 * The labels of one sample (a JSON object of strings) into the arena.
 * Return: 1 taken, 0 left out (too many, too long, an embedded NUL), negative errno.
 */
static int take_labels(struct promq_arena *a, const json_t *metric, struct promq_sample *s)
{
	size_t n = json_object_size(metric), i = 0;
	struct promq_label *l;
	const char *key;
	json_t *val;

	if (n > PROMQ_LABELS_MAX)
		return 0;
	json_object_foreach((json_t *)metric, key, val)
	{
		size_t klen = strlen(key);
		if (!json_is_string(val))
			return -EBADMSG;
		if (klen == 0 || klen > PROMQ_LABEL_LEN_MAX ||
		    json_string_length(val) > PROMQ_LABEL_LEN_MAX ||
		    strlen(json_string_value(val)) != json_string_length(val))
			return 0;
	}
	l = n ? arena_alloc(a, n * sizeof(*l)) : NULL;
	if (n && !l)
		return -ENOMEM;
	json_object_foreach((json_t *)metric, key, val)
	{
		l[i].name = arena_strndup(a, key, strlen(key));
		l[i].value = arena_strndup(a, json_string_value(val), json_string_length(val));
		if (!l[i].name || !l[i].value)
			return -ENOMEM;
		i++;
	}
	s->labels = l;
	s->n_labels = n;
	return 1;
}

/*
 * take_labels() of the labels of @what @i of the answer ("result 3"), its
 * failure said in @err. Return: as take_labels().
 */
static int take_labels_of(struct promq_arena *a, const json_t *metric, struct promq_sample *s,
			  const char *what, size_t i, char *err)
{
	int k = take_labels(a, metric, s);

	if (k == -EBADMSG)
		parse_fail(err, k, "%s %zu: a label value that is not a string", what, i);
	else if (k < 0)
		parse_fail(err, k, "out of memory");
	return k;
}

/* data of a successful answer, or the engine's error. */
static int answer_data(const char *body, size_t len, json_t **ret_root, json_t **ret_data,
		       struct promq_result *r, char *err)
{
	json_error_t je;
	json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je), *status, *data;

	if (!root)
		return parse_fail(err, -EBADMSG, "not JSON (line %d: %s)", je.line, je.text);
	status = json_object_get(root, "status");
	if (!json_is_object(root) || !json_is_string(status)) {
		json_decref(root);
		return parse_fail(err, -EBADMSG, "not a query API answer (no \"status\")");
	}
	if (strcmp(json_string_value(status), "success") != 0) {
		const json_t *type = json_object_get(root, "errorType");
		const json_t *msg = json_object_get(root, "error");
		int rr = parse_fail(err, -EPROTO, "%s: %s",
				    json_is_string(type) ? json_string_value(type) : "error",
				    json_is_string(msg) ? json_string_value(msg)
							: json_string_value(status));
		json_decref(root);
		return rr;
	}
	const json_t *warn = json_object_get(root, "warnings");
	const json_t *w0 = json_is_array(warn) ? json_array_get(warn, 0) : NULL;
	if (json_is_string(w0))
		snprintf(r->warning, sizeof(r->warning), "%s", json_string_value(w0));
	data = json_object_get(root, "data");
	if (!data) {
		json_decref(root);
		return parse_fail(err, -EBADMSG, "a successful answer without \"data\"");
	}
	*ret_root = root;
	*ret_data = data;
	return 0;
}

static int result_start(struct promq_result *r, size_t n, char *err)
{
	if (n > PROMQ_SAMPLES_MAX)
		return parse_fail(err, -E2BIG, "%zu series in one answer (at most %d)", n,
				  PROMQ_SAMPLES_MAX);
	r->arena = calloc(1, sizeof(*r->arena));
	r->v = n ? calloc(n, sizeof(*r->v)) : NULL;
	if (!r->arena || (n && !r->v))
		return parse_fail(err, -ENOMEM, "out of memory");
	return 0;
}

/* The end of a parse: @r into @ret when @k is 0, else freed. Return: 0, or @k when negative. */
static int result_end(struct promq_result *r, int k, struct promq_result *ret)
{
	if (k < 0) {
		promq_result_free(r);
		return k;
	}
	*ret = *r;
	return 0;
}

int promq_parse_vector(const char *body, size_t len, struct promq_result *ret, char *err)
{
	struct promq_result r = {0};
	json_t *root = NULL, *data, *type, *result, *item;
	size_t i;
	int k;

	k = answer_data(body, len, &root, &data, &r, err);
	if (k < 0)
		return k;
	type = json_object_get(data, "resultType");
	result = json_object_get(data, "result");
	if (!json_is_string(type) || !json_is_array(result)) {
		k = parse_fail(err, -EBADMSG, "no data.resultType or data.result");
		goto out;
	}
	if (strcmp(json_string_value(type), "vector") != 0) {
		k = parse_fail(err, -EBADMSG, "a %.32s answer, not an instant vector",
			       json_string_value(type));
		goto out;
	}
	k = result_start(&r, json_array_size(result), err);
	if (k < 0)
		goto out;
	json_array_foreach(result, i, item)
	{
		const json_t *metric = json_object_get(item, "metric");
		const json_t *value = json_object_get(item, "value");
		struct promq_sample s = {0};
		double ts;

		if (!json_is_object(metric) || !json_is_array(value) ||
		    json_array_size(value) != 2 || !parse_float(json_array_get(value, 0), &ts) ||
		    !isfinite(ts)) {
			k = parse_fail(err, -EBADMSG,
				       "result %zu: no \"metric\" object or [time, value]", i);
			goto out;
		}
		if (!parse_float(json_array_get(value, 1), &s.value)) {
			r.skipped++;
			continue;
		}
		s.ts = ts;
		k = take_labels_of(r.arena, metric, &s, "result", i, err);
		if (k < 0)
			goto out;
		if (k == 0) {
			r.skipped++;
			continue;
		}
		if (ts > r.eval_ts)
			r.eval_ts = ts;
		r.v[r.n++] = s;
	}
	k = 0;
out:
	json_decref(root);
	return result_end(&r, k, ret);
}

int promq_parse_series(const char *body, size_t len, struct promq_result *ret, char *err)
{
	struct promq_result r = {0};
	json_t *root = NULL, *data, *item;
	size_t i;
	int k;

	k = answer_data(body, len, &root, &data, &r, err);
	if (k < 0)
		return k;
	if (!json_is_array(data)) {
		k = parse_fail(err, -EBADMSG, "data is not an array of label sets");
		goto out;
	}
	k = result_start(&r, json_array_size(data), err);
	if (k < 0)
		goto out;
	json_array_foreach(data, i, item)
	{
		struct promq_sample s = {.value = NAN, .ts = NAN};

		if (!json_is_object(item)) {
			k = parse_fail(err, -EBADMSG, "series %zu is not a label set", i);
			goto out;
		}
		k = take_labels_of(r.arena, item, &s, "series", i, err);
		if (k < 0)
			goto out;
		if (k == 0) {
			r.skipped++;
			continue;
		}
		r.v[r.n++] = s;
	}
	k = 0;
out:
	json_decref(root);
	return result_end(&r, k, ret);
}

void promq_result_free(struct promq_result *r)
{
	free(r->v);
	arena_free(r->arena);
	*r = (struct promq_result){0};
}

const char *promq_get(const struct promq_sample *s, const char *name)
{
	for (size_t i = 0; i < s->n_labels; i++)
		if (strcmp(s->labels[i].name, name) == 0)
			return s->labels[i].value;
	return NULL;
}

/* ---- PromQL literals ------------------------------------------------------ */

/* Append @s to @f as the inside of a double-quoted PromQL string (Go's escapes). */
static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

/* Close a memstream over *@buf. Return: the text, or NULL (freed) when it failed. */
static char *memstream_done(FILE *f, char **buf)
{
	bool bad = ferror(f) != 0;

	if (fclose(f) != 0 || bad) {
		free(*buf);
		*buf = NULL;
	}
	return *buf;
}

char *promq_string(const char *s)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputc('"', f);
	put_escaped(f, s);
	fputc('"', f);
	return memstream_done(f, &buf);
}

char *promq_regex_alternatives(const char *const *v, size_t n)
{
	static const char meta[] = "\\.+*?()|[]{}^$";
	char *buf = NULL, *re = NULL, *out;
	size_t len, relen;
	FILE *f = open_memstream(&re, &relen);

	if (!f)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc('|', f);
		for (const char *s = v[i]; *s; s++) {
			if (strchr(meta, *s))
				fputc('\\', f);
			fputc(*s, f);
		}
	}
	re = memstream_done(f, &re);
	if (!re)
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f) {
		free(re);
		return NULL;
	}
	fputc('"', f);
	put_escaped(f, re);
	fputc('"', f);
	free(re);
	out = memstream_done(f, &buf);
	return out;
}
