/* SPDX-License-Identifier: MIT */
/*
 * The text exposition format read back (rw_text.h): the grammar of the
 * format's version 0.0.4 as nvmond writes it (metric_name [ "{" label="value"
 * { "," label="value" } "}" ] value), and the live series set of a push.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/export/rw_text.h"

static bool name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static bool name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

/* A name at *p into scratch: Return: its copy, or NULL. */
static const char *take_name(const char **p, const char *end, char **w, const char *wend,
			     bool metric)
{
	const char *s = *p, *start = *w;

	if (s >= end || !name_start(*s) || (!metric && *s == ':'))
		return NULL;
	while (s < end && name_char(*s) && (metric || *s != ':')) {
		if (*w + 1 >= wend)
			return NULL;
		*(*w)++ = *s++;
	}
	*(*w)++ = '\0';
	*p = s;
	return start;
}

/* A quoted label value, unescaped. */
static const char *take_value(const char **p, const char *end, char **w, const char *wend)
{
	const char *s = *p, *start = *w;

	if (s >= end || *s != '"')
		return NULL;
	for (s++; s < end && *s != '"'; s++) {
		char c = *s;
		if (c == '\\') {
			if (++s >= end)
				return NULL;
			c = *s == 'n' ? '\n' : *s == '\\' ? '\\' : *s == '"' ? '"' : 0;
			if (!c)
				return NULL;
		} else if (c == '\n') {
			return NULL;
		}
		if (*w + 1 >= wend)
			return NULL;
		*(*w)++ = c;
	}
	if (s >= end)
		return NULL;
	*(*w)++ = '\0';
	*p = s + 1;
	return start;
}

static int parse_line(const char *s, const char *end, char *scratch, size_t size,
		      struct rw_text_sample *ret)
{
	char *w = scratch, *wend = scratch + size;
	char num[64];

	ret->n_labels = 0;
	ret->name = take_name(&s, end, &w, wend, true);
	if (!ret->name)
		return -EINVAL;
	if (s < end && *s == '{') {
		s++;
		while (s < end && *s != '}') {
			if (ret->n_labels == RW_TEXT_LABELS_MAX)
				return -EINVAL;
			struct rw_label *l = &ret->labels[ret->n_labels];
			l->name = take_name(&s, end, &w, wend, false);
			if (!l->name || s >= end || *s++ != '=')
				return -EINVAL;
			l->value = take_value(&s, end, &w, wend);
			if (!l->value)
				return -EINVAL;
			ret->n_labels++;
			if (s < end && *s == ',')
				s++;
			else if (s < end && *s != '}')
				return -EINVAL;
		}
		if (s >= end)
			return -EINVAL;
		s++;
	}
	if (s >= end || (*s != ' ' && *s != '\t'))
		return -EINVAL;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	size_t n = 0;
	while (s < end && *s != ' ' && *s != '\t' && n < sizeof(num) - 1)
		num[n++] = *s++;
	num[n] = '\0';
	/* An optional timestamp may follow: nvmond writes none, a push sets its own. */
	char *vend;
	ret->value = strtod(num, &vend);
	if (n == 0 || *vend)
		return -EINVAL;
	return 1;
}

int rw_text_next(const char *text, size_t len, size_t *pos, char *scratch, size_t scratch_size,
		 struct rw_text_sample *ret)
{
	while (*pos < len) {
		const char *s = text + *pos, *nl = memchr(s, '\n', len - *pos);
		const char *end = nl ? nl : text + len;

		*pos = (size_t)(end - text) + (nl ? 1 : 0);
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (s == end || *s == '#')
			continue;
		if ((size_t)(end - s) + 1 > scratch_size)
			return -EINVAL;
		return parse_line(s, end, scratch, scratch_size, ret);
	}
	return 0;
}

void rw_keys_free(struct rw_keys *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i]);
	free(k->v);
	k->v = NULL;
	k->n = 0;
}

/* "name\1value\2name\1value…" of normalized labels: no label text holds \1 or \2. */
static char *key_of(const struct rw_label *v, size_t n)
{
	size_t len = 1;

	for (size_t i = 0; i < n; i++)
		len += strlen(v[i].name) + strlen(v[i].value) + 2;
	char *k = malloc(len), *w = k;
	if (!k)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t a = strlen(v[i].name), b = strlen(v[i].value);
		memcpy(w, v[i].name, a);
		w += a;
		*w++ = '\1';
		memcpy(w, v[i].value, b);
		w += b;
		*w++ = '\2';
	}
	*w = '\0';
	return k;
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The labels of @key (in @b's strings) as a series with one stale marker at @ts_ms. */
static int stale_series(struct rw_batch *b, const char *key, int64_t ts_ms)
{
	struct rw_label v[RW_TEXT_LABELS_MAX * 2];
	size_t n = 0, idx;

	for (const char *p = key; *p && n < sizeof(v) / sizeof(v[0]);) {
		const char *sep = strchr(p, '\1'), *end = sep ? strchr(sep, '\2') : NULL;
		if (!end)
			return -EINVAL;
		v[n].name = rw_batch_strdup(b, p, (size_t)(sep - p));
		v[n].value = rw_batch_strdup(b, sep + 1, (size_t)(end - sep - 1));
		if (!v[n].name || !v[n].value)
			return -ENOMEM;
		n++;
		p = end + 1;
	}
	int r = rw_batch_series(b, v, n, 1, &idx);
	if (r < 0)
		return r;
	return rw_batch_sample(b, idx, ts_ms, rw_stale_nan());
}

int rw_live_build(struct rw_batch *b, const char *text, size_t len, const struct rw_label *ext,
		  size_t n_ext, int64_t ts_ms, const struct rw_keys *prev, struct rw_keys *ret)
{
	struct rw_keys cur = {0};
	size_t cap = 0, pos = 0;
	char *scratch = malloc(len + 1);
	struct rw_text_sample t;
	int r = 0, k;

	if (!scratch)
		return -ENOMEM;
	if (n_ext > RW_TEXT_LABELS_MAX)
		n_ext = RW_TEXT_LABELS_MAX;
	while ((k = rw_text_next(text, len, &pos, scratch, len + 1, &t)) != 0) {
		struct rw_label v[RW_TEXT_LABELS_MAX * 2 + 1];
		size_t n = 0, idx;

		if (k < 0)
			continue;
		v[n++] = (struct rw_label){"__name__", rw_batch_strdup(b, t.name, strlen(t.name))};
		for (size_t i = 0; i < t.n_labels; i++)
			v[n++] = (struct rw_label){
				rw_batch_strdup(b, t.labels[i].name, strlen(t.labels[i].name)),
				rw_batch_strdup(b, t.labels[i].value, strlen(t.labels[i].value))};
		for (size_t i = 0; i < n; i++)
			if (!v[i].name || !v[i].value) {
				r = -ENOMEM;
				goto out;
			}
		memcpy(v + n, ext, n_ext * sizeof(*ext));
		n += n_ext;
		r = rw_batch_series(b, v, n, 1, &idx);
		if (r == -EINVAL) {
			r = 0;
			continue;
		}
		if (r == 0)
			r = rw_batch_sample(b, idx, ts_ms, t.value);
		if (r < 0)
			goto out;
		/* The key of the normalized labels, as the batch holds them. */
		size_t kept = rw_labels_normalize(v, n);
		if (cur.n == cap) {
			size_t c = cap ? cap * 2 : 256;
			char **nv = realloc(cur.v, c * sizeof(*nv));
			if (!nv) {
				r = -ENOMEM;
				goto out;
			}
			cur.v = nv;
			cap = c;
		}
		cur.v[cur.n] = key_of(v, kept);
		if (!cur.v[cur.n]) {
			r = -ENOMEM;
			goto out;
		}
		cur.n++;
	}
	qsort(cur.v, cur.n, sizeof(*cur.v), key_cmp);
	/* Gone since the last push: a staleness marker, as a scrape gives one. */
	for (size_t i = 0, j = 0; prev && i < prev->n; i++) {
		while (j < cur.n && strcmp(cur.v[j], prev->v[i]) < 0)
			j++;
		if (j < cur.n && strcmp(cur.v[j], prev->v[i]) == 0)
			continue;
		r = stale_series(b, prev->v[i], ts_ms);
		if (r == -EINVAL)
			r = 0;
		if (r < 0)
			goto out;
	}
	*ret = cur;
	cur = (struct rw_keys){0};
out:
	rw_keys_free(&cur);
	free(scratch);
	return r;
}
