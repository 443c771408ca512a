/* SPDX-License-Identifier: MIT */
/*
 * The email sink type: its keys (url, from, to, username, password, starttls,
 * ca_file, allow_plaintext_password) checked at load, each and together (a
 * password only under TLS), and deliver(): one mail per notification through
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

static const char *const email_keys[] = {"url",	     "from",	 "to",
					 "username", "password", "password_file",
					 "starttls", "ca_file",	 "allow_plaintext_password"};

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
	bool b;

	(void)t;
	if (sink_key_listed(email_keys, sizeof(email_keys) / sizeof(email_keys[0]), "email", key,
			    value, err, errsize) < 0)
		return -EINVAL;
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
	if (!strcmp(key, "allow_plaintext_password") && sink_bool_parse(value, &b) < 0) {
		snprintf(err, errsize, "allow_plaintext_password: '%.40s' is not yes or no", value);
		return -EINVAL;
	}
	return 0;
}

/*
 * The settings of @c as sink_email_send() takes them, the recipients split into
 * @to (in @buf). starttls unset: required when it logs in, else try.
 * Return: 0, or -EINVAL (checked at load: does not happen).
 */
static int email_cfg(const struct sink_conf *c, char buf[CFG_SINK_VAL_MAX],
		     const char *to[EMAIL_TO_MAX], struct sink_email_cfg *ret)
{
	const char *st = sink_conf_get(c, "starttls"),
		   *allow = sink_conf_get(c, "allow_plaintext_password");
	const char *list = sink_conf_get(c, "to");
	int k = list ? to_split(list, buf, CFG_SINK_VAL_MAX, to) : -EINVAL;

	*ret = (struct sink_email_cfg){
		.url = sink_conf_get(c, "url"),
		.from = sink_conf_get(c, "from"),
		.to = to,
		.n_to = k > 0 ? (size_t)k : 0,
		.username = sink_conf_get(c, "username"),
		.password = sink_conf_get(c, "password"),
		.ca_file = sink_conf_get(c, "ca_file"),
		.timeout_ms = c->timeout_ms,
	};
	ret->starttls = sink_email_has_credentials(ret) ? SINK_EMAIL_STARTTLS_REQUIRED
							: SINK_EMAIL_STARTTLS_TRY;
	if (k < 0 || (st && sink_email_starttls_parse(st, &ret->starttls) < 0) ||
	    (allow && sink_bool_parse(allow, &ret->allow_plaintext_password) < 0))
		return -EINVAL;
	return 0;
}

int sink_email_check_conf(const struct sink_conf *c, const char **ret_key, char *err,
			  size_t errsize)
{
	char buf[CFG_SINK_VAL_MAX];
	const char *to[EMAIL_TO_MAX];
	struct sink_email_cfg ec;

	if (email_cfg(c, buf, to, &ec) < 0)
		return 0; /* the keys' own checks said why */
	if (sink_email_auth_check(&ec, err, errsize) < 0) {
		*ret_key = sink_conf_get(c, "starttls")	  ? "starttls"
			   : sink_conf_get(c, "username") ? "username"
							  : "url";
		return -EINVAL;
	}
	return 0;
}

int sink_email_deliver(const struct sink_conf *c, const struct alert_note *n, char *err,
		       size_t errsize)
{
	char buf[CFG_SINK_VAL_MAX];
	const char *to[EMAIL_TO_MAX];
	struct sink_email_cfg ec;

	if (email_cfg(c, buf, to, &ec) < 0) {
		snprintf(err, errsize, "email: bad settings");
		return -EPROTO;
	}
	int r = sink_email_send(&ec, n, err, errsize);
	/* Bad settings fail the same way each time; a transaction may pass on a retry. */
	return r == -EINVAL ? -EPROTO : r;
}
