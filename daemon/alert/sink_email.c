/* SPDX-License-Identifier: MIT */
/*
 * Email through libcurl's SMTP client. The message itself is mail_msg.c's;
 * here only the transport: URL, STARTTLS, AUTH, CA file, timeout.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "nvmond/alert/mail_msg.h"
#include "nvmond/alert/sink_email.h"
#include "sink_internal.h"

int sink_email_starttls_parse(const char *s, enum sink_email_starttls *ret)
{
	static const struct {
		const char *name;
		enum sink_email_starttls v;
	} t[] = {{"no", SINK_EMAIL_STARTTLS_NO},
		 {"try", SINK_EMAIL_STARTTLS_TRY},
		 {"required", SINK_EMAIL_STARTTLS_REQUIRED}};

	for (size_t i = 0; s && i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(s, t[i].name) == 0) {
			*ret = t[i].v;
			return 0;
		}
	return -EINVAL;
}

bool sink_email_has_credentials(const struct sink_email_cfg *c)
{
	const char *sep = c->url ? strstr(c->url, "://") : NULL;

	return (c->username && c->username[0]) || (sep && strchr(sep + 3, '@'));
}

int sink_email_auth_check(const struct sink_email_cfg *c, char *err, size_t errsize)
{
	bool tls = (c->url && !strncmp(c->url, "smtps://", 8)) ||
		   c->starttls == SINK_EMAIL_STARTTLS_REQUIRED;

	if (!sink_email_has_credentials(c) || tls || c->allow_plaintext_password)
		return 0;
	snprintf(err, errsize,
		 "starttls = %s would send the password in clear text%s: set starttls = "
		 "required or use smtps://, or allow_plaintext_password = yes",
		 c->starttls == SINK_EMAIL_STARTTLS_NO ? "no" : "try",
		 c->starttls == SINK_EMAIL_STARTTLS_NO
			 ? ""
			 : " to a server that does not offer STARTTLS, or whose offer someone "
			   "on the path strips");
	return -EINVAL;
}

struct reader {
	const char *p;
	size_t left;
};

static size_t read_msg(char *buf, size_t size, size_t nmemb, void *arg)
{
	struct reader *r = arg;
	size_t n = size * nmemb < r->left ? size * nmemb : r->left;

	memcpy(buf, r->p, n);
	r->p += n;
	r->left -= n;
	return n;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sink_email_send(const struct sink_email_cfg *c, const struct alert_note *n, char *err,
		    size_t errsize)
{
	char dummy[8];
	if (!err) {
		err = dummy;
		errsize = sizeof(dummy);
	}
	err[0] = '\0';
	if (!c->url ||
	    (strncmp(c->url, "smtp://", 7) != 0 && strncmp(c->url, "smtps://", 8) != 0)) {
		snprintf(err, errsize, "email: url must start with smtp:// or smtps://");
		return -EINVAL;
	}

	char why[SINK_ERR_MAX];
	if (sink_email_auth_check(c, why, sizeof(why)) < 0) {
		snprintf(err, errsize, "email: %s", why);
		return -EINVAL;
	}

	char host[256];
	if (c->host && c->host[0]) {
		snprintf(host, sizeof(host), "%s", c->host);
	} else if (gethostname(host, sizeof(host)) != 0 || !host[0]) {
		snprintf(host, sizeof(host), "localhost");
	}
	host[sizeof(host) - 1] = '\0';

	uint64_t unique = 0;
	if (getrandom(&unique, sizeof(unique), GRND_NONBLOCK) != (ssize_t)sizeof(unique))
		unique = (uint64_t)now_ms() ^ ((uint64_t)getpid() << 32);

	struct mail_msg_cfg mc = {.from = c->from,
				  .to = c->to,
				  .n_to = c->n_to,
				  .host = host,
				  .base_url = c->base_url};
	char *msg = NULL;
	int r = mail_msg_build(&mc, n, now_ms(), unique, &msg);
	if (r < 0) {
		snprintf(err, errsize, "email: %s",
			 r == -EINVAL ? "invalid from/to address or host name" : strerror(-r));
		return r;
	}

	char cerr[CURL_ERROR_SIZE] = "";
	char addr[300];
	struct curl_slist *rcpt = NULL;
	struct reader rd = {.p = msg, .left = strlen(msg)};
	CURL *h = sink_curl_init() == 0 ? curl_easy_init() : NULL;
	if (!h) {
		free(msg);
		snprintf(err, errsize, "email: curl_easy_init failed");
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->n_to; i++) {
		snprintf(addr, sizeof(addr), "<%s>", c->to[i]);
		struct curl_slist *t = curl_slist_append(rcpt, addr);
		if (!t) {
			r = -ENOMEM;
			snprintf(err, errsize, "email: out of memory");
			goto out;
		}
		rcpt = t;
	}
	snprintf(addr, sizeof(addr), "<%s>", c->from);
	curl_easy_setopt(h, CURLOPT_URL, c->url);
	curl_easy_setopt(h, CURLOPT_MAIL_FROM, addr);
	curl_easy_setopt(h, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(h, CURLOPT_READFUNCTION, read_msg);
	curl_easy_setopt(h, CURLOPT_READDATA, &rd);
	curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)rd.left);
	curl_easy_setopt(h, CURLOPT_USE_SSL,
			 c->starttls == SINK_EMAIL_STARTTLS_REQUIRED ? (long)CURLUSESSL_ALL
			 : c->starttls == SINK_EMAIL_STARTTLS_TRY    ? (long)CURLUSESSL_TRY
								     : (long)CURLUSESSL_NONE);
	if (c->username && c->username[0]) {
		curl_easy_setopt(h, CURLOPT_USERNAME, c->username);
		curl_easy_setopt(h, CURLOPT_PASSWORD, c->password ? c->password : "");
	}
	if (c->ca_file && c->ca_file[0])
		curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
	/* 0 would be "no timeout" to libcurl: a hung server would hold the sink forever. */
	long timeout_ms = c->timeout_ms > 0 ? (long)c->timeout_ms : 30000L;
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);

	CURLcode rc = curl_easy_perform(h);
	if (rc != CURLE_OK) {
		sink_curl_error(c->url, rc, cerr, "email", err, errsize);
		r = -EIO;
	}
out:
	curl_slist_free_all(rcpt);
	curl_easy_cleanup(h);
	free(msg);
	return r;
}
