/* SPDX-License-Identifier: MIT */
/*
 * [export "NAME"] sections (issue 24 §2) checked into struct export_conf, with
 * FILE:LINE on errors, as [sink] sections are: the URL through libcurl's own
 * parser (the one that will use it), the secrets read from their files now (an
 * unreadable one is a mistake in the configuration, not a runtime failure).
 * Nothing here logs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <curl/curl.h>

#include "nvmond/core/cfg_section.h"
#include "nvmond/util/fperm.h"
#include "nvmond/util/secret_file.h"
#include "nvmond/util/utf8.h"
#include "export_internal.h"

/*
 * The first line of @path, without its line end: a secret. Nobody but its owner
 * may read or write it, as for a sink's secrets (fperm.h). Return: 0, or -errno
 * with why in @why (never the secret).
 */
static int secret_read(const char *path, char *buf, size_t size, char *why, size_t whysize)
{
	int r = secret_file_read(path, buf, size, 0, why, whysize);

	if (r == -ENODATA)
		snprintf(why, whysize, "%.200s: empty", path);
	else if (r == -E2BIG)
		snprintf(why, whysize, "%.200s: its first line is longer than %zu bytes", path,
			 size - 1);
	return r;
}

/*
 * An http:// or https:// URL with a host, as libcurl parses it; @pub gets it
 * without user:password, query or fragment (what logs and the API may show).
 */
static int url_check(const char *url, char *pub, size_t size, char *why, size_t whysize)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL;
	int r = -EINVAL;

	if (!u)
		return -ENOMEM;
	CURLUcode rc = curl_url_set(u, CURLUPART_URL, url, 0);
	if (rc != CURLUE_OK) {
		snprintf(why, whysize, "%s", curl_url_strerror(rc));
		goto out;
	}
	if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    (strcasecmp(scheme, "http") != 0 && strcasecmp(scheme, "https") != 0)) {
		snprintf(why, whysize, "not an http:// or https:// URL");
		goto out;
	}
	if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !host[0]) {
		snprintf(why, whysize, "no host");
		goto out;
	}
	(void)curl_url_get(u, CURLUPART_PORT, &port, 0);
	(void)curl_url_get(u, CURLUPART_PATH, &path, 0);
	snprintf(pub, size, "%s://%s%s%s%s", scheme, host, port ? ":" : "", port ? port : "",
		 path ? path : "/");
	r = 0;
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_url_cleanup(u);
	return r;
}

static const char *const keys[] = {
	"type",
	"url",
	"interval",
	"timeout",
	"bearer_token_file",
	"basic_auth_user",
	"basic_auth_password_file",
	"tls_ca_file",
	"job",
	"instance",
};

/* A label value: UTF-8 text without control characters, not empty. */
static bool label_value_ok(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return s[0] != '\0' && utf8_valid(s, strlen(s));
}

static int conf_from_section(const struct cfg *cfg, const struct cfg_sink *s, struct export_conf *c,
			     char *err, size_t errsize)
{
	const char *file = cfg->exports_file;
	char why[256];
	int line = s->line, r;

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", s->name);
	c->interval_ms = cfg->poll_interval_ms;
	c->poll_ms = cfg->poll_interval_ms;
	c->timeout_ms = 30000;
	snprintf(c->ext_v[0].name, sizeof(c->ext_v[0].name), "job");
	snprintf(c->ext_v[0].value, sizeof(c->ext_v[0].value), "nvmond");
	snprintf(c->ext_v[1].name, sizeof(c->ext_v[1].name), "instance");
	snprintf(c->ext_v[1].value, sizeof(c->ext_v[1].value), "%s", cfg->host_name);
	for (size_t i = 0; i < s->n; i++) {
		const struct cfg_sink_kv *kv = &s->kv[i];
		const char *v = kv->value;
		bool known = false;

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			known |= strcmp(keys[k], kv->key) == 0;
		if (!known)
			return cfg_line_fail(err, errsize, file, kv->line,
					     "unknown key '%s' in section [export \"%s\"]", kv->key,
					     s->name);
		if (!strcmp(kv->key, "type")) {
			if (strcmp(v, "remote_write") != 0)
				return cfg_line_fail(err, errsize, file, kv->line,
						     "type: '%s' is not remote_write", v);
		} else if (!strcmp(kv->key, "url")) {
			r = url_check(v, c->url_public, sizeof(c->url_public), why, sizeof(why));
			if (r == -ENOMEM)
				return cfg_line_fail(err, errsize, file, kv->line, "out of memory");
			if (r < 0) /* not the value: it may hold a password */
				return cfg_line_fail(err, errsize, file, kv->line, "url: %s", why);
			snprintf(c->url, sizeof(c->url), "%s", v);
		} else if (!strcmp(kv->key, "interval") || !strcmp(kv->key, "timeout")) {
			bool iv = !strcmp(kv->key, "interval");
			int64_t ms, lo = 1000, hi = iv ? 3600 * 1000LL : 300 * 1000LL;
			if (cfg_parse_duration_ms(v, &ms) < 0 || ms < lo || ms > hi)
				return cfg_line_fail(err, errsize, file, kv->line,
						     "%s: '%s' is not a duration in 1s .. %s",
						     kv->key, v, iv ? "1h" : "5m");
			*(iv ? &c->interval_ms : &c->timeout_ms) = ms;
		} else if (!strcmp(kv->key, "bearer_token_file") ||
			   !strcmp(kv->key, "basic_auth_password_file")) {
			bool bearer = kv->key[0] == 'b' && kv->key[1] == 'e';
			char *dst = bearer ? c->bearer : c->basic_password;
			r = secret_read(v, dst, sizeof(c->bearer), why, sizeof(why));
			if (r < 0)
				return cfg_line_fail(err, errsize, file, kv->line, "%s: %s",
						     kv->key, why);
		} else if (!strcmp(kv->key, "basic_auth_user")) {
			if (!v[0] || strchr(v, ':'))
				return cfg_line_fail(err, errsize, file, kv->line,
						     "basic_auth_user: empty, or with a ':'");
			snprintf(c->basic_user, sizeof(c->basic_user), "%s", v);
		} else if (!strcmp(kv->key, "tls_ca_file")) {
			if (access(v, R_OK) < 0)
				return cfg_line_fail(err, errsize, file, kv->line,
						     "tls_ca_file: %.200s: %s", v, strerror(errno));
			snprintf(c->tls_ca_file, sizeof(c->tls_ca_file), "%s", v);
		} else { /* job, instance: label values */
			struct cfg_label *l = &c->ext_v[kv->key[0] == 'j' ? 0 : 1];
			size_t n = strlen(v);
			if (!label_value_ok(v) || n >= sizeof(l->value))
				return cfg_line_fail(
					err, errsize, file, kv->line,
					"%s: empty, too long, not UTF-8 or with a control "
					"character",
					kv->key);
			memcpy(l->value, v, n + 1);
		}
	}
	if (!cfg_sink_get(s, "type", NULL))
		return cfg_line_fail(err, errsize, file, line, "[export \"%s\"]: type is missing",
				     s->name);
	if (!c->url[0])
		return cfg_line_fail(err, errsize, file, line, "[export \"%s\"]: url is missing",
				     s->name);
	int l1 = 0, l2 = 0;
	const char *user = cfg_sink_get(s, "basic_auth_user", &l1);
	const char *pass = cfg_sink_get(s, "basic_auth_password_file", &l2);
	if (!!user != !!pass)
		return cfg_line_fail(
			err, errsize, file, user ? l1 : l2,
			"[export \"%s\"]: basic_auth_user and basic_auth_password_file "
			"go together",
			s->name);
	if (user && cfg_sink_get(s, "bearer_token_file", &l1))
		return cfg_line_fail(err, errsize, file, l1,
				     "[export \"%s\"]: bearer_token_file or basic auth, not both",
				     s->name);
	/* The external labels: job, instance, host and the host's labels. */
	snprintf(c->ext_v[2].name, sizeof(c->ext_v[2].name), "host");
	snprintf(c->ext_v[2].value, sizeof(c->ext_v[2].value), "%s", cfg->host_name);
	c->n_ext = 3;
	for (size_t i = 0; i < cfg->host_labels.n && c->n_ext < EXPORT_EXT_MAX; i++)
		c->ext_v[c->n_ext++] = cfg->host_labels.v[i];
	return 0;
}

void export_conf_wipe(struct export_conf *c)
{
	explicit_bzero(c->bearer, sizeof(c->bearer));
	explicit_bzero(c->basic_password, sizeof(c->basic_password));
}

int export_confs_load(const struct cfg *c, struct export_conf **ret, size_t *ret_n, char *err,
		      size_t errsize)
{
	struct export_conf *v = NULL;
	int r;

	if (c->n_exports) {
		v = calloc(c->n_exports, sizeof(*v));
		if (!v)
			return cfg_line_fail(err, errsize, "", 0, "out of memory");
	}
	for (size_t i = 0; i < c->n_exports; i++) {
		r = conf_from_section(c, &c->exports[i], &v[i], err, errsize);
		if (r < 0) {
			for (size_t k = 0; k <= i; k++)
				export_conf_wipe(&v[k]);
			free(v);
			return r;
		}
	}
	*ret = v;
	*ret_n = c->n_exports;
	return 0;
}
