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
#include "nvmond/util/utf8.h"
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
		/* Up to 6 decimals: "1.2PB" stays exact in integers. A 7th would be
		 * rounded away without a word: refused instead. */
		for (int n = 0; cfg_is_digit(*p); p++, n++) {
			if (n == CFG_SIZE_DECIMALS)
				return -EDOM;
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

bool cfg_text_ok(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return utf8_valid(s, len);
}

bool cfg_http_url_ok(const char *s)
{
	const char *host = !strncmp(s, "http://", 7)	? s + 7
			   : !strncmp(s, "https://", 8) ? s + 8
							: NULL;

	if (!host || !*host || *host == '/' || *host == '?' || *host == '#')
		return false;
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return false;
	return true;
}

/*
 * Label names nvmond's own series carry (docs/metrics.md), and the ones a push
 * adds (job, instance, host): a host label of one of these names would clash.
 */
#define CFG_RESERVED_LABELS                                                                        \
	"job, instance, host, host_id, public_url, device, model, serial, firmware, label, "       \
	"location, sensor, kind, level, warning, type, basis, class, preset, phase, direction, "   \
	"percentile, sink, result, version, rule, severity, state, export, reason"

bool cfg_label_reserved(const char *name)
{
	size_t len = strlen(name);

	for (const char *p = CFG_RESERVED_LABELS; *p;) {
		size_t k = strcspn(p, ",");
		if (k == len && strncmp(p, name, len) == 0)
			return true;
		p += k;
		p += strspn(p, ", ");
	}
	return false;
}

const char *cfg_label_reserved_list(void)
{
	return CFG_RESERVED_LABELS;
}

/* Prometheus's data model: [a-zA-Z_][a-zA-Z0-9_]*, and "__" leads only its own. */
bool cfg_label_name_ok(const char *s)
{
	if (!s[0] || cfg_is_digit(s[0]) || (s[0] == '_' && s[1] == '_'))
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || cfg_is_digit(*p) ||
		      *p == '_'))
			return false;
	return true;
}

int cfg_parse_labels(const char *s, struct cfg_labels *ret, char *err, size_t errsize)
{
	struct cfg_labels v = {.n = 0};
	const char *p = s;

	while (cfg_is_space(*p))
		p++;
	while (*p) {
		const char *name = p, *eq = strchr(p, '=');
		size_t nlen, vlen;
		const char *val;

		if (!eq)
			return cfg_fail(err, errsize, "'%.60s' is not name=value", name);
		nlen = (size_t)(eq - name);
		while (nlen > 0 && cfg_is_space(name[nlen - 1]))
			nlen--;
		if (v.n == CFG_LABELS_MAX)
			return cfg_fail(err, errsize, "more than %d labels", CFG_LABELS_MAX);
		struct cfg_label *l = &v.v[v.n];
		if (nlen == 0 || nlen >= sizeof(l->name))
			return cfg_fail(err, errsize, "'%.*s' is not a label name", (int)nlen,
					name);
		memcpy(l->name, name, nlen);
		l->name[nlen] = '\0';
		if (!cfg_label_name_ok(l->name))
			return cfg_fail(err, errsize,
					"'%s' is not a label name (letters, digits and _, "
					"not first a digit, not __ first)",
					l->name);
		if (cfg_label_reserved(l->name))
			return cfg_fail(err, errsize,
					"'%s' is a label nvmond sets itself (reserved: %s)",
					l->name, cfg_label_reserved_list());
		for (size_t i = 0; i < v.n; i++)
			if (strcmp(v.v[i].name, l->name) == 0)
				return cfg_fail(err, errsize, "label '%s' is given twice", l->name);
		p = eq + 1;
		while (cfg_is_space(*p))
			p++;
		if (*p == '"') {
			const char *end = strchr(p + 1, '"');
			if (!end)
				return cfg_fail(err, errsize, "%s: no closing quote", l->name);
			val = p + 1;
			vlen = (size_t)(end - val);
			p = end + 1;
			while (cfg_is_space(*p))
				p++;
			if (*p && *p != ',')
				return cfg_fail(err, errsize, "%s: text after the closing quote",
						l->name);
		} else {
			val = p;
			p += strcspn(p, ",");
			vlen = (size_t)(p - val);
			while (vlen > 0 && cfg_is_space(val[vlen - 1]))
				vlen--;
		}
		if (vlen == 0)
			return cfg_fail(err, errsize, "%s: empty value", l->name);
		if (vlen >= sizeof(l->value))
			return cfg_fail(err, errsize, "%s: value too long (max %zu bytes)", l->name,
					sizeof(l->value) - 1);
		if (!cfg_text_ok(val, vlen))
			return cfg_fail(err, errsize,
					"%s: the value is not UTF-8 text (a control character "
					"or an invalid byte)",
					l->name);
		memcpy(l->value, val, vlen);
		l->value[vlen] = '\0';
		v.n++;
		if (*p == ',') {
			p++;
			while (cfg_is_space(*p))
				p++;
			if (!*p)
				return cfg_fail(err, errsize, "a trailing comma");
		}
	}
	*ret = v;
	return 0;
}
