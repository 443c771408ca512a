/* SPDX-License-Identifier: MIT */
/*
 * A sink's settings: the [sink "NAME"] sections and the [alerts] exec /
 * webhook keys, checked (FILE:LINE on errors) and turned into struct
 * sink_conf; secrets read from their *_file; the filters. Nothing here logs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "nvmond/analysis/alert.h"
#include "nvmond/core/cfg_section.h"
#include "nvmond/util/fperm.h"
#include "nvmond/util/secret_file.h"
#include "sink_internal.h"

#define SECRET_MAX 4096

static int sev_parse(const char *s, enum sink_sev *ret)
{
	static const char *const names[] = {"info", "warning", "critical"};

	for (size_t i = 0; i < 3; i++)
		if (strcasecmp(s, names[i]) == 0) {
			*ret = (enum sink_sev)i;
			return 0;
		}
	return -EINVAL;
}

int sink_bool_parse(const char *s, bool *ret)
{
	if (!strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcasecmp(s, "on") ||
	    !strcmp(s, "1"))
		*ret = true;
	else if (!strcasecmp(s, "no") || !strcasecmp(s, "false") || !strcasecmp(s, "off") ||
		 !strcmp(s, "0"))
		*ret = false;
	else
		return -EINVAL;
	return 0;
}

int sink_key_listed(const char *const *keys, size_t n_keys, const char *type, const char *key,
		    const char *value, char *err, size_t errsize)
{
	size_t i;

	for (i = 0; i < n_keys; i++)
		if (!strcmp(keys[i], key))
			break;
	if (i == n_keys) {
		snprintf(err, errsize, "unknown key '%s' for a sink of type %s", key, type);
		return -EINVAL;
	}
	if (!value[0]) {
		snprintf(err, errsize, "%s: empty", key);
		return -EINVAL;
	}
	return 0;
}

int sink_uint_parse(const char *s, uint32_t lo, uint32_t hi, uint32_t *ret)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

/*
 * The first line of the file @path, without its newline: a secret. Nobody but
 * its owner may read or write it (fperm.h). Return: 0, or -errno with why in
 * @err (never the secret).
 */
static int secret_read(const char *path, char **ret, char *err, size_t errsize)
{
	char buf[SECRET_MAX];
	int r = secret_file_read(path, buf, sizeof(buf), 0, err, errsize);

	if (r == -ENODATA)
		snprintf(err, errsize, "%.200s: empty", path);
	else if (r == -E2BIG)
		snprintf(err, errsize, "%.100s: its first line is longer than %d bytes", path,
			 SECRET_MAX - 1);
	if (r < 0)
		return r;
	*ret = strdup(buf);
	explicit_bzero(buf, sizeof(buf));
	if (!*ret) {
		snprintf(err, errsize, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

const char *sink_conf_get(const struct sink_conf *c, const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->kv[i].key, key) == 0)
			return c->kv[i].value;
	return NULL;
}

static int kv_add(struct sink_conf *c, const char *key, const char *value, bool secret, bool take)
{
	struct sink_kv *kv = realloc(c->kv, (c->n + 1) * sizeof(*kv));

	if (!kv)
		return -ENOMEM;
	c->kv = kv;
	kv[c->n].key = strdup(key);
	kv[c->n].value = take ? (char *)value : strdup(value);
	kv[c->n].secret = secret;
	c->n++;
	if (!kv[c->n - 1].key || !kv[c->n - 1].value)
		return -ENOMEM;
	return 0;
}

void sink_conf_free(struct sink_conf *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->kv[i].key);
		if (c->kv[i].value && c->kv[i].secret)
			explicit_bzero(c->kv[i].value, strlen(c->kv[i].value));
		free(c->kv[i].value);
	}
	free(c->kv);
	free(c->rules);
	free(c->devices);
	memset(c, 0, sizeof(*c));
}

int sink_conf_copy(const struct sink_conf *c, struct sink_conf *ret)
{
	struct sink_conf t = *c;

	t.kv = NULL;
	t.n = 0;
	t.rules = c->rules ? strdup(c->rules) : NULL;
	t.devices = c->devices ? strdup(c->devices) : NULL;
	int r = (c->rules && !t.rules) || (c->devices && !t.devices) ? -ENOMEM : 0;
	for (size_t i = 0; r == 0 && i < c->n; i++)
		r = kv_add(&t, c->kv[i].key, c->kv[i].value, c->kv[i].secret, false);
	if (r < 0) {
		sink_conf_free(&t);
		return r;
	}
	*ret = t;
	return 0;
}

void sink_confs_free(struct sink_conf *a, size_t n)
{
	for (size_t i = 0; a && i < n; i++)
		sink_conf_free(&a[i]);
	free(a);
}

/* Each name of the comma list @list is a rule. */
static int rules_check(const char *list, char *bad, size_t badsize)
{
	char buf[CFG_SINK_VAL_MAX], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save))
		if (alert_rule_from_name(t) < 0) {
			snprintf(bad, badsize, "%s", t);
			return -EINVAL;
		}
	return 0;
}

/* A common key of every sink. Return: 1 if @key is one (applied), 0 if not, or -EINVAL. */
static int common_key(struct sink_conf *c, const char *key, const char *v, char *msg,
		      size_t msgsize)
{
	char bad[64];

	if (!strcmp(key, "type"))
		return 1;
	if (!strcmp(key, "min_severity")) {
		if (sev_parse(v, &c->min_severity) < 0)
			goto bad;
		return 1;
	}
	if (!strcmp(key, "rules")) {
		if (rules_check(v, bad, sizeof(bad)) < 0) {
			snprintf(msg, msgsize, "rules: unknown rule '%s'", bad);
			return -EINVAL;
		}
		free(c->rules);
		c->rules = strdup(v);
		return c->rules ? 1 : -ENOMEM;
	}
	if (!strcmp(key, "devices")) {
		free(c->devices);
		c->devices = strdup(v);
		return c->devices ? 1 : -ENOMEM;
	}
	if (!strcmp(key, "resolved"))
		return sink_bool_parse(v, &c->resolved) < 0
			       ? (snprintf(msg, msgsize, "resolved: '%s' is not yes or no", v),
				  -EINVAL)
			       : 1;
	if (!strcmp(key, "queue"))
		return sink_uint_parse(v, 1, 100000, &c->queue) < 0
			       ? (snprintf(msg, msgsize,
					   "queue: '%s' is not a "
					   "number in 1 .. 100000",
					   v),
				  -EINVAL)
			       : 1;
	if (!strcmp(key, "attempts"))
		return sink_uint_parse(v, 1, 100, &c->attempts) < 0
			       ? (snprintf(msg, msgsize,
					   "attempts: '%s' is not a number in 1 .. 100", v),
				  -EINVAL)
			       : 1;
	int64_t *dur = !strcmp(key, "timeout")				       ? &c->timeout_ms
		       : !strcmp(key, "retry_min")			       ? &c->retry_min_ms
		       : !strcmp(key, "retry_max")			       ? &c->retry_max_ms
		       : !strcmp(key, "resend_interval") && c->type->resend_ms ? &c->resend_ms
									       : NULL;
	if (dur) {
		int64_t ms;
		if (cfg_parse_duration_ms(v, &ms) < 0 || ms < 100 || ms > 24 * 3600 * 1000LL) {
			snprintf(msg, msgsize, "%s: invalid duration '%s' (100ms .. 1d)", key, v);
			return -EINVAL;
		}
		*dur = ms;
		return 1;
	}
	return 0;
bad:
	snprintf(msg, msgsize, "%s: '%s' is not info, warning or critical", key, v);
	return -EINVAL;
}

static void conf_defaults(struct sink_conf *c, const char *name, const struct sink_type *t)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->type = t;
	c->min_severity = SINK_SEV_INFO;
	c->resolved = true;
	c->queue = 256;
	c->attempts = t->attempts;
	c->timeout_ms = t->timeout_ms ? t->timeout_ms : 10000;
	c->retry_min_ms = 1000;
	c->retry_max_ms = 60000;
	c->resend_ms = t->resend_ms;
}

/* A [sink "NAME"] section into @c. */
static int conf_from_section(const struct cfg *cfg, const struct cfg_sink *s, struct sink_conf *c,
			     char *err, size_t errsize)
{
	const char *file = cfg->sinks_file;
	char msg[SINK_ERR_MAX];
	int line = s->line, r;
	const char *tname = cfg_sink_get(s, "type", &line);
	const struct sink_type *t = tname ? sink_type_find(tname) : NULL;

	if (!tname)
		return cfg_line_fail(err, errsize, file, s->line, "[sink \"%s\"]: type is missing",
				     s->name);
	if (!t)
		return cfg_line_fail(err, errsize, file, line, "type: '%s' is not one of %s", tname,
				     sink_type_names());
	conf_defaults(c, s->name, t);
	for (size_t i = 0; i < s->n; i++) {
		const struct cfg_sink_kv *kv = &s->kv[i];
		size_t klen = strlen(kv->key);

		msg[0] = '\0';
		r = common_key(c, kv->key, kv->value, msg, sizeof(msg));
		if (r == 0)
			r = t->check_key(t, kv->key, kv->value, msg, sizeof(msg));
		if (r < 0)
			return cfg_line_fail(err, errsize, file, kv->line, "%s", msg);
		if (r == 1)
			continue;
		/* ca_file names a file TLS reads itself: a path, not a secret's file. */
		if (klen > 5 && !strcmp(kv->key + klen - 5, "_file") &&
		    strcmp(kv->key, "ca_file")) {
			char base[32], *secret = NULL;
			snprintf(base, sizeof(base), "%.*s", (int)(klen - 5), kv->key);
			if (cfg_sink_get(s, base, NULL))
				return cfg_line_fail(err, errsize, file, kv->line,
						     "%s: %s is set as well; use one of them",
						     kv->key, base);
			r = secret_read(kv->value, &secret, msg, sizeof(msg));
			if (r < 0)
				return cfg_line_fail(err, errsize, file, kv->line, "%s: %s",
						     kv->key, msg);
			r = kv_add(c, base, secret, true, true);
		} else {
			r = kv_add(c, kv->key, kv->value,
				   strcmp(kv->key, "path") && strcmp(kv->key, "chat_id"), false);
		}
		if (r < 0)
			return cfg_line_fail(err, errsize, file, kv->line, "out of memory");
	}
	if (c->retry_max_ms < c->retry_min_ms)
		c->retry_max_ms = c->retry_min_ms;
	for (const char *const *q = t->required; q && *q; q++) {
		char alt[64];
		const char *bar = strchr(*q, '|');
		snprintf(alt, sizeof(alt), "%s", *q);
		alt[bar ? (size_t)(bar - *q) : strlen(alt)] = '\0';
		if (!sink_conf_get(c, alt))
			return cfg_line_fail(err, errsize, file, s->line,
					     "[sink \"%s\"]: type %s needs %s%s%s", s->name,
					     t->name, alt, bar ? " or " : "", bar ? bar + 1 : "");
	}
	const char *blame = NULL;
	msg[0] = '\0';
	if (t->check_conf && t->check_conf(c, &blame, msg, sizeof(msg)) < 0) {
		line = s->line;
		if (blame)
			(void)cfg_sink_get(s, blame, &line);
		return cfg_line_fail(err, errsize, file, line, "%s", msg);
	}
	return 0;
}

/* The [alerts] exec and webhook keys, as the sinks "exec" and "webhook" were before. */
static int conf_legacy(const struct cfg *cfg, bool exec, struct sink_conf *c, char *err,
		       size_t errsize)
{
	const struct sink_type *t = sink_type_find(exec ? "exec" : "webhook");
	char msg[SINK_ERR_MAX] = "";
	const char *v = exec ? cfg->alert_exec : cfg->alert_webhook;

	if (t->check_key(t, exec ? "path" : "url", v, msg, sizeof(msg)) < 0) {
		const char *why = strchr(msg, ':'); /* "path: …": the key here is exec / webhook */
		return cfg_line_fail(err, errsize, cfg->file, cfg_key_line(cfg, "alerts", t->name),
				     "[alerts] %s%s", t->name, why ? why : msg);
	}
	conf_defaults(c, t->name, t);
	if (exec) {
		c->timeout_ms = cfg->alert_exec_timeout_ms;
		c->queue = 64;
	} else {
		c->timeout_ms = cfg->alert_webhook_timeout_ms;
		c->queue = cfg->alert_webhook_queue;
		c->attempts = cfg->alert_webhook_attempts ? cfg->alert_webhook_attempts : 1;
		c->retry_max_ms = cfg->alert_webhook_retry_max_ms;
	}
	if (kv_add(c, exec ? "path" : "url", v, !exec, false) < 0)
		return cfg_line_fail(err, errsize, "", 0, "out of memory");
	return 0;
}

int sink_confs_load(const struct cfg *cfg, struct sink_conf **ret, size_t *ret_n, char *err,
		    size_t errsize)
{
	struct sink_conf *a = calloc(cfg->n_sinks + 2, sizeof(*a));
	size_t n = 0;
	int r = 0;

	if (!a)
		return cfg_line_fail(err, errsize, "", 0, "out of memory");
	for (int legacy = 0; legacy < 2 && r == 0; legacy++) {
		bool exec = legacy == 0;
		if (!(exec ? cfg->alert_exec : cfg->alert_webhook)[0])
			continue;
		for (size_t i = 0; i < cfg->n_sinks; i++)
			if (!strcmp(cfg->sinks[i].name, exec ? "exec" : "webhook")) {
				r = cfg_line_fail(
					err, errsize, cfg->sinks_file, cfg->sinks[i].line,
					"[sink \"%s\"]: [alerts] %s names this sink already",
					cfg->sinks[i].name, cfg->sinks[i].name);
				break;
			}
		if (r == 0)
			r = conf_legacy(cfg, exec, &a[n++], err, errsize);
	}
	for (size_t i = 0; r == 0 && i < cfg->n_sinks; i++)
		r = conf_from_section(cfg, &cfg->sinks[i], &a[n++], err, errsize);
	if (r < 0) {
		sink_confs_free(a, n);
		return r;
	}
	*ret = a;
	*ret_n = n;
	return 0;
}

/* Whether @word is one of the comma list @list (case-sensitive, as serials are). */
static bool list_has(const char *list, const char *word)
{
	size_t len = strlen(word);

	if (!len)
		return false;
	for (const char *p = list; *p;) {
		p += strspn(p, ", \t");
		size_t k = strcspn(p, ",");
		size_t e = k;
		while (e > 0 && (p[e - 1] == ' ' || p[e - 1] == '\t'))
			e--;
		if (e == len && !strncmp(p, word, len))
			return true;
		p += k;
	}
	return false;
}

bool sink_wants(const struct sink_conf *c, const struct alert_note *n)
{
	enum sink_sev sev = SINK_SEV_INFO;

	if (!strcmp(n->state, "test"))
		return true; /* a test reaches every sink it is sent to */
	if (!strcmp(n->state, "resolved") && !c->resolved)
		return false;
	(void)sev_parse(n->severity, &sev);
	if (sev < c->min_severity)
		return false;
	if (c->rules && !list_has(c->rules, n->rule))
		return false;
	if (c->devices && !list_has(c->devices, n->serial) && !list_has(c->devices, n->model))
		return false;
	return true;
}
