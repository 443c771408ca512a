/* SPDX-License-Identifier: MIT */
/* The engine's answer to a remote-write request (rw_answer.h). Pure. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "nvmond/export/rw_answer.h"
#include "nvmond/util/utf8.h"

char *rw_message_clean(const char *s, size_t len, char *buf, size_t size)
{
	size_t o = 0, i = 0;

	if (size == 0)
		return buf;
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
		i++;
	while (i < len && s[i] != '\n' && s[i] != '\r') {
		unsigned char c = (unsigned char)s[i];
		size_t k = utf8_char_len(s + i, len - i), n;
		const char *src;

		if (c < 0x20 || c == 0x7f) { /* a tab, a NUL: a space */
			src = " ";
			n = k = 1;
		} else if (k == 0) { /* not UTF-8 */
			src = "?";
			n = k = 1;
		} else {
			src = s + i;
			n = k;
		}
		if (o + n + 1 > size)
			break;
		memcpy(buf + o, src, n);
		o += n;
		i += k;
	}
	while (o > 0 && buf[o - 1] == ' ')
		o--;
	buf[o] = '\0';
	return buf;
}

/* RFC 9110, 5.6.7: IMF-fixdate = day-name "," SP date1 SP time-of-day SP "GMT". */
static int imf_fixdate(const char *s, int64_t *ret_ms)
{
	static const char *const days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
	static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
					     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	char day[4], mon[4], gmt[4], tail;
	int d, y, hh, mm, ss, m = -1;
	bool day_ok = false;

	if (strlen(s) != 29 || sscanf(s, "%3s, %2d %3s %4d %2d:%2d:%2d %3s%c", day, &d, mon, &y,
				      &hh, &mm, &ss, gmt, &tail) != 8)
		return -EINVAL;
	for (int i = 0; i < 7; i++)
		day_ok |= strcmp(day, days[i]) == 0;
	for (int i = 0; i < 12; i++)
		if (strcmp(mon, months[i]) == 0)
			m = i;
	if (!day_ok || m < 0 || strcmp(gmt, "GMT") != 0 || d < 1 || d > 31 || y < 1970 ||
	    y > 9999 || hh > 23 || mm > 59 || ss > 60 || hh < 0 || mm < 0 || ss < 0)
		return -EINVAL;
	struct tm tm = {.tm_year = y - 1900,
			.tm_mon = m,
			.tm_mday = d,
			.tm_hour = hh,
			.tm_min = mm,
			.tm_sec = ss};
	time_t t = timegm(&tm);
	if (t == (time_t)-1)
		return -EINVAL;
	*ret_ms = (int64_t)t * 1000;
	return 0;
}

int rw_retry_after_parse(const char *s, int64_t now_ms, int64_t *ret_ms)
{
	int64_t v = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s >= '0' && *s <= '9') {
		/* delta-seconds = 1*DIGIT */
		const char *p = s;
		for (; *p >= '0' && *p <= '9'; p++)
			if (v < RW_RETRY_AFTER_MAX_MS / 1000 + 1)
				v = v * 10 + (*p - '0');
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p)
			return -EINVAL;
		v *= 1000;
	} else {
		int64_t at;
		if (imf_fixdate(s, &at) < 0)
			return -EINVAL;
		v = at > now_ms ? at - now_ms : 0;
	}
	*ret_ms = v > RW_RETRY_AFTER_MAX_MS ? RW_RETRY_AFTER_MAX_MS : v;
	return 0;
}

int64_t rw_backoff_ms(unsigned attempt, int64_t min_ms, int64_t max_ms)
{
	int64_t v = min_ms;

	for (unsigned i = 1; i < attempt && v < max_ms; i++)
		v *= 2;
	return v > max_ms ? max_ms : v;
}

void rw_answer_classify(long status, const char *retry_after, const char *body, size_t body_len,
			int64_t now_ms, struct rw_answer *ret)
{
	char msg[RW_MESSAGE_MAX - 32];

	ret->retry_after_ms = -1;
	rw_message_clean(body ? body : "", body ? body_len : 0, msg, sizeof(msg));
	if (status >= 200 && status <= 299)
		ret->action = RW_DONE;
	else if (status == 0 || (status >= 500 && status <= 599) || status == 429)
		ret->action = RW_RETRY;
	else
		ret->action = RW_DROP;
	if (ret->action == RW_RETRY && status && retry_after &&
	    rw_retry_after_parse(retry_after, now_ms, &ret->retry_after_ms) < 0)
		ret->retry_after_ms = -1;
	if (status == 0)
		snprintf(ret->message, sizeof(ret->message), "%s", msg[0] ? msg : "no answer");
	else if (msg[0])
		snprintf(ret->message, sizeof(ret->message), "HTTP %ld: %s", status, msg);
	else
		snprintf(ret->message, sizeof(ret->message), "HTTP %ld", status);
}
