/* SPDX-License-Identifier: MIT */
/* The cache-recovery study's plan and verdict. See recovery.h. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/analysis/recovery.h"
#include "nvmond/util/units.h"

/*
 * One interval: a duration written as every other duration of the
 * configuration is (cfg_parse_duration_ms(): digits and ms, s, m, h or d, a
 * bare number being seconds). Return: 0, -EINVAL (not a duration) or -ERANGE
 * (outside RECOVERY_INTERVAL_MIN_MS … RECOVERY_INTERVAL_MAX_MS).
 */
static int parse_one(const char *s, size_t len, int64_t *ret)
{
	static const struct {
		const char *suffix;
		int64_t ms;
	} units[] = {
		{"", 1000}, {"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}, {"d", 86400000},
	};
	int64_t v = 0;
	size_t i = 0;

	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (INT64_MAX - 9) / 10)
			return -ERANGE;
		v = v * 10 + (s[i] - '0');
	}
	if (i == 0)
		return -EINVAL;
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		if (strlen(units[u].suffix) != len - i ||
		    memcmp(s + i, units[u].suffix, len - i) != 0)
			continue;
		if (v > RECOVERY_INTERVAL_MAX_MS / units[u].ms)
			return -ERANGE;
		v *= units[u].ms;
		if (v < RECOVERY_INTERVAL_MIN_MS)
			return -ERANGE;
		*ret = v;
		return 0;
	}
	return -EINVAL;
}

int recovery_intervals_parse(const char *s, int64_t ret[RECOVERY_MAX_INTERVALS], size_t *ret_n,
			     char err[RECOVERY_ERR_MAX])
{
	int64_t v[RECOVERY_MAX_INTERVALS];
	size_t n = 0;

	if (!s || !*s) {
		snprintf(err, RECOVERY_ERR_MAX, "no interval (e.g. 5m,10m,20m)");
		return -EINVAL;
	}
	for (const char *p = s;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (n == RECOVERY_MAX_INTERVALS) {
			snprintf(err, RECOVERY_ERR_MAX, "more than %d intervals",
				 RECOVERY_MAX_INTERVALS);
			return -EINVAL;
		}
		int r = parse_one(p, len, &v[n]);
		if (r == -ERANGE) {
			snprintf(err, RECOVERY_ERR_MAX, "\"%.*s\" is out of range (1s .. 7d)",
				 (int)len, p);
			return -EINVAL;
		}
		if (r < 0) {
			snprintf(err, RECOVERY_ERR_MAX,
				 "\"%.*s\" is not a duration (e.g. 90s, 5m, 1h, 1d)", (int)len, p);
			return -EINVAL;
		}
		if (n && v[n] <= v[n - 1]) {
			snprintf(err, RECOVERY_ERR_MAX,
				 "\"%.*s\" is not after the interval before it", (int)len, p);
			return -EINVAL;
		}
		n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	memcpy(ret, v, n * sizeof(v[0]));
	*ret_n = n;
	return 0;
}

uint64_t recovery_burst_bytes(uint64_t cache, uint64_t area, uint64_t budget)
{
	uint64_t b = cache / RECOVERY_BURST_DIV;

	if (b < RECOVERY_MIN_BURST)
		b = RECOVERY_MIN_BURST;
	if (b > area)
		b = area;
	if (b > budget)
		b = budget;
	return b / MiB * MiB;
}

uint64_t recovery_fill_bytes(uint64_t cache, uint64_t limit)
{
	uint64_t f = (cache + cache / 4 + MiB - 1) / MiB * MiB;

	if (f > limit)
		f = limit / MiB * MiB;
	return f > cache ? f : 0;
}

double recovery_pre_rate(uint64_t cache, double measured, uint64_t fill_bytes_before,
			 double fill_rate)
{
	if (fill_rate > 0 && (double)fill_bytes_before >= RECOVERY_FILL_VALID * (double)cache)
		return fill_rate;
	return measured;
}

void recovery_judge(const struct recovery_point *v, size_t n, double pre_rate,
		    struct recovery_verdict *ret)
{
	*ret = (struct recovery_verdict){0};
	if (!n || pre_rate <= 0)
		return;
	ret->known = true;
	ret->point = n - 1;
	for (size_t i = 0; i < n; i++) {
		double pct = v[i].rate / pre_rate * 100.0;
		if (pct > ret->best_pct)
			ret->best_pct = pct;
		if (!ret->recovered && v[i].rate >= RECOVERY_RECOVERED * pre_rate) {
			ret->recovered = true;
			ret->point = i;
		}
	}
	ret->idle_ms = v[ret->point].idle_ms;
}

void recovery_idle_wait(struct recovery_idle *st, int64_t now_ms)
{
	st->waiting = true;
	st->last_ms = now_ms;
}

void recovery_idle_observe(struct recovery_idle *st, int64_t now_ms, bool busy)
{
	if (!st->waiting || now_ms <= st->last_ms)
		return;
	if (busy)
		st->paused_ms += now_ms - st->last_ms;
	else
		st->idle_ms += now_ms - st->last_ms;
	st->last_ms = now_ms;
}

int64_t recovery_idle_left(const struct recovery_idle *st, int64_t interval_ms)
{
	return st->idle_ms < interval_ms ? interval_ms - st->idle_ms : 0;
}

void recovery_idle_run(struct recovery_idle *st, int64_t now_ms, bool busy)
{
	recovery_idle_observe(st, now_ms, busy);
	st->waiting = false;
}
