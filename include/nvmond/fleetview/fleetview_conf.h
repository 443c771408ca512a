/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * [fleet]: the fleet page's Prometheus-compatible query API (issue 24), a section
 * the fleet view owns (core/cfg_section.h): its keys, their defaults and ranges
 * are the table in fleetview_conf.c, which docs/configuration.md is checked against.
 */
#include <stdint.h>

#include "nvmond/core/cfg.h"
#include "nvmond/core/cfg_section.h"

struct fleet_conf {
	char query_url[1024];		      /* http(s)://HOST:PORT[/prefix]; "" = no fleet page */
	char bearer_token_file[CFG_PATH_MAX]; /* "Authorization: Bearer" from this file */
	char tls_ca_file[CFG_PATH_MAX];	      /* CA bundle for an https:// query_url */
	char basic_auth_user[128];	      /* HTTP basic auth, with the password */
	char basic_auth_password_file[CFG_PATH_MAX]; /* … read from this file */
	char org_id[128];			     /* X-Scope-OrgID (Mimir, Cortex); "" = none */
	int64_t timeout_ms;			     /* one refresh (all its queries) within this */
	int64_t stale_after_ms;	 /* a host's newest sample older: not reporting */
	int64_t forget_after_ms; /* a host silent this long leaves the page */
};

/* The section, for main's list (cfg_sections_register()). */
extern const struct cfg_section fleetview_cfg_section;

/** fleet_conf() - [fleet] of @c. */
const struct fleet_conf *fleet_conf(const struct cfg *c);
