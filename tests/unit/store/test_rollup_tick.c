/* SPDX-License-Identifier: MIT */
/*
 * The rollup timer (store/rollup.c, rollup_tick()) driven by hand: the link
 * wraps loop_add_timer() to learn the callback rollup_start() arms, and
 * store_rollup_step() / store_rollup_errmsg() to script what a step returns
 * (tests/CMakeLists.txt: -Wl,--wrap). The log (stderr) goes to a file.
 *
 * Rules (rollup.c): "After a failure (a full disk): soon, then less often, so
 * a freed disk is seen soon" — 5 s, doubled, at most every minute; a failure
 * is logged once ("retrying in 5 s, then less often"), a success after it
 * once ("building again"); a success resets the retry ("retry_ms … 0 = not
 * failing"), so the next failure (a second full disk) is logged again and
 * retried after 5 s, and later successes log nothing.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvmond/core/loop.h"
#include "nvmond/store/rollup.h"
#include "nvmond/store/store_rollup.h"

/* ---- the wrapped functions ---- */

int64_t __real_loop_add_timer(struct loop *l, int64_t delay_ms, loop_timer_fn fn, void *userdata);
int64_t __wrap_loop_add_timer(struct loop *l, int64_t delay_ms, loop_timer_fn fn, void *userdata);
int __wrap_store_rollup_step(struct store *s, const struct store_rollup_cfg *c, int64_t now_ms,
			     bool *ret_more);
const char *__wrap_store_rollup_errmsg(struct store *s);

static loop_timer_fn tick_fn;
static void *tick_arg;

int64_t __wrap_loop_add_timer(struct loop *l, int64_t delay_ms, loop_timer_fn fn, void *userdata)
{
	tick_fn = fn;
	tick_arg = userdata;
	return __real_loop_add_timer(l, delay_ms, fn, userdata);
}

/* What the next step returns: < 0 fails, 0 caught up, 1 more to do. */
static int step_result;
static int steps;

int __wrap_store_rollup_step(struct store *s, const struct store_rollup_cfg *c, int64_t now_ms,
			     bool *ret_more)
{
	(void)s;
	(void)c;
	(void)now_ms;
	steps++;
	if (step_result < 0)
		return step_result;
	*ret_more = step_result == 1;
	return 0;
}

const char *__wrap_store_rollup_errmsg(struct store *s)
{
	(void)s;
	return "database or disk is full";
}

/* ---- the log ---- */

static char log_path[] = "/tmp/nvmond-test-rollup-tick-XXXXXX";
static int saved_stderr = -1;

static void setup(void)
{
	int fd = mkstemp(log_path);

	cr_assert_geq(fd, 0);
	unsetenv("JOURNAL_STREAM");
	fflush(stderr);
	saved_stderr = dup(2);
	cr_assert_eq(dup2(fd, 2), 2);
	close(fd);
}

static void teardown(void)
{
	fflush(stderr);
	if (saved_stderr >= 0)
		dup2(saved_stderr, 2);
	unlink(log_path);
}

/* How many lines of the log so far contain @text. */
static int log_count(const char *text)
{
	char line[1024];
	int n = 0;
	FILE *f;

	fflush(stderr);
	f = fopen(log_path, "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, text) != NULL;
	fclose(f);
	return n;
}

/* One run of the timer's callback with the step returning @result: its next delay. */
static int64_t tick(struct loop *l, int result)
{
	step_result = result;
	return tick_fn(l, tick_arg);
}

TestSuite(rollup_tick, .init = setup, .fini = teardown);

Test(rollup_tick, retry_backs_off_and_a_success_resets_it)
{
	struct loop *l = loop_new();
	struct rollup *ru = NULL;
	struct store_rollup_cfg c = {0};

	cr_assert_not_null(l);
	cr_assert_eq(rollup_new(NULL, &c, &ru), 0);
	cr_assert_eq(rollup_start(ru, l), 0);
	cr_assert_not_null(tick_fn, "rollup_start() arms a timer");

	/* Steady state: a step a minute; catching up: 20 ms between steps. */
	cr_expect_eq(tick(l, 0), 60000);
	cr_expect_eq(tick(l, 1), 20);

	/* A full disk: 5 s, then doubled up to a minute; logged once. */
	static const int64_t backoff[] = {5000, 10000, 20000, 40000, 60000, 60000};
	for (size_t i = 0; i < sizeof(backoff) / sizeof(backoff[0]); i++)
		cr_expect_eq(tick(l, -ENOSPC), backoff[i], "failure %zu", i + 1);
	cr_expect_eq(log_count("rollups: "), 1, "one warning for one outage");
	cr_expect_eq(log_count("retrying in 5 s"), 1);

	/* Freed: built again, said once; the next steps say nothing. */
	cr_expect_eq(tick(l, 1), 20);
	cr_expect_eq(tick(l, 0), 60000);
	cr_expect_eq(tick(l, 0), 60000);
	cr_expect_eq(tick(l, 0), 60000);
	cr_expect_eq(log_count("building again"), 1, "no line per step once it builds again");

	/* A second full disk: warned again, and retried soon again. */
	cr_expect_eq(tick(l, -ENOSPC), 5000, "the retry starts over at 5 s");
	cr_expect_eq(log_count("retrying in 5 s"), 2, "a second outage is not hidden");
	cr_expect_eq(tick(l, -ENOSPC), 10000);
	cr_expect_eq(log_count("retrying in 5 s"), 2);
	cr_expect_eq(tick(l, 0), 60000);
	cr_expect_eq(log_count("building again"), 2);
	cr_expect_eq(steps, 15, "each tick one step");

	rollup_free(ru);
	loop_free(l);
}
