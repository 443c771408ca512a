/* SPDX-License-Identifier: MIT */
/*
 * The notification mail (daemon/alert/mail_msg.c): each case names the rule of
 * RFC 5322 / 2045 / 2047 it checks. The real SMTP round trip is
 * tests/integration/test_sink_email.sh.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/alert/mail_msg.h"

static const char *const TO[] = {"ops@example.org", "pager@example.net"};

static struct mail_msg_cfg cfg(void)
{
	return (struct mail_msg_cfg){.from = "nvmond@nas.example",
				     .to = TO,
				     .n_to = 2,
				     .host = "nas",
				     .base_url = "http://nas:9841"};
}

static struct alert_note note(void)
{
	struct alert_note n = {.alert_id = 42,
			       .device_id = 3,
			       .started_ms = 1764614400000,
			       .ts_ms = 1764614460000};
	strcpy(n.device, "nvme0");
	strcpy(n.model, "Samsung SSD 980 1TB");
	strcpy(n.serial, "S64DNF0R123456");
	strcpy(n.rule, "temperature_critical");
	strcpy(n.severity, "critical");
	strcpy(n.state, "firing");
	strcpy(n.message, "composite temperature 85 C above the critical threshold 84 C");
	return n;
}

static char *build(const struct mail_msg_cfg *c, const struct alert_note *n)
{
	char *m = NULL;
	cr_assert_eq(mail_msg_build(c, n, 1764614461000, 0xabcdefull, &m), 0);
	return m;
}

/* The header block: up to the first empty line. */
static char *headers(const char *m)
{
	const char *end = strstr(m, "\r\n\r\n");
	cr_assert_not_null(end);
	return strndup(m, (size_t)(end - m) + 2);
}

/* Count of header fields named @name (at a line start). */
static int count_field(const char *h, const char *name)
{
	int n = 0;
	size_t l = strlen(name);
	for (const char *p = h; p; p = strstr(p, "\r\n")) {
		if (p != h)
			p += 2;
		if (strncasecmp(p, name, l) == 0 && p[l] == ':')
			n++;
		if (!*p)
			break;
	}
	return n;
}

Test(mail_msg, date_is_rfc5322_in_utc)
{
	/* RFC 5322 3.3: day-name "," day month year time zone; 2025-12-01 was a Monday. */
	char d[40];
	mail_date(1764614461000, d, sizeof(d));
	cr_assert_str_eq(d, "Mon, 01 Dec 2025 18:41:01 +0000");
	mail_date(0, d, sizeof(d));
	cr_assert_str_eq(d, "Thu, 01 Jan 1970 00:00:00 +0000");
}

Test(mail_msg, every_line_ends_crlf_and_is_short)
{
	/* RFC 5322 2.1 and 2.1.1: lines end in CRLF, at most 998 characters. */
	struct mail_msg_cfg c = cfg();
	struct alert_note n = note();
	char *m = build(&c, &n);
	size_t col = 0;
	for (const char *p = m; *p; p++) {
		if (*p == '\n') {
			cr_assert(p > m && p[-1] == '\r', "bare LF at offset %zu", (size_t)(p - m));
			col = 0;
		} else if (*p == '\r') {
			cr_assert_eq(p[1], '\n', "bare CR at offset %zu", (size_t)(p - m));
		} else {
			cr_assert_leq(++col, 998);
		}
	}
	free(m);
}

Test(mail_msg, required_fields_once_each)
{
	/* RFC 5322 3.6: Date and From exactly once; Message-ID, To, Subject at most once;
	 * RFC 2045: MIME-Version, Content-Type, Content-Transfer-Encoding. */
	struct mail_msg_cfg c = cfg();
	struct alert_note n = note();
	char *m = build(&c, &n);
	char *h = headers(m);
	const char *names[] = {
		"Date",	   "Message-ID",   "From",	   "To",
		"Subject", "MIME-Version", "Content-Type", "Content-Transfer-Encoding"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		cr_assert_eq(count_field(h, names[i]), 1, "%s", names[i]);
	cr_assert(strstr(h, "Date: Mon, 01 Dec 2025 18:41:01 +0000\r\n"));
	cr_assert(strstr(h, "Message-ID: <nvmond.1764614461000.0000000000abcdef@nas>\r\n"));
	cr_assert(strstr(h, "From: nvmond <nvmond@nas.example>\r\n"));
	cr_assert(strstr(h, "To: <ops@example.org>,\r\n <pager@example.net>\r\n"));
	cr_assert(strstr(h, "Content-Type: text/plain; charset=utf-8\r\n"));
	cr_assert(strstr(h, "Content-Transfer-Encoding: 7bit\r\n"));
	free(h);
	free(m);
}

Test(mail_msg, subject_names_severity_rule_host_drive)
{
	/* Issue 16: the Subject names severity, rule, host and drive. */
	struct mail_msg_cfg c = cfg();
	struct alert_note n = note();
	char *m = build(&c, &n);
	cr_assert(strstr(m, "Subject: [nvmond] critical: temperature_critical firing on nas, "
			    "nvme0 (Samsung SSD 980 1TB S64DNF0R123456)\r\n"),
		  "%s", m);
	free(m);
}

Test(mail_msg, body_says_what_which_when_and_links)
{
	/* Body: the message, the drive (model, serial), the state, times, the dashboard link. */
	struct mail_msg_cfg c = cfg();
	struct alert_note n = note();
	char *m = build(&c, &n);
	const char *b = strstr(m, "\r\n\r\n") + 4;
	cr_assert(strstr(b, "What:      composite temperature 85 C above the critical"));
	cr_assert(strstr(b, "Drive:     nvme0 Samsung SSD 980 1TB, serial S64DNF0R123456\r\n"));
	cr_assert(strstr(b, "State:     firing\r\n"));
	cr_assert(strstr(b, "Since:     2025-12-01 18:40:00 UTC\r\n"));
	cr_assert(strstr(b, "Dashboard: http://nas:9841/#/drive/3\r\n"), "%s", b);
	cr_assert_null(strstr(b, "Resolved:"));
	free(m);

	/* A resolved alert says when; no base URL: no link. */
	n.resolved_ms = 1764618000000;
	strcpy(n.state, "resolved");
	c.base_url = NULL;
	m = build(&c, &n);
	cr_assert(strstr(m, "Resolved:  2025-12-01 19:40:00 UTC\r\n"));
	cr_assert_null(strstr(m, "Dashboard:"));
	free(m);
}

Test(mail_msg, non_ascii_subject_is_an_encoded_word)
{
	/* RFC 2047 2 and 5 (3): "=?UTF-8?B?…?=" words of at most 75 characters, each holding
	 * whole characters; the header holds no raw 8-bit byte. */
	struct mail_msg_cfg c = cfg();
	struct alert_note n = note();
	strcpy(n.model, "Übersetzer SSD ünïcödé");
	char *m = build(&c, &n);
	char *h = headers(m);
	for (const unsigned char *p = (const unsigned char *)h; *p; p++)
		cr_assert_lt(*p, 0x80, "8-bit byte in the headers");
	const char *s = strstr(h, "Subject: =?UTF-8?B?");
	cr_assert_not_null(s);
	/* every word on its own line is <= 75 characters */
	for (const char *w = strstr(s, "=?"); w; w = strstr(w + 2, "=?")) {
		const char *e = strstr(w + 2, "?=");
		/* skip the "?B?" inside */
		e = strstr(w + 10, "?=");
		cr_assert_not_null(e);
		cr_assert_leq((size_t)(e + 2 - w), 75);
		w = e;
	}
	/* The body then is quoted-printable: "Ü" is =C3=9C. */
	cr_assert(strstr(h, "Content-Transfer-Encoding: quoted-printable\r\n"));
	cr_assert(strstr(m, "=C3=9Cbersetzer"));
	free(h);
	free(m);
}

Test(mail_msg, quoted_printable_lines_stay_within_76)
{
	/* RFC 2045 6.7 (5): encoded lines at most 76 characters, soft breaks as "=". */
	struct mail_msg_cfg c = cfg();
	struct alert_note n = note();
	memset(n.message, 0, sizeof(n.message));
	for (size_t i = 0; i + 2 < sizeof(n.message) - 1; i += 2)
		memcpy(n.message + i, "é", 2);
	char *m = build(&c, &n);
	const char *b = strstr(m, "\r\n\r\n") + 4;
	for (const char *l = b; *l;) {
		const char *e = strstr(l, "\r\n");
		size_t len = e ? (size_t)(e - l) : strlen(l);
		cr_assert_leq(len, 76, "line of %zu: %.*s", len, (int)len, l);
		if (!e)
			break;
		cr_assert(len == 0 || l[len - 1] != ' ', "space before a line end");
		l = e + 2;
	}
	free(m);
}

Test(mail_msg, crlf_in_note_fields_cannot_inject_headers)
{
	/* Header injection: CR/LF in any note field never starts a header line. */
	struct mail_msg_cfg c = cfg();
	struct alert_note n = note();
	strcpy(n.rule, "x\r\nBcc: evil@example.com");
	strcpy(n.model, "m\nX-Evil: 1");
	strcpy(n.serial, "s\rTo: a@b");
	strcpy(n.message, "line\r\n\r\nbody injection\r\n.\r\n");
	char *m = build(&c, &n);
	char *h = headers(m);
	cr_assert_eq(count_field(h, "Bcc"), 0);
	cr_assert_eq(count_field(h, "X-Evil"), 0);
	cr_assert_eq(count_field(h, "To"), 1);
	cr_assert(strstr(h, "Subject: [nvmond] critical: x  Bcc: evil@example.com firing"), "%s",
		  h);
	/* and the body has no empty line or lone "." made from the message */
	cr_assert(strstr(m, "What:      line    body injection  .  \r\n"), "%s", m);
	free(h);
	free(m);
}

Test(mail_msg, crlf_in_addresses_or_host_is_refused)
{
	/* Header injection through the settings: refused with -EINVAL. */
	const char *bad_to[] = {"ops@example.org\r\nBcc: evil@example.com"};
	struct alert_note n = note();
	char *m = NULL;
	struct mail_msg_cfg c = cfg();
	c.from = "a@b\r\nBcc: evil@example.com";
	cr_assert_eq(mail_msg_build(&c, &n, 0, 0, &m), -EINVAL);
	c = cfg();
	c.to = bad_to;
	c.n_to = 1;
	cr_assert_eq(mail_msg_build(&c, &n, 0, 0, &m), -EINVAL);
	c = cfg();
	c.host = "nas\nBcc: x";
	cr_assert_eq(mail_msg_build(&c, &n, 0, 0, &m), -EINVAL);
	c = cfg();
	c.n_to = 0;
	cr_assert_eq(mail_msg_build(&c, &n, 0, 0, &m), -EINVAL);
	cr_assert_null(m);
}

Test(mail_msg, address_rules)
{
	/* An addr-spec here: local@domain, printable ASCII, no space or specials. */
	static const struct {
		const char *s;
		bool ok;
	} t[] = {
		{"a@b", true},	      {"first.last+tag@example.org", true},
		{"", false},	      {"nodomain", false},
		{"@b", false},	      {"a@", false},
		{"a b@c", false},     {"<a@b>", false},
		{"a@b,c@d", false},   {"a@b\r\n", false},
		{"ä@example", false}, {"a@b;c", false},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_assert_eq(mail_addr_valid(t[i].s), t[i].ok, "%s", t[i].s);
}

/*
 * RFC 5321 §4.5.3.1.3: a path (the address in "<" ">") is at most 256 octets,
 * so an address of 254 is the longest; a long domain is no reason to refuse
 * one (64 octets is only the local part's limit, §4.5.3.1.1).
 */
Test(mail_msg, address_length_limit_is_the_paths)
{
	char a[300];

	memset(a, 'd', sizeof(a));
	memcpy(a, "alerts@", 7);
	a[100] = '\0';
	cr_assert(mail_addr_valid(a), "a 100-octet address");
	a[100] = 'd';
	a[254] = '\0';
	cr_assert(mail_addr_valid(a), "254 octets");
	a[254] = 'd';
	a[255] = '\0';
	cr_assert_not(mail_addr_valid(a), "255 octets: the path would pass 256");
}

Test(mail_msg, test_notification_without_drive)
{
	/* A test notification (no alert, no drive) still makes a complete message. */
	struct mail_msg_cfg c = cfg();
	struct alert_note n = {.ts_ms = 1764614460000};
	strcpy(n.rule, "test");
	strcpy(n.severity, "info");
	strcpy(n.state, "test");
	strcpy(n.message, "a test notification");
	char *m = build(&c, &n);
	cr_assert(strstr(m, "Subject: [nvmond] info: test test on nas, - (- -)\r\n"), "%s", m);
	cr_assert(strstr(m, "Drive:     -, serial -\r\n"));
	cr_assert(strstr(m, "Dashboard: http://nas:9841/\r\n"));
	free(m);
}

/* Issue 24 §1: the drive's label and location in every notification: a mail names
 * them in its Subject (UTF-8 there is an encoded word) and in the body. */
Test(mail_msg, label_and_location_in_subject_and_body)
{
	struct mail_msg_cfg c = cfg();
	struct alert_note n = note();
	strcpy(n.label, "bay 3 scratch");
	strcpy(n.location, "rack 12 U4 slot 3");
	char *m = build(&c, &n);
	cr_assert(strstr(m, "Subject: [nvmond] critical: temperature_critical firing on nas, "
			    "nvme0 \"bay 3 scratch, rack 12 U4 slot 3\" (Samsung SSD 980 1TB "
			    "S64DNF0R123456)\r\n"),
		  "%s", m);
	const char *b = strstr(m, "\r\n\r\n") + 4;
	cr_assert(strstr(b, "Label:     bay 3 scratch\r\n"), "%s", b);
	cr_assert(strstr(b, "Location:  rack 12 U4 slot 3\r\n"), "%s", b);
	free(m);
}
