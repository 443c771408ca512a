/* SPDX-License-Identifier: MIT */
/*
 * The email sink type: its keys (url, from, to, username, password, starttls,
 * ca_file) checked at load, and deliver(): one mail per notification through
 * sink_email_send(). Messages never hold the password (nor the URL, which
 * may carry one).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/alert/mail_msg.h"
#include "nvmond/alert/sink_email.h"
#include "sink_internal.h"

#define EMAIL_TO_MAX 16

static const char *const email_keys[] = {"url",	     "from",	      "to",	  "username",
					 "password", "password_file", "starttls", "ca_file"};

/* Split the comma list @list (in @buf) into @to. Return: how many, or -EINVAL (a bad address, too many). */
static int to_split(const char *list, char *buf, size_t size, const char *to[EMAIL_TO_MAX])
{
	char *save = NULL;
	int n = 0;

	snprintf(buf, size, "%s", list);
	for (char *t = strtok_r(buf, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
		if (n == EMAIL_TO_MAX || !mail_addr_valid(t))
			return -EINVAL;
		to[n++] = t;
	}
	return n > 0 ? n : -EINVAL;
}

int sink_email_check_key(const struct sink_type *t, const char *key, const char *value, char *err,
			 size_t errsize)
{
	char buf[CFG_SINK_VAL_MAX];
	const char *to[EMAIL_TO_MAX];
	enum sink_email_starttls st;
	size_t i;

	(void)t;
	for (i = 0; i < sizeof(email_keys) / sizeof(email_keys[0]); i++)
		if (!strcmp(email_keys[i], key))
			break;
	if (i == sizeof(email_keys) / sizeof(email_keys[0])) {
		snprintf(err, errsize, "unknown key '%s' for a sink of type email", key);
		return -EINVAL;
	}
	if (!value[0]) {
		snprintf(err, errsize, "%s: empty", key);
		return -EINVAL;
	}
	if (!strcmp(key, "url") && strncmp(value, "smtp://", 7) && strncmp(value, "smtps://", 8)) {
		/* Not the value: it may hold a password. */
		snprintf(err, errsize, "url: not an smtp:// or smtps:// URL");
		return -EINVAL;
	}
	if (!strcmp(key, "from") && !mail_addr_valid(value)) {
		snprintf(err, errsize, "from: '%.100s' is not an address (local@domain)", value);
		return -EINVAL;
	}
	if (!strcmp(key, "to") && to_split(value, buf, sizeof(buf), to) < 0) {
		snprintf(err, errsize,
			 "to: '%.100s' is not a list of 1 to %d addresses (local@domain, ...)",
			 value, EMAIL_TO_MAX);
		return -EINVAL;
	}
	if (!strcmp(key, "starttls") && sink_email_starttls_parse(value, &st) < 0) {
		snprintf(err, errsize, "starttls: '%.40s' is not no, try or required", value);
		return -EINVAL;
	}
	return 0;
}

int sink_email_deliver(const struct sink_conf *c, const struct alert_note *n, char *err,
		       size_t errsize)
{
	char buf[CFG_SINK_VAL_MAX];
	const char *to[EMAIL_TO_MAX];
	const char *st = sink_conf_get(c, "starttls");
	struct sink_email_cfg ec = {
		.url = sink_conf_get(c, "url"),
		.from = sink_conf_get(c, "from"),
		.to = to,
		.username = sink_conf_get(c, "username"),
		.password = sink_conf_get(c, "password"),
		.starttls = SINK_EMAIL_STARTTLS_TRY,
		.ca_file = sink_conf_get(c, "ca_file"),
		.timeout_ms = c->timeout_ms,
	};
	int k = to_split(sink_conf_get(c, "to"), buf, sizeof(buf), to);

	if (k < 0 || (st && sink_email_starttls_parse(st, &ec.starttls) < 0)) {
		snprintf(err, errsize, "email: bad settings");
		return -EPROTO;
	}
	ec.n_to = (size_t)k;
	int r = sink_email_send(&ec, n, err, errsize);
	/* Bad settings fail the same way each time; a transaction may pass on a retry. */
	return r == -EINVAL ? -EPROTO : r;
}
