/* SPDX-License-Identifier: MIT */
/*
 * Times and durations as clients and the configuration write them:
 * timefmt_parse() (RFC 3339 or unix ms, the API's from/to), timefmt_rfc3339() of
 * any int64 (must never overflow), cfg_parse_duration_ms() (step, cooldown, every
 * duration key), cfg_parse_size() and cfg_parse_listen().
 * Rules: a parsed time is within years 0000 to 9999 and survives format + parse;
 * a parsed duration is >= 0.
 */
#include <errno.h>

#include "fuzz.h"
#include "nvmond/core/cfg.h"
#include "nvmond/util/timefmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strdup(data, size), buf[TIMEFMT_MAX], host[256];
	int64_t t, t2, d, raw = 0;
	uint64_t sz;
	uint16_t port;

	if (timefmt_parse(s, &t) == 0) {
		FUZZ_CHECK(t >= TIMEFMT_MIN_MS && t <= TIMEFMT_MAX_MS);
		FUZZ_CHECK(timefmt_parse(timefmt_rfc3339(t, buf), &t2) == 0);
		FUZZ_CHECK(t2 == t);
	}
	/* Any int64 formats (clamped to the years 0000 to 9999) and parses back. */
	memcpy(&raw, data, size < sizeof(raw) ? size : sizeof(raw));
	FUZZ_CHECK(timefmt_parse(timefmt_rfc3339(raw, buf), &t2) == 0);
	FUZZ_CHECK(t2 >= TIMEFMT_MIN_MS && t2 <= TIMEFMT_MAX_MS);
	if (raw >= TIMEFMT_MIN_MS && raw <= TIMEFMT_MAX_MS)
		FUZZ_CHECK(t2 == raw);

	if (cfg_parse_duration_ms(s, &d) == 0)
		FUZZ_CHECK(d >= 0);
	(void)cfg_parse_size(s, &sz);
	if (cfg_parse_listen(s, host, &port) == 0)
		FUZZ_CHECK(strnlen(host, sizeof(host)) < sizeof(host));
	free(s);
	return 0;
}
