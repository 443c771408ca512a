/* SPDX-License-Identifier: MIT */
/*
 * [http] at the daemon's start: keys that must go together, the metrics token
 * read from its file, the TLS certificate (api_tls.h) and its reload.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/core/log.h"
#include "nvmond/util/fperm.h"

#include "nvmond/main/main_http.h"

int http_token_file_read(const char *path, char ret[CFG_TOKEN_MAX], char *err, size_t errsize)
{
	char buf[CFG_TOKEN_MAX + 1];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f) {
		int r = -errno;
		snprintf(err, errsize, "%s: %s", path, strerror(-r));
		return r;
	}
	if (fperm_check(fileno(f), path, FPERM_SECRET, err, errsize) < 0) {
		fclose(f);
		return -EPERM;
	}
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	n = strcspn(buf, "\r\n");
	if (n >= CFG_TOKEN_MAX) {
		snprintf(err, errsize, "%s: the token is longer than %d bytes", path,
			 CFG_TOKEN_MAX - 1);
		return -EINVAL;
	}
	while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	if (n == 0) {
		snprintf(err, errsize, "%s: no token in its first line", path);
		return -EINVAL;
	}
	memcpy(ret, buf, n + 1);
	return 0;
}

int http_setup(struct cfg *c, struct api_tls **ret_tls)
{
	char err[API_ERR_MAX], desc[API_TLS_DESC_MAX];
	struct api_tls *t = NULL;
	int r;

	/* Keys that go together ([http] auth = all and a token, tls_cert and
	 * tls_key, …) were checked as the file was read (cfg_load()). */
	*ret_tls = NULL;
	if (c->http_metrics_token_file[0]) {
		char why[512], where[CFG_PATH_MAX + 16];
		if (http_token_file_read(c->http_metrics_token_file, c->http_metrics_token, why,
					 sizeof(why)) < 0) {
			cfg_key_where(c, "http", "metrics_token_file", where, sizeof(where));
			log_error("%s%s[http] metrics_token_file: %s", where, where[0] ? ": " : "",
				  why);
			return -EINVAL;
		}
	}
	if (!c->http_tls_cert[0])
		return 0;
	r = api_tls_new(c->http_tls_cert, c->http_tls_key, &t, err);
	if (r < 0) {
		log_error("%s", err);
		return r == -ENOMEM ? r : -EINVAL;
	}
	api_tls_describe(t, desc);
	log_info("HTTPS with the certificate %s", desc);
	*ret_tls = t;
	return 0;
}

void http_reload_tls(struct api_tls *t)
{
	char err[API_ERR_MAX], desc[API_TLS_DESC_MAX];

	if (!t)
		return;
	if (api_tls_reload(t, err) < 0) {
		api_tls_describe(t, desc);
		log_error("TLS certificate not reloaded, still serving %s: %s", desc, err);
		return;
	}
	api_tls_describe(t, desc);
	log_info("TLS certificate reloaded: %s", desc);
}

struct api_config http_api_config(const struct cfg *c, struct api_tls *tls)
{
	return (struct api_config){
		.host = c->listen_host,
		.port = c->listen_port,
		.db_path = c->database,
		.threads = c->http_threads,
		.timeout_ms = c->http_timeout_ms,
		.request_timeout_ms = c->http_request_timeout_ms,
		.body_timeout_ms = c->http_body_timeout_ms,
		.send_timeout_ms = c->http_send_timeout_ms,
		.max_connections = c->http_max_connections,
		.max_connections_per_ip = c->http_max_connections_per_ip,
		.token = c->http_token,
		.auth = c->http_auth == CFG_HTTP_AUTH_ALL ? API_AUTH_ALL : API_AUTH_MUTATIONS,
		.metrics_token = c->http_metrics_token,
		.tls = tls,
		.tls_priorities = c->http_tls_priorities,
		.allowed_hosts = c->http_allowed_hosts,
	};
}
