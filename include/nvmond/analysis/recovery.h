/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The cache-recovery study (issue 13): how fast a drive's write cache refills
 * after a cliff. Its idle intervals, the size of its fill and of its bursts,
 * and the verdict. Pure: no clock, no I/O.
 */

#define RECOVERY_MAX_INTERVALS	   16
#define RECOVERY_INTERVALS_DEFAULT "5m,10m,20m,40m,60m,90m"
#define RECOVERY_MIN_BURST	   (1ull << 30) /* a burst writes at least 1 GiB … */
#define RECOVERY_BURST_DIV	   10		/* … or a tenth of the cache, the larger */
#define RECOVERY_RECOVERED	   0.95 /* a burst this fast as before the cliff: recovered */
#define RECOVERY_ERR_MAX	   128

#define RECOVERY_INTERVAL_MIN_MS 1000LL		  /* each interval: 1s … */
#define RECOVERY_INTERVAL_MAX_MS (7 * 86400000LL) /* … 7d */

/**
 * recovery_intervals_parse() - "5m,10m,20m" (or "2s,4s,8s", "1h,1d"): the idle
 * times after the cliff at which a burst runs, each after the one before and
 * each a duration as the configuration writes them (ms, s, m, h or d; a bare
 * number is seconds), 1s … 7d.
 * Return: 0 with @ret (milliseconds) and *@ret_n (1 … RECOVERY_MAX_INTERVALS),
 * or -EINVAL with @err filled.
 */
int recovery_intervals_parse(const char *s, int64_t ret[RECOVERY_MAX_INTERVALS], size_t *ret_n,
			     char err[RECOVERY_ERR_MAX]);

/**
 * recovery_burst_bytes() - A burst: a tenth of the measured cache @cache, at
 * least RECOVERY_MIN_BURST, but never more than the probe area @area nor the
 * write budget left @budget; whole MiB.
 * Return: bytes, 0 when not even one MiB fits.
 */
uint64_t recovery_burst_bytes(uint64_t cache, uint64_t area, uint64_t budget);

/**
 * recovery_fill_bytes() - The write that makes the cliff the study starts
 * from: the cache and a quarter more (it stops earlier when the cliff holds),
 * whole MiB, never more than @limit (the sustained limit, the budget).
 * Return: bytes; 0 when @limit does not reach past the cache.
 */
uint64_t recovery_fill_bytes(uint64_t cache, uint64_t limit);

/**
 * recovery_pre_rate() - The rate a burst must reach (95 % of it) to count as
 * recovered: the rate before the fill's own cliff when the fill wrote at least
 * half the measured cache @cache before it (the cache was empty when it began:
 * the fresher figure), else the rate before the cliff of the measurement the
 * study started from, @measured. A fill that meets its cliff early began on a
 * cache not yet refilled (a study started soon after a sustained-write), and
 * its "rate before" is a trickle, not the drive's cached rate.
 * @fill_bytes_before and @fill_rate: the fill's cliff, 0 when it found none.
 */
#define RECOVERY_FILL_VALID 0.5
double recovery_pre_rate(uint64_t cache, double measured, uint64_t fill_bytes_before,
			 double fill_rate);

/* One burst: its idle time since the cliff and its rate. */
struct recovery_point {
	int64_t idle_ms;
	double rate; /* bytes/s */
};

struct recovery_verdict {
	bool known;	/* a pre-cliff rate and at least one burst */
	bool recovered; /* a burst ran at >= RECOVERY_RECOVERED of the pre-cliff rate */
	size_t point;	/* the first such burst (recovered), else the last one */
	int64_t idle_ms;
	double best_pct; /* the best burst, % of the pre-cliff rate */
};

/**
 * recovery_judge() - The rule: the cache has recovered at the first burst
 * that runs at >= 95 % of @pre_rate (the rate before the cliff); otherwise it
 * has not within the last burst's idle time.
 */
void recovery_judge(const struct recovery_point *v, size_t n, double pre_rate,
		    struct recovery_verdict *ret);

/*
 * The study's idle clock: "recovery needs real idle time". It runs only while
 * the study waits (not in its own runs), and the time the drive is busy by the
 * probes' rule (probe_busy: [probes] busy_iops, busy_mbps) is left out of it:
 * a burst due at 20 min idle runs once the drive has been idle 20 min in total
 * since the cliff, and a busy period puts it (and the later ones) off.
 */
struct recovery_idle {
	bool waiting;	   /* the clock runs (between the study's runs) */
	int64_t last_ms;   /* the last observation, monotonic ms */
	int64_t idle_ms;   /* idle since the cliff, busy periods left out */
	int64_t paused_ms; /* busy since the cliff: how long the study paused */
};

/**
 * recovery_idle_wait() - The study waits from @now_ms (the fill or a burst
 * ended): the clock runs again from here; its run's own time is not idle.
 */
void recovery_idle_wait(struct recovery_idle *st, int64_t now_ms);

/**
 * recovery_idle_observe() - The drive seen at @now_ms, @busy or not: the time
 * since the last observation counts as paused when busy, else as idle (the
 * busy rule looks back over the last minute, so what it says now is what the
 * time before was). Time going back, or not waiting, counts nothing.
 */
void recovery_idle_observe(struct recovery_idle *st, int64_t now_ms, bool busy);

/**
 * recovery_idle_left() - How much more idle time the burst due at
 * @interval_ms of idle needs: 0 when it is due.
 */
int64_t recovery_idle_left(const struct recovery_idle *st, int64_t interval_ms);

/**
 * recovery_idle_run() - A run starts at @now_ms: observed a last time (@busy),
 * then the clock stops until recovery_idle_wait().
 */
void recovery_idle_run(struct recovery_idle *st, int64_t now_ms, bool busy);
