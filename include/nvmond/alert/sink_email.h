/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/alert/alert_sink.h"

/*
 * The email delivery: one notification, one mail (mail_msg_build()), sent
 * through libcurl's SMTP: smtp:// (with STARTTLS as configured) or smtps://
 * (TLS from the start), with optional AUTH. Blocking: run it on a sink thread.
 */
enum sink_email_starttls {
	SINK_EMAIL_STARTTLS_NO,	      /* plain SMTP unless the URL is smtps:// */
	SINK_EMAIL_STARTTLS_TRY,      /* STARTTLS when the server offers it */
	SINK_EMAIL_STARTTLS_REQUIRED, /* STARTTLS or fail */
};

/*
 * With credentials (a username, or a user in the URL) the password goes out
 * only under TLS: smtps://, or starttls = required. "try" would send it in
 * clear to a server that does not offer STARTTLS, and anyone on the path can
 * strip the offer (issue 23 §3). allow_plaintext_password says, in its name,
 * that the user wants that anyway.
 */

struct sink_email_cfg {
	const char *url;       /* "smtp://mail.example:587", "smtps://mail.example" */
	const char *from;      /* envelope and header sender, an addr-spec */
	const char *const *to; /* recipients, addr-specs */
	size_t n_to;
	const char *username; /* NULL or "": no AUTH */
	const char *password; /* already read from password_file if configured */
	enum sink_email_starttls starttls;
	bool allow_plaintext_password; /* AUTH without TLS is allowed (see above) */
	const char *ca_file;	       /* NULL or "": the system's CAs */
	int64_t timeout_ms;	       /* the whole transaction; <= 0: 30 s */
	const char *base_url;	       /* the dashboard, for the link in the body; NULL: none */
	const char *host;	       /* this machine's name; NULL: gethostname() */
};

/**
 * sink_email_starttls_parse() - "no", "try" or "required" into @ret.
 * Return: 0 or -EINVAL.
 */
int sink_email_starttls_parse(const char *s, enum sink_email_starttls *ret);

/**
 * sink_email_has_credentials() - Whether @c logs in: a username, or a user in
 * its URL (an '@' after "://", redact.h's reading of userinfo). Pure.
 */
bool sink_email_has_credentials(const struct sink_email_cfg *c);

/**
 * sink_email_auth_check() - Whether @c may send its password: only under TLS
 * (smtps://, or starttls = required), unless it allows a plaintext password.
 * Pure.
 * Return: 0, or -EINVAL with why and what to do in @err.
 */
int sink_email_auth_check(const struct sink_email_cfg *c, char *err, size_t errsize);

/**
 * sink_email_send() - Send @n as one mail. On failure, @err (if not NULL)
 * says why, never with the password in it.
 * Return: 0, -EINVAL (bad settings: addresses, URL scheme, a password that
 * would go out in clear: sink_email_auth_check(), checked before connecting)
 * or -EIO (the SMTP transaction failed).
 */
int sink_email_send(const struct sink_email_cfg *c, const struct alert_note *n, char *err,
		    size_t errsize);
