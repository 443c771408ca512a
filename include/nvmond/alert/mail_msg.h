/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/alert/alert_sink.h"

/*
 * One notification as an RFC 5322 message (pure: no clock, no I/O): CRLF line
 * ends, Date, Message-ID, From, To, a Subject naming severity, rule, host and
 * drive (an RFC 2047 encoded-word when it is not plain ASCII), MIME headers for
 * a text/plain; charset=utf-8 body, sent as 7bit when it can be, else as
 * quoted-printable, so that no line is longer than 998 octets.
 *
 * Header injection: the addresses and the host name are refused (-EINVAL) when
 * they hold a CR, an LF or any other control character; the note's own fields
 * (rule, model, message, …) have their control characters replaced by spaces
 * and go into the Subject only as an encoded-word or as printable ASCII.
 */
struct mail_msg_cfg {
	const char *from;      /* "nvmond@example.org" (an addr-spec) */
	const char *const *to; /* addr-specs */
	size_t n_to;	       /* >= 1 */
	const char *host;      /* this machine, in the Subject and the Message-ID */
	const char *base_url;  /* the dashboard ("https://nas:9841"); NULL or "": no link */
};

/**
 * mail_addr_valid() - Whether @s can stand as an addr-spec in a header and an
 * SMTP command: local@domain, printable ASCII, no space, no "<>,;\"()[]\\".
 * Return: true if so.
 */
bool mail_addr_valid(const char *s);

/**
 * mail_msg_build() - The message for @n, made at @now_ms (Date), with
 * @unique (any value unique for this host, e.g. random) in the Message-ID.
 * Return: 0 and a malloc'ed NUL-terminated message in @ret, or -EINVAL (a bad
 * address or host name), -ENOMEM.
 */
int mail_msg_build(const struct mail_msg_cfg *c, const struct alert_note *n, int64_t now_ms,
		   uint64_t unique, char **ret);

/**
 * mail_date() - @ms as an RFC 5322 date-time in UTC, "Tue, 01 Dec 2026 19:41:06 +0000"
 * (English names whatever the locale). @buf holds at least 32 bytes.
 */
void mail_date(int64_t ms, char *buf, size_t size);
