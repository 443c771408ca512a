/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * [http]: the HTTP server's settings, a section the API owns (core/cfg_section.h):
 * its keys, defaults and ranges are the table in api_conf.c (every one waits for
 * a restart), which docs/configuration.md is checked against, with the checks of
 * its values as the file is read and the rules between its keys.
 */
#include <stddef.h>
#include <stdint.h>

#include "nvmond/api/api.h"
#include "nvmond/core/cfg.h"
#include "nvmond/core/cfg_section.h"

struct http_conf {
	uint32_t threads;
	int64_t timeout_ms;
	int64_t request_timeout_ms;	       /* a request's line and headers within this */
	int64_t body_timeout_ms;	       /* its body within this of the headers */
	int64_t send_timeout_ms;	       /* the client takes some of an answer this often */
	uint32_t max_connections;	       /* open at once, all clients */
	uint32_t max_connections_per_ip;       /* open at once from one address */
	char token[CFG_TOKEN_MAX];	       /* bearer token for mutating endpoints; "" = none */
	enum api_auth auth;		       /* which requests need the token */
	char metrics_token[CFG_TOKEN_MAX];     /* GET /metrics's own token; "" = none */
	char metrics_token_file[CFG_PATH_MAX]; /* or read from this file */
	char tls_cert[CFG_PATH_MAX];	       /* PEM chain: serve HTTPS; "" = HTTP */
	char tls_key[CFG_PATH_MAX];	       /* its PEM private key */
	char tls_priorities[256];	       /* GnuTLS priority string (TLS versions) */
	char allowed_hosts[1024];	       /* more names Host may give */
};

/* The section, for main's list (cfg_sections_register()). */
extern const struct cfg_section http_cfg_section;

/** http_conf() - [http] of @c. */
const struct http_conf *http_conf(const struct cfg *c);

/** http_conf_mut() - [http] of @c to change (the metrics token read from its file at start). */
struct http_conf *http_conf_mut(struct cfg *c);

/**
 * http_token_file_read() - The token in @path: its first line, trailing blanks cut;
 * a file others may read, an empty first line and an overlong one are refused.
 * Return: 0 with @ret, or negative errno (-EACCES, -ENOENT, -EPERM for others'
 * access, -EINVAL) with "PATH: why" in @err.
 */
int http_token_file_read(const char *path, char ret[CFG_TOKEN_MAX], char *err, size_t errsize);
