/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/export/rw_encode.h"

/*
 * The live part of a push (issue 24 §2): what /metrics serves, read back from
 * its text (metrics_collect() with omit_stored), so a pushed series has the
 * name, labels and value a scrape gets; and the set of series of the last push
 * that went through, so one that disappeared (an alert resolved, a drive
 * forgotten) gets a staleness marker as a scrape would give it. Pure.
 */
#define RW_TEXT_LABELS_MAX 32

/* One sample line of the text format (version 0.0.4). */
struct rw_text_sample {
	const char *name;
	struct rw_label labels[RW_TEXT_LABELS_MAX];
	size_t n_labels;
	double value;
};

/**
 * rw_text_next() - The next sample line of @text (@len bytes) from *@pos on;
 * comments and empty lines are skipped. The name and label values are unescaped
 * (\\\\, \\", \\n) into @scratch (at least the line's length + 1 bytes, else the
 * line is refused). *@pos moves past the line.
 * Return: 1 with @ret filled, 0 at the end, -EINVAL for a line that is not a
 * sample (skipped).
 */
int rw_text_next(const char *text, size_t len, size_t *pos, char *scratch, size_t scratch_size,
		 struct rw_text_sample *ret);

/* The series of a push: each one's labels as a key, sorted (for the next push's diff). */
struct rw_keys {
	char **v;
	size_t n;
};

/** rw_keys_free() - Free what @k holds; it is empty after. */
void rw_keys_free(struct rw_keys *k);

/**
 * rw_live_build() - Add to @b one series per sample line of @text, its own
 * labels first and then the @n_ext external labels @ext, each with one sample
 * at @ts_ms; then a staleness marker at @ts_ms for each series of @prev (the
 * last push that went through) that is not among them. Lines that are no
 * sample are skipped.
 * @ret: the keys of this push's series (pass to the next build once it went through)
 * Return: 0, or -ENOMEM.
 */
int rw_live_build(struct rw_batch *b, const char *text, size_t len, const struct rw_label *ext,
		  size_t n_ext, int64_t ts_ms, const struct rw_keys *prev, struct rw_keys *ret);
