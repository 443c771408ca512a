/* SPDX-License-Identifier: MIT */
/*
 * The demo drives' self-tests (demo.h). The tests a drive ran on its own are a
 * pure function of time (demo_selftest_history()): its st_schedule, in the
 * syntax and with the calendar code of nvmond's own schedules, and once a
 * year the 950 PRO's failed and reset-aborted tests. The demo backend adds
 * the tests it was told to run (struct demo_st_live): a short one takes
 * DEV_DEMO_ST_SHORT_MIN minutes, an extended one the drive's EDSTT.
 */
#include <stdbool.h>
#include <string.h>

#include "nvmond/analysis/selftest_sched.h"
#include "nvmond/dev/dev.h"
#include "nvmond/util/units.h"

#include "demo_selftest_internal.h"

#define RESET_MIN	    4		     /* the reset-aborted test ran this long */
#define FAIL_PCT	    60		     /* the failed test stopped at this much of its time */
#define CHUNK_MS	    (7 * 86400000LL) /* the log looks back a week at a time */
#define CHUNK_MAX	    64		     /* tests that end in a week, at most */
#define SCT_MEDIA	    0x2
#define SC_UNRECOVERED_READ 0x81

static uint64_t poh_at(const struct dev_demo_drive *d, int64_t ms)
{
	struct smart_log s;

	dev_demo_state(d, ms, &s);
	return (uint64_t)s.power_on_hours;
}

/* What a test of @code takes, start to end, when nothing stops it. */
static int64_t duration_ms(const struct dev_demo_drive *d, uint8_t code)
{
	int64_t min = code == SELFTEST_CODE_EXTENDED ? d->edstt_min : DEV_DEMO_ST_SHORT_MIN;

	return (min > 0 ? min : 1) * MS_PER_MIN;
}

/* ---- the tests a drive ran on its own ---------------------------------------- */

enum src_kind {
	SRC_SCHED, /* an entry of st_schedule: passes */
	SRC_FAIL,  /* st_fail_ms, yearly: fails a segment */
	SRC_RESET, /* st_reset_ms, yearly: aborted by a controller level reset */
};

/* One kind of test, its starts in time order. */
struct src {
	enum src_kind kind;
	struct selftest_sched e; /* SRC_SCHED */
	int64_t anchor;		 /* the first start (yearly kinds) */
	uint8_t code;
	int64_t dur;
	int64_t start; /* of the next test */
};

static size_t sources(const struct dev_demo_drive *d, struct src v[SELFTEST_SCHED_MAX + 2])
{
	struct selftest_sched e[SELFTEST_SCHED_MAX];
	char err[SELFTEST_SCHED_ERR];
	size_t n = 0, n_e = 0;

	if (d->no_selftest)
		return 0;
	/* The drive tables are the code's own: a schedule that does not parse is none. */
	if (!d->st_schedule || selftest_sched_parse(d->st_schedule, e, &n_e, err) < 0)
		n_e = 0;
	for (size_t i = 0; i < n_e; i++) {
		uint8_t code = selftest_sched_type_code(e[i].type);
		v[n++] = (struct src){
			.kind = SRC_SCHED, .e = e[i], .code = code, .dur = duration_ms(d, code)};
	}
	if (d->st_fail_ms && d->st_fail_segment)
		v[n++] = (struct src){
			.kind = SRC_FAIL,
			.anchor = d->st_fail_ms,
			.code = SELFTEST_CODE_EXTENDED,
			.dur = duration_ms(d, SELFTEST_CODE_EXTENDED) * FAIL_PCT / 100,
		};
	if (d->st_reset_ms)
		v[n++] = (struct src){
			.kind = SRC_RESET,
			.anchor = d->st_reset_ms,
			.code = SELFTEST_CODE_EXTENDED,
			.dur = RESET_MIN * MS_PER_MIN,
		};
	return n;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* The start of @s's first test, since the epoch, that ends after @after. */
static int64_t src_first(const struct src *s, int64_t after)
{
	int64_t t = after - s->dur;

	if (s->kind == SRC_SCHED)
		return selftest_sched_next(&s->e, t < DEV_DEMO_EPOCH_MS ? DEV_DEMO_EPOCH_MS - 1 : t,
					   0);
	int64_t k = floor_div(t - s->anchor, DEV_DEMO_ST_PERIOD_MS) + 1;
	return s->anchor + (k > 0 ? k : 0) * DEV_DEMO_ST_PERIOD_MS;
}

/* The start of @s's test after the one at @start. */
static int64_t src_next(const struct src *s, int64_t start)
{
	if (s->kind == SRC_SCHED)
		return selftest_sched_next(&s->e, start, 0);
	return start + DEV_DEMO_ST_PERIOD_MS;
}

static void src_test(const struct dev_demo_drive *d, const struct src *s, struct demo_selftest *ret)
{
	*ret = (struct demo_selftest){
		.started_ms = s->start,
		.ended_ms = s->start + s->dur,
		.r = {.code = s->code, .result = SELFTEST_RES_NO_ERROR},
		.scheduled = s->kind == SRC_SCHED,
	};
	if (s->kind == SRC_FAIL) {
		ret->r.result = SELFTEST_RES_SEGMENT_FAILED;
		ret->r.segment = d->st_fail_segment;
		ret->r.valid = SELFTEST_VALID_NSID | SELFTEST_VALID_FLBA | SELFTEST_VALID_SCT |
			       SELFTEST_VALID_SC;
		ret->r.nsid = 1;
		ret->r.lba = d->st_fail_lba;
		ret->r.sct = SCT_MEDIA;
		ret->r.sc = SC_UNRECOVERED_READ;
	} else if (s->kind == SRC_RESET) {
		ret->r.result = SELFTEST_RES_ABORTED_RESET;
	}
	ret->r.poh = poh_at(d, ret->ended_ms);
}

size_t demo_selftest_history(const struct dev_demo_drive *d, int64_t from_ms, int64_t to_ms,
			     struct demo_selftest *ret, size_t max)
{
	struct src v[SELFTEST_SCHED_MAX + 2];
	size_t n_src = sources(d, v), n = 0;

	for (size_t i = 0; i < n_src; i++)
		v[i].start = src_first(&v[i], from_ms);
	/* Merge the kinds, each in time order, by when their tests end. */
	while (n < max) {
		size_t best = n_src;
		for (size_t i = 0; i < n_src; i++) {
			int64_t end = v[i].start + v[i].dur;
			if (end <= to_ms && (best == n_src || end < v[best].start + v[best].dur))
				best = i;
		}
		if (best == n_src)
			break;
		src_test(d, &v[best], &ret[n++]);
		v[best].start = src_next(&v[best], v[best].start);
	}
	return n;
}

/* ---- the controller: what it was told, and its log ---------------------------- */

/*
 * Whether the drive's own test that started at @start gave way to one it was
 * told to run (a controller runs one at a time, so whoever started its own
 * found one in progress), or was the one aborted.
 */
static bool displaced(const struct demo_st_live *s, int64_t start)
{
	if (s->own_until_ms && start >= s->own_until_ms)
		return true;
	for (size_t i = 0; i < s->n_done; i++)
		if (s->done[i].started_ms <= start && start <= s->done[i].ended_ms)
			return true;
	return s->run.r.code && s->run.started_ms <= start && start <= s->run.ended_ms;
}

/* The drive's own test running at @now, if any. */
static bool own_running(const struct demo_st_live *s, const struct dev_demo_drive *d, int64_t now,
			struct demo_selftest *ret)
{
	struct demo_selftest v[8];
	int64_t longest = duration_ms(d, SELFTEST_CODE_EXTENDED);

	if (longest < duration_ms(d, SELFTEST_CODE_SHORT))
		longest = duration_ms(d, SELFTEST_CODE_SHORT);
	if (longest < RESET_MIN * MS_PER_MIN)
		longest = RESET_MIN * MS_PER_MIN;
	size_t n = demo_selftest_history(d, now, now + longest, v, 8);
	for (size_t i = 0; i < n; i++)
		if (v[i].started_ms <= now && !displaced(s, v[i].started_ms)) {
			*ret = v[i];
			return true;
		}
	return false;
}

static void push_done(struct demo_st_live *s, const struct demo_selftest *t)
{
	if (s->n_done == SELFTEST_RESULTS)
		memmove(&s->done[0], &s->done[1], --s->n_done * sizeof(s->done[0]));
	s->done[s->n_done++] = *t;
}

/* The test it was told to run, as a result: it passed at its end. */
static struct demo_selftest run_result(const struct demo_st_live *s, const struct dev_demo_drive *d)
{
	struct demo_selftest t = s->run;

	t.r.result = SELFTEST_RES_NO_ERROR;
	t.r.poh = poh_at(d, t.ended_ms);
	return t;
}

uint16_t demo_st_command(struct demo_st_live *s, const struct dev_demo_drive *d, int64_t now_ms,
			 uint32_t nsid, uint8_t stc)
{
	struct demo_selftest own, t;

	if (d->no_selftest)
		return SELFTEST_ST_INVALID_OPCODE;
	if (nsid != 0 && nsid != 1 && nsid != DEV_SELFTEST_NSID_ALL)
		return SELFTEST_ST_INVALID_NS;
	if (s->run.r.code && now_ms >= s->run.ended_ms) {
		t = run_result(s, d);
		push_done(s, &t);
		s->run = (struct demo_selftest){0};
	}
	bool own_runs = own_running(s, d, now_ms, &own);
	switch (stc) {
	case SELFTEST_CODE_SHORT:
	case SELFTEST_CODE_EXTENDED:
		if (s->run.r.code || own_runs)
			return SELFTEST_ST_IN_PROGRESS;
		s->run = (struct demo_selftest){
			.started_ms = now_ms,
			.ended_ms = now_ms + duration_ms(d, stc),
			.r = {.code = stc},
		};
		s->nsid = nsid;
		return 0;
	case SELFTEST_CODE_ABORT:
		if (s->run.r.code)
			t = s->run;
		else if (own_runs)
			t = own;
		else
			return 0;
		t.ended_ms = now_ms;
		t.r = (struct selftest_result){
			.code = t.r.code,
			.result = SELFTEST_RES_ABORTED_CMD,
			.poh = poh_at(d, now_ms),
		};
		push_done(s, &t);
		s->run = (struct demo_selftest){0};
		return 0;
	default:
		return SELFTEST_ST_INVALID_FIELD;
	}
}

/* Newest first; of two that ended together, the one that started later. */
static bool newer(const struct demo_selftest *a, const struct demo_selftest *b)
{
	return a->ended_ms != b->ended_ms ? a->ended_ms > b->ended_ms
					  : a->started_ms > b->started_ms;
}

static void put_current(struct selftest_log *log, const struct dev_demo_drive *d,
			const struct demo_selftest *t, int64_t now)
{
	int64_t pct = (now - t->started_ms) * 100 / duration_ms(d, t->r.code);

	log->current = t->r.code;
	log->percent = (uint8_t)(pct > 99 ? 99 : pct);
}

uint16_t demo_st_log(const struct demo_st_live *s, const struct dev_demo_drive *d, int64_t now_ms,
		     struct selftest_log *ret)
{
	struct demo_selftest v[2 * SELFTEST_RESULTS + 1], own;
	size_t n = 0, n_own = 0;

	if (d->no_selftest)
		return SELFTEST_ST_INVALID_LOG_PAGE;
	*ret = (struct selftest_log){0};
	for (size_t i = 0; i < s->n_done; i++)
		if (s->done[i].ended_ms <= now_ms)
			v[n++] = s->done[i];
	if (s->run.r.code && s->run.ended_ms <= now_ms)
		v[n++] = run_result(s, d);
	else if (s->run.r.code && s->run.started_ms <= now_ms)
		put_current(ret, d, &s->run, now_ms);
	else if (own_running(s, d, now_ms, &own))
		put_current(ret, d, &own, now_ms);
	/* Its own tests, back a week at a time until 20 are found. */
	for (int64_t to = now_ms; n_own < SELFTEST_RESULTS && to > DEV_DEMO_EPOCH_MS;
	     to -= CHUNK_MS) {
		struct demo_selftest c[CHUNK_MAX];
		size_t k = demo_selftest_history(d, to - CHUNK_MS, to, c, CHUNK_MAX);
		while (k-- > 0 && n_own < SELFTEST_RESULTS)
			if (!displaced(s, c[k].started_ms)) {
				v[n++] = c[k];
				n_own++;
			}
	}
	/* Newest first (an insertion sort: at most 41). */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && newer(&v[j], &v[j - 1]); j--) {
			struct demo_selftest x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	for (size_t i = 0; i < SELFTEST_RESULTS; i++)
		ret->r[i] =
			i < n ? v[i].r : (struct selftest_result){.result = SELFTEST_RES_UNUSED};
	return 0;
}
