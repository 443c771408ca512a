/* SPDX-License-Identifier: MIT */
/*
 * A notification as an RFC 5322 mail (RFC 2045 MIME headers, RFC 2047 subject).
 * Pure: the time and the unique part of the Message-ID come from the caller.
 */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvmond/alert/mail_msg.h"
#include "nvmond/util/timefmt.h"

#define LINE_MAX_OCTETS 998 /* RFC 5322 2.1.1, without the CRLF */
#define QP_LINE		76  /* RFC 2045 6.7 (5) */
#define EW_CHUNK	45  /* input bytes per encoded-word: 60 base64 chars + 12 = 72 <= 75 */

void mail_date(int64_t ms, char *buf, size_t size)
{
	static const char *const wd[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
	static const char *const mo[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
					 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	time_t t = (time_t)timefmt_secs(ms);
	struct tm tm;

	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, size, "Thu, 01 Jan 1970 00:00:00 +0000");
		return;
	}
	snprintf(buf, size, "%s, %02d %s %04d %02d:%02d:%02d +0000", wd[tm.tm_wday], tm.tm_mday,
		 mo[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static bool ascii_print(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* @s is printable ASCII with no space and none of @banned. */
static bool ascii_word(const char *s, const char *banned)
{
	for (const char *p = s; *p; p++) {
		unsigned char ch = (unsigned char)*p;
		if (ch <= 0x20 || ch >= 0x7f || strchr(banned, ch))
			return false;
	}
	return true;
}

bool mail_addr_valid(const char *s)
{
	if (!s || !*s || strlen(s) > 254)
		return false;
	const char *at = strrchr(s, '@');
	if (!at || at == s || !at[1])
		return false;
	return ascii_word(s, "<>,;\"()[]\\:");
}

/* A host name for the Message-ID's right side and the Subject: printable, no "<>@" or space. */
static bool host_valid(const char *s)
{
	if (!s || !*s || strlen(s) > 253)
		return false;
	return ascii_word(s, "<>@,;\"()[]\\");
}

/* @s with control characters (CR, LF, TAB, DEL, C1 is left: UTF-8) made spaces. */
static void clean(char *dst, size_t size, const char *s)
{
	size_t i = 0;

	for (; s && *s && i + 1 < size; s++, i++) {
		unsigned char ch = (unsigned char)*s;
		dst[i] = ch < 0x20 || ch == 0x7f ? ' ' : (char)ch;
	}
	dst[i] = '\0';
}

/* @n's texts clean()ed in place: none of them starts a header line or breaks one. */
static void clean_note(struct alert_note *n)
{
	clean(n->device, sizeof(n->device), n->device);
	clean(n->model, sizeof(n->model), n->model);
	clean(n->serial, sizeof(n->serial), n->serial);
	clean(n->label, sizeof(n->label), n->label);
	clean(n->location, sizeof(n->location), n->location);
	clean(n->rule, sizeof(n->rule), n->rule);
	clean(n->severity, sizeof(n->severity), n->severity);
	clean(n->state, sizeof(n->state), n->state);
	clean(n->message, sizeof(n->message), n->message);
}

static void base64(FILE *f, const unsigned char *p, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		fputc(t[v >> 18 & 63], f);
		fputc(t[v >> 12 & 63], f);
		fputc(i + 1 < n ? t[v >> 6 & 63] : '=', f);
		fputc(i + 2 < n ? t[v & 63] : '=', f);
	}
}

/* Length of the UTF-8 sequence starting at @p (1 for a stray byte), so a chunk never splits one. */
static size_t utf8_len(const unsigned char *p)
{
	if (*p >= 0xf0 && p[1] && p[2] && p[3])
		return 4;
	if (*p >= 0xe0 && p[1] && p[2])
		return 3;
	if (*p >= 0xc0 && p[1])
		return 2;
	return 1;
}

/*
 * "Subject: " and @s: as is when printable ASCII and short, else as
 * encoded-words (RFC 2047 "B"), each <= 75 characters, folded onto
 * continuation lines; whole UTF-8 characters per word (RFC 2047 5 (3)).
 */
static void put_subject(FILE *f, const char *s)
{
	fputs("Subject: ", f);
	if (ascii_print(s) && strlen(s) <= 900) {
		fputs(s, f);
		fputs("\r\n", f);
		return;
	}
	const unsigned char *p = (const unsigned char *)s;
	bool first = true;
	while (*p) {
		size_t n = 0;
		while (p[n]) {
			size_t k = utf8_len(p + n);
			if (n + k > EW_CHUNK)
				break;
			n += k;
		}
		if (!first)
			fputs("\r\n ", f);
		fputs("=?UTF-8?B?", f);
		base64(f, p, n);
		fputs("?=", f);
		p += n;
		first = false;
	}
	fputs("\r\n", f);
}

static bool body_needs_qp(const char *b)
{
	size_t col = 0;

	for (const char *p = b; *p; p++) {
		unsigned char ch = (unsigned char)*p;
		if (ch == '\n') {
			col = 0;
			continue;
		}
		if (ch >= 0x80 || (ch < 0x20 && ch != '\t') || ++col > LINE_MAX_OCTETS)
			return true;
	}
	return false;
}

/* @b (LF line ends) with CRLF line ends, as 7bit text. */
static void put_7bit(FILE *f, const char *b)
{
	for (; *b; b++) {
		if (*b == '\n')
			fputc('\r', f);
		fputc(*b, f);
	}
}

/* @b (LF line ends) as quoted-printable (RFC 2045 6.7), lines <= 76 with soft breaks. */
static void put_qp(FILE *f, const char *b)
{
	size_t col = 0;

	for (const unsigned char *p = (const unsigned char *)b; *p; p++) {
		if (*p == '\n') {
			fputs("\r\n", f);
			col = 0;
			continue;
		}
		char enc[4];
		bool lit = (*p >= 33 && *p <= 126 && *p != '=') ||
			   (*p == ' ' && p[1] && p[1] != '\n'); /* no space before a line end */
		if (lit) {
			enc[0] = (char)*p;
			enc[1] = '\0';
		} else {
			snprintf(enc, sizeof(enc), "=%02X", *p);
		}
		size_t k = strlen(enc);
		if (col + k > QP_LINE - 1) { /* room for the "=" of a soft break */
			fputs("=\r\n", f);
			col = 0;
		}
		fputs(enc, f);
		col += k;
	}
}

static void put_utc(FILE *f, const char *label, int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char buf[32] = "?";

	if (gmtime_r(&t, &tm))
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm);
	fprintf(f, "%-11s%s\n", label, buf);
}

/* The plain-text body, LF line ends (made CRLF by the encoder). */
static void write_body(FILE *f, const struct mail_msg_cfg *c, const struct alert_note *n,
		       const char *host)
{
	fprintf(f, "nvmond on %s: %s is %s (%s).\n\n", host, n->rule, n->state, n->severity);
	fprintf(f, "%-11s%s\n", "What:", n->message);
	fprintf(f, "%-11s%s%s%s, serial %s\n", "Drive:", n->device[0] ? n->device : "-",
		n->model[0] ? " " : "", n->model, n->serial[0] ? n->serial : "-");
	if (n->label[0])
		fprintf(f, "%-11s%s\n", "Label:", n->label);
	if (n->location[0])
		fprintf(f, "%-11s%s\n", "Location:", n->location);
	fprintf(f, "%-11s%s\n", "State:", n->state);
	fprintf(f, "%-11s%s\n", "Severity:", n->severity);
	if (n->started_ms > 0)
		put_utc(f, "Since:", n->started_ms);
	if (n->resolved_ms > 0)
		put_utc(f, "Resolved:", n->resolved_ms);
	put_utc(f, "Sent:", n->ts_ms);
	if (n->alert_id > 0)
		fprintf(f, "%-11s%" PRId64 "\n", "Alert:", n->alert_id);
	if (c->base_url && c->base_url[0] && ascii_print(c->base_url)) {
		size_t l = strlen(c->base_url);
		const char *slash = l && c->base_url[l - 1] == '/' ? "" : "/";
		if (n->device_id > 0)
			fprintf(f, "%-11s%s%s#/drive/%" PRId64 "\n", "Dashboard:", c->base_url,
				slash, n->device_id);
		else
			fprintf(f, "%-11s%s%s\n", "Dashboard:", c->base_url, slash);
	}
	fputs("\n-- \nnvmond, NVMe monitoring\n", f);
}

int mail_msg_build(const struct mail_msg_cfg *c, const struct alert_note *n, int64_t now_ms,
		   uint64_t unique, char **ret)
{
	if (!c || !n || !mail_addr_valid(c->from) || c->n_to == 0 || !host_valid(c->host))
		return -EINVAL;
	for (size_t i = 0; i < c->n_to; i++)
		if (!mail_addr_valid(c->to[i]))
			return -EINVAL;

	struct alert_note k = *n; /* its texts clean()ed */
	clean_note(&k);

	char *body = NULL;
	size_t body_len = 0;
	FILE *bf = open_memstream(&body, &body_len);
	if (!bf)
		return -ENOMEM;
	write_body(bf, c, &k, c->host);
	if (fclose(bf) != 0) {
		free(body);
		return -ENOMEM;
	}

	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);
	if (!f) {
		free(body);
		return -ENOMEM;
	}
	char date[40];
	mail_date(now_ms, date, sizeof(date));
	fprintf(f, "Date: %s\r\n", date);
	fprintf(f, "Message-ID: <nvmond.%" PRId64 ".%016" PRIx64 "@%s>\r\n", now_ms, unique,
		c->host);
	fprintf(f, "From: nvmond <%s>\r\n", c->from);
	fputs("To: ", f);
	for (size_t i = 0; i < c->n_to; i++)
		fprintf(f, "%s<%s>", i ? ",\r\n " : "", c->to[i]);
	fputs("\r\n", f);

	char named[2 * sizeof(k.label) + 8] = "";
	if (k.label[0] || k.location[0])
		snprintf(named, sizeof(named), " \"%s%s%s\"", k.label,
			 k.label[0] && k.location[0] ? ", " : "", k.location);
	char subject[700];
	snprintf(subject, sizeof(subject), "[nvmond] %s: %s %s on %s, %s%s (%s %s)", k.severity,
		 k.rule, k.state, c->host, k.device[0] ? k.device : "-", named,
		 k.model[0] ? k.model : "-", k.serial[0] ? k.serial : "-");
	put_subject(f, subject);

	fputs("MIME-Version: 1.0\r\n", f);
	fputs("Content-Type: text/plain; charset=utf-8\r\n", f);
	fputs("Auto-Submitted: auto-generated\r\n", f); /* RFC 3834: no auto-replies */
	bool qp = body_needs_qp(body);
	fprintf(f, "Content-Transfer-Encoding: %s\r\n\r\n", qp ? "quoted-printable" : "7bit");
	if (qp)
		put_qp(f, body);
	else
		put_7bit(f, body);
	free(body);
	if (fclose(f) != 0) {
		free(out);
		return -ENOMEM;
	}
	*ret = out;
	return 0;
}
