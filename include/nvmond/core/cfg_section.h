/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * A configuration section owned by the subsystem that uses it (issue 26 §6).
 *
 * The subsystem declares its keys in a table (name, type, default, range, reload
 * behaviour, a check of its own) with offsets into a struct of its own, and
 * describes the section with a struct cfg_section. main registers the sections
 * once (cfg_sections_register()); from then on core's reader (cfg_load()) finds
 * their keys, applies and checks each value where it is read (so that a mistake
 * is "FILE:LINE: …" by the daemon and by `nvmond status` alike), keeps the
 * subsystem's struct inside struct cfg, describes the keys for the docs' checks
 * and tells which of them wait for a restart. The subsystem reads its values with
 * cfg_section_get(), through a typed accessor of its own:
 *
 *   static const struct cfg_key fleet_keys[] = {
 *           CFG_KEY_DURATION(struct fleet_conf, "fleet", "timeout", timeout_ms,
 *                            100, MS_PER_MIN, "10s"), …
 *   };
 *   const struct cfg_section fleetview_cfg_section = CFG_SECTION("fleet", fleet_keys,
 *                                                                struct fleet_conf);
 *   const struct fleet_conf *fleet_conf(const struct cfg *c)
 *   {
 *           return cfg_section_get(c, &fleetview_cfg_section);
 *   }
 */
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/core/cfg.h"

enum cfg_type {
	CFG_T_DURATION, /* int64_t milliseconds, bounds in ms */
	CFG_T_UINT32,	/* uint32_t, bounds inclusive */
	CFG_T_PATH,	/* char[], bounds are the length in bytes */
	CFG_T_LISTEN,	/* [daemon] listen only: listen_host + listen_port of struct cfg */
	CFG_T_ENUM,	/* an enum (int-sized), value from a choice list */
	CFG_T_SIZE,	/* uint64_t bytes ("400TB"), bounds in bytes */
	CFG_T_USER,	/* char[]: "" or the name of a user that exists (getpwnam) */
	CFG_T_TEXT,	/* char[]: UTF-8 without control characters; "…" around it removed */
	CFG_T_URL,	/* char[]: "" or an http:// or https:// URL */
	CFG_T_LABELS,	/* struct cfg_labels: name=value, … (cfg_parse_labels) */
};

struct cfg_choice {
	const char *name;
	int value;
};

struct cfg_key {
	const char *section;
	const char *key;
	enum cfg_type type;
	size_t offset; /* into the section's struct (struct cfg for core's own keys) */
	int64_t min, max;
	const struct cfg_choice *choices; /* CFG_T_ENUM: terminated by a NULL name */
	const char *hint;		  /* CFG_T_ENUM: the accepted values, for messages */
	const char *def;		  /* default, as written in the file; NULL: computed */
	bool restart;	    /* takes effect at the next start (every [http] key does) */
	const char *syntax; /* a text whose syntax @check knows: what the docs call it */
	/* A check the owner makes of each value read from the file, after its type's
	 * own: 0, or < 0 with @err ("FILE:LINE: [section] key: " goes before it). */
	int (*check)(const char *value, char *err, size_t errsize);
};

/* "yes" and "no" with their synonyms, NULL-terminated. */
extern const struct cfg_choice cfg_bool_choices[];

struct cfg_section {
	const char *name; /* [name] */
	const struct cfg_key *keys;
	size_t n_keys;
	size_t size, align; /* of the owner's struct */
	/* Rules between the section's keys, once the whole file is read (a reload
	 * too): 0, or < 0 with @err as cfg_key_fail() writes it. NULL: none. */
	int (*together)(const struct cfg *c, char *err, size_t errsize);
};

#define CFG_SECTION(sect, table, st, ...)                                                          \
	{                                                                                          \
		.name = sect, .keys = table, .n_keys = sizeof(table) / sizeof((table)[0]),         \
		.size = sizeof(st), .align = alignof(st), __VA_ARGS__                              \
	}

/* The field must have the C type the key type writes; a mismatch fails to compile. */
#define CFG_KEY_OFF(st, field, ctype)                                                              \
	(offsetof(st, field) + 0 * sizeof(_Generic(((st *)0)->field, ctype : 1)))

#define CFG_KEY_DURATION(st, sec, name, field, lo, hi, dflt, ...)                                  \
	{                                                                                          \
		.section = sec, .key = name, .type = CFG_T_DURATION,                               \
		.offset = CFG_KEY_OFF(st, field, int64_t), .min = lo, .max = hi, .def = dflt,      \
		__VA_ARGS__                                                                        \
	}
#define CFG_KEY_UINT32(st, sec, name, field, lo, hi, dflt, ...)                                    \
	{                                                                                          \
		.section = sec, .key = name, .type = CFG_T_UINT32,                                 \
		.offset = CFG_KEY_OFF(st, field, uint32_t), .min = lo, .max = hi, .def = dflt,     \
		__VA_ARGS__                                                                        \
	}
#define CFG_KEY_PATH(st, sec, name, field, minlen, dflt, ...)                                      \
	{                                                                                          \
		.section = sec, .key = name, .type = CFG_T_PATH,                                   \
		.offset = CFG_KEY_OFF(st, field, char *), .min = minlen,                           \
		.max = sizeof(((st *)0)->field) - 1, .def = dflt, __VA_ARGS__                      \
	}
#define CFG_KEY_BOOL(st, sec, name, field, dflt, ...)                                              \
	{                                                                                          \
		.section = sec, .key = name, .type = CFG_T_ENUM,                                   \
		.offset = CFG_KEY_OFF(st, field, int), .choices = cfg_bool_choices,                \
		.hint = "yes or no", .def = dflt, __VA_ARGS__                                      \
	}

/**
 * cfg_sections_register() - The sections owned above core, for every struct cfg
 * made from now on (cfg_defaults()): main's list, once at start, before any
 * configuration is read. The same list again changes nothing (a reader of a
 * section on another thread is safe); another list replaces it (tests), before
 * any thread reads a section.
 * Return: 0; -EINVAL for a section name core or another section has, or a key
 * table naming another section; -ENOSPC when they do not fit struct cfg.
 */
int cfg_sections_register(const struct cfg_section *const *v, size_t n);

/**
 * cfg_key_fail() - "FILE:LINE: " of the line that set [@section] @key (nothing when
 * no file set it), then the message, in @err: a rule between keys broken.
 * Return: -EINVAL.
 */
__attribute__((format(printf, 6, 7))) int cfg_key_fail(const struct cfg *c, const char *section,
						       const char *key, char *err, size_t errsize,
						       const char *fmt, ...);

/**
 * cfg_line_fail() - "FILE:LINE: " (nothing when @line is 0: a value not from a
 * file), then the message, in @err: a key of a named section ([sink "x"],
 * [export "y"]), which its owner parses from the lines it keeps.
 * Return: -EINVAL.
 */
__attribute__((format(printf, 5, 6))) int cfg_line_fail(char *err, size_t errsize, const char *file,
							int line, const char *fmt, ...);

/**
 * cfg_section_mut() - The values of section @s in @c, to change after the file
 * was read (a secret read from the file a key names). Return: NULL when @s is not
 * registered.
 */
void *cfg_section_mut(struct cfg *c, const struct cfg_section *s);

/**
 * cfg_section_get() - The values of section @s in @c (the owner's struct). A
 * section not registered (a unit test that did not ask for it) gives its
 * defaults.
 * Return: a pointer into @c (or to the defaults), never NULL.
 */
const void *cfg_section_get(const struct cfg *c, const struct cfg_section *s);
