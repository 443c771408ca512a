/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The daemon's [http] start-up (main_http.c): the keys that depend on each
 * other, the metrics token file, the TLS certificate and its reload on SIGHUP.
 * Private to the nvmond executable.
 */
#include "nvmond/api/api.h"
#include "nvmond/api/api_tls.h"
#include "nvmond/core/cfg.h"

/**
 * http_setup() - Check [http] in @c, fill @c->http_metrics_token from
 * metrics_token_file, and read the TLS pair when tls_cert is set (@ret_tls
 * stays NULL otherwise). Logs what is wrong, naming the key or the file.
 * Return: 0, or -EINVAL for a configuration error (exit status 2).
 */
int http_setup(struct cfg *c, struct api_tls **ret_tls);

/** http_reload_tls() - SIGHUP: read the certificate again; a bad one is logged and the old kept. */
void http_reload_tls(struct api_tls *t);

/**
 * http_api_config() - The HTTP server's settings as [http] and `listen` give
 * them, with @tls; the caller adds the endpoints, the fleet and the web root.
 */
struct api_config http_api_config(const struct cfg *c, struct api_tls *tls);
