/* SPDX-License-Identifier: MIT */
/*
 * The values of configuration keys: durations ("10s", "250ms", "1d"), sizes
 * ("400TB", "1.2PB", "512GiB"), listen addresses ("host:port", "[v6]:port",
 * ":port") and plain numbers. Pure string parsing: no files, no logging.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/core/cfg.h"
#include "cfg_internal.h"

/* Parse a run of decimal digits that is the whole of [s, end). */
int cfg_parse_digits(const char *s, const char *end, int64_t max, int64_t *ret)
{
	int64_t n = 0;

	if (s == end)
		return -EINVAL;
	for (const char *p = s; p < end; p++) {
		if (!cfg_is_digit(*p))
			return -EINVAL;
		int d = *p - '0';
		if (n > (max - d) / 10)
			return -ERANGE;
		n = n * 10 + d;
	}
	*ret = n;
	return 0;
}

int cfg_parse_duration_ms(const char *s, int64_t *ret)
{
	static const struct {
		const char *suffix;
		int64_t ms;
	} units[] = {
		{"", MS_PER_SEC},  {"ms", 1},	       {"s", MS_PER_SEC},
		{"m", MS_PER_MIN}, {"h", MS_PER_HOUR}, {"d", MS_PER_DAY},
	};
	const char *p;
	int64_t n;
	int r;

	if (!s)
		return -EINVAL;
	for (p = s; cfg_is_digit(*p); p++)
		;
	r = cfg_parse_digits(s, p, INT64_MAX, &n);
	if (r < 0)
		return -EINVAL;
	for (size_t i = 0; i < ELEMENTSOF(units); i++) {
		if (strcmp(p, units[i].suffix) != 0)
			continue;
		if (n > INT64_MAX / units[i].ms)
			return -EINVAL;
		*ret = n * units[i].ms;
		return 0;
	}
	return -EINVAL;
}

/* "1d", "90s", "250ms": the largest unit that represents @ms exactly. */
void cfg_format_duration(int64_t ms, char *buf, size_t size)
{
	static const struct {
		const char *suffix;
		int64_t ms;
	} units[] = {
		{"d", MS_PER_DAY},
		{"h", MS_PER_HOUR},
		{"m", MS_PER_MIN},
		{"s", MS_PER_SEC},
	};

	for (size_t i = 0; i < ELEMENTSOF(units); i++)
		if (ms != 0 && ms % units[i].ms == 0) {
			snprintf(buf, size, "%" PRId64 "%s", ms / units[i].ms, units[i].suffix);
			return;
		}
	snprintf(buf, size, "%" PRId64 "ms", ms);
}

static bool cfg_hostname_valid(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || cfg_is_digit(ch) ||
		      ch == '-' || ch == '.' || ch == '_'))
			return false;
	}
	return true;
}

/* "fe80::1%eth0" or "::1": an IPv6 literal with an optional zone. */
static bool cfg_ipv6_valid(const char *s, size_t len)
{
	char addr[INET6_ADDRSTRLEN];
	unsigned char bin[16];
	const char *zone = memchr(s, '%', len);
	size_t alen = zone ? (size_t)(zone - s) : len;

	if (alen == 0 || alen >= sizeof(addr))
		return false;
	if (zone && !cfg_hostname_valid(zone + 1, len - alen - 1))
		return false;
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	return inet_pton(AF_INET6, addr, bin) == 1;
}

int cfg_parse_listen(const char *s, char host[256], uint16_t *ret_port)
{
	const char *h, *hend, *port;
	int64_t n;
	bool v6;

	if (!s)
		return -EINVAL;
	if (s[0] == '[') {
		h = s + 1;
		hend = strchr(h, ']');
		if (!hend || hend[1] != ':')
			return -EINVAL;
		port = hend + 2;
		v6 = true;
	} else {
		const char *colon = strrchr(s, ':');
		if (!colon)
			return -EINVAL;
		h = s;
		hend = colon;
		port = colon + 1;
		v6 = false;
	}

	size_t len = (size_t)(hend - h);
	if (len >= 256)
		return -EINVAL;
	if (v6 ? !cfg_ipv6_valid(h, len) : len > 0 && !cfg_hostname_valid(h, len))
		return -EINVAL;
	if (cfg_parse_digits(port, port + strlen(port), 65535, &n) < 0 || n == 0)
		return -EINVAL;

	if (len == 0)
		strcpy(host, "0.0.0.0");
	else {
		memcpy(host, h, len);
		host[len] = '\0';
	}
	*ret_port = (uint16_t)n;
	return 0;
}

int cfg_parse_size(const char *s, uint64_t *ret)
{
	static const struct {
		const char *suffix;
		uint64_t mult;
	} units[] = {
		{"", 1},
		{"B", 1},
		{"kB", 1000ULL},
		{"KB", 1000ULL},
		{"MB", 1000000ULL},
		{"GB", 1000000000ULL},
		{"TB", 1000000000000ULL},
		{"PB", 1000000000000000ULL},
		{"KiB", 1ULL << 10},
		{"MiB", 1ULL << 20},
		{"GiB", 1ULL << 30},
		{"TiB", 1ULL << 40},
		{"PiB", 1ULL << 50},
	};
	uint64_t whole = 0, frac = 0, frac_div = 1;
	const char *p = s;

	if (!cfg_is_digit(*p))
		return -EINVAL;
	for (; cfg_is_digit(*p); p++) {
		uint64_t dgt = (uint64_t)(*p - '0');
		if (whole > (UINT64_MAX - dgt) / 10)
			return -ERANGE;
		whole = whole * 10 + dgt;
	}
	if (*p == '.') {
		p++;
		if (!cfg_is_digit(*p))
			return -EINVAL;
		/* Up to 6 decimals: "1.2PB" stays exact in integers. */
		for (int n = 0; cfg_is_digit(*p); p++, n++)
			if (n < 6) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				frac_div *= 10;
			}
	}
	while (*p == ' ')
		p++;
	for (size_t i = 0; i < ELEMENTSOF(units); i++) {
		if (strcmp(p, units[i].suffix) != 0)
			continue;
		uint64_t m = units[i].mult;
		if (whole > UINT64_MAX / m)
			return -ERANGE;
		uint64_t v = whole * m;
		/* frac / frac_div of a unit, rounded down to whole bytes. */
		uint64_t f = (uint64_t)((unsigned __int128)frac * m / frac_div);
		if (v > UINT64_MAX - f)
			return -ERANGE;
		*ret = v + f;
		return 0;
	}
	return -EINVAL;
}
