/* SPDX-License-Identifier: MIT */
/*
 * [http]'s keys (api_conf.h): the table core's reader applies, the checks of the
 * files and strings the keys name as the file is read (so that a mistake is
 * FILE:LINE, by the daemon and by `nvmond status` alike), the rules between keys,
 * and the token read from its file.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "nvmond/api/api_conf.h"
#include "nvmond/api/api_host.h"
#include "nvmond/api/api_tls.h"
#include "nvmond/util/fperm.h"
#include "nvmond/util/secret_file.h"
#include "nvmond/util/units.h"

int http_token_file_read(const char *path, char ret[CFG_TOKEN_MAX], char *err, size_t errsize)
{
	int r = secret_file_read(path, ret, CFG_TOKEN_MAX, SECRET_TRIM_BLANKS, err, errsize);

	if (r == -E2BIG)
		snprintf(err, errsize, "%s: the token is longer than %d bytes", path,
			 CFG_TOKEN_MAX - 1);
	else if (r == -ENODATA)
		snprintf(err, errsize, "%s: no token in its first line", path);
	return r == -E2BIG || r == -ENODATA ? -EINVAL : r;
}

/*
 * A secret the configuration names (fperm.h), judged as the file is read so that
 * a refusal says FILE:LINE. A file that is not there, or that this user cannot
 * reach, is left to the code that reads it (its message is the one the docs show;
 * `nvmond status` run by another user reads none).
 */
static int check_secret(const char *value, char *err, size_t errsize)
{
	struct stat st;

	if (!value[0] || stat(value, &st) < 0)
		return 0;
	return fperm_check(-1, value, FPERM_SECRET, err, errsize) < 0 ? -EINVAL : 0;
}

/* The metrics token's file, read as the daemon will read it at start: a secret,
 * not empty, its token not too long. One this user may not open is left to the daemon. */
static int check_token_file(const char *value, char *err, size_t errsize)
{
	char token[CFG_TOKEN_MAX];
	int r;

	if (check_secret(value, err, errsize) < 0)
		return -EINVAL;
	if (!value[0])
		return 0;
	r = http_token_file_read(value, token, err, errsize);
	explicit_bzero(token, sizeof(token));
	return r == -EACCES ? 0 : r;
}

static int check_allowed_hosts(const char *value, char *err, size_t errsize)
{
	struct api_hosts h = {0};

	return api_hosts_parse(&h, value, err, errsize) < 0 ? -EINVAL : 0;
}

/* Keys that go together, once the whole file is read (a reload too). */
static int http_together(const struct cfg *c, char *err, size_t errsize)
{
	const struct http_conf *h = http_conf(c);

	if (h->auth == API_AUTH_ALL && !h->token[0])
		return cfg_key_fail(c, "http", "auth", err, errsize,
				    "[http] auth = all needs [http] token");
	if (h->metrics_token[0] && h->metrics_token_file[0]) {
		bool file_last = cfg_key_line(c, "http", "metrics_token_file") >
				 cfg_key_line(c, "http", "metrics_token");
		return cfg_key_fail(c, "http", file_last ? "metrics_token_file" : "metrics_token",
				    err, errsize,
				    "[http] metrics_token and metrics_token_file: set one of them");
	}
	if (!h->tls_cert[0] != !h->tls_key[0])
		return cfg_key_fail(c, "http", h->tls_cert[0] ? "tls_cert" : "tls_key", err,
				    errsize,
				    "[http] tls_cert and tls_key go together: %s is not set",
				    h->tls_cert[0] ? "tls_key" : "tls_cert");
	return 0;
}

static const struct cfg_choice auth_choices[] = {
	{"mutations", API_AUTH_MUTATIONS},
	{"all", API_AUTH_ALL},
	{NULL, 0},
};

/* CFG_T_ENUM stores through an int *. */
_Static_assert(sizeof(enum api_auth) == sizeof(int), "enum api_auth is not int-sized");

#define H struct http_conf
/* Every [http] key takes effect at the next start (the server is made once). */
#define R .restart = true

static const struct cfg_key http_keys[] = {
	CFG_KEY_UINT32(H, "http", "threads", threads, 1, 64, "4", R),
	CFG_KEY_DURATION(H, "http", "timeout", timeout_ms, MS_PER_SEC, MS_PER_HOUR, "30s", R),
	CFG_KEY_DURATION(H, "http", "request_timeout", request_timeout_ms, MS_PER_SEC, MS_PER_HOUR,
			 "30s", R),
	CFG_KEY_DURATION(H, "http", "body_timeout", body_timeout_ms, MS_PER_SEC, MS_PER_HOUR, "10s",
			 R),
	CFG_KEY_DURATION(H, "http", "send_timeout", send_timeout_ms, MS_PER_SEC, MS_PER_HOUR, "10s",
			 R),
	CFG_KEY_UINT32(H, "http", "max_connections", max_connections, 4, 65536, "256", R),
	CFG_KEY_UINT32(H, "http", "max_connections_per_ip", max_connections_per_ip, 1, 65536, "32",
		       R),
	CFG_KEY_PATH(H, "http", "token", token, 0, "", R),
	{.section = "http",
	 .key = "auth",
	 .type = CFG_T_ENUM,
	 .offset = CFG_KEY_OFF(H, auth, enum api_auth),
	 .choices = auth_choices,
	 .hint = "mutations or all",
	 .def = "mutations",
	 R},
	CFG_KEY_PATH(H, "http", "metrics_token", metrics_token, 0, "", R),
	CFG_KEY_PATH(H, "http", "metrics_token_file", metrics_token_file, 0, "", R,
		     .check = check_token_file),
	CFG_KEY_PATH(H, "http", "tls_cert", tls_cert, 0, "", R),
	CFG_KEY_PATH(H, "http", "tls_key", tls_key, 0, "", R, .check = check_secret),
	/* A GnuTLS priority string (api_tls.h). */
	CFG_KEY_PATH(H, "http", "tls_priorities", tls_priorities, 1,
		     "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2", R,
		     .check = api_tls_priorities_check),
	/* Names for Host (api_host.h). */
	CFG_KEY_PATH(H, "http", "allowed_hosts", allowed_hosts, 0, "", R,
		     .check = check_allowed_hosts),
};

const struct cfg_section http_cfg_section =
	CFG_SECTION("http", http_keys, H, .together = http_together);

const struct http_conf *http_conf(const struct cfg *c)
{
	return cfg_section_get(c, &http_cfg_section);
}

struct http_conf *http_conf_mut(struct cfg *c)
{
	return cfg_section_mut(c, &http_cfg_section);
}
