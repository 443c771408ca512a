/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Shared by the sink files only (sink_*.c): a sink's settings as checked at
 * load, the table of sink types, and the HTTP request the formatters build.
 *
 * Adding a type is one entry in sink_types[] (sink_types.c) plus a module
 * giving its key checker and its deliver(); a type that holds a connection
 * (MQTT) also gives start() / stop().
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/alert/alert_sink.h"
#include "nvmond/core/cfg.h"

#define SINK_ERR_MAX 240

/* One key = value of a sink, with secrets read from their *_file already. */
struct sink_kv {
	char *key;
	char *value;
	bool secret; /* never logged, never in the API */
};

enum sink_sev {
	SINK_SEV_INFO,
	SINK_SEV_WARNING,
	SINK_SEV_CRITICAL,
};

struct sink_type;
struct mqtt_drive_state;

/* The settings of one sink, as checked; owned strings. */
struct sink_conf {
	char name[CFG_SINK_NAME_MAX];
	const struct sink_type *type;
	/* filters */
	enum sink_sev min_severity;
	char *rules;   /* comma list, NULL = all */
	char *devices; /* comma list of serials / models, NULL = all */
	bool resolved; /* also the "resolved" notifications */
	/* delivery */
	uint32_t queue;	   /* notifications waiting; more are dropped and counted */
	uint32_t attempts; /* tries per notification, >= 1 */
	int64_t timeout_ms;
	int64_t retry_min_ms, retry_max_ms; /* backoff doubles from min up to max */
	int64_t resend_ms; /* > 0: firing alerts are sent again this often (Alertmanager) */
	size_t n;
	struct sink_kv *kv; /* the type's own keys */
	void *state;	    /* what the type's start() made (a connection), NULL without */
};

/*
 * A sink type. check_key() sees each key that is not a common one (type,
 * filters, queue, attempts, timeout, retry_min, retry_max, resend_interval) and says
 * whether the type takes it; its message gets FILE:LINE in front. deliver()
 * runs in the sink's own thread and may block up to the timeout: 0 when
 * delivered, -EPROTO when trying again cannot help (an HTTP 4xx), another
 * negative errno when it may (up to the sink's attempts), with @err filled and
 * free of secrets. start() runs when the sink starts (and again after each
 * reload of it), before its thread; what it makes is conf->state in every
 * deliver(); stop() ends it after the thread stopped. states() (optional)
 * hands the drives' latest states to what start() made, on the caller's
 * thread: it must not block; so must status().
 */
struct sink_type {
	const char *name;
	const char *const *required; /* each "a|b": one of them must be set */
	int (*check_key)(const struct sink_type *t, const char *key, const char *value, char *err,
			 size_t errsize);
	int (*deliver)(const struct sink_conf *c, const struct alert_note *n, char *err,
		       size_t errsize);
	uint32_t attempts; /* default */
	int64_t resend_ms; /* default resend_interval; 0: the type does not resend */
	int (*start)(const struct sink_conf *c, void **ret_state);
	void (*stop)(void *state);
	void (*states)(void *state, const struct mqtt_drive_state *d, size_t n);
	/* Whether the held connection is up; if not, why in @err (free of secrets), "" while trying. */
	bool (*status)(void *state, char *err, size_t errsize);
	int64_t timeout_ms; /* default timeout; 0: 10 s */
	/*
	 * Optional: the keys checked together, once each is checked and every secret
	 * read from its file. Return: 0, or -EINVAL with @err (free of secrets) and
	 * in @ret_key the key whose line the message names (NULL: the section's).
	 */
	int (*check_conf)(const struct sink_conf *c, const char **ret_key, char *err,
			  size_t errsize);
};

/** sink_type_find() - The type called @name, or NULL. */
const struct sink_type *sink_type_find(const char *name);

/** sink_type_names() - "exec, webhook, …" for messages. */
const char *sink_type_names(void);

/** sink_bool_parse() - yes/no, true/false, on/off, 1/0. Return: 0 or -EINVAL. */
int sink_bool_parse(const char *s, bool *ret);

/**
 * sink_uint_parse() - A decimal in @lo..@hi, digits only (no sign, no blank).
 * Return: 0 or -EINVAL.
 */
int sink_uint_parse(const char *s, uint32_t lo, uint32_t hi, uint32_t *ret);

/**
 * sink_key_listed() - @key is one of the @n_keys @keys of a sink of type @type, and
 * @value is not empty: the first check of the types that keep a list of their keys.
 * Return: 0, or -EINVAL with "unknown key 'KEY' for a sink of type TYPE" or
 * "KEY: empty" in @err.
 */
int sink_key_listed(const char *const *keys, size_t n_keys, const char *type, const char *key,
		    const char *value, char *err, size_t errsize);

/** sink_conf_get() - The value of the type's key @key in @c, or NULL. */
const char *sink_conf_get(const struct sink_conf *c, const char *key);

/** sink_conf_free() - Free what @c owns (not @c). Accepts NULL. */
void sink_conf_free(struct sink_conf *c);

/** sink_conf_copy() - A deep copy of @c into @ret. Return: 0 or -ENOMEM. */
int sink_conf_copy(const struct sink_conf *c, struct sink_conf *ret);

/**
 * sink_confs_load() - The sinks @cfg asks for: the [sink "NAME"] sections and
 * the [alerts] exec / webhook keys (sinks "exec" and "webhook"). Secrets are
 * read from their *_file here.
 * @ret: an array of @ret_n; free with sink_confs_free().
 * Return: 0, or -EINVAL / -ENOMEM / -errno with "FILE:LINE: message" in @err.
 */
int sink_confs_load(const struct cfg *cfg, struct sink_conf **ret, size_t *ret_n, char *err,
		    size_t errsize);

void sink_confs_free(struct sink_conf *a, size_t n);

/** sink_wants() - Whether the filters of @c let @n through. Pure. */
bool sink_wants(const struct sink_conf *c, const struct alert_note *n);

/* ---- HTTP ----------------------------------------------------------------- */

#define SINK_HEADERS_MAX 6

/* What a formatter makes of a notification; owned strings. */
struct sink_request {
	const char *method; /* static */
	char *url;
	char *headers[SINK_HEADERS_MAX]; /* "Name: value" */
	size_t n_headers;
	char *body;
};

void sink_request_free(struct sink_request *r);

/* What a formatter needs beside the settings and the note. */
struct sink_ctx {
	const char *host; /* this machine's name (Alertmanager instance) */
	int64_t now_ms;	  /* when this request is made (Alertmanager endsAt) */
};

/**
 * sink_format() - The request the sink @c of an HTTP type sends for @n. Pure.
 * Return: 0, -EINVAL (the type is not an HTTP one) or -ENOMEM.
 */
int sink_format(const struct sink_conf *c, const struct alert_note *n, const struct sink_ctx *x,
		struct sink_request *ret);

/* The severity mappings of the formats (pure; the tests name the rule each checks). */
int sink_ntfy_priority(const struct alert_note *n);
int sink_gotify_priority(const struct alert_note *n);
int sink_discord_color(const struct alert_note *n);

/** sink_http_deliver() - deliver() of the HTTP types: format, then POST with libcurl. */
int sink_http_deliver(const struct sink_conf *c, const struct alert_note *n, char *err,
		      size_t errsize);

/** sink_http_check_key() - check_key() of the HTTP types. */
int sink_http_check_key(const struct sink_type *t, const char *key, const char *value, char *err,
			size_t errsize);

/** sink_http_check_conf() - check_conf() of the HTTP types: a url_file's URL is http(s) too. */
int sink_http_check_conf(const struct sink_conf *c, const char **ret_key, char *err,
			 size_t errsize);

/* ---- exec ----------------------------------------------------------------- */

int sink_exec_check_key(const struct sink_type *t, const char *key, const char *value, char *err,
			size_t errsize);
int sink_exec_deliver(const struct sink_conf *c, const struct alert_note *n, char *err,
		      size_t errsize);

/**
 * sink_msg_clean() - @msg (a delivery's failure, a connection's error) as a
 * sink may log and serve it: no URL's userinfo (redact_userinfo()), valid
 * UTF-8 (the API's JSON). @dst may be @msg. Every last_error goes through it.
 */
void sink_msg_clean(char *dst, size_t size, const char *msg);

/**
 * sink_curl_error() - A failed transfer to @url as "@where: why" in @err.
 * libcurl's message @cerr (its CURLOPT_ERRORBUFFER; may be NULL or "") only
 * when it cannot hold a piece of @url's userinfo: when the usual parse splits
 * the userinfo early (redact_url_ambiguous()), libcurl took a piece of it for a
 * host or a port and may name it, so then its fixed text for @rc (a CURLcode)
 * with a hint. Any URL in the message loses its userinfo.
 */
void sink_curl_error(const char *url, int rc, const char *cerr, const char *where, char *err,
		     size_t errsize);

/**
 * sink_curl_init() - libcurl's global init, once, before a sink's first transfer
 * (sink_queue.c). Return: 0, or -ENOMEM when curl_global_init() failed.
 */
int sink_curl_init(void);

/* ---- email (sink_email_type.c) --------------------------------------------- */

int sink_email_check_key(const struct sink_type *t, const char *key, const char *value, char *err,
			 size_t errsize);
int sink_email_deliver(const struct sink_conf *c, const struct alert_note *n, char *err,
		       size_t errsize);
/* The password only under TLS, unless allow_plaintext_password (sink_email_auth_check()). */
int sink_email_check_conf(const struct sink_conf *c, const char **ret_key, char *err,
			  size_t errsize);

/* ---- MQTT (sink_mqtt.c) ------------------------------------------------------ */

int sink_mqtt_check_key(const struct sink_type *t, const char *key, const char *value, char *err,
			size_t errsize);
int sink_mqtt_deliver(const struct sink_conf *c, const struct alert_note *n, char *err,
		      size_t errsize);
int sink_mqtt_start(const struct sink_conf *c, void **ret_state);
void sink_mqtt_stop(void *state);
void sink_mqtt_states(void *state, const struct mqtt_drive_state *d, size_t n);
bool sink_mqtt_status(void *state, char *err, size_t errsize);
