/* SPDX-License-Identifier: MIT */
/*
 * [sink "NAME"] and [export "NAME"] sections, kept as key = value lines with
 * their line numbers.
 * The alert subsystem owns the sink types and checks the keys (core may not
 * call it); what is checked here is only the shape: the name, how many
 * sections and keys, the length of each value.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/core/cfg.h"
#include "cfg_internal.h"

/* A sink name: letters, digits, '-', '_' and '.', so it fits a URL and a metric label. */
static bool sink_name_ok(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || cfg_is_digit(ch) ||
		      ch == '-' || ch == '_' || ch == '.'))
			return false;
	}
	return true;
}

bool cfg_sink_section(const char *section, char ret_name[CFG_SINK_NAME_MAX])
{
	return cfg_quoted_section(section, "sink", ret_name, CFG_SINK_NAME_MAX) &&
	       sink_name_ok(ret_name, strlen(ret_name));
}

/* @kind "NAME" @key = @value into the kept sections @v (@n of at most @max). */
static int kept_apply(struct cfg_sink *v, size_t *n, size_t max, const char *kind, const char *name,
		      const char *key, const char *value, int line, char *err, size_t errsize)
{
	struct cfg_sink *s = NULL;
	struct cfg_sink_kv *kv = NULL;

	if (strlen(key) >= sizeof(kv->key)) {
		(void)cfg_fail(err, errsize, "unknown key '%.40s' in section [%s \"%s\"]", key,
			       kind, name);
		return -ENOENT;
	}
	if (strlen(value) >= CFG_SINK_VAL_MAX)
		return cfg_fail(err, errsize, "%s: value too long (max %d characters)", key,
				CFG_SINK_VAL_MAX - 1);
	for (size_t i = 0; i < *n; i++)
		if (strcmp(v[i].name, name) == 0)
			s = &v[i];
	if (!s) {
		if (*n == max) {
			(void)cfg_fail(err, errsize, "too many [%s] sections (max %zu)", kind, max);
			return -ENOSPC;
		}
		s = &v[(*n)++];
		memset(s, 0, sizeof(*s));
		snprintf(s->name, sizeof(s->name), "%s", name);
		s->line = line;
	}
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->kv[i].key, key) == 0)
			kv = &s->kv[i]; /* set again: the last one wins, as for other keys */
	if (!kv) {
		if (s->n == CFG_SINK_KEYS) {
			(void)cfg_fail(err, errsize, "too many keys in [%s \"%s\"] (max %d)", kind,
				       name, CFG_SINK_KEYS);
			return -ENOSPC;
		}
		kv = &s->kv[s->n++];
		snprintf(kv->key, sizeof(kv->key), "%s", key);
	}
	snprintf(kv->value, sizeof(kv->value), "%s", value);
	kv->line = line;
	return 0;
}

int cfg_sink_apply(struct cfg *c, const char *name, const char *key, const char *value, int line,
		   char *err, size_t errsize)
{
	return kept_apply(c->sinks, &c->n_sinks, CFG_MAX_SINKS, "sink", name, key, value, line, err,
			  errsize);
}

bool cfg_export_section(const char *section, char ret_name[CFG_SINK_NAME_MAX])
{
	return cfg_quoted_section(section, "export", ret_name, CFG_SINK_NAME_MAX) &&
	       sink_name_ok(ret_name, strlen(ret_name));
}

int cfg_export_apply(struct cfg *c, const char *name, const char *key, const char *value, int line,
		     char *err, size_t errsize)
{
	return kept_apply(c->exports, &c->n_exports, CFG_MAX_EXPORTS, "export", name, key, value,
			  line, err, errsize);
}

const char *cfg_sink_get(const struct cfg_sink *s, const char *key, int *ret_line)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->kv[i].key, key) == 0) {
			if (ret_line)
				*ret_line = s->kv[i].line;
			return s->kv[i].value;
		}
	return NULL;
}
