/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The binary's command line (main_cli.c), shared with the daemon's start-up
 * (main.c): options, the configuration as the command line makes it, and the
 * commands other than the daemon. Private to the nvmond executable.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/core/cfg.h"
#include "nvmond/dev/dev.h"
#include "nvmond/probe/probe_group.h"

/* Exit codes (documented in docs/installing.md and --help). */
enum {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1, /* could not start or keep running: database, bind, devices */
	EXIT_USAGE = 2,	  /* bad command line or configuration */
	/* the database is not this nvmond's (a newer one's, another program's):
	 * the unit's RestartPreventExitStatus= keeps systemd from retrying */
	EXIT_DATABASE = 3,
};

struct opts {
	char **argv; /* as main() got it: the daemon restarts itself with it */
	const char *config;
	bool config_given;
	const char *db;
	const char *listen;
	const char *log_level;
	bool demo;
	bool json;
	const char *probe_device, *probe_preset;    /* nvmond probe; --device also selftest */
	const char *probe_devices[PROBE_GROUP_MAX]; /* nvmond probe --device A --device B … */
	size_t n_probe_devices;
	uint8_t selftest_code; /* nvmond selftest: 1h, 2h, Fh; 0 = --wait only */
	uint32_t selftest_nsid;
	bool selftest_wait;
	uint32_t probe_repeat;	   /* nvmond probe --repeat N; 0 = once */
	int64_t probe_cooldown_ms; /* --cooldown; -1 = the default */
	const char *probe_to;	   /* nvmond probe --preset copy-to --to ID */
};

/** parse_opts() - argv into @o and the command (NULL: the daemon). Prints errors. Return: 0 or -EINVAL. */
int parse_opts(int argc, char **argv, struct opts *o, const char **ret_cmd);

/**
 * load_config() - Defaults, then the file, then the command line, into @ret
 * (left half-filled on failure: load into a scratch copy to keep one). Prints
 * errors. Return: 0 or negative errno.
 */
int load_config(const struct opts *o, struct cfg *ret);

/** open_backend() - The real controllers, or the demo drives. Return: 0 or negative errno. */
int open_backend(const struct cfg *c, struct dev_backend **ret);

/** make_parent_dirs() - mkdir -p of @path's directory. Return: 0 or negative errno. */
int make_parent_dirs(const char *path);

/* The commands: each returns an exit status (EXIT_*). */
int cmd_status(const struct opts *o);
int cmd_probe(const struct opts *o);
int cmd_selftest(const struct opts *o);
