/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * What a remote-write sender does with the engine's answer (Remote-Write 1.0,
 * "Retries & Backoff"): "senders MUST retry write requests on HTTP 5xx
 * responses and MUST use a backoff algorithm ... They MUST NOT retry write
 * requests on HTTP 2xx and 4xx responses other than 429. They MAY retry on
 * HTTP 429 responses". Everything nvmond reads of an answer is parsed here:
 * the status, the Retry-After header (RFC 9110, 10.2.3) and the body, whose
 * first line is the engine's message. Pure; fuzzed (tests/fuzz/fuzz_rw_answer.c).
 */
enum rw_action {
	RW_DONE,  /* 2xx: the samples are in */
	RW_RETRY, /* no answer (network, TLS, timeout), 5xx or 429: the same batch again */
	RW_DROP,  /* another status: the batch is refused for good */
};

#define RW_MESSAGE_MAX 256

struct rw_answer {
	enum rw_action action;
	int64_t retry_after_ms;	      /* the wait Retry-After asks for; -1 = none (or unusable) */
	char message[RW_MESSAGE_MAX]; /* "HTTP 400: out of bounds", one line of UTF-8 */
};

/* Retry-After is obeyed up to this; a longer wait is cut to it. */
#define RW_RETRY_AFTER_MAX_MS (5 * 60 * 1000LL)

/**
 * rw_answer_classify() - The action for an answer with status @status (0: no
 * HTTP answer at all), the Retry-After value @retry_after (NULL: none) and the
 * body @body of @body_len bytes (any bytes), at @now_ms.
 */
void rw_answer_classify(long status, const char *retry_after, const char *body, size_t body_len,
			int64_t now_ms, struct rw_answer *ret);

/**
 * rw_retry_after_parse() - Retry-After: delta-seconds ("120") or an HTTP-date
 * in the IMF-fixdate form ("Sun, 06 Nov 1994 08:49:37 GMT"), as a wait from
 * @now_ms (0 for a date in the past), at most RW_RETRY_AFTER_MAX_MS.
 * Return: 0, or -EINVAL.
 */
int rw_retry_after_parse(const char *s, int64_t now_ms, int64_t *ret_ms);

/**
 * rw_backoff_ms() - The wait before retry number @attempt (1, 2, …): @min_ms
 * doubled each time, at most @max_ms.
 */
int64_t rw_backoff_ms(unsigned attempt, int64_t min_ms, int64_t max_ms);

/**
 * rw_message_clean() - @len bytes of an answer's body as one line for a log:
 * its first line, control characters as spaces, bytes that are not UTF-8 as
 * '?', cut (at a whole character) to fit @size. Return: @buf.
 */
char *rw_message_clean(const char *s, size_t len, char *buf, size_t size);
