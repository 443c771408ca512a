/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Shared by the configuration files only (cfg.c, cfg_value.c, cfg_file.c): time
 * units, character classes, the number parsers and the one path that applies a
 * value to a key. Nothing outside daemon/core includes this.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/core/cfg.h"
#include "nvmond/util/units.h"

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

static inline bool cfg_is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f';
}

static inline bool cfg_is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/**
 * cfg_parse_digits() - A run of decimal digits that is the whole of [@s, @end),
 * at most @max. Return: 0, -EINVAL (not digits) or -ERANGE.
 */
int cfg_parse_digits(const char *s, const char *end, int64_t max, int64_t *ret);

/**
 * cfg_fail() - The message @fmt into @err (at most @errsize bytes, cut there): the one
 * formatter of a bad value's or line's message in core's parsers.
 * Return: -EINVAL, to be returned as is.
 */
__attribute__((format(printf, 3, 4))) int cfg_fail(char *err, size_t errsize, const char *fmt, ...);

/** cfg_text_ok() - @len bytes of well-formed UTF-8 without a control character (C0, DEL). */
bool cfg_text_ok(const char *s, size_t len);

/** cfg_http_url_ok() - "http://HOST…" or "https://HOST…", no space or control character. */
bool cfg_http_url_ok(const char *s);

/** cfg_format_duration() - "1d", "90s", "250ms": the largest unit that is exact. */
void cfg_format_duration(int64_t ms, char *buf, size_t size);

/** cfg_section_known() - Whether [@section] is one we have keys for (or [device "X"]). */
bool cfg_section_known(const char *section);

/**
 * cfg_apply() - Look up [@section] @key and apply @value to @c: the common path of
 * the file and cfg_set(). On failure @c is untouched and @err holds "message".
 * Return: 0; -EINVAL for a bad value of a key that exists (a later line setting the
 * key again replaces it: the last one wins); -ENOENT for a key or section that does
 * not exist; -ENOSPC for one [device] or [sink] section, or sink key, too many.
 */
int cfg_apply(struct cfg *c, const char *section, const char *key, const char *value, char *err,
	      size_t errsize);

/**
 * cfg_apply_at() - cfg_apply() for a value read at @line of the file (0: none),
 * which cfg_key_where() tells later.
 */
int cfg_apply_at(struct cfg *c, const char *section, const char *key, const char *value, int line,
		 char *err, size_t errsize);

/**
 * cfg_quoted_section() - A section named @kind "NAME" (`[device "X"]`, `[sink "NAME"]`):
 * Return: true with NAME (not empty, shorter than @len) in @ret_name.
 */
bool cfg_quoted_section(const char *section, const char *kind, char *ret_name, size_t len);

/** cfg_sink_section() - [sink "NAME"]: Return: true with NAME in @ret_name. */
bool cfg_sink_section(const char *section, char ret_name[CFG_SINK_NAME_MAX]);

/** cfg_export_section() - [export "NAME"]: Return: true with NAME in @ret_name. */
bool cfg_export_section(const char *section, char ret_name[CFG_SINK_NAME_MAX]);

/** cfg_export_apply() - Keep [export "@name"] @key = @value (read at @line). Return: 0 or -EINVAL. */
int cfg_export_apply(struct cfg *c, const char *name, const char *key, const char *value, int line,
		     char *err, size_t errsize);

/** cfg_sink_apply() - Keep [sink "@name"] @key = @value (read at @line). Return: 0 or -EINVAL. */
int cfg_sink_apply(struct cfg *c, const char *name, const char *key, const char *value, int line,
		   char *err, size_t errsize);

struct cfg_key;

/**
 * cfg_key_apply() - Validate @value for key @k and store it in the struct at
 * @base (struct cfg for core's own keys, the owner's struct for a section's);
 * on failure nothing changes and @err holds "message". Return: 0 or -EINVAL.
 */
int cfg_key_apply(const struct cfg_key *k, void *base, const char *value, char *err,
		  size_t errsize);

/*
 * The registered sections (cfg_section.c). A key of theirs has a slot: its index
 * in struct cfg's sect_key_line and in the order the keys are described.
 */
/** cfg_sect_defaults() - Each registered section's defaults into @c. */
void cfg_sect_defaults(struct cfg *c);
/** cfg_sect_together() - Each registered section's rules between its keys. Return: 0 or < 0. */
int cfg_sect_together(const struct cfg *c, char *err, size_t errsize);
/** cfg_sect_known() - Whether a registered section is called [@section]. */
bool cfg_sect_known(const char *section);
/** cfg_sect_key_count() - How many keys the registered sections have. */
size_t cfg_sect_key_count(void);
/** cfg_sect_key() - The key of @slot, its section's index in @ret_sect; NULL past the end. */
const struct cfg_key *cfg_sect_key(size_t slot, size_t *ret_sect);
/** cfg_sect_find() - [@section] @key of a registered section, its slot in @ret_slot; or NULL. */
const struct cfg_key *cfg_sect_find(const char *section, const char *key, size_t *ret_slot);
/** cfg_sect_base() - Where the values of @slot's section live in @c. */
void *cfg_sect_base(const struct cfg *c, size_t slot);
/** cfg_key_lookup() - The key [@section] @key, core's or a registered section's; or NULL. */
const struct cfg_key *cfg_key_lookup(const char *section, const char *key);
