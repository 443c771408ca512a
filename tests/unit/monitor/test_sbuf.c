/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>

#include <errno.h>

#include "nvmond/monitor/sbuf.h"

static struct sample at(int64_t ts)
{
	return (struct sample){.device_id = 1, .ts_ms = ts};
}

Test(sbuf, fifo_order_across_wrap)
{
	struct sbuf b;
	const struct sample *v;
	int64_t want = 0;

	cr_assert_eq(sbuf_init(&b, 4), 0);
	for (int64_t i = 0; i < 3; i++)
		sbuf_push(&b, &(struct sample){.ts_ms = i});
	sbuf_pop(&b, 2); /* head moves to 2 */
	for (int64_t i = 3; i < 6; i++)
		cr_expect_eq(sbuf_push(&b, &(struct sample){.ts_ms = i}), 0);
	cr_expect_eq(b.len, 4);
	want = 2;
	size_t n;
	while ((n = sbuf_peek(&b, 100, &v)) > 0) {
		for (size_t i = 0; i < n; i++)
			cr_expect_eq(v[i].ts_ms, want++);
		sbuf_pop(&b, n);
	}
	cr_expect_eq(want, 6, "every sample came out once, in order");
	sbuf_done(&b);
}

Test(sbuf, full_drops_oldest_and_counts)
{
	struct sbuf b;
	const struct sample *v;

	cr_assert_eq(sbuf_init(&b, 3), 0);
	for (int64_t i = 0; i < 10; i++) {
		struct sample s = at(i);
		cr_expect_eq(sbuf_push(&b, &s), i >= 3);
	}
	cr_expect_eq(b.len, 3, "bounded");
	cr_expect_eq(b.dropped, 7);
	size_t n = sbuf_peek(&b, 1, &v);
	cr_expect_eq(n, 1);
	cr_expect_eq(v[0].ts_ms, 7, "the newest are kept");
	sbuf_done(&b);
}

Test(sbuf, peek_is_bounded_and_empty_is_null)
{
	struct sbuf b;
	const struct sample *v = (void *)1;

	cr_assert_eq(sbuf_init(&b, 8), 0);
	cr_expect_eq(sbuf_peek(&b, 5, &v), 0);
	cr_expect_null(v);
	for (int64_t i = 0; i < 6; i++) {
		struct sample s = at(i);
		sbuf_push(&b, &s);
	}
	cr_expect_eq(sbuf_peek(&b, 5, &v), 5);
	sbuf_pop(&b, 100);
	cr_expect_eq(b.len, 0);
	cr_expect_eq(sbuf_init(&(struct sbuf){0}, 0), -EINVAL);
	sbuf_done(&b);
}

/* Popping more than is buffered (but not more than fits) empties the buffer. */
Test(sbuf, pop_beyond_len_empties)
{
	struct sbuf b;

	cr_assert_eq(sbuf_init(&b, 8), 0);
	for (int64_t i = 0; i < 3; i++) {
		struct sample s = at(i);
		sbuf_push(&b, &s);
	}
	sbuf_pop(&b, 5);
	cr_expect_eq(b.len, 0, "len %zu", b.len);
	sbuf_done(&b);
}

/*
 * An emptied buffer starts again at the front: the store then gets the next
 * batch as one contiguous run (one transaction) instead of two pieces.
 */
Test(sbuf, emptied_buffer_gives_one_run)
{
	struct sbuf b;
	const struct sample *v;

	cr_assert_eq(sbuf_init(&b, 4), 0);
	for (int64_t i = 0; i < 3; i++) {
		struct sample s = at(i);
		sbuf_push(&b, &s);
	}
	sbuf_pop(&b, 3);
	for (int64_t i = 3; i < 7; i++) {
		struct sample s = at(i);
		sbuf_push(&b, &s);
	}
	cr_expect_eq(sbuf_peek(&b, 100, &v), 4, "the full buffer in one piece");
	cr_expect_eq(v[0].ts_ms, 3);
	sbuf_done(&b);
}
