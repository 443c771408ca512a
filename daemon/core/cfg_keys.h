/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The configuration's key tables (cfg_keys.c), shared by cfg.c, which applies a
 * value to a key, checks and describes them. Nothing outside daemon/core includes this.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cfg_type {
	CFG_T_DURATION, /* int64_t milliseconds, bounds in ms */
	CFG_T_UINT32,	/* uint32_t, bounds inclusive */
	CFG_T_PATH,	/* char[CFG_PATH_MAX], bounds are the length in bytes */
	CFG_T_LISTEN,	/* listen_host + listen_port */
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
	size_t offset;
	int64_t min, max;
	const struct cfg_choice *choices; /* CFG_T_ENUM: terminated by a NULL name */
	const char *hint;		  /* CFG_T_ENUM: the accepted values, for messages */
	const char *def;		  /* default, as written in the file; NULL: computed */
	bool restart;	    /* takes effect at the next start (every [http] key does) */
	const char *syntax; /* CFG_T_PATH with a syntax checked above core: what the docs call it */
};

/* The sections' keys: offsets into struct cfg. */
extern const struct cfg_key cfg_keys[];
extern const size_t cfg_n_keys;
/* The keys of a [device "…"] section: offsets into struct cfg_device. */
extern const struct cfg_key cfg_device_keys[];
extern const size_t cfg_n_device_keys;
/* "yes" and "no" with their synonyms, NULL-terminated. */
extern const struct cfg_choice cfg_bool_choices[];
