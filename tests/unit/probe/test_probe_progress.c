/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>

#include "nvmond/probe/probe_progress.h"

#define MB 1000000ULL

/* @n intervals of 250 ms at @mb MB each, read or written. */
static void ticks(struct probe_point *v, size_t n, uint64_t mb, bool write)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (struct probe_point){.t_ms = (int64_t)(i + 1) * 250,
					    .rd_bytes = write ? 0 : mb * MB,
					    .wr_bytes = write ? mb * MB : 0};
}

Test(probe_progress, follows_a_two_phase_run)
{
	struct probe_progress p;
	struct probe_point rd[8], wr[4];

	probe_progress_init(&p, PROBE_SEQ1M_Q8, 2000, 0);
	cr_assert_float_eq(probe_progress_fraction(&p), 0, 1e-9);
	ticks(rd, 8, 100, false);
	ticks(wr, 4, 50, true);
	for (size_t n = 1; n <= 8; n++)
		cr_assert_eq(probe_progress_update(&p, 0, rd, n), 0);
	cr_assert_eq(p.n, 8);
	/* The read phase is over: half the run. */
	cr_assert_float_eq(probe_progress_fraction(&p), 0.5, 1e-9);
	for (size_t n = 1; n <= 4; n++)
		cr_assert_eq(probe_progress_update(&p, 1, wr, n), 0);
	cr_assert_eq(p.phase, 1);
	cr_assert_eq(p.n, 4, "only the write phase's series is kept");
	cr_assert_eq(p.done_rd, 800 * MB);
	/* 1 s of a 2 s write phase: 3/4 of the run. */
	cr_assert_float_eq(probe_progress_fraction(&p), 0.75, 1e-9);

	json_t *j = probe_progress_json(&p);
	cr_assert_not_null(j);
	cr_assert_str_eq(json_string_value(json_object_get(j, "name")), "write");
	cr_assert_eq(json_integer_value(json_object_get(j, "phase")), 1);
	cr_assert_eq(json_integer_value(json_object_get(j, "phases")), 2);
	cr_assert_eq(json_integer_value(json_object_get(j, "elapsed_ms")), 1000);
	cr_assert_eq(json_integer_value(json_object_get(j, "bytes_read")), 800 * MB);
	cr_assert_eq(json_integer_value(json_object_get(j, "bytes_written")), 200 * MB);
	/* 50 MB in the last 250 ms. */
	cr_assert_float_eq(json_real_value(json_object_get(j, "mb_per_s")), 200.0, 1e-9);
	json_t *s = json_object_get(j, "series");
	cr_assert_eq(json_array_size(s), 4);
	cr_assert_eq(json_integer_value(json_array_get(json_array_get(s, 3), 0)), 1000);
	cr_assert_eq(json_integer_value(json_array_get(json_array_get(s, 3), 2)), 50 * MB);
	json_decref(j);
	probe_progress_clear(&p);
}

Test(probe_progress, sustained_write_counts_bytes_against_its_limit)
{
	struct probe_progress p;
	struct probe_point v[10];

	probe_progress_init(&p, PROBE_SUSTAINED_WRITE, 1000, 4000 * MB);
	ticks(v, 10, 100, true);
	cr_assert_eq(probe_progress_update(&p, 0, v, 10), 0);
	/* 1 GB of 4 GB, though its time (2.5 s) is past phase_ms. */
	cr_assert_float_eq(probe_progress_fraction(&p), 0.25, 1e-9);
	probe_progress_clear(&p);
}

Test(probe_progress, a_timed_phase_past_its_length_stays_at_its_share)
{
	struct probe_progress p;
	struct probe_point v[12];

	probe_progress_init(&p, PROBE_RND4K_Q1, 1000, 0);
	ticks(v, 12, 1, false);
	cr_assert_eq(probe_progress_update(&p, 0, v, 12), 0);
	cr_assert_float_eq(probe_progress_fraction(&p), 0.5, 1e-9);
	probe_progress_clear(&p);
}

Test(probe_progress, a_copy_is_deep)
{
	struct probe_progress p, c;
	struct probe_point v[3];

	probe_progress_init(&p, PROBE_COPY_SELF, 1000, 0);
	ticks(v, 3, 10, true);
	cr_assert_eq(probe_progress_update(&p, 0, v, 3), 0);
	cr_assert_eq(probe_progress_copy(&p, &c), 0);
	probe_progress_clear(&p);
	cr_assert_eq(c.n, 3);
	cr_assert_eq(c.v[2].wr_bytes, 10 * MB);
	probe_progress_clear(&c);
	/* Nothing yet: no series, a valid JSON object. */
	probe_progress_init(&p, PROBE_COPY_SELF, 1000, 0);
	cr_assert_eq(probe_progress_copy(&p, &c), 0);
	cr_assert_null(c.v);
	json_t *j = probe_progress_json(&c);
	cr_assert_not_null(j);
	cr_assert_eq(json_array_size(json_object_get(j, "series")), 0);
	cr_assert_float_eq(json_real_value(json_object_get(j, "mb_per_s")), 0, 1e-9);
	json_decref(j);
}
