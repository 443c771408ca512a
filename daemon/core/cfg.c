/* SPDX-License-Identifier: MIT */
/*
 * Configuration: the keys, their built-in defaults, and applying one value to one
 * key — the common path of the INI file (cfg_file.c) and of single-key overrides.
 *
 * Every key lives in one table (cfg_keys[], cfg_keys.c) with its section, type, bounds
 * and default; adding a key or a section is one line there. Values are parsed in cfg_value.c.
 * Nothing here logs: errors go back to the caller as "FILE:LINE: message" (cfg_load)
 * or "message" (cfg_set).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "nvmond/core/cfg.h"
#include "cfg_internal.h"
#include "cfg_keys.h"

#define CFG_DEFAULT_ROOT_DATABASE "/var/lib/nvmond/nvmond.db"

int cfg_fail(char *err, size_t errsize, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errsize, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

bool cfg_quoted_section(const char *section, const char *kind, char *ret_name, size_t len)
{
	size_t k = strlen(kind);
	const char *q, *end;

	if (strncmp(section, kind, k) != 0)
		return false;
	q = section + k;
	while (cfg_is_space(*q))
		q++;
	if (*q != '"')
		return false;
	q++;
	end = strchr(q, '"');
	if (!end || end == q || end[1] != '\0' || (size_t)(end - q) >= len)
		return false;
	snprintf(ret_name, len, "%.*s", (int)(end - q), q);
	return true;
}

/* [device "X"]: Return: true with X in @ret_match. */
static bool cfg_device_section(const char *section, char *ret_match, size_t len)
{
	return cfg_quoted_section(section, "device", ret_match, len);
}

bool cfg_section_known(const char *section)
{
	char match[sizeof(((struct cfg_device *)0)->match)];

	if (cfg_sink_section(section, match) || cfg_export_section(section, match))
		return true;
	if (cfg_device_section(section, match, sizeof(match)))
		return true;
	for (size_t i = 0; i < cfg_n_keys; i++)
		if (strcmp(cfg_keys[i].section, section) == 0)
			return true;
	return cfg_sect_known(section);
}

static const struct cfg_key *cfg_key_find(const char *section, const char *key)
{
	for (size_t i = 0; i < cfg_n_keys; i++)
		if (strcmp(cfg_keys[i].section, section) == 0 && strcmp(cfg_keys[i].key, key) == 0)
			return &cfg_keys[i];
	return NULL;
}

/*
 * Store the @len bytes of @value in the text @field of @k, zero-padded to its end so
 * that the struct stays comparable byte for byte; too long for it is an error.
 */
static int cfg_put_text(const struct cfg_key *k, char *field, const char *value, size_t len,
			char *err, size_t errsize)
{
	if (len > (size_t)k->max)
		return cfg_fail(err, errsize,
				"%s: the value is too long (%zu bytes, max %" PRId64 ")", k->key,
				len, k->max);
	memset(field, 0, (size_t)k->max + 1);
	memcpy(field, value, len);
	return 0;
}

/* A duration within @k's range, in ms. */
static int cfg_put_duration(const struct cfg_key *k, char *field, const char *value, char *err,
			    size_t errsize)
{
	char lo[32], hi[32];
	int64_t n;
	int r;

	r = cfg_parse_duration_ms(value, &n);
	if (r < 0)
		return cfg_fail(err, errsize, "%s: invalid duration '%s' (use e.g. 500ms, 10s, 5m)",
				k->key, value);
	if (n < k->min || n > k->max) {
		cfg_format_duration(k->min, lo, sizeof(lo));
		cfg_format_duration(k->max, hi, sizeof(hi));
		return cfg_fail(err, errsize, "%s: %s is out of range (%s .. %s)", k->key, value,
				lo, hi);
	}
	*(int64_t *)field = n;
	return 0;
}

/* A size within @k's range, in bytes. */
static int cfg_put_size(const struct cfg_key *k, char *field, const char *value, char *err,
			size_t errsize)
{
	uint64_t size;
	int r;

	r = cfg_parse_size(value, &size);
	if (r == -EDOM)
		return cfg_fail(err, errsize, "%s: '%s' has more than %d decimals", k->key, value,
				CFG_SIZE_DECIMALS);
	if (r < 0)
		return cfg_fail(err, errsize,
				"%s: invalid size '%s' (use e.g. 400TB, 1.2PB, 512GiB)", k->key,
				value);
	if (size < (uint64_t)k->min || size > (uint64_t)k->max)
		return cfg_fail(err, errsize, "%s: %s is out of range", k->key, value);
	*(uint64_t *)field = size;
	return 0;
}

/* Validate @value for @k and store it at @base; on failure nothing changes. */
int cfg_key_apply(const struct cfg_key *k, void *base, const char *value, char *err, size_t errsize)
{
	char *field = (char *)base + k->offset;
	struct cfg *c = base; /* CFG_T_LISTEN only: a global key */
	int64_t n;
	int r;

	switch (k->type) {
	case CFG_T_DURATION:
		return cfg_put_duration(k, field, value, err, errsize);

	case CFG_T_UINT32:
		r = cfg_parse_digits(value, value + strlen(value), INT64_MAX, &n);
		if (r == -EINVAL)
			return cfg_fail(err, errsize, "%s: invalid number '%s'", k->key, value);
		if (r < 0 || n < k->min || n > k->max)
			return cfg_fail(err, errsize,
					"%s: %s is out of range (%" PRId64 " .. %" PRId64 ")",
					k->key, value, k->min, k->max);
		*(uint32_t *)field = (uint32_t)n;
		return 0;

	case CFG_T_PATH: {
		size_t len = strlen(value);
		if (len < (size_t)k->min)
			return cfg_fail(err, errsize, "%s: must not be empty", k->key);
		return cfg_put_text(k, field, value, len, err, errsize);
	}

	case CFG_T_LISTEN: {
		char host[sizeof(c->listen_host)] = {0};
		uint16_t port;

		r = cfg_parse_listen(value, host, &port);
		if (r < 0)
			return cfg_fail(
				err, errsize,
				"%s: invalid address '%s' (use host:port, [v6]:port or :port, "
				"port 1..65535)",
				k->key, value);
		memcpy(c->listen_host, host, sizeof(host));
		c->listen_port = port;
		return 0;
	}

	case CFG_T_USER: {
		size_t len = strlen(value);
		struct passwd pw, *res = NULL;
		char pwbuf[4096];

		if (len > (size_t)k->max)
			return cfg_fail(err, errsize,
					"%s: the name is too long (%zu bytes, max %" PRId64 ")",
					k->key, len, k->max);
		if (len && (getpwnam_r(value, &pw, pwbuf, sizeof(pwbuf), &res) != 0 || !res))
			return cfg_fail(err, errsize, "%s: no user '%s' on this system", k->key,
					value);
		return cfg_put_text(k, field, value, len, err, errsize);
	}

	case CFG_T_TEXT: {
		size_t len = strlen(value);
		/* label = "bay 3 – scratch": one pair of quotes around the value goes. */
		if (len >= 2 && value[0] == '"' && value[len - 1] == '"') {
			value++;
			len -= 2;
		}
		if (len < (size_t)k->min)
			return cfg_fail(err, errsize, "%s: must not be empty", k->key);
		if (len <= (size_t)k->max && !cfg_text_ok(value, len))
			return cfg_fail(err, errsize,
					"%s: not UTF-8 text (a control character or an invalid "
					"byte)",
					k->key);
		return cfg_put_text(k, field, value, len, err, errsize);
	}

	case CFG_T_URL: {
		size_t len = strlen(value);
		if (len <= (size_t)k->max && len && !cfg_http_url_ok(value))
			return cfg_fail(err, errsize,
					"%s: '%s' is not an http:// or https:// URL with a host",
					k->key, value);
		return cfg_put_text(k, field, value, len, err, errsize);
	}

	case CFG_T_LABELS: {
		struct cfg_labels v;
		char why[CFG_ERR_MAX];

		if (cfg_parse_labels(value, &v, why, sizeof(why)) < 0)
			return cfg_fail(err, errsize, "%s: %s", k->key, why);
		memcpy(field, &v, sizeof(v));
		return 0;
	}

	case CFG_T_SIZE:
		return cfg_put_size(k, field, value, err, errsize);

	case CFG_T_ENUM:
		for (const struct cfg_choice *ch = k->choices; ch->name; ch++)
			if (strcasecmp(ch->name, value) == 0) {
				*(int *)field = ch->value;
				return 0;
			}
		return cfg_fail(err, errsize, "%s: invalid value '%s' (use %s)", k->key, value,
				k->hint);
	}
	return cfg_fail(err, errsize, "%s: unsupported key type", k->key);
}

size_t cfg_key_count(void)
{
	return cfg_n_keys + cfg_n_device_keys + cfg_sect_key_count();
}

/*
 * The [device] defaults, parsed from the key table once: cfg_device_for() runs
 * for every sample of every drive (alerts, sensors, self-tests), and parsing
 * some twenty default strings each time was a tenth of a drive-poll's CPU
 * (tests/bench/poll-cost-bench.sh). Written once, before any reader, then constant.
 */
static struct cfg_device cfg_device_default_value;
static pthread_once_t cfg_device_default_once = PTHREAD_ONCE_INIT;

static void cfg_device_default_init(void)
{
	struct cfg_device *d = &cfg_device_default_value;
	char err[CFG_ERR_MAX];

	memset(d, 0, sizeof(*d));
	for (size_t i = 0; i < cfg_n_device_keys; i++)
		(void)cfg_key_apply(&cfg_device_keys[i], d, cfg_device_keys[i].def, err,
				    sizeof(err));
}

static void cfg_device_defaults(struct cfg_device *d)
{
	pthread_once(&cfg_device_default_once, cfg_device_default_init);
	*d = cfg_device_default_value;
}

/* [device "@match"] @key = @value: the section's entry is made at its first key. */
static int cfg_device_apply(struct cfg *c, const char *match, const char *key, const char *value,
			    char *err, size_t errsize)
{
	struct cfg_device *d = NULL, tmp;
	size_t k;

	for (k = 0; k < cfg_n_device_keys; k++)
		if (strcmp(cfg_device_keys[k].key, key) == 0)
			break;
	if (k == cfg_n_device_keys) {
		(void)cfg_fail(err, errsize, "unknown key '%s' in section [device \"%s\"]", key,
			       match);
		return -ENOENT;
	}
	for (size_t i = 0; i < c->n_devices; i++)
		if (strcmp(c->devices[i].match, match) == 0)
			d = &c->devices[i];
	if (!d) {
		if (c->n_devices == CFG_MAX_DEVICES) {
			(void)cfg_fail(err, errsize, "too many [device] sections (max %d)",
				       CFG_MAX_DEVICES);
			return -ENOSPC;
		}
		cfg_device_defaults(&tmp);
		snprintf(tmp.match, sizeof(tmp.match), "%s", match);
	} else {
		tmp = *d;
	}
	int r = cfg_key_apply(&cfg_device_keys[k], &tmp, value, err, errsize);
	if (r < 0)
		return r;
	tmp.set_mask |= UINT64_C(1) << k;
	if (!d)
		d = &c->devices[c->n_devices++];
	*d = tmp;
	return 0;
}

/* Copy the keys @from sets onto @to. */
static void cfg_device_merge(struct cfg_device *to, const struct cfg_device *from)
{
	static const size_t size[] = {
		[CFG_T_DURATION] = sizeof(int64_t),
		[CFG_T_UINT32] = sizeof(uint32_t),
		[CFG_T_ENUM] = sizeof(int),
		[CFG_T_SIZE] = sizeof(uint64_t),
	};

	for (size_t k = 0; k < cfg_n_device_keys; k++) {
		const struct cfg_key *key = &cfg_device_keys[k];
		if (!(from->set_mask & (UINT64_C(1) << k)))
			continue;
		bool text = key->type == CFG_T_PATH || key->type == CFG_T_TEXT;
		memcpy((char *)to + key->offset, (const char *)from + key->offset,
		       text ? (size_t)key->max + 1 : size[key->type]);
		to->set_mask |= UINT64_C(1) << k;
	}
}

void cfg_device_for(const struct cfg *c, const char *model, const char *serial,
		    struct cfg_device *ret)
{
	struct cfg_device d;

	cfg_device_defaults(&d);
	/* The model's section first, so a serial's section wins. */
	for (size_t i = 0; i < c->n_devices; i++)
		if (model && strcmp(c->devices[i].match, model) == 0)
			cfg_device_merge(&d, &c->devices[i]);
	for (size_t i = 0; i < c->n_devices; i++)
		if (serial && strcmp(c->devices[i].match, serial) == 0) {
			cfg_device_merge(&d, &c->devices[i]);
			snprintf(d.match, sizeof(d.match), "%s", serial);
		}
	if (!cfg_device_sets(&d, "warning_margin"))
		d.alert_warning_margin_c = c->alert_warning_margin_c;
	if (!cfg_device_sets(&d, "critical_margin"))
		d.alert_critical_margin_c = c->alert_critical_margin_c;
	if (!cfg_device_sets(&d, "sensor_alerts"))
		d.sensor_alerts = c->alert_sensor_alerts;
	*ret = d;
}

bool cfg_device_sets(const struct cfg_device *d, const char *key)
{
	for (size_t k = 0; k < cfg_n_device_keys; k++)
		if (strcmp(cfg_device_keys[k].key, key) == 0)
			return d->set_mask & (UINT64_C(1) << k);
	return false;
}

int cfg_apply(struct cfg *c, const char *section, const char *key, const char *value, char *err,
	      size_t errsize)
{
	return cfg_apply_at(c, section, key, value, 0, err, errsize);
}

/* Look up [@section] @key and apply @value: the common path of the file and cfg_set(). */
int cfg_apply_at(struct cfg *c, const char *section, const char *key, const char *value, int line,
		 char *err, size_t errsize)
{
	const struct cfg_key *k;
	int r;

	char match[sizeof(((struct cfg_device *)0)->match)];

	if (!section || !*section) {
		(void)cfg_fail(err, errsize, "key '%s' outside any section", key);
		return -ENOENT;
	}
	if (cfg_sink_section(section, match))
		return cfg_sink_apply(c, match, key, value, line, err, errsize);
	if (cfg_export_section(section, match))
		return cfg_export_apply(c, match, key, value, line, err, errsize);
	if (cfg_device_section(section, match, sizeof(match)))
		return cfg_device_apply(c, match, key, value, err, errsize);
	if (!cfg_section_known(section)) {
		(void)cfg_fail(err, errsize, "unknown section [%s]", section);
		return -ENOENT;
	}
	k = cfg_key_find(section, key);
	if (k) {
		r = cfg_key_apply(k, c, value, err, errsize);
		if (r == 0)
			c->key_line[k - cfg_keys] = line;
		return r;
	}
	size_t slot;
	k = cfg_sect_find(section, key, &slot);
	if (!k) {
		(void)cfg_fail(err, errsize, "unknown key '%s' in section [%s]", key, section);
		return -ENOENT;
	}
	r = cfg_key_apply(k, cfg_sect_base(c, slot), value, err, errsize);
	if (r == 0)
		c->sect_key_line[slot] = line;
	return r;
}

/* root: /var/lib/nvmond; others: $XDG_STATE_HOME/nvmond, else ~/.local/state/nvmond. */
static void cfg_default_database(char buf[CFG_PATH_MAX])
{
	const char *xdg, *home;
	struct passwd pw, *res = NULL;
	char pwbuf[4096];

	if (geteuid() != 0) {
		/* XDG: a relative $XDG_STATE_HOME is invalid and must be ignored. */
		xdg = getenv("XDG_STATE_HOME");
		if (xdg && xdg[0] == '/' &&
		    (size_t)snprintf(buf, CFG_PATH_MAX, "%s/nvmond/nvmond.db", xdg) < CFG_PATH_MAX)
			return;
		home = getenv("HOME");
		if ((!home || home[0] != '/') &&
		    getpwuid_r(geteuid(), &pw, pwbuf, sizeof(pwbuf), &res) == 0 && res)
			home = res->pw_dir;
		if (home && home[0] == '/' &&
		    (size_t)snprintf(buf, CFG_PATH_MAX, "%s/.local/state/nvmond/nvmond.db", home) <
			    CFG_PATH_MAX)
			return;
	}
	snprintf(buf, CFG_PATH_MAX, "%s", CFG_DEFAULT_ROOT_DATABASE);
}

/* gethostname(2), when it makes a host_name; else "localhost". */
static void cfg_default_host_name(char buf[CFG_HOST_NAME_MAX])
{
	char h[256] = "";

	size_t n;

	if (gethostname(h, sizeof(h) - 1) < 0 || !h[0] || (n = strlen(h)) >= CFG_HOST_NAME_MAX ||
	    !cfg_text_ok(h, n)) {
		memcpy(buf, "localhost", sizeof("localhost"));
		return;
	}
	memcpy(buf, h, n + 1); /* n < CFG_HOST_NAME_MAX */
}

void cfg_defaults(struct cfg *c)
{
	char err[CFG_ERR_MAX];

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < cfg_n_keys; i++)
		if (cfg_keys[i].def)
			/* Built-in strings; the unit tests check that each one applies. */
			(void)cfg_key_apply(&cfg_keys[i], c, cfg_keys[i].def, err, sizeof(err));
	cfg_default_database(c->database);
	cfg_default_host_name(c->host_name);
	cfg_sect_defaults(c);
}

int cfg_set(struct cfg *c, const char *section, const char *key, const char *value,
	    char ret_err[CFG_ERR_MAX])
{
	char msg[CFG_ERR_MAX];
	int r;

	if (!section || !key || !value)
		return cfg_fail(ret_err, CFG_ERR_MAX, "missing section, key or value");
	r = cfg_apply(c, section, key, value, msg, sizeof(msg));
	if (r < 0) {
		memcpy(ret_err, msg, sizeof(msg));
		return -EINVAL;
	}
	return 0;
}

/* ---- the table described, for the checks of the docs ------------------ */

/* "a, b or c" → "a, b, c" */
static void hint_list(const char *hint, char *buf, size_t size)
{
	const char * or = strstr(hint, " or ");

	if (! or) {
		snprintf(buf, size, "%s", hint);
		return;
	}
	snprintf(buf, size, "%.*s, %s", (int)(or -hint), hint, or +4);
}

static void describe_bound(const struct cfg_key *k, int64_t v, char *buf, size_t size)
{
	if (k->type == CFG_T_DURATION && v != 0)
		cfg_format_duration(v, buf, size);
	else if (k->type == CFG_T_SIZE && v >= (1 << 20) && v % (1 << 20) == 0)
		snprintf(buf, size, "%" PRId64 " MiB", v >> 20);
	else
		snprintf(buf, size, "%" PRId64, v);
}

int cfg_key_describe(size_t i, struct cfg_key_desc *ret)
{
	const struct cfg_key *k;
	char lo[32], hi[32];
	size_t sect;

	if (i >= cfg_key_count())
		return -ENOENT;
	if (i < cfg_n_keys)
		k = &cfg_keys[i];
	else if (i < cfg_n_keys + cfg_n_device_keys)
		k = &cfg_device_keys[i - cfg_n_keys];
	else
		k = cfg_sect_key(i - cfg_n_keys - cfg_n_device_keys, &sect);
	*ret = (struct cfg_key_desc){
		.section = k->section,
		.key = k->key,
		.def = k->def,
		.range_known = true,
		.restart = k->restart,
	};
	switch (k->type) {
	case CFG_T_DURATION:
	case CFG_T_UINT32:
		ret->type = k->type == CFG_T_DURATION ? "duration" : "integer";
		describe_bound(k, k->min, lo, sizeof(lo));
		describe_bound(k, k->max, hi, sizeof(hi));
		snprintf(ret->range, sizeof(ret->range), "%s … %s", lo, hi);
		break;
	case CFG_T_SIZE:
		ret->type = "size";
		describe_bound(k, k->min, lo, sizeof(lo));
		if (k->max != INT64_MAX)
			describe_bound(k, k->max, hi, sizeof(hi));
		if (k->min > 0 && k->max == INT64_MAX)
			snprintf(ret->range, sizeof(ret->range), "≥ %s", lo);
		else if (k->max != INT64_MAX)
			snprintf(ret->range, sizeof(ret->range), "%s … %s", lo, hi);
		break;
	case CFG_T_PATH:
	case CFG_T_USER:
	case CFG_T_TEXT:
		ret->type = k->syntax ? k->syntax : "text";
		ret->range_known = !k->syntax;
		ret->len_min = k->min;
		ret->len_max = k->max;
		if (k->min > 0)
			snprintf(ret->range, sizeof(ret->range), "not empty");
		break;
	case CFG_T_URL:
		ret->type = "text";
		ret->len_max = k->max;
		snprintf(ret->range, sizeof(ret->range), "http:// or https:// URL");
		break;
	case CFG_T_LABELS:
		ret->type = "labels";
		snprintf(ret->range, sizeof(ret->range), "at most %d", CFG_LABELS_MAX);
		break;
	case CFG_T_LISTEN:
		ret->type = "address";
		snprintf(ret->range, sizeof(ret->range), "port 1 … 65535");
		break;
	case CFG_T_ENUM:
		if (k->choices == cfg_bool_choices) {
			ret->type = "bool";
		} else {
			ret->type = "choice";
			hint_list(k->hint, ret->range, sizeof(ret->range));
		}
		break;
	}
	return 0;
}

/* ---- where a key was set, what waits for a restart -------------------- */

int cfg_key_line(const struct cfg *c, const char *section, const char *key)
{
	const struct cfg_key *k = cfg_key_find(section, key);
	size_t slot;

	if (k)
		return c->key_line[k - cfg_keys];
	return cfg_sect_find(section, key, &slot) ? c->sect_key_line[slot] : 0;
}

const struct cfg_key *cfg_key_lookup(const char *section, const char *key)
{
	const struct cfg_key *k = cfg_key_find(section, key);
	size_t slot;

	return k ? k : cfg_sect_find(section, key, &slot);
}

const char *cfg_key_where(const struct cfg *c, const char *section, const char *key, char *buf,
			  size_t size)
{
	int line = cfg_key_line(c, section, key);

	if (line > 0 && c->file[0])
		snprintf(buf, size, "%s:%d", c->file, line);
	else if (size)
		buf[0] = '\0';
	return buf;
}

/*
 * Whether key @k has the same value in @a and @b, its values at @base_a and @base_b
 * (@a and @b themselves for core's own keys).
 */
static bool cfg_key_same(const struct cfg_key *k, const struct cfg *a, const struct cfg *b,
			 const void *base_a, const void *base_b)
{
	const char *fa = (const char *)base_a + k->offset, *fb = (const char *)base_b + k->offset;

	switch (k->type) {
	case CFG_T_DURATION:
		return *(const int64_t *)fa == *(const int64_t *)fb;
	case CFG_T_UINT32:
		return *(const uint32_t *)fa == *(const uint32_t *)fb;
	case CFG_T_SIZE:
		return *(const uint64_t *)fa == *(const uint64_t *)fb;
	case CFG_T_ENUM:
		return *(const int *)fa == *(const int *)fb;
	case CFG_T_PATH:
	case CFG_T_USER:
	case CFG_T_TEXT:
	case CFG_T_URL:
		return strcmp(fa, fb) == 0;
	case CFG_T_LABELS: {
		const struct cfg_labels *la = (const void *)fa, *lb = (const void *)fb;
		if (la->n != lb->n)
			return false;
		for (size_t i = 0; i < la->n; i++)
			if (strcmp(la->v[i].name, lb->v[i].name) != 0 ||
			    strcmp(la->v[i].value, lb->v[i].value) != 0)
				return false;
		return true;
	}
	case CFG_T_LISTEN:
		return strcmp(a->listen_host, b->listen_host) == 0 &&
		       a->listen_port == b->listen_port;
	}
	return false;
}

size_t cfg_restart_changes(const struct cfg *running, const struct cfg *loaded, char *buf,
			   size_t size)
{
	size_t n = 0, len = 0;
	const char *sect = NULL;

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < cfg_n_keys + cfg_sect_key_count(); i++) {
		size_t slot = i - cfg_n_keys, si;
		const struct cfg_key *k = i < cfg_n_keys ? &cfg_keys[i] : cfg_sect_key(slot, &si);
		const void *ba =
			i < cfg_n_keys ? (const void *)running : cfg_sect_base(running, slot);
		const void *bb =
			i < cfg_n_keys ? (const void *)loaded : cfg_sect_base(loaded, slot);
		if (!k->restart || cfg_key_same(k, running, loaded, ba, bb))
			continue;
		bool same_sect = sect && strcmp(sect, k->section) == 0;
		int w = snprintf(buf + len, len < size ? size - len : 0, "%s%s%s%s%s",
				 n ? ", " : "", same_sect ? "" : "[", same_sect ? "" : k->section,
				 same_sect ? "" : "] ", k->key);
		if (w > 0)
			len = len + (size_t)w < size ? len + (size_t)w : (size ? size - 1 : 0);
		sect = k->section;
		n++;
	}
	return n;
}
