/* SPDX-License-Identifier: MIT */
/*
 * What nvmond reads of a remote-write engine's answer (export/rw_answer.c): the
 * status, the Retry-After header and the body. Input: 2 bytes of status (big
 * endian, taken modulo 1000), the Retry-After value up to a NUL (none when the
 * input ends there), then the body, any bytes.
 * Rules: 2xx is done, no answer (0), 5xx and 429 are retried, every other status
 * is dropped (Remote-Write 1.0); a wait is -1 or within 0 .. RW_RETRY_AFTER_MAX_MS,
 * and only for a retry; the message is one line of UTF-8 without a control
 * character, shorter than RW_MESSAGE_MAX.
 */
#include "fuzz.h"
#include "nvmond/export/rw_answer.h"
#include "nvmond/util/utf8.h"

#define NOW_MS 1796005160000LL

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rw_answer a;
	char *ra = NULL;
	const char *body = "";
	size_t body_len = 0;
	long status;

	if (size < 2)
		return 0;
	status = (long)((data[0] << 8 | data[1]) % 1000);
	const uint8_t *p = data + 2, *end = data + size;
	const uint8_t *nul = memchr(p, '\0', (size_t)(end - p));
	if (nul) {
		ra = fuzz_strdup(p, (size_t)(nul - p));
		body = (const char *)nul + 1;
		body_len = (size_t)(end - nul - 1);
	}
	rw_answer_classify(status, ra, body, body_len, NOW_MS, &a);
	if (status >= 200 && status <= 299)
		FUZZ_CHECK(a.action == RW_DONE);
	else if (status == 0 || status == 429 || (status >= 500 && status <= 599))
		FUZZ_CHECK(a.action == RW_RETRY);
	else
		FUZZ_CHECK(a.action == RW_DROP);
	FUZZ_CHECK(a.retry_after_ms >= -1 && a.retry_after_ms <= RW_RETRY_AFTER_MAX_MS);
	FUZZ_CHECK(a.retry_after_ms == -1 || a.action == RW_RETRY);
	size_t len = strlen(a.message);
	FUZZ_CHECK(len < RW_MESSAGE_MAX);
	FUZZ_CHECK(utf8_valid(a.message, len));
	for (size_t i = 0; i < len; i++)
		FUZZ_CHECK((unsigned char)a.message[i] >= 0x20 && a.message[i] != 0x7f);
	if (ra) {
		int64_t ms = -5;
		if (rw_retry_after_parse(ra, NOW_MS, &ms) == 0)
			FUZZ_CHECK(ms >= 0 && ms <= RW_RETRY_AFTER_MAX_MS);
		else
			FUZZ_CHECK(ms == -5);
	}
	free(ra);
	return 0;
}
