/* SPDX-License-Identifier: MIT */
/*
 * Thermal throttling detection: pure, one sample at a time.
 *
 * Counter kinds (T1/T2 transitions and time, warning/critical temperature time)
 * open when a counter rises and close once it has not risen for a settling time;
 * the episode's duration is what the counters say, not wall-clock time. Level
 * kinds (the temperature bit, the Composite Temperature against the drive's own
 * WCTEMP / CCTEMP) open while the condition holds and close when it no longer
 * does, temperatures with hysteresis. WCTEMP and CCTEMP are thresholds of the
 * composite (NVMe Base 2.0, Figure 275): sensors 1-8 are judged in sensors.c.
 */
#include <errno.h>
#include <string.h>

#include "nvmond/analysis/throttle.h"

static const char *const kind_names[_THROTTLE_KIND_MAX] = {
	[THROTTLE_LIGHT] = "light",
	[THROTTLE_HEAVY] = "heavy",
	[THROTTLE_WARN_TIME] = "warning_temp_time",
	[THROTTLE_CRIT_TIME] = "critical_temp_time",
	[THROTTLE_CRIT_BIT] = "critical_warning_temperature",
	[THROTTLE_OVER_WCTEMP] = "over_wctemp",
	[THROTTLE_OVER_CCTEMP] = "over_cctemp",
};

const char *throttle_kind_name(enum throttle_kind k)
{
	if ((unsigned)k >= _THROTTLE_KIND_MAX)
		return "unknown";
	return kind_names[k];
}

int throttle_kind_from_name(const char *name)
{
	for (int k = 0; k < _THROTTLE_KIND_MAX; k++)
		if (strcmp(kind_names[k], name) == 0)
			return k;
	return -EINVAL;
}

int throttle_restore(struct throttle_state *st, const struct throttle_event *ev)
{
	if ((unsigned)ev->kind >= _THROTTLE_KIND_MAX || ev->end_ms != 0)
		return -EINVAL;
	st->open[ev->kind] = true;
	st->ev[ev->kind] = *ev;
	return 0;
}

/*
 * The rise of a 32-bit counter. Going down from the top quarter of the range to
 * the bottom quarter is a wrap (exact in modular arithmetic); any other decrease
 * is a reset, after which the counter counts from zero again.
 */
static uint32_t counter_delta(uint32_t prev, uint32_t cur, bool *reset)
{
	if (cur >= prev)
		return cur - prev;
	if (prev >= 0xC0000000u && cur < 0x40000000u)
		return cur - prev; /* mod 2^32 */
	*reset = true;
	return cur;
}

struct rise {
	uint32_t count; /* transitions */
	uint64_t secs;	/* time, converted to seconds */
	bool reset;
};

static void rises(const struct smart_log *p, const struct smart_log *s,
		  struct rise r[_THROTTLE_KIND_MAX])
{
	memset(r, 0, sizeof(struct rise) * _THROTTLE_KIND_MAX);
	r[THROTTLE_LIGHT].count = counter_delta(p->thm_temp1_trans_count, s->thm_temp1_trans_count,
						&r[THROTTLE_LIGHT].reset);
	r[THROTTLE_LIGHT].secs = counter_delta(p->thm_temp1_total_time, s->thm_temp1_total_time,
					       &r[THROTTLE_LIGHT].reset);
	r[THROTTLE_HEAVY].count = counter_delta(p->thm_temp2_trans_count, s->thm_temp2_trans_count,
						&r[THROTTLE_HEAVY].reset);
	r[THROTTLE_HEAVY].secs = counter_delta(p->thm_temp2_total_time, s->thm_temp2_total_time,
					       &r[THROTTLE_HEAVY].reset);
	r[THROTTLE_WARN_TIME].secs =
		(uint64_t)counter_delta(p->warning_temp_time, s->warning_temp_time,
					&r[THROTTLE_WARN_TIME].reset) *
		60;
	r[THROTTLE_CRIT_TIME].secs =
		(uint64_t)counter_delta(p->critical_temp_time, s->critical_temp_time,
					&r[THROTTLE_CRIT_TIME].reset) *
		60;
}

static bool is_counter_kind(enum throttle_kind k)
{
	return k <= THROTTLE_CRIT_TIME;
}

static void emit(struct throttle_update *ret, size_t *n, enum throttle_change ch,
		 const struct throttle_event *ev)
{
	ret[*n].change = ch;
	ret[*n].ev = *ev;
	(*n)++;
}

static void close_event(struct throttle_state *st, enum throttle_kind k, int64_t end_ms,
			struct throttle_update *ret, size_t *n)
{
	struct throttle_event *ev = &st->ev[k];

	ev->end_ms = end_ms < ev->start_ms ? ev->start_ms : end_ms;
	if (!is_counter_kind(k))
		ev->duration_s = (uint64_t)(ev->end_ms - ev->start_ms) / 1000;
	emit(ret, n, THROTTLE_CLOSED, ev);
	st->open[k] = false;
}

static void open_event(struct throttle_state *st, enum throttle_kind k, int64_t start_ms,
		       int64_t ts_ms, uint16_t hottest)
{
	st->open[k] = true;
	st->ev[k] = (struct throttle_event){
		.kind = k,
		.start_ms = start_ms,
		.last_rise_ms = ts_ms,
		.peak_k = hottest,
	};
}

/* A counter kind: rise → open or extend; quiet for the settling time → close. */
static void feed_counter(struct throttle_state *st, const struct throttle_cfg *c,
			 enum throttle_kind k, const struct rise *r, int64_t ts_ms,
			 uint16_t hottest, bool gap, struct throttle_update *ret, size_t *n)
{
	int64_t settle = k >= THROTTLE_WARN_TIME ? c->settle_min_ms : c->settle_ms;
	struct throttle_event *ev = &st->ev[k];

	/*
	 * Restored after a restart, the event had already settled at the previous
	 * sample: it is over, and a rise now is a new episode.
	 */
	if (st->open[k] && st->prev_ts_ms - ev->last_rise_ms >= settle)
		close_event(st, k, ev->last_rise_ms, ret, n);

	if (r->count == 0 && r->secs == 0) {
		if (st->open[k] && ts_ms - ev->last_rise_ms >= settle)
			close_event(st, k, ev->last_rise_ms, ret, n);
		else if (st->open[k] && hottest > ev->peak_k) {
			ev->peak_k = hottest;
			emit(ret, n, THROTTLE_UPDATED, ev);
		}
		return;
	}
	if (!st->open[k]) {
		/*
		 * It lasted what the counter says. A seconds counter began no earlier
		 * than the previous sample; a minute counter counts whole minutes, so
		 * its minute may have begun before.
		 */
		int64_t start = ts_ms - (int64_t)(r->secs * 1000);
		if (k < THROTTLE_WARN_TIME && start < st->prev_ts_ms)
			start = st->prev_ts_ms;
		open_event(st, k, start, ts_ms, hottest);
		ev->duration_s = r->secs;
		ev->transitions = r->count;
		ev->late = gap;
		ev->counter_reset = r->reset;
		emit(ret, n, THROTTLE_OPENED, ev);
		return;
	}
	ev->duration_s += r->secs;
	ev->transitions += r->count;
	ev->last_rise_ms = ts_ms;
	ev->late |= gap;
	ev->counter_reset |= r->reset;
	if (hottest > ev->peak_k)
		ev->peak_k = hottest;
	emit(ret, n, THROTTLE_UPDATED, ev);
}

/*
 * A level kind: open while @on, close once @off (between the two: keep as is)
 * and it has been on no later than @settle_ms ago, so that a flag flickering
 * around a threshold makes one episode, not one per poll.
 */
static void feed_level(struct throttle_state *st, enum throttle_kind k, bool on, bool off,
		       int64_t settle_ms, int64_t ts_ms, uint16_t hottest,
		       struct throttle_update *ret, size_t *n)
{
	struct throttle_event *ev = &st->ev[k];

	if (!st->open[k]) {
		if (!on)
			return;
		open_event(st, k, ts_ms, ts_ms, hottest);
		emit(ret, n, THROTTLE_OPENED, ev);
		return;
	}
	if (off && ts_ms - ev->last_rise_ms >= settle_ms) {
		close_event(st, k, settle_ms ? ev->last_rise_ms : ts_ms, ret, n);
		return;
	}
	if (on)
		ev->last_rise_ms = ts_ms;
	if (hottest > ev->peak_k) {
		ev->peak_k = hottest;
		emit(ret, n, THROTTLE_UPDATED, ev);
	}
}

/* Temperature against limit - margin, with hysteresis; nothing known → neither. */
static void temp_level(uint16_t temp_k, uint16_t limit_k, int margin_c, unsigned hyst_c,
		       bool *ret_on, bool *ret_off)
{
	int thr = (int)limit_k - margin_c;

	*ret_on = *ret_off = false;
	if (limit_k == 0 || temp_k == 0)
		return;
	*ret_on = (int)temp_k >= thr;
	*ret_off = (int)temp_k < thr - (int)hyst_c;
}

size_t throttle_close_all(struct throttle_state *st,
			  struct throttle_update ret[THROTTLE_MAX_UPDATES])
{
	size_t n = 0;

	for (int k = 0; k < _THROTTLE_KIND_MAX; k++)
		if (st->open[k])
			close_event(st, k, st->ev[k].last_rise_ms, ret, &n);
	return n;
}

size_t throttle_feed(struct throttle_state *st, const struct throttle_cfg *c,
		     const struct smart_log *s, int64_t ts_ms,
		     struct throttle_update ret[THROTTLE_MAX_UPDATES])
{
	uint16_t hottest = smart_hottest_k(s);
	uint16_t composite = s->temperature_k; /* what WCTEMP / CCTEMP apply to */
	bool newer = !st->have_prev || ts_ms > st->prev_ts_ms;
	size_t n = 0;
	bool on, off;

	if (st->have_prev && newer) {
		struct rise r[_THROTTLE_KIND_MAX];
		bool gap = ts_ms - st->prev_ts_ms > c->gap_ms;

		rises(&st->prev, s, r);
		for (int k = THROTTLE_LIGHT; k <= THROTTLE_CRIT_TIME; k++)
			feed_counter(st, c, k, &r[k], ts_ms, hottest, gap, ret, &n);
	}

	bool bit = s->critical_warning & SMART_CRIT_TEMPERATURE;
	/* The drive sets and clears the bit itself, without hysteresis: settle it. */
	feed_level(st, THROTTLE_CRIT_BIT, bit, !bit, c->settle_ms, ts_ms, hottest, ret, &n);
	temp_level(composite, c->wctemp_k, c->warning_margin_c, c->hysteresis_c, &on, &off);
	feed_level(st, THROTTLE_OVER_WCTEMP, on, off, 0, ts_ms, composite, ret, &n);
	temp_level(composite, c->cctemp_k, c->critical_margin_c, c->hysteresis_c, &on, &off);
	feed_level(st, THROTTLE_OVER_CCTEMP, on, off, 0, ts_ms, composite, ret, &n);

	if (newer) {
		st->have_prev = true;
		st->prev_ts_ms = ts_ms;
		st->prev = *s;
	}
	return n;
}
