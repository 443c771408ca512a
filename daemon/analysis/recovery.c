/* SPDX-License-Identifier: MIT */
/* The cache-recovery study's plan and verdict. See recovery.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/analysis/recovery.h"

#define MiB (1ull << 20)

static int parse_one(const char *s, size_t len, int64_t *ret)
{
	char buf[32], *end;
	long long v;
	int64_t unit = 1000;

	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || end == buf || v <= 0)
		return -EINVAL;
	if (!strcmp(end, "m"))
		unit = 60000;
	else if (!strcmp(end, "h"))
		unit = 3600000;
	else if (strcmp(end, "s") && *end)
		return -EINVAL;
	if (v > 7 * 24 * 3600000LL / unit)
		return -EINVAL; /* a week at most */
	*ret = v * unit;
	return 0;
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
		if (parse_one(p, len, &v[n]) < 0) {
			snprintf(err, RECOVERY_ERR_MAX,
				 "\"%.*s\" is not a duration (e.g. 90s, 5m, 1h)", (int)len, p);
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
