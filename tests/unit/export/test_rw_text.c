/* SPDX-License-Identifier: MIT */
/*
 * The live part of a push: /metrics' own text read back into series, and a
 * staleness marker for a series gone since the last push that went through.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "nvmond/export/rw_text.h"
#include "nvmond/metrics/metrics.h"
#include "remote.pb-c.h"

static Prometheus__WriteRequest *encode_decode(struct rw_batch *b)
{
	uint8_t *body;
	size_t len, raw_len;

	cr_assert_eq(rw_batch_encode(b, &body, &len, NULL), 0);
	cr_assert_eq(snappy_uncompressed_length((const char *)body, len, &raw_len), SNAPPY_OK);
	char *raw = malloc(raw_len + 1);
	cr_assert_eq(snappy_uncompress((const char *)body, len, raw, &raw_len), SNAPPY_OK);
	Prometheus__WriteRequest *w =
		prometheus__write_request__unpack(NULL, raw_len, (const uint8_t *)raw);
	cr_assert_not_null(w);
	free(raw);
	free(body);
	return w;
}

static const char *label(const Prometheus__TimeSeries *t, const char *name)
{
	for (size_t i = 0; i < t->n_labels; i++)
		if (!strcmp(t->labels[i]->name, name))
			return t->labels[i]->value;
	return NULL;
}

/* The text format 0.0.4: "label_value can be any sequence of UTF-8 characters, but
 * the backslash, the double-quote and the line feed must be escaped as \\, \" and \n". */
Test(rw_text, lines_and_escapes)
{
	const char text[] = "# HELP a_total A counter.\n"
			    "# TYPE a_total counter\n"
			    "a_total{x=\"1\",y=\"q\\\"uo\\\\te\\n\"} 12345678901234567890\n"
			    "\n"
			    "plain 1.5\n"
			    "bad{x=\"unterminated} 1\n"
			    "nvmond_start_time_seconds 1699999999.000\n"
			    "two{a=\"b\",} -3e2\n";
	char scratch[256];
	struct rw_text_sample t;
	size_t pos = 0;

	cr_assert_eq(rw_text_next(text, strlen(text), &pos, scratch, sizeof(scratch), &t), 1);
	cr_expect_str_eq(t.name, "a_total");
	cr_assert_eq(t.n_labels, 2);
	cr_expect_str_eq(t.labels[1].value, "q\"uo\\te\n");
	cr_expect_eq(t.value, 12345678901234567890.0);
	cr_assert_eq(rw_text_next(text, strlen(text), &pos, scratch, sizeof(scratch), &t), 1);
	cr_expect_str_eq(t.name, "plain");
	cr_expect_eq(t.n_labels, 0);
	cr_expect_eq(t.value, 1.5);
	cr_expect_eq(rw_text_next(text, strlen(text), &pos, scratch, sizeof(scratch), &t), -22);
	cr_assert_eq(rw_text_next(text, strlen(text), &pos, scratch, sizeof(scratch), &t), 1);
	cr_expect_eq(t.value, 1699999999.0);
	cr_assert_eq(rw_text_next(text, strlen(text), &pos, scratch, sizeof(scratch), &t), 1);
	cr_expect_eq(t.value, -300);
	cr_expect_eq(rw_text_next(text, strlen(text), &pos, scratch, sizeof(scratch), &t), 0);
}

/*
 * What /metrics writes of a drive's odd strings reads back as metrics_label_clean()
 * makes them: a push sends the value a scrape would store.
 */
Test(rw_text, label_values_read_back_as_a_push_sends_them)
{
	static const char *const odd[] = {"Samsung \"950\" \\ PRO", "bay 3 – scratch", "tab\there",
					  "bad\xff\xc3", "new\nline"};
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		char esc[256], clean[256], line[600], scratch[600];
		struct rw_text_sample t;
		size_t pos = 0;

		snprintf(line, sizeof(line), "m{v=\"%s\"} 1\n",
			 metrics_escape_label(odd[i], esc, sizeof(esc)));
		cr_assert_eq(rw_text_next(line, strlen(line), &pos, scratch, sizeof(scratch), &t),
			     1, "%s", line);
		cr_expect_str_eq(t.labels[0].value,
				 metrics_label_clean(odd[i], clean, sizeof(clean)), "%s", odd[i]);
	}
}

/* Each line a series with the external labels after its own; a series gone since the
 * last push that went through gets Prometheus's staleness marker. */
Test(rw_text, live_series_and_staleness)
{
	const char first[] = "nvmond_alert_firing{device=\"nvme0\",rule=\"spare_low\",severity="
			     "\"critical\"} 1\n"
			     "nvmond_device_up{device=\"nvme0\",job=\"from-the-line\"} 1\n";
	const char second[] = "nvmond_device_up{device=\"nvme0\",job=\"from-the-line\"} 0\n";
	const struct rw_label ext[] = {{"job", "nvmond"}, {"instance", "db7"}, {"site", "fra1"}};
	struct rw_batch *b = rw_batch_new();
	struct rw_keys k1 = {0}, k2 = {0};

	cr_assert_eq(rw_live_build(b, first, strlen(first), ext, 3, 1000, NULL, &k1), 0);
	cr_expect_eq(k1.n, 2);
	Prometheus__WriteRequest *w = encode_decode(b);
	cr_assert_eq(w->n_timeseries, 2);
	cr_expect_str_eq(label(w->timeseries[0], "__name__"), "nvmond_alert_firing");
	cr_expect_str_eq(label(w->timeseries[0], "site"), "fra1");
	cr_expect_str_eq(label(w->timeseries[0], "job"), "nvmond");
	cr_expect_str_eq(label(w->timeseries[1], "job"), "from-the-line", "the series' own wins");
	cr_expect_eq(w->timeseries[0]->samples[0]->timestamp, 1000);
	prometheus__write_request__free_unpacked(w, NULL);

	rw_batch_reset(b);
	cr_assert_eq(rw_live_build(b, second, strlen(second), ext, 3, 2000, &k1, &k2), 0);
	w = encode_decode(b);
	cr_assert_eq(w->n_timeseries, 2);
	cr_expect_str_eq(label(w->timeseries[0], "__name__"), "nvmond_device_up");
	cr_expect_eq(w->timeseries[0]->samples[0]->value, 0);
	/* The resolved alert: the same labels, one stale marker at the push's time. */
	cr_expect_str_eq(label(w->timeseries[1], "__name__"), "nvmond_alert_firing");
	cr_expect_str_eq(label(w->timeseries[1], "rule"), "spare_low");
	cr_expect_str_eq(label(w->timeseries[1], "site"), "fra1");
	cr_expect_eq(w->timeseries[1]->samples[0]->timestamp, 2000);
	cr_expect(rw_is_stale_nan(w->timeseries[1]->samples[0]->value));
	prometheus__write_request__free_unpacked(w, NULL);
	rw_keys_free(&k1);
	rw_keys_free(&k2);
	rw_batch_free(b);
}
