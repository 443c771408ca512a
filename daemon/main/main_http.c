/* SPDX-License-Identifier: MIT */
/*
 * [http] at the daemon's start: keys that must go together, the metrics token
 * read from its file, the TLS certificate (api_tls.h) and its reload.
 */
#include <errno.h>
#include <stdio.h>

#include "nvmond/api/api_conf.h"
#include "nvmond/core/log.h"
#include "nvmond/util/fperm.h"

#include "nvmond/main/main_http.h"

int http_setup(struct cfg *c, struct api_tls **ret_tls)
{
	char err[API_ERR_MAX], desc[API_TLS_DESC_MAX];
	struct api_tls *t = NULL;
	int r;

	/* Keys that go together ([http] auth = all and a token, tls_cert and
	 * tls_key, …) were checked as the file was read (cfg_load()). */
	struct http_conf *h = http_conf_mut(c);

	*ret_tls = NULL;
	if (h->metrics_token_file[0]) {
		char why[512], where[CFG_PATH_MAX + 16];
		if (http_token_file_read(h->metrics_token_file, h->metrics_token, why,
					 sizeof(why)) < 0) {
			cfg_key_where(c, "http", "metrics_token_file", where, sizeof(where));
			log_error("%s%s[http] metrics_token_file: %s", where, where[0] ? ": " : "",
				  why);
			return -EINVAL;
		}
	}
	if (!h->tls_cert[0])
		return 0;
	r = api_tls_new(h->tls_cert, h->tls_key, &t, err);
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
	const struct http_conf *h = http_conf(c);

	return (struct api_config){
		.host = c->listen_host,
		.port = c->listen_port,
		.db_path = c->database,
		.threads = h->threads,
		.timeout_ms = h->timeout_ms,
		.request_timeout_ms = h->request_timeout_ms,
		.body_timeout_ms = h->body_timeout_ms,
		.send_timeout_ms = h->send_timeout_ms,
		.max_connections = h->max_connections,
		.max_connections_per_ip = h->max_connections_per_ip,
		.token = h->token,
		.auth = h->auth,
		.metrics_token = h->metrics_token,
		.tls = tls,
		.tls_priorities = h->tls_priorities,
		.allowed_hosts = h->allowed_hosts,
	};
}
